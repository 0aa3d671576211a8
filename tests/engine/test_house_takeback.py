"""Takebacks (RULES-SPEC.md §10.22 ``bid_takeback``, §10.23 ``takeback`` 悔牌): the options, the
``takeback N`` action, what it withdraws, its refusals, views, records and replays, the bots, at
four seats and at a 找朋友 table."""

from __future__ import annotations

from random import Random

import pytest

from shengji.bots import act_for_seat
from shengji.bots.memory import public_history
from shengji.engine import HOUSE_OPTIONS, preset, view_for
from shengji.engine.action_errors import (
    HOUSE_ACTION_REASON_CODES,
    TAKEBACK_AFTER_FAILED_THROW,
    TAKEBACK_NOT_ALLOWED,
    TAKEBACK_NOT_LAST,
    WRONG_PHASE,
    WRONG_SEAT,
    IllegalActionError,
)
from shengji.engine.actions import Action, parse_action, play, takeback
from shengji.engine.cards import format_cards, parse_cards
from shengji.engine.hand import BURYING, PLAYING, HandState, new_hand
from shengji.engine.random_play import random_action
from shengji.engine.record import record_of, replay, replay_final
from shengji.engine.rules import RuleSet
from shengji.engine.takeback import standing_indices
from shengji.engine.views import can_take_back, legal_actions, view_all, view_public
from tests.engine.hand_helpers import designed_deck, draw_all, draw_until

cards = parse_cards


def takeback_rules(name: str = "ranked", **options: object) -> RuleSet:
    return preset(name).with_options(bid_takeback="on", takeback="on", **options)


def refused(state: HandState, text: str, code: str, seat: int | None = None) -> None:
    """The action is refused with ``code`` and changes nothing."""
    before = view_all(state)
    actions = len(state.actions)
    with pytest.raises(IllegalActionError) as error:
        state.apply(text, seat)
    assert error.value.code == code
    assert view_all(state) == before and len(state.actions) == actions


def bidding_hand(rules: RuleSet, hands: dict[int, str], level: str = "7") -> HandState:
    """A hand at ``level``, the deck dealing ``hands`` first, every card drawn."""
    deck = designed_deck(hands)
    state = new_hand(rules, 1, levels=(level, level), decks=[deck])
    return draw_all(state)


def playing_hand(rules: RuleSet, hands: dict[int, str]) -> HandState:
    """Seat 0 deals at level 2, bids 2H (hearts are trump) and buries cards outside ``hands``;
    seat 0 to lead."""
    shown = {seat: f"2H {text}" if seat == 0 else text for seat, text in hands.items()}
    state = new_hand(rules, 1, levels=("2", "2"), dealer=0, decks=[designed_deck(shown)])
    draw_all(state)
    state.apply("bid 0 2H")
    state.apply("close")
    kept = cards(shown[0])
    spare = list(state.hands[0])
    for card in kept:
        spare.remove(card)
    state.apply(Action("bury", 0, tuple(spare[:8])))
    assert state.phase == PLAYING and state.turn == 0
    return state


SPADES = {0: "3S 3S 8S 9S TS", 1: "KS 4S 6C", 2: "5S QS", 3: "6S JS"}


# --- the options --------------------------------------------------------------------------


def test_the_options_are_house_options_off_in_every_preset_and_left_out_of_records() -> None:
    assert HOUSE_OPTIONS["bid_takeback"] == ("off", "on")
    assert HOUSE_OPTIONS["takeback"] == ("off", "on")
    for name in ("ranked", "seed000", "seed002", "seed003", "seed004"):
        rules = preset(name)
        assert (rules.bid_takeback, rules.takeback) == ("off", "off")
        options = rules.to_dict()["options"]
        assert "bid_takeback" not in options and "takeback" not in options
    rules = takeback_rules()
    assert rules.to_dict()["options"]["takeback"] == "on"
    assert RuleSet.from_json(rules.to_json()) == rules


def test_a_value_outside_off_and_on_is_refused() -> None:
    with pytest.raises(ValueError):
        preset("ranked").with_options(takeback="yes")


def test_the_three_codes_are_house_action_codes() -> None:
    for code in (TAKEBACK_NOT_ALLOWED, TAKEBACK_NOT_LAST, TAKEBACK_AFTER_FAILED_THROW):
        assert code in HOUSE_ACTION_REASON_CODES


def test_the_notation_is_takeback_and_the_seat() -> None:
    assert str(takeback(2)) == "takeback 2"
    assert parse_action("TAKEBACK 2") == takeback(2)
    with pytest.raises(ValueError):
        parse_action("takeback 2 AS")
    with pytest.raises(ValueError):
        parse_action("takeback 4", players=4)


# --- §10.22 bid takeback -------------------------------------------------------------------


