"""Shared test helpers: notation shorthands, seeded random deals, and slow reference checks.

The reference functions restate the rules as directly as possible (brute force over the actual
cards, no pair profiles, no early exits) so the engine's fast paths can be compared with them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import combinations

from shengji.engine import (
    CARDS_NOT_IN_HAND,
    MUST_FOLLOW_PAIR,
    MUST_FOLLOW_SUIT,
    MUST_FOLLOW_TRACTOR,
    RANKS,
    SUITS,
    TRUMP,
    WRONG_COUNT,
    Card,
    Split,
    Trump,
    full_deck,
    is_tractor,
    parse_cards,
    shape_of,
    shape_splits,
)

cards = parse_cards


def trumps_for(level: str, suit: str | None) -> Trump:
    return Trump(level, suit)


def random_trump(rng: random.Random) -> Trump:
    suit = rng.choice([*SUITS, None])
    return Trump(rng.choice(RANKS), suit)


def deal(seed: int) -> list[list[Card]]:
    """Four 25-card hands from a seeded shuffle (the kitty left out)."""
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    return [deck[i * 25 : (i + 1) * 25] for i in range(4)]


def group_cards(hand: Sequence[Card], group: int, trump: Trump) -> list[Card]:
    return [c for c in hand if trump.groups[c] == group]


def random_lead(hand: Sequence[Card], trump: Trump, rng: random.Random) -> list[Card]:
    """A lead of one suit group: a single, a pair, a tractor or a random throw (1-8 cards)."""
    groups = sorted({trump.groups[c] for c in hand})
    suit = group_cards(hand, rng.choice(groups), trump)
    kind = rng.random()
    pairs = sorted({c for c in suit if suit.count(c) == 2})
    if kind < 0.35 or len(suit) == 1:
        return [rng.choice(suit)]
    if kind < 0.6 and pairs:
        pair = rng.choice(pairs)
        return [pair, pair]
    if kind < 0.75:
        tractors = [
            [a, a, b, b] for a, b in combinations(pairs, 2) if is_tractor([a, a, b, b], trump)
        ]
        if tractors:
            return rng.choice(tractors)
    size = rng.randint(2, min(8, len(suit)))
    return rng.sample(suit, size)


def random_play(hand: Sequence[Card], size: int, rng: random.Random) -> list[Card]:
    """Any ``size`` cards of the hand (often illegal)."""
    return rng.sample(list(hand), size)


# --- reference follow check ----------------------------------------------------------------


def _tractors_of_length(suit: Sequence[int], length: int, trump: Trump) -> list[tuple[int, ...]]:
    pairs = sorted({c for c in suit if list(suit).count(c) >= 2})
    found = []
    for chosen in combinations(pairs, length):
        tractor = tuple(c for p in chosen for c in (p, p))
        if is_tractor(tractor, trump):
            found.append(tractor)
    return found


def _without(cards_: Sequence[int], removed: Sequence[int]) -> list[int]:
    left = list(cards_)
    for c in removed:
        left.remove(c)
    return left


def reference_structure(
    suit: Sequence[int], lengths: Sequence[int], pairs: int, trump: Trump
) -> tuple[tuple[bool, ...], int]:
    """Best (matched flags, pair credit) by brute force over the actual tractors."""
    if not lengths:
        held = sum(1 for c in set(suit) if list(suit).count(c) >= 2)
        return (), min(held, pairs)
    options = _tractors_of_length(suit, lengths[0], trump)
    if not options:
        flags, credit = reference_structure(suit, lengths[1:], pairs + lengths[0], trump)
        return (False, *flags), credit
    best: tuple[tuple[bool, ...], int] | None = None
    for tractor in options:
        flags, credit = reference_structure(_without(suit, tractor), lengths[1:], pairs, trump)
        candidate = ((True, *flags), credit)
        if best is None or candidate > best:
            best = candidate
    assert best is not None
    return best


def reference_follow_error(
    hand: Sequence[int], lead: Sequence[int], play: Sequence[int], trump: Trump
) -> str | None:
    if len(play) != len(lead):
        return WRONG_COUNT
    if any(list(play).count(c) > list(hand).count(c) for c in play):
        return CARDS_NOT_IN_HAND
    group = trump.groups[lead[0]]
    hand_suit = [c for c in hand if trump.groups[c] == group]
    play_suit = [c for c in play if trump.groups[c] == group]
    if len(play_suit) < min(len(hand_suit), len(lead)):
        return MUST_FOLLOW_SUIT
    shape = shape_of(lead, trump)
    owed = reference_structure(hand_suit, shape.tractors, shape.pairs, trump)
    given = reference_structure(play_suit, shape.tractors, shape.pairs, trump)
    if given[0] != owed[0]:
        return MUST_FOLLOW_TRACTOR
    if given[1] != owed[1]:
        return MUST_FOLLOW_PAIR
    return None


def general_follow_error(
    hand: Sequence[int], lead: Sequence[int], play: Sequence[int], trump: Trump
) -> str | None:
    """The engine's structure check applied to every lead, with none of its shortcuts."""
    from shengji.engine.follow import structure
    from shengji.engine.lead import holds, lead_info

    if len(play) != len(lead):
        return WRONG_COUNT
    if not holds(hand, play):
        return CARDS_NOT_IN_HAND
    info = lead_info(lead, trump)
    hand_suit = [c for c in hand if trump.groups[c] == info.group]
    play_suit = [c for c in play if trump.groups[c] == info.group]
    if len(play_suit) < min(len(hand_suit), len(lead)):
        return MUST_FOLLOW_SUIT
    owed = structure(hand_suit, info, trump)
    given = structure(play_suit, info, trump)
    if given[0] != owed[0]:
        return MUST_FOLLOW_TRACTOR
    return MUST_FOLLOW_PAIR if given[1] != owed[1] else None


