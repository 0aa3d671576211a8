"""Following a lead (RULES-SPEC.md §4 Following, 强制出牌): the check and a legal-play generator.

The follower's duty is measured on the cards of the led suit group as a *structure*:
``(matched, pairs)`` where ``matched`` flags which lead tractors (longest first) are answered by a
tractor, and ``pairs`` counts the further pairs, up to what the lead still demands. The hand's
structure is the best any choice of its cards can reach (lexicographically: the longest lead
tractor first, then the next, then pairs). A play is legal when its own led-group cards reach
the same structure: it then gave everything the hand could give. See docs/RULES-DECISIONS.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from shengji.engine.cards import Card, card
from shengji.engine.errors import (
    CARDS_NOT_IN_HAND,
    MUST_FOLLOW_PAIR,
    MUST_FOLLOW_SUIT,
    MUST_FOLLOW_TRACTOR,
    WRONG_COUNT,
    IllegalPlayError,
)
from shengji.engine.lead import holds, lead_info
from shengji.engine.patterns import best_cover, pair_profile, pairs_by_order
from shengji.engine.shapes import LeadInfo
from shengji.engine.trump import Trump
from shengji.engine.tuples import (
    NO_PROTECTIONS,
    SUIT_ONLY,
    general_legal_follow,
    has_wide,
    lead_format,
    structure_error,
)

Structure = tuple[tuple[bool, ...], int]


def follow_error(
    hand: Sequence[int],
    lead: Sequence[int],
    play: Sequence[int],
    trump: Trump,
    draw_policy: str = NO_PROTECTIONS,
) -> str | None:
    """None when ``play`` is a legal follow of ``lead`` from ``hand``, else the reason code.

    ``hand`` is the follower's cards before playing. Codes, in the order checked:
    ``wrong_count``, ``cards_not_in_hand``, ``must_follow_suit``, ``must_follow_tractor``,
    ``must_follow_pair`` (also for a missed triple or quad). An invalid lead raises
    ``IllegalPlayError``. ``draw_policy`` (RULES-SPEC.md §9.2) matters only when some card is
    held three or more times; those cases go to shengji.engine.tuples.
    """
    size = len(lead)
    if len(play) != size:
        return WRONG_COUNT
    if size == 1:
        return _single_follow_error(hand, lead[0], play[0], trump)
    hand_bytes = bytes(hand)
    if not holds(hand_bytes, play):
        return CARDS_NOT_IN_HAND
    info = lead_info(lead, trump)
    drop = trump.keep_group[info.group]
    hand_suit = hand_bytes.translate(None, drop)
    play_suit = bytes(play).translate(None, drop)
    # RULES-SPEC.md §4 Following, obligation 1: as many led-group cards as held, up to the lead's
    # size.
    if len(play_suit) < min(len(hand_suit), size):
        return MUST_FOLLOW_SUIT
    # Holding no more than the lead's size, the play holds all of them: nothing else to owe;
    # under ``suit_only`` (RULES-SPEC.md §10.14) nothing else is owed at all.
    if len(hand_suit) <= size or draw_policy == SUIT_ONLY:
        return None
    if info.units is None and not info.pair_units:
        return None  # only singles led: nothing more is owed, whatever the hand holds
    if info.units is not None or has_wide(hand_suit):
        fmt = lead_format(lead, trump)
        return structure_error(hand_suit, play_suit, fmt, trump, draw_policy)
    return _structure_error(hand_suit, play_suit, info, trump)


def _single_follow_error(hand: Sequence[int], led: int, played: int, trump: Trump) -> str | None:
    if played not in hand:
        return CARDS_NOT_IN_HAND
    groups = trump.groups
    group = groups[led]
    if groups[played] == group:
        return None
    if group in bytes(hand).translate(trump.group_table):
        return MUST_FOLLOW_SUIT
    return None


def _structure_error(
    hand_suit: bytes, play_suit: bytes, info: LeadInfo, trump: Trump
) -> str | None:
    """RULES-SPEC.md §4 Following, obligations 2 and 3, on the led-group cards of hand and play."""
    if not info.tractors:
        wanted = info.pair_units
        owed = min(len(hand_suit) - len(set(hand_suit)), wanted)
        given = min(len(play_suit) - len(set(play_suit)), wanted)
        return None if given >= owed else MUST_FOLLOW_PAIR
    owed_matched, owed_pairs = structure(hand_suit, info, trump)
    given_matched, given_pairs = structure(play_suit, info, trump)
    if given_matched != owed_matched:
        return MUST_FOLLOW_TRACTOR
    if given_pairs != owed_pairs:
        return MUST_FOLLOW_PAIR
    return None


def structure(suit_cards: Sequence[int] | bytes, info: LeadInfo, trump: Trump) -> Structure:
    """The best (matched tractors, further pairs) these led-group cards reach against the lead."""
    avail = pair_profile(suit_cards, trump)
    matched, _ = best_cover(avail, info.tractors)
    return matched, _pair_credit(sum(avail), matched, info)


def _pair_credit(pairs_held: int, matched: Sequence[bool], info: LeadInfo) -> int:
    """RULES-SPEC.md §4 obligation 3: pairs beyond the matched tractors, up to the pairs still owed
    (the lead's pairs plus every pair inside an unmatched lead tractor)."""
    used = sum(length for length, hit in zip(info.tractors, matched, strict=True) if hit)
    owed = info.pair_units - used
    return min(pairs_held - used, owed)


def check_follow(
    hand: Sequence[int],
    lead: Sequence[int],
    play: Sequence[int],
    trump: Trump,
    draw_policy: str = NO_PROTECTIONS,
) -> None:
    """Raise ``IllegalPlayError`` carrying the reason code unless the follow is legal."""
    code = follow_error(hand, lead, play, trump, draw_policy)
    if code is not None:
        raise IllegalPlayError(code, " ".join(card(c).text for c in play))


def legal_follow(
    hand: Sequence[int],
    lead: Sequence[int],
    trump: Trump,
    rng: Random | None = None,
    draw_policy: str = NO_PROTECTIONS,
) -> list[Card]:
    """A legal follow of ``lead`` from ``hand`` (one always exists).

    Without ``rng`` the choice is deterministic and spends low cards; with ``rng`` it is a
    random legal play among those this construction can build (for bots and property tests).
    Precondition: ``hand`` holds at least as many cards as the lead.
    """
    info = lead_info(lead, trump)
    size = len(lead)
    groups = trump.groups
    suit = [c for c in hand if groups[c] == info.group]
    others = [c for c in hand if groups[c] != info.group]
    if len(suit) <= size:
        return [card(c) for c in suit + _pick(others, size - len(suit), trump, rng)]
    if info.units is not None or has_wide(suit):
        return general_legal_follow(hand, lead, trump, rng, draw_policy)
    chosen = _owed_cards(suit, info, trump, rng)
    rest = list(suit)
    for c in chosen:
        rest.remove(c)
    return [card(c) for c in chosen + _pick(rest, size - len(chosen), trump, rng)]


def _owed_cards(suit: list[int], info: LeadInfo, trump: Trump, rng: Random | None) -> list[int]:
    """The tractors and pairs the hand owes (obligations 2 and 3), as card ids."""
    by_order, _ = pairs_by_order(suit, trump)
    avail = [len(ids) for ids in by_order]
    matched, tops = best_cover(avail, info.tractors, rng)
    chosen: list[int] = []
    for length, top in zip(info.tractors, tops, strict=True):
        if top < 0:
            continue
        for order in range(top, top - length, -1):
            ids = by_order[order]
            pair = ids.pop(rng.randrange(len(ids)) if rng is not None else 0)
            chosen += (pair, pair)
    spare = [p for ids in by_order for p in ids]
    credit = _pair_credit(len(spare) + len(chosen) // 2, matched, info)
    for pair in _pick(spare, credit, trump, rng):
        chosen += (pair, pair)
    return chosen


def _pick(cards: list[int], count: int, trump: Trump, rng: Random | None) -> list[int]:
    """``count`` of ``cards``: random with ``rng``, else the lowest (trumps last)."""
    if rng is not None:
        return rng.sample(cards, count)
    return sorted(cards, key=lambda c: (trump.strengths[c], c))[:count]
