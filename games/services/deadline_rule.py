"""The deadline rule of a step in play (a bury, 找朋友's calls, a play), in one place: how long a
step has, and whether the deadline task already in flight serves the new deadline. The locking
path applies it in Python (``_moves.after_change``), the one-statement move in SQL
(optimistic.py); both forms are here side by side, and tests/games/test_deadline_rule.py runs
the SQL against PostgreSQL on a grid of cases and checks it agrees with the Python.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from games.services._common import bot_delay
from shengji.engine import HandState
from shengji.engine.hand import BURYING


def turn_limit_s(state: HandState) -> int:
    """The table's time for the step in play: ``bury_s`` for the dealer's bury, and in 找朋友
    for the calls before it (each step its own), ``play_s`` for a play."""
    return state.rules.bury_s if state.phase == BURYING else state.rules.play_s


def step_deadline(state: HandState, started: datetime, now: datetime, bot: bool) -> datetime:
    """The deadline of the step in play, begun at ``started``: never later than its start plus
    the table's time (``turn_limit_s``), whatever changes during it; a bot's seat moves after
    the bot's delay from ``now`` if that comes first."""
    latest = started + timedelta(seconds=turn_limit_s(state))
    return min(now + bot_delay(), latest) if bot else latest


def step_seconds(state: HandState, bot: bool) -> float:
    """Seconds from now to the deadline of a step begun now: ``step_deadline`` with
    ``started`` = ``now``, as the one-statement move gives it to ``DUE_SQL``'s ``limit``."""
    limit = turn_limit_s(state)
    return min(bot_delay().total_seconds(), limit) if bot else float(limit)


def keeps_timer(
    timer_seq: int | None, timer_at: datetime | None, now: datetime, deadline: datetime
) -> bool:
    """Whether the deadline task in flight (the hand's timer: ``timer_seq``, due at
    ``timer_at``) serves a new ``deadline``: it has not come yet and is due no later. It will
    find the deadline moved on and send itself again for it (``deadlines.deadline_run``), so
    a player's move sends no task of its own: one task per clock period, not one per move.
    A task past its due time may be running now, or lost (the sweeper sends lost ones): not
    kept, a new one is sent, and the old one, no longer the timer, does nothing when it runs."""
    return timer_seq is not None and timer_at is not None and now <= timer_at <= deadline


# The same in SQL, for the statement that moves the hand row ``h`` (optimistic.py): the new
# deadline of a step begun at the statement's clock, ``%(limit)s`` (``step_seconds``) later,
# and ``keeps_timer`` of the row's timer against it.
DUE_SQL = "now() + %(limit)s * interval '1 second'"
KEEPS_TIMER_SQL = (
    "h.timer_seq IS NOT NULL AND h.timer_at IS NOT NULL"
    f" AND now() <= h.timer_at AND h.timer_at <= {DUE_SQL}"
)
