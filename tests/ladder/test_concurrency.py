"""Settling one hand from two connections at once gives one settlement."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction

from games.models import Hand
from games.services.wrap_up import hand_settle
from ladder.models import HandSettlement, LadderProfile, LedgerEntry, RatingChange
from ladder.services import SettlementResult
from tests.ladder.helpers import make_hand, make_users


@pytest.mark.django_db(transaction=True)
def test_two_connections_settle_one_hand_once() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 240}, levels=("K", "5"))
    results: list[SettlementResult] = []
    errors: list[BaseException] = []
    waiting = threading.Barrier(3)

    def settle() -> None:
        try:
            waiting.wait(timeout=10)
            results.append(hand_settle(hand_id=hand.pk))
        except BaseException as error:  # reported by the assertion below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=settle) for _ in range(2)]
    # Hold the hand's row lock so that both threads are inside the service, blocked on the
    # same lock, when it is released: they race for real.
    with transaction.atomic():
        Hand.objects.select_for_update().get(pk=hand.pk)
        for thread in threads:
            thread.start()
        waiting.wait(timeout=10)
        _wait_for_lock_waiters(2)
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert sorted(result.created for result in results) == [False, True]
    assert HandSettlement.objects.filter(hand=hand).count() == 1
    assert LedgerEntry.objects.filter(hand=hand, kind="table_points").count() == 4
    assert RatingChange.objects.filter(hand=hand).count() == 4
    balances = [LadderProfile.objects.get(user=u).balance for u in users]
    assert balances == [400, 1590, 400, 1590]
    assert LadderProfile.objects.get(user=users[0]).hands_played == 1


def _wait_for_lock_waiters(count: int, timeout: float = 10.0) -> None:
    """Until `count` other sessions wait on a row lock (pg_locks: not granted)."""
    import time

    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(DISTINCT pid) FROM pg_locks"
                " WHERE NOT granted AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] >= count:
                return
            time.sleep(0.02)
    raise AssertionError(f"fewer than {count} sessions waited for the hand's lock")
