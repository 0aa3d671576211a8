"""Tables and seats: opening a table, sitting down, standing up, a bot in an empty seat,
pressing ready (which starts the hand when every seat is), showing one's hand to spectators.

Who may open a table (docs/LADDER.md, "Table creation limits"): at most
``SHENGJI_TABLES_OPEN_PER_USER`` (3) open tables made by one user, and
``SHENGJI_TABLES_CREATED_PER_HOUR`` (10) made in any hour, so one account cannot push the other
users' tables out of the lobby.

Who may sit (docs/LADDER.md): one table at a time (``seated_elsewhere``); at a ranked table only
through quick match (``ranked_table_open``); and only holding the table points one hand can take
(``points_needed``), which is checked again before every hand (``start``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts.errors import ApplicationError, Grouped, detailed_message, is_known_code
from accounts.models import User
from games import realtime
from games.models import (
    MAX_SEATS,
    SHAPE_HOUSE_RULES,
    Hand,
    HandPlayer,
    Seat,
    Table,
    engine_options,
)
from games.services._common import (
    MAX_STAKE,
    SEATS,
    db_now,
    free_seat,
    hand_on,
    lock_table,
    locked_seats,
    points_needed,
    points_needed_seated,
    ranked_table_close_if_dead,
    system,
    table_changed,
)
from games.services.start import match_end_if_deserted, start_if_all_ready
from ladder.selectors import player_balance
from ladder.services import ladder_profiles_lock
from shengji.engine import HOUSE_OPTIONS, PRESET_NAMES, InvalidOptionError, RuleSet, preset
from shengji.engine.rules import (
    CLASSIC_SHAPE,
    RefusedOptionError,
    ShapeOptionError,
    default_decks,
    default_friends,
)


@transaction.atomic
def table_create(
    *,
    creator: User,
    name: str,
    preset_name: str = "ranked",
    ranked: bool = False,
    stake: int = 100,
    min_balance: int = 0,
    play_seconds: int = 20,
    bury_seconds: int = 30,
    bid_window_seconds: int = 8,
    deal_interval_ms: int = 100,
    house_rules: dict[str, Any] | None = None,
    unlisted: bool = False,
    players: int = SEATS,
) -> Table:
    """Open a casual table. Ranked tables come only from quick match (``ranked_table_open``):
    nobody picks their ranked opponents or partner, so ``ranked=True`` is refused.
    ``house_rules``: options of RULES-SPEC.md §8 on top of the preset (``invalid_house_rules``),
    and the table's shape besides ``players`` (``SHAPE_HOUSE_RULES``: mode, decks, friends
    and the 找朋友 options; refused with the engine's reasons, ``shape_checked``);
    ``unlisted``: not in the lobby, joined by its invite link (``invite_code``)."""
    if ranked:
        raise ApplicationError("ranked_quick_match_only")
    checked = house_rules_checked(preset_name, house_rules or {}, players=players)
    _creation_allowed(creator)
    table = _table_new(
        creator=creator,
        name=name,
        preset_name=preset_name,
        ranked=False,
        stake=stake,
        min_balance=min_balance,
        timings=(play_seconds, bury_seconds, bid_window_seconds, deal_interval_ms),
        house_rules=checked,
        players=players,
    )
    if unlisted:
        table.unlisted = True
        table.invite_code = secrets.token_urlsafe(12)
        table.save(update_fields=["unlisted", "invite_code"])
    return table


@transaction.atomic
def table_create_seated(
    *, creator: User, **arguments: Any
) -> tuple[Table, ApplicationError | None]:
    """``table_create``, and the creator sits in seat 0 (the create form's way: a table made is
    a table to play at). A creator who cannot sit (seated at another table, short of the table
    points a seat needs, which the form showed before) still gets the table, and the refusal
    is returned to say why."""
    table = table_create(creator=creator, **arguments)
    try:
        with transaction.atomic():
            seat_take(table_id=table.pk, user=creator, index=0)
    except ApplicationError as refusal:
        return table, refusal
    return table, None


def tables_open_per_user() -> int:
    return int(getattr(settings, "SHENGJI_TABLES_OPEN_PER_USER", 3))


def tables_created_per_hour() -> int:
    return int(getattr(settings, "SHENGJI_TABLES_CREATED_PER_HOUR", 10))


def _creation_allowed(creator: User) -> None:
    """Refuse a table over the creator's limits (docs/LADDER.md, "Table creation limits"):
    ``tables_created_per_hour`` in the last hour (``table_rate_limit``), and
    ``tables_open_per_user`` open at once: the creator's oldest idle tables (open, no human
    seated, no hand on) are closed to make room, and if every one is in use the new one is
    refused (``table_limit``). The creator's row is locked first, so that two creations of one
    user at once count each other. Quick match's ranked tables are not counted."""
    User.objects.select_for_update().filter(pk=creator.pk).first()
    mine = Table.objects.filter(creator=creator, ranked=False)
    per_hour = tables_created_per_hour()
    if mine.filter(created_at__gte=db_now() - timedelta(hours=1)).count() >= per_hour:
        raise ApplicationError(
            "table_rate_limit",
            _("you may open at most %(limit)s tables an hour: wait a little"),
            limit=per_hour,
        )
    limit = tables_open_per_user()
    open_ids = list(
        mine.exclude(status=Table.Status.CLOSED)
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)
    )
    for table_id in list(open_ids):  # the oldest first, until there is room
        if len(open_ids) < limit:
            break
        if _table_retire_if_idle(table_id):
            open_ids.remove(table_id)
    if len(open_ids) >= limit:
        raise ApplicationError(
            "table_limit",
            _("you already have %(limit)s open tables with players at them"),
            limit=limit,
        )


