"""The ladder's pages. The site's URLconf (shengji_site/urls.py) puts them in the namespace
`ladder` with the player page, which shows hands (games/history_urls.py)."""

from django.urls import path

from ladder import views

urlpatterns = [
    path("ladder/", views.leaderboard, name="leaderboard"),
    path("ladder/<str:board>/", views.leaderboard, name="board"),
    path("ladder/me/relief/", views.relief, name="relief"),
]
