"""Kitty theft, 炒地皮 (RULES-SPEC.md §10.24 ``kitty_theft``): the bid window after each bury,
the thief taking the kitty, who sees it, the dealer's calls read against the final trump, the
windows that never open, records, random play and the bots."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from shengji.bots import SearchBudget, make_bot
from shengji.bots.memory import public_history
from shengji.bots.play import HandStats, play_hand
from shengji.engine import HOUSE_OPTIONS, PRESETS, new_hand, preset, view_for, view_public
from shengji.engine.cards import format_cards, full_deck, parse_cards
from shengji.engine.deal import deal_sizes, deck_from_hands
from shengji.engine.errors import ShengjiError
from shengji.engine.hand import BIDDING, BURYING, PLAYING, HandState
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.record import record_of, replay_final
from shengji.engine.rules import RuleSet
from shengji.engine.selfplay import check_invariants, check_views
from shengji.engine.views import legal_actions, view_all
from tests.engine.hand_helpers import finish

cards = parse_cards


def theft(**options: object) -> RuleSet:
    return preset("ranked").with_options(name="house", kitty_theft="on", **options)


def designed(players: int, hands: dict[int, str], kitty: str = "", seed: int = 9) -> list[int]:
    """A two-deck deck for ``players`` seats dealing the given cards first (the rest filled in
    a shuffled order), the deal starting at seat 0."""
    each, size = deal_sizes(players, 2)
    wanted = {seat: cards(text) for seat, text in hands.items()}
    rest = Counter(full_deck())
    for chosen in [*wanted.values(), cards(kitty)]:
        rest.subtract(chosen)
    spare = sorted(rest.elements())
    Random(seed).shuffle(spare)
    full = []
    for seat in range(players):
        hand = list(wanted.get(seat, []))
        while len(hand) < each:
            hand.append(spare.pop())
        full.append(hand)
    kitty_cards = cards(kitty)
    while len(kitty_cards) < size:
        kitty_cards.append(spare.pop())
    return [int(c) for c in deck_from_hands(full, kitty_cards, 0)]


def dealt(rules: RuleSet, hands: dict[int, str], level: str = "2", kitty: str = "") -> HandState:
    slots = rules.players if rules.is_friends else 2
    deck = designed(rules.players, hands, kitty)
    state = new_hand(rules, 1, levels=(level,) * slots, decks=[deck])
    while state.phase == "dealing":
        state.apply("draw")
    return state


def refused(state: HandState, action: str) -> str:
    with pytest.raises(ShengjiError) as caught:
        state.apply(action)
    return caught.value.code


def bury_lowest(state: HandState, keep: str = "") -> str:
    """The burier buries its first cards (in hand order) other than ``keep``'s."""
    seat = state.to_act
    assert state.phase == BURYING and seat is not None
    kept = Counter(int(c) for c in cards(keep))
    chosen: list[int] = []
    for card in state.hands[seat]:
        if kept[card]:
            kept[card] -= 1
        elif len(chosen) < state.kitty_size:
            chosen.append(card)
    text = f"bury {seat} {format_cards(chosen)}"
    state.apply(text)
    return format_cards(chosen)


def kitty_seen(state: HandState) -> list[int]:
    """The seats whose view shows the kitty (and never a spectator)."""
    assert view_public(state)["kitty"] is None
    check_views(state)
    return [seat for seat in range(state.players) if view_for(state, seat)["kitty"] is not None]


# --- the option ------------------------------------------------------------------------------


def test_kitty_theft_is_a_house_option_left_out_of_records_while_off() -> None:
    assert HOUSE_OPTIONS["kitty_theft"] == ("off", "on")
    for rules in PRESETS.values():
        assert rules.kitty_theft == "off" and "kitty_theft" not in rules.to_dict()["options"]
    rules = theft()
    assert rules.to_dict()["options"]["kitty_theft"] == "on"
    assert RuleSet.from_json(rules.to_json()) == rules
    with pytest.raises(ShengjiError) as caught:
        theft().with_options(kitty_theft="yes")
    assert caught.value.code == "invalid_option"


def test_without_theft_the_bury_starts_play() -> None:
    state = dealt(preset("ranked"), {0: "2H"})
    state.apply("bid 0 2H")
    state.apply("close")
    bury_lowest(state)
    assert state.phase == PLAYING and not state.in_theft_window


# --- the example of the spec -----------------------------------------------------------------