def _table_retire_if_idle(table_id: int) -> bool:
    """Close the table if nobody human sits at it and no hand is on (a bot's seat is freed);
    whether it was closed."""
    table = lock_table(table_id)
    seats = locked_seats(table)
    if table.status != Table.Status.OPEN or hand_on(table) or any(s.user_id for s in seats):
        return False
    table.matches.filter(ended_at__isnull=True).update(ended_at=db_now())
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status"])
    for seat in seats:
        if seat.bot:
            free_seat(seat)
    table_changed(table, system("closed"))
    return True


# The takeback options a casual table may set too (RULES-SPEC.md §10.22, §10.23); a ranked
# table plays its preset, which keeps them off.
def house_rules_checked(
    preset_name: str, house_rules: dict[str, Any], *, players: int = SEATS
) -> dict[str, Any]:
    """Only the options that differ from the preset (and, for the shape, from the defaults of
    the players: ``shape_checked``), each a known option with a known value of its type
    (``HOUSE_OPTIONS``: RULES-SPEC.md §8, §10; a flag True / False, a number an int), and
    together a rule set the engine plays: a combination it refuses is refused with the
    engine's reason as the code (``needs_team_level``, ``bombs_need_4_decks`` …,
    RULES-SPEC.md §10.1)."""
    if preset_name not in PRESET_NAMES:
        raise ApplicationError("invalid_preset")
    if not isinstance(house_rules, dict):
        raise ApplicationError("invalid_house_rules")
    base = preset(preset_name)
    shape = {k: v for k, v in house_rules.items() if k in SHAPE_HOUSE_RULES}
    for option, value in house_rules.items():
        if option not in shape and not _house_value_known(option, value):
            raise ApplicationError(
                "invalid_house_rules",
                _("a house rule names an unknown option or value: %(rule)s"),
                rule=f"{option}={value!r}",
            )
    chosen = {
        k: v for k, v in sorted(house_rules.items()) if k not in shape and getattr(base, k) != v
    }
    checked = {**chosen, **shape_checked(players, shape)}
    _combination_checked(base, players, checked)
    return checked


