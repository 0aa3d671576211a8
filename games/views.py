"""Lobby pages: the table list, creating a table, seats, ready, quick match (issue 7); the table
page and the replays of finished hands (issue 8).

Thin: each view checks the request's shape with a form, calls one service and says what
happened. A POST answers a page (redirect to the lobby, with a message) or, when the request
accepts JSON (the lobby's script), ``{"ok": true}`` / ``{"ok": false, "code", "message"}``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import accounts.errors as game_errors
from accounts import ratelimits
from accounts.errors import ApplicationError
from games import (
    chat_words,
    matchmaking,
    page_labels,
    replay,
    rules_words,
    selectors,
    services,
)
from games.forms import PracticeForm, ReadyForm, SeatForm, TableCreateForm
from games.models import Hand, Table
from ladder import selectors as ladder_selectors

View = Callable[..., HttpResponse]

HTTP_STATUS = {"bad_message": 400, "login_required": 401, "not_found": 404, "rate_limited": 429}


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
        body: dict[str, Any] = {"ok": False, "code": error.code, "message": error.message}
        if error.code in game_errors.SELF_EXPLAINED:  # no code shown; the page named is linked
            body.update(plain=True, **_refusal_links(error))
        return JsonResponse(body, status=HTTP_STATUS.get(error.code, 409))
    if error.code == "login_required":
        return redirect_to_login(_lobby_url(table_id))
    messages.error(request, _refusal_text(error))
    return redirect(_lobby_url(table_id))


def _refusal_links(error: ApplicationError) -> dict[str, str]:
    """The pages a refusal names (``SELF_EXPLAINED``): the table the player is held at, the
    player page where daily relief is claimed; each as ``{url, text}`` fields."""
    links = {}
    if "table_url" in error.fields:
        links["link_url"] = str(error.fields["table_url"])
        links["link_text"] = str(error.fields["table_name"])
    elif "relief_url" in error.fields:
        links["link_url"] = str(error.fields["relief_url"])
        links["link_text"] = str(_("Your player page"))
    return links


def _refusal_text(error: ApplicationError) -> str:
    """A refusal as a page's message: a ``SELF_EXPLAINED`` one in words only, with a link to
    the page it names; any other with its code."""
    if error.code not in game_errors.SELF_EXPLAINED:
        return f"{error.message} ({error.code})"
    links = _refusal_links(error)
    if not links:
        return error.message
    return format_html(
        '{} <a href="{}">{}</a>', error.message, links["link_url"], links["link_text"]
    )


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


def _shape_form_error(form: Any) -> ApplicationError:
    """A shape form's refusal: its own code (``ranked_quick_match_only``) when it has one."""
    for errors in form.errors.as_data().values():
        for error in errors:
            if error.code == "ranked_quick_match_only":
                return ApplicationError(error.code)
    return _form_error(form)


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
        names = chat_words.seat_names(table.get("players", len(table["seats"])))
        seats = [
            {
                **seat,
                "name": names[seat["seat"]],
                "free": seat["user"] is None and not seat["bot"],
                "mine": mine is not None and mine["seat"] == seat["seat"],
            }
            for seat in table["seats"]
        ]
        extra = {"mine": mine, "playing": playing, "empty": empty, "may_bot": may_bot}
        extra["preset_label"] = _rules_label(table)
        extra["shape_words"] = rules_words.shape_words(_shape_rules(table))
        rows.append({**table, "seats": seats, **extra})
    return rows


def _shape_rules(table: dict[str, Any]) -> dict[str, Any]:
    """A listed table's shape (``selectors.table_shape``) as ``shape_words`` reads it."""
    return {key: table.get(key) for key in ("players", "decks", "mode") if key in table}


