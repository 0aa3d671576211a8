"""Every read of tables and hands; views never hold a card their reader may not see."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts.models import User
from games.handstate import load_state
from games.models import (
    ChatLine,
    Hand,
    HandPlayer,
    Match,
    QueueEntry,
    Seat,
    SeatConnection,
    Table,
)
from shengji.engine import view_for, view_public

CHAT_BACKLOG = 30


@dataclass(frozen=True)
class Presence:
    """Who a socket's user is at a table: a seat index, or a spectator (None)."""

    table_id: int
    seat: int | None
    watching: int | None  # a spectator's chosen seat at a casual table


def presence_get(*, table_id: int, user: User, watching: int | None = None) -> Presence | None:
    table = Table.objects.filter(pk=table_id).first()
    return None if table is None else _presence_at(table, user, watching)


def _presence_at(table: Table, user: User, watching: int | None) -> Presence:
    seat = None
    if user.is_authenticated:
        seat = Seat.objects.filter(table=table, user=user).values_list("index", flat=True).first()
    return Presence(table.pk, seat, None if seat is not None else watching)


def seat_of(*, table_id: int, user: User) -> int | None:
    """The index of the user's seat at the table (None: no seat, or no such table)."""
    if not user.is_authenticated:
        return None
    return Seat.objects.filter(table_id=table_id, user=user).values_list("index", flat=True).first()


def spectator_may_see(*, table_id: int, seat: int) -> bool:
    """At casual tables a spectator watching a seat sees its hand if its player allows it."""
    return Seat.objects.filter(
        table_id=table_id, index=seat, table__ranked=False, show_hand_to_spectators=True
    ).exists()


# --- the state's reads, written out ------------------------------------------------------------
# A table's change and a socket's opening read the table, its seats, its hand and its chat: the
# ORM's building of these queries cost more CPU than the database's answering of them (a table
# change took 7 ms of CPU through the ORM; docs/proof/LOAD.md, *Written-out SQL*).


