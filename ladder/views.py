"""Ladder pages: leaderboards and public player profiles (templates/ladder/)."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from ladder import selectors
from ladder.charts import line_chart
from ladder.errors import ApplicationError
from ladder.titles import TITLES, next_title

BOARD_ORDER = ("title", "rating", "points")


def _page_number(request: HttpRequest) -> int:
    try:
        return max(1, int(request.GET.get("page", "1")))
    except ValueError:
        return 1


def leaderboard(request: HttpRequest, board: str = "title") -> HttpResponse:
    if board not in selectors.BOARDS:
        raise Http404("no such leaderboard")
    viewer = request.user if request.user.is_authenticated else None
    page = _page_number(request)
    if request.GET.get("me") and viewer is not None:
        position = selectors.leaderboard_viewer(board=board, user=viewer)
        if position is not None:
            return redirect(f"{reverse('ladder:board', args=[board])}?page={position[1]}#me")
    result = selectors.leaderboard_page(board=board, page=page, viewer=viewer)
    return render(
        request,
        "ladder/board.html",
        {
            "board": board,
            "boards": BOARD_ORDER,
            "result": result,
            "titles": TITLES,
            "viewer_id": viewer.pk if viewer else None,
        },
    )


def player(request: HttpRequest, username: str) -> HttpResponse:
    try:
        user = selectors.player_get(username=username)
    except ApplicationError as error:
        raise Http404(error.message) from error
    profile = selectors.player_profile(user=user)
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
            "hands": selectors.player_hands(user=user, limit=20),
            "title_chart": line_chart(selectors.player_title_history(user=user)),
            "rating_chart": line_chart(selectors.player_rating_history(user=user)),
            "is_self": request.user.is_authenticated and request.user.pk == user.pk,
            "language_name": dict(settings.LANGUAGES).get(user.language, ""),
        },
    )
