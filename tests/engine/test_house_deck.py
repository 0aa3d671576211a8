"""House options of the cards and the deal (RULES-SPEC.md §10.11 ``kitty_size``, §10.12
``deck_min_rank`` and ``deck_jokers``): the kitty, the cards removed, the deal at every table
shape, levels, friend calls, views, records and the bots."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from shengji.engine import HOUSE_OPTIONS, Match, new_hand, preset, view_for, view_public
from shengji.engine.action_errors import IllegalCallError, InvalidSetupError
from shengji.engine.cards import format_cards
from shengji.engine.hand import BURYING, HandState
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.record import record_of, replay_final
from shengji.engine.rules import RefusedOptionError, RuleSet
from shengji.engine.selfplay import check_invariants
from shengji.engine.views import view_all
from tests.engine.house_helpers import house_rules, last_trick, play_out


def dealt(rules: RuleSet, level: str = "2", seed: int = 3) -> HandState:
    """A hand dealt to its last card (nobody bids yet)."""
    slots = rules.players if rules.is_friends else 2
    state = new_hand(rules, seed, levels=(level,) * slots, dealer=0)
    for _ in range(state.draws):
        state.apply("draw")
    return state


def all_cards(state: HandState) -> Counter[int]:
    return Counter([c for hand in state.hands for c in hand] + state.kitty)


def assert_deal(state: HandState, kitty: int, each: int, removed: str) -> None:
    assert state.kitty_size == kitty == len(state.kitty)
    assert [len(hand) for hand in state.hands] == [each] * state.players
    assert format_cards(state.removed) == removed
    assert all_cards(state) == Counter({c: n for c, n in enumerate(state.copies) if n})
    decks = Counter({c: n for c, n in enumerate(state.rules.card_copies()) if n})
    assert decks - all_cards(state) == Counter(state.removed)


# --- §10.11 kitty_size -------------------------------------------------------------------


def test_kitty_size_is_a_house_option_left_out_of_records_at_its_default() -> None:
    assert HOUSE_OPTIONS["kitty_size"] is None
    for name in ("ranked", "seed000", "seed002", "seed003", "seed004"):
        rules = preset(name)
        assert rules.kitty_size == 0 and "kitty_size" not in rules.to_dict()["options"]
        assert not rules.has_deck_options
    rules = preset("ranked").with_options(kitty_size=6)
    assert rules.to_dict()["options"]["kitty_size"] == 6
    assert RuleSet.from_json(rules.to_json()) == rules


def test_a_kitty_of_6_at_level_5_removes_two_2s() -> None:
    state = dealt(house_rules(kitty_size=6), level="5")
    assert_deal(state, kitty=6, each=25, removed="2C 2D")


def test_a_kitty_of_8_at_six_seats_removes_the_four_3s_at_level_2() -> None:
    state = dealt(house_rules(6, kitty_size=8), level="2")
    assert state.decks == 3
    assert_deal(state, kitty=8, each=25, removed="3S 3H 3C 3D")


def test_a_kitty_of_12_deals_evenly_at_four_seats() -> None:
    state = dealt(house_rules(kitty_size=12))
    assert_deal(state, kitty=12, each=24, removed="")


def test_eight_seats_remove_six_cards_in_the_suit_order() -> None:
    state = dealt(house_rules(8, kitty_size=10), level="3")
    assert state.decks == 4
    assert_deal(state, kitty=10, each=25, removed="2S 2H 2C 2C 2D 2D")


def test_the_rank_removed_skips_the_level_and_the_point_ranks() -> None:
    state = dealt(house_rules(kitty_size=7), level="2")  # 101 cards: one removed
    assert format_cards(state.removed) == "3C"
    state = dealt(house_rules(kitty_size=7), level="4")
    assert format_cards(state.removed) == "2C"


@pytest.mark.parametrize(("players", "size"), [(4, 105), (4, -1), (5, 104), (8, 209), (6, 157)])
def test_a_kitty_size_out_of_range_is_refused(players: int, size: int) -> None:
    mode = "friends" if players % 2 else "tractor"
    with pytest.raises(RefusedOptionError) as refused:
        house_rules(players, mode, kitty_size=size)
    assert refused.value.reason == "kitty_size_out_of_range"


def test_a_change_of_players_that_leaves_the_kitty_out_of_range_is_refused() -> None:
    rules = house_rules(kitty_size=104)  # 108 - 4
    with pytest.raises(RefusedOptionError) as refused:
        rules.with_options(players=5, mode="friends")
    assert refused.value.reason == "kitty_size_out_of_range"


def test_the_views_show_the_kitty_size_and_the_cards_removed() -> None:
    state = dealt(house_rules(kitty_size=6), level="5")
    for view in [view_for(state, seat) for seat in range(4)] + [view_public(state)]:
        assert view["kitty_size"] == 6 and view["removed"] == "2C 2D"
    default = dealt(house_rules())
    assert "removed" not in view_public(default) and "kitty_size" not in view_public(default)


def test_the_dealer_buries_the_chosen_kitty_size() -> None:
    state = dealt(house_rules(kitty_size=6), level="5")
    state.apply("close")
    assert state.phase == BURYING and state.dealer is not None
    assert len(state.hands[state.dealer]) == 31


def test_friends_a_removed_copy_is_a_bad_ordinal_and_a_card_gone_is_not_in_the_deck() -> None:
    """RULES-DECISIONS 35."""
    rules = house_rules(5, "friends", kitty_size=7)  # 108 - 7 = 101: one card removed
    state = dealt(rules)
    assert format_cards(state.removed) == "3C"
    state.apply("close")
    dealer = state.dealer
    with pytest.raises(IllegalCallError) as refused:
        state.check_action(dealer, f"call {dealer} 23C")
    assert refused.value.code == "friend_bad_ordinal"
    state.check_action(dealer, f"call {dealer} 13C")
    six = house_rules(6, "friends", decks=2, kitty_size=7)  # 101 mod 6 = 5 cards removed
    state = dealt(six)
    assert format_cards(state.removed) == "3S 3H 3C 3C 3D"
    state.apply("close")
    call = f"call {state.dealer} 13C 1AH"
    with pytest.raises(IllegalCallError) as refused:
        state.check_action(state.dealer, call)
    assert refused.value.code == "friend_card_not_in_deck"


@pytest.mark.parametrize(("players", "mode"), [(4, "tractor"), (5, "friends"), (8, "tractor")])
def test_hands_with_a_kitty_size_play_and_replay(players: int, mode: str) -> None:
    rules = house_rules(players, mode, kitty_size=7)
    slots = players if mode == "friends" else 2
    for seed in range(3):
        state = new_hand(rules, seed, levels=("2",) * slots, dealer=seed % players)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        check_invariants(state)
        assert state.result is not None and len(state.buried) == 7
        replayed = replay_final(record_of(state))
        assert view_all(replayed) == view_all(state)


# --- §10.12 deck_min_rank, deck_jokers -------------------------------------------------------


def test_the_deck_options_are_house_options_left_out_of_records_at_their_defaults() -> None:
    assert HOUSE_OPTIONS["deck_min_rank"] == ("2", "3", "4", "5")
    assert HOUSE_OPTIONS["deck_jokers"] == ("all", "none")
    for name in ("ranked", "seed000", "seed002", "seed003", "seed004"):
        options = preset(name).to_dict()["options"]
        assert "deck_min_rank" not in options and "deck_jokers" not in options
    rules = preset("ranked").with_options(deck_min_rank="3", deck_jokers="none")
    assert RuleSet.from_json(rules.to_json()) == rules


def test_min_3_without_jokers_deals_96_cards_and_levels_run_3_to_a() -> None:
    rules = house_rules(deck_min_rank="3", deck_jokers="none")
    state = dealt(rules, level="3")
    assert_deal(state, kitty=8, each=22, removed="")
    assert not {"2S", "2H", "2C", "2D", "SJ", "BJ"} & set(format_cards(all_cards(state)).split())
    assert Match(rules, 1).levels == ("3", "3")
    with pytest.raises(InvalidSetupError):
        new_hand(rules, 1, levels=("2", "2"), dealer=0)
    wrapped = house_rules(deck_min_rank="3", deck_jokers="none", past_ace="wrap")
    state = last_trick(wrapped, ("AS", "3S", "4S", "6S"), levels=("A", "9"), suit="S")
    result = play_out(state, ("AS", "3S", "4S", "6S")).result
    assert result is not None and result.levels_after[0] == "5"  # A +3: 3, 4, 5


def test_friends_five_seats_without_jokers_deal_104_cards() -> None:
    state = dealt(house_rules(5, "friends", deck_jokers="none"))
    assert_deal(state, kitty=9, each=19, removed="")


def test_eight_seats_from_5_without_jokers() -> None:
    state = dealt(house_rules(8, deck_min_rank="5", deck_jokers="none"), level="5")
    assert state.decks == 4
    assert_deal(state, kitty=8, each=19, removed="")


def test_a_kitty_size_removes_from_the_lowest_rank_in_the_decks() -> None:
    state = dealt(house_rules(deck_min_rank="3", kitty_size=7), level="3")  # 100 cards
    assert_deal(state, kitty=7, each=23, removed="4C")


@pytest.mark.parametrize("rank", ["6", "A", "1", 3])
def test_a_min_rank_past_5_is_refused(rank: object) -> None:
    with pytest.raises(RefusedOptionError) as refused:
        house_rules(deck_min_rank=rank)
    assert refused.value.reason == "deck_min_rank_out_of_range"


def test_a_random_level_is_drawn_from_the_lowest_rank_up() -> None:
    rules = house_rules(deck_min_rank="5", level_source="random")
    drawn = {new_hand(rules, seed, dealer=0).level for seed in range(60)}
    assert drawn == set("56789TJQKA")


def test_friends_calls_of_cards_not_in_the_deck_are_refused() -> None:
    rules = house_rules(5, "friends", deck_min_rank="3", deck_jokers="none")
    rules = rules.with_options(friend_cards="trumps_included")
    state = dealt(rules, level="3")
    state.apply("close")
    dealer = state.dealer
    for call in ("12S", "1BJ"):
        with pytest.raises(IllegalCallError) as refused:
            state.check_action(dealer, f"call {dealer} {call}")
        assert refused.value.code == "friend_card_not_in_deck"
    state.check_action(dealer, f"call {dealer} 13S")


def test_single_jack_sends_the_defenders_back_to_the_lowest_rank() -> None:
    """RULES-DECISIONS 37."""
    rules = house_rules(jack_rule="single_jack", deck_min_rank="3", deck_jokers="none")
    last = ("3S", "JS", "3S", "4S")
    state = last_trick(rules, last, levels=("J", "7"), suit="S", buried="5D")
    won = play_out(state, last).result
    assert won is not None and won.winner == "defenders"
    assert won.levels_after == ("5", "7")  # J → 3, then +2


def test_without_jokers_a_hand_at_nt_has_no_trump() -> None:
    """RULES-DECISIONS 38."""
    rules = house_rules(top_level="NT", deck_jokers="none")
    state = dealt(rules, level="NT")
    state.apply("close")
    assert state.trump is not None
    assert not any(state.trump.is_trump(c) for hand in state.hands for c in hand)


@pytest.mark.parametrize(("players", "mode"), [(4, "tractor"), (5, "friends"), (8, "tractor")])
def test_shortened_decks_play_and_replay(players: int, mode: str) -> None:
    rules = house_rules(players, mode, deck_min_rank="4", deck_jokers="none", kitty_size=9)
    slots = players if mode == "friends" else 2
    for seed in range(3):
        state = new_hand(rules, seed, levels=("6",) * slots, dealer=seed % players)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        check_invariants(state)
        assert state.result is not None and len(state.buried) == 9
        replayed = replay_final(record_of(state))
        assert view_all(replayed) == view_all(state)