def _quoted(model: type[Any]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


_TABLE_READ = f"""
    SELECT t.*, (SELECT count(*) FROM {_quoted(Match)} m WHERE m.table_id = t.id) AS match_count
    FROM {_quoted(Table)} t WHERE t.id = %s
"""
# The table's current hand (the newest not void) and its match's number at the table.
_CURRENT_HAND_READ = f"""
    SELECT h.*, (
        SELECT count(*) FROM {_quoted(Match)} n WHERE n.table_id = m.table_id AND n.id <= m.id
    ) AS match_number
    FROM {_quoted(Hand)} h JOIN {_quoted(Match)} m ON m.id = h.match_id
    WHERE m.table_id = %s AND h.status <> %s
    ORDER BY h.id DESC LIMIT 1
"""
_SEATS_READ = f"""
    SELECT s.*, u.username AS user_username, u.display_name AS user_display_name
    FROM {_quoted(Seat)} s LEFT JOIN {_quoted(User)} u ON u.id = s.user_id
    WHERE s.table_id = %s ORDER BY s."index"
"""
_CHAT_READ = f"""
    SELECT c.text, c.system, c.code, c.params, c.created_at, u.username, u.display_name
    FROM {_quoted(ChatLine)} c LEFT JOIN {_quoted(User)} u ON u.id = c.user_id
    WHERE c.table_id = %s ORDER BY c.id DESC LIMIT %s
"""


@dataclass
class TableRead:
    """What a ``state`` frame is made of, as read: the table, its seats (each with its user's
    names, and its table), its current hand, the table's matches so far and the number of
    the hand's match among them (0 with no hand)."""

    table: Table
    seats: list[Seat]
    hand: Hand | None
    matches: int
    hand_match: int


def table_read(table_id: int) -> TableRead | None:
    """The table's ``TableRead`` in three statements (None: no such table). The table's row is
    read first: its ``rev`` counts the changes the reads after it see at least."""
    found: list[Any] = list(Table.objects.raw(_TABLE_READ, [table_id]))  # with match_count
    if not found:
        return None
    table = found[0]
    seats = seat_rows(table_id)
    for seat in seats:
        seat.table = table
    hands: list[Any] = list(Hand.objects.raw(_CURRENT_HAND_READ, [table_id, Hand.Status.VOID]))
    hand = hands[0] if hands else None
    hand_match = 0 if hand is None else int(hand.match_number)
    return TableRead(table, seats, hand, int(table.match_count), hand_match)


def seat_rows(table_id: int) -> list[Seat]:
    """The table's seats in order, each with its user (only their names read) if taken."""
    seats: list[Any] = list(Seat.objects.raw(_SEATS_READ, [table_id]))  # with the user's names
    for seat in seats:
        if seat.user_id is not None:
            names = [seat.user_id, seat.user_username, seat.user_display_name]
            seat.user = User.from_db(connection.alias, ["id", "username", "display_name"], names)
    return seats


def match_number(match: Match) -> int:
    """The match's number at its table: 1 for the table's first match (not the site-wide id)."""
    return match_number_of(table_id=match.table_id, match_id=match.pk)


def match_number_of(*, table_id: int, match_id: int) -> int:
    return Match.objects.filter(table_id=table_id, pk__lte=match_id).count()


def away_until(seat: Seat) -> str | None:
    """When the grace period of an away player ends (ISO 8601); None when the player is not
    away, or the bot already plays for them after it. A player on autopilot who goes away keeps
    the countdown: the bot plays for them already, but they are settled as away only if still
    gone when it ends (docs/PROTOCOL.md, "Time")."""
    if seat.user_id is None or seat.disconnected_at is None:
        return None
    if seat.bot and not seat.autopilot:
        return None
    grace = timedelta(seconds=settings.SHENGJI_DISCONNECT_GRACE_S)
    return (seat.disconnected_at + grace).isoformat()


def seats_list(*, table_id: int) -> list[dict[str, Any]]:
    return _seat_dicts(seat_rows(table_id))


def _seat_dicts(seats: list[Seat]) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.index,
            "user": None if s.user is None else str(s.user),
            "username": None if s.user is None else s.user.username,
            "ready": s.ready,
            "connected": s.connected,
            "bot": s.bot,
            "shows_hand": s.show_hand_to_spectators,
            "away_until": away_until(s),
            "autopilot": s.autopilot,
            "auto_ready": s.auto_ready,
        }
        for s in seats
    ]


def table_shape(table: Table) -> dict[str, Any]:
    """The table's shape in codes (the words are the reader's: ``rules_words.shape_words``):
    ``players``, ``mode`` (``tractor`` | ``friends``), ``decks`` and ``friends`` (calls)."""
    rules = table.rules()
    return {
        "players": rules.players,
        "mode": rules.mode,
        "decks": rules.decks,
        "friends": rules.friends,
    }


def table_summary(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "name": table.name,
        "preset": table.preset,
        "house_rules": table.house_rules,
        **table_shape(table),
        "ranked": table.ranked,
        "stake": table.stake,
        "min_balance": table.min_balance,
        "status": table.status,
        "play_seconds": table.play_seconds,
    }


def hand_view_for(
    *, hand: Hand, presence: Presence, seats: list[Seat] | None = None, match_number: int = 0
) -> dict[str, Any]:
    """The hand as this presence may see it. ``seats`` (the table's, in order) and the hand's
    ``match_number`` when the caller has read them already (a state read: fewer queries)."""
    state = load_state(hand)
    if presence.seat is not None:
        view = view_for(state, presence.seat)
    elif presence.watching is not None and _may_watch(presence, seats):
        view = view_for(state, presence.watching)
    else:
        view = view_public(state)
    number = match_number or match_number_of(table_id=presence.table_id, match_id=hand.match_id)
    return {**_hand_head(hand, number), "view": view}


def _hand_head(hand: Hand, match_number: int) -> dict[str, Any]:
    """The hand in a ``state`` frame, all but its view."""
    return {
        "id": hand.pk,
        "seq": hand.seq,
        "status": hand.status,
        "number": hand.number,
        "match_number": match_number,
        "deadline": None if hand.deadline is None else hand.deadline.isoformat(),
        "finished_at": None if hand.finished_at is None else hand.finished_at.isoformat(),
    }


