"""What a process learns from the messages of changes it did not make (games/services/
movefacts.py), and the hand's last play by the one statement (games/services/optimistic.py).

A deal is made by the worker, so the process holding the players' sockets has not seen it:
the messages of the deal's changes carry their facts and logged actions, and the bury that
follows takes the one statement as a play does. Real PostgreSQL and Redis; these tests commit.
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from accounts.models import User
from games import asyncdb, services
from games.handstate import action_texts, forget_states, kept_state, record_for, remember_state
from games.models import Hand, Table
from games.realtime import table_group
from games.services.hands import table_act
from games.services.movefacts import forget_facts, known_facts, remember_facts
from games.services.wrap_up import hand_wrap_up
from shengji.engine import replay_final, view_for
from shengji.engine.hand import BURYING
from tests.games.helpers import (
    deal_and_close,
    fresh,
    hand_act,
    make_table,
    make_users,
    seat_all,
    statement_move,
)
from tests.games.test_optimistic_move import first_legal, locking_move, log_of, mover

pytestmark = pytest.mark.django_db(transaction=True)


def started() -> tuple[Table, list[User], Hand]:
    users = make_users()
    table = make_table(users[0])
    return table, users, seat_all(table, users)


async def messages_of(table: Table, change: Any, *args: Any) -> list[dict[str, Any]]:
    """Every hand message the table's group is sent while ``change(*args)`` runs."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(table_group(table.pk), channel)
    try:
        await database_sync_to_async(change)(*args)
        hand = await database_sync_to_async(fresh)(*args)
        heard: list[dict[str, Any]] = []
        while not heard or heard[-1]["seq"] < hand.seq:
            message = await layer.receive(channel)
            if message["type"] == "hand.view":
                heard.append(message)
        return heard
    finally:
        await layer.group_discard(table_group(table.pk), channel)


def replayed_views(hand: Hand) -> list[dict[str, Any]]:
    hand = fresh(hand)
    state = replay_final(record_for(hand, action_texts(hand)), check_result=False)
    return [view_for(state, seat) for seat in range(4)]


def by_statement(table: Table, user: User, kind: str, cards: str, seq: int) -> bool:
    """The move as a socket makes it first; each call has a loop of its own, whose
    connections are closed after it (a test makes a whole hand's moves)."""
    try:
        return bool(
            async_to_sync(statement_move)(
                table_id=table.pk, mover=mover(user), kind=kind, cards=cards, seq=seq
            )
        )
    finally:
        asyncdb.drop_all()


def bury_by_statement(table: Table, users: list[User], hand: Hand) -> bool:
    seat, kind, cards, seq = first_legal(hand)
    assert kind == "bury"
    return by_statement(table, users[seat], kind, cards, seq)


def test_the_deals_messages_carry_this_process_from_the_hands_start_to_the_bury() -> None:
    """The process that started the hand keeps its state; the deal's changes, made
    elsewhere, move that state on from their messages alone, and the bury goes by the
    statement."""
    table, users, hand = started()
    start = kept_state(hand.pk, fresh(hand).seq)
    assert start is not None
    messages = async_to_sync(messages_of)(table, deal_and_close, hand)
    # As the server process holding the sockets stands: it saw the start, nothing since.
    forget_states()
    forget_facts()
    remember_state(hand.pk, start)

    for message in messages:
        assert services.learn_change(table.pk, message) is None  # nothing to read
    hand = fresh(hand)
    facts = known_facts(table.pk)
    assert facts is not None and (facts.hand_id, facts.seq) == (hand.pk, hand.seq)
    assert facts.seats_rev == hand.seats_rev
    assert facts.occupants == tuple(user.pk for user in users)
    kept = kept_state(hand.pk, hand.seq)
    assert kept is not None and kept.phase == BURYING
    assert [view_for(kept, seat) for seat in range(4)] == replayed_views(hand)

    log = log_of(hand)
    assert bury_by_statement(table, users, hand)
    assert len(log_of(hand)) == len(log) + 1
    assert fresh(hand).seq == hand.seq + 1