def _house_value_known(option: str, value: Any) -> bool:
    """Whether ``value`` is one the engine takes for ``option`` (None in ``HOUSE_OPTIONS``: a
    whole number, whose range the rule set checks)."""
    if option not in HOUSE_OPTIONS:
        return False
    values = HOUSE_OPTIONS[option]
    if values is None:
        return type(value) is int
    if all(isinstance(v, bool) for v in values):
        return type(value) is bool
    return isinstance(value, str) and value in values


def _combination_checked(base: RuleSet, players: int, options: dict[str, Any]) -> None:
    """The rule set these options make on ``base`` (as ``Table.rules`` makes it), refused as
    the engine refuses it."""
    try:
        base.with_options(**engine_options(options), players=players)
    except RefusedOptionError as error:
        code = error.reason if is_known_code(error.reason) else "invalid_house_rules"
        raise ApplicationError(code) from None
    except (InvalidOptionError, ValueError):
        raise ApplicationError(
            "invalid_house_rules",
            _("a house rule names an unknown option or value: %(rule)s"),
            rule=", ".join(f"{k}={v!r}" for k, v in sorted(options.items())),
        ) from None


_FRIENDS_ONLY = ("friend_cards", "join_policy", "small_side_bonus")


def shape_checked(players: Any, shape: dict[str, Any]) -> dict[str, Any]:
    """A table's shape (RULES-SPEC.md §9.1, §3): ``players`` 4–8 and the shape options, as the
    engine reads them (``models.engine_options``), refused with the engine's reason as the code
    (``players_out_of_range``, ``decks_out_of_range``, ``tractor_needs_even_players``,
    ``friends_needs_5_to_8_players``, ``friends_out_of_range``), ``invalid_mode``, or
    ``friends_only_option`` (a 找朋友 option at a 拖拉机 table). Returns the options to keep:
    those that differ from the defaults for the players, typed (numbers, a flag)."""
    if type(players) is not int or not SEATS <= players <= MAX_SEATS:
        raise ApplicationError("players_out_of_range")
    if shape.get("mode", "tractor") not in ("tractor", "friends"):
        raise ApplicationError("invalid_mode")
    try:
        options = engine_options(shape)
        rules = RuleSet().with_options(players=players, **options)
    except ShapeOptionError as error:
        raise ApplicationError(error.reason) from None
    except (InvalidOptionError, ValueError):
        raise ApplicationError(
            "invalid_house_rules",
            _("a house rule names an unknown option or value: %(rule)s"),
            rule=", ".join(f"{k}={v!r}" for k, v in sorted(shape.items())),
        ) from None
    chosen = [k for k in _FRIENDS_ONLY if options.get(k, CLASSIC_SHAPE[k]) != CLASSIC_SHAPE[k]]
    if chosen and not rules.is_friends:
        raise ApplicationError("friends_only_option")
    return _shape_kept(rules)


def _shape_kept(rules: RuleSet) -> dict[str, Any]:
    """The shape options of ``rules`` that differ from what a table of its players has by
    default (``Table.rules`` gives the defaults back)."""
    defaults = {
        **CLASSIC_SHAPE,
        "decks": default_decks(rules.players),
        "friends": default_friends(rules.players) if rules.is_friends else 0,
    }
    return {
        option: getattr(rules, option)
        for option in SHAPE_HOUSE_RULES
        if getattr(rules, option) != defaults[option]
    }


