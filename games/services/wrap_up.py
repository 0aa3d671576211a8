"""The wrap-up of an ended hand, in a transaction of its own after the one that ended it: the
ladder's settlement, the match's levels and dealer, the seats of escapers and absentees, the
table open again (and the next hand, if every seat is ready already).

Leaving (RULES-SPEC.md §7, docs/RULES-DECISIONS.md "Leaving a 找朋友 table"): at a 拖拉机 table an
escape, or a player still away at the end, ends the match (the sides' levels belong to
partnerships that no longer sit together). In 找朋友 every player has a level of their own, so
the match goes on: the escaper's (or absentee's) seat is freed, the escaper's level goes back
to 2, everyone else keeps theirs, and a bot or a new player takes the seat.

The ladder settles a plain record of the hand (`finished_hand`), built here from the locked hand
and its players: the ladder floor never reads a hand (docs/ARCHITECTURE.md, "Floors")."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from accounts.errors import ApplicationError
from games import realtime
from games.models import Hand, HandPlayer, Match, Seat, SeatConnection, Table
from games.services._common import (
    SystemLine,
    free_seat,
    hand_seats,
    lock_hand,
    ranked_table_close_if_dead,
    seat_present,
    system,
    table_changed,
)
from games.services._moves import count_turns
from games.services.start import (
    lowest_level,
    match_end_if_deserted,
    next_hand_after_pause,
    stand_up_short,
)
from ladder.services import (
    FinishedHand,
    FinishedSeat,
    SettlementResult,
    ladder_settle_hand,
)

logger = logging.getLogger(__name__)


def wrapped_up(hand: Hand) -> Hand:
    """After the transaction that ended ``hand`` (its views were sent on its commit): wrap it
    up. A failure (a lock timeout, a deadlock victim) hands it to the wrap-up task, which
    retries, and the sweeper wraps up whatever is still waiting; the move itself stands."""
    if hand.awaiting_wrap_up:
        try:
            hand_wrap_up(hand_id=hand.pk)
        except Exception:
            logger.exception("wrapping up hand %s failed: the wrap-up task will", hand.pk)
            realtime.schedule_wrap_up(hand.pk)
    return hand


@transaction.atomic
def hand_wrap_up(*, hand_id: int) -> bool:
    """Settle an ended hand and ready its table for the next (RULES-SPEC.md §6, §7): the players'
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
    if absent and result.get("mode") == "friends":
        _friends_absentees_start_again(hand)
    escaper_name = _player_name(hand, result["escaper"])
    _settle(hand)
    table = hand.match.table
    if table.status == Table.Status.PLAYING:  # not closed by an admin meanwhile
        table.status = Table.Status.OPEN
        table.save(update_fields=["status"])
    _seats_after_hand(hand, seats, result["escaper"])
    match_end_if_deserted(hand.match, seats)
    hand.awaiting_wrap_up = False
    hand.save(update_fields=["awaiting_wrap_up"])
    table_changed(table, _result_line(hand, result, escaper_name))
    if table.status == Table.Status.OPEN:
        _next_hand(table, hand, seats)
    ranked_table_close_if_dead(table, seats)  # an escaper's seat: the others are freed at once
    return True


def _next_hand(table: Table, hand: Hand, seats: list[Seat]) -> None:
    """When every seat is ready (by auto-ready, or pressed before the wrap-up found the table
    still playing), the next hand starts after the pause, never at once: every player sees
    the result first (docs/PROTOCOL.md, "The pause after a hand")."""
    stand_up_short(table, seats)
    _auto_ready(table, hand.match, seats)
    if all(s.ready for s in seats):
        assert hand.finished_at is not None
        next_hand_after_pause(table, hand.finished_at)


def _auto_ready(table: Table, match: Match, seats: list[Seat]) -> bool:
    """Ready every present human who keeps auto-ready on for the next hand of the same match
    (none when the match has ended); whether it readied anyone."""
    if match.ended_at is not None:
        return False
    readied = [
        s
        for s in seats
        if s.user_id is not None and s.auto_ready and not s.ready and seat_present(table, s)
    ]
    for seat in readied:
        seat.ready = True
        seat.save(update_fields=["ready"])
    return bool(readied)


def hands_awaiting_wrap_up() -> list[int]:
    """Ended hands whose wrap-up failed or never ran (a process died in between)."""
    return list(Hand.objects.filter(awaiting_wrap_up=True).values_list("pk", flat=True))


