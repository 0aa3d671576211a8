"""Singles, pairs, tractors and throws (RULES-SPEC.md §3), and splitting cards into them.

The cards of one suit group are read as a *pair profile*: ``avail[order]`` is how many distinct
pairs the cards hold at that order (0..15). Off-suit and trump-suit orders hold at most one pair
each; only the level-card order can hold several (the off-suit level pairs, equal to each
other), and a tractor takes at most one pair per order, so equal-order pairs never join.
A tractor of length ``n`` is then a run of ``n`` consecutive orders with ``avail >= 1``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, pairwise, product
from random import Random

from shengji.engine.cards import Card, card
from shengji.engine.errors import LEAD_MIXED_SUITS, IllegalPlayError
from shengji.engine.shapes import Shape, Split
from shengji.engine.trump import ORDER_SLOTS, Trump
from shengji.engine.tuples import format_split_parts, has_wide, is_tuple_tractor, lead_format

NO_GROUP = -1
"""``play_group`` of an empty or mixed play."""


# --- pair profiles and runs -------------------------------------------------------------


def play_group(cards: Sequence[int], trump: Trump) -> int:
    """The one suit group all cards belong to, or ``NO_GROUP`` if empty or mixed."""
    if not cards:
        return NO_GROUP
    grouped = bytes(cards).translate(trump.group_table)
    first = grouped[0]
    return first if grouped.count(first) == len(grouped) else NO_GROUP


def pair_ids(cards: Sequence[int] | bytes) -> list[int]:
    """One id per pair (two identical cards) among the cards, ascending."""
    ordered = sorted(cards)
    return [a for a, b in pairwise(ordered) if a == b]


def pair_profile(cards: Sequence[int] | bytes, trump: Trump) -> list[int]:
    """``avail[order]`` = number of distinct pairs at that order (cards of one group)."""
    avail = [0] * ORDER_SLOTS
    orders = trump.orders
    for pair in pair_ids(cards):
        avail[orders[pair]] += 1
    return avail


def run_tops(avail: Sequence[int], length: int) -> list[int]:
    """Top orders of every run of ``length`` consecutive available orders, highest first."""
    tops: list[int] = []
    run = 0
    for order in range(ORDER_SLOTS):
        run = run + 1 if avail[order] else 0
        if run >= length:
            tops.append(order)
    tops.reverse()
    return tops


def _take(avail: list[int], top: int, length: int, step: int) -> None:
    for order in range(top - length + 1, top + 1):
        avail[order] -= step


def can_place(avail: list[int], lengths: Sequence[int], start: int = 0) -> bool:
    """Whether disjoint tractors of all ``lengths[start:]`` fit in the profile."""
    if start == len(lengths):
        return True
    length = lengths[start]
    for top in run_tops(avail, length):
        _take(avail, top, length, 1)
        fits = can_place(avail, lengths, start + 1)
        _take(avail, top, length, -1)
        if fits:
            return True
    return False


def best_first_top(avail: list[int], lengths: Sequence[int]) -> int | None:
    """Highest top of a ``lengths[0]`` tractor in a placement of all ``lengths``, or None.

    With ``lengths`` longest first, this is the key of a play split into a lead's shape
    (RULES-SPEC.md §4 Winner: the top card of the part matching the lead's longest tractor).
    """
    length = lengths[0]
    for top in run_tops(avail, length):
        _take(avail, top, length, 1)
        fits = can_place(avail, lengths, 1)
        _take(avail, top, length, -1)
        if fits:
            return top
    return None


Cover = tuple[tuple[bool, ...], tuple[int, ...]]


def best_cover(avail: list[int], lengths: Sequence[int], rng: Random | None = None) -> Cover:
    """Which of ``lengths`` (longest first) the profile can supply, best first.

    Returns ``(matched, tops)``: ``matched`` is the lexicographically greatest tuple of flags
    over all ways to place disjoint tractors (RULES-SPEC.md §4 Following, obligation 2: each lead
    tractor, longest first, is owed if the hand still holds one), and ``tops`` gives the top
    order used for each matched length (-1 when unmatched). ``rng`` picks among equal bests.
    """
    if not lengths:
        return (), ()
    length, rest = lengths[0], lengths[1:]
    tops = run_tops(avail, length)
    if rng is not None:
        rng.shuffle(tops)
    if not tops:
        matched, rest_tops = best_cover(avail, rest, rng)
        return (False, *matched), (-1, *rest_tops)
    best: Cover | None = None
    for top in tops:
        _take(avail, top, length, 1)
        matched, rest_tops = best_cover(avail, rest, rng)
        _take(avail, top, length, -1)
        if best is None or matched > best[0][1:]:
            best = (True, *matched), (top, *rest_tops)
            if all(matched):
                break
    assert best is not None
    return best


# --- patterns ---------------------------------------------------------------------------


def is_pair(cards: Sequence[int]) -> bool:
    """Two identical cards (RULES-SPEC.md §3 Pair)."""
    return len(cards) == 2 and cards[0] == cards[1]


def is_tractor(cards: Sequence[int], trump: Trump) -> bool:
    """Two or more pairs of one suit group at consecutive orders (RULES-SPEC.md §3 Tractor); with
    more decks, two or more tuples of one size (RULES-SPEC.md §9.2)."""
    if has_wide(cards):
        return is_tuple_tractor(cards, trump)
    if len(cards) < 4 or len(cards) % 2 or play_group(cards, trump) == NO_GROUP:
        return False
    pairs = pair_ids(cards)
    if 2 * len(pairs) != len(cards) or len(set(pairs)) != len(pairs):
        return False
    if not trump.is_tractor_unit(2, len(pairs)):
        return False  # RULES-SPEC.md §10.13
    orders = sorted(trump.orders[p] for p in pairs)
    return all(b - a == 1 for a, b in pairwise(orders))


def pairs_by_order(cards: Sequence[int], trump: Trump) -> tuple[list[list[int]], list[int]]:
    """Pair ids grouped by order (ascending ids), and the unpaired card ids."""
    by_order: list[list[int]] = [[] for _ in range(ORDER_SLOTS)]
    ordered = sorted(cards)
    singles: list[int] = []
    index = 0
    while index < len(ordered):
        current = ordered[index]
        if index + 1 < len(ordered) and ordered[index + 1] == current:
            by_order[trump.orders[current]].append(current)
            index += 2
        else:
            singles.append(current)
            index += 1
    return by_order, singles


def _longest_run(avail: Sequence[int]) -> tuple[int, int]:
    """(top, length) of the longest run of available orders; the highest among equals."""
    best_top, best_length, run = -1, 0, 0
    for order in range(ORDER_SLOTS):
        run = run + 1 if avail[order] else 0
        if run >= best_length and run:
            best_top, best_length = order, run
    return best_top, best_length


def _pair_cards(pair: int) -> tuple[Card, Card]:
    return card(pair), card(pair)


def _high_to_low(ids: Sequence[int], trump: Trump) -> list[int]:
    return sorted(ids, key=trump.high_first.__getitem__)


def split_cards(cards: Sequence[int], trump: Trump) -> Split:
    """A lead's split (RULES-SPEC.md §3 Throw): tractors longest first, then pairs, then singles;
    with three or more copies of a card, the format of RULES-SPEC.md §9.2 (its triples, quads and
    tractors of them in ``wide``).

    Parts are listed high to low within each kind. Raises
    ``IllegalPlayError("lead_mixed_suits")`` unless the cards are all of one suit group.
    """
    if play_group(cards, trump) == NO_GROUP:
        raise IllegalPlayError(LEAD_MIXED_SUITS, " ".join(card(c).text for c in cards))
    if has_wide(cards):
        return Split(*format_split_parts(lead_format(cards, trump)))
    ordered = sorted(cards, key=trump.high_first.__getitem__)
    pairs: list[int] = []
    singles: list[int] = []
    index, size = 0, len(ordered)
    while index < size:
        current = ordered[index]
        if index + 1 < size and ordered[index + 1] == current:
            pairs.append(current)
            index += 2
        else:
            singles.append(current)
            index += 1
    tractors: list[tuple[Card, ...]] = []
    orders = trump.orders
    if trump.tractor_min_tuple <= 2 and any(orders[a] - orders[b] == 1 for a, b in pairwise(pairs)):
        tractors, pairs = _take_tractors(pairs, trump)
    return Split(
        tuple(tractors),
        tuple([_pair_cards(p) for p in pairs]),
        tuple([card(c) for c in singles]),
    )


def _take_tractors(pairs: list[int], trump: Trump) -> tuple[list[tuple[Card, ...]], list[int]]:
    """Tractors out of pair ids (high to low), longest first; the pairs left over."""
    by_order: list[list[int]] = [[] for _ in range(ORDER_SLOTS)]
    for pair in pairs:
        by_order[trump.orders[pair]].append(pair)
    avail = [len(ids) for ids in by_order]
    tractors: list[tuple[Card, ...]] = []
    while True:
        top, length = _longest_run(avail)
        if length < max(2, trump.tractor_min_length):
            break
        tractor: list[Card] = []
        for order in range(top, top - length, -1):
            tractor += _pair_cards(by_order[order].pop(0))
            avail[order] -= 1
        tractors.append(tuple(tractor))
    left = [p for p in pairs if p in by_order[trump.orders[p]]]
    return tractors, left


def shape_of(cards: Sequence[int], trump: Trump) -> Shape:
    """The shape of a lead's split (see ``split_cards``)."""
    return split_cards(cards, trump).shape


def shape_key(cards: Sequence[int] | bytes, shape: Shape, trump: Trump) -> int | None:
    """The order of the key card of the best split of ``cards`` into ``shape``, or None.

    ``cards`` are of one suit group and as many as ``shape.size``. RULES-SPEC.md §4 Winner: the key
    is the top of the part matching the shape's longest tractor; with no tractor, the highest
    pair; with only singles, the highest single. A pair may serve as two singles and a tractor
    as pairs or as a shorter tractor plus pairs.
    """
    orders = trump.orders
    if not shape.tractors and not shape.pairs:
        return max(orders[c] for c in cards)
    pairs = pair_ids(cards)
    if len(pairs) < shape.pair_units:
        return None
    if not shape.tractors:
        return max(orders[p] for p in pairs)
    avail = [0] * ORDER_SLOTS
    for pair in pairs:
        avail[orders[pair]] += 1
    return best_first_top(avail, shape.tractors)


def shape_splits(cards: Sequence[int], shape: Shape, trump: Trump) -> Iterator[Split]:
    """Every distinct way to split ``cards`` (one suit group) into ``shape``.

    Slow and exhaustive: for tests, analysis and explaining a decision, not for hot paths.
    """
    if len(cards) != shape.size or play_group(cards, trump) == NO_GROUP:
        return
    by_order, _ = pairs_by_order(cards, trump)
    seen: set[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]] = set()
    for tractors in _tractor_choices(by_order, shape.tractors, 0):
        left = list(cards)
        for tractor in tractors:
            for c in tractor:
                left.remove(c)
        for pairs in combinations(sorted(set(pair_ids(left))), shape.pairs):
            rest = list(left)
            for pair in pairs:
                rest.remove(pair)
                rest.remove(pair)
            key = (tuple(sorted(tractors)), pairs)
            if key in seen:
                continue
            seen.add(key)
            yield Split(
                tuple(tuple(card(c) for c in t) for t in tractors),
                tuple(_pair_cards(p) for p in _high_to_low(pairs, trump)),
                tuple(card(c) for c in _high_to_low(rest, trump)),
            )


def _tractor_choices(
    by_order: list[list[int]], lengths: Sequence[int], start: int
) -> Iterator[list[tuple[int, ...]]]:
    """Every list of disjoint tractors (as card ids, high to low) of the given lengths."""
    if start == len(lengths):
        yield []
        return
    length = lengths[start]
    avail = [len(ids) for ids in by_order]
    for top in run_tops(avail, length):
        span = range(top, top - length, -1)
        for chosen in product(*(sorted(set(by_order[o])) for o in span)):
            for order, pair in zip(span, chosen, strict=True):
                by_order[order].remove(pair)
            tractor = tuple(c for pair in chosen for c in (pair, pair))
            for rest in _tractor_choices(by_order, lengths, start + 1):
                yield [tractor, *rest]
            for order, pair in zip(span, chosen, strict=True):
                by_order[order].append(pair)
                by_order[order].sort()
