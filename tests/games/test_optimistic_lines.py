"""The one-statement move writes a play's system lines itself (games/services/optimistic.py):
in 找朋友 the calls shown at the first lead and each call filled, and a failed throw's line,
exactly as the locking path writes them, so these moves no longer fall back to it.

Real PostgreSQL: the statement runs on a connection of its own, so these tests commit."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync

from accounts.models import User
from games import asyncdb
from games.chat_words import NAMED_SEATS
from games.handstate import load_state
from games.models import ChatLine, Hand, Table
from games.services._common import SystemLine
from games.services._moves import before_change, play_lines
from games.services.hands import table_act
from shengji.bots import choose_action
from shengji.engine import HandState, format_cards, legal_actions, parse_cards, view_for
from shengji.engine.hand import PLAYING
from tests.games.helpers import (
    deal_and_close,
    fresh,
    make_table,
    make_users,
    seat_all,
    statement_move,
)
from tests.games.test_optimistic_move import mover

pytestmark = pytest.mark.django_db(transaction=True)

FRIEND_CODES = ("friends_called", "friend_joins", "call_spent")


def friends_table_at_the_first_lead() -> tuple[Table, list[User], Hand]:
    """Six players at a 找朋友 table (3 decks, 2 calls): dealt, the dealer's calls and bury
    made by the locking path (which leaves the facts the statement moves on)."""
    users = make_users(6, "saying")
    table = make_table(users[0], players=6, house_rules={"mode": "friends"}, stake=10)
    hand = deal_and_close(seat_all(table, users))
    while load_state(fresh(hand)).phase != PLAYING:
        hand = fresh(hand)
        state = load_state(hand)
        seat = state.to_act
        assert seat is not None
        text = choose_action(view_for(state, seat), state.rules)
        assert text is not None
        kind, _seat, cards = text.split(" ", 2)
        table_act(table_id=table.pk, user=users[seat], kind=kind, cards=cards, seq=hand.seq)
    return table, users, fresh(hand)


def by_statement(table: Table, users: list[User], hand: Hand, text: str) -> tuple[bool, list[Any]]:
    """``text`` ("play 3 AS") by the one statement; whether it took it, and the lines the
    locking path would have written for it."""
    state = load_state(fresh(hand))
    before = before_change(state)
    kind, seat, cards = text.split(" ", 2)
    after = state.copy()
    after.apply(after.check_action(int(seat), text), int(seat))
    expected = [named(line, users) for line in play_lines(after, before)]
    taken = async_to_sync(statement_move)(
        table_id=table.pk,
        mover=mover(users[int(seat)]),
        kind=kind,
        cards=cards,
        seq=fresh(hand).seq,
    )
    asyncdb.drop_all()  # each call ran on a loop of its own: its connection goes with it
    return taken, expected


def named(line: SystemLine, users: list[User]) -> SystemLine:
    """The line with its seat's player named, as the site writes it (docs/PROTOCOL.md)."""
    where = NAMED_SEATS.get(line.code)
    if where is None:
        return line
    return SystemLine(line.code, (*line.params, str(users[int(line.params[where[0]])])))


def said(table: Table) -> list[tuple[str, list[Any], str]]:
    rows = ChatLine.objects.filter(table=table, system=True, user=None).order_by("created_at", "pk")
    return [(row.code, row.params, row.text) for row in rows]


def test_a_friends_hand_played_by_the_statement_writes_every_call_and_reveal_line() -> None:
    table, users, hand = friends_table_at_the_first_lead()
    before_play = said(table)
    assert not [line for line in before_play if line[0] in FRIEND_CODES]  # hidden until the lead
    expected: list[tuple[str, list[Any], str]] = []
    moves = 0
    while fresh(hand).status == Hand.Status.PLAYING:
        state = load_state(fresh(hand))
        seat = state.to_act
        assert seat is not None
        text = choose_action(view_for(state, seat), state.rules)
        assert text is not None
        taken, lines = by_statement(table, users, hand, text)
        assert taken, f"{text} fell back to the locking path"
        expected += [(line.code, list(line.params), line.text) for line in lines]
        moves += 1
    result = fresh(hand).result
    assert result is not None
    filled = [c for c in result["calls"] if c["seat"] is not None]
    assert [code for code, _, _ in expected].count("friends_called") == 1
    joins = [line for line in expected if line[0] in ("friend_joins", "call_spent")]
    assert len(joins) == len(filled) >= 1  # the statement's moves met reveals
    assert said(table)[len(before_play) :] == expected
    assert moves > 30


def test_a_failed_throw_by_the_statement_writes_its_line() -> None:
    """A lead of several cards of one suit that another hand beats: the statement plays the
    forced part and writes ``throw_forced`` (or ``throw_back``) as the locking path would."""
    table, users, hand = friends_table_at_the_first_lead()
    for _ in range(300):
        state = load_state(fresh(hand))
        seat = state.to_act
        assert seat is not None and state.phase == PLAYING
        throw = failing_throw(state, seat)
        if throw is not None:
            taken, lines = by_statement(table, users, hand, throw)
            assert taken
            assert [line.code for line in lines][:1] in (["throw_forced"], ["throw_back"])
            written = said(table)[-len(lines) :]
            assert written == [(line.code, list(line.params), line.text) for line in lines]
            assert len(load_state(fresh(hand)).failed_throws) == len(state.failed_throws) + 1
            return
        text = str(legal_actions(state, seat)[0])
        assert by_statement(table, users, hand, text)[0]
    pytest.fail("no lead in the hand could throw and fail")


def failing_throw(state: HandState, seat: int) -> str | None:
    """A throw the seat could lead now that the other hands beat, if any."""
    if state.trick.plays:
        return None
    cards = state.hands[seat]
    trump = state.trump
    assert trump is not None
    by_suit: dict[int, list[int]] = {}
    for card in cards:
        if not trump.is_trump(card):
            by_suit.setdefault(trump.groups[card], []).append(card)
    for suit_cards in by_suit.values():
        singles = [c for c in suit_cards if suit_cards.count(c) == 1]
        if len(singles) < 2:
            continue
        text = f"play {seat} {format_cards(singles)}"
        trial = state.copy()
        before = len(trial.failed_throws)
        trial.apply(trial.check_action(seat, text), seat)
        if len(trial.failed_throws) > before:
            assert parse_cards(format_cards(singles)) == singles
            return text
    return None
