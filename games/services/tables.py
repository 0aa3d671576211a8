"""Tables and seats: opening a table, sitting down, standing up, a bot in an empty seat,
pressing ready (which starts the hand when all four are), showing one's hand to spectators."""

from __future__ import annotations

from django.db import transaction

from accounts.models import User
from games import realtime
from games.engine import PRESET_NAMES
from games.errors import ApplicationError
from games.models import Hand, Seat, Table
from games.services._common import (
    MAX_STAKE,
    SEATS,
    free_seat,
    hand_on,
    lock_table,
    locked_seats,
    table_changed,
)
from games.services.start import start_if_all_ready
from ladder.models import LadderProfile


@transaction.atomic
def table_create(
    *,
    creator: User,
    name: str,
    preset_name: str = "ranked",
    ranked: bool = True,
    stake: int = 100,
    min_balance: int = 0,
    play_seconds: int = 20,
    bury_seconds: int = 30,
    bid_window_seconds: int = 8,
    deal_interval_ms: int = 100,
) -> Table:
    if ranked:
        preset_name = "ranked"  # ranked tables play the ranked preset (issue 7)
    if preset_name not in PRESET_NAMES:
        raise ApplicationError("invalid_preset")
    if not 1 <= stake <= MAX_STAKE:
        raise ApplicationError("invalid_stake")
    table = Table.objects.create(
        name=(name or "").strip()[:60] or f"{creator.username}",
        preset=preset_name,
        ranked=ranked,
        stake=stake,
        min_balance=min_balance,
        play_seconds=play_seconds,
        bury_seconds=bury_seconds,
        bid_window_seconds=bid_window_seconds,
        deal_interval_ms=deal_interval_ms,
        creator=creator,
    )
    Seat.objects.bulk_create([Seat(table=table, index=i) for i in range(SEATS)])
    transaction.on_commit(lambda: realtime.lobby_changed(table.pk))
    return table


def user_balance(user: User) -> int:
    balance = LadderProfile.objects.filter(user=user).values_list("balance", flat=True).first()
    return balance or 0


@transaction.atomic
def seat_take(*, table_id: int, user: User, index: int, stake: int | None = None) -> Seat:
    """Sit at seat ``index``; the first to sit at an empty table may set the stake (§6)."""
    table = lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    if not 0 <= index < SEATS:
        raise ApplicationError("invalid_seat")
    seats = locked_seats(table)
    if any(s.user_id == user.pk for s in seats):
        raise ApplicationError("already_seated")
    seat = seats[index]
    if seat.user_id is not None or seat.bot or hand_on(table):
        raise ApplicationError("seat_taken")
    if user_balance(user) < table.min_balance:
        raise ApplicationError("insufficient_balance")
    if stake is not None and all(s.user_id is None for s in seats):
        if not 1 <= stake <= MAX_STAKE:
            raise ApplicationError("invalid_stake")
        table.stake = stake
        table.save(update_fields=["stake"])
    seat.user = user
    seat.ready = False
    seat.bot = False
    seat.disconnected_at = None
    seat.save()
    table_changed(table, f"{user} sits at seat {index}")
    return seat


@transaction.atomic
def seat_leave(*, table_id: int, user: User) -> None:
    """Stand up between hands (leaving during a hand is an escape: ``hand_leave``)."""
    table = lock_table(table_id)
    seat = _seat_of_user(table, user)
    if hand_on(table):
        raise ApplicationError("hand_in_progress")
    free_seat(seat)
    table_changed(table, f"{user} leaves seat {seat.index}")


@transaction.atomic
def seat_fill_bot(*, table_id: int, user: User, index: int) -> Seat:
    """Put a bot in an empty seat of a casual table (a seated player or the creator may)."""
    table = lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    if table.ranked:
        raise ApplicationError("ranked_no_bots")
    if not 0 <= index < SEATS:
        raise ApplicationError("invalid_seat")
    seats = locked_seats(table)
    if table.creator_id != user.pk and all(s.user_id != user.pk for s in seats):
        raise ApplicationError("not_allowed")
    seat = seats[index]
    if seat.user_id is not None or seat.bot or hand_on(table):
        raise ApplicationError("seat_taken")
    seat.bot = True
    seat.ready = True
    seat.save()
    table_changed(table, f"a bot sits at seat {index}")
    start_if_all_ready(table, seats)
    return seat


@transaction.atomic
def seat_ready(*, table_id: int, user: User, ready: bool = True) -> Hand | None:
    """Press ready; when all four are ready the next hand starts."""
    table = lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    seats = locked_seats(table)
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        raise ApplicationError("not_seated")
    seat.ready = ready
    seat.save(update_fields=["ready"])
    table_changed(table, None)
    return start_if_all_ready(table, seats)


@transaction.atomic
def seat_show_hand(*, table_id: int, user: User, allow: bool) -> Seat:
    """A player at a casual table lets spectators watching the seat see its hand, or not."""
    table = lock_table(table_id)
    seat = _seat_of_user(table, user)
    if table.ranked and allow:
        raise ApplicationError("not_allowed", "at ranked tables spectators see the public view")
    seat.show_hand_to_spectators = allow
    seat.save(update_fields=["show_hand_to_spectators"])
    table_changed(table, None)
    return seat


def _seat_of_user(table: Table, user: User) -> Seat:
    seat = Seat.objects.select_for_update().filter(table=table, user=user).first()
    if seat is None:
        raise ApplicationError("not_seated")
    return seat
