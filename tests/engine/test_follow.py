"""Following a lead (RULES-SPEC.md §4 Following; seed 000 §1.9.2, seed 002 跟牌, seed 003
出牌规则)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.engine import (
    Card,
    IllegalPlayError,
    Trump,
    check_follow,
    follow_error,
    legal_follow,
    parse_cards,
)
from tests.engine.helpers import (
    deal,
    general_follow_error,
    random_lead,
    random_play,
    random_trump,
    reference_follow_error,
    rich_trick,
    sub_multisets,
    suit_first_play,
)

T_H = ("T", "H")

CASES = [
    # (level, suit, hand, lead, play, expected reason)
    # count and hand
    (*T_H, "AS KS 3D", "2S 2S", "AS", "wrong_count"),
    (*T_H, "AS KS 3D", "2S", "AS KS", "wrong_count"),
    (*T_H, "AS KS 3D", "2S", "QS", "cards_not_in_hand"),
    (*T_H, "AS KS 3D", "2S 3S", "AS AS", "cards_not_in_hand"),
    # obligation 1: follow suit (seed 002 跟牌: 首家出了红桃，如果用户有红桃必须先出红桃)
    (*T_H, "AS KS 3D", "2S", "3D", "must_follow_suit"),
    (*T_H, "AS KS 3D", "2S", "KS", None),
    (*T_H, "AH KD 3D", "2S", "AH", None),  # void: ruff (毙) ...
    (*T_H, "AH KD 3D", "2S", "3D", None),  # ... or discard (垫)
    (*T_H, "AS 2H TC 3D", "5H", "TC", None),  # a level card is trump
    (*T_H, "AS 2H TC 3D", "5H", "AS", "must_follow_suit"),
    (*T_H, "AS 2H TC 3D", "TS", "2H", None),
    (*T_H, "9S 2S KH KH 3D", "5S5S4S4S", "9S 2S KH KH", None),
    (*T_H, "9S 2S KH KH 3D", "5S5S4S4S", "9S KH KH 3D", "must_follow_suit"),
    # a pair lead: pairs are owed, including a pair inside a tractor (seed 003)
    (*T_H, "7S 7S 9S 3D", "KS KS", "7S 9S", "must_follow_pair"),
    (*T_H, "7S 7S 9S 3D", "KS KS", "7S 7S", None),
    (*T_H, "7S7S8S8S 2D", "3S3S", "7S 8S", "must_follow_pair"),
    (*T_H, "7S7S8S8S 2D", "3S3S", "8S8S", None),
    (*T_H, "7S 8S 9S 2D 2D", "3S3S", "7S 8S", None),  # no pair of the suit: any two
    (*T_H, "7S 2D 2D", "3S3S", "7S 3D", "cards_not_in_hand"),
    (*T_H, "7S 2D 2D", "3S3S", "7S 2D", None),  # the other pair need not be used
    (*T_H, "TSTS TC 3D", "SJSJ", "TS TC", "must_follow_pair"),
    (*T_H, "TSTS TC 3D", "SJSJ", "TSTS", None),
    # a tractor lead (seed 000 §1.9.2: a tractor if held; else pairs, as many as it has)
    (*T_H, "8S8S7S7S QSQS 2S", "5S5S4S4S", "QSQS 8S8S", "must_follow_tractor"),
    (*T_H, "8S8S7S7S QSQS 2S", "5S5S4S4S", "8S8S7S7S", None),
    (*T_H, "KSKSQSQSJSJS 2S", "5S5S4S4S", "QSQSJSJS", None),  # part of a longer one
    (*T_H, "9S9S 6S6S 2S 3S", "5S5S4S4S", "9S9S 2S 3S", "must_follow_pair"),
    (*T_H, "9S9S 6S6S 2S 3S", "5S5S4S4S", "9S9S6S6S", None),
    (*T_H, "9S9S 2S 3S 7S", "5S5S4S4S", "2S 3S 7S 9S", "must_follow_pair"),
    (*T_H, "9S9S 2S 3S 7S", "5S5S4S4S", "9S9S 2S 3S", None),
    (*T_H, "THTH TCTC AHAH 2H 5D", "SJSJ BJBJ", "THTH AHAH", "must_follow_tractor"),
    (*T_H, "THTH TCTC AHAH 2H 5D", "SJSJ BJBJ", "THTH TCTC", None),
    (*T_H, "THTH TCTC AHAH 2H 5D", "SJSJ BJBJ", "TCTC AHAH", None),
    (*T_H, "TSTS TCTC 2H 2H", "SJSJ BJBJ", "TSTS 2H 2H", None),  # equal-order pairs: no tractor
    (*T_H, "TSTS TCTC 2H 3H", "SJSJ BJBJ", "TSTS 2H 3H", "must_follow_pair"),
    ("2", None, "2S2S 2H2H 2C 3S", "SJSJ BJBJ", "2S2S 2H2H", None),
    ("2", None, "2S2S 2H2H 2C 3S", "SJSJ BJBJ", "2S2S 2H 2C", "must_follow_pair"),
    ("2", None, "2S2S 2H2H 2C 3S", "SJSJ BJBJ", "2S2S 2C 3S", "must_follow_suit"),
    # throws with pairs (seed 000: as many pairs as the lead has)
    (*T_H, "8S8S 6S6S 4S 3S", "ASAS QSQS 9S", "8S8S 6S 4S 3S", "must_follow_pair"),
    (*T_H, "8S8S 6S6S 4S 3S", "ASAS QSQS 9S", "8S8S6S6S 3S", None),
    (*T_H, "7S7S 5S 3S", "AS KS KS", "7S 5S 3S", "must_follow_pair"),
    (*T_H, "7S7S 5S 3S", "AS KS KS", "7S7S 3S", None),
    # a throw of two tractors: a four-long tractor in hand serves both
    (*T_H, "KSKSQSQSJSJS9S9S 2S 3S", "5S5S4S4S 8S8S7S7S", "KSKSQSQSJSJS9S9S", None),
    (
        *T_H,
        "KSKSQSQSJSJS9S9S 2S 3S",
        "5S5S4S4S 8S8S7S7S",
        "KSKSQSQS 2S 3S JS 9S",
        "must_follow_tractor",
    ),
    # tractors 3 + 2: a five-long run must be split top 3 + bottom 2 (or the reverse)
    (*T_H, "KSKSQSQSJSJS9S9S8S8S 4S AS", "7S7S6S6S5S5S 3S3S2S2S", "KSKSQSQSJSJS9S9S8S8S", None),
    (
        *T_H,
        "KSKSQSQSJSJS9S9S8S8S 4S AS",
        "7S7S6S6S5S5S 3S3S2S2S",
        "KSKSQSQSJSJS 9S9S 4S AS",
        "must_follow_tractor",
    ),
    # tractors 3 + 2 against a four-long run and a pair: the 3 first, then pairs
    (*T_H, "9S9S8S8S7S7S6S6S 2S2S QS", "ASASKSKSQSQS 5S5S4S4S", "9S9S8S8S7S7S6S6S2S2S", None),
    (
        *T_H,
        "9S9S8S8S7S7S6S6S 2S2S QS",
        "ASASKSKSQSQS 5S5S4S4S",
        "9S9S8S8S 7S7S6S6S QS 2S",
        "must_follow_pair",
    ),
    # lead tractor unmatched: its pairs are owed as pairs, a shorter tractor is not required
    (*T_H, "QSQS 9S9S 7S7S 2S", "5S5S4S4S3S3S", "QSQS 9S9S 7S7S", None),
    (*T_H, "QSQS 9S9S 7S7S 2S", "5S5S4S4S3S3S", "QSQS 9S9S 7S 2S", "must_follow_pair"),
]


@pytest.mark.parametrize(("level", "suit", "hand", "lead", "play", "expected"), CASES)
def test_follow(
    level: str, suit: str | None, hand: str, lead: str, play: str, expected: str | None
) -> None:
    trump = Trump(level, suit)
    args = (parse_cards(hand), parse_cards(lead), parse_cards(play), trump)
    assert follow_error(*args) == expected
    assert reference_follow_error(*args) == expected


def test_check_follow_raises_with_the_code() -> None:
    trump = Trump("T", "H")
    with pytest.raises(IllegalPlayError) as caught:
        check_follow(parse_cards("7S7S 9S"), parse_cards("KSKS"), parse_cards("7S 9S"), trump)
    assert caught.value.code == "must_follow_pair"
    assert "7S 9S" in str(caught.value)
    check_follow(parse_cards("7S7S 9S"), parse_cards("KSKS"), parse_cards("7S 7S"), trump)


def test_follow_of_a_mixed_lead_is_refused() -> None:
    with pytest.raises(IllegalPlayError) as caught:
        follow_error(
            parse_cards("AS KH"), parse_cards("2S 2H"), parse_cards("AS KH"), Trump("T", "C")
        )
    assert caught.value.code == "lead_mixed_suits"


@pytest.mark.parametrize(
    ("hand", "lead"),
    [
        ("8S8S7S7S QSQS 2S 3D", "5S5S4S4S"),
        ("KSKSQSQSJSJS9S9S8S8S 4S AS 3D", "7S7S6S6S5S5S 3S3S2S2S"),
        ("THTH TCTC AHAH 2H 5D", "SJSJ BJBJ"),
        ("9S 2S KH KH 3D", "5S5S4S4S"),
        ("AH KD 3D", "2S"),
    ],
)
def test_legal_follow_examples(hand: str, lead: str) -> None:
    trump = Trump("T", "H")
    held, led = parse_cards(hand), parse_cards(lead)
    play = legal_follow(held, led, trump)
    assert follow_error(held, led, play, trump) is None


def _trick_setup(seed: int) -> tuple[Trump, list[list[Card]], list[Card], random.Random]:
    rng = random.Random(seed)
    trump = random_trump(rng)
    hands = [list(h) for h in deal(seed)]
    # hands part-way through a hand: fewer cards, so voids and short suits occur
    size = rng.randint(8, 25)
    hands = [h[:size] for h in hands]
    lead = random_lead(hands[0], trump, rng)
    return trump, hands, lead, rng


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_a_legal_follow_always_exists(seed: int) -> None:
    trump, hands, lead, _ = _trick_setup(seed)
    for hand in hands[1:]:
        play = legal_follow(hand, lead, trump)
        assert len(play) == len(lead)
        assert follow_error(hand, lead, play, trump) is None


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_generated_legal_follows_are_accepted(seed: int) -> None:
    trump, hands, lead, rng = _trick_setup(seed)
    for hand in hands[1:]:
        for _ in range(3):
            play = legal_follow(hand, lead, trump, rng)
            assert follow_error(hand, lead, play, trump) is None
            assert reference_follow_error(hand, lead, play, trump) is None


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_follow_error_agrees_with_the_reference(seed: int) -> None:
    trump, hands, lead, rng = _trick_setup(seed)
    for hand in hands[1:]:
        plays = [random_play(hand, len(lead), rng) for _ in range(3)]
        plays.append(legal_follow(hand, lead, trump, rng))
        for play in plays:
            expected = reference_follow_error(hand, lead, play, trump)
            assert follow_error(hand, lead, play, trump) == expected


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_every_play_of_a_small_hand_agrees_with_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    trump = random_trump(rng)
    hands = deal(seed)
    # a small hand rich in one suit group, so structure rules matter
    group = trump.groups[hands[1][0]]
    pool = [c for h in hands[1:] for c in h if trump.groups[c] == group]
    hand = rng.sample(pool, min(len(pool), 9)) + hands[1][-2:]
    lead = random_lead(hands[0], trump, rng)[:4]
    if len({trump.groups[c] for c in lead}) != 1 or len(lead) > len(hand):
        return
    legal = 0
    for play in sub_multisets(hand, len(lead)):
        expected = reference_follow_error(hand, lead, play, trump)
        assert follow_error(hand, lead, play, trump) == expected
        legal += expected is None
    assert legal > 0


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_structure_rich_tricks_agree_with_the_reference(seed: int) -> None:
    trump, lead, hands = rich_trick(seed)
    rng = random.Random(seed)
    for hand in hands:
        for _ in range(2):
            play = suit_first_play(hand, lead, trump, rng)
            assert follow_error(hand, lead, play, trump) == reference_follow_error(
                hand, lead, play, trump
            )
        play = legal_follow(hand, lead, trump, rng)
        assert follow_error(hand, lead, play, trump) is None
        assert follow_error(hand, lead, legal_follow(hand, lead, trump), trump) is None


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32), st.booleans())
def test_fast_paths_agree_with_the_general_structure_check(seed: int, rich: bool) -> None:
    if rich:
        trump, lead, hands = rich_trick(seed)
    else:
        trump, dealt, lead, _ = _trick_setup(seed)
        hands = dealt[1:]
    rng = random.Random(seed)
    for hand in hands:
        plays = [
            suit_first_play(hand, lead, trump, rng),
            random_play(hand, len(lead), rng),
            legal_follow(hand, lead, trump, rng),
        ]
        for play in plays:
            assert follow_error(hand, lead, play, trump) == general_follow_error(
                hand, lead, play, trump
            )
