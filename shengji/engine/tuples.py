"""Tuples and tractors of tuples with more than two decks (RULES-SPEC.md §9.2).

A *unit* is ``(k, n)``: ``n`` tuples of ``k`` identical cards at consecutive orders (``n == 1``
a lone tuple: ``(1, 1)`` a single, ``(3, 1)`` a triple; ``n >= 2`` a tractor). A lead's
*format* is its split into units, fewest and largest first (``lead_format``).

The old modules (patterns, lead, follow, trick, throw) keep their two-deck fast paths and call
the general functions here only when some card of their inputs appears three or more times, or
when ``draw_policy`` is ``longer_tuples_protected`` and the hand holds such a card. Every
function here also gives the two-deck answer on two-deck inputs (tests/engine/test_tuples.py
checks this against the fast paths).

Following is judged on a *structure*: for each lead unit of two or more cards, in format order,
what the follower's led-group cards can give it, the lexicographically best over every way to
place them (``_Search``). A unit is answered, in this order of preference (RULES-SPEC.md §9.2):
``(3,)`` exactly (a longer tractor or larger tuples hold it); ``(2, j, …)`` by a tractor of
smaller ``j``-tuples of as many cards (a led quad by ``5566``), then tuples from the cards
left; ``(1, s1, s2, …)`` by the largest tuples, largest first (a led triple by a pair: ``(1,
2)``). A play is legal when its own cards reach the hand's structure.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise, product
from operator import eq
from random import Random
from typing import NamedTuple

from shengji.engine.cards import Card, card
from shengji.engine.errors import (
    CARDS_NOT_IN_HAND,
    EMPTY_PLAY,
    LEAD_MIXED_SUITS,
    MUST_FOLLOW_PAIR,
    MUST_FOLLOW_SUIT,
    MUST_FOLLOW_TRACTOR,
    WRONG_COUNT,
    IllegalPlayError,
)
from shengji.engine.trump import ORDER_SLOTS, TRUMP, TRUMP_BONUS, Trump

NO_PROTECTIONS = "no_protections"
LONGER_TUPLES_PROTECTED = "longer_tuples_protected"
TRACTORS_ONLY_FROM_TRACTORS = "tractors_only_from_tractors"
PROTECTED_TRACTORS_ONLY = "protected_tractors_only"
SUIT_ONLY = "suit_only"
DRAW_POLICIES = (NO_PROTECTIONS, LONGER_TUPLES_PROTECTED)
HOUSE_DRAW_POLICIES = (TRACTORS_ONLY_FROM_TRACTORS, PROTECTED_TRACTORS_ONLY, SUIT_ONLY)
"""The values of ``draw_policy`` only a house rule sets (RULES-SPEC.md §10.14)."""
PROTECTING = frozenset((LONGER_TUPLES_PROTECTED, PROTECTED_TRACTORS_ONLY))
"""The policies that keep a longer tuple from filling a shorter one's place."""
TRACTORS_FROM_TRACTORS = frozenset((TRACTORS_ONLY_FROM_TRACTORS, PROTECTED_TRACTORS_ONLY))
"""The policies under which only a led tractor owes a tractor among its fallbacks."""

Unit = tuple[int, int]
"""``(k, n)``: ``n`` tuples of ``k`` identical cards at consecutive orders."""
Counts = tuple[int, ...]
SubVec = tuple[int, ...]
Vec = tuple[SubVec, ...]

EXACT: SubVec = (3,)
SMALLER_TRACTOR = 2
LARGEST_TUPLES = 1
FORMAT_CACHE_LIMIT = 4096


def has_wide(cards: Sequence[int] | bytes) -> bool:
    """Whether some card appears three or more times (cheap: one sort, one C-level scan)."""
    if len(cards) < 3:
        return False
    ordered = sorted(cards)
    return any(map(eq, ordered, ordered[2:]))


# --- formats ------------------------------------------------------------------------------


