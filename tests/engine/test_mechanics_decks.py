"""Property tests of the tuple mechanics (RULES-SPEC.md §9.2), seeded and fast.

1. On two-deck inputs, the general code of shengji.engine.tuples gives exactly the answers of the
   two-deck fast paths (follow_error, trick_winner, throw_check).
2. On 3- and 4-deck hands, ``legal_follow`` is always accepted by ``follow_error`` under both
   draw policies, and every trick of 4–8 plays has one winner, whose score beats every play
   before it and is not beaten by any play after it.
"""

from __future__ import annotations

import random

import pytest

from shengji.engine import Card, Trump, lead_info, throw_check, trick_winner
from shengji.engine.cards import CARD_IDS, card
from shengji.engine.follow import follow_error, legal_follow
from shengji.engine.trick import play_score
from shengji.engine.tuples import (
    DRAW_POLICIES,
    general_follow_error,
    general_throw_failure,
    general_trick_winner,
    lead_format,
    tuple_lead_choices,
)
from tests.engine.helpers import deal, random_lead, random_trump

SEEDS = range(60)


def _suit_first(hand: list[Card], lead: list[Card], trump: Trump, rng: random.Random) -> list[Card]:
    return legal_follow(hand, lead, trump, rng)


@pytest.mark.parametrize("seed", SEEDS)
def test_general_follow_equals_the_two_deck_path(seed: int) -> None:
    rng = random.Random(seed)
    trump = random_trump(rng)
    hands = deal(seed)
    for _ in range(15):
        leader = rng.randrange(4)
        lead = random_lead(hands[leader], trump, rng)
        follower = hands[(leader + 1) % 4]
        if len(follower) < len(lead):
            continue
        plays = [
            legal_follow(follower, lead, trump, rng),
            rng.sample(follower, len(lead)),
            sorted(follower, key=lambda c: (trump.groups[c] != trump.groups[lead[0]], c))[
                : len(lead)
            ],
        ]
        for play in plays:
            assert general_follow_error(follower, lead, play, trump) == follow_error(
                follower, lead, play, trump
            ), (lead, follower, play, trump)


@pytest.mark.parametrize("seed", SEEDS)
def test_general_winner_equals_the_two_deck_path(seed: int) -> None:
    rng = random.Random(1000 + seed)
    trump = random_trump(rng)
    hands = deal(1000 + seed)
    for _ in range(15):
        leader = rng.randrange(4)
        lead = random_lead(hands[leader], trump, rng)
        plays = [lead]
        for step in range(1, 4):
            hand = hands[(leader + step) % 4]
            if rng.random() < 0.7:
                plays.append(legal_follow(hand, lead, trump, rng))
            else:
                plays.append(rng.sample(hand, len(lead)))
        assert general_trick_winner(plays, trump) == trick_winner(plays, trump), (plays, trump)


@pytest.mark.parametrize("seed", SEEDS)
def test_general_throw_check_equals_the_two_deck_path(seed: int) -> None:
    rng = random.Random(2000 + seed)
    trump = random_trump(rng)
    hands = deal(2000 + seed)
    for _ in range(15):
        leader = rng.randrange(4)
        lead = random_lead(hands[leader], trump, rng)
        if not lead_info(lead, trump).shape.is_throw:
            continue
        others = [hands[(leader + step) % 4] for step in range(1, 4)]
        for forced_part in ("by_kind", "lowest"):
            general = general_throw_failure(
                lead_format(lead, trump), others, trump, forced_part == "by_kind"
            )
            assert general == throw_check(lead, others, trump, forced_part), (lead, others)


# --- three and four decks -----------------------------------------------------------------


def deal_decks(seed: int, players: int, decks: int) -> list[list[Card]]:
    deck = [card(c) for c in CARD_IDS for _ in range(decks)]
    random.Random(seed).shuffle(deck)
    each = min(26, (len(deck) - 5) // players)
    return [deck[i * each : (i + 1) * each] for i in range(players)]


def random_decks_lead(hand: list[Card], trump: Trump, rng: random.Random) -> list[Card]:
    """A single, tuple or tractor of tuples (from the lead choices), or a random throw."""
    if rng.random() < 0.6:
        choices = [c for c in tuple_lead_choices(hand, trump) if len(c) > 1] or [(hand[0],)]
        return [card(c) for c in rng.choice(choices)]
    group = rng.choice(sorted({trump.groups[c] for c in hand}))
    suit = [c for c in hand if trump.groups[c] == group]
    return rng.sample(suit, rng.randint(1, min(10, len(suit))))


SHAPES = [(6, 3), (8, 4), (7, 3), (4, 3)]


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize(("players", "decks"), SHAPES)
def test_legal_follow_is_accepted_under_both_policies(seed: int, players: int, decks: int) -> None:
    rng = random.Random(seed * 31 + players)
    trump = random_trump(rng)
    hands = deal_decks(seed, players, decks)
    for _ in range(6):
        leader = rng.randrange(players)
        lead = random_decks_lead(hands[leader], trump, rng)
        for step in range(1, players):
            hand = hands[(leader + step) % players]
            for policy in DRAW_POLICIES:
                for source in (None, rng):
                    play = legal_follow(hand, lead, trump, source, draw_policy=policy)
                    assert len(play) == len(lead)
                    assert follow_error(hand, lead, play, trump, policy) is None, (
                        lead,
                        hand,
                        play,
                        policy,
                    )


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize(("players", "decks"), SHAPES)
def test_a_trick_has_one_winner(seed: int, players: int, decks: int) -> None:
    rng = random.Random(seed * 17 + decks)
    trump = random_trump(rng)
    hands = deal_decks(1000 + seed, players, decks)
    for _ in range(6):
        leader = rng.randrange(players)
        lead = random_decks_lead(hands[leader], trump, rng)
        plays: list[list[Card]] = [lead]
        for step in range(1, players):
            hand = hands[(leader + step) % players]
            if rng.random() < 0.8:
                plays.append(legal_follow(hand, lead, trump, rng))
            else:
                plays.append(rng.sample(hand, len(lead)))
        won = trick_winner(plays, trump)
        assert 0 <= won < players
        info = lead_info(lead, trump)
        scores = [info.key] + [play_score(p, info, trump) for p in plays[1:]]
        best = scores[won]
        assert best is not None
        assert all(s is None or s < best for s in scores[:won])
        assert all(s is None or s <= best for s in scores[won + 1 :])


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize(("players", "decks"), SHAPES)
def test_throw_check_forces_one_unit_of_the_lead(seed: int, players: int, decks: int) -> None:
    rng = random.Random(seed * 7 + players)
    trump = random_trump(rng)
    hands = deal_decks(2000 + seed, players, decks)
    for _ in range(6):
        leader = rng.randrange(players)
        lead = random_decks_lead(hands[leader], trump, rng)
        others = [hands[(leader + step) % players] for step in range(1, players)]
        parts = [list(p) for p in lead_format(lead, trump).parts]
        for forced_part in ("by_kind", "lowest"):
            forced = throw_check(lead, others, trump, forced_part)
            assert forced is None or forced in parts
            if forced is not None:
                assert len(parts) > 1
