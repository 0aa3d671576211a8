"""The end of a hand in two steps (services.hand_wrap_up): the last move commits and its views
go out; the settlement, the match, the seats and the table follow in a transaction of their
own. A wrap-up that never ran (a process died in between) is done by the sweeper, once; until
then the table does not start another hand."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client

from accounts.errors import ApplicationError
from accounts.models import User
from games import services
from games.handstate import load_state
from games.models import Hand, HandPlayer, Table
from games.services import hands
from games.services.wrap_up import wrapped_up
from games.tasks import sweep
from ladder.models import HandSettlement, LedgerEntry
from shengji.engine import legal_actions
from tests.games.helpers import (
    act_as_bot_would,
    deal_and_close,
    fresh,
    make_table,
    make_users,
    rows_locked_elsewhere,
    seat_all,
)

pytestmark = pytest.mark.django_db


_PAUSE_PAST = timedelta(seconds=60)  # a hand that ended this long ago: its pause is over


def to_the_last_move(users: list[User], *, worker: bool = False) -> Hand:
    hand = seat_all(make_table(users[0]), users)
    if worker:  # the worker deals and closes the bidding (both due at once here)
        waited = time.monotonic() + 20
        while load_state(fresh(hand)).phase != "burying":
            assert time.monotonic() < waited, "the deal did not finish"
            time.sleep(0.05)
    else:
        hand = deal_and_close(hand)
    while sum(len(cards) for cards in load_state(fresh(hand)).hands) > 1:
        act_as_bot_would(hand, users)
    return fresh(hand)


def last_move_without_wrap_up(hand: Hand, users: list[User]) -> Hand:
    """The last move's own transaction only, as if the process died right after its commit."""
    state = load_state(hand)
    seat = state.to_act
    assert seat is not None
    action = legal_actions(state, seat)[0]
    kind, cards = action.kind, str(action).split(" ", 2)[2]
    table_id = hand.match.table_id
    # The transaction alone: ``table_act`` would also queue the wrap-up task on its commit.
    return hands._table_act(
        table_id=table_id, user=users[seat], kind=kind, cards=cards, seq=hand.seq
    )


def test_the_last_move_wraps_the_hand_up_right_after() -> None:
    users = make_users()
    hand = to_the_last_move(users)
    act_as_bot_would(hand, users)
    ended = fresh(hand)
    assert ended.status == Hand.Status.FINISHED and not ended.awaiting_wrap_up
    assert HandSettlement.objects.filter(hand=hand).exists()
    assert sum(p.turns for p in HandPlayer.objects.filter(hand=hand)) == 100 + 1
    assert Table.objects.get(pk=hand.match.table_id).status == Table.Status.OPEN
    assert services.hand_wrap_up(hand_id=hand.pk) is False  # once only
    assert HandSettlement.objects.filter(hand=hand).count() == 1


def test_a_hand_whose_wrap_up_never_ran_holds_its_table_until_the_sweeper_wraps_it_up() -> None:
    users = make_users()
    hand = to_the_last_move(users)
    ended = last_move_without_wrap_up(hand, users)
    assert ended.status == Hand.Status.FINISHED and fresh(ended).awaiting_wrap_up
    assert not HandSettlement.objects.filter(hand=hand).exists()
    table_id = hand.match.table_id
    assert Table.objects.get(pk=table_id).status == Table.Status.PLAYING
    # Ready again before the wrap-up: no hand starts (the match's levels are not yet moved).
    for user in users:
        assert services.seat_ready(table_id=table_id, user=user) is None
    with pytest.raises(ApplicationError) as refused:
        services.seat_leave(table_id=table_id, user=users[0])
    assert refused.value.code == "hand_in_progress"

    sweep()
    wrapped = fresh(hand)
    assert not wrapped.awaiting_wrap_up
    assert HandSettlement.objects.filter(hand=hand).count() == 1
    assert LedgerEntry.objects.filter(hand=hand).count() >= 4
    match = wrapped.match
    match.refresh_from_db()
    assert wrapped.result is not None
    assert match.levels == wrapped.result["levels_after"]
    # The four pressed ready while it waited: the next hand starts after the pause, not at
    # the wrap-up (docs/PROTOCOL.md, "The pause after a hand"), so everyone sees the result.
    assert not Hand.objects.filter(match__table_id=table_id, status=Hand.Status.PLAYING).exists()
    assert wrapped.finished_at is not None
    Hand.objects.filter(pk=hand.pk).update(finished_at=wrapped.finished_at - _PAUSE_PAST)
    assert services.table_start_due(table_id=table_id) is not None
    started = Hand.objects.get(match__table_id=table_id, status=Hand.Status.PLAYING)
    assert started.number == hand.number + 1
    assert started.levels == wrapped.result["levels_after"]
    assert Table.objects.get(pk=table_id).status == Table.Status.PLAYING
    sweep()  # nothing left to wrap up: nothing settles twice
    assert HandSettlement.objects.filter(hand=hand).count() == 1