class Format(NamedTuple):
    """A lead's units in format order, their cards (high to low) and top orders."""

    group: int
    units: tuple[Unit, ...]
    parts: tuple[tuple[Card, ...], ...]
    tops: tuple[int, ...]

    @property
    def key(self) -> int:
        """The order of the lead's key unit (RULES-SPEC.md §9.2 Winning): its first unit's top."""
        return self.tops[0]

    @property
    def size(self) -> int:
        return sum([k * n for k, n in self.units])


_FORMATS: dict[Trump, dict[bytes, Format]] = {}


def lead_format(lead: Sequence[int], trump: Trump) -> Format:
    """The lead's format (cached per Trump). Raises ``IllegalPlayError`` for a bad lead."""
    cache = _FORMATS.get(trump)
    if cache is None:
        cache = _FORMATS[trump] = {}
    cache_key = bytes(lead)
    found = cache.get(cache_key)
    if found is None:
        found = _build_format(lead, trump)
        if len(cache) >= FORMAT_CACHE_LIMIT:
            cache.clear()
        cache[cache_key] = found
    return found


def _build_format(lead: Sequence[int], trump: Trump) -> Format:
    """RULES-SPEC.md §9.2: tractors of the largest tuples first, longest first, then the largest
    tuples, then singles. At an order with several candidate cards (off-suit level cards) the
    one with the fewest copies is taken, then the first in S H C D order (RULES-DECISIONS 2)."""
    if not lead:
        raise IllegalPlayError(EMPTY_PLAY)
    groups, orders = trump.groups, trump.orders
    group = groups[lead[0]]
    if any(groups[c] != group for c in lead):
        raise IllegalPlayError(LEAD_MIXED_SUITS, " ".join(card(c).text for c in lead))
    counts: dict[int, int] = {}
    for c in lead:
        counts[c] = counts.get(c, 0) + 1
    found: list[tuple[int, int, int, tuple[Card, ...]]] = []
    for k in range(max(counts.values()), 1, -1):
        if k < trump.tractor_min_tuple:
            break  # RULES-SPEC.md §10.13: thinner runs are separate tuples
        while True:
            run = _longest_run(counts, k, orders, trump.tractor_min_length)
            if run is None:
                break
            for c in run:
                counts[c] -= k
            found.append(
                (k, len(run), orders[run[0]], tuple(card(c) for c in run for _ in range(k)))
            )
    tractors = sorted(found, key=lambda t: (-t[0], -t[1], -t[2]))
    tuples = sorted(
        ((n, 1, orders[c], (card(c),) * n) for c, n in counts.items() if n >= 2),
        key=lambda t: (-t[0], -t[2], t[3][0]),
    )
    singles = sorted(
        ((1, 1, orders[c], (card(c),)) for c, n in counts.items() if n == 1),
        key=lambda t: (-t[2], t[3][0]),
    )
    every = [*tractors, *tuples, *singles]
    return Format(
        group,
        tuple([(k, n) for k, n, _, _ in every]),
        tuple([part for _, _, _, part in every]),
        tuple([top for _, _, top, _ in every]),
    )


def _longest_run(
    counts: dict[int, int], k: int, orders: Sequence[int], min_length: int = 2
) -> list[int] | None:
    """The cards (high to low) of the longest run of orders holding ``k`` copies of a card, the
    highest among equals; None if no run of ``min_length`` (two, RULES-SPEC.md §10.13)."""
    best_at: list[int] = [-1] * ORDER_SLOTS
    for c, n in counts.items():
        if n >= k:
            o = orders[c]
            held = best_at[o]
            if held < 0 or (counts[held], held) > (n, c):
                best_at[o] = c
    top, length, run = -1, 0, 0
    for order in range(ORDER_SLOTS):
        run = run + 1 if best_at[order] >= 0 else 0
        if run and run >= length:
            top, length = order, run
    if length < max(2, min_length):
        return None
    return [best_at[o] for o in range(top, top - length, -1)]


