"""House options of bidding (RULES-SPEC.md §10.18 ``bid_order``, §10.19 ``bid_reinforce``,
§10.20 ``joker_bids``, §10.21 ``flip_rule``'s two more values): every worked example and every
refusal of the spec, the turned-over kitty, records, the views' legal bids and the bots."""

from __future__ import annotations

from random import Random

import pytest

from shengji.bots import SearchBudget, make_bot
from shengji.bots.play import HandStats, play_hand
from shengji.engine import (
    HOUSE_OPTIONS,
    HOUSE_RULE_OPTIONS,
    PRESETS,
    flip_kitty,
    flip_trump,
    legal_actions,
    new_hand,
    parse_cards,
    preset,
    record_of,
    replay_final,
)
from shengji.engine.bidding import (
    DEFAULT_BID_OPTIONS,
    BidOptions,
    bid_error,
    legal_bids,
    showing_error,
)
from shengji.engine.errors import ShengjiError
from shengji.engine.hand import BURYING, HandState
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.rules import RefusedOptionError, RuleSet
from shengji.engine.selfplay import check_invariants
from shengji.engine.views import view_all
from tests.engine.hand_helpers import designed_deck, draw_all, finish, hand_for
from tests.engine.house_helpers import house_rules

cards = parse_cards
BID_OPTIONS = ("bid_order", "bid_reinforce", "joker_bids")


def strength(**options: str) -> RuleSet:
    """The ranked preset (``bidding = strength``) with bidding house options."""
    return preset("ranked").with_options(name="house", **options)


def table(rules: RuleSet, hands: dict[int, str], level: str = "7") -> HandState:
    """A first hand at ``level`` whose seats receive the given cards first, dealt to the end."""
    deck = designed_deck(hands, fill_seed=9)
    return draw_all(hand_for(rules, decks=[deck], levels=(level, level)))


def refused(state: HandState, action: str) -> str:
    with pytest.raises(ShengjiError) as caught:
        state.apply(action)
    return caught.value.code


def trump_at_close(state: HandState) -> str | None:
    state.apply("close")
    assert state.phase == BURYING and state.trump is not None
    return state.trump.suit


def bids_offered(state: HandState, seat: int) -> list[str]:
    return [str(action) for action in legal_actions(state, seat)]


# --- the options: defaults, records, refusals ----------------------------------------------


def test_the_bidding_options_are_house_options_left_out_of_records_at_their_defaults() -> None:
    assert HOUSE_OPTIONS["bid_order"] == ("jokers_high", "suit_order", "length_only")
    reinforce = ("any_stronger", "reinforce_only", "reinforce_to_match")
    assert HOUSE_OPTIONS["bid_reinforce"] == reinforce
    assert HOUSE_OPTIONS["joker_bids"] == (
        "pair_or_more",
        "all_copies",
        "small_all_big_less_one",
        "none",
    )
    for rules in PRESETS.values():
        assert not set(BID_OPTIONS) & set(rules.to_dict()["options"])
        assert rules.bid_options is DEFAULT_BID_OPTIONS
    rules = strength(bid_order="suit_order", bid_reinforce="reinforce_to_match", joker_bids="none")
    options = rules.to_dict()["options"]
    assert (options["bid_order"], options["bid_reinforce"], options["joker_bids"]) == (
        "suit_order",
        "reinforce_to_match",
        "none",
    )
    assert RuleSet.from_json(rules.to_json()) == rules
    assert rules.bid_options == BidOptions("suit_order", "reinforce_to_match", "none")


@pytest.mark.parametrize("bidding", ["count", "reinforce"])
@pytest.mark.parametrize(
    ("option", "value", "reason"),
    [
        ("bid_order", "suit_order", "bid_order_needs_strength"),
        ("bid_order", "length_only", "bid_order_needs_strength"),
        ("bid_reinforce", "reinforce_only", "bid_reinforce_needs_strength"),
        ("bid_reinforce", "reinforce_to_match", "bid_reinforce_needs_strength"),
        ("joker_bids", "small_all_big_less_one", "joker_bids_needs_strength"),
    ],
)
def test_options_of_the_strength_order_are_refused_under_count_and_reinforce(
    bidding: str, option: str, value: str, reason: str
) -> None:
    with pytest.raises(RefusedOptionError) as caught:
        preset("ranked").with_options(bidding=bidding, **{option: value})
    assert caught.value.reason == reason and caught.value.code == "invalid_option"
    # A change of bidding that leaves the combination excluded is refused the same way.
    with pytest.raises(RefusedOptionError) as caught:
        strength(**{option: value}).with_options(bidding=bidding)
    assert caught.value.reason == reason


