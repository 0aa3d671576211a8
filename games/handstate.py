"""Rebuilding a hand's engine state from its row and its action log.

The log is append-only and (hand, seq) fixes the state, so a state rebuilt once can be kept in
this process and reused while the hand's seq has not moved (only after the commit that made it).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime
from typing import Any

from games.models import Action, Hand
from shengji.engine import HandRecord, HandState, RuleSet, apply_logged, replay_final

_CACHE_SIZE = 512
_states: OrderedDict[int, tuple[int, HandState]] = OrderedDict()
_states_lock = threading.Lock()  # daphne runs services in a pool of threads


def record_for(hand: Hand, actions: list[str]) -> HandRecord:
    """The hand's record: its levels and past-A flags per side (拖拉机) or per player (找朋友)."""
    levels = tuple(str(level) for level in hand.levels)
    wrapped = tuple(bool(flag) for flag in hand.wrapped) if hand.wrapped else (False,) * len(levels)
    return HandRecord(
        rules=RuleSet.from_dict(hand.ruleset),
        seed=hand.seed,
        levels=levels,
        dealer=hand.dealer,
        wrapped=wrapped,
        actions=tuple(actions),
    )


def action_texts(hand: Hand) -> list[str]:
    return list(Action.objects.filter(hand=hand).order_by("seq").values_list("text", flat=True))


def load_state(hand: Hand) -> HandState:
    """The hand's state at ``hand.seq``: a private copy the caller may change."""
    kept = kept_state(hand.pk, hand.seq)
    if kept is not None:
        return kept
    # A row read without its lock may be older than the log by now: replay only the first
    # ``hand.seq`` actions, so the state is the one its seq names (the views carry that seq).
    texts = action_texts(hand)[: hand.seq]
    state = replay_final(record_for(hand, texts), check_result=False)
    remember_state(hand.pk, state)
    return state.copy()


def kept_state(hand_id: int, seq: int) -> HandState | None:
    """A private copy of the state this process keeps for the hand at ``seq``, or None (no
    database read: also the optimistic move's question)."""
    with _states_lock:
        cached = _states.get(hand_id)
        if cached is None or cached[0] != seq:
            return None
        _states.move_to_end(hand_id)
    return cached[1].copy()  # a kept state is never changed: copying it needs no lock


def is_kept(hand_id: int, seq: int) -> bool:
    with _states_lock:
        cached = _states.get(hand_id)
    return cached is not None and cached[0] == seq


def remember_state(hand_id: int, state: HandState) -> None:
    """Keep a committed state (call after commit: an uncommitted one may still roll back)."""
    kept = (len(state.actions), state.copy())
    with _states_lock:
        _states[hand_id] = kept
        _states.move_to_end(hand_id)
        while len(_states) > _CACHE_SIZE:
            _states.popitem(last=False)


def advance_state(hand_id: int, prev: int, texts: list[str]) -> bool:
    """Keep the state after a change made elsewhere (its message carries the actions it
    logged), from the one kept at ``prev``: no database read. False when none is kept at
    ``prev`` (nothing is changed then)."""
    state = kept_state(hand_id, prev)
    if state is None:
        return False
    apply_logged(state, texts)
    remember_state(hand_id, state)
    return True


def load_state_at(hand_id: int, seq: int) -> None:
    """Keep the hand's state at ``seq`` (committed), read from the database unless kept."""
    hand = Hand.objects.filter(pk=hand_id).first()
    if hand is None or hand.seq < seq:
        return
    hand.seq = seq
    load_state(hand)


def forget_states() -> None:
    with _states_lock:
        _states.clear()


def public_summary(state: HandState, deadline: datetime | None) -> dict[str, Any]:
    """What the lobby and admin show of a hand, with no hidden card."""
    trump = state.trump
    return {
        "phase": state.phase,
        "players": state.players,
        "dealer": state.dealer,
        "to_act": state.to_act,
        "level": state.level,
        "levels": list(state.levels),
        "trump": None if trump is None else {"level": trump.level, "suit": trump.suit},
        "tricks_played": len(state.tricks),
        "attacker_points": state.attacker_points,
        "deadline": None if deadline is None else deadline.isoformat(),
    }