def format_split_parts(
    fmt: Format,
) -> tuple[
    tuple[tuple[Card, ...], ...],
    tuple[tuple[Card, Card], ...],
    tuple[Card, ...],
    tuple[tuple[Card, ...], ...],
]:
    """The format's parts sorted into (pair tractors, pairs, singles, wider units)."""
    tractors: list[tuple[Card, ...]] = []
    pairs: list[tuple[Card, Card]] = []
    singles: list[Card] = []
    wide: list[tuple[Card, ...]] = []
    for (k, n), part in zip(fmt.units, fmt.parts, strict=True):
        if k >= 3:
            wide.append(part)
        elif k == 2 and n >= 2:
            tractors.append(part)
        elif k == 2:
            pairs.append((part[0], part[1]))
        else:
            singles.append(part[0])
    return tuple(tractors), tuple(pairs), tuple(singles), tuple(wide)


def kitty_units_multiplier(lead_played: Sequence[int], trump: Trump) -> int:
    """RULES-SPEC.md §9.2 Kitty multiplier (more than two decks): 2 × the cards in the largest
    unit of the format of the last trick's lead as played (single 2, pair 4, triple 6, tractor
    of two pairs 8, …)."""
    return 2 * largest_unit(lead_played, trump)


def largest_unit(lead_played: Sequence[int], trump: Trump) -> int:
    """The cards in the largest unit of the lead's format (a tractor of two pairs: 4)."""
    fmt = lead_format(lead_played, trump)
    return max([k * n for k, n in fmt.units])


def is_tuple_tractor(cards: Sequence[int], trump: Trump) -> bool:
    """Two or more tuples of one size >= 2, one card per order, at consecutive orders of one
    suit group (RULES-SPEC.md §9.2)."""
    if len(cards) < 4:
        return False
    groups, orders = trump.groups, trump.orders
    group = groups[cards[0]]
    if any(groups[c] != group for c in cards):
        return False
    held = bytes(cards)
    distinct = set(held)
    k = held.count(cards[0])
    if k < 2 or any(held.count(c) != k for c in distinct):
        return False
    found = sorted(orders[c] for c in distinct)
    consecutive = all(b - a == 1 for a, b in pairwise(found))
    return len(found) >= 2 and consecutive and trump.is_tractor_unit(k, len(found))


# --- counts of one suit group -----------------------------------------------------------


class _Layout:
    """Distinct cards of one suit group (``ids``), with their orders and the indexes at each
    order; ``Counts`` tuples are indexed like ``ids``."""

    __slots__ = ("at_order", "ids", "index", "orders")

    def __init__(self, cards: Sequence[int] | bytes, trump: Trump) -> None:
        orders = trump.orders
        self.ids = sorted(set(cards), key=lambda c: (orders[c], c))
        self.orders = [orders[c] for c in self.ids]
        self.index = {c: i for i, c in enumerate(self.ids)}
        self.at_order: list[list[int]] = [[] for _ in range(ORDER_SLOTS)]
        for i, o in enumerate(self.orders):
            self.at_order[o].append(i)

    def counts(self, cards: Sequence[int] | bytes) -> Counts:
        out = [0] * len(self.ids)
        index = self.index
        for c in cards:
            out[index[c]] += 1
        return tuple(out)


