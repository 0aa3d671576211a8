"""Ladder pages (namespace `ladder`)."""

from django.urls import path

from ladder import views

app_name = "ladder"

urlpatterns = [
    path("ladder/", views.leaderboard, name="leaderboard"),
    path("ladder/<str:board>/", views.leaderboard, name="board"),
    path("players/<str:username>/", views.player, name="player"),
    path("ladder/me/relief/", views.relief, name="relief"),
]
