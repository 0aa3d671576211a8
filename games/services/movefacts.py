"""What this process knows of each table's hand, for the one-statement move (optimistic.py):
which hand, at which seq, its seats as of ``seats_rev``, and (games/handstate.py) the engine
state at that seq.

Learnt from the moves this process makes, and from the message of every change made
elsewhere (a deadline in the worker, another server process): the message carries the
change's facts and the actions it logged, so the state kept at the change's ``prev`` is moved
on with no database read. The bury after a deal made by the worker, or a player's move after a
bot's, then takes the one statement too. Facts that turn out stale cost only a fallback to the
locking path: the statement checks the hand's seq, status and ``seats_rev`` itself.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from games.handstate import advance_state, is_kept, load_state_at
from games.models import Hand, Seat
from shengji.engine import HandState, actions_since
from shengji.engine.hand import BURYING, PLAYING

_CACHE_SIZE = 512


@dataclass(frozen=True)
class MoveFacts:
    """A table's hand as its last known change left it: which hand, at which seq, its seats
    as of ``seats_rev`` (who sits, bot, 托管, and whose hand spectators may see)."""

    hand_id: int
    seq: int
    seats_rev: int
    occupants: tuple[int | None, ...]
    bots: tuple[bool, ...]
    autopilot: tuple[bool, ...]
    watchable: tuple[bool, ...]


_facts: OrderedDict[int, MoveFacts] = OrderedDict()
_facts_lock = threading.Lock()  # the locking path remembers from daphne's pool of threads
_warming: set[int] = set()


def remember_facts(table_id: int, facts: MoveFacts, *, newer_only: bool = False) -> bool:
    """Call after the commit that made ``facts`` true. With ``newer_only``, facts of an older
    change than those known are not kept (a late message). True when kept."""
    with _facts_lock:
        known = _facts.get(table_id)
        if (
            newer_only
            and known is not None
            and (known.hand_id, known.seq)
            >= (
                facts.hand_id,
                facts.seq,
            )
        ):
            return False
        _facts[table_id] = facts
        _facts.move_to_end(table_id)
        while len(_facts) > _CACHE_SIZE:
            _facts.popitem(last=False)
    return True


def known_facts(table_id: int) -> MoveFacts | None:
    with _facts_lock:
        return _facts.get(table_id)


def forget_facts() -> None:
    with _facts_lock:
        _facts.clear()


def facts_of(hand: Hand, seats: list[Seat], ranked: bool) -> MoveFacts:
    """The facts of a hand whose row and seats were read under its lock."""
    return MoveFacts(
        hand_id=hand.pk,
        seq=hand.seq,
        seats_rev=hand.seats_rev,
        occupants=tuple(seat.user_id for seat in seats),
        bots=tuple(seat.bot for seat in seats),
        autopilot=tuple(seat.autopilot for seat in seats),
        watchable=tuple(seat.show_hand_to_spectators and not ranked for seat in seats),
    )


def shared_facts(facts: MoveFacts, state: HandState, prev: int) -> dict[str, Any]:
    """What a change's message adds for the processes that did not make it (with its
    ``occupants`` and ``watchable``): the rest of its facts, its phase, and the actions it
    logged after ``prev``. Between server processes only: no socket forwards it."""
    return {
        "seats_rev": facts.seats_rev,
        "bots": list(facts.bots),
        "autopilot": list(facts.autopilot),
        "phase": state.phase,
        "actions": actions_since(state, prev),
    }


def learn_change(table_id: int, event: dict[str, Any]) -> tuple[int, int] | None:
    """Learn a change from its message (``realtime.hand_view_message``), once per process
    however many of its sockets hear it. Returns (hand, seq) when the state at that seq is
    not kept here and a player may bury or play next: worth reading (``warm_state``) while
    they think, so that their move need not."""
    shared = event.get("facts")
    prev = event.get("prev")
    if shared is None or prev is None:
        return None
    hand_id, seq = event["hand"], event["seq"]
    facts = MoveFacts(
        hand_id=hand_id,
        seq=seq,
        seats_rev=shared["seats_rev"],
        occupants=tuple(event["occupants"]),
        bots=tuple(shared["bots"]),
        autopilot=tuple(shared["autopilot"]),
        watchable=tuple(event["watchable"]),
    )
    if not remember_facts(table_id, facts, newer_only=True):
        return None
    if advance_state(hand_id, prev, shared["actions"]) or is_kept(hand_id, seq):
        return None
    return (hand_id, seq) if shared["phase"] in {BURYING, PLAYING} else None


def warm_state(*, hand_id: int, seq: int) -> None:
    """Read and keep the hand's state at ``seq`` (``learn_change``), one read per hand at a
    time in this process."""
    with _facts_lock:
        if hand_id in _warming:
            return
        _warming.add(hand_id)
    try:
        load_state_at(hand_id, seq)
    finally:
        with _facts_lock:
            _warming.discard(hand_id)