def _seats_after_hand(hand: Hand, seats: list[Seat], escaper: int | None) -> None:
    """The escaper and a player still away leave the seat (RULES-SPEC.md §7: charged as escapers,
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
    assert hand.finished_at is not None
    for player in HandPlayer.objects.filter(hand=hand):
        seat = seats[player.seat]
        player.escaped = player.seat == escaper
        player.absent_at_end = (
            player.user_id is not None
            and seat.user_id == player.user_id
            and _away_at_end(seat, hand.finished_at)
        )
        player.save(update_fields=["escaped", "absent_at_end"])
        anyone = anyone or player.absent_at_end
    return anyone


def _away_at_end(seat: Seat, ended_at: datetime) -> bool:
    """The bot plays the seat for a player still away: taken over after the grace period, or
    on autopilot (托管) and gone longer than the grace period when the hand ended. A player on
    autopilot who is connected, or within the grace period, is present."""
    if not seat.bot or SeatConnection.objects.filter(seat=seat).exists():
        return False
    if not seat.autopilot:
        return True
    grace = timedelta(seconds=settings.SHENGJI_DISCONNECT_GRACE_S)
    return seat.disconnected_at is not None and seat.disconnected_at + grace <= ended_at


def _update_match(match: Match, result: dict[str, Any], now: datetime, *, ended: bool) -> None:
    """The match's levels, wrap flags and next dealer after the hand; an escape or an absence
    ends a 拖拉机 match, never a 找朋友 one (``_friends_escape``)."""
    match.levels = result["levels_after"]
    match.wrapped = result["wrapped_after"]
    match.next_dealer = result["next_dealer"]
    escaper = result["escaper"]
    if result.get("mode") == "friends":
        if escaper is not None:
            _friends_escape(match, result, escaper)
        over = result["match_over"] and escaper is None
    else:
        over = ended or result["match_over"] or escaper is not None
    if over:
        match.ended_at = now
        match.winner_side = result["match_winner"]
    match.save()


def _friends_escape(match: Match, result: dict[str, Any], escaper: int) -> None:
    """找朋友: the escaped hand is dealt again by the same seat (a first hand whose dealer was
    not found yet finds one again), at everyone's levels but the escaper's, which goes back to
    2: whoever takes the seat next starts there (docs/RULES-DECISIONS.md)."""
    match.next_dealer = result.get("dealer")
    levels, wrapped = list(match.levels), list(match.wrapped or [False] * len(match.levels))
    levels[escaper], wrapped[escaper] = lowest_level(match), False
    match.levels, match.wrapped = levels, wrapped


def _friends_absentees_start_again(hand: Hand) -> None:
    """找朋友: a player still away when the hand ended is charged as an escaper, and like an
    escaper's their level goes back to 2 (docs/RULES-DECISIONS.md 26): whoever sits there
    next, they themselves included, starts at 2."""
    match = hand.match
    levels, wrapped = list(match.levels), list(match.wrapped or [False] * len(match.levels))
    for seat in HandPlayer.objects.filter(hand=hand, absent_at_end=True).values_list(
        "seat", flat=True
    ):
        levels[seat], wrapped[seat] = lowest_level(match), False
    match.levels, match.wrapped = levels, wrapped
    match.save(update_fields=["levels", "wrapped"])


def _player_name(hand: Hand, seat: int | None) -> str:
    """The name of the player who sat at ``seat`` in ``hand`` ("" for a bot or no seat)."""
    if seat is None:
        return ""
    player = HandPlayer.objects.filter(hand=hand, seat=seat).select_related("user").first()
    return "" if player is None or player.user is None else str(player.user)


def _settle(hand: Hand) -> None:
    ladder_settle_hand(hand=finished_hand(hand))


@transaction.atomic
def hand_settle(*, hand_id: int) -> SettlementResult:
    """Settle the hand ``hand_id`` in the ladder (`ladder_settle_hand`), its row locked for the
    check of an earlier settlement; the wrap-up settles the hand it holds already. For callers
    outside the wrap-up (tests, a hand settled by hand); ``hand_not_found`` for no such hand."""
    hand = (
        Hand.objects.select_for_update(of=("self",))
        .select_related("match__table")
        .filter(pk=hand_id)
        .first()
    )
    if hand is None:
        raise ApplicationError("hand_not_found", _("no hand %(hand_id)s"), hand_id=hand_id)
    return ladder_settle_hand(hand=finished_hand(hand))


def finished_hand(hand: Hand) -> FinishedHand:
    """The plain record the ladder settles: ``hand`` (its row locked by the caller, its match
    and table loaded), its table's stake and rankedness, and its players as they are now."""
    table = hand.match.table
    return FinishedHand(
        hand_id=hand.pk,
        status=hand.status,
        result=hand.result,
        ruleset=hand.ruleset or {},
        stake=table.stake,
        dealer=hand.dealer,
        levels=hand.levels,
        wrapped=hand.wrapped,
        ranked=table.ranked,
        seats=tuple(
            FinishedSeat(
                seat=player.seat,
                user_id=player.user_id,
                escaped=player.escaped,
                absent_at_end=player.absent_at_end,
                turns=player.turns,
                auto_turns=player.auto_turns,
            )
            for player in HandPlayer.objects.filter(hand=hand).order_by("seat")
        ),
    )


def _result_line(hand: Hand, result: dict[str, Any], escaper_name: str) -> SystemLine:
    if result["escaper"] is not None:  # named: the seat is free by now
        return system("escaped", hand.number, result["escaper"], escaper_name)
    points, winner, levels = result["attacker_points"], result["winner"], result["levels_gained"]
    return system("result", hand.number, points, winner, levels)
