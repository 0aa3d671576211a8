"""托管 (autopilot): a seated player asks the bot to play their seat while they watch, and
takes it back by turning it off or by acting themselves.

The bot plays the seat through the machinery of a takeover (``Seat.bot``: the bot's short
delay per move, its bids during the deal, its moves logged ``auto``), so autopilot turns count
as bot turns, as timeouts do (docs/LADDER.md). Unlike a takeover the player is here: a
reconnect does not end it, and a connected player on autopilot is present at the hand's end
and for the next hand (``seat_present``, wrap_up)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction

from accounts.errors import ApplicationError
from accounts.models import User
from games.handstate import load_state
from games.models import ChatLine, Hand, Seat, Table
from games.services._common import (
    db_now,
    lock_current_hand,
    lock_table,
    locked_seats,
    system,
    table_changed,
)
from games.services._moves import after_change

AUTOPILOT_LINES = ("autopilot_on", "autopilot_off")


@transaction.atomic
def seat_autopilot(*, table_id: int, user: User, on: bool) -> Seat:
    """Turn the user's seat's autopilot on or off; off, the player plays again at once, with
    what is left of their turn: neither ever moves the turn's deadline later than its start
    plus the table's time (``_moves._next_deadline``; docs/PROTOCOL.md, "A turn's clock")."""
    if not user.is_authenticated:
        raise ApplicationError("login_required")
    table = lock_table(table_id)
    hand = lock_current_hand(table)
    seats = locked_seats(table)
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        raise ApplicationError("not_seated")
    if seat.autopilot != on:
        _switch(table, seat, on)
        if hand is not None:
            _retime(hand, seats, seat)
    return seat


def autopilot_stop(table: Table, seat: Seat) -> None:
    """The player acted themselves: autopilot ends, with a line of its own (never merged with
    the line that turned it on: both changes stay in the log). Call holding the hand and seat
    locks, before the move's ``after_change`` (which times the seat's next turn as a human's)."""
    if seat.autopilot:
        _switch(table, seat, False, merge=False)


def _switch(table: Table, seat: Seat, on: bool, *, merge: bool = True) -> None:
    # Off, nobody else plays the seat: its player is here (they just asked, or acted).
    seat.autopilot = seat.bot = on
    seat.save(update_fields=["autopilot", "bot"])
    code = "autopilot_on" if on else "autopilot_off"
    if merge:
        _merge_recent_lines(table, seat)
    table_changed(table, system(code, seat.index, str(seat.user)))


def _merge_recent_lines(table: Table, seat: Seat) -> None:
    """The seat's 托管 lines of the last ``SHENGJI_AUTOPILOT_LINE_MERGE_S`` (10 s, the toggle
    limit's burst) go: the new line says where it stands now, so a burst of toggles is one line
    in the chat, not a flood, while a 托管 kept on for longer than that and turned off later
    leaves both lines (docs/PROTOCOL.md, "Client → server")."""
    since = db_now() - timedelta(seconds=settings.SHENGJI_AUTOPILOT_LINE_MERGE_S)
    ChatLine.objects.filter(
        table=table,
        system=True,
        code__in=AUTOPILOT_LINES,
        params__0=seat.index,
        created_at__gte=since,
    ).delete()


def _retime(hand: Hand, seats: list[Seat], seat: Seat) -> None:
    """The seat is to move: its deadline becomes the bot's short one, or what is left of the
    human's turn."""
    state = load_state(hand)
    if state.to_act == seat.index:
        after_change(hand, state, db_now(), seats)
