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
from dataclasses import dataclass
from random import Random

from shengji.engine.action_errors import InvalidSetupError
from shengji.engine.bidding import (
    DEFAULT_BID_OPTIONS,
    BidOptions,
    showing_suit,
    strongest_showing,
)
from shengji.engine.cards import CARD_IDS, RANKS, SMALL_JOKER, SUITS, Card, full_deck
from shengji.engine.errors import InvalidOptionError
from shengji.engine.rules import BIDDING, FLIP_RULE, FLIP_RULE_HOUSE, RuleSet
from shengji.engine.trump import Trump

MIN_PLAYERS = 4
FIRST_CARD = "first_card"
AS_BIDS = "as_bids"
ANY_CARD = "any_card"
LEVEL_OR_HIGHEST = "level_or_highest"
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
REMOVAL_SUITS = "CDHS"
"""The suits cards are removed in when a kitty size does not deal evenly (RULES-SPEC.md §10.11)."""
POINT_RANKS = "5TK"


def deal_sizes(players: int, decks: int) -> tuple[int, int]:
    """``(cards_each, kitty)`` for a table shape (RULES-SPEC.md §9.1): with ``N = 54 × decks``,
    the kitty is ``N mod players`` (``players`` when that is 0), raised by ``players`` while
    under 5; everyone gets the rest in equal shares. ``deal_sizes(4, 2) == (25, 8)``."""
    total = 54 * decks
    kitty = formula_kitty(total, players)
    return (total - kitty) // players, kitty


def formula_kitty(total: int, players: int) -> int:
    """RULES-SPEC.md §9.1.4's kitty for ``total`` cards: ``total mod players`` (``players`` when
    that is 0), raised by ``players`` while under 5."""
    kitty = total % players or players
    while kitty < MIN_KITTY:
        kitty += players
    return kitty


@dataclass(frozen=True, slots=True)
class DeckShape:
    """The cards of one hand's deal: ``copies`` of each card id in the shuffled deck, the
    ``kitty`` size, the cards ``each`` seat is dealt, and the cards ``removed`` before the deal
    so that a chosen kitty size deals evenly (RULES-SPEC.md §10.11, §10.12)."""

    copies: tuple[int, ...]
    kitty: int
    each: int
    removed: tuple[int, ...] = ()