@transaction.atomic
def ranked_table_open(
    *,
    users: Sequence[User],
    name: str,
    stake: int,
    creator: User | None = None,
    min_balance: int = 0,
    play_seconds: int = 20,
    bury_seconds: int = 30,
    bid_window_seconds: int = 8,
    deal_interval_ms: int = 100,
) -> Table:
    """A ranked table with ``users`` in seats 0–3, as quick match seats them (``creator``, by
    default the first, creates it): the only way to a ranked table. Each is checked as any sit
    is (one table at a time, the points needed). None is marked ready, and each counts as away
    until their socket connects: the hand starts when all four are connected and have pressed
    ready, and a player who does not come within the grace period
    (``SHENGJI_DISCONNECT_GRACE_S``) is stood up (``seat_takeover``)."""
    if len(users) != SEATS or len({u.pk for u in users}) != SEATS:
        raise ApplicationError("invalid_seat", _("a ranked table needs four different players"))
    table = _table_new(
        creator=creator or users[0],
        name=name,
        preset_name="ranked",
        ranked=True,
        stake=stake,
        min_balance=min_balance,
        timings=(play_seconds, bury_seconds, bid_window_seconds, deal_interval_ms),
    )
    table = lock_table(table.pk)
    seats = locked_seats(table)
    ladder_profiles_lock(user_ids=[u.pk for u in users])  # in user-id order, before any sit
    now = db_now()
    for seat, user in zip(seats, users, strict=True):
        _sit(table, seat, user, stake=None, arriving_at=now)
    return table


def _table_new(
    *,
    creator: User,
    name: str,
    preset_name: str,
    ranked: bool,
    stake: int,
    min_balance: int,
    timings: tuple[int, int, int, int],
    house_rules: dict[str, Any] | None = None,
    players: int = SEATS,
) -> Table:
    if preset_name not in PRESET_NAMES:
        raise ApplicationError("invalid_preset")
    if ranked and (house_rules or preset_name != "ranked"):
        # RULES-SPEC.md §10: ranked quick match plays the ``ranked`` preset unchanged.
        raise ApplicationError("ranked_quick_match_only")
    if not 1 <= stake <= MAX_STAKE:
        raise ApplicationError("invalid_stake")
    play_seconds, bury_seconds, bid_window_seconds, deal_interval_ms = timings
    table = Table.objects.create(
        name=(name or "").strip()[:60] or f"{creator.username}",
        preset=preset_name,
        ranked=ranked,
        stake=stake,
        min_balance=min_balance,
        play_seconds=play_seconds,
        bury_seconds=bury_seconds,
        bid_window_seconds=bid_window_seconds,
        deal_interval_ms=deal_interval_ms,
        house_rules=house_rules or {},
        creator=creator,
        players=players,
    )
    Seat.objects.bulk_create([Seat(table=table, index=i) for i in range(players)])
    transaction.on_commit(lambda: realtime.lobby_changed(table.pk))
    return table


def user_balance(user: User) -> int:
    return player_balance(user=user)


def points_needed_for(
    *,
    preset_name: str,
    stake: int,
    min_balance: int = 0,
    house_rules: dict[str, Any] | None = None,
    players: int = SEATS,
) -> int:
    """The table points a table of these rules, stake and minimum needs of every human to sit
    and before every hand (what ``points_needed`` says of a table)."""
    table = Table(
        preset=preset_name,
        stake=stake,
        min_balance=min_balance,
        house_rules=house_rules or {},
        players=players,
    )
    return points_needed(table)


def points_needed_to_create(
    *,
    preset_name: str,
    stake: int,
    min_balance: int = 0,
    house_rules: dict[str, Any] | None = None,
    players: int = SEATS,
) -> int:
    """What every seat of the table ``table_create`` would make of these arguments will need
    (the create form shows it as its fields change): the rules checked as ``table_create``
    checks them, then ``points_needed_for``, the figure sitting and every hand enforce."""
    if not 1 <= stake <= MAX_STAKE:
        raise ApplicationError("invalid_stake")
    checked = house_rules_checked(preset_name, house_rules or {}, players=players)
    return points_needed_for(
        preset_name=preset_name,
        stake=stake,
        min_balance=min_balance,
        house_rules=checked,
        players=players,
    )


def points_needed_here(table: Table) -> int:
    """What a human needs to sit at ``table`` as it is seated now (the table page says it)."""
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    return points_needed_seated(table, seats)


