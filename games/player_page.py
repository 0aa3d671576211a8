"""A player's public page, /players/<username>/ (URL name `ladder:player`): the ladder's numbers,
ranks and charts, and the player's settled hands the reader may see. The page shows hands, so it
stands on the games floor (docs/ARCHITECTURE.md, "Floors"); the site's URLconf puts it in the
ladder's namespace (games/history_urls.py)."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from accounts import client_address
from games import history
from ladder import selectors
from ladder.charts import line_chart
from ladder.errors import ApplicationError
from ladder.titles import next_title
from ladder.views import BOARD_ORDER


def player(request: HttpRequest, username: str) -> HttpResponse:
    if "\x00" in username:  # PostgreSQL refuses NUL in text: no user has it
        raise Http404("no such player")
    try:
        user = selectors.player_get(username=username)
    except ApplicationError as error:
        raise Http404(error.message) from error
    profile = selectors.player_profile(user=user)
    is_self = request.user.is_authenticated and request.user.pk == user.pk
    ranks = {board: selectors.leaderboard_rank(board=board, user=user) for board in BOARD_ORDER}
    return render(
        request,
        "ladder/player.html",
        {
            "player": user,
            "profile": profile,
            "title": profile.title,
            "next_title": next_title(profile.title_points),
            "ranks": ranks,
            "hands": history.player_hands(user=user, viewer=request.user, limit=20),
            "shape_stats": history.player_shape_stats(user=user),
            "title_chart": line_chart(selectors.player_title_history(user=user)),
            "rating_chart": line_chart(selectors.player_rating_history(user=user)),
            "is_self": is_self,
            "relief": (
                selectors.relief_status(user=user, address=client_address.client_ip(request))
                if is_self
                else None
            ),
            "language_name": dict(settings.LANGUAGES).get(user.language, ""),
        },
    )
