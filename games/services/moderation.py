"""Admin moderation (logged in ``AdminLog``): closing a table, which voids a hand in progress,
and removing a player from a seat."""

from __future__ import annotations

from django.db import transaction

from accounts.errors import ApplicationError
from accounts.models import User
from games import positions
from games.handstate import load_state
from games.models import AdminLog, Hand, Seat, Table
from games.services._common import (
    db_now,
    free_seat,
    lock_current_hand,
    lock_table,
    locked_seats,
    system,
    table_changed,
)
from games.services._moves import after_change, count_turns


@transaction.atomic
def table_close(*, table_id: int, actor: User, reason: str = "") -> Table:
    """Close a table; a hand in progress is void: no points move, and it is recorded so."""
    table = lock_table(table_id)
    hand = lock_current_hand(table)
    now = db_now()
    if hand is not None:
        hand.status = Hand.Status.VOID
        hand.result = {"outcome": "void", "reason": reason}
        hand.finished_at = now
        hand.deadline = None
        hand.save()
        count_turns(hand)
        # The pong's position named this hand: the table's latest is an older one now.
        transaction.on_commit(lambda: positions.position_forget(table_id))
    table.matches.filter(ended_at__isnull=True).update(ended_at=now)
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status"])
    for seat in locked_seats(table):
        free_seat(seat)
    AdminLog.objects.create(
        actor=actor,
        table=table,
        action="table_close",
        detail={"reason": reason, "void_hand": None if hand is None else hand.pk},
    )
    table_changed(table, system("closed"))
    return table


@transaction.atomic
def seat_remove(*, table_id: int, index: int, actor: User, reason: str = "") -> Seat:
    """Remove a player from a seat. Not an escape: during a hand the bot finishes it for the
    seat, and the player is settled as if present (docs/PROTOCOL.md)."""
    table = lock_table(table_id)
    if not 0 <= index < table.players:
        raise ApplicationError("invalid_seat")
    hand = lock_current_hand(table)
    seats = locked_seats(table)
    seat = seats[index]
    removed = seat.user_id
    free_seat(seat)
    if hand is not None:
        seat.bot = True
        seat.save(update_fields=["bot"])
        state = load_state(hand)
        if state.to_act == index:  # the bot moves for the seat now, not at the human deadline
            after_change(hand, state, db_now(), seats)
    AdminLog.objects.create(
        actor=actor,
        table=table,
        action="seat_remove",
        detail={"seat": index, "user": removed, "reason": reason},
    )
    name = "" if removed is None else str(User.objects.get(pk=removed))
    table_changed(table, system("removed", index, name))  # named: the seat is free by now
    return seat
