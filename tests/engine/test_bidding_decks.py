"""Bidding with more than two decks (RULES-SPEC.md §9.2 Bidding): a showing is k copies of one
level card (1 ≤ k ≤ decks) or k identical jokers (k ≥ 2); more copies beat fewer; at equal
count each ``bidding`` option keeps its order. Two-deck results are those of RULES-SPEC.md §5.2."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from shengji.engine.bidding import (
    Bid,
    bid_error,
    legal_bids,
    make_bid,
    possible_showings,
    showing_error,
    strongest_showing,
)
from shengji.engine.cards import CARD_IDS, Card, format_cards, full_deck, parse_cards

LEVEL = "2"


def show(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def bid_in_turn(
    system: str, bids: Sequence[tuple[int, str]], decks: int
) -> tuple[Bid | None, list[str | None]]:
    """Each (seat, cards) bid in order, each seat holding what it shows; the standing bid and
    each bid's refusal (None when it stood)."""
    standing: Bid | None = None
    codes: list[str | None] = []
    for seat, text in bids:
        cards = show(text)
        code = bid_error(system, LEVEL, standing, seat, cards, list(cards), decks=decks)
        codes.append(code)
        if code is None:
            standing = make_bid(system, standing, seat, cards)
    return standing, codes


# --- what may be shown ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "decks", "showable"),
    [
        ("2S", 2, True),
        ("2S 2S", 2, True),
        ("2S 2S 2S", 2, False),  # no third copy in two decks
        ("2S 2S 2S", 3, True),
        ("2S 2S 2S 2S", 3, False),
        ("2S 2S 2S 2S", 4, True),
        ("SJ", 4, False),  # a single joker is never a bid
        ("SJ SJ", 3, True),
        ("BJ BJ BJ", 3, True),
        ("BJ BJ BJ BJ", 4, True),
        ("BJ BJ BJ BJ", 3, False),
        ("2S 2S 2H", 3, False),  # identical cards only
        ("SJ SJ BJ", 3, False),
        ("3S 3S 3S", 3, False),  # not the level rank
        ("", 3, False),
    ],
)
def test_showings(text: str, decks: int, showable: bool) -> None:
    code = showing_error(show(text), LEVEL, decks)
    assert code == (None if showable else "bid_not_showable")


def test_possible_showings_with_three_decks() -> None:
    """Each level card from one copy up to the copies held, jokers from two up (the best public
    implementation offers the same set for this hand)."""
    hand = parse_cards("2C 2C 2C 2S 2S SJ SJ BJ BJ 5H 5H 5H")
    assert [format_cards(s) for s in possible_showings(hand, LEVEL, decks=3)] == [
        "2S",
        "2S 2S",
        "2C",
        "2C 2C",
        "2C 2C 2C",
        "SJ SJ",
        "BJ BJ",
    ]


def test_possible_showings_with_four_decks() -> None:
    hand = parse_cards("2D 2D 2D 2D SJ SJ SJ SJ BJ BJ BJ")
    assert [format_cards(s) for s in possible_showings(hand, LEVEL, decks=4)] == [
        "2D",
        "2D 2D",
        "2D 2D 2D",
        "2D 2D 2D 2D",
        "SJ SJ",
        "SJ SJ SJ",
        "SJ SJ SJ SJ",
        "BJ BJ",
        "BJ BJ BJ",
    ]


# --- strength: more copies beat fewer, then SJ < BJ ----------------------------------------


def test_strength_more_copies_beat_fewer() -> None:
    """A level triple beats a big-joker pair; at three copies SJ < BJ as at two."""
    standing, codes = bid_in_turn(
        "strength",
        [
            (0, "2S"),
            (1, "BJ BJ"),
            (2, "2H 2H 2H"),
            (3, "SJ SJ SJ"),
            (4, "2D 2D 2D"),
            (0, "BJ BJ BJ"),
        ],
        decks=3,
    )
    assert codes == [None, None, None, None, "bid_too_weak", None]
    assert standing is not None and standing.seat == 0 and standing.suit is None


def test_strength_at_equal_count_level_cards_lose_to_jokers() -> None:
    _, codes = bid_in_turn(
        "strength", [(0, "2S 2S 2S"), (1, "2H 2H 2H"), (2, "SJ SJ SJ"), (3, "SJ SJ SJ")], decks=3
    )
    assert codes == [None, "bid_too_weak", None, "bid_too_weak"]


def test_strength_the_bidder_may_add_copies() -> None:
    standing, codes = bid_in_turn(
        "strength", [(0, "2S"), (0, "2S 2S"), (0, "2S 2S 2S"), (0, "2S 2S 2S 2S")], decks=4
    )
    assert codes == [None, None, None, None]
    assert standing is not None and standing.kind == "self_reinforce"
    assert len(standing.cards) == 4


def test_strength_order_of_every_showing_with_four_decks() -> None:
    order = [
        "2S",
        "2S 2S",
        "SJ SJ",
        "BJ BJ",
        "2S 2S 2S",
        "SJ SJ SJ",
        "BJ BJ BJ",
        "2S 2S 2S 2S",
        "SJ SJ SJ SJ",
        "BJ BJ BJ BJ",
    ]
    strengths = [make_bid("strength", None, 0, show(t)).strength for t in order]
    assert strengths == sorted(set(strengths))


