"""Connections and takeovers: a seated player's sockets, the grace period after the last one
closes, the bot taking the seat when it ends, and the player taking it back on return."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction

from accounts.models import User
from games import realtime
from games.handstate import load_state
from games.models import Seat, SeatConnection
from games.services._common import (
    db_now,
    lock_current_hand,
    lock_table,
    locked_seats,
    table_changed,
)
from games.services._moves import after_change


@transaction.atomic
def seat_connected(*, table_id: int, user: User, channel_name: str) -> bool:
    """A socket of a seated player opened; returns whether the player took the seat back."""
    table = lock_table(table_id)
    hand = lock_current_hand(table)
    seats = locked_seats(table)
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        return False
    SeatConnection.objects.update_or_create(
        channel_name=channel_name, defaults={"seat": seat, "last_seen": db_now()}
    )
    returning = seat.disconnected_at is not None
    seat.connected = True
    seat.disconnected_at = None
    took_back = returning and seat.bot
    seat.bot = False if took_back else seat.bot
    seat.save()
    if took_back:
        table_changed(table, f"{user} is back at seat {seat.index}")
        if hand is not None:
            state = load_state(hand)
            if state.to_act == seat.index:  # the bot was about to move: normal time again
                after_change(hand, state, db_now(), seats)
    return returning


@transaction.atomic
def seat_disconnected(*, channel_name: str) -> Seat | None:
    """A socket closed; when it was the seat's last, the grace period starts."""
    found = (
        SeatConnection.objects.filter(channel_name=channel_name)
        .values_list("seat_id", "seat__table_id")
        .first()
    )
    if found is None:
        return None
    seat_id, table_id = found
    lock_table(table_id)
    seat = Seat.objects.select_for_update().get(pk=seat_id)
    SeatConnection.objects.filter(channel_name=channel_name).delete()
    if SeatConnection.objects.filter(seat=seat).exists():
        return None
    return _start_grace(seat)


def _start_grace(seat: Seat) -> Seat:
    seat.connected = False
    seat.disconnected_at = db_now()
    seat.save(update_fields=["connected", "disconnected_at"])
    seat_id, since = seat.pk, seat.disconnected_at.isoformat()
    grace = settings.SHENGJI_DISCONNECT_GRACE_S
    transaction.on_commit(lambda: realtime.schedule_grace(seat_id, since, grace))
    return seat


@transaction.atomic
def seat_takeover(*, seat_id: int, since: str) -> bool:
    """The grace period after a disconnect ended: the bot plays the seat (RULES.md §7)."""
    table_id = Seat.objects.filter(pk=seat_id).values_list("table_id", flat=True).first()
    if table_id is None:
        return False
    table = lock_table(table_id)
    hand = lock_current_hand(table)
    seats = locked_seats(table)
    seat = next(s for s in seats if s.pk == seat_id)
    if (
        seat.user_id is None
        or seat.disconnected_at is None
        or seat.disconnected_at.isoformat() != since
        or seat.bot
    ):
        return False
    seat.bot = True
    seat.save(update_fields=["bot"])
    table_changed(table, f"the bot plays seat {seat.index} for {seat.user}")
    if hand is not None:
        state = load_state(hand)
        if state.to_act == seat.index:
            after_change(hand, state, db_now(), seats)
    return True


def connections_touch(*, channel_name: str) -> bool:
    """Note a ping; False when the socket has no row: the sweep forgot it while it lived (no
    ping reached the database for SHENGJI_CONNECTION_TIMEOUT_S, e.g. a stalled server)."""
    return SeatConnection.objects.filter(channel_name=channel_name).update(last_seen=db_now()) > 0


def connections_sweep(*, older_than_s: int) -> int:
    """Forget sockets not heard from (a killed server never says goodbye); one transaction
    per socket, so no two seats are ever locked together here."""
    cutoff = db_now() - timedelta(seconds=older_than_s)
    stale = list(
        SeatConnection.objects.filter(last_seen__lt=cutoff).values_list("channel_name", flat=True)
    )
    for channel_name in stale:
        seat_disconnected(channel_name=channel_name)
    return len(stale)


def seats_takeover_overdue(*, grace_s: float) -> list[tuple[int, str]]:
    """(seat id, since) of players away longer than ``grace_s`` whom no bot plays for yet:
    their grace task is late or was lost (a Redis restart loses the queue)."""
    cutoff = db_now() - timedelta(seconds=grace_s)
    away = Seat.objects.filter(user__isnull=False, bot=False, disconnected_at__lt=cutoff)
    rows = away.values_list("pk", "disconnected_at")
    return [(pk, since.isoformat()) for pk, since in rows if since is not None]
