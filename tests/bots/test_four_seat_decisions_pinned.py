"""At four seats and two decks the bots decide exactly as before they learnt bigger tables and
找朋友: whole hands played by the same bots give the same action log (pinned by digest, taken
from the four-seat-only code)."""

from __future__ import annotations

import hashlib

import pytest

from shengji.bots import HandStats, SearchBudget, make_bot, play_hand
from shengji.bots.match import deal_hand
from shengji.engine.rules import preset

SEED = 77
SEARCH_BUDGET = SearchBudget(max_samples=3, max_ms=None)


def digest(bot: str, rules_name: str, index: int) -> str:
    """The first 16 hex digits of the SHA-256 of the hand's whole action log."""
    state = deal_hand(preset(rules_name), SEED, index)
    bots = [make_bot(bot, seat, SEARCH_BUDGET) for seat in range(4)]
    play_hand(state, bots, HandStats())
    text = "\n".join(str(a) for a in state.actions)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


PINNED = [
    ("basic", "ranked", 0, "f02a37998dba78ab"),
    ("basic", "ranked", 1, "a79916766c8dee6a"),
    ("basic", "ranked", 2, "ff979b6ed64ea7eb"),
    ("basic", "ranked", 3, "d60195dc25368e81"),
    ("basic", "ranked", 4, "aaa36972341798d1"),
    ("basic", "ranked", 5, "e559d9d8f0b7c43b"),
    ("basic", "seed003", 0, "aabcefec1e4ba67d"),
    ("basic", "seed003", 1, "eab413656bbf4ab7"),
    ("random", "ranked", 0, "933f76df039a6300"),
    ("random", "ranked", 1, "088be38e1710d991"),
    ("search", "ranked", 0, "9fc4422a0a145c81"),
    ("search", "ranked", 1, "dc4aa387690e8539"),
]


@pytest.mark.parametrize(("bot", "rules_name", "index", "expected"), PINNED)
def test_four_seat_hands_play_exactly_as_before_the_n_seat_bots(
    bot: str, rules_name: str, index: int, expected: str
) -> None:
    assert digest(bot, rules_name, index) == expected
