"""Pairs, tractors and splits.

RULES-SPEC.md §3; seed 000 §1.9.1, seed 003 拖拉机的构成, seed 004 §14.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.engine import (
    IllegalPlayError,
    Shape,
    Trump,
    is_pair,
    is_tractor,
    parse_cards,
    shape_key,
    shape_of,
    shape_splits,
    split_cards,
)
from tests.engine.helpers import deal, group_cards, random_trump

TRACTORS = [
    # RULES-SPEC.md §3, level 5 trump H
    ("5", "H", "4S4S6S6S"),
    ("5", "H", "5S5S5H5H"),
    ("5", "H", "AHAH5S5S"),
    ("5", "H", "5H5H SJSJ BJBJ"),
    # RULES-SPEC.md §3 and seed 003 (打 10), level T trump H
    ("T", "H", "KSKSQSQS"),
    ("T", "H", "JSJS9S9S"),
    ("T", "H", "5S5S4S4S3S3S"),
    ("T", "H", "SJSJ THTH"),  # 一对小王带一对主 10
    ("T", "H", "THTH TSTS"),  # 一对主 10 带一对副 10
    ("T", "H", "TSTS AHAH"),  # 一对副 10 带一对主牌 A
    ("T", "H", "THTH TSTS AHAH"),  # 一对主 10 带一对副 10 及一对主牌 A
    ("T", "H", "TDTD AHAH KHKH"),
    # RULES-SPEC.md §3 and seed 004 §14, level 3: 4422 is a tractor
    ("3", "H", "4S4S2S2S"),
    ("3", "S", "4S4S2S2S"),
    # seed 004 §14 a-e, level 3 trump H
    ("3", "H", "BJBJ SJSJ"),
    ("3", "H", "SJSJ 3H3H"),
    ("3", "H", "3H3H 3S3S"),
    ("3", "H", "3S3S AHAH"),
    ("3", "H", "AHAH KHKH"),
    ("3", "H", "ASAS KSKS"),
    # seed 000 §1.9.1: 打5时 4466、副5副5正5正5、AA副5副5; 打无主时 小王小王大王大王、22小王小王
    ("5", "D", "4C4C6C6C"),
    ("5", "D", "5C5C5D5D"),
    ("5", "D", "ADAD5S5S"),
    ("2", None, "SJSJ BJBJ"),
    ("2", None, "2S2S SJSJ"),
    # seed 002: 6 是级牌时，同花色的 5577 可以组成拖拉机
    ("6", "S", "5H5H7H7H"),
    ("6", "H", "5H5H7H7H"),
    # longer runs through the level cards
    ("T", "H", "BJBJ SJSJ THTH TCTC AHAH KHKH"),
    ("2", None, "BJBJ SJSJ 2D2D"),
    ("A", "S", "KSKS QSQS"),
    ("A", "S", "ACAC KSKS"),
]

NOT_TRACTORS = [
    # RULES-SPEC.md §3 and seed 003: 554，544，5533，JJQ，两对副 10，JJ1010，AA22
    ("T", "H", "5S5S4S"),
    ("T", "H", "5S4S4S"),
    ("T", "H", "5S5S3S3S"),
    ("T", "H", "JSJSQS"),
    ("T", "H", "TSTS TCTC"),
    ("T", "H", "JSJS TSTS"),
    ("T", "H", "ASAS2S2S"),
    # seed 004 §14, level 3: 4433 and 3322 are not tractors
    ("3", "H", "4S4S3S3S"),
    ("3", "H", "3S3S2S2S"),
    ("3", "S", "4S4S3S3S"),
    # RULES-SPEC.md §3 no-trump, level 2
    ("2", None, "2S2S 2H2H"),
    ("2", None, "2S2S 2H2H SJSJ"),
    # a single pair, unpaired cards, mixed groups, gaps
    ("T", "H", "ASAS"),
    ("T", "H", "ASKSASKS QS"),
    ("T", "H", "ASAS KSQS"),
    ("T", "H", "ASAS KHKH"),
    ("T", "H", "AHAH THTH"),
    ("T", "H", "SJSJ TSTS"),
    ("T", "H", "BJBJ THTH"),
    ("5", "H", "4H4H6H6H 5S5S"),
    ("5", "H", "ASAS KSKS KSKS"),
]


@pytest.mark.parametrize(("level", "suit", "text"), TRACTORS)
def test_tractor(level: str, suit: str | None, text: str) -> None:
    assert is_tractor(parse_cards(text), Trump(level, suit))


@pytest.mark.parametrize(("level", "suit", "text"), NOT_TRACTORS)
def test_not_tractor(level: str, suit: str | None, text: str) -> None:
    assert not is_tractor(parse_cards(text), Trump(level, suit))


@pytest.mark.parametrize(
    ("text", "pair"),
    [("ASAS", True), ("SJSJ", True), ("BJBJ", True), ("AS KS", False), ("5S 5C", False)],
)
def test_pair(text: str, pair: bool) -> None:
    # RULES-SPEC.md §3: 5S 5C with level 5 is not a pair, though equal in order.
    assert is_pair(parse_cards(text)) is pair


@pytest.mark.parametrize(
    ("level", "suit", "throw", "split"),
    [
        # seed 003 甩牌: AAK，AKK，AQQJJ，98844
        ("T", "H", "AS AS KS", "ASAS KS"),
        ("T", "H", "AS KS KS", "KSKS AS"),
        ("T", "H", "AS QS QS JS JS", "QSQSJSJS AS"),
        ("T", "H", "9S 8S8S 4S4S", "8S8S 4S4S 9S"),
        # seed 004 §15 灑牌: 梅876、紅心66553、方塊996、黑桃8833
        ("2", "S", "8C 7C 6C", "8C 7C 6C"),
        ("2", "S", "6H6H5H5H3H", "6H6H5H5H 3H"),
        ("2", "S", "9D9D6D", "9D9D 6D"),
        ("2", "S", "8S8S3S3S", "8S8S 3S3S"),
        # tractors longest first, then pairs, then singles
        ("T", "H", "5S5S4S4S KSKSQSQSJSJS AS", "KSKSQSQSJSJS 5S5S4S4S AS"),
        ("T", "H", "ASAS 5S5S4S4S", "5S5S4S4S ASAS"),
        # only one off-suit level pair per tractor; the other stays a pair
        ("T", "H", "THTH TSTS TCTC AHAH", "THTHTSTSAHAH TCTC"),
        ("T", "H", "TSTS TCTC", "TSTS TCTC"),
        ("2", None, "2S2S 2H2H SJSJ", "SJSJ2S2S 2H2H"),
    ],
)
def test_lead_split(level: str, suit: str | None, throw: str, split: str) -> None:
    assert str(split_cards(parse_cards(throw), Trump(level, suit))) == split


def test_split_of_mixed_cards_is_refused() -> None:
    with pytest.raises(IllegalPlayError) as caught:
        split_cards(parse_cards("AS AH"), Trump("T", "C"))
    assert caught.value.code == "lead_mixed_suits"


@pytest.mark.parametrize(
    ("play", "shape", "splits"),
    [
        # RULES-SPEC.md §4: a pair may serve as two singles
        ("9H 7H7H", Shape((), 0, 3), {"9H 7H 7H"}),
        ("9H 7H7H", Shape((), 1, 1), {"7H7H 9H"}),
        # a longer tractor as a shorter tractor plus pairs
        ("9H9H8H8H7H7H", Shape((2,), 1, 0), {"9H9H8H8H 7H7H", "8H8H7H7H 9H9H"}),
        # seed 003: 998872 splits as a tractor and two singles, not as a tractor and a pair
        ("9H9H8H8H7H2H", Shape((2,), 0, 2), {"9H9H8H8H 7H 2H"}),
        ("9H9H8H8H7H2H", Shape((2,), 1, 0), set()),
    ],
)
def test_shape_splits(play: str, shape: Shape, splits: set[str]) -> None:
    trump = Trump("T", "H")
    assert {str(s) for s in shape_splits(parse_cards(play), shape, trump)} == splits


def test_shape_splits_uses_each_off_suit_level_pair_once() -> None:
    trump = Trump("T", "H")
    play = parse_cards("THTH TSTS TCTC AHAH")
    found = {str(s) for s in shape_splits(play, Shape((2, 2), 0, 0), trump)}
    assert found == {"THTHTSTS TCTCAHAH", "THTHTCTC TSTSAHAH"}
    assert shape_key(play, Shape((3,), 1, 0), trump) == trump.orders[parse_cards("TH")[0]]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32), st.integers(1, 12))
def test_split_reassembles_the_cards(seed: int, size: int) -> None:
    rng = random.Random(seed)
    trump = random_trump(rng)
    hand = deal(seed)[0]
    group = rng.choice(sorted({trump.groups[c] for c in hand}))
    suit = group_cards(hand, group, trump)
    chosen = rng.sample(suit, min(size, len(suit)))
    split = split_cards(chosen, trump)
    assert sorted(split.cards()) == sorted(chosen)
    assert split.shape == shape_of(chosen, trump)
    assert split.shape.size == len(chosen)
    assert all(is_tractor(t, trump) for t in split.tractors)
    assert all(is_pair(p) for p in split.pairs)
    for other in shape_splits(chosen, split.shape, trump):
        assert sorted(other.cards()) == sorted(chosen)
        assert other.shape == split.shape
