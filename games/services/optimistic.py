"""The one-statement move: a player's bury or play made against what this process already
knows of the hand, written by one SQL statement on the event loop (docs/ARCHITECTURE.md, "One
action, from the socket to the views sent back").

What the process knows (``MoveFacts``) was read under the hand's lock by the last change of
that table's hand, made here or learnt from its message (movefacts.py), and the engine state at
that seq is kept in memory (games/handstate.py).
The move is checked and applied to a copy of that state here; then one autocommitted statement
updates the hand and appends the action **only if** the hand is still at that seq, still in
play, its seats unchanged since (``Hand.seats_rev``, bumped by a trigger on every seat change)
and the user's session still holds (active, same password, the session row live). If any of
that is no longer so, the statement changes nothing and the caller takes the locking path
(``services.table_act``), which decides with fresh rows: the optimistic move never refuses a
move and never accepts one the locking path would refuse.

Only the common case comes here: a bury or play of a seat not on 托管, outside the deal (whose
draws are due by the clock). Its system lines (a failed throw's; in 找朋友 the calls shown at
the first lead and each call filled) are written by the same statement and sent after the
views, as the locking path writes and sends them. The hand's last play writes its result with
it, as the locking path does; the rest (the settlement, the table) is the wrap-up task's, sent
after the views as there.
"""

from __future__ import annotations

import asyncio
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
from games.chat_words import NAMED_SEATS
from games.handstate import kept_state, public_summary, remember_state
from games.models import Action, ChatLine, Hand, HandPlayer
from games.services._common import SystemLine
from games.services._moves import before_change, play_lines
from games.services.chat import system_payload
from games.services.connections import DB_SESSION_ENGINES
from games.services.deadline_rule import DUE_SQL, KEEPS_TIMER_SQL, step_seconds
from games.services.movefacts import MoveFacts, known_facts, remember_facts, shared_facts
from shengji.engine import HandState, ShengjiError, view_for, view_public
from shengji.engine.hand import BURYING, FINISHED, PLAYING

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Mover:
    """Who moves, and the session their socket was last checked with in full."""

    user_id: int
    password: str  # the password hash the last full session check accepted
    session_key: str | None
    name: str = ""  # the user's name, for the move's system lines (``_named_lines``)


@dataclass(frozen=True)
class Planned:
    """A move checked against the kept state: what the statement writes if the hand is as
    the facts say."""

    facts: MoveFacts
    seat: int
    action: str
    state: HandState  # after the move
    limit_s: float  # seconds from the statement's clock to the next deadline (0: it ended)
    lines: tuple[SystemLine, ...]  # the chat's system lines the move writes

    @property
    def ends_hand(self) -> bool:
        return self.state.phase == FINISHED


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
    before = before_change(state)
    try:
        action = state.check_action(seat, f"{kind} {seat} {cards}")
        state.apply(action, seat)
    except ShengjiError:
        return None
    if state.phase not in {PLAYING, FINISHED}:
        # Still burying (its clock's start is the locking path's: _turn_started_at), or a
        # theft window opened by the bury (RULES-SPEC.md §10.24: its deadline is the window's).
        return None
    limit_s = 0.0 if state.phase == FINISHED else _limit_s(state, facts)
    lines = _named_lines(play_lines(state, before), facts, mover)
    if lines is None:
        return None
    return Planned(facts, seat, str(action), state, limit_s, lines)


# The names of the users who moved through this process lately, for the lines a move writes
# about another seat (a friend revealed when the trick ends, say): names change rarely, and a
# name not known here sends the move to the locking path, which reads it.
_NAMES_KEPT = 4096
_names: OrderedDict[int, str] = OrderedDict()
_names_lock = threading.Lock()


def _remember_name(user_id: int, name: str) -> None:
    with _names_lock:
        _names[user_id] = name
        _names.move_to_end(user_id)
        while len(_names) > _NAMES_KEPT:
            _names.popitem(last=False)


def _name_of(user_id: int) -> str | None:
    with _names_lock:
        return _names.get(user_id)


def _named_lines(
    lines: list[SystemLine], facts: MoveFacts, mover: Mover
) -> tuple[SystemLine, ...] | None:
    """The move's lines with each seat's player named (``chat_words.NAMED_SEATS``; "" for a
    bot's seat), as the locking path names them (``_common.named``); None (the locking path
    then) when a name is not known here."""
    if mover.name:
        _remember_name(mover.user_id, mover.name)
    named: list[SystemLine] = []
    for line in lines:
        where = NAMED_SEATS.get(line.code)
        if where is None:
            named.append(line)
            continue
        user_id = facts.occupants[int(line.params[where[0]])]
        name = "" if user_id is None else _name_of(user_id)
        if name is None:
            return None
        named.append(SystemLine(line.code, (*line.params, name)))
    return tuple(named)


