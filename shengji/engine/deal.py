"""The deal (RULES-SPEC.md §5.1): a seeded shuffle, the kitty set aside, single-card draws.

A deck is ``54 × decks`` cards in deal order (108 for the classic game): the first ``kitty``
are the kitty, then draw ``i`` gives ``deck[kitty + i]`` to seat ``(start + i) % players``,
``start`` being the dealer (seat 0 in a match's first hand). Deal sizes for every table shape
are ``deal_sizes`` (RULES-SPEC.md §9.1). Everything random in a hand comes from one
``random.Random(seed)``: first the level rank under ``level_source = random`` (RULES-SPEC.md §5.7),
then one shuffle per deal (a redeal shuffles again).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from shengji.engine.action_errors import InvalidSetupError
from shengji.engine.bidding import showing_suit, strongest_showing
from shengji.engine.cards import CARD_IDS, RANKS, SMALL_JOKER, Card, full_deck
from shengji.engine.errors import InvalidOptionError
from shengji.engine.rules import BIDDING, FLIP_RULE
from shengji.engine.trump import Trump

MIN_PLAYERS = 4
FIRST_CARD = "first_card"
AS_BIDS = "as_bids"
SEATS = 4
KITTY_SIZE = 8
HAND_SIZE = 25
DRAWS = SEATS * HAND_SIZE
DECK_SIZE = KITTY_SIZE + DRAWS

_SORTED_DECK: tuple[int, ...] = tuple(full_deck())
_SORTED_DECKS: dict[int, tuple[int, ...]] = {
    decks: tuple(c for c in CARD_IDS for _ in range(decks)) for decks in (2, 3, 4)
}
MIN_KITTY = 5


def deal_sizes(players: int, decks: int) -> tuple[int, int]:
    """``(cards_each, kitty)`` for a table shape (RULES-SPEC.md §9.1): with ``N = 54 × decks``,
    the kitty is ``N mod players`` (``players`` when that is 0), raised by ``players`` while
    under 5; everyone gets the rest in equal shares. ``deal_sizes(4, 2) == (25, 8)``."""
    total = 54 * decks
    kitty = total % players or players
    while kitty < MIN_KITTY:
        kitty += players
    return (total - kitty) // players, kitty


def random_level(rng: Random) -> str:
    """RULES-SPEC.md §5.7 ``level_source = random``: a level rank drawn from the hand's seed."""
    return RANKS[rng.randrange(len(RANKS))]


def shuffled_deck(rng: Random, decks: int = 2) -> list[int]:
    deck = list(_SORTED_DECKS[decks])
    rng.shuffle(deck)
    return deck


def draw_seat(start: int, draw_index: int, players: int = SEATS) -> int:
    """The seat that receives draw ``draw_index`` of a deal starting at ``start``."""
    return (start + draw_index) % players


def check_deck(deck: Sequence[int], decks: int = 2) -> list[int]:
    """The deck as plain ints, after checking it holds every card exactly ``decks`` times."""
    cards = [int(c) for c in deck]
    if sorted(cards) != list(_SORTED_DECKS.get(decks, ())):
        raise InvalidSetupError(
            f"a deck must hold every card of {decks} decks exactly {decks} times"
        )
    return cards


def deck_from_hands(
    hands: Sequence[Sequence[int]], kitty: Sequence[int], start: int = 0, decks: int = 2
) -> list[Card]:
    """The deck order that deals ``hands`` (in draw order, one per seat) and ``kitty``.

    For tests and analysis: ``hands[s][k]`` is the ``k``-th card seat ``s`` receives. The
    number of seats is ``len(hands)``; the sizes must be those of ``deal_sizes``.
    """
    players = len(hands)
    each, kitty_size = deal_sizes(players, decks) if players >= MIN_PLAYERS else (0, 0)
    if len(kitty) != kitty_size or any(len(h) != each for h in hands) or not each:
        raise InvalidSetupError(
            f"deck_from_hands needs {players} hands of {each} and a kitty of {kitty_size}"
        )
    deck = [Card(c) for c in kitty]
    for draw_index in range(each * players):
        seat = draw_seat(start, draw_index, players)
        deck.append(Card(hands[seat][draw_index // players]))
    check_deck(deck, decks)
    return deck


def flip_kitty(
    kitty: Sequence[int],
    level: str,
    rule: str = FIRST_CARD,
    bidding: str = "strength",
    decks: int = 2,
) -> tuple[list[int], str | None]:
    """RULES-SPEC.md §5.2 ``no_bid = flip_kitty``: turn the kitty over in order.

    Returns ``(flipped, suit)``: the cards turned, and the suit they name under ``flip_rule``
    (``flip_trump``; None = no-trump). Under ``first_card`` the cards turned are those up to and
    including the deciding one, or all 8 when none decides; under ``as_bids`` all 8 (the
    strongest bid can only be known once all are seen).
    """
    suit = flip_trump(kitty, level, rule, bidding, decks)
    return list(kitty[: _turned(kitty, level, rule)]), suit


def flip_trump(
    cards: Sequence[int],
    level: str,
    rule: str = FIRST_CARD,
    bidding: str = "strength",
    decks: int = 2,
) -> str | None:
    """The trump suit the turned-over ``cards`` (in the order turned) name at ``level``, or None
    for no-trump (RULES-SPEC.md §5.2 ``flip_rule``).

    ``first_card`` (seed 004): the first level card names its suit, a joker first means
    no-trump. ``as_bids`` (seed 000, 按照亮主规则): the cards read as bids under ``bidding``,
    the strongest names the trump (``bidding.strongest_showing``); no bid means no-trump.
    An unknown rule or bidding raises ``InvalidOptionError``.
    """
    _check_flip_options(rule, bidding)
    if rule == AS_BIDS:
        return showing_suit(strongest_showing(cards, level, bidding, decks))
    index = _deciding_index(cards, level)
    return None if index is None else Card(cards[index]).suit


def _check_flip_options(rule: str, bidding: str) -> None:
    if rule not in FLIP_RULE:
        raise InvalidOptionError(f"flip_rule {rule!r} is not one of {', '.join(FLIP_RULE)}")
    if bidding not in BIDDING:
        raise InvalidOptionError(f"bidding {bidding!r} is not one of {', '.join(BIDDING)}")


def _deciding_index(cards: Sequence[int], level: str) -> int | None:
    """``first_card``: the index of the first joker or level card, None if there is none."""
    level_rank = RANKS.index(level)
    for index, card in enumerate(cards):
        if card >= SMALL_JOKER or card % 13 == level_rank:
            return index
    return None


def _turned(cards: Sequence[int], level: str, rule: str) -> int:
    """How many cards a flip turns over (see ``flip_kitty``)."""
    index = None if rule == AS_BIDS else _deciding_index(cards, level)
    return len(cards) if index is None else index + 1


def no_trump(level: str) -> Trump:
    return Trump(level, None)
