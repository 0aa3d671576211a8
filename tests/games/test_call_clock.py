"""找朋友's dealer has two steps, each with the table's bury time (docs/PROTOCOL.md, "Time"):
the calls, then the bury, whose clock starts with the first calls; changing the calls starts
nothing new. A player out of time at the calls step gets the bot's calls only (never a card of
their hand while another legal call exists) and keeps the bury's own clock; calls they sent
are kept when the bury runs out. A call of a held card is checked ok, with a warning
(ENGINE-PART2-DECISIONS.md F13). Both paths of a move (the locking one and the one-statement
one) give the same clocks."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.errors import ApplicationError
from accounts.models import User
from games import asyncdb, services
from games.handstate import load_state
from games.models import Action, ChatLine, Hand, Table
from games.services.deadlines import hand_advance
from games.services.hands import table_act
from shengji.engine import HandState, format_cards
from shengji.engine.friends import CALL_HELD, default_calls, format_calls
from shengji.engine.hand import BURYING, PLAYING
from shengji.engine.views import sample_bury
from tests.games.helpers import (
    deal_and_close,
    fresh,
    make_table,
    make_users,
    seat_all,
    statement_move,
)
from tests.games.test_optimistic_move import mover
from tests.games.test_table_socket import connect

pytestmark = pytest.mark.django_db(transaction=True)

BURY_S = 40
PLAY_S = 25


def six_at_the_calls(prefix: str) -> tuple[Table, list[User], Hand, int]:
    """Six players at a 找朋友 table, dealt and closed: the dealer is at the calls step."""
    users = make_users(6, prefix)
    table = make_table(
        users[0],
        players=6,
        house_rules={"mode": "friends"},
        stake=10,
        bury_seconds=BURY_S,
        play_seconds=PLAY_S,
    )
    hand = deal_and_close(seat_all(table, users))
    state = load_state(hand)
    assert state.phase == BURYING and not state.calls and state.dealer is not None
    return table, users, hand, state.dealer


def seconds_left(hand: Hand) -> float:
    deadline = fresh(hand).deadline
    assert deadline is not None
    return (deadline - services.db_now()).total_seconds()


def calls_of_state(state: HandState) -> str:
    assert state.trump is not None and state.dealer is not None
    rules = state.rules
    hand = state.hands[state.dealer]
    return format_calls(default_calls(hand, state.trump, state.decks, rules.friends))


def call(table: Table, user: User, hand: Hand, calls: str) -> None:
    table_act(table_id=table.pk, user=user, kind="call", cards=calls, seq=fresh(hand).seq)


def backdate(hand: Hand, prefix: str, seconds: float) -> None:
    """The hand's actions starting with ``prefix`` were logged ``seconds`` earlier."""
    rows = Action.objects.filter(hand=hand, text__startswith=prefix)
    for row in rows:
        Action.objects.filter(pk=row.pk).update(
            created_at=row.created_at - timedelta(seconds=seconds)
        )


def run_out_the_clock(hand: Hand) -> None:
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    hand = fresh(hand)
    assert hand_advance(hand_id=hand.pk, seq=hand.seq)


def test_the_calls_have_the_bury_time_and_the_first_calls_start_the_burys_own() -> None:
    table, users, hand, dealer = six_at_the_calls("clock")
    assert BURY_S - 2 < seconds_left(hand) <= BURY_S  # the calls step: the table's bury time
    backdate(hand, "close", 30)  # most of the calls step spent choosing
    call(table, users[dealer], hand, calls_of_state(load_state(fresh(hand))))
    assert BURY_S - 2 < seconds_left(hand) <= BURY_S  # a fresh clock for the bury


def test_changing_the_calls_starts_no_new_clock() -> None:
    table, users, hand, dealer = six_at_the_calls("again")
    state = load_state(hand)
    first = calls_of_state(state)
    call(table, users[dealer], hand, first)
    backdate(hand, "call ", 30)  # the calls were made 30 s ago
    changed = " ".join(reversed(first.split()))
    call(table, users[dealer], hand, changed)
    assert load_state(fresh(hand)).calls and seconds_left(hand) < BURY_S - 28
    # 托管 on then off gives no new clock either.
    services.seat_autopilot(table_id=table.pk, user=users[dealer], on=True)
    services.seat_autopilot(table_id=table.pk, user=users[dealer], on=False)
    assert 0 < seconds_left(hand) < BURY_S - 28


def test_the_calls_step_running_out_calls_for_the_dealer_and_the_bury_keeps_its_clock() -> None:
    table, users, hand, dealer = six_at_the_calls("late")
    held = list(load_state(hand).hands[dealer])
    run_out_the_clock(hand)
    state = load_state(fresh(hand))
    assert state.phase == BURYING and state.calls  # called, not buried
    assert not [c for c in state.calls if c.card in held]  # no card of the dealer's hand
    logged = Action.objects.filter(hand=hand).order_by("-seq").first()
    assert logged is not None and logged.auto and logged.text.startswith("call ")
    line = ChatLine.objects.get(table=table, code="timeout_call")
    assert line.params[0] == dealer
    for card in logged.text.split()[2:]:
        assert card not in line.text  # the calls stay hidden until the first lead
    assert BURY_S - 2 < seconds_left(hand) <= BURY_S
    # The dealer buries in their own time, under the calls the system made.
    assert state.trump is not None
    bury = format_cards(sample_bury(list(state.hands[dealer]), state.trump, state.kitty_size))
    table_act(table_id=table.pk, user=users[dealer], kind="bury", cards=bury, seq=fresh(hand).seq)
    assert load_state(fresh(hand)).phase == PLAYING
    assert not ChatLine.objects.filter(table=table, code="timeout_bury").exists()