def test_the_worked_example_three_buriers_and_the_dealer_leads_at_no_trump() -> None:
    state = dealt(theft(), {0: "2H 2H", 1: "BJ BJ", 2: "SJ SJ"})
    state.apply("bid 0 2H")
    state.apply("close")
    assert state.dealer == 0 and state.to_act == 0
    first = bury_lowest(state, keep="2H 2H")
    # The window: s0 reinforces, s2 overcalls; at the close s2 takes the kitty.
    assert state.phase == BIDDING and state.in_theft_window
    assert kitty_seen(state) == [0]
    state.apply("bid 0 2H 2H")
    state.apply("bid 2 SJ SJ")
    state.apply("close")
    assert state.phase == BURYING and state.to_act == 2 and state.dealer == 0
    assert state.trump is not None and state.trump.suit is None
    assert view_for(state, 2)["kitty"] == first and kitty_seen(state) == [2]
    assert len(state.hands[2]) == 25 + 8
    assert refused(state, f"bury 0 {first}") == "not_your_turn"
    second = bury_lowest(state, keep="SJ SJ")
    assert kitty_seen(state) == [2]
    state.apply("bid 1 BJ BJ")
    state.apply("close")
    assert state.to_act == 1 and view_for(state, 1)["kitty"] == second
    third = bury_lowest(state, keep="BJ BJ")
    assert refused(state, "bid 0 2H 2H") == "bid_too_weak"
    state.apply("close")
    # Play: the dealer leads at no-trump; s1's bury is the kitty, seen by s1 alone.
    assert state.phase == PLAYING and state.turn == 0 and state.dealer == 0
    assert state.trump is not None and state.trump.suit is None
    assert format_cards(state.buried) == third and kitty_seen(state) == [1]
    assert state.defenders == (0, 2)
    assert [bid.seat for bid in state.bids] == [0, 0, 2, 1]
    check_invariants(state)
    finish(state)
    assert state.result is not None and state.result.trump_suit is None
    assert state.result.kitty_points == sum(
        {"5": 5, "T": 10, "K": 10}.get(c[0], 0) for c in third.split()
    )
    check_invariants(state)
    record = record_of(state)
    replayed = replay_final(record)
    assert replayed.result == state.result and view_all(replayed) == view_all(state)


def test_a_window_without_a_bid_starts_play_with_the_dealers_kitty() -> None:
    state = dealt(theft(), {0: "2H"})
    state.apply("bid 0 2H")
    state.apply("close")
    buried = bury_lowest(state)
    state.apply("close")
    assert state.phase == PLAYING and state.turn == 0
    assert format_cards(state.buried) == buried and kitty_seen(state) == [0]


def test_the_dealers_own_bid_takes_its_kitty_back_and_a_new_window_opens() -> None:
    state = dealt(theft(), {0: "2H 2H"})
    state.apply("bid 0 2H")
    state.apply("close")
    buried = bury_lowest(state, keep="2H 2H")
    state.apply("bid 0 2H 2H")
    state.apply("close")
    assert state.phase == BURYING and state.to_act == 0
    assert view_for(state, 0)["kitty"] == buried
    bury_lowest(state)
    assert state.in_theft_window
    state.apply("close")
    assert state.phase == PLAYING


def test_a_bid_shows_cards_held_now() -> None:
    state = dealt(theft(), {0: "2H 2H", 1: "2S 2S"})
    state.apply("bid 0 2H")
    state.apply("close")
    # s0 buries one of its 2H: it cannot show the pair any more.
    hand = state.hands[0]
    chosen = [c for c in hand if format_cards([c]) != "2H"][: state.kitty_size - 1]
    state.apply(f"bury 0 2H {format_cards(chosen)}")
    assert refused(state, "bid 0 2H 2H") == "bid_cards_not_held"
    assert "bid 1 2S 2S" in [str(a) for a in legal_actions(state, 1)]
    state.apply("bid 1 2S 2S")
    state.apply("close")
    assert state.trump is not None and state.trump.suit == "S" and state.to_act == 1


def test_a_theft_bid_follows_the_bidding_options() -> None:
    state = dealt(theft(bid_reinforce="reinforce_only"), {0: "2H 2S 2S"})
    state.apply("bid 0 2H")
    state.apply("close")
    bury_lowest(state, keep="2H 2S 2S")
    assert refused(state, "bid 0 2S 2S") == "bid_own_overcall"


# --- windows that never open -----------------------------------------------------------------


def test_no_window_after_a_flip() -> None:
    rules = theft(no_bid_first_hand="flip_kitty", no_bid="flip_kitty")
    state = dealt(rules, {}, kitty="2D 3C 4C 5C 6C 7C 8C 9C")
    state.apply("close")
    assert state.trump is not None and state.trump.suit == "D" and state.flipped
    bury_lowest(state)
    assert state.phase == PLAYING and not state.in_theft_window


def test_no_window_under_no_bid_no_trump() -> None:
    state = dealt(theft(no_bid_first_hand="no_trump", no_bid="no_trump"), {})
    state.apply("close")
    bury_lowest(state)
    assert state.phase == PLAYING


# --- 找朋友: the calls read the final trump --------------------------------------------------