def _placements(
    layout: _Layout, counts: Counts, k: int, n: int, protect: Counts | None
) -> list[tuple[int, Counts]]:
    """Every way to take a unit ``(k, n)`` from ``counts``: ``(top order, counts left)``, the
    highest tops first. With ``protect`` (the hand's own counts) only whole ``k``-tuples."""

    def ok(i: int) -> bool:
        have = counts[i]
        if protect is None:
            return have >= k
        return have == k and protect[i] == k

    out: list[tuple[int, Counts]] = []
    if n == 1:
        for i in range(len(counts) - 1, -1, -1):
            if ok(i):
                left = list(counts)
                left[i] -= k
                out.append((layout.orders[i], tuple(left)))
        return out
    at_order = layout.at_order
    usable = [[i for i in at_order[o] if ok(i)] for o in range(ORDER_SLOTS)]
    run = 0
    tops: list[int] = []
    for order in range(ORDER_SLOTS):
        run = run + 1 if usable[order] else 0
        if run >= n:
            tops.append(order)
    for top in reversed(tops):
        span = [usable[o] for o in range(top, top - n, -1)]
        for chosen in product(*span):
            left = list(counts)
            for i in chosen:
                left[i] -= k
            out.append((top, tuple(left)))
    return out


class _Search:
    """Lexicographically best structure of some cards against a lead's units (module doc)."""

    __slots__ = ("layout", "memo", "protect", "rng", "trump", "tuple_fallback_only", "units")

    def __init__(
        self,
        layout: _Layout,
        units: Sequence[Unit],
        protect: Counts | None,
        rng: Random | None = None,
        trump: Trump | None = None,
        draw_policy: str = NO_PROTECTIONS,
    ) -> None:
        self.trump = trump
        self.tuple_fallback_only = draw_policy in TRACTORS_FROM_TRACTORS
        self.layout = layout
        self.units = units
        self.protect = protect
        self.rng = rng
        self.memo: dict[tuple[int, Counts], tuple[Vec, Counts]] = {}

    def best(self, counts: Counts, start: int = 0) -> tuple[Vec, Counts]:
        """The best structure of ``units[start:]`` and the counts it leaves."""
        if start == len(self.units):
            return (), counts
        key = (start, counts)
        found = self.memo.get(key)
        if found is not None:
            return found
        k, n = self.units[start]
        options = self._unit_options(counts, k, n)
        if self.rng is not None:
            self.rng.shuffle(options)
        result: tuple[Vec, Counts] | None = None
        perfect = (EXACT,) * (len(self.units) - start - 1)
        for sub, left in options:
            rest, final = self.best(left, start + 1)
            candidate = ((sub, *rest), final)
            if result is None or candidate[0] > result[0]:
                result = candidate
                if rest == perfect:
                    break
        assert result is not None
        self.memo[key] = result
        return result

    def _unit_options(self, counts: Counts, k: int, n: int) -> list[tuple[SubVec, Counts]]:
        """The ways to answer one unit that reach its best answer (RULES-SPEC.md §9.2 order)."""
        exact = _placements(self.layout, counts, k, n, self.protect)
        if exact:
            return _dedupe([(EXACT, left) for _, left in exact])
        total = k * n
        trump = self.trump
        for j in range(k - 1, 1, -1):
            if n == 1 and self.tuple_fallback_only:
                break  # RULES-SPEC.md §10.14: a lone tuple never owes a tractor
            m = total // j
            if m < 2 or (trump is not None and not trump.is_tractor_unit(j, m)):
                continue
            found = _placements(self.layout, counts, j, m, self.protect)
            if found:
                options = [
                    ((SMALLER_TRACTOR, j, *sizes), final)
                    for _, left in found
                    for sizes, final in self._tuples(left, j, total - j * m)
                ]
                return _best_only(options)
        cap = k if n >= 2 else k - 1
        options = [
            ((LARGEST_TUPLES, *sizes), final) for sizes, final in self._tuples(counts, cap, total)
        ]
        return _best_only(options)

    def _tuples(self, counts: Counts, cap: int, cards: int) -> list[tuple[SubVec, Counts]]:
        """Largest tuples first (each at most ``cap``) for ``cards`` cards: the best sizes."""
        size = min(cap, cards)
        while size >= 2:
            found = _placements(self.layout, counts, size, 1, self.protect)
            if found:
                lefts = list(dict.fromkeys([left for _, left in found]))
                options = [
                    ((size, *sizes), final)
                    for left in lefts
                    for sizes, final in self._tuples(left, size, cards - size)
                ]
                return _best_only(options)
            size -= 1
        return [((), counts)]