def test_the_spec_example_the_overcaller_withdraws_and_the_bid_before_stands() -> None:
    state = bidding_hand(takeback_rules(), {0: "7H", 1: "7D 7D"})
    state.apply("bid 0 7H")
    state.apply("bid 1 7D 7D")
    refused(state, "takeback 0", TAKEBACK_NOT_LAST)
    state.apply("takeback 1")
    assert [str(b.seat) + format_cards(b.cards) for b in state.bids] == ["07H"]
    assert view_public(state)["taken_back"] == {"seat": 1, "kind": "bid", "cards": "7D 7D"}
    state.apply("takeback 0")
    assert state.bids == [] and state.standing_bid is None
    state.apply("close")
    assert state.trump is not None and state.trump.suit != "H"


def test_a_bid_taken_back_during_the_deal_lets_the_deal_go_on() -> None:
    deck = designed_deck({0: "7H", 1: "7D 7D"})
    state = draw_until(new_hand(takeback_rules(), 1, levels=("7", "7"), decks=[deck]), 0, "7H")
    state.apply("bid 0 7H")
    drawn = state.drawn
    state.apply("draw")
    state.apply("draw")
    state.apply("takeback 0")
    assert state.bids == [] and state.first_bidder is None
    assert state.drawn == drawn + 2  # the draws after the bid stand
    draw_all(state)
    assert sum(len(h) for h in state.hands) == state.draws


def test_the_first_bidder_is_the_first_bid_still_standing() -> None:
    rules = takeback_rules(first_hand_dealer="first_bidder")
    state = bidding_hand(rules, {0: "7H", 1: "7D 7D"})
    state.apply("bid 0 7H")
    state.apply("takeback 0")
    state.apply("bid 1 7D 7D")
    assert state.first_bidder == 1
    state.apply("close")
    assert state.dealer == 1


def test_bid_takeback_refusals() -> None:
    state = bidding_hand(preset("ranked"), {0: "7H"})
    state.apply("bid 0 7H")
    refused(state, "takeback 0", TAKEBACK_NOT_ALLOWED)
    state = bidding_hand(takeback_rules(), {0: "7H"})
    refused(state, "takeback 0", TAKEBACK_NOT_LAST)  # no bid yet
    state.apply("bid 0 7H")
    refused(state, "takeback 0", WRONG_SEAT, seat=1)  # never for another seat
    only_plays = preset("ranked").with_options(takeback="on")
    state = bidding_hand(only_plays, {0: "7H"})
    state.apply("bid 0 7H")
    refused(state, "takeback 0", TAKEBACK_NOT_ALLOWED)


def test_no_bid_is_taken_back_after_the_close() -> None:
    state = bidding_hand(takeback_rules(), {0: "7H"})
    state.apply("bid 0 7H")
    state.apply("close")
    assert state.phase == BURYING
    refused(state, "takeback 0", WRONG_PHASE)


# --- §10.23 悔牌 ---------------------------------------------------------------------------


def test_the_spec_example_a_follow_is_taken_back_and_played_again() -> None:
    state = playing_hand(takeback_rules(), SPADES)
    state.apply("play 0 3S")
    state.apply("play 1 KS")
    assert can_take_back(state, 1) and not can_take_back(state, 0)
    assert view_for(state, 1)["can_take_back"] is True
    state.apply("takeback 1")
    assert state.turn == 1 and state.trick.plays == [tuple(cards("3S"))]
    assert cards("KS")[0] in state.hands[1]
    assert view_public(state)["taken_back"] == {"seat": 1, "kind": "play", "cards": "KS"}
    state.apply("play 1 4S")
    assert view_public(state)["taken_back"] is None
    state.apply("play 2 5S")
    assert can_take_back(state, 2)
    state.apply("play 3 6S")
    assert state.tricks[-1].plays == [tuple(cards(c)) for c in ("3S", "4S", "5S", "6S")]
    refused(state, "takeback 2", TAKEBACK_NOT_LAST)
    refused(state, "takeback 3", TAKEBACK_NOT_LAST)  # the trick closed with its last play


def test_a_takeback_of_the_lead_clears_the_trick_format() -> None:
    state = playing_hand(takeback_rules(), SPADES)
    state.apply("play 0 3S")
    state.apply("play 1 KS")
    state.apply("takeback 1")
    state.apply("takeback 0")  # then the previous player takes theirs back
    assert state.lead is None and state.turn == 0
    assert sorted(state.hands[0]).count(cards("3S")[0]) == 2
    state.apply("play 0 3S 3S")  # a pair now: the single's format is gone
    assert state.lead == tuple(cards("3S 3S"))


def test_play_takeback_refusals() -> None:
    state = playing_hand(preset("ranked").with_options(bid_takeback="on"), SPADES)
    state.apply("play 0 3S")
    refused(state, "takeback 0", TAKEBACK_NOT_ALLOWED)
    state = playing_hand(takeback_rules(), SPADES)
    refused(state, "takeback 0", TAKEBACK_NOT_LAST)  # nothing played yet
    state.apply("play 0 3S")
    refused(state, "takeback 3", TAKEBACK_NOT_LAST)  # not seat 3's
    refused(state, "takeback 0", WRONG_SEAT, seat=1)
    state.apply("play 1 KS")
    refused(state, "takeback 0", TAKEBACK_NOT_LAST)  # not the last play any more