def _may_watch(presence: Presence, seats: list[Seat] | None) -> bool:
    seat = presence.watching
    assert seat is not None
    if seats is None:
        return spectator_may_see(table_id=presence.table_id, seat=seat)
    if seat >= len(seats):  # a seat this table does not have
        return False
    return seats[seat].show_hand_to_spectators and not seats[seat].table.ranked


def chat_backlog(*, table_id: int) -> list[dict[str, Any]]:
    """The table's last ``CHAT_BACKLOG`` lines, oldest first."""
    with connection.cursor() as cursor:
        cursor.execute(_CHAT_READ, [table_id, CHAT_BACKLOG])
        rows = cursor.fetchall()
    return [
        {
            "user": None if username is None else display_name or username,  # str(user)
            "text": text,
            "system": system,
            "code": code,
            "params": orjson.loads(params) if isinstance(params, str) else params,
            "at": created_at.isoformat(),
        }
        for text, system, code, params, created_at, username, display_name in reversed(rows)
    ]


def table_state_for(*, presence: Presence) -> dict[str, Any]:
    """Everything a socket needs on connecting: the table, its seats, the hand, the chat."""
    read = table_read(presence.table_id)
    if read is None:
        raise Table.DoesNotExist
    return _state(read, presence)


def _state(read: TableRead, presence: Presence) -> dict[str, Any]:
    """The ``state`` frame from the table as read, and the chat (one more statement; and the
    log, when this process does not hold the hand's state already)."""
    hand = read.hand
    return {
        "type": "state",
        "table": _table_head(read.table, read.matches, hand, read.seats),
        "seats": _seat_dicts(read.seats),
        "you": {"seat": presence.seat, "watching": presence.watching},
        "hand": None
        if hand is None
        else hand_view_for(
            hand=hand, presence=presence, seats=read.seats, match_number=read.hand_match
        ),
        "chat": chat_backlog(table_id=read.table.pk),
    }


def _table_head(
    table: Table, matches: int, hand: Hand | None = None, seats: list[Seat] | None = None
) -> dict[str, Any]:
    """The table in a ``state`` frame: its summary, its matches so far and its ``rev``; what
    leaving the hand in progress costs (``escape_cost``, None with no hand on); and, once a
    ranked table is closed, the offer of a new quick match (``quick_match_offer``; docs/
    LADDER.md, "A ranked table that loses a player")."""
    closed = table.status == Table.Status.CLOSED
    return {
        **table_summary(table),
        "match_number": matches or None,
        "rev": table.rev,
        "escape_cost": hand_escape_cost(table, hand, seats or []),
        "quick_match_offer": table.ranked and closed,
        "ended_by_escape": closed and hand is not None and hand.status == Hand.Status.ESCAPED,
    }


def hand_escape_cost(table: Table, hand: Hand | None, seats: list[Seat]) -> int | None:
    """What leaving ``hand`` now costs its escaper, by the settlement's own computation
    (``ladder.selectors.escape_cost_now``); None when no hand is in progress. A seat with no
    user at a hand in progress is a bot's: practice, nothing moves."""
    if hand is None or hand.status != Hand.Status.PLAYING or table.status == Table.Status.CLOSED:
        return None
    from ladder.escapes import escape_cost_now  # the ladder's arithmetic, no games import

    return escape_cost_now(
        ruleset=hand.ruleset or {},
        stake=table.stake,
        levels=hand.levels,
        wrapped=hand.wrapped,
        ranked=table.ranked,
        practice=any(seat.user_id is None for seat in seats),
    )


