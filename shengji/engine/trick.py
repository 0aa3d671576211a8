"""Who wins a trick (RULES-SPEC.md §4 Winner).

Each play gets a *score*: None for a play that cannot win (a discard, or cards that do not
split into the lead's shape), else its key order, plus ``TRUMP_BONUS`` when it ruffs a
non-trump lead (毙). A later play wins only with a strictly higher score: equal cards go to
the one played first (先出者为大).
"""

from __future__ import annotations

from collections.abc import Sequence

from shengji.engine.errors import WRONG_COUNT, IllegalPlayError
from shengji.engine.lead import lead_info
from shengji.engine.patterns import shape_key
from shengji.engine.shapes import LeadInfo
from shengji.engine.trump import TRUMP, TRUMP_BONUS, Trump
from shengji.engine.tuples import has_wide, lead_format, play_key


def trick_winner(plays: Sequence[Sequence[int]], trump: Trump) -> int:
    """Index in ``plays`` (listed from the leader) of the play that wins the trick (4–8 plays;
    tuples of any size, RULES-SPEC.md §9.2).

    Precondition: ``plays[0]`` is a valid lead and every play has as many cards as the lead.
    """
    lead = plays[0]
    if len(lead) == 1:
        return _single_trick_winner(plays, trump)
    info = lead_info(lead, trump)
    best_score = info.key
    winner = 0
    for index in range(1, len(plays)):
        score = play_score(plays[index], info, trump)
        if score is not None and score > best_score:
            best_score, winner = score, index
    return winner


def _single_trick_winner(plays: Sequence[Sequence[int]], trump: Trump) -> int:
    groups = trump.groups
    strengths = trump.strengths
    led = plays[0][0]
    group = groups[led]
    best_score = strengths[led]
    winner = 0
    for index in range(1, len(plays)):
        play = plays[index]
        if len(play) != 1:
            raise IllegalPlayError(WRONG_COUNT, f"play {index} has {len(play)} cards")
        played = play[0]
        played_group = groups[played]
        if played_group != group and played_group != TRUMP:
            continue
        score = strengths[played]
        if score > best_score:
            best_score, winner = score, index
    return winner


def play_score(play: Sequence[int], info: LeadInfo, trump: Trump) -> int | None:
    """The play's score against the lead, or None when it cannot win (discard, wrong shape)."""
    size = info.shape.size
    if len(play) != size:
        raise IllegalPlayError(WRONG_COUNT, f"{len(play)} cards against a lead of {size}")
    cards = bytes(play)
    grouped = cards.translate(trump.group_table)
    if grouped.count(info.group) == size:
        bonus = 0
    elif grouped.count(TRUMP) == size:
        bonus = TRUMP_BONUS
    else:
        return None
    if info.units is not None or (size > 2 and info.pair_units and has_wide(cards)):
        # RULES-SPEC.md §9.2 Winning: tuples of three or more cards.
        key = play_key(cards, lead_format(info.split.cards(), trump), trump)
        return None if key is None else key + bonus
    if size == 2 and info.pair_units:
        # A pair lead: only a pair can win (two unpaired trumps are a discard).
        return trump.orders[cards[0]] + bonus if cards[0] == cards[1] else None
    key = shape_key(cards, info.shape, trump)
    return None if key is None else key + bonus


def is_discard(play: Sequence[int], lead: Sequence[int], trump: Trump) -> bool:
    """Whether the play cannot win against the lead whatever else is played (垫牌)."""
    return play_score(play, lead_info(lead, trump), trump) is None