@transaction.atomic
def seat_take(*, table_id: int, user: User, index: int, stake: int | None = None) -> Seat:
    """Sit at seat ``index`` of a casual table; the first to sit at an empty table may set the
    stake (§6). Refused at a ranked table (quick match seats those), while seated at another
    table or playing a hand there, and without the table points the table needs."""
    table = lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    if not 0 <= index < table.players:
        raise ApplicationError("invalid_seat")
    seats = locked_seats(table)
    if any(s.user_id == user.pk for s in seats):
        raise ApplicationError("already_seated")
    seat = seats[index]
    if seat.user_id is not None or seat.bot or hand_on(table):
        raise ApplicationError("seat_taken")
    if table.ranked:
        raise ApplicationError("ranked_quick_match_only")
    first = all(s.user_id is None for s in seats)
    if stake is not None and first and not 1 <= stake <= MAX_STAKE:
        raise ApplicationError("invalid_stake")
    _sit(table, seat, user, stake=stake if first else None)
    return seat


def _sit(
    table: Table,
    seat: Seat,
    user: User,
    *,
    stake: int | None,
    arriving_at: datetime | None = None,
) -> None:
    """Seat ``user`` (and set the stake when given), holding the user's ladder row lock while
    checking their other seats and balance: two sits of one user, at two tables at once, wait
    for each other here and the second sees the first (race-safe). ``arriving_at``: the user
    counts as away from then until their socket connects (quick match).

    Precondition: the table and its seats are locked (the lock order: Table → Seats → ladder)."""
    ladder_profiles_lock(user_ids=[user.pk])
    if seated_elsewhere(user=user, table=table):
        raise seated_elsewhere_refusal(user=user, table=table)
    needed = points_needed_seated(table, locked_seats(table), stake=stake)
    balance = player_balance(user=user)
    if balance < needed:
        raise ApplicationError(
            "insufficient_balance",
            detailed_message("insufficient_balance"),
            needed=Grouped(needed),
            balance=Grouped(balance),
        )
    if stake is not None:
        table.stake = stake
        table.save(update_fields=["stake"])
    seat.user = user
    seat.ready = False
    seat.bot = False
    seat.connected = False
    seat.disconnected_at = arriving_at
    seat.save()
    table_changed(table, system("sits", str(user), seat.index))
    if arriving_at is not None:
        _arrival_grace(seat)


def _arrival_grace(seat: Seat) -> None:
    """A player seated by quick match has ``SHENGJI_ARRIVAL_GRACE_S`` (by default the grace
    of one who left) to arrive (``seat_takeover`` stands them up when it ends)."""
    assert seat.disconnected_at is not None
    seat_id, since = seat.pk, seat.disconnected_at.isoformat()
    grace = settings.SHENGJI_ARRIVAL_GRACE_S
    transaction.on_commit(lambda: realtime.schedule_grace(seat_id, since, grace))


def seated_elsewhere(*, user: User, table: Table | None = None) -> bool:
    """The user holds a seat at another table, or plays a hand not yet wrapped up at one (an
    admin may have removed them from its seat): one table at a time (docs/LADDER.md)."""
    seats = Seat.objects.filter(user=user).exclude(table__status=Table.Status.CLOSED)
    unfinished = Q(hand__status=Hand.Status.PLAYING) | Q(hand__awaiting_wrap_up=True)
    hands = HandPlayer.objects.filter(unfinished, user=user)
    if table is not None:
        seats = seats.exclude(table=table)
        hands = hands.exclude(hand__match__table=table)
    return seats.exists() or hands.exists()