@pytest.mark.parametrize("bidding", ["count", "reinforce"])
@pytest.mark.parametrize("jokers", ["all_copies", "none"])
def test_all_copies_and_no_joker_bids_go_with_any_bidding(bidding: str, jokers: str) -> None:
    rules = preset("ranked").with_options(bidding=bidding, joker_bids=jokers)
    assert rules.joker_bids == jokers


def test_without_jokers_joker_bids_is_not_read() -> None:
    rules = house_rules(deck_jokers="none", joker_bids="small_all_big_less_one")
    assert rules.joker_bids == "small_all_big_less_one"


def test_an_unknown_value_is_refused() -> None:
    for option in BID_OPTIONS:
        with pytest.raises(ShengjiError) as caught:
            strength(**{option: "loudest"})
        assert caught.value.code == "invalid_option"


# --- §10.18 bid_order ------------------------------------------------------------------------

EXAMPLE_HANDS = {0: "7H", 1: "7D 7D", 2: "7S 7S", 3: "SJ SJ"}


def test_jokers_high_refuses_a_higher_suit_at_equal_count() -> None:
    state = table(strength(), EXAMPLE_HANDS)
    state.apply("bid 0 7H")
    state.apply("bid 1 7D 7D")
    assert refused(state, "bid 2 7S 7S") == "bid_too_weak"
    state.apply("bid 3 SJ SJ")
    assert trump_at_close(state) is None


def test_suit_order_lets_a_higher_suit_stand_and_jokers_beat_both() -> None:
    state = table(strength(bid_order="suit_order"), EXAMPLE_HANDS)
    state.apply("bid 0 7H")
    state.apply("bid 1 7D 7D")
    state.apply("bid 2 7S 7S")
    assert refused(state, "bid 1 7D 7D") == "bid_too_weak"  # D < S
    state.apply("bid 3 SJ SJ")
    assert [bid.seat for bid in state.bids] == [0, 1, 2, 3]
    assert trump_at_close(state) is None and state.dealer == 3


def test_suit_order_s_h_c_d_and_a_single_never_beats_a_single() -> None:
    state = table(strength(bid_order="suit_order"), {0: "7D 7D", 1: "7C 7C", 2: "7H 7H 7S"})
    state.apply("bid 2 7H")
    assert refused(state, "bid 2 7S") == "bid_too_weak"  # a single never beats a single
    state.apply("bid 0 7D 7D")
    state.apply("bid 1 7C 7C")  # C > D
    assert refused(state, "bid 0 7D 7D") == "bid_too_weak"
    state.apply("bid 2 7H 7H")  # H > C
    assert trump_at_close(state) == "H"


def test_length_only_the_first_pair_stands_for_good_with_two_decks() -> None:
    state = table(strength(bid_order="length_only"), {**EXAMPLE_HANDS, 0: "7H BJ BJ"})
    state.apply("bid 0 7H")
    state.apply("bid 1 7D 7D")
    for action in ("bid 2 7S 7S", "bid 3 SJ SJ", "bid 0 BJ BJ"):
        assert refused(state, action) == "bid_too_weak"
    assert all(bids_offered(state, seat) == [] for seat in range(4))
    assert trump_at_close(state) == "D"


def test_as_bids_reads_the_kitty_in_the_same_order() -> None:
    level_pairs = cards("7D 7D 7S 7S 3C 4C 5C 6C")
    assert flip_trump(level_pairs, "7", "as_bids", "strength") == "D"
    suit_order = BidOptions(order="suit_order")
    assert flip_trump(level_pairs, "7", "as_bids", "strength", 2, suit_order) == "S"
    pair_then_jokers = cards("7D 7D SJ SJ 3C 4C 5C 6C")
    assert flip_trump(pair_then_jokers, "7", "as_bids", "strength") is None
    length_only = BidOptions(order="length_only")
    assert flip_trump(pair_then_jokers, "7", "as_bids", "strength", 2, length_only) == "D"