def _dedupe(options: list[tuple[SubVec, Counts]]) -> list[tuple[SubVec, Counts]]:
    seen: set[Counts] = set()
    out: list[tuple[SubVec, Counts]] = []
    for sub, left in options:
        if left not in seen:
            seen.add(left)
            out.append((sub, left))
    return out


def _best_only(options: list[tuple[SubVec, Counts]]) -> list[tuple[SubVec, Counts]]:
    top = max(sub for sub, _ in options)
    return _dedupe([(sub, left) for sub, left in options if sub == top])


# --- following ----------------------------------------------------------------------------


def general_follow_error(
    hand: Sequence[int],
    lead: Sequence[int],
    play: Sequence[int],
    trump: Trump,
    draw_policy: str = NO_PROTECTIONS,
) -> str | None:
    """``follow_error`` for any number of decks (same codes, same order of checks)."""
    size = len(lead)
    if len(play) != size:
        return WRONG_COUNT
    if not _holds(hand, play):
        return CARDS_NOT_IN_HAND
    fmt = lead_format(lead, trump)
    groups = trump.groups
    hand_suit = [c for c in hand if groups[c] == fmt.group]
    play_suit = [c for c in play if groups[c] == fmt.group]
    if len(play_suit) < min(len(hand_suit), size):
        return MUST_FOLLOW_SUIT
    if len(hand_suit) <= size or draw_policy == SUIT_ONLY:
        return None
    return structure_error(hand_suit, play_suit, fmt, trump, draw_policy)


def _holds(hand: Sequence[int], cards: Sequence[int]) -> bool:
    held = bytes(hand)
    wanted = bytes(cards)
    return all(wanted.count(c) <= held.count(c) for c in set(wanted))


def structure_error(
    hand_suit: Sequence[int],
    play_suit: Sequence[int],
    fmt: Format,
    trump: Trump,
    draw_policy: str = NO_PROTECTIONS,
) -> str | None:
    """RULES-SPEC.md §9.2 Following, on the led-group cards (the play holds as many as the lead)."""
    units = [u for u in fmt.units if u[0] >= 2]
    if not units:
        return None
    layout = _Layout(hand_suit, trump)
    hand_counts = layout.counts(hand_suit)
    play_counts = layout.counts(play_suit)
    protected = draw_policy in PROTECTING
    protect = hand_counts if protected else None
    owed, _ = _Search(layout, units, protect, None, trump, draw_policy).best(hand_counts)
    given, _ = _Search(layout, units, None, None, trump, draw_policy).best(play_counts)
    if given < owed:
        return _missed_code(units, owed, given)
    if protected and _longer_tuple_filled_short_slot(units, given, hand_counts, play_counts):
        return MUST_FOLLOW_PAIR
    return None


def _missed_code(units: Sequence[Unit], owed: Vec, given: Vec) -> str:
    """``must_follow_tractor`` when the first unit given less was owed a tractor, else
    ``must_follow_pair`` (a tuple of any size)."""
    for (_, n), want, got in zip(units, owed, given, strict=True):
        if want == got:
            continue
        owed_tractor = want[0] == SMALLER_TRACTOR or (want == EXACT and n >= 2)
        if owed_tractor and got[:2] != want[:2]:
            return MUST_FOLLOW_TRACTOR
        return MUST_FOLLOW_PAIR
    return MUST_FOLLOW_PAIR


