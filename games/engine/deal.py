"""The deal (RULES.md §5.1): a seeded shuffle, the kitty set aside, 100 single-card draws.

A deck is 108 cards in deal order: the first 8 are the kitty, then draw ``i`` (0..99) gives
``deck[8 + i]`` to seat ``(start + i) % 4``, ``start`` being the dealer (seat 0 in a match's
first hand). Everything random in a hand comes from one ``random.Random(seed)``: first the
level rank under ``level_source = random`` (RULES.md §5.7), then one shuffle per deal (a redeal
shuffles again).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from games.engine.action_errors import InvalidSetupError
from games.engine.cards import BIG_JOKER, RANKS, SMALL_JOKER, Card, full_deck
from games.engine.trump import Trump

SEATS = 4
KITTY_SIZE = 8
HAND_SIZE = 25
DRAWS = SEATS * HAND_SIZE
DECK_SIZE = KITTY_SIZE + DRAWS

_SORTED_DECK: tuple[int, ...] = tuple(full_deck())


def random_level(rng: Random) -> str:
    """RULES.md §5.7 ``level_source = random``: a level rank drawn from the hand's seed."""
    return RANKS[rng.randrange(len(RANKS))]


def shuffled_deck(rng: Random) -> list[int]:
    deck = list(_SORTED_DECK)
    rng.shuffle(deck)
    return deck


def draw_seat(start: int, draw_index: int) -> int:
    """The seat that receives draw ``draw_index`` (0..99) of a deal starting at ``start``."""
    return (start + draw_index) % SEATS


def check_deck(deck: Sequence[int]) -> list[int]:
    """The deck as plain ints, after checking it holds exactly the 108 cards of two decks."""
    cards = [int(c) for c in deck]
    if sorted(cards) != list(_SORTED_DECK):
        raise InvalidSetupError("a deck must hold every card of two decks exactly twice")
    return cards


def deck_from_hands(
    hands: Sequence[Sequence[int]], kitty: Sequence[int], start: int = 0
) -> list[Card]:
    """The deck order that deals ``hands`` (25 cards each, in draw order) and ``kitty``.

    For tests and analysis: ``hands[s][k]`` is the ``k``-th card seat ``s`` receives.
    """
    if len(kitty) != KITTY_SIZE or any(len(h) != HAND_SIZE for h in hands) or len(hands) != 4:
        raise InvalidSetupError("deck_from_hands needs four hands of 25 and a kitty of 8")
    deck = [Card(c) for c in kitty]
    for draw_index in range(DRAWS):
        seat = draw_seat(start, draw_index)
        deck.append(Card(hands[seat][draw_index // SEATS]))
    check_deck(deck)
    return deck


def flip_kitty(kitty: Sequence[int], level: str) -> tuple[list[int], str | None]:
    """RULES.md §5.2 ``no_bid = flip_kitty``: turn the kitty over in order.

    The first level card names the trump suit and a joker means no-trump; the cards turned
    are those up to and including the deciding one, or all 8 (and no-trump) when none decides.
    Returns ``(flipped, suit)``.
    """
    level_rank = RANKS.index(level)
    flipped: list[int] = []
    for card in kitty:
        flipped.append(card)
        if card in (SMALL_JOKER, BIG_JOKER):
            return flipped, None
        if card % 13 == level_rank:
            return flipped, Card(card).suit
    return flipped, None


def no_trump(level: str) -> Trump:
    return Trump(level, None)