def test_a_hand_flips_as_bids_by_suit_order() -> None:
    rules = preset("seed000").with_options(bid_order="suit_order")
    deck = designed_deck(kitty="7D 7D 7S 7S 3C 4C 5C 6C", fill_seed=4)
    state = hand_for(rules, decks=[deck], dealer=3, levels=("7", "7"))
    draw_all(state)
    assert trump_at_close(state) == "S" and len(state.flipped) == 8


# --- §10.19 bid_reinforce --------------------------------------------------------------------


def test_reinforce_only_the_standing_bidder_only_adds_copies_of_its_card() -> None:
    hands = {0: "7H 7H 7S 7S BJ BJ"}
    state = table(strength(bid_reinforce="reinforce_only"), hands)
    state.apply("bid 0 7H")
    assert refused(state, "bid 0 7S 7S") == "bid_own_overcall"
    assert refused(state, "bid 0 BJ BJ") == "bid_own_overcall"
    assert bids_offered(state, 0) == ["bid 0 7H 7H"]
    state.apply("bid 0 7H 7H")
    assert [bid.kind for bid in state.bids] == ["first", "self_reinforce"]
    assert trump_at_close(state) == "H"
    # Today's any_stronger: the standing bidder may bid anything stronger.
    state = table(strength(), hands)
    state.apply("bid 0 7H")
    assert {"bid 0 7H 7H", "bid 0 7S 7S", "bid 0 BJ BJ"} <= set(bids_offered(state, 0))


def test_reinforce_only_others_overcall_as_usual() -> None:
    state = table(strength(bid_reinforce="reinforce_only"), {0: "7H", 1: "7S 7S", 2: "SJ SJ"})
    state.apply("bid 0 7H")
    state.apply("bid 1 7S 7S")
    assert refused(state, "bid 0 7H") == "bid_too_weak"
    state.apply("bid 2 SJ SJ")
    assert trump_at_close(state) is None


def test_reinforce_to_match_an_overcalled_seat_matches_the_count_and_stands() -> None:
    hands = {0: "7H 7H", 1: "7S 7S SJ SJ"}
    state = table(strength(bid_reinforce="reinforce_to_match"), hands)
    state.apply("bid 0 7H")
    state.apply("bid 1 7S 7S")
    assert "bid 0 7H 7H" in bids_offered(state, 0)
    state.apply("bid 0 7H 7H")
    assert [bid.kind for bid in state.bids] == ["first", "overturn", "overturn"]
    # The seat overcalled by the match shows the same again: no more copies, so no match.
    assert refused(state, "bid 1 7S 7S") == "bid_too_weak"
    assert trump_at_close(state) == "H" and state.dealer == 0


def test_reinforce_to_match_never_over_a_joker_showing() -> None:
    hands = {0: "7H 7H", 1: "7S 7S SJ SJ"}
    state = table(strength(bid_reinforce="reinforce_to_match"), hands)
    state.apply("bid 0 7H")
    state.apply("bid 1 SJ SJ")
    assert refused(state, "bid 0 7H 7H") == "bid_too_weak"
    assert "bid 0 7H 7H" not in bids_offered(state, 0)
    assert trump_at_close(state) is None


def test_reinforce_to_match_is_refused_under_reinforce_only() -> None:
    state = table(strength(bid_reinforce="reinforce_only"), {0: "7H 7H", 1: "7S 7S"})
    state.apply("bid 0 7H")
    state.apply("bid 1 7S 7S")
    assert refused(state, "bid 0 7H 7H") == "bid_too_weak"


def test_a_match_under_suit_order_stands_though_its_suit_is_lower() -> None:
    rules = strength(bid_order="suit_order", bid_reinforce="reinforce_to_match")
    state = table(rules, {0: "7D 7D", 1: "7S 7S", 2: "7C 7C"})
    state.apply("bid 0 7D")
    state.apply("bid 1 7S 7S")
    state.apply("bid 0 7D 7D")  # D < S, but a match stands
    state.apply("bid 2 7C 7C")  # C > D: beats the standing match
    assert trump_at_close(state) == "C"


def test_a_seat_that_never_bid_has_nothing_to_match() -> None:
    rules = BidOptions(reinforce="reinforce_to_match")
    standing_hand = table(strength(bid_reinforce="reinforce_to_match"), {0: "7H", 1: "7S 7S"})
    standing_hand.apply("bid 0 7H")
    standing_hand.apply("bid 1 7S 7S")
    error = bid_error(
        "strength",
        "7",
        standing_hand.standing_bid,
        2,
        cards("7C 7C"),
        cards("7C 7C"),
        2,
        rules,
        standing_hand.bids,
    )
    assert error == "bid_too_weak"


