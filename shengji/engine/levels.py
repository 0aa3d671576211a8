"""Levels and how a hand's result moves them (RULES-SPEC.md §5.7, §10.5–§10.7).

Levels run 2 … A, and on to ``NT`` under ``top_level = NT`` (a hand at NT has no level cards:
trumps are the jokers alone). ``advance`` moves one level (a side's, or a player's in 找朋友) up
by a hand's gain, one level at a time: under ``advancement`` a gated level is passed only by a
winning defender, with the first level of that hand's gain (NT only in a hand played at NT);
anyone else stops on it and the rest of the gain is lost. Passing the top level is ``past_ace``'s
business: ``wrap`` goes on from 2 with the levels left, ``match_end`` holds at the top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from shengji.engine.cards import RANKS
from shengji.engine.trump import NO_LEVEL

NT = NO_LEVEL
"""The level past A under ``top_level = NT`` (RULES-SPEC.md §10.5)."""
ACE = "A"
JACK = "J"
POINT_RANKS = ("5", "T", "K")
LEVELS: tuple[str, ...] = (*RANKS, NT)
"""Every level in order, NT last (a table without it stops at A)."""


@lru_cache(maxsize=32)
def level_ladder(top_level: str = ACE, min_rank: str = "2") -> tuple[str, ...]:
    """The levels of a table in order: 2 … A, then NT under ``top_level = NT``; from
    ``min_rank`` on for a shortened deck (RULES-SPEC.md §10.12)."""
    ladder = LEVELS if top_level == NT else tuple(RANKS)
    return ladder[RANKS.index(min_rank) :]


def level_index(level: str) -> int:
    """A level's place in ``LEVELS`` (2 → 0 … A → 12, NT → 13): higher is further."""
    return LEVELS.index(level)


def highest_level(levels: Sequence[str]) -> str:
    return max(levels, key=LEVELS.index)


@lru_cache(maxsize=8)
def gated_levels(advancement: str, top_level: str = ACE) -> frozenset[str]:
    """The levels that must be defended to be passed (RULES-SPEC.md §10.6): none under
    ``free``; the top level, and A below NT, under ``defend_top``; also 5, T and K under
    ``defend_points``."""
    if advancement == "free":
        return frozenset()
    gates = {top_level, ACE}
    if advancement == "defend_points":
        gates.update(POINT_RANKS)
    return frozenset(gates)


@dataclass(frozen=True, slots=True)
class Advance:
    """How one level moves: ``level`` after the hand, and whether it passed the top level."""

    level: str
    passed_top: bool


def advance(
    level: str,
    by: int,
    *,
    top_level: str = ACE,
    advancement: str = "free",
    wrap: bool = False,
    defended: bool = False,
    hand_level: str = "",
    min_rank: str = "2",
) -> Advance:
    """``level`` up ``by`` levels, one at a time (RULES-SPEC.md §5.7, §10.5, §10.6).

    ``defended``: the level belongs to the winning defending side, who may pass a gated level
    with the first level of the gain (NT only when ``hand_level`` is NT too). Passing the top
    level goes on from the lowest (2, or ``min_rank`` of a shortened deck) under ``wrap``, else
    holds at the top.
    """
    ladder = level_ladder(top_level, min_rank)
    gates = gated_levels(advancement, top_level)
    index = ladder.index(level)
    top = len(ladder) - 1
    passed = False
    for step in range(by):
        current = ladder[index]
        if current in gates and not (
            defended and step == 0 and (current != NT or hand_level == NT)
        ):
            break
        if index < top:
            index += 1
            continue
        passed = True
        if not wrap:
            break
        index = 0
    return Advance(ladder[index], passed)
