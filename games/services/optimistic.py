"""The one-statement move: a player's bury or play made against what this process already
knows of the hand, written by one SQL statement on the event loop (docs/ARCHITECTURE.md, "The
move's two paths").

What the process knows (``MoveFacts``) was read under the hand's lock by the last move it
made at that table, and the engine state at that seq is kept in memory (games/handstate.py).
The move is checked and applied to a copy of that state here; then one autocommitted statement
updates the hand and appends the action **only if** the hand is still at that seq, still in
play, its seats unchanged since (``Hand.seats_rev``, bumped by a trigger on every seat change)
and the user's session still holds (active, same password, the session row live). If any of
that is no longer so, the statement changes nothing and the caller takes the locking path
(``services.table_act``), which decides with fresh rows: the optimistic move never refuses a
move and never accepts one the locking path would refuse.

Only the common case comes here: a bury or play of a seat not on 托管 that neither ends the
hand nor fails a throw (those write more rows: the wrap-up, the chat's system line), outside
the deal (whose draws are due by the clock).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, NamedTuple

import psycopg
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection
from psycopg.types.json import Jsonb

from games import asyncdb, realtime
from games.engine import HandState, ShengjiError, view_for, view_public
from games.engine.hand import BURYING, PLAYING
from games.handstate import kept_state, public_summary, remember_state
from games.models import Action, Hand, HandPlayer, Seat
from games.services._common import SEATS, bot_delay
from games.services.connections import DB_SESSION_ENGINES

logger = logging.getLogger(__name__)

_CACHE_SIZE = 512


@dataclass(frozen=True)
class MoveFacts:
    """A table's hand as its last move in this process left it: which hand, at which seq, its
    seats as of ``seats_rev`` (who sits, bot, 托管, and whose hand spectators may see)."""

    hand_id: int
    seq: int
    seats_rev: int
    occupants: tuple[int | None, ...]
    bots: tuple[bool, ...]
    autopilot: tuple[bool, ...]
    watchable: tuple[bool, ...]


_facts: OrderedDict[int, MoveFacts] = OrderedDict()
_facts_lock = threading.Lock()  # the locking path remembers from daphne's pool of threads


def remember_facts(table_id: int, facts: MoveFacts) -> None:
    """Call after the commit that made ``facts`` true."""
    with _facts_lock:
        _facts[table_id] = facts
        _facts.move_to_end(table_id)
        while len(_facts) > _CACHE_SIZE:
            _facts.popitem(last=False)


def known_facts(table_id: int) -> MoveFacts | None:
    with _facts_lock:
        return _facts.get(table_id)


def forget_facts() -> None:
    with _facts_lock:
        _facts.clear()


def facts_of(hand: Hand, seats: list[Seat], ranked: bool) -> MoveFacts:
    """The facts of a hand whose row and seats were read under its lock."""
    return MoveFacts(
        hand_id=hand.pk,
        seq=hand.seq,
        seats_rev=hand.seats_rev,
        occupants=tuple(seat.user_id for seat in seats),
        bots=tuple(seat.bot for seat in seats),
        autopilot=tuple(seat.autopilot for seat in seats),
        watchable=tuple(seat.show_hand_to_spectators and not ranked for seat in seats),
    )


@dataclass(frozen=True)
class Mover:
    """Who moves, and the session their socket was last checked with in full."""

    user_id: int
    password: str  # the password hash the last full session check accepted
    session_key: str | None


@dataclass(frozen=True)
class Planned:
    """A move checked against the kept state: what the statement writes if the hand is as
    the facts say."""

    facts: MoveFacts
    seat: int
    action: str
    state: HandState  # after the move
    limit_s: float  # seconds from the statement's clock to the next deadline


def plan(facts: MoveFacts, mover: Mover, kind: str, cards: str, seq: int) -> Planned | None:
    """The move applied to a copy of the kept state, or None when it is not one for this path
    (the locking path then decides, a refusal included)."""
    if facts.seq != seq or kind not in {"bury", "play"}:
        return None
    seat = next((i for i, user in enumerate(facts.occupants) if user == mover.user_id), None)
    if seat is None or facts.autopilot[seat]:
        return None
    state = kept_state(facts.hand_id, seq)
    if state is None or state.phase not in {BURYING, PLAYING}:
        return None
    throws_before = len(state.failed_throws)
    try:
        action = state.check_action(seat, f"{kind} {seat} {cards}")
        state.apply(action, seat)
    except ShengjiError:
        return None
    if state.phase != PLAYING or len(state.failed_throws) != throws_before:
        return None  # the hand ended, or a failed throw's chat line is to be written
    return Planned(facts, seat, str(action), state, _limit_s(state, facts))


def _limit_s(state: HandState, facts: MoveFacts) -> float:
    """Seconds to the next deadline (as ``_moves._next_deadline`` in play)."""
    to_act = state.to_act
    assert to_act is not None
    if facts.bots[to_act]:
        return bot_delay().total_seconds()
    return float(state.rules.play_s)


@functools.cache
def _statement(keyed_sessions: bool) -> str:
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.models import Session

    def table(model: Any) -> str:
        return connection.ops.quote_name(model._meta.db_table)

    session = (
        f"AND EXISTS (SELECT 1 FROM {table(Session)} s WHERE s.session_key = %(session)s"
        " AND s.expire_date > clock_timestamp())"
        if keyed_sessions
        else ""
    )
    due = "now() + %(limit)s * interval '1 second'"
    keep = f"h.timer_seq IS NOT NULL AND h.timer_at IS NOT NULL AND now() <= h.timer_at AND h.timer_at <= {due}"  # noqa: E501
    return f"""
        WITH moved AS (
            UPDATE {table(Hand)} h SET
                seq = h.seq + 1,
                deadline = {due},
                snapshot = jsonb_set(%(snapshot)s::jsonb, '{{deadline}}', to_jsonb({due})),
                timer_seq = CASE WHEN {keep} THEN h.timer_seq ELSE h.seq + 1 END,
                timer_at = CASE WHEN {keep} THEN h.timer_at ELSE {due} END
            WHERE h.id = %(hand)s AND h.seq = %(seq)s AND h.status = 'playing'
                AND h.seats_rev = %(seats_rev)s
                AND EXISTS (SELECT 1 FROM {table(HandPlayer)} p
                    WHERE p.hand_id = h.id AND p.user_id = %(user)s AND p.seat = %(seat)s)
                AND EXISTS (SELECT 1 FROM {table(get_user_model())} u
                    WHERE u.id = %(user)s AND u.is_active AND u.password = %(password)s)
                {session}
            RETURNING h.id, h.seq, h.timer_seq, h.timer_at, h.deadline
        ), logged AS (
            INSERT INTO {table(Action)} (hand_id, seq, seat, text, auto, created_at)
            SELECT id, %(seq)s, %(seat)s, %(text)s, false, now() FROM moved
            RETURNING id
        )
        SELECT m.seq, m.timer_seq, m.timer_at, m.deadline FROM moved m, logged
    """


class Written(NamedTuple):
    """What the statement wrote: the hand's new seq, its deadline task's seq and due time,
    and its next deadline."""

    seq: int
    timer_seq: int
    timer_at: datetime
    deadline: datetime


async def _write(planned: Planned, mover: Mover) -> Written | None:
    """The statement's row if it moved the hand, None if the hand was not as the facts say
    (or the database did not answer in time)."""
    facts = planned.facts
    params = {
        "hand": facts.hand_id,
        "seq": facts.seq,
        "seats_rev": facts.seats_rev,
        "seat": planned.seat,
        "text": planned.action,
        "user": mover.user_id,
        "password": mover.password,
        "session": mover.session_key or "",
        "limit": planned.limit_s,
        "snapshot": Jsonb(public_summary(planned.state, None)),
    }
    sql = _statement(settings.SESSION_ENGINE in DB_SESSION_ENGINES)
    try:
        async with asyncdb.pool().connection() as conn:
            cursor = await conn.execute(sql, params)
            row = await cursor.fetchone()
    except psycopg.Error:
        # A lock held too long, a connection lost: the locking path decides. (Should the
        # statement have committed before the connection broke, the locking path finds the
        # seq moved on and refuses the repeat: the move is in the log once.)
        logger.warning("optimistic move on hand %s failed; taking the locking path", facts.hand_id)
        return None
    return None if row is None else Written(*row)


async def table_act_optimistic(
    *, table_id: int, mover: Mover, kind: str, cards: str, seq: int
) -> bool:
    """Make the move in one statement if this process's facts allow; False when the caller
    must take the locking path (nothing was written then)."""
    facts = known_facts(table_id)
    if facts is None:
        return False
    planned = plan(facts, mover, kind, cards, seq)
    if planned is None:
        return False
    written = await _write(planned, mover)
    if written is None:
        return False
    new_seq, timer_seq, timer_at, deadline = written
    state = planned.state
    remember_state(facts.hand_id, state)
    remember_facts(table_id, replace(facts, seq=new_seq))
    message = realtime.hand_view_message(
        facts.hand_id,
        new_seq,
        [view_for(state, seat) for seat in range(SEATS)],
        view_public(state),
        list(facts.occupants),
        list(facts.watchable),
        prev=facts.seq,
        deadline=deadline,
    )
    await realtime.hand_changed_async(table_id, message)
    if timer_seq == new_seq:
        await sync_to_async(realtime.schedule_deadline, thread_sensitive=False)(
            facts.hand_id, timer_seq, timer_at
        )
    return True
