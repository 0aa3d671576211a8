"""Bombs, 炸弹 (RULES-SPEC.md §10.16): at four decks, four identical cards on a four-card lead.

Under ``bombs = any_suit`` a follower may play a bomb of any suit whatever it holds; under
``follow_suit`` a bomb of the led suit group, or any bomb when void in it. A bomb beats every
play that is not one; of two bombs a trump one beats one of the led suit, which beats one of
another suit, then the higher order wins, and equal ones go to the one played first.
"""

from __future__ import annotations

from collections.abc import Sequence

from shengji.engine.lead import holds
from shengji.engine.trump import TRUMP, Trump

OFF = "off"
ANY_SUIT = "any_suit"
FOLLOW_SUIT = "follow_suit"
BOMBS = (OFF, ANY_SUIT, FOLLOW_SUIT)
BOMB_SIZE = 4


def is_bomb(cards: Sequence[int]) -> bool:
    """Four identical cards."""
    return len(cards) == BOMB_SIZE and len(set(cards)) == 1


def bomb_allowed(
    hand: Sequence[int], lead: Sequence[int], play: Sequence[int], trump: Trump, policy: str
) -> bool:
    """Whether ``play`` from ``hand`` is a bomb ``policy`` lets a follower play on ``lead``,
    whatever the follow rules of RULES-SPEC.md §4 and §9.2 would owe."""
    if policy == OFF or len(lead) != BOMB_SIZE or not is_bomb(play) or not holds(hand, play):
        return False
    if policy == ANY_SUIT:
        return True
    groups = trump.groups
    led = groups[lead[0]]
    return groups[play[0]] == led or all(groups[c] != led for c in hand)


def bomb_winner(plays: Sequence[Sequence[int]], trump: Trump) -> int | None:
    """The index of the winning bomb among ``plays`` (a led quad is one), or None when no play
    is a bomb."""
    led = trump.groups[plays[0][0]]
    winner, best = None, (-1, -1)
    for index, play in enumerate(plays):
        if not is_bomb(play):
            continue
        group = trump.groups[play[0]]
        category = 2 if group == TRUMP else 1 if group == led else 0
        rank = (category, trump.orders[play[0]])
        if rank > best:
            winner, best = index, rank
    return winner
