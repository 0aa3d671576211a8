"""Ladder pages: leaderboards and public player profiles (templates/ladder/)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import ratelimits
from ladder import selectors
from ladder.charts import line_chart
from ladder.errors import ApplicationError
from ladder.services import ladder_relief_claim
from ladder.titles import TITLES, next_title

BOARD_ORDER = ("title", "rating", "points")
MAX_PAGE = 10**7  # as the API's: a deeper page is past any board (and past a bigint offset)


def _page_number(request: HttpRequest) -> int:
    try:
        page = max(1, int(request.GET.get("page", "1")))
    except ValueError:  # not a number (or over 4,300 digits): the first page
        return 1
    if page > MAX_PAGE:
        raise Http404("no such page")
    return page


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
            "hands": selectors.player_hands(user=user, viewer=request.user, limit=20),
            "shape_stats": selectors.player_shape_stats(user=user),
            "title_chart": line_chart(selectors.player_title_history(user=user)),
            "rating_chart": line_chart(selectors.player_rating_history(user=user)),
            "is_self": is_self,
            "relief": (
                selectors.relief_status(user=user, address=ratelimits.client_ip(request))
                if is_self
                else None
            ),
            "language_name": dict(settings.LANGUAGES).get(user.language, ""),
        },
    )


@require_POST
def relief(request: HttpRequest) -> HttpResponse:
    """The daily relief grant (救济), from the button on one's own player page."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    try:
        entry = ladder_relief_claim(user=request.user, address=ratelimits.client_ip(request))
    except ApplicationError as error:
        messages.error(request, f"{error.message} ({error.code})")
    else:
        messages.success(
            request,
            _("Relief: %(amount)s table points (now %(balance)s).")
            % {"amount": entry.amount, "balance": entry.balance_after},
        )
    return redirect("ladder:player", username=request.user.get_username())
