"""The search's determinizations respect the public facts, and its playouts play exactly as
the engine does with basic bots in every seat."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from games.bots import knowledge_from_view
from games.bots.basic import choose_play
from games.bots.sim import KITTY, SimHand, World, sample_world
from games.engine.cards import format_cards, full_deck, parse_cards
from games.engine.rules import preset
from games.engine.views import view_for
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
