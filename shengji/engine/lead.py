"""Checking a lead (RULES-SPEC.md §4: a single, a pair, a tractor or a throw, all of one suit
group).

``lead_info`` analyses a lead (a ``LeadInfo``, shapes.py) once per Trump and caches it: the
follow check, the throw check and the trick winner all start from it, and bots ask about the
same lead many times.
"""

from __future__ import annotations

from collections.abc import Sequence

from shengji.engine.cards import Card
from shengji.engine.errors import (
    CARDS_NOT_IN_HAND,
    EMPTY_PLAY,
    LEAD_MIXED_SUITS,
    IllegalPlayError,
)
from shengji.engine.patterns import NO_GROUP, play_group, split_cards
from shengji.engine.shapes import LeadInfo
from shengji.engine.trump import Trump
from shengji.engine.tuples import has_wide, lead_format

LEAD_CACHE_LIMIT = 4096
"""Leads kept per Trump (about 400 bytes each); the cache is emptied when full."""


def lead_info(lead: Sequence[int], trump: Trump) -> LeadInfo:
    """The analysis of a lead (cached per Trump). Raises ``IllegalPlayError`` for a bad lead."""
    cache_key = bytes(lead)
    found = trump.lead_cache.get(cache_key)
    if found is None:
        found = _analyse(lead, trump)
        if len(trump.lead_cache) >= LEAD_CACHE_LIMIT:
            trump.lead_cache.clear()
        trump.lead_cache[cache_key] = found
    return found


def _analyse(lead: Sequence[int], trump: Trump) -> LeadInfo:
    if not lead:
        raise IllegalPlayError(EMPTY_PLAY)
    split = split_cards(lead, trump)
    if has_wide(lead):
        fmt = lead_format(lead, trump)
        return LeadInfo(fmt.group, split, fmt.key, fmt.units)
    # The split lists the longest, highest tractor first, then pairs and singles high to low,
    # so its first card is the lead's key card (RULES-SPEC.md §4 Winner). A longest tractor is a
    # whole run of the lead's pairs, so no other split of the lead has a higher one.
    return LeadInfo(trump.groups[lead[0]], split, trump.orders[split.first_card])


def lead_error(lead: Sequence[int], trump: Trump, hand: Sequence[int] | None = None) -> str | None:
    """None when ``lead`` may be led (from ``hand``, if given), else the reason code.

    This does not run the throw check, which needs the other hands (see ``throw_check``).
    """
    if not lead:
        return EMPTY_PLAY
    if hand is not None and not holds(hand, lead):
        return CARDS_NOT_IN_HAND
    if play_group(lead, trump) == NO_GROUP:
        return LEAD_MIXED_SUITS
    return None


def check_lead(lead: Sequence[int], trump: Trump, hand: Sequence[int] | None = None) -> None:
    """Raise ``IllegalPlayError`` with the reason code unless ``lead_error`` finds nothing."""
    code = lead_error(lead, trump, hand)
    if code is not None:
        raise IllegalPlayError(code, " ".join(str(Card(c)) for c in lead))


def holds(hand: Sequence[int] | bytes, cards: Sequence[int] | bytes) -> bool:
    """Whether ``hand`` contains every card of ``cards``, copies counted."""
    held = bytes(hand)
    wanted = bytes(cards)
    if len(wanted) == 1:
        return wanted[0] in held
    if len(wanted) == 2:
        first, second = wanted
        if first == second:
            return held.count(first) >= 2
        return first in held and second in held
    return all(wanted.count(c) <= held.count(c) for c in set(wanted))
