"""The deadline rule (games/services/deadline_rule.py) in its two forms: the Python the locking
path applies and the SQL of the one-statement move agree, the SQL run on PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connection

from games.services import optimistic
from games.services.deadline_rule import (
    DUE_SQL,
    KEEPS_TIMER_SQL,
    keeps_timer,
    step_deadline,
    step_seconds,
    turn_limit_s,
)
from shengji.engine.hand import BURYING, PLAYING

LIMITS_S = (0.8, 20.0)
# The timer's due time from the statement's clock: none, past, now, within, at and beyond the
# new deadline (``limit`` seconds on).
OFFSETS: tuple[str | float | None, ...] = (
    None,
    -30.0,
    -0.001,
    0.0,
    "half",
    "limit",
    "just after",
    60.0,
)


def offset_s(offset: str | float | None, limit: float) -> float | None:
    if not isinstance(offset, str):
        return offset
    return {"half": limit / 2, "limit": limit, "just after": limit + 0.001}[offset]


@pytest.mark.django_db
def test_the_sql_keeps_the_timer_exactly_when_the_python_does() -> None:
    sql = f"""
        SELECT now(), {DUE_SQL}, COALESCE(({KEEPS_TIMER_SQL}), false)
        FROM (SELECT %(timer_seq)s::integer AS timer_seq,
                     now() + %(offset)s * interval '1 second' AS timer_at) AS h
    """
    cases = 0
    kept = 0
    with connection.cursor() as cursor:
        for limit in LIMITS_S:
            for timer_seq in (None, 7):
                for offset in OFFSETS:
                    seconds = offset_s(offset, limit)
                    cursor.execute(sql, {"limit": limit, "timer_seq": timer_seq, "offset": seconds})
                    now, due, sql_keeps = cursor.fetchone()
                    assert due == now + timedelta(seconds=limit)
                    timer_at = None if seconds is None else now + timedelta(seconds=seconds)
                    assert sql_keeps == keeps_timer(timer_seq, timer_at, now, due), (
                        limit,
                        timer_seq,
                        offset,
                    )
                    cases += 1
                    kept += sql_keeps
    assert cases == len(LIMITS_S) * 2 * len(OFFSETS)
    assert kept == len(LIMITS_S) * 3  # a timer due now, within or at the new deadline: kept


def test_the_statement_sets_the_deadline_and_timer_by_the_rules_sql() -> None:
    moving = optimistic._moved_hand(False)
    assert f"deadline = {DUE_SQL}" in moving
    assert f"CASE WHEN {KEEPS_TIMER_SQL} THEN h.timer_seq ELSE h.seq + 1 END" in moving
    assert f"CASE WHEN {KEEPS_TIMER_SQL} THEN h.timer_at ELSE {DUE_SQL} END" in moving


def a_state(phase: str) -> Any:
    return SimpleNamespace(phase=phase, rules=SimpleNamespace(bury_s=30, play_s=5))


@pytest.mark.parametrize("bot_delay_ms", [0, 800, 5000, 30_000])
def test_a_step_begun_now_has_the_seconds_its_deadline_gives(
    settings: Any, bot_delay_ms: int
) -> None:
    """``step_seconds`` (the statement's ``limit``) is ``step_deadline`` of a step begun now,
    for a player and for a bot whose delay is shorter, equal to or longer than the step."""
    settings.SHENGJI_BOT_DELAY_MS = bot_delay_ms
    now = datetime.fromisoformat("2026-01-02T03:04:05.678901+00:00")
    for phase in (BURYING, PLAYING):
        state = a_state(phase)
        for bot in (False, True):
            seconds = step_seconds(state, bot)
            assert step_deadline(state, now, now, bot) == now + timedelta(seconds=seconds)
        assert step_seconds(state, False) == turn_limit_s(state)
        assert step_seconds(state, True) == min(bot_delay_ms / 1000, turn_limit_s(state))


def test_a_step_begun_earlier_keeps_its_end(settings: Any) -> None:
    """A player's step begun 4 s ago at a 5 s table ends 1 s from now; a bot's delay from now
    ends it sooner, never later."""
    settings.SHENGJI_BOT_DELAY_MS = 800
    state = a_state(PLAYING)
    now = datetime.fromisoformat("2026-01-02T03:04:05+00:00")
    started = now - timedelta(seconds=4)
    assert step_deadline(state, started, now, False) == now + timedelta(seconds=1)
    assert step_deadline(state, started, now, True) == now + timedelta(seconds=0.8)
    settings.SHENGJI_BOT_DELAY_MS = 3000
    assert step_deadline(state, started, now, True) == now + timedelta(seconds=1)