def _rules_label(table: dict[str, Any]) -> str:
    """A listed table's rules in players' words: its preset's name, and whether house rules
    change it."""
    changes = rules_words.house_rules_change_preset(
        table["preset"], table.get("house_rules"), decks=int(table.get("decks") or 2)
    )
    suffix = rules_words.HOUSE_SUFFIX if changes else ""
    return rules_words.preset_label(f"{table['preset']}{suffix}")


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
            "own_tables": [  # where they sit or that they host, private ones too
                {**t, "shape_words": rules_words.shape_words(_shape_rules(t))}
                for t in selectors.own_tables(user=request.user)  # type: ignore[arg-type]
            ],
            "queue": queue,
            "form": TableCreateForm(),
            "rules_data": rules_words.form_rules_data(),
            "shape_data": rules_words.shape_form_data(),
            "seat_needed": _seat_needed(TableCreateForm.defaults(), request),
            "labels": page_labels.lobby_labels(),
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
            table, not_seated = services.table_create_seated(
                creator=request.user,
                **form.service_arguments(),
            )
        except ApplicationError as error:
            if _wants_json(request):
                return _refused(request, error)
            form.add_error(None, f"{error.message} ({error.code})")
        else:
            return _table_created(request, table, not_seated)
    status = 400 if form.is_bound else 200
    if form.is_bound and not form.is_valid() and _wants_json(request):
        return _refused(request, _shape_form_error(form))
    context = {
        "form": form,
        "rules_data": rules_words.form_rules_data(),
        "shape_data": rules_words.shape_form_data(),
        "seat_needed": _seat_needed(
            form if form.is_bound and form.is_valid() else TableCreateForm.defaults(), request
        ),
    }
    return render(request, "games/table_new.html", context, status=status)


def _table_created(
    request: HttpRequest, table: Table, not_seated: ApplicationError | None
) -> HttpResponse:
    """The creator sits at the new table's first seat; when they could not, the message says why
    (the table stays, for others)."""
    if not_seated is None:
        created = _("Table %(name)s created: you sit at %(seat)s.") % {
            "name": table.name,
            "seat": chat_words.seat_name(0, table.players),
        }
    else:
        created = _("Table %(name)s created. You are not seated: %(reason)s") % {
            "name": table.name,
            "reason": not_seated.message,
        }
    if _wants_json(request):
        return JsonResponse({"ok": True, "message": created, "table": table.pk})
    if not_seated is None:
        messages.success(request, created)
    else:
        messages.warning(request, created)
    return redirect("games:table", table_id=table.pk)


def _seat_needed(form: TableCreateForm, request: HttpRequest) -> dict[str, Any]:
    """What a seat at the table ``form`` would make needs, by the code that checks it when
    sitting and before every hand, in words; with the viewer's own balance when logged in."""
    if not form.is_valid():
        return {"ok": False, "code": "bad_message", "message": _form_error(form).message}
    try:
        needed = services.points_needed_to_create(**form.needed_arguments())
    except ApplicationError as error:
        return {"ok": False, "code": error.code, "message": error.message}
    result: dict[str, Any] = {"ok": True, "needed": needed, "enough": True}
    if not request.user.is_authenticated:
        words = _("Every seat needs at least %(needed)s table points.")
    else:
        balance = services.user_balance(request.user)
        result.update(balance=balance, enough=balance >= needed)
        words = (
            _("Every seat needs at least %(needed)s table points. You hold %(balance)s.")
            if balance >= needed
            else _(
                "Every seat needs at least %(needed)s table points. You hold %(balance)s: "
                "lower the stake to sit here yourself."
            )
        )
    numbers = {"needed": f"{needed:,}", "balance": f"{result.get('balance', 0):,}"}
    return {**result, "text": words % numbers}


@never_cache
@require_GET
def table_needed(request: HttpRequest) -> JsonResponse:
    """The create form's preview: the table points a seat at the table its fields (the query)
    would make needs (``_seat_needed``)."""
    return JsonResponse(_seat_needed(TableCreateForm(request.GET), request))


def _table_config(request: HttpRequest, table: Table) -> dict[str, Any]:
    rules = table.rules()
    options = rules.to_dict()["options"]
    escape_cost, escape_text = rules_words.escape_words(options, table.stake, ranked=table.ranked)
    user = request.user
    return {
        "id": table.pk,
        "socket": f"/ws/table/{table.pk}/",
        "bidding": rules.bidding,
        "shape": {
            **selectors.table_shape(table),
            "words": rules_words.shape_words(rules),
            "seat_names": chat_words.seat_names(rules.players),
        },
        "rules": {
            "name": rules_words.preset_label(rules.name),
            "escape_cost": escape_cost,
            "escape_text": escape_text,
            "practice_text": rules_words.practice_words(),
        },
        "grace_s": settings.SHENGJI_DISCONNECT_GRACE_S,
        "next_hand_pause_s": settings.SHENGJI_NEXT_HAND_PAUSE_S,
        "me": {
            "logged_in": user.is_authenticated,
            "username": user.get_username() if user.is_authenticated else None,
            "is_creator": user.is_authenticated and table.creator_id == user.pk,
        },
        "urls": {
            "login": f"{reverse('login')}?next={request.path}",
            "lobby": reverse("games:lobby"),
            "replay": reverse("games:replay", kwargs={"hand_id": 0}),
            "ledger": reverse("games:hand_ledger", kwargs={"hand_id": 0}),
            "quick_join": reverse("games:quick_join"),
        },
    }


