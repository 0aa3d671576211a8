"""The wrap-up of an ended hand, in a transaction of its own after the one that ended it: the
ladder's settlement, the match's levels and dealer, the seats of escapers and absentees, the
table open again (and the next hand, if all four are ready already)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction

from games.models import Hand, HandPlayer, Match, Seat, SeatConnection, Table
from games.services._common import free_seat, hand_seats, lock_hand, table_changed
from games.services._moves import count_turns
from games.services.start import start_if_all_ready
from ladder.services import ladder_settle_hand

logger = logging.getLogger(__name__)


def wrapped_up(hand: Hand) -> Hand:
    """After the transaction that ended ``hand`` (its views were sent on its commit): wrap it
    up. A failure leaves it to the sweeper, which wraps up every hand still waiting; the move
    itself stands."""
    if hand.awaiting_wrap_up:
        try:
            hand_wrap_up(hand_id=hand.pk)
        except Exception:
            logger.exception("wrapping up hand %s failed: the sweeper will", hand.pk)
    return hand


@transaction.atomic
def hand_wrap_up(*, hand_id: int) -> bool:
    """Settle an ended hand and ready its table for the next (RULES.md §6, §7): the players'
    turns, who was away, the match's levels and dealer, the ladder, the seats of escapers and
    absentees, the table open again. Once only: False if already done."""
    hand = lock_hand(hand_id)
    if not hand.awaiting_wrap_up:
        return False
    seats = hand_seats(hand)
    result = hand.result
    assert result is not None and hand.finished_at is not None
    count_turns(hand)
    absent = _mark_absent_players(hand, seats, result["escaper"])
    _update_match(hand.match, result, hand.finished_at, ended=absent)
    _settle(hand)
    table = hand.match.table
    if table.status == Table.Status.PLAYING:  # not closed by an admin meanwhile
        table.status = Table.Status.OPEN
        table.save(update_fields=["status"])
    _seats_after_hand(hand, seats, result["escaper"])
    hand.awaiting_wrap_up = False
    hand.save(update_fields=["awaiting_wrap_up"])
    table_changed(table, _result_line(hand, result))
    if table.status == Table.Status.OPEN:
        # Players who pressed ready before the wrap-up found the table still playing.
        start_if_all_ready(table, seats)
    return True


def hands_awaiting_wrap_up() -> list[int]:
    """Ended hands whose wrap-up failed or never ran (a process died in between)."""
    return list(Hand.objects.filter(awaiting_wrap_up=True).values_list("pk", flat=True))


def _seats_after_hand(hand: Hand, seats: list[Seat], escaper: int | None) -> None:
    """The escaper and a player still away leave the seat (RULES.md §7: charged as escapers,
    the four change); a seat an admin emptied mid-hand stops being the bot's."""
    players = {p.seat: p for p in HandPlayer.objects.filter(hand=hand)}
    for seat in seats:
        player = players[seat.index]
        if seat.user_id is not None and (seat.index == escaper or player.absent_at_end):
            free_seat(seat)
        elif seat.user_id is None and player.user_id is not None and seat.bot:
            seat.bot = False
            seat.ready = False
            seat.save(update_fields=["bot", "ready"])


def _mark_absent_players(hand: Hand, seats: list[Seat], escaper: int | None) -> bool:
    """Flag the escaper and the players still away; whether anyone was away."""
    anyone = False
    for player in HandPlayer.objects.filter(hand=hand):
        seat = seats[player.seat]
        player.escaped = player.seat == escaper
        player.absent_at_end = (
            player.user_id is not None
            and seat.user_id == player.user_id
            and seat.bot
            and not SeatConnection.objects.filter(seat=seat).exists()
        )
        player.save(update_fields=["escaped", "absent_at_end"])
        anyone = anyone or player.absent_at_end
    return anyone


def _update_match(match: Match, result: dict[str, Any], now: datetime, *, ended: bool) -> None:
    match.levels = result["levels_after"]
    match.wrapped = result["wrapped_after"]
    match.next_dealer = result["next_dealer"]
    if ended or result["match_over"] or result["escaper"] is not None:
        match.ended_at = now
        match.winner_side = result["match_winner"]
    match.save()


def _settle(hand: Hand) -> None:
    ladder_settle_hand(hand_id=hand.pk)


def _result_line(hand: Hand, result: dict[str, Any]) -> str:
    if result["escaper"] is not None:
        return f"hand {hand.number}: seat {result['escaper']} escaped"
    return (
        f"hand {hand.number}: attackers {result['attacker_points']} points, "
        f"{result['winner']} +{result['levels_gained']}"
    )
