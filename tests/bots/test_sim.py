"""The search's determinizations respect the public facts, and its playouts play exactly as
the engine does with basic bots in every seat."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from shengji.bots import knowledge_from_view
from shengji.bots.basic import choose_play
from shengji.bots.sim import KITTY, SimHand, World, sample_world
from shengji.engine.cards import format_cards, full_deck, parse_cards
from shengji.engine.rules import preset
from shengji.engine.views import view_for
from tests.bots.helpers import RANKED, played_hand, states_at_plays
from tests.engine.hand_helpers import designed_deck, draw_all, hand_for

CUTS = (1, 9, 33, 58, 80, 97)


def test_a_playout_on_the_true_cards_matches_the_engine() -> None:
    for index in range(6):
        final = played_hand(index)
        assert final.result is not None
        for state, history in states_at_plays(index, CUTS):
            seat = state.to_act
            assert seat is not None
            k = knowledge_from_view(view_for(state, seat), RANKED, history)
            world = World([list(h) for h in state.hands], list(state.buried))
            sim = SimHand(k, world)
            assert sim.playout(choose_play) == final.result.attacker_points


def test_sampled_deals_respect_counts_voids_and_known_cards() -> None:
    rng = Random(3)
    for index in range(4):
        for state, history in states_at_plays(index, CUTS):
            seat = state.to_act
            assert seat is not None
            k = knowledge_from_view(view_for(state, seat), RANKED, history)
            played = [c for t in [*state.tricks, state.trick] for p in t.plays for c in p]
            for _ in range(5):
                world = sample_world(k, rng)
                assert world is not None
                assert sorted(world.hands[seat]) == sorted(state.hands[seat])
                assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
                assert len(world.kitty) == 8
                if seat == state.dealer:
                    assert world.kitty == state.buried
                everything = Counter(played) + Counter(world.kitty)
                for hand in world.hands:
                    everything += Counter(hand)
                assert everything == Counter(full_deck())
                trump = state.trump
                assert trump is not None
                for other in range(4):
                    for c in world.hands[other]:
                        assert not k.memory.voids[other] & (1 << trump.groups[c])
                    for c, n in enumerate(k.memory.known[other]):
                        assert world.hands[other].count(c) >= n
    assert KITTY == 4


@pytest.mark.parametrize(("forced_part", "played"), [("lowest", "4S 4S"), ("by_kind", "9S")])
def test_a_playouts_failed_throw_plays_the_rules_forced_part(forced_part: str, played: str) -> None:
    # Seed 003's 98844 against QQ (level T, no-trump): the playout forces what the engine does.
    rules = preset("seed003").with_options(forced_part=forced_part)
    deck = designed_deck({0: "9S 8S8S 4S4S", 1: "QSQS"}, fill_seed=3)
    state = hand_for(rules, seed=17, decks=[deck], dealer=0)
    draw_all(state)
    state.apply("close")
    keep = list(state.hands[0])
    for card in parse_cards("9S 8S8S 4S4S"):
        keep.remove(card)
    state.apply(f"bury 0 {format_cards(keep[:8])}")
    history = [str(a) for a in state.actions if str(a) != "draw"]
    k = knowledge_from_view(view_for(state, 0), rules, history)
    sim = SimHand(k, World([list(h) for h in state.hands], list(state.buried)))
    sim.play(0, parse_cards("9S 8S8S 4S4S"))
    state.apply("play 0 9S 8S8S 4S4S")
    assert format_cards(sim.plays[0]) == format_cards(state.trick.plays[0]) == played


@pytest.mark.parametrize("shape", ["5/2/friends", "6/3/friends", "6/3/tractor"])
@pytest.mark.parametrize("name", ["ranked", "seed002", "seed004"])
def test_a_playout_on_the_true_cards_matches_the_engine_at_bigger_tables(
    shape: str, name: str
) -> None:
    # seed002 and seed004 read the kitty's multiplier from the last trick's winning play: a
    # playout must find it among all the table's plays, not four.
    from shengji.bots.legality import shape_rules

    rules = shape_rules(name, shape)
    for index in range(3):
        final = played_hand(index, rules, seed=13)
        assert final.result is not None
        plays = sum(1 for a in final.actions if str(a).startswith("play"))
        for state, history in states_at_plays(index, (1, plays // 2, plays - 3), rules, 13):
            seat = state.to_act
            assert seat is not None
            k = knowledge_from_view(view_for(state, seat), rules, history)
            world = World([list(h) for h in state.hands], list(state.buried))
            sim = SimHand(k, world)
            assert sim.playout(choose_play) == final.result.attacker_points
            if k.mode == "friends":
                assert sim.side == frozenset(final.result.defenders or ())


def test_a_playouts_kitty_reads_the_winning_play_among_five_plays() -> None:
    # Finding: the playout read the last trick's winning play as ``(winner - leader) % 4``;
    # at five seats, led by seat 4, that is the play before the winner's (here a discard of
    # two suits) instead of the winner's pair. seed002 reads the two-deck kitty multiplier from
    # the winning play.
    from shengji.bots.legality import shape_rules
    from shengji.engine.scoring import card_points, kitty_multiplier

    rules = shape_rules("seed002", "5/2/friends")
    state, history = next(states_at_plays(0, (1,), rules, 13))
    seat = state.to_act
    assert seat is not None and state.trump is not None
    k = knowledge_from_view(view_for(state, seat), rules, history)
    sim = SimHand(k, World([list(h) for h in state.hands], list(state.buried)))
    sim.attacker_points = 0
    sim.seat_points = [0] * 5
    sim.kitty = list(parse_cards("5D TD KD 3C 4C 6C 7C 8C"))
    leader = 4
    winner = next(s for s in range(4) if sim.is_attacker(s))
    plays = ["3S 3S", "4S 5S", "8S 9S", "7S 6S", "KS KS"]
    plays[(winner - leader) % 5] = "AS AS"
    plays[(winner - leader) % 4] = "2D 4C"
    last = [tuple(int(c) for c in parse_cards(p)) for p in plays]
    multiplier = kitty_multiplier(parse_cards("AS AS"), state.trump, rules.kitty_multiplier)
    assert multiplier > 2
    assert sum(card_points(c) for c in sim.kitty) == 25
    assert sim.final_points(last, leader, winner) == multiplier * 25


@pytest.mark.parametrize("shape", ["6/3/friends", "8/4/tractor"])
def test_a_playout_stopped_after_some_tricks_estimates_the_rest_within_what_is_left(
    shape: str,
) -> None:
    from shengji.bots.legality import shape_rules
    from shengji.engine.scoring import card_points

    rules = shape_rules("ranked", shape)
    for state, history in states_at_plays(0, (1, 20, 50), rules, 13):
        seat = state.to_act
        assert seat is not None
        k = knowledge_from_view(view_for(state, seat), rules, history)
        world = World([list(h) for h in state.hands], list(state.buried))
        sim = SimHand(k, world)
        x = sim.playout(choose_play, tricks=2)
        assert sim.tricks_played == k.tricks_played + 2
        assert not sim.plays and sim.hands[sim.leader]
        side = sim.expected_side()
        taken = sim.attacker_points + sum(
            n for s, n in enumerate(sim.seat_points) if sim.friends and s not in side
        )
        left = sum(card_points(c) for hand in sim.hands for c in hand)
        kitty = sum(card_points(c) for c in sim.kitty)
        assert taken <= x <= taken + left + 2 * kitty
        assert sim.scored_side == side


def test_the_estimate_gives_the_rest_to_the_side_holding_every_card_that_takes_tricks() -> None:
    from shengji.bots.legality import shape_rules
    from shengji.engine.scoring import card_points

    rules = shape_rules("ranked", "6/3/tractor")
    state, history = next(states_at_plays(0, (1,), rules, 13))
    seat = state.to_act
    assert seat is not None
    k = knowledge_from_view(view_for(state, seat), rules, history)
    sim = SimHand(k, World([list(h) for h in state.hands], list(state.buried)))
    attackers = [s for s in range(6) if sim.is_attacker(s)]
    everything = [c for hand in sim.hands for c in hand]
    sim.hands = [[] for _ in range(6)]
    sim.hands[attackers[0]] = everything
    left = sum(card_points(c) for c in everything)
    kitty = sum(card_points(c) for c in sim.kitty)
    assert sim.estimated_points() == sim.attacker_points + left + 2 * kitty


def test_a_seat_holding_an_open_calls_card_is_expected_on_the_dealers_side() -> None:
    from shengji.bots.friendship import Call
    from shengji.bots.legality import shape_rules

    rules = shape_rules("ranked", "6/3/friends")
    state, history = next(states_at_plays(0, (1,), rules, 13))
    seat = state.to_act
    assert seat is not None
    k = knowledge_from_view(view_for(state, seat), rules, history)
    sim = SimHand(k, World([list(h) for h in state.hands], list(state.buried)))
    holder = next(s for s in range(6) if s not in sim.side)
    card = sim.hands[holder][0]
    sim.calls = [Call(card, 1, 0, None)]
    assert holder in sim.expected_side()
    sim.calls = [Call(card, 1, 1, holder)]
    assert sim.expected_side() == sim.side
