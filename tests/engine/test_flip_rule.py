"""How a turned-over kitty names the trump (RULES-SPEC.md §5.2, option ``flip_rule``):
``first_card``
(seed 004: the first level card, a joker first meaning no-trump) and ``as_bids`` (seed 000:
系统就会按顺序翻出8张底牌确定主牌，按照亮主规则确定主牌 — the eight cards read as bids)."""

from __future__ import annotations

import pytest

from shengji.engine import (
    HandRecord,
    InvalidOptionError,
    flip_kitty,
    flip_trump,
    format_cards,
    parse_cards,
    preset,
    record_of,
    replay_final,
)
from shengji.engine.hand import BURYING, HandState
from shengji.engine.rules import RuleSet
from tests.engine.hand_helpers import designed_deck, draw_all, finish, hand_for

# (kitty in the order turned, level 2: suit under first_card, suit under as_bids)
FLIPS = [
    # A level pair after a single level card: the pair is the stronger bid.
    ("2D 3C 2H 4D 2H 5S 6S 7S", "D", "H"),
    # A joker pair: no-trump under as_bids; the level card came first under first_card.
    ("2S SJ 3C SJ 4D 5S 6S 7S", "S", None),
    # A single joker is no bid: the level card after it names the trump under as_bids; a joker
    # first means no-trump under first_card.
    ("SJ 3C 2D 4D 5S 6S 7S 8S", None, "D"),
    # Equal singles: the earliest stands.
    ("3C 2D 4C 2S 2H 5S 6S 7S", "D", "D"),
    # No bid at all: no-trump.
    ("3C 4D 5S 6S 7S 8S 9S TS", None, None),
]


@pytest.mark.parametrize(("kitty", "first_card", "as_bids"), FLIPS)
def test_seed000_flip_reads_the_kitty_as_bids(
    kitty: str, first_card: str | None, as_bids: str | None
) -> None:
    turned = parse_cards(kitty)
    assert flip_trump(turned, "2", rule="as_bids") == as_bids
    assert flip_trump(turned, "2", rule="first_card") == first_card
    # Without the keywords: today's rule, the first card.
    assert flip_trump(turned, "2") == first_card


def test_as_bids_under_each_bidding_option() -> None:
    # strength: BJ pair > SJ pair > level pair (both joker pairs mean no-trump anyway); a level
    # pair of another suit does not overturn an earlier level pair of equal strength.
    turned = parse_cards("2D 2D 2S 2S 3C 4C 5C 6C")
    for bidding in ("strength", "count", "reinforce"):
        assert flip_trump(turned, "2", "as_bids", bidding) == "D"
    # count: a pair (two level cards) over a single of another suit, and a joker pair over both.
    assert flip_trump(parse_cards("2S 2H 2H 3C"), "2", "as_bids", "count") == "H"
    assert flip_trump(parse_cards("2H 2H BJ BJ"), "2", "as_bids", "count") is None
    # reinforce: the same order (single < pair < joker pair).
    assert flip_trump(parse_cards("2S 2H 2H 3C"), "2", "as_bids", "reinforce") == "H"
    assert flip_trump(parse_cards("SJ SJ 2H 2H"), "2", "as_bids", "reinforce") is None


def test_as_bids_turns_all_eight_and_first_card_stops_at_the_deciding_card() -> None:
    turned = parse_cards("3C 2D 4C 2H 2H 5S 6S 7S")
    assert flip_kitty(turned, "2", "as_bids") == (turned, "H")
    assert flip_kitty(turned, "2", "first_card") == (turned[:2], "D")
    assert flip_kitty(turned, "2") == (turned[:2], "D")


def test_flip_options_are_validated() -> None:
    turned = parse_cards("2D 3C")
    with pytest.raises(InvalidOptionError) as caught:
        flip_trump(turned, "2", rule="last_card")
    assert caught.value.code == "invalid_option"
    with pytest.raises(InvalidOptionError):
        flip_trump(turned, "2", rule="as_bids", bidding="loudest")


# --- a whole hand ---------------------------------------------------------------------------

SEED_000_KITTY = "3S 2D 4C 2H 2H 5S 6S 7S"


def _flipped_hand(rules: RuleSet) -> HandState:
    """A later hand (seat 3 deals) in which nobody bids: the kitty is turned over."""
    deck = designed_deck(kitty=SEED_000_KITTY, fill_seed=4)
    state = hand_for(rules, decks=[deck], dealer=3)
    draw_all(state)
    state.apply("close")
    assert state.phase == BURYING and state.dealer == 3
    return state


def test_seed000_hand_flips_the_kitty_as_bids() -> None:
    state = _flipped_hand(preset("seed000"))
    assert state.trump is not None and state.trump.suit == "H"
    assert format_cards(state.flipped) == SEED_000_KITTY
    state.apply(f"bury 3 {SEED_000_KITTY}")
    finish(state)
    assert state.result is not None
    assert (state.result.trump_suit, format_cards(state.result.flipped)) == ("H", SEED_000_KITTY)
    record = HandRecord.from_json(record_of(state).to_json())
    assert record.rules.to_dict()["options"]["flip_rule"] == "as_bids"
    assert replay_final(record).result == state.result


def test_first_card_hand_flips_up_to_the_first_level_card() -> None:
    state = _flipped_hand(preset("seed000").with_options(flip_rule="first_card"))
    assert state.trump is not None and state.trump.suit == "D"
    assert format_cards(state.flipped) == "3S 2D"
