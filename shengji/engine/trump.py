"""The trump context of a hand: which cards are trump and the order of every card (RULES-SPEC.md
§2).

``Trump(level, suit)`` objects are cached, one per (level, suit), and carry lookup tables indexed
by card id, so the hot paths do ``trump.orders[card]`` instead of computing anything.

Orders are small ints, comparable inside one suit group only:
off-suit cards and trump-suit cards without the level rank 0..11 (2 low, A high, level rank
skipped); off-suit level cards 12; trump-suit level card 13; SJ 14; BJ 15.
Under no-trump: all level cards 12, SJ 13, BJ 14. At level ``NT`` (RULES-SPEC.md §10.5) there
are no level cards: every suit is plain, 2 … A at 0..12, and the trumps are SJ 13 and BJ 14.
Consecutive orders are consecutive for tractors (RULES-SPEC.md §3), and equal orders are equal
in play (first played wins).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from shengji.engine.cards import BIG_JOKER, CARD_IDS, RANKS, SMALL_JOKER, SUITS, Card
from shengji.engine.errors import InvalidTrumpError

if TYPE_CHECKING:
    from shengji.engine.shapes import LeadInfo

TRUMP = 4
"""Group id of the trumps; groups 0..3 are the non-trump suits S H C D."""
GROUP_NAMES = ("S", "H", "C", "D", "trump")
GROUP_IDS = range(5)
ORDER_SLOTS = 16
"""Orders run 0..15; tables indexed by order have this many entries."""
TRUMP_BONUS = 16
"""Added to a trump's order in ``strengths``, so any trump outranks any non-trump card."""
NO_LEVEL = "NT"
"""The level with no level cards (RULES-SPEC.md §10.5; ``levels.NT``)."""


