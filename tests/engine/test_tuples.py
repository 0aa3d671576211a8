"""Tuples and tractors of tuples with more than two decks (RULES-SPEC.md §9.2).

The examples of RULES-SPEC.md §9.2, and the follow, winner and throw cases of the best public
implementation's mechanics tests, restated in our notation. Its usual setting is level 4 with
spades trump (``T4S``): 2S 3S 5S are consecutive trumps, 4S the trump-suit level card.
"""

from __future__ import annotations

import pytest

from shengji.engine import (
    MUST_FOLLOW_PAIR,
    MUST_FOLLOW_TRACTOR,
    Card,
    Trump,
    as_cards,
    is_tractor,
    lead_info,
    parse_cards,
    split_cards,
    throw_check,
    trick_winner,
)
from shengji.engine.follow import follow_error, legal_follow
from shengji.engine.trick import is_discard
from shengji.engine.tuples import (
    kitty_units_multiplier,
    lead_format,
    tuple_lead_choices,
)

cards = parse_cards
T4S = Trump("4", "S")
T4H = Trump("4", "H")
T2S = Trump("2", "S")
NP = "no_protections"
LP = "longer_tuples_protected"


def fmt_text(lead: str, trump: Trump) -> list[str]:
    f = lead_format(cards(lead), trump)
    return ["".join(c.text for c in part) for part in f.parts]


# --- patterns and formats (RULES-SPEC.md §9.2) ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "trump", "expected"),
    [
        ("3S3S3S4S4S4S", Trump("2", "H"), True),  # 333444
        ("QSQSQSQSKSKSKSKS", Trump("2", "H"), True),  # QQQQKKKK
        ("2S2S2S3S3S3S5S5S5S", T4S, True),  # level 4 skipped: 2 3 5 consecutive
        ("3S3S3S4S4S", Trump("2", "H"), False),  # tuples of unequal size
        ("3S3S3S5S5S5S", Trump("2", "H"), False),  # 4 between
        ("3S3S3S3S", Trump("2", "H"), False),  # one quad, not a tractor
        ("5S5S5S5H5H5H", Trump("5", "H"), True),  # off-suit level triple below trump-suit
        ("5S5S5S5C5C5C", Trump("5", "H"), False),  # equal orders never join
        ("AHAHAH5S5S5S", Trump("5", "H"), True),
        ("SJSJSJBJBJBJ", Trump("2", None), True),
    ],
)
def test_is_tractor_of_tuples(text: str, trump: Trump, expected: bool) -> None:
    assert is_tractor(cards(text), trump) is expected


def test_format_example_of_the_spec() -> None:
    """RULES-SPEC.md §9.2: 2H2H2H2H 3H3H3H with 2 and 3 adjacent: triple tractor + single 2."""
    assert fmt_text("2H2H2H2H 3H3H3H", T4S) == ["3H3H3H2H2H2H", "2H"]
    assert str(split_cards(cards("2H2H2H2H 3H3H3H"), T4S)) == "3H3H3H2H2H2H 2H"
    info = lead_info(cards("2H2H2H2H 3H3H3H"), T4S)
    assert info.units == ((3, 2), (1, 1))
    assert info.key == T4S.orders[cards("3H")[0]]


@pytest.mark.parametrize(
    ("lead", "trump", "parts"),
    [
        # the best public implementation's format cases (its default tractor rules)
        ("2H 3H 7H", T4S, ["7H", "3H", "2H"]),
        ("2H2H2H", T4S, ["2H2H2H"]),
        ("2H2H3H3H", T4S, ["3H3H2H2H"]),
        ("2H2H2H3H3H", T4S, ["3H3H2H2H", "2H"]),  # tractor first, then the single
        ("2H2H3H3H3H", T4S, ["3H3H2H2H", "3H"]),
        ("4H4H4S4S", T4S, ["4S4S4H4H"]),
        ("4H4HASAS", T4S, ["4H4HASAS"]),
        ("QSQSKSKSAS", T4S, ["KSKSQSQS", "AS"]),
        ("3H3H3H5H5H5H", T4S, ["5H5H5H3H3H3H"]),
        ("2H2H3H3H3H5H5H5H", T4S, ["5H5H5H3H3H3H", "2H2H"]),
        ("2S2S2S3S3S3S5S5S5S", T4S, ["5S5S5S3S3S3S2S2S2S"]),
        ("2S2S2S3S5S5S5S", T4S, ["5S5S5S", "2S2S2S", "3S"]),
        ("QSQSQSQSKSKSKSKS5S5S", Trump("2", "H"), ["KSKSKSKSQSQSQSQS", "5S5S"]),
    ],
)
def test_formats(lead: str, trump: Trump, parts: list[str]) -> None:
    assert fmt_text(lead, trump) == parts