@never_cache
@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """The live table: the page holds the words and settings; table.js plays over the socket."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not selectors.table_visible_to(table, request.user, request.session):  # type: ignore[arg-type]
        raise Http404("no such table")
    seats = selectors.seats_list(table_id=table.pk)
    practice = any(s["bot"] and s["user"] is None for s in seats)  # a bot of its own
    return render(
        request,
        "games/table.html",
        {
            "invite": _invite_for(request, table),
            "table": selectors.table_summary(table),
            "seats": seats,
            "practice": practice,
            "labels": page_labels.table_labels(),
            "config": _table_config(request, table),
            "rules_card": rules_words.rules_card(
                table.rules().to_dict(), stake=table.stake, practice=practice, ranked=table.ranked
            ),
            "points_needed": services.points_needed_here(table),
        },
    )


# --- replays (issue 8) -------------------------------------------------------------------------


def _replay_or_404(request: HttpRequest, hand_id: int) -> Hand:
    """The hand, if it is over and the reader may see it (``selectors.hand_visible_to``): a
    hand of a private table or of practice is answered to anyone else exactly as a missing
    one, so hand ids cannot be probed."""
    try:
        hand = replay.replay_hand_get(hand_id=hand_id)
    except ApplicationError:
        hand = None
    if hand is None or not selectors.hand_visible_to(hand, request.user):  # type: ignore[arg-type]
        raise Http404("no such finished hand")
    return hand


@require_GET
def replay_page(request: HttpRequest, hand_id: int) -> HttpResponse:
    """A finished hand, all four hands shown, step by step (never a hand in progress)."""
    hand = _replay_or_404(request, hand_id)
    data = replay.replay_get(hand_id=hand.pk)
    return render(
        request,
        "games/replay.html",
        {
            "hand": data["hand"],
            "finished_at": hand.finished_at,
            "players": _with_compass(data["players"]),
            "replay": data,
            "labels": page_labels.replay_labels(),
            "rules_card": rules_words.rules_card(data["rules"]),
            "record_url": reverse("games:replay_record", kwargs={"hand_id": hand.pk}),
        },
    )


def _with_compass(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each player with their seat's name as the table names seats: the compass (东, 南 …) at
    four seats, the seat's number at a bigger table (``chat_words.seat_names``)."""
    if len(players) == 4:
        compass = chat_words.seat_compass()
        return [{**player, "compass": compass[player["seat"]]} for player in players]
    names = chat_words.seat_names(len(players))
    return [
        {**player, "compass": str(player["seat"] + 1), "seat_name": names[player["seat"]]}
        for player in players
    ]


