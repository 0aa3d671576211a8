"""Starting a hand: when the four seats are taken and ready, the table's match (the same four
play on at their levels, or a new match starts at level 2) deals its next hand.

Before every hand (seed 000 §1.4: a hand starts only if everyone seated still meets the
table's conditions) each human must hold the table points the table needs (a player short of
them is stood up, with a chat line, and the table waits) and be present: not away, and at a
ranked table connected. A hand with a bot in a seat is practice (docs/LADDER.md).
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from games.handstate import load_state
from games.models import Hand, HandPlayer, Match, Seat, Table
from games.services._common import (
    db_now,
    free_seat,
    hand_on,
    points_needed,
    seat_present,
    table_changed,
)
from games.services._moves import after_change
from ladder.services import ladder_profiles_lock


def start_if_all_ready(table: Table, seats: list[Seat]) -> Hand | None:
    """Start the next hand if it may start now. Precondition: the table and its seats are
    locked and no hand is on, or ``hand_on`` says so."""
    if hand_on(table):
        return None
    stand_up_short(table, seats)
    seated = all(s.user_id is not None or s.bot for s in seats)
    humans = [s for s in seats if s.user_id is not None]
    if not (seated and humans) or not all(s.ready for s in seats):
        return None
    if not all(seat_present(table, s) for s in humans):
        return None
    return _hand_start(table, seats)


def stand_up_short(table: Table, seats: list[Seat]) -> list[Seat]:
    """Stand up every seated human holding fewer table points than the table needs, each
    with a chat line; the seats they leave. Between hands only."""
    humans = {s.user_id: s for s in seats if s.user_id is not None}
    if not humans:
        return []
    needed = points_needed(table)
    # Locked (in user-id order, after the seats) until the hand has started: no balance moves
    # between this check and the start.
    profiles = ladder_profiles_lock(user_ids=list(humans))
    short = [seat for user_id, seat in humans.items() if profiles[user_id].balance < needed]
    for seat in short:
        name = seat.user
        free_seat(seat)
        table_changed(table, f"{name} stands up: this table needs {needed} table points")
    return short


def _rules_for(table: Table) -> dict[str, Any]:
    rules = dataclasses.replace(
        table.rules(),
        play_s=table.play_seconds,
        bury_s=table.bury_seconds,
        bid_window_s=table.bid_window_seconds,
        deal_interval_ms=table.deal_interval_ms,
    )
    return rules.to_dict()


def _match_for(table: Table, players: list[int | None]) -> Match:
    """The table's match if the same four sit on, else a new one at level 2 (seed 000 §1.4)."""
    match = table.matches.order_by("-pk").first()
    if match is not None and match.ended_at is None and match.players == players:
        return match
    if match is not None and match.ended_at is None:
        match.ended_at = db_now()
        match.save(update_fields=["ended_at"])
    return Match.objects.create(
        table=table,
        ruleset=_rules_for(table),
        levels=["2", "2"],
        wrapped=[False, False],
        players=players,
    )


def _hand_start(table: Table, seats: list[Seat]) -> Hand:
    players = [s.user_id for s in seats]
    match = _match_for(table, players)
    now = db_now()
    hand = Hand.objects.create(
        match=match,
        number=match.hands.count() + 1,
        ruleset=match.ruleset,
        seed=secrets.randbits(63),
        dealer=match.next_dealer,
        levels=match.levels,
        wrapped=match.wrapped or [False, False],
        deal_started_at=now,
    )
    HandPlayer.objects.bulk_create(
        [HandPlayer(hand=hand, seat=s.index, user_id=s.user_id) for s in seats]
    )
    for seat in seats:
        if seat.user_id is not None:
            seat.ready = False
            seat.save(update_fields=["ready"])
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    state = load_state(hand)
    if any(s.user_id is None for s in seats):
        table_changed(table, "a practice hand: a bot is seated, no points or ratings move")
    table_changed(table, f"hand {hand.number} of match {match.pk} starts")
    after_change(hand, state, now, seats)
    return hand