# --- following ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "hand", "play", "policy", "legal"),
    [
        # pair lead; the hand 22 33 55
        ("3S3S", "2S2S3S3S5S5S", "2S2S", NP, True),
        ("3S3S", "2S2S3S3S5S5S", "2S3S", NP, False),
        # a triple must be broken for a pair under no_protections, not when protected
        ("3S3S", "2S2S2S3S5S", "3S5S", LP, True),
        ("3S3S", "2S2S2S3S5S", "3S5S", NP, False),
        # triple lead answered by a pair and a single
        ("3S3S3S", "2S2S3S3S5S5S", "2S2S5S", NP, True),
        ("3S3S3S", "2S2S3S3S5S5S", "2S3S5S", NP, False),
        # tractor of pairs lead; the hand 2222 33 55
        ("2S2S3S3S", "2S2S2S2S3S3S5S5S", "2S2S2S2S", NP, False),
        ("2S2S3S3S", "2S2S2S2S3S3S5S5S", "2S2S3S3S", NP, True),
        ("2S2S3S3S", "2S2S2S2S3S3S5S5S", "3S3S5S5S", NP, True),
        ("2S2S3S3S", "2S2S2S2S3S3S5S5S", "2S2S2S2S", LP, False),
        ("2S2S3S3S", "2S2S2S2S3S3S5S5S", "2S2S3S3S", LP, True),
        ("2S2S3S3S", "2S2S2S2S3S3S5S5S", "3S3S5S5S", LP, True),
        # the hand 2222 3 55: no tractor; two pairs owed (the quad gives two)
        ("2S2S3S3S", "2S2S2S2S3S5S5S", "2S2S2S2S", NP, True),
        ("2S2S3S3S", "2S2S2S2S3S5S5S", "2S2S5S5S", NP, True),
        ("2S2S3S3S", "2S2S2S2S3S5S5S", "2S2S5S3S", NP, False),
        ("2S2S3S3S", "2S2S2S2S3S5S5S", "2S2S2S2S", LP, True),
        ("2S2S3S3S", "2S2S2S2S3S5S5S", "2S2S5S5S", LP, True),
        ("2S2S3S3S", "2S2S2S2S3S5S5S", "2S2S5S3S", LP, True),  # "tenuously legal"
        # pair + single lead; the hand 222 5
        ("2S2S3S", "2S2S2S5S", "2S2S2S", NP, True),
        ("2S2S3S", "2S2S2S5S", "2S2S5S", NP, True),
        ("2S2S3S", "2S2S2S5S", "2S2S2S", LP, True),
        ("2S2S3S", "2S2S2S5S", "2S2S5S", LP, True),
        # protected tuple: triple lead, the hand 2222 5 6 7 8
        ("3S3S3S", "2S2S2S2S5S6S7S8S", "6S7S8S", NP, False),
        ("3S3S3S", "2S2S2S2S5S6S7S8S", "6S7S8S", LP, True),
        ("3S3S3S", "2S2S2S2S5S5S6S7S8S", "5S5S6S", NP, False),
        ("3S3S3S", "2S2S2S2S5S5S6S7S8S", "5S5S6S", LP, True),
        ("3S3S3S", "2S2S2S2S5S5S6S7S8S", "6S7S8S", LP, False),
        # protected wider tractor: tractor lead, the hand 222 333 5 6 7 8
        ("6S6S7S7S", "2S2S2S3S3S3S5S6S7S8S", "5S6S7S8S", NP, False),
        ("6S6S7S7S", "2S2S2S3S3S3S5S6S7S8S", "5S6S7S8S", LP, True),
        # a longer tuple played whole may not fill a pair slot while a genuine pair is held
        ("2S2S3S3S", "2S2S2S2S3S5S5S", "2S2S2S2S", LP, True),
        ("3S3S5S", "2S2S2S5S5S6S", "2S2S2S", LP, False),
        ("3S3S5S", "2S2S2S5S5S6S", "5S5S2S", LP, True),
        ("3S3S5S", "2S2S2S6S7S8S", "2S2S2S", LP, True),
    ],
)
def test_follow_cases(lead: str, hand: str, play: str, policy: str, legal: bool) -> None:
    code = follow_error(cards(hand), cards(lead), cards(play), T4S, policy)
    assert (code is None) is legal, code