def test_friends_a_call_the_new_trump_made_illegal_is_dropped_and_the_dealer_calls_again() -> None:
    rules = theft(players=5, mode="friends")
    state = dealt(rules, {0: "2H", 1: "2S 2S"})
    state.apply("bid 0 2H")
    state.apply("close")
    assert refused(state, f"bury 0 {format_cards(state.hands[0][:8])}") == "calls_missing"
    state.apply("call 0 1AS")
    bury_lowest(state)
    state.apply("bid 1 2S 2S")
    state.apply("close")
    # A thief buries: the dealer's calls stand while the windows go on.
    assert state.to_act == 1 and refused(state, "call 0 1AC") == "not_your_turn"
    assert [view_for(state, seat)["calls_made"] for seat in range(5)] == [True] * 5
    bury_lowest(state, keep="2S 2S")
    state.apply("close")
    # Spades are trump now: the call of AS is dropped; the dealer must call before leading.
    assert state.phase == PLAYING and state.trump is not None and state.trump.suit == "S"
    assert state.calls == [] and state.calls_missing
    assert view_for(state, 0)["calls_made"] is False
    lead = format_cards(state.hands[0][:1])
    assert refused(state, f"play 0 {lead}") == "calls_missing"
    offered = [str(action) for action in legal_actions(state, 0)]
    assert len(offered) == 1 and offered[0].startswith("call 0 ")
    assert "call_defaults" in view_for(state, 0)
    assert refused(state, "call 0 1KS") == "friend_trump"
    state.apply("call 0 1AC")
    assert not state.calls_missing
    state.apply(f"play 0 {lead}")
    assert refused(state, "call 0 1AD") == "wrong_phase"
    play_random(state, Random(3), RandomPolicy(escape_rate=0.0))
    check_invariants(state)
    assert replay_final(record_of(state)).result == state.result


def test_friends_calls_still_legal_are_kept() -> None:
    state = dealt(theft(players=5, mode="friends"), {0: "2H", 1: "2S 2S"})
    state.apply("bid 0 2H")
    state.apply("close")
    state.apply("call 0 1AC")
    bury_lowest(state)
    state.apply("bid 1 2S 2S")
    state.apply("close")
    bury_lowest(state, keep="2S 2S")
    state.apply("close")
    assert [str(c) for c in state.calls] == ["1AC"] and not state.calls_missing


# --- hidden information ---------------------------------------------------------------------


def test_a_thiefs_bury_is_in_its_own_history_only() -> None:
    state = dealt(theft(), {0: "2H", 1: "2S 2S"})
    state.apply("bid 0 2H")
    state.apply("close")
    bury_lowest(state)
    state.apply("bid 1 2S 2S")
    state.apply("close")
    buried = bury_lowest(state, keep="2S 2S")
    for seat in range(4):
        view = view_for(state, seat)
        history = public_history(state.actions, view)
        shown = [text for text in history if text.startswith("bury 1 ") and buried in text]
        assert bool(shown) == (seat == 1)


# --- whole hands -----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "mode"), [(4, "tractor"), (5, "friends"), (6, "tractor")])
def test_random_hands_with_theft_keep_the_invariants_and_replay(players: int, mode: str) -> None:
    rules = theft(players=players, mode=mode)
    slots = players if mode == "friends" else 2
    windows = 0
    for seed in range(6):
        dealer = None if seed % 2 == 0 else seed % players
        state = new_hand(rules, seed, levels=("2",) * slots, dealer=dealer)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        check_invariants(state)
        windows += [str(a) for a in state.actions].count("close") - 1
        replayed = replay_final(record_of(state))
        assert view_all(replayed) == view_all(state)
    assert windows > 0


@pytest.mark.parametrize(("players", "mode"), [(4, "tractor"), (5, "friends")])
def test_bots_play_with_theft(players: int, mode: str) -> None:
    rules = theft(players=players, mode=mode)
    slots = players if mode == "friends" else 2
    budget = SearchBudget(max_samples=4, max_ms=None)
    for name in ("basic", "search", "random"):
        state = new_hand(rules, 5, levels=("2",) * slots)
        stats = HandStats()
        bots = [make_bot(name, seed=seat, budget=budget) for seat in range(players)]
        play_hand(state, bots, stats)
        assert state.result is not None and stats.refused == []


def test_the_basic_bot_steals_the_kitty_with_a_stronger_suit_only() -> None:
    """In a theft window the basic bot overcalls when its pair's suit is much stronger than the
    standing trump in its hand (a long spade suit under 2S 2S), never with a weak one, and never
    over its own side's bid (the dealer's partner keeps the trump its side chose)."""
    from shengji.bots.basic import choose_bid

    rules = theft()
    state = dealt(
        rules,
        {
            0: "2H",
            1: "2S 2S AS AS KS KS QS JS TS 9S 8S 7S",
            2: "2C 2C AC KC QC",
            3: "2D 2D 3C 4C 5H 6H 7H",
        },
    )
    state.apply("bid 0 2H")
    state.apply("close")
    bury_lowest(state, keep="2H")
    assert state.in_theft_window
    choices = {seat: choose_bid(view_for(state, seat), rules) for seat in range(4)}
    assert choices[1] is not None and format_cards(choices[1]) == "2S 2S"
    assert choices[0] is None and choices[2] is None and choices[3] is None
    state.apply(f"bid 1 {format_cards(choices[1])}")
    state.apply("close")
    assert state.phase == BURYING and state.to_act == 1