# --- §10.20 joker_bids -----------------------------------------------------------------------


def test_all_copies_three_decks_needs_three_jokers() -> None:
    assert showing_error(cards("BJ BJ"), "7", 3, "all_copies") == "bid_not_showable"
    assert showing_error(cards("BJ BJ BJ"), "7", 3, "all_copies") is None
    assert showing_error(cards("BJ BJ"), "7", 3) is None  # today's pair_or_more
    hand = cards("BJ BJ BJ SJ SJ 7H")
    options = BidOptions(jokers="all_copies")
    assert legal_bids("strength", "7", None, 0, hand, 3, options) == [
        tuple(cards("7H")),
        tuple(cards("BJ BJ BJ")),
    ]


def test_small_all_big_less_one_a_lone_big_joker_between_a_level_single_and_pair() -> None:
    rules = strength(joker_bids="small_all_big_less_one")
    state = table(rules, {0: "7H", 1: "BJ SJ", 2: "7D 7D"})
    assert refused(state, "bid 1 SJ") == "bid_not_showable"
    state.apply("bid 0 7H")
    state.apply("bid 1 BJ")  # beats 7H
    assert state.bids[-1].kind == "no_trump_overturn"
    state.apply("bid 2 7D 7D")  # beats BJ
    assert trump_at_close(state) == "D"
    state = table(rules, {0: "7H", 1: "BJ"})
    state.apply("bid 1 BJ")
    assert refused(state, "bid 0 7H") == "bid_too_weak"
    assert trump_at_close(state) is None and state.dealer == 1


def test_small_all_big_less_one_small_jokers_need_every_copy() -> None:
    options = BidOptions(jokers="small_all_big_less_one")
    assert showing_error(cards("SJ SJ"), "7", 2, "small_all_big_less_one") is None
    assert showing_error(cards("SJ SJ"), "7", 3, "small_all_big_less_one") == "bid_not_showable"
    assert showing_error(cards("BJ BJ"), "7", 3, "small_all_big_less_one") is None
    assert showing_error(cards("BJ"), "7", 3, "small_all_big_less_one") == "bid_not_showable"
    hand = cards("SJ SJ BJ")
    assert legal_bids("strength", "7", None, 0, hand, 2, options) == [
        tuple(cards("SJ SJ")),
        tuple(cards("BJ")),
    ]


@pytest.mark.parametrize("bidding", ["strength", "count", "reinforce"])
def test_no_joker_bids_under_none(bidding: str) -> None:
    rules = preset("ranked").with_options(bidding=bidding, joker_bids="none")
    state = table(rules, {0: "BJ BJ 7H", 1: "SJ SJ"})
    assert refused(state, "bid 0 BJ BJ") == "bid_not_showable"
    assert refused(state, "bid 1 SJ SJ") == "bid_not_showable"
    offered = bids_offered(state, 0)
    assert "bid 0 7H" in offered and not any("J" in action for action in offered)


def test_flips_under_joker_bids() -> None:
    # first_card and any_card still read a joker turned as no-trump.
    kitty = cards("SJ 7H 3C 4C 5C 6C 8C 9C")
    assert flip_trump(kitty, "7", "first_card") is None
    assert flip_trump(kitty, "7", "any_card") is None
    # as_bids reads showings as the option allows: no joker pair under none.
    kitty = cards("7H SJ SJ 3C 4C 5C 6C 8C")
    assert flip_trump(kitty, "7", "as_bids") is None
    none = BidOptions(jokers="none")
    assert flip_trump(kitty, "7", "as_bids", "strength", 2, none) == "H"
    assert flip_trump(kitty, "7", "as_bids", "count", 2, none) == "H"
    # A lone big joker is a showing under small_all_big_less_one.
    lone = BidOptions(jokers="small_all_big_less_one")
    kitty = cards("7H BJ 3C 4C 5C 6C 8C 9C")
    assert flip_trump(kitty, "7", "as_bids") == "H"
    assert flip_trump(kitty, "7", "as_bids", "strength", 2, lone) is None


# --- §10.21 flip_rule: any_card, level_or_highest --------------------------------------------