def test_follow_triple_in_play_does_not_fill_a_pair_slot_when_a_pair_is_held() -> None:
    """Tractor of three pairs led in hearts; the hand KK 222 5 6 7 8."""
    lead = cards("THTHJHJHQHQH")
    hand = cards("KHKH 2H2H2H 5H 6H 7H 8H")
    assert follow_error(hand, lead, cards("2H2H2H 5H 6H 7H"), T4S, LP) == MUST_FOLLOW_PAIR
    assert follow_error(hand, lead, cards("2H2H KHKH 5H 6H"), T4S, LP) is None
    only_triple = cards("2H2H2H 5H 6H 7H 8H 9H JH")
    assert follow_error(only_triple, lead, cards("2H2H2H 5H 6H 7H"), T4S, LP) is None


def test_follow_protected_tractor_with_a_triple() -> None:
    """Hearts trump, level 4; spades led: the tractor 99TT and a single K; the hand
    3 5 T J Q 6 888 (spades) owes a pair from its triple unless protected."""
    lead = cards("9S9STSTSKS")
    hand = cards("3S 5S TS JS QS 6S 8S8S8S")
    assert follow_error(hand, lead, cards("3S5STSJSQS"), T4H, NP) == MUST_FOLLOW_PAIR
    assert follow_error(hand, lead, cards("3S5STSJSQS"), T4H, LP) is None
    assert follow_error(hand, lead, cards("3S6S8S8S8S"), T4H, NP) is None
    assert follow_error(hand, lead, cards("3S6S8S8S8S"), T4H, LP) is None


def test_follow_genuine_pair_left_in_hand_under_protection() -> None:
    """Hearts trump, level 4: spade tractor 6677 + single 5; the hand 666 88 (and JJ)."""
    lead = cards("6S6S7S7S5S")
    exact = cards("6S6S6S8S8S")
    assert follow_error(exact, lead, exact, T4H, LP) is None
    extra = cards("6S6S6S8S8SJSJS")
    assert follow_error(extra, lead, exact, T4H, LP) == MUST_FOLLOW_PAIR
    assert follow_error(extra, lead, cards("6S6S8S8SJSJS")[:5], T4H, LP) is None


def test_follow_long_tractor_draws_pairs() -> None:
    """Level K, spades trump: lead 778899; the follower must give its KSKS pair."""
    trump = Trump("K", "S")
    lead = cards("7S7S8S8S9S9S")
    hand = cards("4S TS AS KH KD KC KS KS")
    for policy in (NP, LP):
        assert follow_error(hand, lead, cards("4STSASKHKDKC"), trump, policy) == MUST_FOLLOW_PAIR
        assert follow_error(hand, lead, cards("4STSASKHKSKS"), trump, policy) is None


def test_spec_following_examples() -> None:
    """RULES-SPEC.md §9.2: a led quad QQQQ by a tractor of pairs 5566 if held; a led triple by a
    pair and a single; a led pair from a triple under no_protections only."""
    trump = Trump("2", "H")
    quad = cards("QSQSQSQS")
    hand = cards("5S5S6S6S 9S9S9S 3S")
    assert follow_error(hand, quad, cards("5S5S6S6S"), trump) is None
    assert follow_error(hand, quad, cards("9S9S9S3S"), trump) == MUST_FOLLOW_TRACTOR
    triple = cards("QSQSQS")
    assert follow_error(cards("9S9S 8S 3S"), triple, cards("9S9S3S"), trump) is None
    assert follow_error(cards("9S9S 8S 3S"), triple, cards("9S8S3S"), trump) == MUST_FOLLOW_PAIR
    pair = cards("QSQS")
    assert follow_error(cards("9S9S9S 3S"), pair, cards("9S3S"), trump, NP) == MUST_FOLLOW_PAIR
    assert follow_error(cards("9S9S9S 3S"), pair, cards("9S3S"), trump, LP) is None
    # a led tractor of triples by a tractor of three pairs before a triple
    lead = cards("3S3S3S4S4S4S")
    hand = cards("7S7S8S8S9S9S JSJSJS")
    assert follow_error(hand, lead, cards("7S7S8S8S9S9S"), trump) is None
    assert follow_error(hand, lead, cards("JSJSJS7S7S8S"), trump) == MUST_FOLLOW_TRACTOR
    # a longer tuple whole may not fill a shorter slot while a tuple of exactly that size is held
    assert follow_error(cards("9S9S9S 3S3S 4S"), cards("QSQSJS"), cards("9S9S9S"), trump, LP) == (
        MUST_FOLLOW_PAIR
    )
    # splitting a quad into two pairs for two pair slots is allowed
    two_pairs = cards("KSKS 9S9S")
    assert follow_error(cards("7S7S7S7S 3S3S 4S"), two_pairs, cards("7S7S7S7S"), trump, LP) is None


