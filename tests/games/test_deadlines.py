"""Deadlines on a real Celery worker: the deal paced by time, a timeout played by the bot once."""

from __future__ import annotations

import time

import pytest

from games.handstate import load_state
from games.models import Action, Hand
from games.tasks import hand_deadline, sweep
from tests.games.helpers import fresh, make_table, make_users, seat_all

pytestmark = pytest.mark.django_db(transaction=True)


def wait_for(test, timeout: float = 20.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = test()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_the_deal_is_paced_and_a_timeout_is_played_once_even_if_the_task_runs_twice(
    celery_worker: object,
) -> None:
    users = make_users()
    table = make_table(users[0], deal_interval_ms=20, bid_window_seconds=0, bury_seconds=0)
    hand = seat_all(table, users)
    wait_for(lambda: load_state(fresh(hand)).phase == "playing")
    bury = wait_for(lambda: Action.objects.filter(hand=hand, text__startswith="bury").first())
    assert bury.auto
    # The site's own clock: 100 cards at 20 ms each, so the bury that follows the whole deal
    # is recorded at least two seconds after the deal began.
    dealt_for = bury.created_at - fresh(hand).deal_started_at
    assert dealt_for.total_seconds() >= 2.0
    for _ in range(2):
        hand_deadline.delay(hand.pk, bury.seq)  # the bury's deadline, delivered again, twice
    time.sleep(1.0)
    assert Action.objects.filter(hand=hand, text__startswith="bury").count() == 1
    assert Action.objects.filter(hand=hand, auto=True).count() == 1
    draws = Action.objects.filter(hand=hand, text="draw").count()
    assert draws == 100


def test_the_sweeper_catches_a_deadline_whose_task_was_lost(celery_worker: object) -> None:
    users = make_users()
    table = make_table(users[0], bid_window_seconds=0, bury_seconds=60)
    hand = seat_all(table, users)
    wait_for(lambda: load_state(fresh(hand)).phase == "burying")
    Hand.objects.filter(pk=hand.pk).update(deadline="2000-01-01T00:00:00Z")  # as if overdue
    assert sweep() == 1
    bury = wait_for(lambda: Action.objects.filter(hand=hand, text__startswith="bury").first())
    assert bury.auto
