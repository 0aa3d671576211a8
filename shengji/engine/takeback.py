"""Takebacks: a bid withdrawn (RULES-SPEC.md §10.22) and 悔牌, a play returned to the hand
(RULES-SPEC.md §10.23).

``takeback N`` is an action of the log like any other; it never removes a line of it. What it
takes back is read from the log: every action is *standing* until a takeback withdraws it, and a
takeback withdraws the last standing bid or play. The hand after a takeback is the hand its
standing actions make, replayed from the start (``standing_indices``), so a takeback restores
exactly what stood before the action it withdraws: the bid before stands again (or none), the
first bid still standing is the first bidder's, the cards go back to their seat and the seat is
to play again.

The checks here read plain data; ``HandState`` calls them with its log and its trick.
"""

from __future__ import annotations

from collections.abc import Sequence

from shengji.engine.action_errors import (
    TAKEBACK_AFTER_FAILED_THROW,
    TAKEBACK_NOT_LAST,
)
from shengji.engine.actions import BID, BURY, CLOSE, PLAY, TAKEBACK, Action

WITHDRAWN_KINDS = (BID, PLAY)
"""The kinds a takeback withdraws."""


def has_takebacks(actions: Sequence[Action]) -> bool:
    return any(a.kind == TAKEBACK for a in actions)


def standing_indices(actions: Sequence[Action]) -> list[int]:
    """The indices of the actions still standing, in order: every action but the takebacks and
    the bids and plays they withdrew (each takeback the last standing bid or play before it)."""
    standing: list[int] = []
    for index, action in enumerate(actions):
        if action.kind != TAKEBACK:
            standing.append(index)
            continue
        for at in range(len(standing) - 1, -1, -1):
            if actions[standing[at]].kind in WITHDRAWN_KINDS:
                del standing[at]
                break
    return standing


def withdrawn(actions: Sequence[Action]) -> Action | None:
    """What the log's last action withdrew, when it is a takeback."""
    if not actions or actions[-1].kind != TAKEBACK:
        return None
    before = set(standing_indices(actions[:-1]))
    after = set(standing_indices(actions))
    gone = sorted(before - after)
    return actions[gone[0]] if gone else None


def bid_takeback_error(actions: Sequence[Action], seat: int) -> str | None:
    """RULES-SPEC.md §10.22: ``seat`` may withdraw its bid while it is the last bid standing.
    Under ``kitty_theft`` only a bid of the window open now: a ``close`` or a ``bury`` fixed the
    bids before it (RULES-SPEC.md §10.24)."""
    for index in reversed(standing_indices(actions)):
        kind = actions[index].kind
        if kind in (CLOSE, BURY):
            return TAKEBACK_NOT_LAST
        if kind == BID:
            return None if actions[index].seat == seat else TAKEBACK_NOT_LAST
    return TAKEBACK_NOT_LAST


def play_takeback_error(
    actions: Sequence[Action],
    seat: int,
    trick_open: bool,
    failed_attempts: Sequence[tuple[int, ...]],
) -> str | None:
    """RULES-SPEC.md §10.23: ``seat`` may take its play back while it is the hand's last standing
    action and the trick is still open (a trick closes with its last play). A throw that failed
    (``failed_attempts``: the seat's failed throws in the trick in progress) stands."""
    standing = standing_indices(actions)
    if not standing:
        return TAKEBACK_NOT_LAST
    last = actions[standing[-1]]
    if last.kind != PLAY or last.seat != seat:
        return TAKEBACK_NOT_LAST
    if last.cards in failed_attempts:
        return TAKEBACK_AFTER_FAILED_THROW
    return None if trick_open else TAKEBACK_NOT_LAST