def _longer_tuple_filled_short_slot(
    units: Sequence[Unit], given: Vec, hand: Counts, play: Counts
) -> bool:
    """``longer_tuples_protected``: a tuple slot of size N filled by a longer tuple while the
    unplayed cards still hold enough tuples of exactly N (RULES-SPEC.md §9.2; the best public
    implementation counts the slots not covered by cards played exactly N times)."""
    slots: dict[int, int] = {}
    for (k, n), sub in zip(units, given, strict=True):
        if sub == EXACT:
            if n == 1:
                slots[k] = slots.get(k, 0) + 1
            continue
        sizes = sub[2:] if sub[0] == SMALLER_TRACTOR else sub[1:]
        for size in sizes:
            slots[size] = slots.get(size, 0) + 1
    for size, wanted in slots.items():
        covered = sum(1 for p in play if p == size)
        missing = wanted - covered
        if missing > 0:
            unplayed = sum(1 for h, p in zip(hand, play, strict=True) if h - p == size)
            if unplayed >= missing:
                return True
    return False


def general_legal_follow(
    hand: Sequence[int],
    lead: Sequence[int],
    trump: Trump,
    rng: Random | None = None,
    draw_policy: str = NO_PROTECTIONS,
) -> list[Card]:
    """``legal_follow`` for any number of decks: the owed structure's cards, then the lowest
    (or random) others; checked against ``general_follow_error``."""
    fmt = lead_format(lead, trump)
    size = len(lead)
    groups = trump.groups
    suit = [c for c in hand if groups[c] == fmt.group]
    others = [c for c in hand if groups[c] != fmt.group]
    if len(suit) <= size:
        return [card(c) for c in suit + _pick(others, size - len(suit), trump, rng)]
    units = [u for u in fmt.units if u[0] >= 2]
    chosen: list[int] = []
    if units:
        layout = _Layout(suit, trump)
        counts = layout.counts(suit)
        protect = counts if draw_policy in PROTECTING else None
        _, final = _Search(layout, units, protect, rng, trump, draw_policy).best(counts)
        for i, (have, left) in enumerate(zip(counts, final, strict=True)):
            chosen += [layout.ids[i]] * (have - left)
    rest = list(suit)
    for c in chosen:
        rest.remove(c)
    play = chosen + _pick(_fillers(rest, chosen), size - len(chosen), trump, rng)
    if general_follow_error(hand, lead, play, trump, draw_policy) is not None:
        play = _search_fill(hand, lead, trump, chosen, rest, draw_policy) or play
    return [card(c) for c in play]


def _fillers(rest: list[int], chosen: list[int]) -> list[int]:
    """Spare cards, those not already in the chosen tuples first (a filler copy would lengthen
    a chosen tuple, which matters under ``longer_tuples_protected``)."""
    taken = set(chosen)
    return [c for c in rest if c not in taken] + [c for c in rest if c in taken]


def _search_fill(
    hand: Sequence[int],
    lead: Sequence[int],
    trump: Trump,
    chosen: list[int],
    rest: list[int],
    draw_policy: str,
) -> list[int] | None:
    """A legal fill found by trying the spare cards in other orders (rarely needed)."""
    size = len(lead) - len(chosen)
    ordered = sorted(rest, key=lambda c: (trump.strengths[c], c))
    for shift in range(len(ordered)):
        pool = ordered[shift:] + ordered[:shift]
        play = chosen + pool[:size]
        if general_follow_error(hand, lead, play, trump, draw_policy) is None:
            return play
    return None


def _pick(cards: list[int], count: int, trump: Trump, rng: Random | None) -> list[int]:
    if rng is not None:
        return rng.sample(cards, count)
    if count <= 0:
        return []
    return sorted(cards, key=lambda c: (trump.strengths[c], c))[:count]


# --- winning --------------------------------------------------------------------------------


def general_play_score(play: Sequence[int], fmt: Format, trump: Trump) -> int | None:
    """The play's score against a lead of format ``fmt``, or None when it cannot win: all of
    the led group or all trump, splittable into the lead's units, scored by the top of the unit
    answering the lead's first unit (RULES-SPEC.md §9.2 Winning); +16 for a ruff."""
    size = fmt.size
    if len(play) != size:
        raise IllegalPlayError(WRONG_COUNT, f"{len(play)} cards against a lead of {size}")
    grouped = bytes(play).translate(trump.group_table)
    if grouped.count(fmt.group) == size:
        bonus = 0
    elif grouped.count(TRUMP) == size:
        bonus = TRUMP_BONUS
    else:
        return None
    key = play_key(play, fmt, trump)
    return None if key is None else key + bonus


