"""The search's determinizations respect the public facts, and its playouts play exactly as
the engine does with basic bots in every seat."""

from __future__ import annotations

from collections import Counter
from random import Random

from games.bots import knowledge_from_view
from games.bots.basic import choose_play
from games.bots.sim import KITTY, SimHand, World, sample_world
from games.engine.cards import full_deck
from tests.bots.helpers import RANKED, played_hand, states_at_plays

CUTS = (1, 9, 33, 58, 80, 97)


def test_a_playout_on_the_true_cards_matches_the_engine() -> None:
    for index in range(6):
        final = played_hand(index)
        assert final.result is not None
        for state, history in states_at_plays(index, CUTS):
            seat = state.to_act
            assert seat is not None
            k = knowledge_from_view(state.view_for(seat), RANKED, history)
            world = World([list(h) for h in state.hands], list(state.buried))
            sim = SimHand(k, world)
            assert sim.playout(choose_play) == final.result.attacker_points


def test_sampled_deals_respect_counts_voids_and_known_cards() -> None:
    rng = Random(3)
    for index in range(4):
        for state, history in states_at_plays(index, CUTS):
            seat = state.to_act
            assert seat is not None
            k = knowledge_from_view(state.view_for(seat), RANKED, history)
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
