"""Lobby pages: the table list, creating a table, seats, ready, quick match (issue 7).

Thin: each view checks the request's shape with a form, calls one service and says what
happened. A POST answers a page (redirect to the lobby, with a message) or, when the request
accepts JSON (the lobby's script), ``{"ok": true}`` / ``{"ok": false, "code", "message"}``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import matchmaking, selectors, services
from games.errors import ApplicationError
from games.forms import ReadyForm, SeatForm, TableCreateForm
from games.models import Table

View = Callable[..., HttpResponse]

HTTP_STATUS = {"bad_message": 400, "login_required": 401, "not_found": 404}


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _lobby_url(table_id: int | None = None) -> str:
    url = reverse("games:lobby")
    return f"{url}#table-{table_id}" if table_id else url


def _done(request: HttpRequest, message: str, table_id: int | None = None) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"ok": True, "message": message})
    messages.success(request, message)
    return redirect(_lobby_url(table_id))


def _refused(
    request: HttpRequest, error: ApplicationError, table_id: int | None = None
) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse(
            {"ok": False, "code": error.code, "message": error.message},
            status=HTTP_STATUS.get(error.code, 409),
        )
    if error.code == "login_required":
        return redirect_to_login(_lobby_url(table_id))
    messages.error(request, f"{error.message} ({error.code})")
    return redirect(_lobby_url(table_id))


def lobby_action(view: View) -> View:
    """A POST of a logged-in player; an ApplicationError becomes the refusal shown to them."""

    @wraps(view)
    @require_POST
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        table_id = kwargs.get("table_id")
        try:
            if not request.user.is_authenticated:
                raise ApplicationError("login_required")
            return view(request, *args, **kwargs)
        except ApplicationError as error:
            return _refused(request, error, table_id)

    return wrapper


def _form_error(form: Any) -> ApplicationError:
    fields = ", ".join(sorted(form.errors))
    return ApplicationError("bad_message", _("check these fields: %(fields)s") % {"fields": fields})


# --- pages -----------------------------------------------------------------------------------


def _lobby_rows(tables: list[dict[str, Any]], viewer: dict[str, Any]) -> list[dict[str, Any]]:
    """The lobby's tables with what the viewer may do at each (the script does the same)."""
    rows = []
    for table in tables:
        mine = viewer["seats"].get(str(table["id"]))
        playing = table["status"] == Table.Status.PLAYING
        empty = all(seat["user"] is None for seat in table["seats"])
        may_bot = not table["ranked"] and not playing
        may_bot = may_bot and (mine is not None or table["id"] in viewer["created"])
        seats = [
            {
                **seat,
                "free": seat["user"] is None and not seat["bot"],
                "mine": mine is not None and mine["seat"] == seat["seat"],
            }
            for seat in table["seats"]
        ]
        extra = {"mine": mine, "playing": playing, "empty": empty, "may_bot": may_bot}
        rows.append({**table, "seats": seats, **extra})
    return rows


def _labels() -> dict[str, str]:
    """The words the lobby's script writes, translated here (no build step, no catalogue)."""
    return {
        "ranked": _("ranked"),
        "casual": _("casual"),
        "open": _("open"),
        "playing": _("hand in progress"),
        "stake": _("stake"),
        "min_balance": _("minimum balance"),
        "seconds": _("s per play"),
        "empty": _("empty"),
        "bot": _("bot"),
        "ready": _("ready"),
        "sit": _("Sit"),
        "leave": _("Leave seat"),
        "press_ready": _("Ready"),
        "unready": _("Not ready"),
        "add_bot": _("Bot"),
        "watch": _("Open table"),
        "you": _("you"),
        "no_tables": _("No open tables yet: create one."),
        "queue_size": _("waiting"),
        "expected": _("expected wait"),
        "no_estimate": _("no estimate yet"),
        "waiting_for": _("You have waited"),
        "gap": _("accepted rating gap"),
        "join": _("Find a ranked match"),
        "leave_queue": _("Leave the queue"),
        "matched": _("Matched! Your table:"),
        "live": _("live"),
        "offline": _("reconnecting…"),
        "seat": _("Seat"),
        "stake_first": _("stake (you are first)"),
    }


