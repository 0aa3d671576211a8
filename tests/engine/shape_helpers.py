"""Helpers for hands of any table shape (RULES-SPEC.md §9.1): hand-set decks and rule sets.

``shaped_deck`` is ``designed_deck`` for ``players`` seats and ``decks`` decks: a test states
only the cards that matter, the rest of the decks fills the gaps from ``fill_seed``.
"""

from __future__ import annotations

from collections import Counter
from random import Random

from shengji.engine.cards import parse_cards
from shengji.engine.deal import deal_sizes, deck_from_hands
from shengji.engine.hand import HandState, new_hand
from shengji.engine.rules import RuleSet, preset


def shape_rules(players: int, mode: str = "tractor", decks: int = 0, **options: object) -> RuleSet:
    """The ranked preset at a table shape; no bid means no-trump, so tests choose the trump."""
    return preset("ranked").with_options(
        name="shape",
        players=players,
        decks=decks,
        mode=mode,
        no_bid_first_hand="no_trump",
        no_bid="no_trump",
        **options,
    )


def shaped_deck(
    players: int,
    decks: int,
    hands: dict[int, str] | None = None,
    kitty: str = "",
    start: int = 0,
    *,
    fill_seed: int = 0,
) -> list[int]:
    """A deck dealing ``hands[seat]`` first to each seat and ``kitty`` as the kitty's first
    cards; every other card of the decks fills the gaps in an order shuffled from
    ``fill_seed``."""
    each, kitty_size = deal_sizes(players, decks)
    wanted = {seat: [int(c) for c in parse_cards(text)] for seat, text in (hands or {}).items()}
    kitty_cards = [int(c) for c in parse_cards(kitty)]
    rest = Counter(c for c in range(54) for _ in range(decks))
    for chosen in [*wanted.values(), kitty_cards]:
        rest.subtract(chosen)
    if any(count < 0 for count in rest.values()):
        raise ValueError(f"a card is asked for more than {decks} times")
    spare = sorted(rest.elements())
    Random(fill_seed).shuffle(spare)
    full_hands: list[list[int]] = []
    for seat in range(players):
        hand = list(wanted.get(seat, []))
        while len(hand) < each:
            hand.append(spare.pop())
        full_hands.append(hand)
    while len(kitty_cards) < kitty_size:
        kitty_cards.append(spare.pop())
    assert not spare
    return [int(c) for c in deck_from_hands(full_hands, kitty_cards, start, decks)]


def dealt(
    rules: RuleSet,
    hands: dict[int, str],
    *,
    dealer: int = 0,
    levels: tuple[str, ...] | None = None,
    kitty: str = "",
    fill_seed: int = 0,
) -> HandState:
    """A later hand (``dealer`` fixed) of the given shape, dealt and closed: the dealer is
    burying, with no bid so no-trump at the dealer's level."""
    deck = shaped_deck(rules.players, rules.decks, hands, kitty, dealer, fill_seed=fill_seed)
    state = new_hand(rules, 1, levels=levels, dealer=dealer, decks=[deck])
    while state.phase == "dealing":
        state.apply("draw")
    state.apply("close")
    return state
