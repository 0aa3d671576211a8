"""Connections and takeovers: a seated player's sockets, the grace period after the last one
closes, the bot taking the seat when it ends, and the player taking it back on return; and
the end of a user's sessions (log-out, a password change, a ban, the account removed): the
check each socket makes before each message, and the seats of a suspended account."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils.crypto import constant_time_compare

from accounts import ratelimits
from accounts.models import User
from games import positions, realtime, selectors
from games.handstate import load_state
from games.models import Hand, QueueEntry, Seat, SeatConnection, Table
from games.selectors import Presence
from games.services._common import (
    db_now,
    free_seat,
    hand_on,
    lock_current_hand,
    lock_table,
    locked_seats,
    seat_vacate_away,
    system,
    table_changed,
)
from games.services._moves import after_change
from games.services.noshow import quick_match_no_show

ACCOUNT_SUSPENDED = "account_suspended"  # banned or made inactive: the socket's last frame
SESSION_ENDED = "session_ended"  # logged out, password changed, account removed
# Session engines that keep their sessions in the database: a session logged out is a row gone.
DB_SESSION_ENGINES = (
    "django.contrib.sessions.backends.db",
    "django.contrib.sessions.backends.cached_db",
)


def _quoted(model: type[Any]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


# A socket's opening and closing, written out: the ORM's building of these statements cost more
# CPU than the database's answering of them (docs/proof/LOAD.md, *Written-out SQL*).
_CONNECTION_UPSERT = f"""
    INSERT INTO {_quoted(SeatConnection)}
        (channel_name, seat_id, last_seen) VALUES (%s, %s, clock_timestamp())
    ON CONFLICT (channel_name)
        DO UPDATE SET seat_id = EXCLUDED.seat_id, last_seen = EXCLUDED.last_seen
"""
_CONNECTION_FIND = f"""
    SELECT c.seat_id, s.table_id
    FROM {_quoted(SeatConnection)} c JOIN {_quoted(Seat)} s ON s.id = c.seat_id
    WHERE c.channel_name = %s
"""
_SEAT_LOCK = f"SELECT * FROM {_quoted(Seat)} WHERE id = %s FOR UPDATE"
# The socket's row goes; are other sockets of the seat left? (The SELECT sees the rows as they
# were before the DELETE, hence the channel left out.)
_CONNECTION_DROP = f"""
    WITH gone AS (DELETE FROM {_quoted(SeatConnection)} WHERE channel_name = %s)
    SELECT EXISTS (
        SELECT 1 FROM {_quoted(SeatConnection)} WHERE seat_id = %s AND channel_name <> %s
    )
"""
_ACTIVE = f"SELECT is_active FROM {_quoted(User)} WHERE id = %s"


def _active(user_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_ACTIVE, [user_id])
        row = cursor.fetchone()
    return row is not None and bool(row[0])


@transaction.atomic
def seat_connected(*, table_id: int, user: User, channel_name: str) -> bool:
    """A socket of a seated player opened; returns whether the player took the seat back."""
    table = lock_table(table_id)
    hand = lock_current_hand(table)
    seats = locked_seats(table)
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None or not _active(user.pk):
        return False  # read after the table's lock: a ban that vacated the seat has committed
    with connection.cursor() as cursor:
        cursor.execute(_CONNECTION_UPSERT, [channel_name, seat.pk])
    returning = seat.disconnected_at is not None
    # A player on autopilot (托管) comes back to it: the bot plays on until they turn it off.
    took_back = returning and seat.bot and not seat.autopilot
    if returning or not seat.connected:  # a second socket of a connected player changes nothing
        seat.connected = True
        seat.disconnected_at = None
        seat.bot = False if took_back else seat.bot
        seat.save(update_fields=["connected", "disconnected_at", "bot"])
    if took_back:
        table_changed(table, system("back", str(user), seat.index))
        if hand is not None:
            state = load_state(hand)
            if state.to_act == seat.index:  # the bot was about to move: normal time again
                after_change(hand, state, db_now(), seats)
    elif returning:
        table_changed(table, None)  # the seat's away mark goes
    return returning


def socket_opened(*, presence: Presence, user: User, channel_name: str) -> dict[str, Any]:
    """A table socket opened: a seated player's recorded (``seat_connected``, committed), then
    the socket's first ``state`` read, in one trip to a database thread."""
    if presence.seat is not None:
        seat_connected(table_id=presence.table_id, user=user, channel_name=channel_name)
    return selectors.table_state_for(presence=presence)


@transaction.atomic
def seat_disconnected(*, channel_name: str) -> Seat | None:
    """A socket closed; when it was the seat's last, the grace period starts."""
    with connection.cursor() as cursor:
        cursor.execute(_CONNECTION_FIND, [channel_name])
        found = cursor.fetchone()
    if found is None:
        return None
    seat_id, table_id = found
    table = lock_table(table_id)
    (seat,) = Seat.objects.raw(_SEAT_LOCK, [seat_id])
    with connection.cursor() as cursor:
        cursor.execute(_CONNECTION_DROP, [channel_name, seat_id, channel_name])
        (others,) = cursor.fetchone()
    if others:
        return None
    return _start_grace(table, seat)