def table_change(*, table_id: int) -> dict[str, Any] | None:
    """What the table group's ``table.changed`` message carries: every part of a ``state``
    frame, read and encoded once for all the table's sockets, and each socket makes its own
    from it (``TableConsumer.table_changed``) with no read of its own. The hand part is there
    once per seat and once as the public view: a socket takes only what its presence may see,
    as from a move's message (``realtime.hand_view_message``). None when the table is gone.

    The table's row is read first: its ``rev`` counts the changes this message holds at least
    (the later reads can only see more), so a socket keeps the one of the highest ``rev``."""
    read = table_read(table_id)
    if read is None:
        return None
    table, seats, hand = read.table, read.seats, read.hand
    hands: list[str] = []
    if hand is not None:
        state = load_state(hand)
        head = _hand_head(hand, read.hand_match)
        views = [view_for(state, seat) for seat in range(len(seats))] + [view_public(state)]
        hands = [_json({**head, "view": view}) for view in views]
    return {
        "rev": table.rev,
        "table": _json(_table_head(table, read.matches, hand, seats)),
        "seats": _json(_seat_dicts(seats)),
        "chat": _json(chat_backlog(table_id=table_id)),
        "hand": None if hand is None else [hand.pk, hand.seq],
        "hands": hands,
        "occupants": [seat.user_id for seat in seats],
        "watchable": [seat.show_hand_to_spectators and not table.ranked for seat in seats],
    }


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def presence_and_state(
    *, table_id: int, user: User, watching: int | None = None
) -> tuple[Presence, dict[str, Any]] | None:
    """A socket's presence and its ``state`` frame in one call (one trip to a database
    thread); None when the table is gone. Four statements: the table, its seats, its hand,
    the chat."""
    read = table_read(table_id)
    if read is None:
        return None
    mine = next(
        (s.index for s in read.seats if user.is_authenticated and s.user_id == user.pk), None
    )
    presence = Presence(table_id, mine, None if mine is not None else watching)
    return presence, _state(read, presence)


def lobby_list(*, limit: int = 100) -> list[dict[str, Any]]:
    """The listed tables, newest first: an unlisted (private) table is never here; its
    players come by its invite link (``table_visible_to``)."""
    listed = Table.objects.filter(unlisted=False).exclude(status=Table.Status.CLOSED)
    # A ranked table with a free seat can never refill (quick match seats all four): dead.
    empty_seat = Seat.objects.filter(table=OuterRef("pk"), user__isnull=True)
    listed = listed.exclude(Q(ranked=True) & Exists(empty_seat))
    tables = listed.order_by("-created_at")[:limit]
    seats: dict[int, list[dict[str, Any]]] = {}
    for seat in Seat.objects.filter(table__in=tables).select_related("user").order_by("index"):
        seats.setdefault(seat.table_id, []).append(
            {
                "seat": seat.index,
                "user": None if seat.user is None else str(seat.user),
                "bot": seat.bot,
                "autopilot": seat.autopilot,
                "ready": seat.ready,
            }
        )
    return [{**table_summary(t), "seats": seats.get(t.pk, [])} for t in tables]


OWN_TABLES_LIMIT = 20


def own_tables(*, user: User, limit: int = OWN_TABLES_LIMIT) -> list[dict[str, Any]]:
    """The lobby's "your tables": the open tables ``user`` sits at or created (hosts), private
    ones included (the lobby's list never shows those), even when everyone has stood up from a
    table they host, each with the way back to it; the tables they sit at first, then the
    newest. Nobody else's private table is ever here: only the user's own."""
    if not user.is_authenticated:
        return []
    seated = Seat.objects.filter(table=OuterRef("pk"), user=user)
    mine = (
        Table.objects.filter(Q(creator=user) | Q(Exists(seated)))
        .exclude(status=Table.Status.CLOSED)
        .annotate(seated=Exists(seated))
        .order_by("-seated", "-created_at")[:limit]
    )
    return [
        {
            **table_summary(table),
            "display_name": table.display_name,
            "unlisted": table.unlisted,
            "seated": table.seated,
            "hosted": table.creator_id == user.pk,
        }
        for table in mine
    ]


# --- who may see a hand that is over ---------------------------------------------------------

HANDS_OVER = (Hand.Status.FINISHED, Hand.Status.ESCAPED, Hand.Status.VOID)