# --- reference trick winner ----------------------------------------------------------------


def reference_score(play: Sequence[int], lead: Sequence[int], trump: Trump) -> int | None:
    """The play's best key over every split into the lead's shape (+100 for a ruff)."""
    lead_group = trump.groups[lead[0]]
    play_groups = {trump.groups[c] for c in play}
    if play_groups == {lead_group}:
        bonus = 0
    elif play_groups == {TRUMP}:
        bonus = 100
    else:
        return None
    shape = shape_of(lead, trump)
    keys = []
    for split in shape_splits(play, shape, trump):
        if split.tractors:
            longest = max(len(t) for t in split.tractors)
            keys.append(max(trump.orders[t[0]] for t in split.tractors if len(t) == longest))
        elif split.pairs:
            keys.append(max(trump.orders[p[0]] for p in split.pairs))
        else:
            keys.append(max(trump.orders[c] for c in split.singles))
    return max(keys) + bonus if keys else None


def reference_trick_winner(plays: Sequence[Sequence[int]], trump: Trump) -> int:
    winner, best = 0, reference_score(plays[0], plays[0], trump)
    assert best is not None
    for index, play in enumerate(plays[1:], start=1):
        score = reference_score(play, plays[0], trump)
        if score is not None and score > best:
            winner, best = index, score
    return winner


def sub_multisets(hand: Sequence[int], size: int) -> Iterator[tuple[int, ...]]:
    """Every distinct ``size``-card selection from the hand."""
    yield from sorted(set(combinations(sorted(hand), size)))


# --- structure-rich random tricks ----------------------------------------------------------


def _units(pool: list[Card], rng: random.Random) -> list[list[Card]]:
    """The pool cut into pairs (where both copies are there) and singles, shuffled."""
    units: list[list[Card]] = []
    for c in sorted(set(pool)):
        if pool.count(c) == 2 and rng.random() < 0.8:
            units.append([c, c])
        else:
            units.extend([c] for _ in range(pool.count(c)))
    rng.shuffle(units)
    return units


def _tractor_lead(pool: list[Card], trump: Trump, rng: random.Random) -> list[Card]:
    """One or two tractors (2-3 pairs long) from the pool, where it holds them."""
    by_order: dict[int, list[Card]] = {}
    for c in sorted(set(pool)):
        if pool.count(c) == 2:
            by_order.setdefault(trump.orders[c], []).append(c)
    lead: list[Card] = []
    for _ in range(rng.randint(1, 2)):
        length = rng.randint(2, 3)
        top = rng.randint(length - 1, 15)
        span = range(top - length + 1, top + 1)
        if all(by_order.get(o) for o in span):
            for o in span:
                pair = by_order[o].pop(rng.randrange(len(by_order[o])))
                lead += [pair, pair]
    return lead


