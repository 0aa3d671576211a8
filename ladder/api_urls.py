"""The ladder's REST API, included under /api/ (namespace `api-ladder`)."""

from django.urls import path

from ladder import api

app_name = "api-ladder"

urlpatterns = [
    path("auth/token/", api.TokenView.as_view(), name="token"),
    path("me/", api.MeView.as_view(), name="me"),
    path("me/ledger/", api.MyLedgerView.as_view(), name="my-ledger"),
    path("me/relief/", api.ReliefView.as_view(), name="relief"),
    path("players/<str:username>/", api.PlayerView.as_view(), name="player"),
    path("players/<str:username>/hands/", api.PlayerHandsView.as_view(), name="player-hands"),
    path("leaderboards/<str:board>/", api.LeaderboardView.as_view(), name="leaderboard"),
    path("hands/<int:hand_id>/", api.HandView.as_view(), name="hand"),
]
