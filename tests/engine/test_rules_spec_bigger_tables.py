"""The examples of docs/RULES-SPEC.md §9 and of the players' docs/RULES.md (找朋友与多人桌 /
Finding Friends and bigger tables), each checked against the engine. Level T, trump hearts."""

from __future__ import annotations

from itertools import pairwise

import pytest

from shengji.engine import Trump, deal_sizes, follow_error, is_tractor, parse_cards, trick_winner
from shengji.engine.bidding import bid_error, make_bid
from shengji.engine.tuples import kitty_units_multiplier, lead_format

T_H = Trump("T", "H")
cards = parse_cards
PROTECTED = "longer_tuples_protected"


def _follow(hand: str, lead: str, play: str, policy: str = "no_protections") -> str | None:
    return follow_error(cards(hand), cards(lead), cards(play), T_H, policy)


def test_deal_sizes_named_in_the_players_text() -> None:
    # "six players with two decks get 17 cards each and 6 go to the kitty; eight players with
    # three decks 19 each and 10 in the kitty".
    assert deal_sizes(6, 2) == (17, 6)
    assert deal_sizes(8, 3) == (19, 10)


@pytest.mark.parametrize(
    ("text", "tractor"),
    [
        ("3S3S3S4S4S4S", True),
        ("QSQSQSQSKSKSKSKS", True),
        ("JSJSJS9S9S9S", True),  # T is skipped
        ("4S4S4S3S3S3S", True),
        ("3S3S3S4S4S", False),  # tuples of two sizes
    ],
)
def test_tractors_of_tuples(text: str, tractor: bool) -> None:
    assert is_tractor(cards(text), T_H) is tractor


@pytest.mark.parametrize(
    ("lead", "units"),
    [
        # A tractor of triples 222 333 plus a single 2 (RULES-SPEC.md §9.2.3).
        ("2H2H2H2H3H3H3H", ((3, 2), (1, 1))),
        # A tractor of pairs 33 44 plus a single 3 (§9.2.3), and 444 33 likewise.
        ("3S3S3S4S4S", ((2, 2), (1, 1))),
        ("4S4S4S3S3S", ((2, 2), (1, 1))),
    ],
)
def test_formats(lead: str, units: tuple[tuple[int, int], ...]) -> None:
    assert lead_format(cards(lead), T_H).units == units


def test_a_led_pair_breaks_a_triple_unless_longer_tuples_are_protected() -> None:
    hand, lead = "KSKSKS4S3S", "8S8S"
    assert _follow(hand, lead, "4S3S") == "must_follow_pair"
    assert _follow(hand, lead, "KSKS") is None
    assert _follow(hand, lead, "4S3S", PROTECTED) is None


def test_a_whole_triple_may_not_fill_a_pair_slot_while_a_pair_is_held_when_protected() -> None:
    hand, lead = "QSQSQS6S6S2S", "ASASKS"
    assert _follow(hand, lead, "QSQSQS") is None
    assert _follow(hand, lead, "QSQSQS", PROTECTED) == "must_follow_pair"
    assert _follow(hand, lead, "6S6SQS", PROTECTED) is None


def test_a_led_quad_is_answered_by_a_tractor_of_pairs() -> None:
    assert _follow("6S6S5S5S9S", "QSQSQSQS", "6S6S5S9S") == "must_follow_tractor"
    assert _follow("6S6S5S5S9S", "QSQSQSQS", "6S6S5S5S") is None


def test_a_led_triple_is_answered_by_a_pair_and_a_single() -> None:
    assert _follow("KSKS3S2S", "7S7S7S", "KSKS3S") is None
    assert _follow("KSKS3S2S", "7S7S7S", "KS3S2S") == "must_follow_pair"


def test_a_triple_is_beaten_by_a_higher_triple_or_a_trump_triple_only() -> None:
    assert trick_winner([cards("7S7S7S"), cards("KSKSQS"), cards("9S9S9S")], T_H) == 2
    plays = [cards("7S7S7S"), cards("9S9S9S"), cards("KSKSQS"), cards("3H3H3H")]
    assert trick_winner(plays, T_H) == 3


@pytest.mark.parametrize(
    ("lead", "multiplier"),
    [
        ("AS", 2),
        ("ASAS", 4),
        ("ASASAS", 6),
        ("ASASASAS", 8),
        ("ASASKSKS", 8),
        ("ASASASKSKSKS", 12),
    ],
)
def test_the_kitty_multiplier_with_more_than_two_decks(lead: str, multiplier: int) -> None:
    assert kitty_units_multiplier(cards(lead), T_H) == multiplier


def test_strength_bids_with_three_decks_in_the_documented_order() -> None:
    order = ["TS", "TCTC", "SJSJ", "BJBJ", "TDTDTD", "SJSJSJ", "BJBJBJ"]
    for weaker, stronger in pairwise(order):
        standing = make_bid("strength", None, 0, cards(weaker))
        assert bid_error("strength", "T", standing, 1, cards(stronger), cards(stronger), 3) is None
        standing = make_bid("strength", None, 0, cards(stronger))
        refused = bid_error("strength", "T", standing, 1, cards(weaker), cards(weaker), 3)
        assert refused == "bid_too_weak", (stronger, weaker)
