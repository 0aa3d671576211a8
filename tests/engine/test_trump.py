"""Trump context and card order.

RULES-SPEC.md §2; seed 000 §1.9.3, seed 002 牌的大小, seed 003 牌的大小顺序.
"""

from __future__ import annotations

import pickle
from itertools import pairwise

import pytest

from shengji.engine import (
    Card,
    InvalidTrumpError,
    Trump,
    card_order,
    parse_cards,
    sort_cards,
    suit_group,
)


def _strictly_descending(text: str, trump: Trump) -> bool:
    strengths = [trump.strengths[c] for c in parse_cards(text)]
    return all(a > b for a, b in pairwise(strengths))


@pytest.mark.parametrize(
    ("level", "suit", "high_to_low"),
    [
        # seed 003, level 10, trump hearts: 大王，小王，主10，副10，A，K，Q，J，9 ... 2
        ("T", "H", "BJ SJ TH TS AH KH QH JH 9H 8H 7H 6H 5H 4H 3H 2H AS KS"),
        # seed 000 §1.9.3 single order, level 5 trump spades: 主级牌 > 副级牌 > 主花色 A..2
        ("5", "S", "BJ SJ 5S 5D AS KS QS JS TS 9S 8S 7S 6S 4S 3S 2S"),
        # seed 002: 主花色级牌 > 其它花色级 > 主花色 A .. 2
        ("2", "D", "BJ SJ 2D 2C AD KD 3D"),
        # RULES-SPEC.md §2 no-trump: BJ > SJ > the four level cards
        ("7", None, "BJ SJ 7C AS"),
        ("A", "C", "BJ SJ AC AH KC 2C"),
    ],
)
def test_trump_order(level: str, suit: str | None, high_to_low: str) -> None:
    assert _strictly_descending(high_to_low, Trump(level, suit))


@pytest.mark.parametrize(
    ("level", "suit", "off_suit_high_to_low"),
    [
        # seed 003 副牌: A，K，Q，J，9 ... 2 (the level rank left out)
        ("T", "H", "AS KS QS JS 9S 8S 7S 6S 5S 4S 3S 2S"),
        ("T", "H", "AD KD QD JD 9D 8D 7D 6D 5D 4D 3D 2D"),
        ("2", None, "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C"),
    ],
)
def test_off_suit_order_skips_the_level_rank(
    level: str, suit: str | None, off_suit_high_to_low: str
) -> None:
    trump = Trump(level, suit)
    orders = [card_order(c, trump) for c in parse_cards(off_suit_high_to_low)]
    assert orders == list(range(11, -1, -1))


@pytest.mark.parametrize(
    ("level", "suit", "equal"),
    [
        ("T", "H", "TS TC TD"),  # 副级牌 equal to each other
        ("5", None, "5S 5H 5C 5D"),  # no-trump: all four level cards equal
    ],
)
def test_level_cards_of_equal_order(level: str, suit: str | None, equal: str) -> None:
    trump = Trump(level, suit)
    assert len({card_order(c, trump) for c in parse_cards(equal)}) == 1


@pytest.mark.parametrize(
    ("level", "suit", "text", "group"),
    [
        ("T", "H", "BJ", "trump"),
        ("T", "H", "SJ", "trump"),
        ("T", "H", "TS", "trump"),
        ("T", "H", "2H", "trump"),
        ("T", "H", "AS", "S"),
        ("T", "H", "KD", "D"),
        ("5", None, "AH", "H"),
        ("5", None, "5H", "trump"),
        ("5", None, "BJ", "trump"),
    ],
)
def test_suit_group(level: str, suit: str | None, text: str, group: str) -> None:
    assert suit_group(Card(text), Trump(level, suit)) == group


def test_trump_objects_are_cached_and_paste_back() -> None:
    assert Trump("T", "H") is Trump("t", "h")
    assert Trump("2", None) is Trump("2")
    assert repr(Trump("T", "H")) == "Trump('T', 'H')"
    assert eval(repr(Trump("5", None))) is Trump("5", None)
    assert pickle.loads(pickle.dumps(Trump("Q", "S"))) is Trump("Q", "S")
    assert Trump("2", None).no_trump and not Trump("2", "S").no_trump


@pytest.mark.parametrize(("level", "suit"), [("1", "H"), ("10", "H"), ("T", "X"), ("T", "SJ")])
def test_invalid_trump(level: str, suit: str) -> None:
    with pytest.raises(InvalidTrumpError) as caught:
        Trump(level, suit)
    assert caught.value.code == "invalid_trump"


def test_sort_cards_trumps_first_then_suits() -> None:
    trump = Trump("T", "H")
    shown = sort_cards(parse_cards("2S TS AH BJ 3D TH KS 2H"), trump)
    assert " ".join(map(str, shown)) == "BJ TH TS AH 2H KS 2S 3D"
