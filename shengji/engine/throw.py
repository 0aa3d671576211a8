"""The throw check (甩牌, RULES-SPEC.md §4 Throw check) and its outcome under the rule options.

A throw stands only if no other seat holds, in the throw's suit group, a single beating its
lowest single, a pair beating its lowest pair, or a tractor of a part's length beating that
part. If it fails, the leader plays one failing part, chosen by option ``forced_part``:

- ``by_kind`` (seed 000 §1.9.1): the smallest single if any single fails, else the smallest
  pair if any pair fails, else the smallest failing tractor;
- ``lowest`` (seed 003, 98844): the failing part holding the lowest card, whatever its kind;
  between equal lowest cards the shorter part (docs/RULES-DECISIONS.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shengji.engine.cards import Card
from shengji.engine.errors import InvalidOptionError
from shengji.engine.lead import lead_info
from shengji.engine.patterns import pair_ids, run_tops
from shengji.engine.rainbow import is_rainbow, rainbow_throw_failure
from shengji.engine.rules import FAILED_THROW, FORCED_PART, THROW_PENALTY_PER
from shengji.engine.shapes import LeadInfo
from shengji.engine.trump import ORDER_SLOTS, Trump
from shengji.engine.tuples import beats_unit, general_throw_failure, lead_format

FAILED_THROW_OPTIONS = FAILED_THROW
FORCED_PART_OPTIONS = FORCED_PART
BY_KIND = "by_kind"
LOWEST = "lowest"
STANDS = "stands"
FORCED = "forced"
REJECTED = "rejected"

Part = tuple[Card, ...]


def throw_check(
    lead: Sequence[int],
    other_hands: Sequence[Sequence[int]],
    trump: Trump,
    forced_part: str = BY_KIND,
) -> list[Card] | None:
    """None when the lead stands, else the cards the leader must play instead.

    A single, a pair or one tractor always stands. ``other_hands`` are the other seats' cards
    (their order does not matter). ``forced_part`` picks the part of a failed throw (RULES-SPEC.md
    §4; an unknown value raises ``InvalidOptionError``). An invalid lead raises
    ``IllegalPlayError``.
    """
    if forced_part not in FORCED_PART_OPTIONS:
        raise InvalidOptionError(
            f"forced_part {forced_part!r} is not one of {', '.join(FORCED_PART_OPTIONS)}"
        )
    if len(lead) == 1 or (len(lead) == 2 and lead[0] == lead[1]):
        return None  # a single or a pair: never a throw
    info = lead_info(lead, trump)
    if not info.shape.is_throw:
        return None
    if info.units is not None:
        # RULES-SPEC.md §9.2 Throws: triples, quads and tractors of them, unit by unit.
        fmt = lead_format(lead, trump)
        return general_throw_failure(fmt, other_hands, trump, forced_part == BY_KIND)
    return _failing_part(info, other_hands, trump, forced_part == BY_KIND)


def _failing_part(
    info: LeadInfo, other_hands: Sequence[Sequence[int]], trump: Trump, by_kind: bool
) -> list[Card] | None:
    """The part to play instead, or None: RULES-SPEC.md §4, failing parts found hand by hand."""
    split = info.split
    orders = trump.orders
    # Split parts are listed high to low, so the last single / pair is the lowest.
    lowest_single = orders[split.singles[-1]] if split.singles else ORDER_SLOTS
    lowest_pair = orders[split.pairs[-1][0]] if split.pairs else ORDER_SLOTS
    tractor_tops = [orders[t[0]] for t in split.tractors]
    single_fails = pair_fails = False
    tractor_fails = [False] * len(tractor_tops)
    drop = trump.keep_group[info.group]
    for hand in other_hands:
        suit = bytes(hand).translate(None, drop)
        if not suit:
            continue
        if not single_fails and max(suit.translate(trump.order_table)) > lowest_single:
            if by_kind:
                return list(split.singles[-1:])  # a failing single comes first
            single_fails = True
        pairs = pair_ids(suit)
        if not pairs:
            continue
        if max(orders[p] for p in pairs) > lowest_pair:
            pair_fails = True
        if tractor_tops:
            _mark_beaten_tractors(pairs, info.tractors, tractor_tops, tractor_fails, trump)
    failing = _failing_parts(info, single_fails, pair_fails, tractor_fails)
    if not failing:
        return None
    key = _by_kind_key if by_kind else _lowest_key
    chosen: Part = min(failing, key=lambda part: key(part, trump.orders))
    return list(chosen)


def _failing_parts(
    info: LeadInfo, single_fails: bool, pair_fails: bool, tractor_fails: Sequence[bool]
) -> list[Part]:
    """The failing parts: the lowest single and lowest pair (when beaten), beaten tractors."""
    split = info.split
    failing: list[Part] = [split.singles[-1:]] if single_fails else []
    if pair_fails:
        failing.append(split.pairs[-1])
    failing += [t for t, fails in zip(split.tractors, tractor_fails, strict=True) if fails]
    return failing


def _by_kind_key(part: Part, orders: Sequence[int]) -> tuple[int, int]:
    """``by_kind``: singles, then pairs, then tractors (seed 000 §1.9.1). Tractors of different
    lengths do not compare; "smallest" is read as the shortest, then the lowest top
    (docs/RULES-DECISIONS.md)."""
    return len(part), orders[part[0]]


def _lowest_key(part: Part, orders: Sequence[int]) -> tuple[int, int]:
    """``lowest`` (seed 003): the part's lowest card (its last: parts run high to low), then
    the shorter part (docs/RULES-DECISIONS.md)."""
    return orders[part[-1]], len(part)


def _mark_beaten_tractors(
    pairs: list[int],
    lengths: Sequence[int],
    tops: Sequence[int],
    fails: list[bool],
    trump: Trump,
) -> None:
    """Set ``fails[i]`` when the pairs hold a tractor of ``lengths[i]`` above ``tops[i]``."""
    avail = [0] * ORDER_SLOTS
    for pair in pairs:
        avail[trump.orders[pair]] += 1
    for i, (length, top) in enumerate(zip(lengths, tops, strict=True)):
        if not fails[i]:
            beaters = run_tops(avail, length)
            fails[i] = bool(beaters) and beaters[0] > top


def first_blocker(
    lead: Sequence[int],
    hands_in_order: Sequence[Sequence[int]],
    trump: Trump,
    forced_part: str = BY_KIND,
) -> int | None:
    """The index in ``hands_in_order`` (the other seats from the thrower's 下家 on) of the first
    hand holding a unit that beats the part a failed throw is forced to (RULES-SPEC.md §10.10);
    None when the throw stands."""
    part = throw_check(lead, hands_in_order, trump, forced_part)
    if part is None:
        return None
    for index, hand in enumerate(hands_in_order):
        if beats_unit(part, hand, trump):
            return index
    return None


@dataclass(frozen=True, slots=True)
class ThrowOutcome:
    """What happens to a lead under the throw options.

    ``result`` is ``"stands"``, ``"forced"`` (``played`` is the forced part) or ``"rejected"``
    (nothing is played; the leader leads again). ``taken_back`` are the lead's cards not played,
    and ``penalty`` is ``throw_penalty`` points per card taken back, or per failed throw under
    ``penalty_per = "attempt"`` (RULES-SPEC.md §10.3).
    """

    result: str
    played: tuple[Card, ...]
    taken_back: tuple[Card, ...]
    penalty: int


def throw_outcome(
    lead: Sequence[int],
    other_hands: Sequence[Sequence[int]],
    trump: Trump,
    *,
    failed_throw: str = "force_smallest",
    throw_penalty: int = 0,
    forced_part: str = BY_KIND,
    penalty_per: str = "card",
    rainbow_min: int = 0,
) -> ThrowOutcome:
    """The throw check with the options ``failed_throw``, ``throw_penalty``, ``forced_part``
    and ``throw_penalty_per`` (``penalty_per``) applied; a rainbow throw (``rainbow_min``,
    RULES-SPEC.md §10.17) is checked as rainbows."""
    if failed_throw not in FAILED_THROW_OPTIONS:
        raise InvalidOptionError(
            f"failed_throw {failed_throw!r} is not one of {FAILED_THROW_OPTIONS}"
        )
    if throw_penalty < 0:
        raise InvalidOptionError(f"throw_penalty {throw_penalty!r} is negative")
    if penalty_per not in THROW_PENALTY_PER:
        raise InvalidOptionError(f"throw_penalty_per {penalty_per!r} is not one of card, attempt")
    led = tuple(Card(c) for c in lead)
    if is_rainbow(lead, trump, rainbow_min):
        forced = rainbow_throw_failure(lead, other_hands, trump, rainbow_min)
    else:
        forced = throw_check(lead, other_hands, trump, forced_part)
    if forced is None:
        return ThrowOutcome(STANDS, led, (), 0)
    per_card = penalty_per == "card"
    if failed_throw == "reject":
        return ThrowOutcome(REJECTED, (), led, throw_penalty * (len(led) if per_card else 1))
    taken_back = list(led)
    for c in forced:
        taken_back.remove(c)
    penalty = throw_penalty * (len(taken_back) if per_card else 1)
    return ThrowOutcome(FORCED, tuple(forced), tuple(taken_back), penalty)