def test_calls_the_dealer_sent_are_kept_when_the_bury_runs_out() -> None:
    table, users, hand, dealer = six_at_the_calls("kept")
    mine = calls_of_state(load_state(hand))
    call(table, users[dealer], hand, mine)
    run_out_the_clock(hand)
    state = load_state(fresh(hand))
    assert state.phase == PLAYING
    assert format_calls(state.calls) == mine
    assert ChatLine.objects.filter(table=table, code="timeout_bury").exists()
    assert not ChatLine.objects.filter(table=table, code="timeout_call").exists()


def test_a_bury_by_the_one_statement_after_the_calls_starts_the_play_clock() -> None:
    table, users, hand, dealer = six_at_the_calls("both")
    call(table, users[dealer], hand, calls_of_state(load_state(hand)))  # the locking path
    state = load_state(fresh(hand))
    assert state.trump is not None
    bury = format_cards(sample_bury(list(state.hands[dealer]), state.trump, state.kitty_size))
    taken = async_to_sync(statement_move)(
        table_id=table.pk, mover=mover(users[dealer]), kind="bury", cards=bury, seq=fresh(hand).seq
    )
    asyncdb.drop_all()
    assert taken, "the bury fell back to the locking path"
    assert load_state(fresh(hand)).phase == PLAYING
    assert PLAY_S - 2 < seconds_left(hand) <= PLAY_S


def held_and_free_calls(state: HandState) -> tuple[str, str, int]:
    """A call of a card the dealer holds (its first copy), one of cards it lacks, and the
    copies held of the first."""
    assert state.trump is not None and state.dealer is not None
    hand = state.hands[state.dealer]
    free = default_calls(hand, state.trump, state.decks, state.rules.friends)
    plain = [c for c in hand if not state.trump.is_trump(c)]
    # The fewest copies held: the others hold the rest, whatever the deal (every copy held is
    # `call_held_all`, pinned in tests/engine/test_friend_calls_default.py).
    card = min(plain, key=lambda c: (hand.count(c), c))
    assert hand.count(card) < state.decks
    held = f"1{format_cards([card])} " + " ".join(
        f"{c.ordinal}{format_cards([c.card])}" for c in free[1:]
    )
    return held, format_calls(free), hand.count(card)


def test_a_call_of_a_held_card_is_checked_ok_with_its_warning() -> None:
    _table, users, hand, dealer = six_at_the_calls("warn")
    state = load_state(hand)
    held, free, copies = held_and_free_calls(state)
    assert (
        services.hand_check(hand_id=hand.pk, user=users[dealer], text=f"call {dealer} {free}")
        is None
    )
    warning = services.hand_check(hand_id=hand.pk, user=users[dealer], text=f"call {dealer} {held}")
    assert warning is not None
    assert (warning.code, warning.call, warning.held) == (CALL_HELD, held.split()[0], copies)
    fewer = f"{copies + 1}{held.split()[0][1:]} " + " ".join(held.split()[1:])
    warning = services.hand_check(
        hand_id=hand.pk, user=users[dealer], text=f"call {dealer} {fewer}"
    )
    assert warning is not None and warning.code == CALL_HELD  # others hold the rest
    with pytest.raises(ApplicationError) as refused:
        services.hand_check(hand_id=hand.pk, user=users[dealer], text=f"call {dealer} 1SJ 1BJ")
    assert refused.value.code == "friend_joker"
    assert fresh(hand).seq == hand.seq  # a check changes nothing


async def test_the_socket_answers_a_held_cards_check_with_its_warning(settings: Any) -> None:
    settings.SHENGJI_SOCKET_BURST = 1000
    table, users, hand, dealer = await database_sync_to_async(six_at_the_calls)("sockwarn")
    state = await database_sync_to_async(load_state)(hand)
    held, free, copies = held_and_free_calls(state)
    boss = await connect(table.pk, users[dealer], "dealer")
    await boss.socket.send_json_to({"type": "check", "action": "call", "calls": held})
    checked = await boss.until(lambda f: f["type"] == "check")
    assert checked == {
        "type": "check",
        "ok": True,
        "warning": CALL_HELD,
        "call": held.split()[0],
        "held": copies,
    }
    await boss.socket.send_json_to({"type": "check", "action": "call", "calls": free})
    checked = await boss.until(lambda f: f["type"] == "check" and f is not checked)
    assert checked == {"type": "check", "ok": True}
    await boss.socket.disconnect()
