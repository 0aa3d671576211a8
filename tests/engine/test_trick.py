"""Trick winner (RULES-SPEC.md §4 Winner; seed 000 §1.9.3, seed 002 牌的大小, seed 003 毙 /
盖毙)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.engine import Trump, is_discard, legal_follow, parse_cards, trick_winner
from tests.engine.helpers import (
    deal,
    random_lead,
    random_trump,
    reference_trick_winner,
    rich_trick,
)

T_H = ("T", "H")

WINNERS = [
    # (level, suit, plays from the leader, winner index)
    # RULES-SPEC.md §4 / seed 003 (打 10, trump hearts, lead in spades)
    (*T_H, ["AS KS 5S5S4S4S", "9H9H8H8H 7H 2H"], 1),  # 998872 可毙 AK5544
    (*T_H, ["ASAS 5S5S4S4S", "9H9H8H8H7H2H"], 0),  # 998872 不能毙 AA5544
    (*T_H, ["5S 4S4S", "9H 7H7H"], 1),  # 977 可毙 544
    (*T_H, ["5S 4S4S", "9H 7H7H", "8H8H 4H"], 2),  # 884 可盖毙
    (*T_H, ["5S 6S 7S", "9H 7H7H"], 1),  # 977 可毙 567
    (*T_H, ["5S 6S 7S", "9H 7H7H", "8H8H 4H"], 1),  # 884 不能盖毙
    # singles: higher of the led suit; off-suits never win; trump beats; ties to the first
    (*T_H, ["5S", "9S", "AD", "8S"], 1),
    (*T_H, ["5S", "KS", "2H", "AS"], 2),
    (*T_H, ["5S", "TS", "TC", "TD"], 1),  # equal level cards: the first played wins
    (*T_H, ["5S", "TC", "TH", "SJ"], 3),
    (*T_H, ["AS", "AS", "KS", "QS"], 0),  # 先出者为大
    (*T_H, ["2H", "AH", "TD", "TH"], 3),  # trump lead: TH > TD > AH
    (*T_H, ["TS", "TC", "AH", "KH"], 0),
    ("5", None, ["5S", "5H", "AS", "SJ"], 3),
    ("5", None, ["AS", "5H", "BJ", "SJ"], 2),
    # pairs (seed 002: 若首家出包含对的付牌，其它方即使全部出了主牌，但没有对，也不能算大)
    (*T_H, ["7S7S", "2H 3H"], 0),
    (*T_H, ["7S7S", "2H2H"], 1),
    (*T_H, ["7S7S", "9S9S", "AS KS", "8S8S"], 1),
    (*T_H, ["7S7S", "9S9S", "2H2H", "3H3H"], 3),
    (*T_H, ["7S7S", "TSTS", "TCTC"], 1),  # off-suit level pairs tie: TS first
    (*T_H, ["7S7S", "TSTS", "THTH"], 2),
    # tractors: only a tractor of the same length wins, compared by its top card
    (*T_H, ["5S5S4S4S", "9S9S8S8S"], 1),
    (*T_H, ["5S5S4S4S", "9S9S7S7S"], 0),
    (*T_H, ["5S5S4S4S", "3H3H2H2H", "AHAH KHKH"], 2),
    (*T_H, ["5S5S4S4S", "SJSJ BJBJ", "THTH TSTS"], 1),
    (*T_H, ["5S5S4S4S", "THTH TSTS", "TCTC AHAH"], 1),
    (*T_H, ["5S5S4S4S", "TCTC AHAH", "TSTS AHAH"], 1),  # equal tops: the first
    (*T_H, ["5S5S4S4S", "THTH TSTS", "TCTC TDTD"], 1),  # TC TD pairs are no tractor
    # throws (seed 000 §1.9.3): compare the longest, highest tractor; else the highest pair;
    # else the highest single; the shape must match
    (*T_H, ["AS KS QS", "2H 3H 4H", "5H 5H 6H"], 2),
    (*T_H, ["ASAS KS", "2H2H 3H", "4H 5H 6H"], 1),
    (*T_H, ["ASAS KS", "2H2H 3H", "6H 4H4H"], 2),
    (*T_H, ["AS QSQS JSJS", "2H 3H3H4H4H", "AH 5H5H6H6H"], 2),
    (*T_H, ["AS QSQS JSJS", "2H 3H3H4H4H", "AH 5H5H 7H7H"], 1),
    (*T_H, ["ASAS QSQS", "2H2H 3H3H", "5H 6H 7H 8H"], 1),
    # a pair may serve as two singles; a tractor as a shorter tractor plus pairs
    (*T_H, ["AS KS QS 2S", "2H 3H 7H7H", "6H 5H 4H 3H"], 1),
    (*T_H, ["ASAS KSKS QSQS 9S9S", "2H2H3H3H4H4H5H5H"], 1),
    (*T_H, ["5S5S4S4S 9S9S", "8H8H7H7H6H6H", "2H2H QHQHJHJH"], 2),
    (*T_H, ["5S5S4S4S 9S9S", "8H8H7H7H6H6H", "AHAH 2H2H3H3H"], 1),  # the tractor is the key
    # no-trump
    ("2", None, ["SJSJ BJBJ", "2S2S 2H2H"], 0),
    ("2", None, ["3S3S", "2S2S", "2H2H", "SJSJ"], 3),
    ("2", None, ["3S3S4S4S", "2S2S SJSJ", "2D2D 2C2C"], 1),
]


@pytest.mark.parametrize(("level", "suit", "plays", "winner"), WINNERS)
def test_trick_winner(level: str, suit: str | None, plays: list[str], winner: int) -> None:
    trump = Trump(level, suit)
    parsed = [parse_cards(p) for p in plays]
    assert trick_winner(parsed, trump) == winner
    assert reference_trick_winner(parsed, trump) == winner


@pytest.mark.parametrize(
    ("lead", "play", "discard"),
    [
        ("5S 4S4S", "9H 7H7H", False),
        ("5S 4S4S", "9H 7H 6H", True),
        ("5S 4S4S", "9H 7H 6S", True),  # mixed: neither all spades nor all trump
        ("5S 4S4S", "9D 7D7D", True),  # another non-trump suit
        ("7S7S", "2H 3H", True),
        ("ASAS 5S5S4S4S", "9H9H8H8H7H2H", True),
    ],
)
def test_is_discard(lead: str, play: str, discard: bool) -> None:
    assert is_discard(parse_cards(play), parse_cards(lead), Trump("T", "H")) is discard


def _random_trick(seed: int) -> tuple[Trump, list[list[int]]]:
    rng = random.Random(seed)
    if rng.random() < 0.5:
        trump, lead, hands = rich_trick(seed)
    else:
        trump = random_trump(rng)
        dealt = deal(seed)
        lead, hands = random_lead(dealt[0], trump, rng), [list(h) for h in dealt[1:]]
    plays: list[list[int]] = [list(lead)]
    for hand in hands:
        plays.append(list(legal_follow(hand, lead, trump, rng)))
    return trump, plays


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_trick_winner_agrees_with_the_reference(seed: int) -> None:
    trump, plays = _random_trick(seed)
    assert trick_winner(plays, trump) == reference_trick_winner(plays, trump)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_the_winner_does_not_change_when_discards_change(seed: int) -> None:
    trump, plays = _random_trick(seed)
    winner = trick_winner(plays, trump)
    rng = random.Random(seed)
    lead = plays[0]
    for index in range(1, len(plays)):
        if index != winner and is_discard(plays[index], lead, trump):
            # another discard: cards of a suit group neither led nor trump, or a mix
            other = [c for c in range(54) if trump.groups[c] not in (trump.groups[lead[0]], 4)]
            if not other:
                continue
            changed = [list(p) for p in plays]
            changed[index] = rng.choices(other, k=len(lead))
            assert trick_winner(changed, trump) == winner


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_a_copy_of_the_winning_play_played_later_does_not_win(seed: int) -> None:
    trump, plays = _random_trick(seed)
    winner = trick_winner(plays, trump)
    assert trick_winner([*plays, plays[winner]], trump) == winner
