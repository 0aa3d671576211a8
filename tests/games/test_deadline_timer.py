"""One deadline task per clock period (games.services._moves._timer_to_send, deadline_run): a
player's move keeps the task in flight, which sends itself again when it finds the deadline
moved on; a deadline still fires exactly once, never early, and a stale task does nothing."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import services
from games.handstate import load_state
from games.models import Action, Hand, Seat
from games.services.deadlines import DeadlineRun
from games.services.hands import table_act
from shengji.engine import legal_actions
from tests.games.helpers import deal_and_close, fresh, make_table, make_users, seat_all


def move(hand: Hand, users: list[User]) -> None:
    """The seat in turn makes its first legal action through the socket's service."""
    hand = fresh(hand)
    state = load_state(hand)
    seat = state.to_act
    assert seat is not None
    kind, _seat, cards = str(legal_actions(state, seat)[0]).split(" ", 2)
    table_act(table_id=hand.match.table_id, user=users[seat], kind=kind, cards=cards, seq=hand.seq)


def a_burying_hand() -> tuple[Hand, list[User]]:
    users = make_users()
    hand = deal_and_close(seat_all(make_table(users[0]), users))
    assert load_state(hand).phase == "burying"
    return hand, users


def due_now(hand: Hand) -> str:
    """Make the timer in flight due (and the deadline not): its task runs now."""
    past = services.db_now() - timedelta(seconds=1)
    Hand.objects.filter(pk=hand.pk).update(timer_at=past)
    return past.isoformat()


@pytest.mark.django_db
def test_a_players_move_keeps_the_timer_in_flight() -> None:
    hand, users = a_burying_hand()
    assert (hand.timer_seq, hand.timer_at) == (hand.seq, hand.deadline)
    timer = (hand.timer_seq, hand.timer_at)
    move(hand, users)  # the bury: the next deadline is later than the timer's
    after = fresh(hand)
    assert after.seq == hand.seq + 1
    assert after.deadline is not None and hand.deadline is not None
    assert after.deadline > hand.deadline
    assert (after.timer_seq, after.timer_at) == timer


@pytest.mark.django_db
def test_the_timer_sends_itself_again_when_the_deadline_moved_on() -> None:
    hand, users = a_burying_hand()
    timer_seq = hand.seq
    move(hand, users)
    due = due_now(hand)
    run = services.deadline_run(hand_id=hand.pk, seq=timer_seq, due=due)
    after = fresh(hand)
    assert run == DeadlineRun("rearmed", after.seq)
    assert (after.timer_seq, after.timer_at) == (after.seq, after.deadline)
    assert not Action.objects.filter(hand=hand, auto=True).exists()
    # The same delivery again is no longer the timer: it neither moves nor sends anything.
    again = services.deadline_run(hand_id=hand.pk, seq=timer_seq, due=due)
    assert again.outcome == "no-op"
    assert (fresh(after).timer_seq, fresh(after).timer_at) == (after.seq, after.deadline)


@pytest.mark.django_db
def test_the_timer_sends_itself_again_in_one_statement() -> None:
    hand, users = a_burying_hand()
    timer_seq = hand.seq
    move(hand, users)
    due = due_now(hand)
    with CaptureQueriesContext(connection) as queries:
        run = services.deadline_run(hand_id=hand.pk, seq=timer_seq, due=due)
    assert run.outcome == "rearmed"
    assert [q["sql"].split()[0] for q in queries.captured_queries] == ["UPDATE"]


@pytest.mark.django_db
def test_a_timer_that_comes_early_sends_itself_again_for_the_same_deadline() -> None:
    hand, _users = a_burying_hand()
    assert hand.deadline is not None and hand.deadline > services.db_now()
    run = services.deadline_run(hand_id=hand.pk, seq=hand.seq, due=hand.deadline.isoformat())
    after = fresh(hand)
    assert run == DeadlineRun("rearmed", hand.seq)
    assert (after.seq, after.timer_seq, after.timer_at) == (hand.seq, hand.seq, hand.deadline)
    assert not Action.objects.filter(hand=hand, auto=True).exists()


