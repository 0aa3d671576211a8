"""The throw check (RULES-SPEC.md §4; seed 000 §1.9.1, seed 003 甩牌 98844, seed 004 §15-16
最大性)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.engine import (
    IllegalPlayError,
    InvalidOptionError,
    Trump,
    format_cards,
    is_pair,
    is_tractor,
    parse_cards,
    throw_check,
    throw_outcome,
)
from tests.engine.helpers import random_throw_setup, reference_throw_check

T_H = ("T", "H")

THROWS = [
    # (level, suit, lead, other hands, forced play or None when the throw stands)
    # seed 003: 98844 stands if nobody beats a 9, the 88 or the 44 ...
    (*T_H, "9S 8S8S 4S4S", ["7S 6S 3S3S 2H", "AH AH", ""], None),
    (*T_H, "9S 8S8S 4S4S", ["9S 3S", "", ""], None),  # the other 9 ties: no beat
    (*T_H, "9S 8S8S 4S4S", ["BJ BJ THTH", "", ""], None),  # trumps are another group
    # ... 若其余某家有此花色的J，则首家必须出9
    (*T_H, "9S 8S8S 4S4S", ["JS", "", ""], "9S"),
    # ... 若其余某家有此花色的55，则首家必须出44
    (*T_H, "9S 8S8S 4S4S", ["", "5S5S 2S", ""], "4S 4S"),
    # ... QQ also holds a Q that beats the 9: by kind the single comes first (RULES-SPEC.md §4;
    # seed 003's own forced_part = lowest plays the 44: test_forced_part.py)
    (*T_H, "9S 8S8S 4S4S", ["", "", "QSQS"], "9S"),
    # seed 004 §16: 紅心66553 fails on a heart above 3 or a tractor above 6655
    ("2", "S", "6H6H5H5H3H", ["4H", "", ""], "3H"),
    ("2", "S", "6H6H5H5H3H", ["3H 2H2H", "", ""], None),
    ("2", "S", "AH 6H6H5H5H", ["8H8H7H7H", "", ""], "6H 6H 5H 5H"),
    ("2", "S", "AH 6H6H5H5H", ["8H8H 7H 4H4H3H3H", "", ""], None),
    # seed 003 甩牌 AAK, AKK, AQQJJ
    (*T_H, "AS AS KS", ["QS QS JS", "", ""], None),
    (*T_H, "AS KS KS", ["AS", "QSQS", ""], None),
    (*T_H, "AS QSQSJSJS", ["KS", "", ""], None),  # K beats no single here ...
    (*T_H, "AS QSQSJSJS", ["KSKS 9S9S", "", ""], None),  # ... and KK9 is no tractor
    (*T_H, "AS QSQSJSJS", ["KSKS 2S", "AS", ""], None),
    # single before pair before tractor (seed 000 §1.9.1)
    (*T_H, "KS QSQS 5S5S4S4S", ["AS 8S8S7S7S", "", ""], "KS"),
    (*T_H, "AS QSQS 5S5S4S4S", ["KSKS 8S8S7S7S", "", ""], "QS QS"),
    (*T_H, "AS QSQS 5S5S4S4S", ["8S8S7S7S", "", ""], "5S 5S 4S 4S"),
    # the lowest pair is the one checked, and the one forced
    (*T_H, "ASAS 9S9S 3S3S", ["7S7S", "", ""], "3S 3S"),
    # the smallest failing tractor: the shortest, then the lowest
    (*T_H, "6S6S5S5S4S4S KSKSQSQS", ["9S9S8S8S7S7S", "", ""], "6S 6S 5S 5S 4S 4S"),
    (*T_H, "6S6S5S5S4S4S JSJS9S9S", ["ASASKSKSQSQS", "", ""], "JS JS 9S 9S"),
    (*T_H, "KSKSQSQS 5S5S4S4S", ["7S7S6S6S", "", ""], "5S 5S 4S 4S"),
    # trump throws; equal-order level cards do not beat each other
    (*T_H, "BJ SJ", ["BJ", "", ""], "SJ"),
    (*T_H, "BJ SJ", ["SJ TH", "", ""], None),
    (*T_H, "TS AH", ["TC", "", ""], "AH"),
    (*T_H, "TS TC", ["TD TD", "", ""], None),
    (*T_H, "TS TC", ["TH", "", ""], "TC"),
    (*T_H, "THTH TSTS AHAH 2H", ["BJBJ 3H", "", ""], "2H"),
    (*T_H, "BJ TSTS AHAH", ["SJSJ BJ", "", ""], None),  # SJSJ alone is no tractor
    (*T_H, "BJ TSTS AHAH", ["SJSJ THTH", "", ""], "TS TS AH AH"),
    (*T_H, "BJ TSTS AHAH", ["TCTC THTH", "", ""], "TS TS AH AH"),
    (*T_H, "BJ TSTS AHAH", ["TCTC KHKH", "", ""], None),  # AH lies between: no tractor
    # no-trump, level 2: SJSJ 2S2S beats a lower trump tractor
    ("2", None, "2H2H SJSJ 2D", ["BJ", "", ""], "2D"),
    ("2", None, "SJSJ 2H2H 2D", ["2C2C", "", ""], None),
]


@pytest.mark.parametrize(("level", "suit", "lead", "others", "forced"), THROWS)
def test_throw_check(
    level: str, suit: str | None, lead: str, others: list[str], forced: str | None
) -> None:
    trump = Trump(level, suit)
    led = parse_cards(lead)
    hands = [parse_cards(h) for h in others]
    result = throw_check(led, hands, trump)
    assert (None if result is None else format_cards(result)) == forced
    reference = reference_throw_check(led, hands, trump)
    assert (None if reference is None else format_cards(reference)) == forced


@pytest.mark.parametrize("lead", ["2S", "2S2S", "5S5S4S4S3S3S", "SJSJ BJBJ"])
def test_a_single_pair_or_tractor_always_stands(lead: str) -> None:
    beaters = [parse_cards("AS AS KS KS QS QS JS JS BJ BJ TH TH"), [], []]
    assert throw_check(parse_cards(lead), beaters, Trump("T", "H")) is None


def test_a_mixed_lead_is_refused() -> None:
    with pytest.raises(IllegalPlayError) as caught:
        throw_check(parse_cards("AS AH"), [[], [], []], Trump("T", "C"))
    assert caught.value.code == "lead_mixed_suits"


def test_throw_outcome_options() -> None:
    trump = Trump("T", "H")
    lead = parse_cards("9S 8S8S 4S4S")
    beaten = [parse_cards("JS"), [], []]
    stands = throw_outcome(lead, [[], [], []], trump, throw_penalty=10)
    assert (stands.result, stands.played, stands.taken_back, stands.penalty) == (
        "stands",
        tuple(lead),
        (),
        0,
    )
    forced = throw_outcome(lead, beaten, trump, throw_penalty=10)
    assert forced.result == "forced"
    assert format_cards(forced.played) == "9S"
    assert format_cards(forced.taken_back) == "8S 8S 4S 4S"
    assert forced.penalty == 40
    assert throw_outcome(lead, beaten, trump).penalty == 0
    rejected = throw_outcome(lead, beaten, trump, failed_throw="reject", throw_penalty=10)
    assert (rejected.result, rejected.played, rejected.penalty) == ("rejected", (), 50)
    assert rejected.taken_back == tuple(lead)
    with pytest.raises(InvalidOptionError):
        throw_outcome(lead, beaten, trump, failed_throw="refuse")
    with pytest.raises(InvalidOptionError):
        throw_outcome(lead, beaten, trump, throw_penalty=-1)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_throw_check_forces_only_cards_of_the_lead(seed: int) -> None:
    trump, lead, others = random_throw_setup(seed)
    forced = throw_check(lead, others, trump)
    if forced is None:
        return
    assert all(forced.count(c) <= lead.count(c) for c in forced)
    assert len(forced) < len(lead)
    assert len(forced) == 1 or is_pair(forced) or is_tractor(forced, trump)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32))
def test_throw_check_agrees_with_the_reference(seed: int) -> None:
    trump, lead, others = random_throw_setup(seed)
    assert throw_check(lead, others, trump) == reference_throw_check(lead, others, trump)


def test_regression_thrown_tractor_beaten_by_pairs_whose_ids_sort_low_first() -> None:
    # The reference check once took a beating tractor's top from its lowest card id: 3C3C 3D3D
    # (level 3, trump D) is the run 3D-3C, top 3D, and beats the thrown 3S3S ADAD.
    trump = Trump("3", "D")
    lead = parse_cards("3S3S ADAD BJ")
    others = [parse_cards("3D3D 3C3C"), [], []]
    expected = "3S 3S AD AD"
    assert format_cards(throw_check(lead, others, trump) or []) == expected
    assert format_cards(reference_throw_check(lead, others, trump) or []) == expected