def seated_elsewhere_refusal(*, user: User, table: Table | None = None) -> ApplicationError:
    """``seated_elsewhere``, naming the table the user is held at (its number, its name and
    its page, as fields: the pages link it); the bare code when none is found any more."""
    seats = Seat.objects.filter(user=user).exclude(table__status=Table.Status.CLOSED)
    unfinished = Q(hand__status=Hand.Status.PLAYING) | Q(hand__awaiting_wrap_up=True)
    hands = HandPlayer.objects.filter(unfinished, user=user).order_by("-hand_id")
    if table is not None:
        seats, hands = seats.exclude(table=table), hands.exclude(hand__match__table=table)
    held = (
        seats.values_list("table_id", flat=True).first()
        or hands.values_list("hand__match__table_id", flat=True).first()
    )
    other = Table.objects.filter(pk=held).first() if held is not None else None
    if other is None:
        return ApplicationError("seated_elsewhere")
    return ApplicationError(
        "seated_elsewhere",
        _("leave your seat at table %(table_id)s, “%(table_name)s”, first"),
        table_id=other.pk,
        table_name=other.display_name,
        table_url=reverse("games:table", kwargs={"table_id": other.pk}),
    )


@transaction.atomic
def seat_leave(*, table_id: int, user: User) -> None:
    """Stand up between hands (leaving during a hand is an escape: ``hand_leave``)."""
    table = lock_table(table_id)
    seat = _seat_of_user(table, user)
    if hand_on(table):
        raise ApplicationError("hand_in_progress")
    free_seat(seat)
    table_changed(table, system("leaves", str(user), seat.index))
    seats = locked_seats(table)
    match = table.matches.filter(ended_at__isnull=True).order_by("-pk").first()
    if match is not None:  # 找朋友: the last of the match's players to stand ends it
        match_end_if_deserted(match, seats)
    ranked_table_close_if_dead(table, seats)


@transaction.atomic
def seat_fill_bot(*, table_id: int, user: User, index: int) -> Seat:
    """Put a bot in an empty seat of a casual table (a seated player or the creator may)."""
    table = lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    if table.ranked:
        raise ApplicationError("ranked_no_bots")
    if not 0 <= index < table.players:
        raise ApplicationError("invalid_seat")
    seats = locked_seats(table)
    if table.creator_id != user.pk and all(s.user_id != user.pk for s in seats):
        raise ApplicationError("not_allowed")
    seat = seats[index]
    if seat.user_id is not None or seat.bot or hand_on(table):
        raise ApplicationError("seat_taken")
    seat.bot = True
    seat.ready = True
    seat.save()
    table_changed(table, system("bot_sits", index))
    start_if_all_ready(table, seats)
    return seat


@transaction.atomic
def seat_ready(*, table_id: int, user: User, ready: bool = True) -> Hand | None:
    """Press ready; when all four are ready the next hand starts."""
    table = lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    seats = locked_seats(table)
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        raise ApplicationError("not_seated")
    seat.ready = ready
    seat.save(update_fields=["ready"])
    table_changed(table, None)
    return start_if_all_ready(table, seats)


@transaction.atomic
def seat_auto_ready(*, table_id: int, user: User, on: bool) -> Seat:
    """Keep ready for the next hand of the match by itself (on, the default), or not: off, the
    player presses ready for each hand, and is no longer ready between hands (free to stand)."""
    table = lock_table(table_id)
    seat = _seat_of_user(table, user)
    seat.auto_ready = on
    if not on and not hand_on(table):
        seat.ready = False
    seat.save(update_fields=["auto_ready", "ready"])
    table_changed(table, None)
    return seat


@transaction.atomic
def seat_show_hand(*, table_id: int, user: User, allow: bool) -> Seat:
    """A player at a casual table lets spectators watching the seat see its hand, or not."""
    table = lock_table(table_id)
    seat = _seat_of_user(table, user)
    if table.ranked and allow:
        raise ApplicationError("not_allowed", _("at ranked tables spectators see the public view"))
    seat.show_hand_to_spectators = allow
    seat.save(update_fields=["show_hand_to_spectators"])
    table_changed(table, None)
    return seat


def _seat_of_user(table: Table, user: User) -> Seat:
    seat = Seat.objects.select_for_update().filter(table=table, user=user).first()
    if seat is None:
        raise ApplicationError("not_seated")
    return seat