def test_missed_triple_reports_must_follow_pair_and_tractor_reports_tractor() -> None:
    trump = Trump("2", "H")
    assert (
        follow_error(cards("9S9S9S 3S 4S 5S"), cards("QSQSQS"), cards("3S4S5S"), trump)
        == MUST_FOLLOW_PAIR
    )
    assert (
        follow_error(
            cards("9S9S9S8S8S8S 3S 4S"), cards("QSQSQSKSKSKS"), cards("9S9S9S8S3S4S"), trump
        )
        == MUST_FOLLOW_TRACTOR
    )


# --- winner -----------------------------------------------------------------------------------


def winner(plays: list[str], trump: Trump) -> int:
    return trick_winner([cards(p) for p in plays], trump)


@pytest.mark.parametrize(
    ("plays", "trump", "expected"),
    [
        (["2S", "5S", "3S", "5S"], T4S, 1),  # singles; equal cards: the first played
        (["2S", "4S", "3S", "5S"], T4S, 1),  # the trump-suit level card
        (["2S2S", "3S4S", "5S5S", "3S5S"], T4S, 2),  # pairs
        (["2S2S3S3S", "6S6S7S7S", "2S5S5S5S", "6S6S6S6S"], T4S, 1),  # a quad is no tractor
        # a throw: pair + two singles in hearts; P3 ruffs with a pair
        (["8H8H7H2H", "2H2S2S2S", "2S2S3S4S", "3H3H3H3H"], T4S, 2),
        # the same with a ruff of four trump-suit level cards: its pair 4S4S is the key
        (["8H8H7H2H", "2H2S2S2S", "2S2S3S4S", "4S4S4S4S"], T4S, 3),
        # a ruff of a triple + pair + single: the triple decides
        (["AHKHKHKH9H9H", "5S5S5SQSQSAS", "5S5S5SASAS4S", "4S4S4S3S3SBJ"], T2S, 1),
        # the tractor with a single: a ruffing tractor wins, a same-suit tuple of 3 cannot split
        (["QSQSKSKSAS", "2H2H3HAH3H", "ASAS3S3S3S", "3S3S3S3S2S"], T4H, 1),
        # triples: higher triple wins; a quad can be a triple and a single
        (["9S9S9S", "JSJSJS", "KSKSKS", "QSQSQS"], Trump("2", "H"), 2),
        (["9S9S9S3S", "JSJSJSJS", "TSTSTS4S", "KSKS2H2H"], Trump("2", "H"), 1),
        # a tractor of triples against a ruff of a tractor of triples
        (["3S3S3S4S4S4S", "7H7H7H8H8H8H", "9S9S9STSTSTS", "2H2H2H3H3H3H"], Trump("5", "H"), 1),
        # a tractor of pairs is no answer to a tractor of triples
        (["3S3S3S4S4S4S", "7H7H8H8H9H9H", "9S9S9STSTSTS", "2H2H2H3H3H4H"], Trump("5", "H"), 2),
    ],
)
def test_trick_winner_cases(plays: list[str], trump: Trump, expected: int) -> None:
    assert winner(plays, trump) == expected


def test_winner_key_is_the_lead_tractor_of_the_largest_tuples() -> None:
    """RULES-SPEC.md §9.2 Winning: with a tractor in the lead the key is its tractor (the largest
    tuples, longest first), not a higher tuple: lead 333444 + 99 in spades; ruffs."""
    trump = Trump("2", "H")
    plays = ["3S3S3S4S4S4S9S9S", "5H5H5H6H6H6HAHAH", "AHAHAHKHKHKH3H3H"]
    assert winner(plays, trump) == 2
    plays = ["3S3S3S4S4S4S9S9S", "AHAHAHKHKHKH3H3H", "5H5H5H6H6H6HAHAH"]
    assert winner(plays, trump) == 1


def test_six_and_eight_plays_have_one_winner() -> None:
    trump = Trump("2", "H")
    plays = ["9S9S9S", "3S4S5S", "JSJSJS", "3H3H3H", "QSQSQS", "3H3H3H", "AHAH4H", "4H4H4H"]
    assert winner(plays, trump) == 7
    assert winner(plays[:6], trump) == 3
    assert is_discard(cards("AHAH4H"), cards("9S9S9S"), trump)
    assert not is_discard(cards("3H3H3H"), cards("9S9S9S"), trump)