@require_GET
def replay_record(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The hand's record as JSON (docs/NOTATION.md): ``HandRecord.from_json`` reads it back."""
    hand = _replay_or_404(request, hand_id)
    record = replay.replay_record_get(hand=hand)
    response = HttpResponse(record.to_json(), content_type="application/json")
    response["Content-Disposition"] = f'inline; filename="hand-{hand.pk}.json"'
    return response


@never_cache
@require_GET
def hand_ledger(request: HttpRequest, hand_id: int) -> JsonResponse:
    """What a hand that is over did to each player's points, for the table's result panel."""
    hand = _replay_or_404(request, hand_id)
    players = replay.replay_ledger_get(hand=hand)
    # False between the hand's last move and its wrap-up: the page asks again a moment later.
    settled = not hand.awaiting_wrap_up
    practice = settled and ladder_selectors.practice_hand(hand_id=hand.pk)
    return JsonResponse(
        {"hand": hand.pk, "settled": settled, "practice": practice, "players": players}
    )


# --- seats -----------------------------------------------------------------------------------


@lobby_action
def seat_take(request: HttpRequest, table_id: int) -> HttpResponse:
    _require_visible(request, table_id)
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
    _require_visible(request, table_id)
    services.seat_leave(table_id=table_id, user=request.user)  # type: ignore[arg-type]
    return _done(request, _("You left your seat."), table_id)


@lobby_action
def seat_ready(request: HttpRequest, table_id: int) -> HttpResponse:
    _require_visible(request, table_id)
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
    _require_visible(request, table_id)
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
    """快速匹配: queue for a ranked table. The join that completes a group of four goes straight
    to the table; one already seated somewhere is taken back there, as 和电脑练习 does."""
    user = request.user
    # Before any read of the queue.
    ratelimits.action_check(action="quick_match", user_id=user.pk)  # type: ignore[arg-type]
    try:
        matchmaking.queue_join(user=user)  # type: ignore[arg-type]
    except ApplicationError as error:
        seated_at = selectors.table_of_user(user=user)  # type: ignore[arg-type]
        if error.code != "seated_elsewhere" or seated_at is None or _wants_json(request):
            raise
        messages.info(request, _("You are already seated at a table: here it is."))
        return redirect("games:table", table_id=seated_at)
    matched = matchmaking.queue_status_get(user=user)["matched_table"]  # type: ignore[arg-type]
    if matched is None:
        return _done(request, _("You are waiting for a ranked match."))
    message = _("Matched: your table is ready.")
    if _wants_json(request):
        return JsonResponse({"ok": True, "message": message, "table": matched})
    messages.success(request, message)
    return redirect("games:table", table_id=matched)


@lobby_action
def quick_leave(request: HttpRequest) -> HttpResponse:
    ratelimits.action_check(action="quick_match", user_id=request.user.pk)  # type: ignore[arg-type]
    matchmaking.queue_leave(user=request.user)  # type: ignore[arg-type]
    return _done(request, _("You left the queue."))


# --- one click to play, private tables (issue 16) ---------------------------------------------


@lobby_action
def practice(request: HttpRequest) -> HttpResponse:
    """和电脑练习: one POST seats the player with bots in every other seat at a private table
    and starts a hand (``services.practice_start``), at the shape the POST names (``players``,
    ``mode``, ``decks``, ``friends`` and the 找朋友 options; none: four players, 拖拉机). One
    already seated somewhere goes back to that table."""
    user = request.user
    form = PracticeForm(request.POST)
    if not form.is_valid():
        raise _shape_form_error(form)
    try:
        table = services.practice_start(user=user, **form.shape_arguments())  # type: ignore[arg-type]
    except ApplicationError as error:
        seated_at = selectors.table_of_user(user=user)  # type: ignore[arg-type]
        if error.code != "seated_elsewhere" or seated_at is None:
            raise
        messages.info(request, _("You are already seated at a table: here it is."))
        return redirect("games:table", table_id=seated_at)
    return redirect("games:table", table_id=table.pk)


@never_cache
@require_GET
def table_invite(request: HttpRequest, invite_code: str) -> HttpResponse:
    """An invite link (``/t/<code>/``): this session may now see the private table; on to it."""
    table = selectors.table_by_invite(invite_code=invite_code)
    if table is None:
        raise Http404("no such invite")
    codes = request.session.get(selectors.INVITES_SESSION_KEY)
    codes = codes if isinstance(codes, list) else []
    request.session[selectors.INVITES_SESSION_KEY] = selectors.invite_codes_with(codes, invite_code)
    return redirect("games:table", table_id=table.pk)


def _invite_for(request: HttpRequest, table: Table) -> dict[str, Any] | None:
    """A private table's invite link, for those who may see the table (its page)."""
    if not table.unlisted or not table.invite_code or _practice_table(table):
        return None
    path = reverse("games:invite", kwargs={"invite_code": table.invite_code})
    mine = request.user.is_authenticated and table.creator_id == request.user.pk
    return {"url": request.build_absolute_uri(path), "mine": mine}


def _practice_table(table: Table) -> bool:
    """Bots hold every seat but one: nobody else can sit, so the invite link would be noise."""
    return table.seats.filter(bot=True, user=None).count() >= table.players - 1


def _require_visible(request: HttpRequest, table_id: int) -> None:
    """A private table is ``not_found`` to whoever may not see it (``table_visible``)."""
    user, session = request.user, request.session
    if not selectors.table_visible(table_id=table_id, user=user, session=session):  # type: ignore[arg-type]
        raise ApplicationError("not_found")
