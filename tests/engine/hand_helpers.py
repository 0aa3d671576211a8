"""Helpers for hand tests: hand-set decks, driving a hand with action text, playing it out.

``designed_deck`` builds a deck from chosen hands (the rest of the cards filled in), so a test
states only the cards that matter. ``finish`` plays a hand to its end: scripted leads for some
seats, otherwise the lowest single, and part 1's deterministic ``legal_follow`` for follows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from random import Random

from shengji.engine.actions import play
from shengji.engine.cards import full_deck, parse_cards
from shengji.engine.deal import deck_from_hands
from shengji.engine.follow import legal_follow
from shengji.engine.hand import PLAYING, HandState, new_hand
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.rules import RuleSet, preset

cards = parse_cards


def designed_deck(
    hands: dict[int, str] | None = None,
    kitty: str = "",
    start: int = 0,
    *,
    fill_seed: int = 0,
) -> list[int]:
    """A deck dealing the given cards: ``hands[seat]`` (up to 25 cards, received in that order
    first) and ``kitty`` (up to 8, in flip order); the rest of both decks fills the gaps in a
    shuffled order from ``fill_seed``."""
    wanted = {seat: cards(text) for seat, text in (hands or {}).items()}
    kitty_cards = cards(kitty)
    rest = Counter(full_deck())
    for chosen in [*wanted.values(), kitty_cards]:
        rest.subtract(chosen)
    if any(count < 0 for count in rest.values()):
        raise ValueError("a card is asked for more than twice")
    spare = sorted(rest.elements())
    Random(fill_seed).shuffle(spare)
    full_hands = []
    for seat in range(4):
        hand = list(wanted.get(seat, []))
        while len(hand) < 25:
            hand.append(spare.pop())
        full_hands.append(hand)
    while len(kitty_cards) < 8:
        kitty_cards.append(spare.pop())
    assert not spare
    return [int(c) for c in deck_from_hands(full_hands, kitty_cards, start)]


def apply_all(state: HandState, actions: Iterable[str]) -> HandState:
    for action in actions:
        state.apply(action)
    return state


def draw_all(state: HandState) -> HandState:
    while state.phase == "dealing":
        state.apply("draw")
    return state


def draw_until(state: HandState, seat: int, card_text: str) -> HandState:
    """Draw until ``seat`` holds the card."""
    card = cards(card_text)[0]
    while card not in state.hands[seat]:
        state.apply("draw")
    return state


def hand_for(
    rules: RuleSet | str,
    *,
    seed: int = 0,
    decks: Sequence[Sequence[int]] | None = None,
    levels: tuple[str, str] = ("2", "2"),
    dealer: int | None = None,
    wrapped: tuple[bool, bool] = (False, False),
) -> HandState:
    ruleset = preset(rules) if isinstance(rules, str) else rules
    return new_hand(ruleset, seed, levels=levels, dealer=dealer, wrapped=wrapped, decks=decks)


Lead = Callable[[HandState, int], Sequence[int] | None]


def finish(state: HandState, leads: dict[int, list[str]] | None = None) -> HandState:
    """Play to the end: ``leads[seat]`` are that seat's next leads in order (text); without a
    scripted lead a seat leads its lowest single; follows are ``legal_follow``'s default."""
    queues = {seat: [cards(t) for t in texts] for seat, texts in (leads or {}).items()}
    while state.phase == PLAYING:
        seat = state.turn
        trump = state.trump
        assert trump is not None
        hand = state.hands[seat]
        lead = state.lead
        if lead is None:
            queue = queues.get(seat)
            chosen = queue.pop(0) if queue else [min(hand, key=lambda c: trump.strengths[c])]
        else:
            chosen = legal_follow(hand, lead, trump)
        state.apply(play(seat, chosen))
    return state


def random_hand(rules: RuleSet | str, seed: int, **setup: object) -> HandState:
    """A whole random hand (deal from ``seed``; choices from ``Random(seed + 1)``)."""
    state = hand_for(rules, seed=seed, **setup)  # type: ignore[arg-type]
    return play_random(state, Random(seed + 1), RandomPolicy(escape_rate=0.05))
