from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import NoReverseMatch, reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from games import rules_words
from games import selectors as games_selectors
from ladder import selectors as ladder_selectors
from shengji_site.health import health_report

HOME_BOARD = "title"
HOME_BOARD_SIZE = 5
FRIENDS_FORM_QUERY = "players=6&mode=friends"


def _url_or(name: str, fallback: str) -> str:
    """The named URL, or ``fallback`` while no view has that name (the rules page)."""
    try:
        return reverse(name)
    except NoReverseMatch:
        return fallback


def _home_context(request: HttpRequest) -> dict[str, Any]:
    board = ladder_selectors.leaderboard_page(board=HOME_BOARD, page_size=HOME_BOARD_SIZE)
    return {
        "tables_in_play": games_selectors.tables_in_play_count(),
        "players_online": games_selectors.players_online_count(),
        "top": board.rows,
        "my_table": games_selectors.table_of_user(user=request.user),  # type: ignore[arg-type]
        "rules_url": _url_or("rules", "/rules/"),
        "login_url": f"{reverse('login')}?next={reverse('home')}",
        # A play button before logging in: the log-in then does it (accounts.views).
        "quick_login_url": f"{reverse('login')}?next={reverse('games:quick_join')}",
        "practice_login_url": f"{reverse('login')}?next={reverse('games:practice')}",
        # 找朋友 in one tap: the create form at six players, 找朋友 chosen (games/table_form.js);
        # the log-in first for a visitor (the form's page asks for it and comes back).
        "friends_url": f"{reverse('games:table_new')}?{FRIENDS_FORM_QUERY}",
        "signup_grant": settings.LADDER_SIGNUP_GRANT,
        "practice_shapes": rules_words.practice_shapes(),
    }


@never_cache
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """One click to play: quick match (ranked), practice against bots and a 找朋友 table of
    one's own, what is going on (tables in play, players online) and the top of the
    leaderboard."""
    return render(request, "home.html", _home_context(request))


@require_safe
def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """Browsers ask for /favicon.ico whatever the page links: the SVG icon."""
    return HttpResponseRedirect(static("favicon.svg"))


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    report = health_report()
    return JsonResponse(report, status=200 if report["ok"] else 503)