# --- count (冲主): more level cards of another suit, or at least as many jokers ------------


def test_count_overcalls_with_three_decks() -> None:
    _, codes = bid_in_turn(
        "count",
        [
            (0, "2S 2S"),
            (1, "2H 2H"),
            (1, "2H 2H 2H"),
            (2, "SJ SJ"),
            (2, "SJ SJ SJ"),
            (3, "2D 2D 2D"),
        ],
        decks=3,
    )
    # 2H 2H: not more; 2H 2H 2H: more, another suit; SJ SJ: fewer than the three level cards;
    # SJ SJ SJ: as many; then nothing overcalls jokers.
    assert codes == [None, "bid_too_weak", None, "bid_too_weak", None, "bid_too_weak"]


def test_count_jokers_stand_for_good_even_against_more_level_cards() -> None:
    _, codes = bid_in_turn("count", [(0, "2S"), (1, "SJ SJ"), (2, "2H 2H 2H 2H")], decks=4)
    assert codes == [None, None, "bid_too_weak"]


def test_count_more_jokers_than_level_cards_overcall() -> None:
    standing, codes = bid_in_turn("count", [(0, "2S 2S"), (1, "BJ BJ BJ")], decks=3)
    assert codes == [None, None]
    assert standing is not None and standing.kind == "no_trump_overturn"


# --- reinforce: count first, jokers above level cards, the two jokers equal -----------------


def test_reinforce_with_three_decks() -> None:
    _, codes = bid_in_turn(
        "reinforce",
        [
            (0, "2S"),
            (1, "2H 2H"),  # 反主
            (2, "SJ SJ"),  # 反无主 of two
            (3, "2D 2D 2D"),  # three copies beat any pair
            (4, "2C 2C 2C"),  # equal: the earliest stands
            (0, "BJ BJ BJ"),  # jokers over level cards at equal count
            (1, "SJ SJ SJ"),  # the two jokers equal
        ],
        decks=3,
    )
    assert codes == [None, None, None, None, "bid_too_weak", None, "bid_too_weak"]


# --- the flipped kitty read as bids ----------------------------------------------------------


def test_flip_reads_the_third_copy_as_a_triple() -> None:
    kitty = parse_cards("2S BJ 2H 2H BJ 2H 5C 6C")
    assert strongest_showing(kitty, LEVEL, "strength", decks=3) == show("2H 2H 2H")
    assert strongest_showing(kitty, LEVEL, "reinforce", decks=3) == show("2H 2H 2H")
    # count: the joker pair came before the triple and stands for good.
    assert strongest_showing(kitty, LEVEL, "count", decks=3) == show("BJ BJ")
    # two decks: no triple is a showing.
    assert strongest_showing(kitty, LEVEL, "strength") == show("BJ BJ")


def test_flip_count_jokers_over_fewer_level_cards_only() -> None:
    kitty = parse_cards("2S 2S 2S SJ SJ 3D 4D 5D")
    assert strongest_showing(kitty, LEVEL, "count", decks=3) == show("2S 2S 2S")
    kitty = parse_cards("2S 2S 2S SJ SJ SJ 4D 5D")
    assert strongest_showing(kitty, LEVEL, "count", decks=3) == show("SJ SJ SJ")


# --- two decks unchanged ---------------------------------------------------------------------


def reference_two_deck_strength(system: str, cards: Sequence[int]) -> int:
    """RULES-SPEC.md §5.2 restated: single < level pair < SJ pair < BJ pair (strength); joker pairs
    equal (reinforce); under count the number of cards."""
    if system == "count":
        return len(cards)
    if cards[0] >= 52:
        return 3 if system == "reinforce" or cards[0] == 52 else 4
    return len(cards)


@pytest.mark.parametrize("system", ["strength", "count", "reinforce"])
def test_two_deck_results_are_unchanged(system: str) -> None:
    """On two-deck hands the default and ``decks=2`` agree, and strengths are RULES-SPEC.md
    §5.2's."""
    rng = random.Random(31)
    for _ in range(300):
        deck = full_deck()
        rng.shuffle(deck)
        hand = deck[:25]
        level = rng.choice("23456789TJQKA")
        showings = possible_showings(hand, level)
        assert showings == possible_showings(hand, level, decks=2)
        for cards in showings:
            assert make_bid(system, None, 0, cards).strength == reference_two_deck_strength(
                system, cards
            )
        seat = rng.randrange(4)
        standing = make_bid(system, None, rng.randrange(4), showings[0]) if showings else None
        assert legal_bids(system, level, standing, seat, hand) == legal_bids(
            system, level, standing, seat, hand, decks=2
        )
        kitty = deck[25:33]
        assert strongest_showing(kitty, level, system) == strongest_showing(
            kitty, level, system, decks=2
        )


def test_no_showing_has_more_copies_than_the_decks() -> None:
    for decks in (2, 3, 4):
        hand = [Card(c) for c in CARD_IDS for _ in range(decks)]
        assert max(len(s) for s in possible_showings(hand, LEVEL, decks)) == decks