def play_key(play: Sequence[int], fmt: Format, trump: Trump) -> int | None:
    """The highest top of the unit answering the lead's first unit over every split of the
    play (of one group) into the lead's units, or None when no split exists."""
    units = [u for u in fmt.units if u[0] >= 2]
    if not units:
        return max(trump.orders[c] for c in play)
    layout = _Layout(play, trump)
    counts = layout.counts(play)
    memo: dict[tuple[int, Counts], bool] = {}

    def fits(start: int, left: Counts) -> bool:
        if start == len(units):
            return True
        key = (start, left)
        found = memo.get(key)
        if found is None:
            k, n = units[start]
            found = any(fits(start + 1, rest) for _, rest in _placements(layout, left, k, n, None))
            memo[key] = found
        return found

    k, n = units[0]
    for top, left in _placements(layout, counts, k, n, None):
        if fits(1, left):
            return top
    return None


def play_readings(play: Sequence[int], fmt: Format, trump: Trump) -> list[tuple[int, ...]]:
    """Every way to read ``play`` (of one group) as the lead's units: the top of each unit in
    format order, as a strength (a trump ruffing a plain lead counts ``TRUMP_BONUS`` higher).
    Units of one kind take their parts highest first, so readings differ in substance only
    (RULES-SPEC.md §10.15)."""
    groups = trump.groups
    bonus = TRUMP_BONUS if groups[play[0]] == TRUMP and fmt.group != TRUMP else 0
    layout = _Layout(play, trump)
    units = fmt.units
    found: set[tuple[int, ...]] = set()

    def read(start: int, left: Counts, tops: tuple[int, ...]) -> None:
        if start == len(units):
            found.add(tops)
            return
        k, n = units[start]
        same = start > 0 and units[start - 1] == units[start]
        for top, rest in _placements(layout, left, k, n, None):
            if same and top + bonus > tops[-1]:
                continue
            read(start + 1, rest, (*tops, top + bonus))

    read(0, layout.counts(play), ())
    return sorted(found, reverse=True)


def general_trick_winner(plays: Sequence[Sequence[int]], trump: Trump) -> int:
    """Index of the winning play (the first of equal best scores)."""
    fmt = lead_format(plays[0], trump)
    best, winner = fmt.key, 0
    for index in range(1, len(plays)):
        score = general_play_score(plays[index], fmt, trump)
        if score is not None and score > best:
            best, winner = score, index
    return winner


# --- throws ---------------------------------------------------------------------------------


class _Part(NamedTuple):
    k: int
    n: int
    top: int
    cards: tuple[Card, ...]


def general_throw_failure(
    fmt: Format, other_hands: Sequence[Sequence[int]], trump: Trump, by_kind: bool
) -> list[Card] | None:
    """The part a failed throw is forced to, or None when it stands (RULES-SPEC.md §9.2 Throws).

    Checked unit by unit: the throw's lowest tuple of each size against a higher tuple of at
    least that size, and each tractor against a tractor of as many tuples of at least its size
    with a higher top, in any other hand's cards of the throw's suit group.
    """
    lowest: dict[int, _Part] = {}
    tractors: list[_Part] = []
    for (k, n), top, part in zip(fmt.units, fmt.tops, fmt.parts, strict=True):
        unit = _Part(k, n, top, part)
        if n >= 2:
            tractors.append(unit)
        else:
            lowest[k] = unit  # format order is high to low within a size: the last is lowest
    failing: list[_Part] = []
    open_sizes = dict(lowest)
    open_tractors = list(tractors)
    groups, orders = trump.groups, trump.orders
    for hand in other_hands:
        suit = [c for c in hand if groups[c] == fmt.group]
        if not suit:
            continue
        held: dict[int, int] = {}
        for c in suit:
            held[c] = held.get(c, 0) + 1
        for k, unit in list(open_sizes.items()):
            if any(n >= k and orders[c] > unit.top for c, n in held.items()):
                failing.append(unit)
                del open_sizes[k]
        for unit in list(open_tractors):
            if _beats_tractor(held, unit, orders):
                failing.append(unit)
                open_tractors.remove(unit)
    if not failing:
        return None
    if by_kind:
        chosen = min(failing, key=lambda p: (p.n > 1, p.k, p.n, p.top))
    else:
        chosen = min(failing, key=lambda p: (orders[p.cards[-1]], len(p.cards)))
    return list(chosen.cards)