def rich_trick(seed: int) -> tuple[Trump, list[Card], list[list[Card]]]:
    """A lead full of pairs and tractors and follower hands rich in its suit group.

    Random deals rarely hold tractors; this builds tricks where the structure rules bite.
    """
    rng = random.Random(seed)
    trump = random_trump(rng)
    deck = full_deck()
    group = rng.choice(sorted({trump.groups[c] for c in deck}))
    pool = [c for c in deck if trump.groups[c] == group]
    rest = [c for c in deck if trump.groups[c] != group]
    lead = _tractor_lead(pool, trump, rng) if rng.random() < 0.4 else []
    for c in lead:
        pool.remove(c)
    units = _units(pool, rng)
    target = rng.randint(2, 8)
    for unit in units[:]:
        if len(lead) + len(unit) <= target:
            lead += unit
            units.remove(unit)
    hands = []
    for _ in range(3):
        hand: list[Card] = []
        wanted = rng.randint(0, 14)
        while units and len(hand) < wanted:
            hand += units.pop()
        hand += rng.sample(rest, max(0, 20 - len(hand)))
        for c in hand:
            if c in rest:
                rest.remove(c)
        hands.append(hand)
    return trump, lead, hands


def suit_first_play(
    hand: Sequence[Card], lead: Sequence[Card], trump: Trump, rng: random.Random
) -> list[Card]:
    """Random cards that at least follow suit (obligation 1), so later checks are reached."""
    group = trump.groups[lead[0]]
    suit = [c for c in hand if trump.groups[c] == group]
    others = [c for c in hand if trump.groups[c] != group]
    taken = rng.sample(suit, min(len(suit), len(lead)))
    return taken + rng.sample(others, len(lead) - len(taken))


def random_throw_setup(seed: int) -> tuple[Trump, list[Card], list[list[Card]]]:
    """A throw-check case from a seed: a rich trick, or a random lead from a deal."""
    rng = random.Random(seed)
    if rng.random() < 0.5:
        trump, lead, hands = rich_trick(seed)
        return trump, list(lead), [list(h) for h in hands]
    trump = random_trump(rng)
    dealt = deal(seed)
    return trump, random_lead(dealt[0], trump, rng), [list(h) for h in dealt[1:]]


# --- reference throw check -----------------------------------------------------------------


def reference_throw_check(
    lead: Sequence[int],
    others: Sequence[Sequence[int]],
    trump: Trump,
    forced_part: str = "by_kind",
) -> list[int] | None:
    """RULES-SPEC.md §4 Throw check, restated over actual cards (``forced_part`` as in §4)."""
    from shengji.engine import split_cards

    split = split_cards(lead, trump)
    if split.shape.parts == 1:
        return None
    group = trump.groups[lead[0]]
    orders = trump.orders
    single_fails = pair_fails = False
    failing_tractors: list[tuple[Card, ...]] = []
    for hand in others:
        suit = [c for c in hand if trump.groups[c] == group]
        pairs = [c for c in set(suit) if suit.count(c) == 2]
        if split.singles and any(orders[c] > min(orders[s] for s in split.singles) for c in suit):
            single_fails = True
        if split.pairs and any(orders[p] > min(orders[q[0]] for q in split.pairs) for p in pairs):
            pair_fails = True
        for tractor in split.tractors:
            length = len(tractor) // 2
            top = orders[tractor[0]]
            beaters = _tractors_of_length(suit, length, trump)
            if any(max(orders[c] for c in t) > top for t in beaters):
                failing_tractors.append(tractor)
    if forced_part == "lowest":
        return _reference_lowest(split, single_fails, pair_fails, failing_tractors, trump)
    if single_fails:
        return [min(split.singles, key=lambda c: (orders[c], -c))]
    if pair_fails:
        return list(min((orders[p[0]], -p[0], p) for p in split.pairs)[2])
    if failing_tractors:
        return list(min((len(t), orders[t[0]], t) for t in failing_tractors)[2])
    return None


def _reference_lowest(
    split: Split,
    single_fails: bool,
    pair_fails: bool,
    failing_tractors: list[tuple[Card, ...]],
    trump: Trump,
) -> list[int] | None:
    """``forced_part = lowest``: the failing part with the lowest card, then the shortest."""
    orders = trump.orders
    parts: list[list[int]] = [list(t) for t in failing_tractors]
    if single_fails:
        parts.append([min(split.singles, key=lambda c: (orders[c], -c))])
    if pair_fails:
        parts.append(list(min((orders[p[0]], -p[0], p) for p in split.pairs)[2]))
    if not parts:
        return None
    return min(parts, key=lambda part: (min(orders[c] for c in part), len(part)))