def hands_visible_to(user: User) -> QuerySet[Hand]:
    """The hands ``user`` may see in any page, JSON or API listing (docs/LADDER.md, "Who sees a
    hand"), the one rule every such read goes through: a hand that is over, and either public
    (its table listed and no bot seated at its start) or one ``user`` played in; staff see every
    hand that is over. A hand of a private table or of practice is visible only to its players;
    a live hand to nobody (its players follow it on their table's socket). Whatever is not here
    is answered exactly as a hand that does not exist."""
    over = Hand.objects.filter(status__in=HANDS_OVER)
    if user.is_authenticated and user.is_staff:
        return over
    bot_seated = HandPlayer.objects.filter(hand=OuterRef("pk"), user__isnull=True)
    visible = Q(match__table__unlisted=False) & ~Q(Exists(bot_seated))
    if user.is_authenticated:
        visible |= Q(Exists(HandPlayer.objects.filter(hand=OuterRef("pk"), user=user)))
    return over.filter(visible)


def hand_visible_to(hand: Hand, user: User) -> bool:
    """Whether ``user`` may see this hand (``hands_visible_to``)."""
    return hands_visible_to(user).filter(pk=hand.pk).exists()


# --- private tables, and the home page's numbers ------------------------------------------------

INVITES_SESSION_KEY = "table_invites"  # the invite codes this session came through
INVITES_KEPT = 20


def table_visible_to(table: Table, user: User, session: SessionBase | None) -> bool:
    """Whether ``user`` may see the table (its page, its socket). A listed table: anyone. An
    unlisted one: its creator, its seated players, staff, and a session that came through its
    invite link (``/t/<invite_code>/``); to anyone else it does not exist (404, 4404)."""
    if not table.unlisted:
        return True
    if user.is_authenticated and (
        user.is_staff
        or table.creator_id == user.pk
        or Seat.objects.filter(table=table, user=user).exists()
    ):
        return True
    codes = session.get(INVITES_SESSION_KEY, []) if session is not None else []
    return bool(table.invite_code) and table.invite_code in codes


def table_visible(*, table_id: int, user: User, session: SessionBase | None) -> bool:
    """``table_visible_to`` by id (False when there is no such table)."""
    table = Table.objects.filter(pk=table_id).first()
    return table is not None and table_visible_to(table, user, session)


def presence_if_visible(
    *, table_id: int, user: User, session: SessionBase | None, watching: int | None = None
) -> Presence | None:
    """A socket's presence at the table as it opens (``presence_get``), None when there is no
    such table or ``user`` may not see it (``table_visible_to``): one read of the table for
    both."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not table_visible_to(table, user, session):
        return None
    return _presence_at(table, user, watching)


def table_by_invite(*, invite_code: str) -> Table | None:
    """The open unlisted table this invite code opens, if any."""
    if not invite_code:
        return None
    tables = Table.objects.filter(unlisted=True, invite_code=invite_code)
    return tables.exclude(status=Table.Status.CLOSED).first()


def invite_codes_with(session_codes: list[str], invite_code: str) -> list[str]:
    """A session's invite codes with one more (the newest ``INVITES_KEPT``)."""
    kept = [code for code in session_codes if code != invite_code]
    return [*kept, invite_code][-INVITES_KEPT:]


def table_of_user(*, user: User) -> int | None:
    """The table the user sits at, or plays a hand not yet wrapped up at (one table at a
    time: ``services.seated_elsewhere``); None when none."""
    if not user.is_authenticated:
        return None
    seat = Seat.objects.filter(user=user).exclude(table__status=Table.Status.CLOSED)
    found = seat.values_list("table_id", flat=True).first()
    if found is not None:
        return found
    unfinished = Q(hand__status=Hand.Status.PLAYING) | Q(hand__awaiting_wrap_up=True)
    hands = HandPlayer.objects.filter(unfinished, user=user).order_by("-hand_id")
    return hands.values_list("hand__match__table_id", flat=True).first()


def tables_in_play_count() -> int:
    """Tables with a hand being played now (listed or not: a count names no table)."""
    return Table.objects.filter(status=Table.Status.PLAYING).count()


def players_online_count() -> int:
    """Players online: those with a live table socket at their seat (``SeatConnection``; the
    sweep drops a socket not heard from for ``SHENGJI_CONNECTION_TIMEOUT_S``) or waiting for
    a quick match (the queue drops a waiter whose page stops asking within a minute)."""
    at_tables = SeatConnection.objects.filter(seat__user__isnull=False).values("seat__user_id")
    waiting = QueueEntry.objects.values("user_id")
    return at_tables.union(waiting).count()
