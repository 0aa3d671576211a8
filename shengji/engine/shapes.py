"""What a play is made of: its ``Shape`` (how many tractors, pairs and singles), its ``Split``
(the cards of each part) and, for a lead, its ``LeadInfo`` (RULES-SPEC.md §3, §4).

Plain records over ``Card``s, with nothing to compute against a ``Trump``: the modules that
split cards (``patterns``), analyse leads (``lead``) and hold per-trump caches (``trump``) all
name them, so they live below those modules and import only ``cards``.
"""

from __future__ import annotations

from typing import NamedTuple

from shengji.engine.cards import Card


class Shape(NamedTuple):
    """How many tractors (their lengths, longest first), pairs and singles a play has.

    ``wide`` lists the units of three or more identical cards (RULES-SPEC.md §9.2) as
    ``(tuple size, length)``: ``(3, 1)`` a triple, ``(4, 2)`` a tractor of two quads; it is
    empty for every play of a two-deck table.
    """

    tractors: tuple[int, ...] = ()
    pairs: int = 0
    singles: int = 0
    wide: tuple[tuple[int, int], ...] = ()

    @property
    def size(self) -> int:
        wide = sum([k * n for k, n in self.wide]) if self.wide else 0
        return 2 * sum(self.tractors) + 2 * self.pairs + self.singles + wide

    @property
    def parts(self) -> int:
        return len(self.tractors) + self.pairs + self.singles + len(self.wide)

    @property
    def is_throw(self) -> bool:
        return self.parts > 1

    @property
    def pair_units(self) -> int:
        """Pairs in the shape, counting every pair inside its tractors."""
        return sum(self.tractors) + self.pairs


class Split(NamedTuple):
    """Cards split into parts: tractors of pairs (each high to low), pairs, singles.

    ``wide`` holds the parts of three or more identical cards (triples, quads and tractors of
    them, RULES-SPEC.md §9.2), each high to low; empty on a two-deck table.
    """

    tractors: tuple[tuple[Card, ...], ...] = ()
    pairs: tuple[tuple[Card, Card], ...] = ()
    singles: tuple[Card, ...] = ()
    wide: tuple[tuple[Card, ...], ...] = ()

    @property
    def shape(self) -> Shape:
        lengths = tuple([len(t) // 2 for t in self.tractors])
        if not self.wide:
            return Shape(lengths, len(self.pairs), len(self.singles))
        wide = tuple([_wide_unit(part) for part in self.wide])
        return Shape(lengths, len(self.pairs), len(self.singles), wide)

    @property
    def first_card(self) -> Card:
        """The first card of the first part: for a two-deck lead's split, its key card."""
        if self.tractors:
            return self.tractors[0][0]
        if self.wide:
            return self.wide[0][0]
        return self.pairs[0][0] if self.pairs else self.singles[0]

    def cards(self) -> list[Card]:
        out: list[Card] = [c for w in self.wide for c in w]
        out += [c for t in self.tractors for c in t]
        out += [c for p in self.pairs for c in p]
        out += self.singles
        return out

    def __str__(self) -> str:
        """Parts separated by spaces, each part's cards glued: ``"QSQSJSJS ASAS KS"``."""
        parts = [*self.wide, *self.tractors, *self.pairs, *((s,) for s in self.singles)]
        return " ".join("".join(c.text for c in part) for part in parts)


def _wide_unit(part: tuple[Card, ...]) -> tuple[int, int]:
    """``(tuple size, length)`` of a part made of equal runs of identical cards."""
    size = part.count(part[0])
    return size, len(part) // size


class LeadInfo:
    """A valid lead, analysed: its suit group, split, shape and own key order.

    ``tractors`` and ``pair_units`` repeat ``shape.tractors`` and ``shape.pair_units`` for the
    hot paths. ``units`` is set only for a lead with three or more copies of a card: its format
    (RULES-SPEC.md §9.2) as ``(tuple size, length)`` per unit, in format order
    (shengji.engine.tuples reads it); None for every two-deck lead.
    """

    __slots__ = ("group", "key", "pair_units", "shape", "split", "tractors", "units")

    def __init__(
        self,
        group: int,
        split: Split,
        key: int,
        units: tuple[tuple[int, int], ...] | None = None,
    ) -> None:
        self.units = units
        self.group = group
        self.split = split
        self.shape = split.shape
        self.key = key
        self.tractors = self.shape.tractors
        self.pair_units = self.shape.pair_units

    def __repr__(self) -> str:
        return f"LeadInfo(group={self.group}, split={str(self.split)!r}, key={self.key})"
