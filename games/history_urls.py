"""The routes of the pages and API views that show hands beside the ladder's numbers. They keep
the ladder's URL names and paths: the site's URLconf (shengji_site/urls.py) puts
`page_urlpatterns` in the `ladder` namespace with ladder/urls.py's routes, and `api_urlpatterns`
in `api-ladder` (under /api/) with ladder/api_urls.py's."""

from django.urls import path

from games import history_api, player_page

page_urlpatterns = [
    path("players/<str:username>/", player_page.player, name="player"),
]

api_urlpatterns = [
    path(
        "players/<str:username>/hands/",
        history_api.PlayerHandsView.as_view(),
        name="player-hands",
    ),
    path("hands/<int:hand_id>/", history_api.HandView.as_view(), name="hand"),
]
