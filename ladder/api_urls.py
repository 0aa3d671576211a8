"""The ladder's REST API. The site's URLconf (shengji_site/urls.py) puts it under /api/ in the
namespace `api-ladder` with the API's reads of hands (games/history_urls.py)."""

from django.urls import path

from ladder import api

urlpatterns = [
    path("auth/token/", api.TokenView.as_view(), name="token"),
    path("me/", api.MeView.as_view(), name="me"),
    path("me/ledger/", api.MyLedgerView.as_view(), name="my-ledger"),
    path("me/relief/", api.ReliefView.as_view(), name="relief"),
    path("players/<str:username>/", api.PlayerView.as_view(), name="player"),
    path("leaderboards/<str:board>/", api.LeaderboardView.as_view(), name="leaderboard"),
]