def test_a_forced_throw_stands() -> None:
    state = playing_hand(takeback_rules(), {0: "8S 9S TS", 1: "KS JS", 2: "5S", 3: "6S"})
    state.apply("play 0 8S 9S TS")  # seat 1 beats the singles: the smallest is played
    assert state.failed_throws and state.trick.plays == [tuple(cards("8S"))]
    refused(state, "takeback 0", TAKEBACK_AFTER_FAILED_THROW)


def test_a_rejected_throw_stands_and_the_lead_after_it_can_be_taken_back() -> None:
    rules = takeback_rules("seed004")
    state = playing_hand(rules, {0: "8S 9S TS 3S", 1: "KS JS", 2: "5S", 3: "6S"})
    state.apply("play 0 8S 9S TS")
    assert state.failed_throws[-1].result == "rejected" and state.trick.plays == []
    refused(state, "takeback 0", TAKEBACK_AFTER_FAILED_THROW)
    penalty = state.penalty_points
    state.apply("play 0 3S")
    state.apply("takeback 0")
    assert state.lead is None and state.penalty_points == penalty
    assert len(state.failed_throws) == 1


def test_no_takeback_once_the_hand_is_over() -> None:
    state = playing_hand(takeback_rules(), SPADES)
    state.apply("play 0 3S")
    state.apply("leave 2")
    refused(state, "takeback 0", WRONG_PHASE)


# --- records, replays, views ---------------------------------------------------------------


def test_a_record_with_takebacks_replays_to_the_same_hand() -> None:
    state = playing_hand(takeback_rules(), SPADES)
    for text in ("play 0 3S", "play 1 KS", "takeback 1", "takeback 0", "play 0 TS", "play 1 KS"):
        state.apply(text)
    record = record_of(state)
    assert record.actions[-4:] == ("takeback 1", "takeback 0", "play 0 TS", "play 1 KS")
    again = replay_final(record)
    assert view_all(again) == view_all(state)
    steps = list(replay(record))
    withdrawn = view_public(steps[-4])  # the step of "takeback 1"
    assert withdrawn["taken_back"] == {"seat": 1, "kind": "play", "cards": "KS"}
    assert withdrawn["trick"]["plays"] == [{"seat": 0, "cards": "3S"}]
    assert view_public(steps[-3])["taken_back"]["cards"] == "3S"  # "takeback 0"
    assert view_public(steps[-3])["trick"]["plays"] == []


def test_standing_indices_skip_withdrawn_bids_and_plays() -> None:
    actions = [
        parse_action(t)
        for t in ("draw", "bid 0 7H", "draw", "takeback 0", "draw", "close", "play 0 AS")
    ]
    assert standing_indices(actions) == [0, 2, 4, 5, 6]
    actions += [takeback(0), play(0, cards("KS")), takeback(0)]
    assert standing_indices(actions) == [0, 2, 4, 5]


def test_default_views_have_no_takeback_keys() -> None:
    state = playing_hand(preset("ranked"), SPADES)
    assert "taken_back" not in view_public(state)
    assert "can_take_back" not in view_for(state, 0)


def test_legal_actions_the_bots_and_the_hint_never_take_back() -> None:
    rules = takeback_rules()
    state = new_hand(rules, 11, levels=("2", "2"), dealer=0)
    rng = Random(11)
    while state.result is None:
        for anyone in range(4):
            assert all(a.kind != "takeback" for a in legal_actions(state, anyone))
        seat = state.to_act
        if seat is not None:
            chosen = act_for_seat(state, seat)
            assert chosen is not None and not chosen.startswith("takeback")
            state.apply(chosen, seat)
            if chosen.startswith("play") and can_take_back(state, seat):
                state.apply(takeback(seat), seat)  # a person's takeback among the bots' moves
                history = public_history(state.actions, view_for(state, seat))
                assert not any(t.startswith("takeback") for t in history)
                state.apply(chosen, seat)
        else:
            action = random_action(state, rng)
            assert action is not None
            state.apply(action)
    assert state.phase == "finished"


# --- 找朋友 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [3, 8])
def test_friends_each_play_taken_back_and_made_again_plays_the_same_hand(seed: int) -> None:
    """At a five-seat 找朋友 table every play that can be is taken back and made again: each
    takeback restores the hand exactly (calls and sides included: friends are revealed when a
    trick closes, and the closing play is never taken back), and the hand ends as without."""
    rules = takeback_rules(players=5, mode="friends")
    state, plain = new_hand(rules, seed), new_hand(rules, seed)
    rng = Random(seed)
    taken = 0
    while state.result is None:
        action = random_action(state, rng)
        assert action is not None
        before = view_all(state)
        before.pop("taken_back")
        state.apply(action)
        plain.apply(action)
        if action.kind == "play" and action.seat is not None and can_take_back(state, action.seat):
            state.apply(takeback(action.seat))
            after = view_all(state)
            assert after.pop("taken_back")["seat"] == action.seat
            assert after == before
            state.apply(action)
            taken += 1
    assert taken > 40
    assert state.result == plain.result
    assert view_all(replay_final(record_of(state))) == view_all(state)
