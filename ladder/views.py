"""Ladder pages: the leaderboards and the daily relief button (templates/ladder/). A player's
page shows their hands, so it is games/player_page.py, in the same namespace `ladder`."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import client_address
from ladder import selectors
from ladder.errors import ApplicationError
from ladder.services import ladder_relief_claim
from ladder.titles import TITLES

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


@require_POST
def relief(request: HttpRequest) -> HttpResponse:
    """The daily relief grant (救济), from the button on one's own player page."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    try:
        entry = ladder_relief_claim(user=request.user, address=client_address.client_ip(request))
    except ApplicationError as error:
        messages.error(request, f"{error.message} ({error.code})")
    else:
        messages.success(
            request,
            _("Relief: %(amount)s table points (now %(balance)s).")
            % {"amount": entry.amount, "balance": entry.balance_after},
        )
    return redirect("ladder:player", username=request.user.get_username())
