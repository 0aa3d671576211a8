"""Celery tasks: thin interfaces that fetch by id and call a service."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import OperationalError
from redis.exceptions import RedisError

from accounts import shared_redis
from games import groupwatch, services, task_names

logger = logging.getLogger(__name__)

# A lock timeout or a deadlock victim is retried; the compare-and-set makes a retry harmless.
RETRY = {"autoretry_for": (OperationalError,), "retry_backoff": 0.2, "max_retries": 5}


@shared_task(name=task_names.HAND_DEADLINE, ignore_result=True, **RETRY)
def hand_deadline(hand_id: int, seq: int, due: str | None = None) -> bool:
    """The deadline task of (hand, seq): acts only if the time has come and the hand has not
    moved on; the hand's timer task sends itself again when the deadline moved on."""
    run = services.deadline_run(hand_id=hand_id, seq=seq, due=due)
    # One line per delivery, with the seq the hand moved at: the fault drills count how often
    # a deadline ran, and moved.
    logger.info("deadline hand=%s seq=%s %s", hand_id, run.seq, run.outcome)
    return run.outcome == "moved"


@shared_task(name=task_names.HAND_WRAP_UP, ignore_result=True, **RETRY)
def hand_wrap_up(hand_id: int) -> bool:
    """Settle an ended hand and open its table again (once: a repeat does nothing)."""
    return services.hand_wrap_up(hand_id=hand_id)


@shared_task(name=task_names.SEAT_GRACE, ignore_result=True, **RETRY)
def seat_grace(seat_id: int, since: str) -> bool:
    """A disconnected player's grace period ended: the bot takes the seat if still away."""
    return services.seat_takeover(seat_id=seat_id, since=since)


@shared_task(name=task_names.TABLE_NEXT_HAND, ignore_result=True, **RETRY)
def table_next_hand(table_id: int) -> bool:
    """The pause after a hand is over: the next hand starts if all four are ready still."""
    return services.table_start_due(table_id=table_id) is not None


def forget_dead_channels() -> None:
    """The channels a killed server process left in their groups (games/groupwatch.py)."""
    try:
        groupwatch.forget_dead_channels(shared_redis.client(), groupwatch.layer_prefix())
    except (RedisError, OSError):
        logger.warning("the channels of dead processes are kept until Redis answers")


@shared_task(name=task_names.SWEEP, ignore_result=True)
def sweep() -> int:
    """Catch deadlines and grace periods whose task was lost, and forget sockets a dead server
    left behind."""
    services.connections_sweep(older_than_s=settings.SHENGJI_CONNECTION_TIMEOUT_S)
    forget_dead_channels()
    late = settings.SHENGJI_DISCONNECT_GRACE_S + 1  # the grace task itself usually comes first
    for seat_id, since in services.seats_takeover_overdue(grace_s=late):
        seat_grace.delay(seat_id, since)
    for hand_id in services.hands_awaiting_wrap_up():
        try:
            services.hand_wrap_up(hand_id=hand_id)
        except Exception:  # one hand's failure must not stop the sweep of the others
            logger.exception("wrapping up hand %s failed", hand_id)
    for table_id in services.tables_start_overdue():
        table_next_hand.delay(table_id)
    overdue = list(services.hands_overdue().values_list("pk", "seq"))
    for hand_id, seq in overdue:
        hand_deadline.delay(hand_id, seq)
    return len(overdue)