class Trump:
    """Trump context: level rank (``"2"``..``"A"``, or ``"NT"``: no level cards) and trump suit
    (``"S" "H" "C" "D"`` or None; always None at NT).

    Read-only tables, indexed by card id: ``groups`` (0..3 suit, 4 trump), ``orders`` (see the
    module doc), ``strengths`` (order, +16 for trumps; for sorting), ``high_first`` (a sort
    key: higher order first, then lower id, so copies sit together). ``group_table`` and
    ``order_table`` are 256-byte ``bytes.translate`` tables card id → group / order, and
    ``keep_group[g]`` the ids to delete with ``bytes.translate`` to keep only group ``g``.
    """

    __slots__ = (
        "display_order",
        "group_table",
        "groups",
        "high_first",
        "keep_group",
        "lead_cache",
        "level",
        "order_table",
        "orders",
        "strengths",
        "suit",
        "tractor_min_length",
        "tractor_min_tuple",
    )
    _instances: ClassVar[dict[tuple[str, str | None, int, int], Trump]] = {}

    level: str
    suit: str | None
    tractor_min_length: int
    tractor_min_tuple: int
    groups: tuple[int, ...]
    orders: tuple[int, ...]
    strengths: tuple[int, ...]
    high_first: tuple[int, ...]
    group_table: bytes
    order_table: bytes
    keep_group: tuple[bytes, ...]
    lead_cache: dict[bytes, LeadInfo]
    display_order: tuple[int, ...]

    def __new__(
        cls, level: str, suit: str | None = None, tractor: tuple[int, int] = (2, 2)
    ) -> Trump:
        """``tractor``: the fewest tuples a tractor has and the fewest cards in each
        (RULES-SPEC.md §10.13; ``(2, 2)`` by default: two pairs)."""
        key = (level.upper(), suit.upper() if suit else None, tractor[0], tractor[1])
        found = cls._instances.get(key)
        if found is None:
            found = object.__new__(cls)
            found._build(key[0], key[1])
            found.tractor_min_length, found.tractor_min_tuple = key[2], key[3]
            cls._instances[key] = found
        return found

    def _build(self, level: str, suit: str | None) -> None:
        if level != NO_LEVEL and (len(level) != 1 or level not in RANKS):
            raise InvalidTrumpError(f"level {level!r} is not one of {' '.join(RANKS)} NT")
        if suit is not None and (len(suit) != 1 or suit not in SUITS):
            raise InvalidTrumpError(f"trump suit {suit!r} is not one of {' '.join(SUITS)} or None")
        if suit is not None and level == NO_LEVEL:
            raise InvalidTrumpError(f"a hand at NT has no trump suit, not {suit!r}")
        self.level = level
        self.suit = suit
        # At NT no rank is the level's: a rank past A leaves every suit 2 … A.
        level_rank = len(RANKS) if level == NO_LEVEL else RANKS.index(level)
        suit_index = None if suit is None else SUITS.index(suit)
        pairs = [_group_and_order(c, level_rank, suit_index) for c in CARD_IDS]
        self.groups = tuple(g for g, _ in pairs)
        self.orders = tuple(o for _, o in pairs)
        self.strengths = tuple(o + (TRUMP_BONUS if g == TRUMP else 0) for g, o in pairs)
        self.high_first = tuple((ORDER_SLOTS - o) * 64 + c for c, (_, o) in enumerate(pairs))
        self.group_table = bytes(self.groups) + bytes(256 - len(self.groups))
        self.order_table = bytes(self.orders) + bytes(256 - len(self.orders))
        self.keep_group = tuple(
            bytes(c for c in CARD_IDS if self.groups[c] != g) for g in GROUP_IDS
        )
        self.lead_cache = {}
        ranked = sorted(
            CARD_IDS, key=lambda c: (_display_group(self.groups[c]), -self.orders[c], c)
        )
        order = [0] * len(CARD_IDS)
        for position, card_id in enumerate(ranked):
            order[card_id] = position
        self.display_order = tuple(order)

    def __repr__(self) -> str:
        if self.has_tractor_rule:
            return f"Trump({self.level!r}, {self.suit!r}, {self.tractor!r})"
        return f"Trump({self.level!r}, {self.suit!r})"

    def __reduce__(self) -> tuple[type[Trump], tuple[str, str | None, tuple[int, int]]]:
        return (Trump, (self.level, self.suit, self.tractor))

    @property
    def tractor(self) -> tuple[int, int]:
        """``(tractor_min_length, tractor_min_tuple)`` (RULES-SPEC.md §10.13)."""
        return self.tractor_min_length, self.tractor_min_tuple

    @property
    def has_tractor_rule(self) -> bool:
        """Whether tractors need more than two pairs' worth (RULES-SPEC.md §10.13)."""
        return self.tractor != (2, 2)

    def is_tractor_unit(self, size: int, length: int) -> bool:
        """Whether ``length`` tuples of ``size`` identical cards at consecutive orders are a
        tractor (RULES-SPEC.md §3, §9.2, §10.13)."""
        return length >= self.tractor_min_length and size >= self.tractor_min_tuple

    @property
    def no_trump(self) -> bool:
        return self.suit is None

    def is_trump(self, card: int) -> bool:
        return self.groups[card] == TRUMP


def _group_and_order(card_id: int, level_rank: int, trump_suit: int | None) -> tuple[int, int]:
    """RULES-SPEC.md §2: BJ > SJ > trump-suit level card > other level cards > trump suit A..2."""
    top = 12 if trump_suit is None else 13
    if card_id == BIG_JOKER:
        return TRUMP, top + 2
    if card_id == SMALL_JOKER:
        return TRUMP, top + 1
    suit, rank = divmod(card_id, 13)
    if rank == level_rank:
        return TRUMP, 13 if suit == trump_suit else 12
    order = rank if rank < level_rank else rank - 1
    return (TRUMP if suit == trump_suit else suit), order


def suit_group(card: int, trump: Trump) -> str:
    """``"trump"`` or the card's suit letter (RULES-SPEC.md §2, suit group)."""
    return GROUP_NAMES[trump.groups[card]]


def card_order(card: int, trump: Trump) -> int:
    """The card's order inside its suit group; higher beats lower, equal ties."""
    return trump.orders[card]


def sort_cards(cards: Iterable[Card], trump: Trump) -> list[Card]:
    """High to low: trumps first, then S H C D; equal orders by suit (for display)."""
    return sorted(cards, key=trump.display_order.__getitem__)


def _display_group(group: int) -> int:
    return -1 if group == TRUMP else group
