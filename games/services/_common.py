"""What every service module shares: the numbers, the database's clock, the row locks, and the
few seat and table writes that several concerns make. Imports no other module of the package."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import SyncToAsync
from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import connection, transaction

from accounts.errors import ApplicationError
from accounts.models import User
from games import realtime, selectors
from games.chat_words import NAMED_SEATS
from games.models import ChatLine, Hand, HandPlayer, Match, Seat, SeatConnection, Table
from ladder.selectors import table_points_needed

logger = logging.getLogger(__name__)

SEATS = 4  # a classic (and every ranked) table's seats; a table's own are ``Table.players``
DRAW_BATCH = 5  # draws applied per deadline during the deal: a frame every 5 cards
CHAT_MAX = 200
MAX_STAKE = 100_000

# The English of each system line (``ChatLine.text``, a fallback: a reader's client shows the
# line by its ``code`` and ``params`` in its own words; docs/PROTOCOL.md "System lines").
SYSTEM_LINES = {
    "sits": "{0} sits at seat {1}",
    "leaves": "{0} leaves seat {1}",
    "bot_sits": "a bot sits at seat {0}",
    "hand_starts": "hand {0} of match {1} starts",
    "bids": "seat {0} bids {1}",
    "throw_forced": "seat {0}'s throw {1} fails: {2} is played instead",
    "throw_back": "seat {0}'s throw fails and is taken back",
    "result": "hand {0}: attackers {1} points, {2} +{3}",
    "escaped": "hand {0}: seat {1} escaped",
    "bot_plays": "the bot plays seat {0} for {1}",
    "autopilot_on": "{1} turns autopilot on: the bot plays seat {0}",
    "autopilot_off": "{1} turns autopilot off: seat {0} plays again",
    "back": "{0} is back at seat {1}",
    "closed": "the table was closed by an admin",
    "removed": "an admin removed the player at seat {0}",
    "practice": "a practice hand: a bot is seated, no points or ratings move",
    "away_freed": "{0} is away: seat {1} is free",
    "stands_short": "{0} stands up: this table needs {1} table points",
    "friends_called": "seat {0} calls friends: {1}",
    "friend_joins": "seat {0} plays the call {2}{1}: a friend of the dealer",
    "call_spent": "seat {0} plays the call {2}{1}, already on the dealer's side",
    "timeout_play": "seat {0}'s time ran out: the system played {1}",
    "timeout_bury": "seat {0}'s time ran out: the system buried the kitty",
    "timeout_call": "seat {0}'s time ran out: the system called the friends",
    "takeback_bid": "seat {0} takes back the bid {1}",
    "takeback_play": "seat {0} takes back the play {1}",
}


@dataclass(frozen=True)
class SystemLine:
    """A system chat line: a code of ``SYSTEM_LINES`` and its parameters, in order (seats as
    the engine's 0-based numbers, names and cards as text)."""

    code: str
    params: tuple[str | int, ...] = ()

    def __post_init__(self) -> None:
        SYSTEM_LINES[self.code].format(*self.params)  # a bad code or too few params fails here

    @property
    def text(self) -> str:
        return SYSTEM_LINES[self.code].format(*self.params)[:CHAT_MAX]


def system(code: str, *params: str | int) -> SystemLine:
    return SystemLine(code, params)


def named(table_id: int, line: SystemLine) -> SystemLine:
    """The line with its seat's player named (``chat_words.NAMED_SEATS``) when it names none
    yet: the user seated there now (away or on 托管 too), "" for a bot's seat."""
    where = NAMED_SEATS.get(line.code)
    if where is None or len(line.params) != where[1]:
        return line
    seat = Seat.objects.filter(table_id=table_id, index=line.params[where[0]])
    user_id = seat.values_list("user_id", flat=True).first()
    user = None if user_id is None else User.objects.filter(pk=user_id).first()
    return SystemLine(line.code, (*line.params, "" if user is None else str(user)))


def db_now() -> datetime:
    """The database's clock: the one every deadline is compared with."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        (now,) = cursor.fetchone()
    return now  # type: ignore[no-any-return]


def bot_delay() -> timedelta:
    return timedelta(milliseconds=settings.SHENGJI_BOT_DELAY_MS)


# --- row locks -------------------------------------------------------------------------------


def _quoted(model: type[Any]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


# The busiest statements, written out: the ORM's building of a query costs more CPU than the
# database's answering of these (docs/proof/LOAD.md, *Written-out SQL*). Each locks what it reads.
_TABLE_LOCK = f"SELECT * FROM {_quoted(Table)} WHERE id = %s FOR UPDATE"
_SEATS_LOCK = f'SELECT * FROM {_quoted(Seat)} WHERE table_id = %s ORDER BY "index" FOR UPDATE'
_PLAYING_HAND_LOCK = f"""
    SELECT h.*, clock_timestamp() AS db_now,
        (SELECT p.seat FROM {_quoted(HandPlayer)} p WHERE p.hand_id = h.id AND p.user_id = %s)
            AS player_seat
    FROM {_quoted(Hand)} h JOIN {_quoted(Match)} m ON m.id = h.match_id
    WHERE m.table_id = %s AND h.status = %s
    ORDER BY h.id DESC LIMIT 1
    FOR UPDATE OF h
"""

_TABLE_REV_NEXT = f"UPDATE {_quoted(Table)} SET rev = rev + 1 WHERE id = %s"
_CURRENT_HAND_LOCK = f"""
    SELECT h.* FROM {_quoted(Hand)} h JOIN {_quoted(Match)} m ON m.id = h.match_id
    WHERE m.table_id = %s AND h.status = %s
    ORDER BY h.id DESC LIMIT 1
    FOR UPDATE OF h
"""


def lock_table(table_id: int) -> Table:
    found = list(Table.objects.raw(_TABLE_LOCK, [table_id]))
    if not found:
        raise ApplicationError("not_found")
    return found[0]


def locked_seats(table: Table) -> list[Seat]:
    return list(Seat.objects.raw(_SEATS_LOCK, [table.pk]))


def lock_playing_hand(table: Table, user: User) -> Hand | None:
    """The table's hand in progress, locked, with the database's clock (``db_now``) and the
    user's seat in that hand (``player_seat``, None if not a player of it). Its match holds
    only its table until a field is read (``wrap_up._update_match`` saves only the fields it
    sets)."""
    return _hand_locked(table, _PLAYING_HAND_LOCK, [user.pk, table.pk, Hand.Status.PLAYING])


def _hand_locked(table: Table, statement: str, params: list[Any]) -> Hand | None:
    """The hand ``statement`` locks, if any, its match holding only ``table`` until a field of
    the match is read."""
    found = list(Hand.objects.raw(statement, params))
    if not found:
        return None
    hand = found[0]
    match = Match.from_db(connection.alias, ["id", "table_id"], [hand.match_id, table.pk])
    match.table = table
    hand.match = match
    return hand


def lock_hand(hand_id: int) -> Hand:
    """Lock the hand's table, then the hand: every service takes its locks in the order
    Table → Hand → Seats (by index) → ladder rows, so no two of them can deadlock."""
    table_id = Hand.objects.filter(pk=hand_id).values_list("match__table_id", flat=True).first()
    if table_id is None:
        raise ApplicationError("not_found")
    lock_table(table_id)
    return (
        Hand.objects.select_for_update(of=("self",)).select_related("match__table").get(pk=hand_id)
    )


def hand_seats(hand: Hand) -> list[Seat]:
    return list(Seat.objects.raw(_SEATS_LOCK, [hand.match.table_id]))


def lock_current_hand(table: Table) -> Hand | None:
    """The locked table's hand in progress, locked (one statement); its match holds only its
    table until a field is read, as ``lock_playing_hand``'s."""
    return _hand_locked(table, _CURRENT_HAND_LOCK, [table.pk, Hand.Status.PLAYING])


# --- the table's hand, its seats -------------------------------------------------------------


def current_hand(table: Table) -> Hand | None:
    return (
        Hand.objects.filter(match__table=table, status=Hand.Status.PLAYING).order_by("-pk").first()
    )


def hand_on(table: Table) -> bool:
    """A hand is in progress, or has ended and is not yet wrapped up (``hand_wrap_up``)."""
    return table.status == Table.Status.PLAYING or current_hand(table) is not None


def free_seat(seat: Seat) -> None:
    seat.user = None
    seat.ready = False
    seat.bot = False
    seat.disconnected_at = None
    seat.connected = False
    seat.show_hand_to_spectators = False
    seat.autopilot = False
    seat.auto_ready = True
    seat.save()
    SeatConnection.objects.filter(seat=seat).delete()


class _TableChangeReads:
    """A process's reads of table changes, one at a time per table: a change committed while
    its table's change is being read and sent by another thread leaves the send to that
    thread, which reads once more when it is done (its read may have begun before the
    commit). However many changes come in a burst (a table's four sockets connecting and
    pressing ready at once), a table is read at most twice for them, not once each, and each
    socket builds its ``state`` as often; every change still reaches every socket, in a
    message read after its commit."""

    def __init__(self, send: Callable[[int], None]) -> None:
        self.send = send  # reads the table's change and sends it
        self.lock = threading.Lock()
        self.reading: set[int] = set()
        self.again: set[int] = set()

    def publish(self, table_id: int) -> None:
        with self.lock:
            if table_id in self.reading:
                self.again.add(table_id)
                return
            self.reading.add(table_id)
        try:
            while True:
                self.send(table_id)
                with self.lock:
                    if table_id not in self.again:
                        self.reading.discard(table_id)
                        return
                    self.again.discard(table_id)
        except BaseException:
            with self.lock:
                self.reading.discard(table_id)
                self.again.discard(table_id)
            raise


def _send_table_change(table_id: int) -> None:
    realtime.table_changed(table_id, selectors.table_change(table_id=table_id))


_table_change_reads = _TableChangeReads(_send_table_change)


class _TableChangeDelays:
    """In a server process, a table's change is read and sent ``SHENGJI_TABLE_CHANGE_DELAY_MS``
    after the commit that made it, on the event loop's thread pool, once for every change of
    the table committed until its read begins. A table's changes come in bursts (its four
    sockets opening, its players pressing ready one after another, the hand starting): each
    transaction holds the table's lock in turn, so without the delay each would be read and
    sent on its own. Every change still reaches every socket in a message read after its
    commit: the table leaves ``pending`` before its read begins, so a commit after that
    schedules another."""

    def __init__(self, send: Callable[[int], None]) -> None:
        self.send = send  # reads the table's change and sends it (in a thread)
        self.lock = threading.Lock()
        self.pending: dict[int, object] = {}  # table → the token of its scheduled send
        self.running: set[asyncio.Task[None]] = set()  # a reference until done

    def schedule(self, loop: asyncio.AbstractEventLoop, table_id: int, delay_s: float) -> None:
        """Call from a thread of ``loop``'s process (the committing one) after the commit."""
        token = object()
        with self.lock:
            if table_id in self.pending:
                return
            self.pending[table_id] = token
        try:
            loop.call_soon_threadsafe(loop.call_later, delay_s, self._start, table_id, token)
        except RuntimeError:  # the loop has closed (the process is stopping): send it now
            self.cancel(table_id)
            self.send(table_id)

    def cancel(self, table_id: int) -> None:
        """The table's change is about to be read and sent at once: the one scheduled, whose
        changes that read covers (they committed before it), is not sent."""
        with self.lock:
            self.pending.pop(table_id, None)

    def _start(self, table_id: int, token: object) -> None:
        with self.lock:
            if self.pending.get(table_id) is not token:
                return  # cancelled: sent at once meanwhile
            del self.pending[table_id]
        task = asyncio.get_running_loop().create_task(self._send(table_id))
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def _send(self, table_id: int) -> None:
        try:
            await DatabaseSyncToAsync(self.send, thread_sensitive=False)(table_id)
        except Exception:  # the change stands; the table's next change carries it
            logger.exception("sending table %s's change failed", table_id)


_table_change_delays = _TableChangeDelays(_table_change_reads.publish)


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the server process this thread works for (daphne's pool runs the
    services), or None outside one (a Celery task, a command, a test's own thread)."""
    local = SyncToAsync.threadlocal
    loop: asyncio.AbstractEventLoop | None = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop if loop.is_running() else None


class _TableChangePublish:
    """The on-commit send of a table's change (one per table per transaction, however many
    changes it made: the message is read after the commit and holds them all). In a server
    process it is sent after a short delay, with the table's other changes of the moment
    (``_TableChangeDelays``), unless ``at_once``; elsewhere at once."""

    def __init__(self, table_id: int, *, at_once: bool = False) -> None:
        self.table_id = table_id
        self.at_once = at_once

    def __call__(self) -> None:
        delay_ms = settings.SHENGJI_TABLE_CHANGE_DELAY_MS
        loop = _server_loop() if delay_ms > 0 and not self.at_once else None
        if loop is None:
            _table_change_delays.cancel(self.table_id)
            _table_change_reads.publish(self.table_id)
        else:
            _table_change_delays.schedule(loop, self.table_id, delay_ms / 1000)


def table_changed(table: Table, line: SystemLine | None, *, at_once: bool = False) -> None:
    """Every socket at the table is sent its state after the commit, made from one message
    read once for them all (the line, if any, is in its chat backlog). The table's ``rev``
    moves on once per transaction: a socket keeps the newest change it hears. ``at_once``: the
    change is sent right after the commit, before the views the transaction sends (a server
    process otherwise sends it a moment later, ``_TableChangeDelays``)."""
    if line is not None:
        line = named(table.pk, line)
        ChatLine.objects.create(
            table=table, system=True, text=line.text, code=line.code, params=list(line.params)
        )
    pending = _pending_publish(table.pk)
    if pending is not None:
        pending.at_once = pending.at_once or at_once
        return
    with connection.cursor() as cursor:
        cursor.execute(_TABLE_REV_NEXT, [table.pk])
    table.rev += 1
    transaction.on_commit(_TableChangePublish(table.pk, at_once=at_once))


def _pending_publish(table_id: int) -> _TableChangePublish | None:
    """The send of the table's change this transaction will make, if it has moved the
    table's ``rev`` on already (a savepoint rolled back takes its callbacks with it, and then
    its update too)."""
    for entry in connection.run_on_commit:
        if isinstance(entry[1], _TableChangePublish) and entry[1].table_id == table_id:
            return entry[1]
    return None


def seat_vacate_away(table: Table, seat: Seat) -> None:
    """Between hands, a player away past the grace period (gone, or seated by quick match and
    never come) gives the seat up: the table does not wait for them (docs/LADDER.md). Call
    holding the table and seat locks, with no hand on."""
    name, index = seat.user, seat.index
    free_seat(seat)
    table_changed(table, system("away_freed", str(name), index))
    ranked_table_close_if_dead(table, locked_seats(table))


def ranked_table_close_if_dead(table: Table, seats: list[Seat]) -> bool:
    """A ranked table that has lost a player (an escape, a player stood up, away or gone)
    can never refill: its seats are given by quick match only. Close it and stand the others
    up at once, free to queue again; their page offers quick match (the ``state`` frame's
    ``quick_match_offer``; docs/LADDER.md, "A ranked table that loses a player"). Whether it
    closed the table. Call holding the table and seat locks, with no hand on."""
    if not table.ranked or table.status == Table.Status.CLOSED:
        return False
    if all(seat.user_id is not None for seat in seats):
        return False
    table.matches.filter(ended_at__isnull=True).update(ended_at=db_now())
    for seat in seats:
        if seat.user_id is not None:
            free_seat(seat)
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status"])
    table_changed(table, None)
    return True


# --- who may play ----------------------------------------------------------------------------


def points_needed(table: Table, *, stake: int | None = None) -> int:
    """The table points a human needs to sit at ``table`` and before each of its hands: the
    most one hand of its rules at its stake (or ``stake``) can take, and at least the table's
    minimum balance (docs/LADDER.md, "Invariants": nobody loses more than they hold)."""
    return table_points_needed(
        ruleset=table.rules().to_dict(),
        stake=table.stake if stake is None else stake,
        min_balance=table.min_balance,
    )


def bot_seated(seats: list[Seat]) -> bool:
    """A bot holds a seat of its own (no user: not one playing for an away player or on
    autopilot), so the next hand is practice: it moves nothing for anyone."""
    return any(s.bot and s.user_id is None for s in seats)


def points_needed_seated(table: Table, seats: list[Seat], *, stake: int | None = None) -> int:
    """``points_needed`` as the table is seated now: with a bot in a seat of its own only the
    table's minimum balance, since a hand that starts so is practice and can take nothing
    (docs/LADDER.md, "Practice"). Checked again before every hand, so a table whose bot seat
    a human takes needs the full amount again before its next hand."""
    if bot_seated(seats):
        return table.min_balance
    return points_needed(table, stake=stake)


def seat_present(table: Table, seat: Seat) -> bool:
    """A seated human is here for the next hand: not away (no bot holding the seat for them, no
    grace period running) and, at a ranked table, connected. A player on autopilot (托管) who
    is connected is here: the bot plays at their own request."""
    if (seat.bot and not seat.autopilot) or seat.disconnected_at is not None:
        return False
    return seat.connected or not table.ranked