@never_cache
@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    matchmaking.queue_touch(user=request.user)  # type: ignore[arg-type]
    viewer = matchmaking.lobby_viewer_get(user=request.user)  # type: ignore[arg-type]
    queue = matchmaking.queue_status_get(user=request.user)  # type: ignore[arg-type]
    return render(
        request,
        "games/lobby.html",
        {
            "tables": _lobby_rows(selectors.lobby_list(), viewer),
            "queue": queue,
            "form": TableCreateForm(),
            "labels": _labels(),
        },
    )


@never_cache
@require_GET
def lobby_status(request: HttpRequest) -> JsonResponse:
    """The queue and the viewer's seats, for the lobby's script (it also keeps a waiting
    player's place: a place not asked for in a minute is given up)."""
    matchmaking.queue_touch(user=request.user)  # type: ignore[arg-type]
    return JsonResponse(
        {
            "queue": matchmaking.queue_status_get(user=request.user),  # type: ignore[arg-type]
            "viewer": matchmaking.lobby_viewer_get(user=request.user),  # type: ignore[arg-type]
        }
    )


@require_http_methods(["GET", "POST"])
def table_new(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    form = TableCreateForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            table = services.table_create(
                creator=request.user,
                **form.service_arguments(),
            )
        except ApplicationError as error:
            form.add_error(None, f"{error.message} ({error.code})")
        else:
            return _done(request, _("Table %(name)s created.") % {"name": table.name}, table.pk)
    status = 400 if form.is_bound else 200
    return render(request, "games/table_new.html", {"form": form}, status=status)


@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """A placeholder until the table page comes (a later issue): the table and its seats."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise Http404("no such table")
    return render(
        request,
        "games/table.html",
        {
            "table": selectors.table_summary(table),
            "seats": selectors.seats_list(table_id=table.pk),
        },
    )


# --- seats -----------------------------------------------------------------------------------


@lobby_action
def seat_take(request: HttpRequest, table_id: int) -> HttpResponse:
    form = SeatForm(request.POST)
    if not form.is_valid():
        raise _form_error(form)
    seat = services.seat_take(
        table_id=table_id,
        user=request.user,  # type: ignore[arg-type]
        index=form.cleaned_data["seat"],
        stake=form.cleaned_data["stake"],
    )
    return _done(request, _("You sit at seat %(seat)s.") % {"seat": seat.index}, table_id)


@lobby_action
def seat_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    services.seat_leave(table_id=table_id, user=request.user)  # type: ignore[arg-type]
    return _done(request, _("You left your seat."), table_id)


@lobby_action
def seat_ready(request: HttpRequest, table_id: int) -> HttpResponse:
    form = ReadyForm(request.POST)
    if not form.is_valid():
        raise _form_error(form)
    ready = form.is_ready()
    hand = services.seat_ready(
        table_id=table_id,
        user=request.user,  # type: ignore[arg-type]
        ready=ready,
    )
    if hand is not None:
        message = _("All four are ready: the hand starts.")
    else:
        message = _("You are ready.") if ready else _("You are not ready.")
    return _done(request, message, table_id)


@lobby_action
def seat_bot(request: HttpRequest, table_id: int) -> HttpResponse:
    form = SeatForm(request.POST)
    if not form.is_valid():
        raise _form_error(form)
    seat = services.seat_fill_bot(
        table_id=table_id,
        user=request.user,  # type: ignore[arg-type]
        index=form.cleaned_data["seat"],
    )
    return _done(request, _("A bot sits at seat %(seat)s.") % {"seat": seat.index}, table_id)


# --- quick match -----------------------------------------------------------------------------


@lobby_action
def quick_join(request: HttpRequest) -> HttpResponse:
    matchmaking.queue_join(user=request.user)  # type: ignore[arg-type]
    matched = matchmaking.queue_status_get(user=request.user)["matched_table"]  # type: ignore[arg-type]
    if matched is not None:  # the join completed a group: seated at once
        return _done(request, _("Matched: your table is ready."), matched)
    return _done(request, _("You are waiting for a ranked match."))


@lobby_action
def quick_leave(request: HttpRequest) -> HttpResponse:
    matchmaking.queue_leave(user=request.user)  # type: ignore[arg-type]
    return _done(request, _("You left the queue."))