def test_a_process_that_saw_nothing_reads_the_state_once_before_the_bury() -> None:
    """No state kept at any change's ``prev`` (another process started the hand): the
    message that leaves a player to bury asks for one read, made before the bury comes."""
    table, users, hand = started()
    messages = async_to_sync(messages_of)(table, deal_and_close, hand)
    forget_states()
    forget_facts()

    wanted = [services.learn_change(table.pk, message) for message in messages]
    hand = fresh(hand)
    assert wanted[:-1] == [None] * (len(wanted) - 1)  # the deal: nobody moves by the statement
    assert wanted[-1] == (hand.pk, hand.seq)
    assert kept_state(hand.pk, hand.seq) is None
    services.warm_state(hand_id=hand.pk, seq=hand.seq)
    kept = kept_state(hand.pk, hand.seq)
    assert kept is not None
    assert [view_for(kept, seat) for seat in range(4)] == replayed_views(hand)
    assert bury_by_statement(table, users, hand)


def test_a_late_message_teaches_nothing_and_stale_facts_only_cost_a_fallback() -> None:
    """A message older than what the process knows changes nothing; facts learnt before a
    seat changed send the move down the locking path, which makes it."""
    table, users, hand = started()
    messages = async_to_sync(messages_of)(table, deal_and_close, hand)
    for message in messages:
        services.learn_change(table.pk, message)
    hand = fresh(hand)
    known = known_facts(table.pk)
    assert known is not None and known.seq == hand.seq
    assert services.learn_change(table.pk, messages[0]) is None
    assert known_facts(table.pk) == known

    burier = first_legal(hand)[0]
    another = users[(burier + 1) % 4]
    services.seat_autopilot(table_id=table.pk, user=another, on=True)
    services.seat_autopilot(table_id=table.pk, user=another, on=False)
    log = log_of(hand)
    assert fresh(hand).seats_rev != known.seats_rev
    assert not bury_by_statement(table, users, hand)  # the seats moved on: nothing written
    assert log_of(hand) == log
    seat, kind, cards, seq = first_legal(hand)
    table_act(table_id=table.pk, user=users[seat], kind=kind, cards=cards, seq=seq)
    assert len(log_of(hand)) == len(log) + 1


def test_the_hands_last_play_by_the_statement_ends_it_as_the_locking_path_does() -> None:
    """Every play by the statement, the last one too: the hand row holds the result the log
    replays to, it waits for its wrap-up, and the wrap-up then settles it."""
    table, users, hand = started()
    hand = deal_and_close(hand)
    locking_move(table, users, hand)  # the bury
    while fresh(hand).status == Hand.Status.PLAYING:
        seat, kind, cards, seq = first_legal(hand)
        assert by_statement(table, users[seat], kind, cards, seq)
    hand = fresh(hand)
    assert hand.status == Hand.Status.FINISHED
    assert hand.awaiting_wrap_up
    assert hand.finished_at is not None
    assert (hand.deadline, hand.timer_seq, hand.timer_at) == (None, None, None)
    replayed = replay_final(record_for(hand, action_texts(hand)), check_result=False)
    assert replayed.result is not None
    assert hand.result == replayed.result.to_dict()
    assert hand.snapshot is not None and hand.snapshot["deadline"] is None
    assert hand.snapshot["phase"] == replayed.phase

    assert hand_wrap_up(hand_id=hand.pk)
    assert not fresh(hand).awaiting_wrap_up
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN


def ends_the_hand(hand: Hand) -> bool:
    """Whether the first legal action of the seat in turn is the hand's last."""
    seat, kind, cards, seq = first_legal(hand)
    state = kept_state(hand.pk, seq)
    assert state is not None
    state.apply(f"{kind} {seat} {cards}", seat)
    return state.result is not None


def test_a_last_play_losing_its_race_writes_nothing() -> None:
    """Another process made the last play first: this one's statement, a seq behind, finds
    the hand ended and writes nothing (no second result, no second action)."""
    table, users, hand = started()
    hand = deal_and_close(hand)
    locking_move(table, users, hand)  # the bury
    while not ends_the_hand(hand):
        locking_move(table, users, hand)
    seat, kind, cards, seq = first_legal(hand)
    behind, facts = kept_state(hand.pk, seq), known_facts(table.pk)
    assert behind is not None and facts is not None and facts.seq == seq
    hand_act(hand_id=hand.pk, user=users[seat], text=f"{kind} {seat} {cards}", seq=seq)
    remember_state(hand.pk, behind)  # as the other process left this one: a seq behind
    remember_facts(table.pk, facts)
    ended, log = fresh(hand), log_of(hand)
    assert ended.status == Hand.Status.FINISHED

    assert not by_statement(table, users[seat], kind, cards, seq)
    assert log_of(hand) == log
    after = fresh(hand)
    assert (after.seq, after.result, after.finished_at) == (
        ended.seq,
        ended.result,
        ended.finished_at,
    )
