"""One test per point where RULES.md is silent and docs/RULES-DECISIONS.md records a decision."""

from __future__ import annotations

from shengji.engine import (
    Shape,
    Trump,
    follow_error,
    format_cards,
    kitty_multiplier,
    legal_follow,
    parse_cards,
    shape_splits,
    split_cards,
    throw_check,
    throw_outcome,
    trick_winner,
)

T_H = Trump("T", "H")
cards = parse_cards


def _follow(hand: str, lead: str, play: str, trump: Trump = T_H) -> str | None:
    return follow_error(cards(hand), cards(lead), cards(play), trump)


def test_follow_owes_the_lexicographically_best_structure() -> None:
    # Lead tractors 3 + 2; the hand's five-long run K Q J 9 8 can serve both (top 3 + bottom 2).
    hand = "KSKSQSQSJSJS9S9S8S8S 4S AS"
    lead = "7S7S6S6S5S5S 3S3S2S2S"
    assert _follow(hand, lead, "KSKSQSQSJSJS9S9S8S8S") is None
    assert _follow(hand, lead, "KSKSQSQSJSJS 9S9S 4S AS") == "must_follow_tractor"


def test_longest_lead_tractor_is_served_first() -> None:
    # Lead tractors 3 + 2 against a four-long run: the 3 is owed (the run can give 3, or 2 + 2,
    # never 3 + 2), then pairs; two 2-tractors from the run are the same cards, so also legal.
    hand = "9S9S8S8S7S7S6S6S 2S2S QS"
    lead = "ASASKSKSQSQS 5S5S4S4S"
    assert _follow(hand, lead, "9S9S8S8S7S7S6S6S2S2S") is None
    assert _follow(hand, lead, "9S9S8S8S7S7S 2S2S QS 6S") == "must_follow_pair"


def test_four_long_tractor_serves_two_lead_tractors() -> None:
    hand = "KSKSQSQSJSJS9S9S 2S 3S"
    lead = "5S5S4S4S 8S8S7S7S"
    assert _follow(hand, lead, "KSKSQSQSJSJS9S9S") is None
    assert _follow(hand, lead, "KSKSQSQS 2S 3S JS 9S") == "must_follow_tractor"


def test_unmatched_lead_tractor_owes_pairs_not_a_shorter_tractor() -> None:
    # No three-long run in hand: three pairs are owed, and breaking the Q-J run is allowed.
    hand = "QSQS JSJS 8S8S 3S3S"
    lead = "6S6S5S5S4S4S"
    assert _follow(hand, lead, "QSQS 8S8S 3S3S") is None
    assert _follow(hand, lead, "QSQS 8S8S 3S JS") == "must_follow_pair"


def test_follow_reports_the_first_broken_obligation() -> None:
    # Short of the suit, no pair played, wrong cards: the count and the hand come first.
    assert _follow("7S7S 3D", "KSKS", "7S 3D 3D") == "wrong_count"
    assert _follow("7S7S 3D", "KSKS", "7S 4D") == "cards_not_in_hand"
    assert _follow("7S7S 9S 3D", "KSKS", "7S 3D") == "must_follow_suit"


def test_a_longer_tractor_in_another_hand_beats_a_thrown_tractor() -> None:
    forced = throw_check(cards("AS 6S6S5S5S"), [cards("9S9S8S8S7S7S"), [], []], T_H)
    assert forced is not None and format_cards(forced) == "6S 6S 5S 5S"


def test_smallest_failing_tractor_is_the_shortest_then_the_lowest() -> None:
    lead = cards("6S6S5S5S4S4S JSJS9S9S")
    forced = throw_check(lead, [cards("ASASKSKSQSQS"), [], []], T_H)
    assert forced is not None and format_cards(forced) == "JS JS 9S 9S"


def test_forced_single_among_equal_level_cards_is_the_later_suit() -> None:
    forced = throw_check(cards("TS TC"), [cards("TH"), [], []], T_H)
    assert forced is not None and format_cards(forced) == "TC"


def test_rejected_throw_penalty_counts_every_card() -> None:
    outcome = throw_outcome(
        cards("9S 8S8S 4S4S"), [cards("JS"), [], []], T_H, failed_throw="reject", throw_penalty=10
    )
    assert (outcome.result, outcome.penalty, len(outcome.taken_back)) == ("rejected", 50, 5)


def test_lead_split_puts_the_first_suits_level_pair_in_the_tractor() -> None:
    assert str(split_cards(cards("THTH TSTS TCTC AHAH"), T_H)) == "THTHTSTSAHAH TCTC"
    assert str(split_cards(cards("2C2C 2H2H SJSJ"), Trump("2", None))) == "SJSJ2H2H 2C2C"


def test_winner_key_is_not_taken_from_other_parts() -> None:
    # Tractor + pair lead: the ruff's tractor top decides, not its higher pair.
    plays = [cards("5S5S4S4S 9S9S"), cards("8H8H7H7H6H6H"), cards("AHAH 2H2H3H3H")]
    assert trick_winner(plays, T_H) == 1
    assert len(list(shape_splits(plays[2], Shape((2,), 1, 0), T_H))) == 1


def test_winner_shape_any_tractor_is_8() -> None:
    assert kitty_multiplier(cards("2H2H3H3H4H4H"), T_H, "winner_shape") == 8


def test_winner_shape_reads_the_winning_play_by_its_own_split() -> None:
    ruff = cards("7H7H8H8H")  # wins against AS KS QS JS or ASAS QSQS alike: a tractor
    assert kitty_multiplier(ruff, T_H, "winner_shape") == 8
    assert kitty_multiplier(ruff, T_H, "pairs") == 8
    assert kitty_multiplier(cards("3S3S"), Trump("T", "S"), "winner_shape") == 4
    assert kitty_multiplier(cards("AHAH KH"), T_H, "winner_shape") == 4


def test_pairs_policy_one_pair_is_2_and_four_pairs_are_6() -> None:
    assert kitty_multiplier(cards("2H2H"), T_H, "pairs") == 2
    assert kitty_multiplier(cards("2H2H 5H5H 7H7H 9H9H"), T_H, "pairs") == 6
    assert kitty_multiplier(cards("2H2H3H3H 7H7H 9H9H"), T_H, "pairs") == 8


def test_legal_follow_spends_the_lowest_cards() -> None:
    hand = cards("AS KS 3S 2S 4D")
    assert format_cards(legal_follow(hand, cards("9S 8S"), T_H)) == "2S 3S"