def _limit_s(state: HandState, facts: MoveFacts) -> float:
    """Seconds to the next deadline of the step this move begins (``deadline_rule``)."""
    to_act = state.to_act
    assert to_act is not None
    return step_seconds(state, facts.bots[to_act])


def _table(model: Any) -> str:
    return str(connection.ops.quote_name(model._meta.db_table))


def _moved_hand(ends_hand: bool) -> str:
    """The SET of the hand row: its seq, its next deadline and deadline task (the deadline
    rule's SQL form, as ``_moves.after_change`` applies its Python one), or the hand's end (as
    ``_moves._finish_hand``)."""
    if ends_hand:
        return """
                seq = h.seq + 1,
                deadline = NULL,
                snapshot = %(snapshot)s::jsonb,
                timer_seq = NULL,
                timer_at = NULL,
                status = 'finished',
                result = %(result)s::jsonb,
                finished_at = now(),
                awaiting_wrap_up = true"""
    due, keep = DUE_SQL, KEEPS_TIMER_SQL
    return f"""
                seq = h.seq + 1,
                deadline = {due},
                snapshot = jsonb_set(%(snapshot)s::jsonb, '{{deadline}}', to_jsonb({due})),
                timer_seq = CASE WHEN {keep} THEN h.timer_seq ELSE h.seq + 1 END,
                timer_at = CASE WHEN {keep} THEN h.timer_at ELSE {due} END"""


# The move's system lines, in order, from one JSON array of {"text", "code", "params"}.
_SAID = """, said AS (
            INSERT INTO {chat} (table_id, user_id, system, text, code, params, created_at)
            SELECT %(table)s, NULL, true, l.line->>'text', l.line->>'code', l.line->'params', now()
            FROM moved, jsonb_array_elements(%(lines)s::jsonb) WITH ORDINALITY AS l(line, n)
            ORDER BY l.n
        )"""


@functools.cache
def _statement(keyed_sessions: bool, ends_hand: bool, says: bool) -> str:
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.models import Session

    session = (
        f"AND EXISTS (SELECT 1 FROM {_table(Session)} s WHERE s.session_key = %(session)s"
        " AND s.expire_date > clock_timestamp())"
        if keyed_sessions
        else ""
    )
    return f"""
        WITH moved AS (
            UPDATE {_table(Hand)} h SET {_moved_hand(ends_hand)}
            WHERE h.id = %(hand)s AND h.seq = %(seq)s AND h.status = 'playing'
                AND h.seats_rev = %(seats_rev)s
                AND EXISTS (SELECT 1 FROM {_table(HandPlayer)} p
                    WHERE p.hand_id = h.id AND p.user_id = %(user)s AND p.seat = %(seat)s)
                AND EXISTS (SELECT 1 FROM {_table(get_user_model())} u
                    WHERE u.id = %(user)s AND u.is_active AND u.password = %(password)s)
                {session}
            RETURNING h.id, h.seq, h.timer_seq, h.timer_at, h.deadline
        ), logged AS (
            INSERT INTO {_table(Action)} (hand_id, seq, seat, text, auto, created_at)
            SELECT id, %(seq)s, %(seat)s, %(text)s, false, now() FROM moved
            RETURNING id
        ){_SAID.format(chat=_table(ChatLine)) if says else ""}
        SELECT m.seq, m.timer_seq, m.timer_at, m.deadline, now() FROM moved m, logged
    """


class Written(NamedTuple):
    """What the statement wrote: the hand's new seq, its deadline task's seq and due time,
    and its next deadline (all three None once the hand has ended); the statement's clock."""

    seq: int
    timer_seq: int | None
    timer_at: datetime | None
    deadline: datetime | None
    at: datetime


async def _write(planned: Planned, mover: Mover, table_id: int) -> Written | None:
    """The statement's row if it moved the hand, None if the hand was not as the facts say
    (or the database did not answer in time)."""
    facts, state = planned.facts, planned.state
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
        "snapshot": Jsonb(public_summary(state, None)),
        "result": None if state.result is None else Jsonb(state.result.to_dict()),
        "table": table_id,
        "lines": Jsonb(
            [{"text": s.text, "code": s.code, "params": list(s.params)} for s in planned.lines]
        ),
    }
    keyed = settings.SESSION_ENGINE in DB_SESSION_ENGINES
    sql = _statement(keyed, planned.ends_hand, bool(planned.lines))
    try:
        async with asyncdb.pool().connection() as conn:
            cursor = await conn.execute(sql, params)
            row = await cursor.fetchone()
    except psycopg.Error as error:
        # A lock held too long, a connection lost: the locking path decides. (Should the
        # statement have committed before the connection broke, the locking path finds the
        # seq moved on and refuses the repeat: the move is in the log once.)
        logger.warning(
            "optimistic move on hand %s failed (%s: %s); taking the locking path",
            facts.hand_id,
            type(error).__name__,
            error,
        )
        return None
    if row is None:
        return None
    return Written(*row)


