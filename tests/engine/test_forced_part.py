"""Which part a failed throw forces (RULES-SPEC.md §4, option ``forced_part``): ``by_kind`` (seed
000
§1.9.1: single, then pair, then tractor) and ``lowest`` (seed 003: 首家试图连出98844时，若其余某家
有此花色的J，则首家必须出9，若其余某家有此花色的QQ或55，则首家必须出44)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.engine import (
    HandRecord,
    InvalidOptionError,
    Trump,
    format_cards,
    parse_cards,
    preset,
    record_of,
    replay_final,
    throw_check,
    throw_outcome,
)
from shengji.engine.hand import HandState
from shengji.engine.rules import RuleSet
from tests.engine.hand_helpers import designed_deck, draw_all, finish, hand_for
from tests.engine.helpers import random_throw_setup, reference_throw_check

T_H = Trump("T", "H")
SEED_003_THROW = "9S 8S8S 4S4S"

# (other hand, forced under by_kind, forced under lowest); level T, trump hearts.
SEED_003_EXAMPLE = [
    # 若其余某家有此花色的J，则首家必须出9: only the single fails, both options agree.
    ("JS", "9S", "9S"),
    # 若其余某家有此花色的QQ…则首家必须出44: QQ beats the 9 (its Q), the 88 and the 44. By kind
    # the single comes first; seed 003 plays the part holding the lowest card.
    ("QSQS", "9S", "4S 4S"),
    # …或55，则首家必须出44: 55 beats only the 44 (and no single: 5 < 9).
    ("5S5S", "4S 4S", "4S 4S"),
]


@pytest.mark.parametrize(("other", "by_kind", "lowest"), SEED_003_EXAMPLE)
def test_seed003_example_98844_as_written(other: str, by_kind: str, lowest: str) -> None:
    hands = [parse_cards(other), [], []]
    lead = parse_cards(SEED_003_THROW)
    assert format_cards(throw_check(lead, hands, T_H, forced_part="lowest") or []) == lowest
    assert format_cards(throw_check(lead, hands, T_H, forced_part="by_kind") or []) == by_kind
    # Without the keyword: today's answer, by kind.
    assert format_cards(throw_check(lead, hands, T_H) or []) == by_kind


@pytest.mark.parametrize(
    ("lead", "other", "forced"),
    [
        # A thrown tractor with the lowest card beats a single above it: seed 003 plays the
        # tractor, by kind the single.
        ("KS 5S5S4S4S", "AS 7S7S6S6S", "5S 5S 4S 4S"),
        # The lowest failing part, not the lowest part: the 44 stands (nobody beats it), so
        # the failing 9 is played.
        ("9S 4S4S", "JS 2S2S", "9S"),
        # A throw that stands stands under both options.
        (SEED_003_THROW, "7S 6S 3S3S", None),
    ],
)
def test_lowest_failing_part_whatever_its_kind(lead: str, other: str, forced: str | None) -> None:
    result = throw_check(parse_cards(lead), [parse_cards(other), [], []], T_H, "lowest")
    assert (None if result is None else format_cards(result)) == forced


@pytest.mark.parametrize(
    ("lead", "other", "forced"),
    [
        # Level T, trump H: TS (single) and TCTC (pair) are equal lowest cards (off-suit level
        # cards, order 12); THTH beats both. The shorter part, the single, is played.
        ("TS TCTC", "THTH", "TS"),
        # THTH TSTS (tractor) and TCTC (pair) both bottom at an off-suit level card; SJSJ BJBJ
        # beats both. The shorter part, the pair, is played.
        ("THTH TSTS TCTC", "SJSJ BJBJ", "TC TC"),
    ],
)
def test_lowest_ties_between_equal_lowest_cards_go_to_the_shorter_part(
    lead: str, other: str, forced: str
) -> None:
    result = throw_check(parse_cards(lead), [parse_cards(other), [], []], T_H, "lowest")
    assert format_cards(result or []) == forced


def test_forced_part_option_is_validated() -> None:
    lead = parse_cards(SEED_003_THROW)
    with pytest.raises(InvalidOptionError) as caught:
        throw_check(lead, [[], [], []], T_H, forced_part="highest")
    assert caught.value.code == "invalid_option"
    with pytest.raises(InvalidOptionError):
        throw_outcome(lead, [[], [], []], T_H, forced_part="smallest")


def test_throw_outcome_passes_forced_part_on() -> None:
    lead = parse_cards(SEED_003_THROW)
    outcome = throw_outcome(lead, [parse_cards("QSQS"), [], []], T_H, forced_part="lowest")
    assert outcome.result == "forced"
    assert format_cards(outcome.played) == "4S 4S"
    assert format_cards(outcome.taken_back) == "9S 8S 8S"


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_lowest_agrees_with_the_reference(seed: int) -> None:
    trump, lead, others = random_throw_setup(seed)
    expected = reference_throw_check(lead, others, trump, forced_part="lowest")
    assert throw_check(lead, others, trump, forced_part="lowest") == expected


# --- a whole hand ---------------------------------------------------------------------------

LEVEL_T_SEED = 17
"""Under ``level_source = random`` (seed 003) this hand seed draws level T."""


def _throw_hand(rules: RuleSet) -> HandState:
    """Seat 0 deals (a later hand), nobody bids (seed 003: no-trump), seat 0 buries 8 cards
    it does not throw and throws 9S 8S8S 4S4S; seat 1 holds QSQS."""
    deck = designed_deck({0: SEED_003_THROW, 1: "QSQS"}, fill_seed=3)
    state = hand_for(rules, seed=LEVEL_T_SEED, decks=[deck], dealer=0)
    assert state.level == "T"
    draw_all(state)
    state.apply("close")
    assert state.trump == Trump("T", None)
    throw = parse_cards(SEED_003_THROW)
    keep = list(state.hands[0])
    for card in throw:
        keep.remove(card)
    state.apply(f"bury 0 {format_cards(keep[:8])}")
    state.apply(f"play 0 {SEED_003_THROW}")
    return state


def test_seed003_hand_forces_the_lowest_part() -> None:
    state = _throw_hand(preset("seed003"))
    assert format_cards(state.trick.plays[0]) == "4S 4S"
    failed = state.failed_throws[0]
    assert (failed.result, format_cards(failed.played)) == ("forced", "4S 4S")
    assert all(c in state.hands[0] for c in parse_cards("9S 8S 8S"))
    finish(state)
    record = HandRecord.from_json(record_of(state).to_json())
    assert record.rules.to_dict()["options"]["forced_part"] == "lowest"
    assert replay_final(record).result == state.result


def test_seed003_hand_by_kind_forces_the_single() -> None:
    state = _throw_hand(preset("seed003").with_options(forced_part="by_kind"))
    assert format_cards(state.trick.plays[0]) == "9S"
    assert format_cards(state.failed_throws[0].played) == "9S"
