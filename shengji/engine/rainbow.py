"""Rainbows (RULES-SPEC.md §10.17, ``rainbow_min``): cards of one rank across the suit groups.

A rainbow is at least ``rainbow_min`` cards of one rank (no joker) spanning four suit groups or
more (the trumps count as one group); a lead of several ranks, each a rainbow, is a rainbow
throw. A follower owes, for each of the lead's rainbows (the largest first), a rainbow of as
many cards of one rank if its hand can still give one, else any cards. A play that answers
every rainbow wins against the best so far with a higher list of ranks (2 … A, trump ignored).
"""

from __future__ import annotations

from collections.abc import Sequence

from shengji.engine.cards import SMALL_JOKER, Card, card
from shengji.engine.errors import CARDS_NOT_IN_HAND, MUST_FOLLOW_PAIR, WRONG_COUNT
from shengji.engine.lead import holds
from shengji.engine.trump import Trump

MIN_GROUPS = 4
Unit = tuple[int, tuple[int, ...]]
"""``(rank index, cards)``: one rainbow."""


def rainbow_units(cards: Sequence[int], trump: Trump, minimum: int) -> tuple[Unit, ...] | None:
    """The rainbows ``cards`` are made of, the largest (then the highest) first, or None when
    they are not a rainbow lead under ``rainbow_min = minimum`` (0: rainbows are off)."""
    if not minimum or not cards or any(c >= SMALL_JOKER for c in cards):
        return None
    by_rank: dict[int, list[int]] = {}
    for c in cards:
        by_rank.setdefault(c % 13, []).append(c)
    groups = trump.groups
    units: list[Unit] = []
    for rank, held in by_rank.items():
        if len(held) < minimum or len({groups[c] for c in held}) < MIN_GROUPS:
            return None
        units.append((rank, tuple(sorted(held))))
    return tuple(sorted(units, key=lambda u: (-len(u[1]), -u[0])))


def is_rainbow(cards: Sequence[int], trump: Trump, minimum: int) -> bool:
    return rainbow_units(cards, trump, minimum) is not None


def _take(pool: list[int], size: int, trump: Trump) -> list[int] | None:
    """``size`` cards of ``pool`` (one rank) spanning four groups, or None: one of each group
    first, the groups most held first."""
    groups = trump.groups
    by_group: dict[int, list[int]] = {}
    for c in pool:
        by_group.setdefault(groups[c], []).append(c)
    if len(by_group) < MIN_GROUPS or len(pool) < size:
        return None
    ordered = sorted(by_group.values(), key=len, reverse=True)
    chosen = [cards[0] for cards in ordered]
    rest = [c for cards in ordered for c in cards[1:]]
    chosen += rest[: size - len(chosen)] if size > len(chosen) else []
    return chosen[:size] if len(chosen) >= size else None


def answers(
    cards: Sequence[int], units: Sequence[Unit], trump: Trump
) -> tuple[tuple[bool, ...], tuple[int, ...], list[int]]:
    """The best the ``cards`` can answer the lead's ``units``: which are answered (the largest
    first, best first), the rank answering each (-1 for none) and the cards used."""
    best: tuple[tuple[bool, ...], tuple[int, ...], list[int]] | None = None

    def search(
        start: int, left: list[int], flags: tuple[bool, ...], ranks: tuple[int, ...]
    ) -> None:
        nonlocal best
        if start == len(units):
            used = list(cards)
            for c in left:
                used.remove(c)
            found = (flags, ranks, used)
            if best is None or (flags, ranks) > (best[0], best[1]):
                best = found
            return
        size = len(units[start][1])
        for rank in sorted({c % 13 for c in left if c < SMALL_JOKER}, reverse=True):
            taken = _take([c for c in left if c < SMALL_JOKER and c % 13 == rank], size, trump)
            if taken is None:
                continue
            rest = list(left)
            for c in taken:
                rest.remove(c)
            search(start + 1, rest, (*flags, True), (*ranks, rank))
        search(start + 1, left, (*flags, False), (*ranks, -1))

    search(0, list(cards), (), ())
    assert best is not None
    return best


def rainbow_follow_error(
    hand: Sequence[int], lead: Sequence[int], play: Sequence[int], trump: Trump, minimum: int
) -> str | None:
    """None when ``play`` is a legal answer to the rainbow ``lead``, else the reason code
    (``must_follow_pair``: a rainbow the hand could give is missing)."""
    if len(play) != len(lead):
        return WRONG_COUNT
    if not holds(hand, play):
        return CARDS_NOT_IN_HAND
    units = rainbow_units(lead, trump, minimum)
    assert units is not None
    owed = answers(hand, units, trump)[0]
    given = answers(play, units, trump)[0]
    return None if given >= owed else MUST_FOLLOW_PAIR


def rainbow_legal_follow(
    hand: Sequence[int], lead: Sequence[int], trump: Trump, minimum: int
) -> list[Card]:
    """A legal answer: the rainbows owed, then the lowest other cards."""
    units = rainbow_units(lead, trump, minimum)
    assert units is not None
    chosen = answers(hand, units, trump)[2]
    rest = list(hand)
    for c in chosen:
        rest.remove(c)
    rest.sort(key=lambda c: (trump.strengths[c], c))
    return [card(c) for c in chosen + rest[: len(lead) - len(chosen)]]


def rainbow_winner(plays: Sequence[Sequence[int]], trump: Trump, minimum: int) -> int:
    """The index of the winning play: the first with the highest ranks among those answering
    every rainbow of the lead."""
    units = rainbow_units(plays[0], trump, minimum)
    assert units is not None
    best = tuple(rank for rank, _ in units)
    winner = 0
    for index in range(1, len(plays)):
        flags, ranks, _ = answers(plays[index], units, trump)
        if all(flags) and ranks > best:
            winner, best = index, ranks
    return winner


def rainbow_throw_failure(
    lead: Sequence[int], other_hands: Sequence[Sequence[int]], trump: Trump, minimum: int
) -> list[Card] | None:
    """The rainbow a failed rainbow throw is forced to (the lowest rank beaten), or None when
    it stands: another hand holds a rainbow of a higher rank with at least as many cards."""
    units = rainbow_units(lead, trump, minimum)
    assert units is not None
    if len(units) < 2:
        return None
    failing = [
        (rank, cards)
        for rank, cards in units
        if any(_beaten(rank, len(cards), hand, trump) for hand in other_hands)
    ]
    if not failing:
        return None
    return [card(c) for c in min(failing, key=lambda u: (u[0], len(u[1])))[1]]


def _beaten(rank: int, size: int, hand: Sequence[int], trump: Trump) -> bool:
    higher = {c % 13 for c in hand if c < SMALL_JOKER and c % 13 > rank}
    return any(
        _take([c for c in hand if c < SMALL_JOKER and c % 13 == r], size, trump) is not None
        for r in higher
    )


def rainbow_multiplier(lead: Sequence[int], trump: Trump, minimum: int) -> int:
    """RULES-DECISIONS 43: the kitty multiplier of a last trick led by a rainbow: 2 × the
    cards of its largest rainbow."""
    units = rainbow_units(lead, trump, minimum)
    assert units is not None
    return 2 * len(units[0][1])


def first_rainbow_blocker(
    forced: Sequence[int], hands: Sequence[Sequence[int]], trump: Trump
) -> int | None:
    """The index of the first hand holding a higher rainbow of at least the forced part's size."""
    rank, size = forced[0] % 13, len(forced)
    for index, hand in enumerate(hands):
        if _beaten(rank, size, hand, trump):
            return index
    return None