def test_the_flip_rules_are_house_values_and_presets_keep_theirs() -> None:
    assert HOUSE_OPTIONS["flip_rule"] == ("first_card", "as_bids", "any_card", "level_or_highest")
    assert HOUSE_RULE_OPTIONS["flip_rule"] == ("first_card", "as_bids")
    assert [rules.flip_rule for rules in PRESETS.values()] == [
        "first_card",
        "as_bids",
        "first_card",
        "first_card",
        "first_card",
    ]
    rules = preset("seed004").with_options(flip_rule="level_or_highest")
    assert RuleSet.from_json(rules.to_json()).flip_rule == "level_or_highest"


def test_a_level_card_third() -> None:
    kitty = cards("3C 9H 7S 4D 5D 6D 8D 9D")
    assert flip_kitty(kitty, "7", "any_card") == (kitty[:1], "C")
    assert flip_kitty(kitty, "7", "first_card") == (kitty[:3], "S")
    assert flip_kitty(kitty, "7", "level_or_highest") == (kitty[:3], "S")


def test_no_level_card_and_no_joker_the_highest_rank_names_the_trump() -> None:
    kitty = cards("3C 9H AS 5D QC KS 2H 8D")
    assert flip_kitty(kitty, "7", "first_card") == (kitty, None)
    assert flip_kitty(kitty, "7", "level_or_highest") == (kitty, "S")
    # Equal ranks: the earliest turned.
    assert flip_trump(cards("3C KH 5D KS"), "7", "level_or_highest") == "H"
    # A joker turned before any level card: no-trump, as first_card.
    assert flip_kitty(cards("3C BJ 7S"), "7", "level_or_highest") == (cards("3C BJ"), None)


@pytest.mark.parametrize(
    ("rule", "suit", "turned"), [("any_card", "C", 1), ("level_or_highest", "S", 8)]
)
def test_a_hand_turns_the_kitty_by_the_new_rules(rule: str, suit: str, turned: int) -> None:
    rules = preset("seed004").with_options(flip_rule=rule)
    deck = designed_deck(kitty="3C 9H AS 5D QC KS 2H 8D", fill_seed=4)
    state = hand_for(rules, decks=[deck], dealer=3, levels=("7", "7"))
    draw_all(state)
    assert trump_at_close(state) == suit and len(state.flipped) == turned
    state.apply("bury 3 3C 9H AS 5D QC KS 2H 8D")
    finish(state)
    assert state.result is not None and state.result.trump_suit == suit
    replayed = replay_final(record_of(state))
    assert replayed.result == state.result


# --- whole hands: records, invariants, bots --------------------------------------------------

HOUSE_BIDDING = [
    {"bid_order": "suit_order", "bid_reinforce": "reinforce_to_match"},
    {"bid_order": "length_only", "bid_reinforce": "reinforce_only", "joker_bids": "all_copies"},
    {"joker_bids": "small_all_big_less_one", "flip_rule": "level_or_highest"},
    {"joker_bids": "none", "flip_rule": "any_card"},
]


@pytest.mark.parametrize("options", HOUSE_BIDDING)
@pytest.mark.parametrize(("players", "mode"), [(4, "tractor"), (5, "friends"), (6, "tractor")])
def test_random_hands_under_the_bidding_options_replay_from_their_records(
    options: dict[str, str], players: int, mode: str
) -> None:
    rules = preset("ranked").with_options(players=players, mode=mode, **options)
    slots = players if mode == "friends" else 2
    for seed in range(3):
        dealer = None if seed == 0 else seed % players
        state = new_hand(rules, seed, levels=("2",) * slots, dealer=dealer)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        check_invariants(state)
        replayed = replay_final(record_of(state))
        assert view_all(replayed) == view_all(state)


@pytest.mark.parametrize("options", HOUSE_BIDDING)
def test_bots_bid_under_the_bidding_options(options: dict[str, str]) -> None:
    rules = preset("ranked").with_options(**options)
    budget = SearchBudget(max_samples=4, max_ms=None)
    for name in ("basic", "search", "random"):
        state = new_hand(rules, 5, levels=("2", "2"))
        stats = HandStats()
        bots = [make_bot(name, seed=seat, budget=budget) for seat in range(4)]
        play_hand(state, bots, stats)
        assert state.result is not None and stats.refused == []