def _start_grace(table: Table, seat: Seat) -> Seat:
    seat.connected = False
    seat.disconnected_at = db_now()
    seat.save(update_fields=["connected", "disconnected_at"])
    table_changed(table, None)  # the seats show the player away, with the grace's end
    seat_id, since = seat.pk, seat.disconnected_at.isoformat()
    grace = settings.SHENGJI_DISCONNECT_GRACE_S
    transaction.on_commit(lambda: realtime.schedule_grace(seat_id, since, grace))
    return seat


@transaction.atomic
def seat_takeover(*, seat_id: int, since: str) -> bool:
    """The grace period after a disconnect ended: the bot plays the seat (RULES-SPEC.md §7)."""
    table_id = Seat.objects.filter(pk=seat_id).values_list("table_id", flat=True).first()
    if table_id is None:
        return False
    table = lock_table(table_id)
    hand = lock_current_hand(table)
    seats = locked_seats(table)
    seat = next(s for s in seats if s.pk == seat_id)
    if (
        seat.user_id is None
        or seat.disconnected_at is None
        or seat.disconnected_at.isoformat() != since
    ):
        return False
    on = hand_on(table)
    if seat.bot and (on or not seat.autopilot):
        # The bot plays the seat already: taken over, or on autopilot (托管) during a hand,
        # where the player still away at its end is absent (wrap_up) as after a takeover.
        return False
    if not on:  # between hands the table does not wait: the seat is freed
        if not quick_match_no_show(table, seats):
            seat_vacate_away(table, seat)
        return True
    _bot_takes_seat(table, hand, seats, seat)
    return True


def _bot_takes_seat(table: Table, hand: Hand | None, seats: list[Seat], seat: Seat) -> None:
    """The bot plays the away player's seat; at the hand's end the player, still away, is
    marked ``absent_at_end`` (wrap_up). Call holding the table, hand and seat locks."""
    seat.bot = True
    seat.save(update_fields=["bot"])
    table_changed(table, system("bot_plays", seat.index, str(seat.user)))
    if hand is not None:
        state = load_state(hand)
        if state.to_act == seat.index:
            after_change(hand, state, db_now(), seats)


# A socket's row is touched by a ping once its last touch is older than this share of
# SHENGJI_CONNECTION_TIMEOUT_S (docs/proof/FAULTS.md, "Pings without the database").
TOUCH_SHARE = 1 / 3


def connections_touch_due(*, since_s: float) -> bool:
    """Whether a ping should touch its socket's row (``connections_touch``), the socket's last
    touch (or registration) being ``since_s`` seconds ago. Most pings do not: a live socket's
    row is at most this share of the timeout old, plus one ping's interval, when the sweep
    looks; and a socket the sweep forgot was not touched for the whole timeout, so its next
    ping touches, finds no row and registers the socket again."""
    return since_s >= settings.SHENGJI_CONNECTION_TIMEOUT_S * TOUCH_SHARE


def connections_touch(*, channel_name: str) -> bool:
    """Note a ping; False when the socket has no row: the sweep forgot it while it lived (no
    ping reached the database for SHENGJI_CONNECTION_TIMEOUT_S, e.g. a stalled server)."""
    return SeatConnection.objects.filter(channel_name=channel_name).update(last_seen=db_now()) > 0


def socket_ping(
    *, table_id: int, owner: str, channel_name: str, sent: positions.Position
) -> positions.Position | None:
    """A ping's work but the row's touch: the socket counted alive (``ratelimits``), and where
    the table's latest hand stands for the pong (None before its first hand), from Redis
    (``games.positions``; the database only when Redis lacks it or holds a position older than
    ``sent``, the one the socket was last sent)."""
    ratelimits.socket_touch(table_id=table_id, owner=owner, channel_name=channel_name)
    position = positions.table_position(table_id, at_least=sent)
    return None if position == positions.NO_HAND else position


def connections_sweep(*, older_than_s: int) -> int:
    """Forget sockets not heard from (a killed server never says goodbye); one transaction
    per socket, so no two seats are ever locked together here."""
    cutoff = db_now() - timedelta(seconds=older_than_s)
    stale = list(
        SeatConnection.objects.filter(last_seen__lt=cutoff).values_list("channel_name", flat=True)
    )
    for channel_name in stale:
        seat_disconnected(channel_name=channel_name)
    return len(stale)


def seats_takeover_overdue(*, grace_s: float) -> list[tuple[int, str]]:
    """(seat id, since) of players away longer than ``grace_s`` whom no bot plays for yet:
    their grace task is late or was lost (a Redis restart loses the queue)."""
    cutoff = db_now() - timedelta(seconds=grace_s)
    # A seat on autopilot is the bot's already: its grace matters only between hands.
    unplayed = Q(bot=False) | Q(autopilot=True, table__status=Table.Status.OPEN)
    away = Seat.objects.filter(unplayed, user__isnull=False, disconnected_at__lt=cutoff)
    rows = away.values_list("pk", "disconnected_at")
    return [(pk, since.isoformat()) for pk, since in rows if since is not None]


