"""Driving a hand with bots in the seats, as the site would: each bot gets only its seat's view
and the public history, and every action it returns is checked by the engine before it is
applied.

The deal is driven as on the site: one ``draw`` at a time, and after each draw the seat that
received the card may bid; after the last draw every seat, from the first to receive cards,
may bid until a whole round passes without a bid, then ``close``. In 找朋友 the dealer's
``call`` and ``bury`` are two decisions of the burying phase. Tables of 4 to 8 seats.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from shengji.bots.base import Bot
from shengji.bots.memory import public_history
from shengji.engine.actions import CLOSE_ACTION, DRAW_ACTION
from shengji.engine.errors import ShengjiError
from shengji.engine.hand import BIDDING, BURYING, DEALING, PLAYING, HandState
from shengji.engine.views import legal_actions, view_for

BID_ROUNDS = 8
"""Rounds of last bids after the deal (each seat once per round) before the window closes."""
MAX_REJECTED = 4
"""Rejected throws in a row (``failed_throw = reject``) before the driver plays the engine's
first legal lead for the seat, so a bot that keeps throwing cannot stall a hand."""


@dataclass(slots=True)
class HandStats:
    """What the driver saw: decision times per seat (burying and playing), bid calls,
    actions checked, and every refused action as ``(seat, text, reason code)``."""

    times: list[list[float]] = field(default_factory=lambda: [[] for _ in range(8)])
    bid_calls: int = 0
    checked: int = 0
    refused: list[tuple[int, str, str]] = field(default_factory=list)


def play_hand(
    state: HandState,
    bots: Sequence[Bot],
    stats: HandStats | None = None,
    check: Callable[[HandState], None] | None = None,
) -> HandState:
    """Play the hand to its end with ``bots[seat]`` in each seat; returns the state.

    A refused action is recorded in ``stats.refused`` and replaced by the engine's first
    legal action (so a long legality run goes on and counts every failure). ``check`` (tests,
    legality runs) is called at the first lead and after every completed trick.
    """
    stats = stats if stats is not None else HandStats()
    log: list[str] = []
    stalled = 0
    checked = -1
    while state.result is None:
        first_in_trick = state.phase == PLAYING and not state.trick.plays
        if check is not None and first_in_trick and len(state.tricks) != checked:
            checked = len(state.tricks)
            check(state)
        phase = state.phase
        if phase == DEALING:
            seat = (state.start_seat + state.drawn) % players_of_state(state)
            state.apply(DRAW_ACTION)
            _offer_bid(state, bots, seat, log, stats)
        elif phase == BIDDING:
            _last_bids(state, bots, log, stats)
            state.apply(CLOSE_ACTION)
            log.append(str(CLOSE_ACTION))
        elif phase in (BURYING, PLAYING):
            actor = state.to_act
            assert actor is not None
            if stalled >= MAX_REJECTED:
                _fallback(state, actor, log)
                stalled = 0
                continue
            before = len(state.actions), len(state.failed_throws)
            _act(state, bots[actor], actor, log, stats)
            rejected = state.phase == PLAYING and not state.trick.plays
            rejected = rejected and len(state.failed_throws) > before[1]
            stalled = (
                stalled + 1 if rejected and state.failed_throws[-1].result == "rejected" else 0
            )
    return state


def players_of_state(state: HandState) -> int:
    return int(getattr(state, "players", 4))


def _rejected(state: HandState, failed_before: int) -> bool:
    """Whether the last action was a throw the engine refused (the seat leads again)."""
    failed = state.failed_throws
    return len(failed) > failed_before and failed[-1].result == "rejected"


def _ask(state: HandState, bot: Bot, seat: int, log: list[str]) -> tuple[str | None, float]:
    view = view_for(state, seat)
    history = public_history(log, view)
    started = time.perf_counter()
    action = bot.choose_action(view, state.rules, history)
    return action, time.perf_counter() - started


def _offer_bid(
    state: HandState, bots: Sequence[Bot], seat: int, log: list[str], stats: HandStats
) -> bool:
    action, _ = _ask(state, bots[seat], seat, log)
    stats.bid_calls += 1
    if action is None:
        return False
    return _apply_checked(state, seat, action, log, stats, fallback=False)


def _last_bids(state: HandState, bots: Sequence[Bot], log: list[str], stats: HandStats) -> None:
    for _ in range(BID_ROUNDS):
        any_bid = False
        players = players_of_state(state)
        for offset in range(players):
            seat = (state.start_seat + offset) % players
            any_bid |= _offer_bid(state, bots, seat, log, stats)
        if not any_bid:
            return


def _act(state: HandState, bot: Bot, seat: int, log: list[str], stats: HandStats) -> None:
    action, seconds = _ask(state, bot, seat, log)
    stats.times[seat].append(seconds)
    if action is None:
        stats.refused.append((seat, "", "no_action"))
        _fallback(state, seat, log)
        return
    _apply_checked(state, seat, action, log, stats, fallback=True)


def _apply_checked(
    state: HandState, seat: int, action: str, log: list[str], stats: HandStats, *, fallback: bool
) -> bool:
    stats.checked += 1
    try:
        parsed = state.check_action(seat, action)
    except ShengjiError as error:
        stats.refused.append((seat, action, error.code))
        if fallback:
            _fallback(state, seat, log)
        return False
    state.apply(parsed, seat)
    log.append(str(parsed))
    return True


def _fallback(state: HandState, seat: int, log: list[str]) -> None:
    action = legal_actions(state, seat)[0]
    state.apply(action, seat)
    log.append(str(action))