def deck_shape(rules: RuleSet, level: str) -> DeckShape:
    """The deal of a hand at ``level`` under ``rules``: the formula of RULES-SPEC.md §9.1.4 on
    the table's cards, or ``kitty_size`` with the fewest cards removed that deal it evenly."""
    copies = rules.card_copies()
    total = sum(copies)
    players = rules.players
    if not rules.kitty_size:
        kitty = formula_kitty(total, players)
        return DeckShape(copies, kitty, (total - kitty) // players)
    removed = removed_cards((total - rules.kitty_size) % players, level, rules.deck_min_rank)
    copies = rules.card_copies(removed)
    each = (total - len(removed) - rules.kitty_size) // players
    return DeckShape(copies, rules.kitty_size, each, removed)


def removed_cards(count: int, level: str, min_rank: str = "2") -> tuple[int, ...]:
    """RULES-SPEC.md §10.11: ``count`` copies of the lowest rank from ``min_rank`` up that is
    neither ``level`` nor a point rank, one at a time in the suit order C, D, H, S, C, …"""
    rank = next(r for r in RANKS[RANKS.index(min_rank) :] if r != level and r not in POINT_RANKS)
    rank_index = RANKS.index(rank)
    suits = [SUITS.index(REMOVAL_SUITS[i % len(REMOVAL_SUITS)]) for i in range(count)]
    return tuple(sorted(suit * 13 + rank_index for suit in suits))


def random_level(rng: Random, min_rank: str = "2") -> str:
    """RULES-SPEC.md §5.7 ``level_source = random``: a level rank drawn from the hand's seed
    (from ``min_rank`` up for a shortened deck, RULES-SPEC.md §10.12)."""
    ranks = RANKS[RANKS.index(min_rank) :]
    return ranks[rng.randrange(len(ranks))]


def shuffled_deck(rng: Random, decks: int = 2, copies: Sequence[int] | None = None) -> list[int]:
    """A shuffled deck of ``decks`` full decks, or of ``copies`` of each card id."""
    deck = list(_SORTED_DECKS[decks]) if copies is None else _sorted_cards(copies)
    rng.shuffle(deck)
    return deck


def _sorted_cards(copies: Sequence[int]) -> list[int]:
    return [c for c in CARD_IDS for _ in range(copies[c])]


def draw_seat(start: int, draw_index: int, players: int = SEATS) -> int:
    """The seat that receives draw ``draw_index`` of a deal starting at ``start``."""
    return (start + draw_index) % players


def check_deck(
    deck: Sequence[int], decks: int = 2, copies: Sequence[int] | None = None
) -> list[int]:
    """The deck as plain ints, after checking it holds every card exactly ``decks`` times (or
    ``copies[c]`` times, for a table whose deck is not full, RULES-SPEC.md §10.11)."""
    cards = [int(c) for c in deck]
    expected = list(_SORTED_DECKS.get(decks, ())) if copies is None else _sorted_cards(copies)
    if sorted(cards) != expected:
        raise InvalidSetupError(
            f"a deck must hold every card of {decks} decks exactly {decks} times"
            if copies is None
            else "a deck must hold exactly the cards of the table's decks"
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
    options: BidOptions = DEFAULT_BID_OPTIONS,
) -> tuple[list[int], str | None]:
    """RULES-SPEC.md §5.2 ``no_bid = flip_kitty``: turn the kitty over in order.

    Returns ``(flipped, suit)``: the cards turned, and the suit they name under ``flip_rule``
    (``flip_trump``; None = no-trump). Under ``first_card`` and ``level_or_highest`` the cards
    turned are those up to and including the deciding one, or all 8 when none decides; under
    ``any_card`` the first; under ``as_bids`` all 8 (the strongest bid can only be known once
    all are seen).
    """
    suit = flip_trump(kitty, level, rule, bidding, decks, options)
    return list(kitty[: _turned(kitty, level, rule)]), suit


def flip_trump(
    cards: Sequence[int],
    level: str,
    rule: str = FIRST_CARD,
    bidding: str = "strength",
    decks: int = 2,
    options: BidOptions = DEFAULT_BID_OPTIONS,
) -> str | None:
    """The trump suit the turned-over ``cards`` (in the order turned) name at ``level``, or None
    for no-trump (RULES-SPEC.md §5.2 ``flip_rule``).

    ``first_card`` (seed 004): the first level card names its suit, a joker first means
    no-trump. ``as_bids`` (seed 000, 按照亮主规则): the cards read as bids under ``bidding``,
    the strongest names the trump (``bidding.strongest_showing``, in the order and with the
    joker showings ``options`` give); no bid means no-trump. ``any_card`` (RULES-SPEC.md
    §10.21): the first card names its suit, a joker no-trump. ``level_or_highest``: as
    ``first_card``, but with neither a level card nor a joker the highest rank names the suit,
    the earliest turned of equal ones. An unknown rule or bidding raises ``InvalidOptionError``.
    """
    _check_flip_options(rule, bidding)
    if rule == AS_BIDS:
        return showing_suit(strongest_showing(cards, level, bidding, decks, options))
    if rule == ANY_CARD:
        return Card(cards[0]).suit if cards else None
    index = _deciding_index(cards, level)
    if index is None and rule == LEVEL_OR_HIGHEST and cards:
        index = _highest_index(cards)
    return None if index is None else Card(cards[index]).suit


def _check_flip_options(rule: str, bidding: str) -> None:
    if rule not in FLIP_RULE and rule not in FLIP_RULE_HOUSE:
        rules = ", ".join(FLIP_RULE + FLIP_RULE_HOUSE)
        raise InvalidOptionError(f"flip_rule {rule!r} is not one of {rules}")
    if bidding not in BIDDING:
        raise InvalidOptionError(f"bidding {bidding!r} is not one of {', '.join(BIDDING)}")


def _deciding_index(cards: Sequence[int], level: str) -> int | None:
    """``first_card``: the index of the first joker or level card, None if there is none."""
    level_rank = RANKS.index(level)
    for index, card in enumerate(cards):
        if card >= SMALL_JOKER or card % 13 == level_rank:
            return index
    return None


def _highest_index(cards: Sequence[int]) -> int:
    """``level_or_highest`` with no level card and no joker: the index of the highest rank, the
    earliest of equal ones (RULES-SPEC.md §10.21)."""
    return max(range(len(cards)), key=lambda index: (cards[index] % 13, -index))


def _turned(cards: Sequence[int], level: str, rule: str) -> int:
    """How many cards a flip turns over (see ``flip_kitty``)."""
    if rule == ANY_CARD:
        return min(1, len(cards))
    index = None if rule == AS_BIDS else _deciding_index(cards, level)
    return len(cards) if index is None else index + 1


def no_trump(level: str) -> Trump:
    return Trump(level, None)