# --- the end of a user's sessions ------------------------------------------------------------


@dataclass(frozen=True)
class SessionEnd:
    """Why a socket's session no longer holds: its last frame's error code, and for a
    suspension the reason the admin gave."""

    code: str
    reason: str = ""


@functools.cache
def _session_check_sql(engine: str) -> tuple[str, bool]:
    """The statement, and whether it takes the session key (sessions kept in the database)."""
    from django.contrib.sessions.models import Session

    users = connection.ops.quote_name(User._meta.db_table)
    if (
        engine not in DB_SESSION_ENGINES
    ):  # kept elsewhere: the password hash still ends a changed one
        return f"SELECT is_active, password, ban_reason, TRUE FROM {users} WHERE id = %s", False
    sessions = connection.ops.quote_name(Session._meta.db_table)
    live = (
        f"EXISTS (SELECT 1 FROM {sessions} s"
        " WHERE s.session_key = %s AND s.expire_date > clock_timestamp())"
    )
    return (
        f"SELECT u.is_active, u.password, u.ban_reason, {live} FROM {users} u WHERE u.id = %s",
        True,
    )


def socket_session_check(
    *, user_id: int, session_key: str | None, session_hash: str
) -> SessionEnd | None:
    """None while the socket's session still holds, as a page would find it: the user exists
    and is active, the session is not logged out (its row is there and not expired) and its
    password hash is the user's (a password change ends every other session). One statement
    of two primary-key lookups: the socket makes it before each message it takes, so a socket
    whose close message was lost (``realtime.sessions_ended``; Redis down) acts no more."""
    end, _ = socket_session_state(
        user_id=user_id, session_key=session_key, session_hash=session_hash
    )
    return end


def socket_session_state(
    *, user_id: int, session_key: str | None, session_hash: str
) -> tuple[SessionEnd | None, str]:
    """``socket_session_check``, and the password hash it accepted (empty when it ended): the
    optimistic move checks the session by that hash inside its own statement."""
    sql, keyed = _session_check_sql(settings.SESSION_ENGINE)
    params: list[str | int] = [session_key or "", user_id] if keyed else [user_id]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return SessionEnd(SESSION_ENDED), ""  # the account was removed
    active, password, ban_reason, live = row
    if not active:
        return SessionEnd(ACCOUNT_SUSPENDED, ban_reason), ""
    if not live or not _hash_holds(User(pk=user_id, password=password), session_hash):
        return SessionEnd(SESSION_ENDED), ""
    return None, str(password)


def _hash_holds(user: User, session_hash: str) -> bool:
    """Django's own session check (``django.contrib.auth.get_user``), the fallback keys too."""
    if not session_hash:
        return False
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return any(constant_time_compare(session_hash, known) for known in hashes)


def sessions_end(
    *, user_id: int, code: str, reason: str = "", session_key: str | None = None
) -> None:
    """After the commit, close the user's open sockets (those of ``session_key`` only, when
    given): each sends its last frame, an ``error`` with ``code``, and closes (PROTOCOL.md)."""
    transaction.on_commit(
        lambda: realtime.sessions_ended(user_id, code, reason, session_key=session_key)
    )


@transaction.atomic
def user_seats_vacate(*, user_id: int) -> int:
    """A suspended (or removed) account leaves its seats and the quick-match queue. A seat in a
    hand in progress is the bot's at once, as after a disconnect's grace period: the player is
    away at the hand's end, settled as an absentee and leaves the seat then (wrap_up); any
    other seat is free now (a ready pressed before cannot start a hand with the account).
    Returns the seats left. Tables are locked in the order of their ids."""
    QueueEntry.objects.filter(user_id=user_id).delete()
    table_ids = sorted(set(Seat.objects.filter(user_id=user_id).values_list("table_id", flat=True)))
    for table_id in table_ids:
        table = lock_table(table_id)
        hand = lock_current_hand(table)
        seats = locked_seats(table)
        for seat in (s for s in seats if s.user_id == user_id):
            _vacate(table, hand, seats, seat)
    return len(table_ids)


def _vacate(table: Table, hand: Hand | None, seats: list[Seat], seat: Seat) -> None:
    if hand is None:
        who = seat.user
        free_seat(seat)
        table_changed(table, system("leaves", str(who), seat.index))
        return
    SeatConnection.objects.filter(seat=seat).delete()
    seat.connected = False
    seat.ready = False
    seat.autopilot = False  # the bot plays on as for any away player: absent at the end
    seat.disconnected_at = seat.disconnected_at or db_now()
    seat.save(update_fields=["connected", "ready", "autopilot", "disconnected_at"])
    if not seat.bot:
        _bot_takes_seat(table, hand, seats, seat)