def beats_unit(unit_cards: Sequence[int], hand: Sequence[int], trump: Trump) -> bool:
    """Whether ``hand`` holds, in the unit's suit group, a unit beating ``unit_cards`` (one
    single, tuple or tractor) as the throw check reads it: a higher card, a higher tuple of at
    least its size, a tractor of at least its tuple size and length with a higher top."""
    fmt = lead_format(unit_cards, trump)
    (k, n), top = fmt.units[0], fmt.tops[0]
    groups, orders = trump.groups, trump.orders
    held: dict[int, int] = {}
    for c in hand:
        if groups[c] == fmt.group:
            held[c] = held.get(c, 0) + 1
    if n >= 2:
        return _beats_tractor(held, _Part(k, n, top, fmt.parts[0]), orders)
    return any(count >= k and orders[c] > top for c, count in held.items())


def _beats_tractor(held: dict[int, int], unit: _Part, orders: Sequence[int]) -> bool:
    present = [False] * ORDER_SLOTS
    for c, n in held.items():
        if n >= unit.k:
            present[orders[c]] = True
    run = 0
    for order in range(ORDER_SLOTS):
        run = run + 1 if present[order] else 0
        if run >= unit.n and order > unit.top:
            return True
    return False


# --- lead choices ---------------------------------------------------------------------------


def tuple_lead_choices(hand: Sequence[int], trump: Trump) -> list[tuple[int, ...]]:
    """Every distinct single, tuple (each size up to the copies held) and tractor of tuples
    (each tuple size, each length, each choice among equal-order cards) the hand can lead."""
    held: dict[int, int] = {}
    for c in hand:
        held[c] = held.get(c, 0) + 1
    ordered = sorted(held)
    out: list[tuple[int, ...]] = [(c,) for c in ordered]
    for size in range(2, max(held.values(), default=0) + 1):
        out += [(c,) * size for c in ordered if held[c] >= size]
    groups, orders = trump.groups, trump.orders
    for size in range(2, max(held.values(), default=0) + 1):
        for group in sorted({groups[c] for c in ordered}):
            out += _tractor_choices(
                [c for c in ordered if groups[c] == group and held[c] >= size], size, orders
            )
    return out


def _tractor_choices(cards: list[int], size: int, orders: Sequence[int]) -> list[tuple[int, ...]]:
    at: list[list[int]] = [[] for _ in range(ORDER_SLOTS)]
    for c in cards:
        at[orders[c]].append(c)
    found: list[tuple[int, ...]] = []
    for low in range(ORDER_SLOTS):
        for high in range(low + 1, ORDER_SLOTS):
            span = at[low : high + 1]
            if not all(span):
                break
            for chosen in product(*span):
                found.append(tuple(c for c in chosen for _ in range(size)))
    return found


def iter_units(fmt: Format) -> Iterator[tuple[Unit, int, tuple[Card, ...]]]:
    """``(unit, top, cards)`` for each unit of a format, in format order."""
    return iter(zip(fmt.units, fmt.tops, fmt.parts, strict=True))