@dataclass(frozen=True)
class Moved:
    """A move the statement made, its views sent; what may be left to do is ``send_task``.
    ``message`` is the group's (``realtime.hand_view_message``): the mover's socket sends its
    own view from it at once, rather than behind the rest of its handler."""

    planned: Planned
    written: Written
    message: dict[str, Any]

    @property
    def task_due(self) -> bool:
        """Whether the move leaves a task to send: the hand's wrap-up once it has ended (in
        the worker, as after the locking path's last play), else its deadline task when the
        statement made this seq the timer's."""
        return self.planned.ends_hand or self._timer_due_at is not None

    @property
    def _timer_due_at(self) -> datetime | None:
        """When the deadline task is due, if the statement made this seq the timer's."""
        written = self.written
        return written.timer_at if written.timer_seq == written.seq else None

    async def send_task(self) -> None:
        """Send the task ``task_due`` names, if any. A publish lost here (the process dies
        first) is the sweeper's to send, as after the locking path (docs/proof/FAULTS.md)."""
        hand_id, due_at = self.planned.facts.hand_id, self._timer_due_at
        if self.planned.ends_hand:
            await sync_to_async(realtime.schedule_wrap_up, thread_sensitive=False)(hand_id)
        elif due_at is not None:
            await sync_to_async(realtime.schedule_deadline, thread_sensitive=False)(
                hand_id, self.written.seq, due_at
            )


class _ViewsSoon:
    """A move's views made on the event loop's next turn, while its statement, sent in this
    turn, is on its way: the loop has nothing else to do for the move until PostgreSQL
    answers. (Made in a task of their own, the answer would wake that task and then this
    one: a turn more before the views go out.)"""

    def __init__(self, planned: Planned) -> None:
        self.planned = planned
        self.made: tuple[realtime.EncodedViews, dict[str, Any]] | None = None
        self.handle = asyncio.get_running_loop().call_soon(self._make)

    def _make(self) -> None:
        self.made = _views_of(self.planned)

    def result(self) -> tuple[realtime.EncodedViews, dict[str, Any]]:
        """The views, made now if their turn has not come (the statement answered first, or
        their making failed there: it fails here again, in the caller's task)."""
        self.handle.cancel()
        if self.made is None:
            self._make()
        assert self.made is not None
        return self.made

    def cancel(self) -> None:
        self.handle.cancel()


def _views_of(planned: Planned) -> tuple[realtime.EncodedViews, dict[str, Any]]:
    """The move's views, encoded for the seq the statement gives the hand (the seq it was
    checked at, plus one), and its facts for the other processes."""
    facts, state = planned.facts, planned.state
    views = [view_for(state, seat) for seat in range(state.players)]
    encoded = realtime.encode_views(facts.hand_id, facts.seq + 1, views, view_public(state))
    return encoded, shared_facts(facts, state, facts.seq)


async def move_by_statement(
    *, table_id: int, mover: Mover, kind: str, cards: str, seq: int
) -> Moved | None:
    """Make the move in one statement if this process's facts allow, and send its views; None
    when the caller must take the locking path (nothing was written then). The caller sends
    the task (``Moved.send_task``): a socket's consumer does so after its own handler has
    returned, so that the mover's own view need not wait for Celery's publish."""
    facts = known_facts(table_id)
    if facts is None:
        return None
    planned = plan(facts, mover, kind, cards, seq)
    if planned is None:
        return None
    views = _ViewsSoon(planned)
    try:
        written = await _write(planned, mover, table_id)
    finally:
        views.cancel()  # not yet made: made by ``result`` if the move was written, else never
    if written is None:
        return None
    encoded, shared = views.result()
    remember_state(facts.hand_id, planned.state)
    remember_facts(table_id, replace(facts, seq=written.seq))
    message = realtime.views_message(
        encoded,
        list(facts.occupants),
        list(facts.watchable),
        prev=facts.seq,
        deadline=written.deadline,
        facts=shared,
    )
    await realtime.hand_changed_async(table_id, message)
    if planned.lines:
        payloads = [system_payload(line, written.at) for line in planned.lines]
        await realtime.chat_async(table_id, payloads)
    return Moved(planned, written, message)
