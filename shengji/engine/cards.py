"""Cards and their text notation: rank then suit, ``AS TD SJ BJ`` (RULES-SPEC.md, card notation).

A card is a ``Card``, an ``int`` from 0 to 53: ``suit * 13 + rank`` for the 52 suited cards
(suits S H C D, ranks 2..A), 52 for the small joker and 53 for the big one. The two copies of a
card in the two decks are the same value, so a hand is a list with repeats.
"""

from __future__ import annotations

from collections.abc import Iterable

from shengji.engine.errors import InvalidCardError, InvalidNotationError

RANKS = "23456789TJQKA"
SUITS = "SHCD"
SMALL_JOKER = 52
BIG_JOKER = 53
CARD_IDS = range(54)
DECKS = 2


def _card_text(card_id: int) -> str:
    if card_id == SMALL_JOKER:
        return "SJ"
    if card_id == BIG_JOKER:
        return "BJ"
    return RANKS[card_id % 13] + SUITS[card_id // 13]


_TEXT: tuple[str, ...] = tuple(_card_text(i) for i in CARD_IDS)


class Card(int):
    """One card; ``Card('AS')`` or ``Card(12)``; ``repr`` pastes back into code."""

    __slots__ = ()

    def __new__(cls, value: int | str) -> Card:
        if isinstance(value, str):
            return parse_card(value)
        if 0 <= value < 54:
            return _BY_ID[value]
        raise InvalidCardError(f"card id {value!r} is not in 0..53")

    @property
    def text(self) -> str:
        return _TEXT[self]

    @property
    def rank(self) -> str | None:
        """``"2"`` .. ``"A"``, or None for a joker."""
        return None if self >= SMALL_JOKER else RANKS[self % 13]

    @property
    def suit(self) -> str | None:
        """``"S" "H" "C" "D"``, or None for a joker."""
        return None if self >= SMALL_JOKER else SUITS[self // 13]

    @property
    def is_joker(self) -> bool:
        return self >= SMALL_JOKER

    def __repr__(self) -> str:
        return f"Card({_TEXT[self]!r})"

    def __str__(self) -> str:
        return _TEXT[self]


_BY_ID: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in CARD_IDS)
_BY_TEXT: dict[str, Card] = {_TEXT[i]: _BY_ID[i] for i in CARD_IDS}


def card(card_id: int) -> Card:
    """The ``Card`` for an id, without the checks of ``Card(...)`` (ids from the engine)."""
    return _BY_ID[card_id]


def parse_card(text: str) -> Card:
    """One card from its two characters, case-insensitive: ``parse_card("as") == Card('AS')``."""
    found = _BY_TEXT.get(text.upper())
    if found is None:
        raise InvalidNotationError(text, text)
    return found


def parse_cards(text: str) -> list[Card]:
    """Cards from text: space separated (``"AS AS KS"``) or glued (``"4S4S6S6S"``), any case."""
    cards: list[Card] = []
    for token in text.split():
        if len(token) % 2:
            raise InvalidNotationError(token, text)
        upper = token.upper()
        for start in range(0, len(upper), 2):
            found = _BY_TEXT.get(upper[start : start + 2])
            if found is None:
                bad = token if len(token) == 2 else token[start : start + 2]
                raise InvalidNotationError(bad, text)
            cards.append(found)
    return cards


def format_cards(cards: Iterable[int]) -> str:
    """Canonical text: upper case, space separated, in the order given."""
    return " ".join([_TEXT[c] for c in cards])


def full_deck() -> list[Card]:
    """The 108 cards of two decks, in id order (shuffle a copy to deal)."""
    return [c for c in _BY_ID for _ in range(DECKS)]


def deck_copies(
    decks: int, min_rank: str = "2", jokers: bool = True, removed: Iterable[int] = ()
) -> tuple[int, ...]:
    """How many copies of each card id (54 counts) a table's decks hold: ``decks`` of every
    card of rank ``min_rank`` or higher, the jokers unless left out, less the ``removed`` cards
    (RULES-SPEC.md §10.11, §10.12)."""
    lowest = RANKS.index(min_rank)
    copies = [decks if c % 13 >= lowest else 0 for c in range(SMALL_JOKER)]
    copies += [decks if jokers else 0] * 2
    for c in removed:
        copies[c] -= 1
    return tuple(copies)


def as_cards(cards: Iterable[int]) -> list[Card]:
    """Card objects for ids (for output of functions that work on plain ints)."""
    return [_BY_ID[c] for c in cards]