def test_a_wrap_up_opens_the_table_and_waits_for_the_four_to_be_ready() -> None:
    users = make_users()
    hand = to_the_last_move(users)
    last_move_without_wrap_up(hand, users)
    table_id = hand.match.table_id
    services.seat_ready(table_id=table_id, user=users[0])  # one of four
    assert services.hand_wrap_up(hand_id=hand.pk) is True
    assert Table.objects.get(pk=table_id).status == Table.Status.OPEN
    assert not Hand.objects.filter(match__table_id=table_id, status=Hand.Status.PLAYING).exists()
    started = None
    for user in users[1:]:
        started = services.seat_ready(table_id=table_id, user=user) or started
    assert started is not None and started.number == hand.number + 1


def test_a_table_closed_before_the_wrap_up_stays_closed_and_the_hand_is_still_settled() -> None:
    users = make_users()
    hand = to_the_last_move(users)
    last_move_without_wrap_up(hand, users)
    table_id = hand.match.table_id
    admin = User.objects.create_superuser("admin", password="pw-long-enough-1")
    services.table_close(table_id=table_id, actor=admin, reason="test")
    assert services.hand_wrap_up(hand_id=hand.pk) is True
    assert fresh(hand).status == Hand.Status.FINISHED  # ended before the close: not void
    assert HandSettlement.objects.filter(hand=hand).exists()
    assert Table.objects.get(pk=table_id).status == Table.Status.CLOSED


@pytest.mark.django_db(transaction=True)
def test_a_hand_ended_through_the_socket_is_wrapped_up_by_the_worker(
    celery_worker: object,
) -> None:
    users = make_users()
    hand = to_the_last_move(users, worker=True)
    state = load_state(hand)
    seat = state.to_act
    assert seat is not None
    _kind, _seat, cards = str(legal_actions(state, seat)[0]).split(" ", 2)
    ended = hands.table_act(
        table_id=hand.match.table_id, user=users[seat], kind="play", cards=cards, seq=hand.seq
    )
    assert ended.status == Hand.Status.FINISHED
    waited = time.monotonic() + 20
    while fresh(hand).awaiting_wrap_up:
        assert time.monotonic() < waited, "the worker never wrapped the hand up"
        time.sleep(0.05)
    assert HandSettlement.objects.filter(hand=hand).count() == 1
    assert Table.objects.get(pk=hand.match.table_id).status == Table.Status.OPEN


def test_the_ledger_says_whether_the_hand_is_settled_yet() -> None:
    client = Client(HTTP_X_FORWARDED_PROTO="https")
    users = make_users()
    hand = to_the_last_move(users)
    last_move_without_wrap_up(hand, users)
    waiting = client.get(f"/hands/{hand.pk}/ledger.json").json()
    assert (waiting["settled"], waiting["players"]) == (False, [])
    services.hand_wrap_up(hand_id=hand.pk)
    settled = client.get(f"/hands/{hand.pk}/ledger.json").json()
    assert settled["settled"] is True
    assert {row["username"] for row in settled["players"]} == {u.username for u in users}


@pytest.mark.django_db(transaction=True)
def test_a_wrap_up_that_fails_after_the_last_move_is_done_by_the_wrap_up_task(
    celery_worker: object,
) -> None:
    """The wrap-up right after the last move meets a lock it cannot wait for (a real lock
    timeout): the move stands, and the wrap-up task finishes the job once the lock is gone,
    without waiting for the sweeper."""
    users = make_users()
    hand = to_the_last_move(users, worker=True)
    ended = last_move_without_wrap_up(hand, users)
    table_id = hand.match.table_id
    with rows_locked_elsewhere(lambda: Table.objects.select_for_update().get(pk=table_id)):
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '200ms'")
        try:
            assert wrapped_up(ended) is ended
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET lock_timeout")
        assert fresh(hand).awaiting_wrap_up  # the failed attempt changed nothing
    waited = time.monotonic() + 20
    while fresh(hand).awaiting_wrap_up:
        assert time.monotonic() < waited, "the wrap-up task never wrapped the hand up"
        time.sleep(0.05)
    assert HandSettlement.objects.filter(hand=hand).count() == 1
    assert Table.objects.get(pk=table_id).status == Table.Status.OPEN