# --- throws -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "others", "forced_part", "expected"),
    [
        # triple + single: a higher single forces the single (by kind: singles first)
        ("ASASAS 9S", ["TS", "2H"], "by_kind", "9S"),
        ("ASASAS 9S", ["TS", "2H"], "lowest", "9S"),
        # a higher triple forces the triple; a higher pair does not beat a triple
        ("KSKSKS AS", ["ASAS"], "by_kind", None),
        ("QSQSQS AS", ["KSKSKS"], "by_kind", "QSQSQS"),
        ("QSQSQS AS", ["KSKSKSKS"], "by_kind", "QSQSQS"),  # a quad holds a triple
        # by kind: pairs before triples, triples before quads, tuples before tractors
        ("QSQSQS 9S9S AS", ["KSKSKS TSTS"], "by_kind", "9S9S"),
        ("QSQSQS 9S9S AS", ["KSKSKS TSTS"], "lowest", "9S9S"),
        ("QSQSQS 6S6S6S6S AS", ["KSKSKS 7S7S7S7S"], "by_kind", "QSQSQS"),
        ("QSQSQS 6S6S6S6S AS", ["KSKSKS 7S7S7S7S"], "lowest", "6S6S6S6S"),
        ("5S5S5S6S6S6S 9S9S9S AS", ["JSJSJS 7S7S7S8S8S8S"], "by_kind", "9S9S9S"),
        ("5S5S5S6S6S6S 9S9S9S AS", ["JSJSJS 7S7S7S8S8S8S"], "lowest", "6S6S6S5S5S5S"),
        # a tractor of triples is beaten by a higher tractor of triples, not of pairs
        ("5S5S5S6S6S6S AS", ["7S7S8S8S9S9S"], "by_kind", None),
        ("5S5S5S6S6S6S AS", ["7S7S7S8S8S8S"], "by_kind", "6S6S6S5S5S5S"),
        # checked against seven other hands
        ("QSQSQS AS", ["2H", "3H", "4H", "5H", "6H", "7H", "KSKSKS"], "by_kind", "QSQSQS"),
        ("QSQSQS AS", ["2H", "3H", "4H", "5H", "6H", "7H", "JSJSJS"], "by_kind", None),
    ],
)
def test_throw_cases(lead: str, others: list[str], forced_part: str, expected: str | None) -> None:
    trump = Trump("2", "H")
    forced = throw_check(cards(lead), [cards(o) for o in others], trump, forced_part)
    if expected is None:
        assert forced is None
    else:
        assert forced == cards(expected)


# --- kitty multiplier and lead choices ----------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "expected"),
    [
        ("AS", 2),
        ("ASAS", 4),
        ("ASASAS", 6),
        ("ASASAS KS", 6),
        ("ASASASAS", 8),
        ("3S3S4S4S", 8),
        ("3S3S3S4S4S4S", 12),
        ("3S3S3S4S4S4S 7S7S8S8S9S9STSTS", 16),
        ("QSQSQSQSKSKSKSKS", 16),
    ],
)
def test_kitty_units_multiplier(lead: str, expected: int) -> None:
    assert kitty_units_multiplier(cards(lead), Trump("2", "H")) == expected


def test_tuple_lead_choices() -> None:
    trump = Trump("2", "H")
    hand = cards("3S3S3S 4S4S4S 5S5S 9C")
    choices = {" ".join(c.text for c in cards_ids) for cards_ids in _as_cards(hand, trump)}
    for wanted in [
        "3S",
        "9C",
        "3S 3S",
        "3S 3S 3S",
        "5S 5S",
        "3S 3S 4S 4S",
        "3S 3S 4S 4S 5S 5S",
        "3S 3S 3S 4S 4S 4S",
        "4S 4S 5S 5S",
    ]:
        assert wanted in choices
    assert "3S 3S 3S 3S" not in choices
    assert "4S 4S 4S 5S 5S 5S" not in choices
    assert len(choices) == len(_as_cards(hand, trump))


def _as_cards(hand: list[Card], trump: Trump) -> list[list[Card]]:
    return [as_cards(choice) for choice in tuple_lead_choices(hand, trump)]


def test_legal_follow_is_legal_on_the_cases() -> None:
    hand = cards("2S2S2S2S3S5S5S 9H")
    for policy in (NP, LP):
        play = legal_follow(hand, cards("2S2S3S3S"), T4S, draw_policy=policy)
        assert follow_error(hand, cards("2S2S3S3S"), play, T4S, policy) is None