@pytest.mark.django_db
def test_a_timer_task_for_another_due_time_does_not_send_itself_again() -> None:
    hand, users = a_burying_hand()
    timer_seq = hand.seq
    move(hand, users)
    due_now(hand)
    other = (services.db_now() - timedelta(seconds=5)).isoformat()  # a lost task's, resent
    run = services.deadline_run(hand_id=hand.pk, seq=timer_seq, due=other)
    assert run.outcome == "no-op"
    assert fresh(hand).timer_seq == timer_seq  # the timer in flight is still the one


@pytest.mark.django_db
def test_the_timer_moves_the_hand_once_when_the_deadline_has_passed() -> None:
    hand, users = a_burying_hand()
    timer_seq = hand.seq
    move(hand, users)
    seq = fresh(hand).seq
    due = due_now(hand)
    Hand.objects.filter(pk=hand.pk).update(deadline=services.db_now() - timedelta(seconds=1))
    assert services.deadline_run(hand_id=hand.pk, seq=timer_seq, due=due) == (
        DeadlineRun("moved", seq)
    )
    assert services.deadline_run(hand_id=hand.pk, seq=timer_seq, due=due).outcome == "no-op"
    assert services.deadline_run(hand_id=hand.pk, seq=seq).outcome == "no-op"  # the sweeper's
    auto = list(Action.objects.filter(hand=hand, auto=True))
    assert [(a.seq, a.text.split()[0]) for a in auto] == [(seq, "play")]
    after = fresh(hand)
    assert after.seq == seq + 1
    assert (after.timer_seq, after.timer_at) == (after.seq, after.deadline)  # a new timer


@pytest.mark.django_db
def test_a_task_neither_of_the_hand_now_nor_its_timer_does_nothing() -> None:
    hand, users = a_burying_hand()
    first = hand.seq
    move(hand, users)
    move(hand, users)
    Hand.objects.filter(pk=hand.pk).update(deadline=services.db_now() - timedelta(seconds=1))
    Hand.objects.filter(pk=hand.pk).update(timer_seq=first)
    stale = first + 1  # the bury's seq: no task speaks for it any more
    assert services.deadline_run(hand_id=hand.pk, seq=stale).outcome == "no-op"
    assert not Action.objects.filter(hand=hand, auto=True).exists()
    assert fresh(hand).seq == first + 2


@pytest.mark.django_db
def test_a_bots_earlier_deadline_sends_a_task_of_its_own() -> None:
    hand, users = a_burying_hand()
    state = load_state(hand)
    bot_seat = (state.dealer + 1) % 4 if state.dealer is not None else 1
    Seat.objects.filter(table_id=hand.match.table_id, index=bot_seat).update(bot=True)
    move(hand, users)  # the dealer buries
    move(hand, users)  # and leads: the bot's turn, due in SHENGJI_BOT_DELAY_MS
    after = fresh(hand)
    assert load_state(after).to_act == bot_seat
    assert (after.timer_seq, after.timer_at) == (after.seq, after.deadline)


@pytest.mark.django_db(transaction=True)
def test_a_deadline_moved_by_a_move_fires_at_the_new_time_on_a_real_worker(
    celery_worker: object,
) -> None:
    users = make_users()
    table = make_table(users[0], bury_seconds=3, play_seconds=3)
    hand = seat_all(table, users)
    waited = time.monotonic() + 20
    while load_state(fresh(hand)).phase != "burying":
        assert time.monotonic() < waited, "the deal did not finish"
        time.sleep(0.05)
    time.sleep(1.5)
    move(hand, users)  # the bury, 1.5 s into its 3 s: the lead is due 3 s from now
    moved = fresh(hand)
    assert moved.timer_seq == moved.seq - 1  # the bury's task stays in flight
    waited = time.monotonic() + 20
    while not Action.objects.filter(hand=hand, auto=True).exists():
        assert time.monotonic() < waited, "the moved deadline never fired"
        time.sleep(0.05)
    time.sleep(0.5)  # a second firing would show by now
    auto = list(Action.objects.filter(hand=hand, auto=True))
    assert len(auto) == 1 and auto[0].seq == moved.seq
    assert moved.deadline is not None
    assert auto[0].created_at >= moved.deadline - timedelta(milliseconds=50)  # not early
