"""Deadlines: what a deadline task does when it comes (the deal's next cards, the close of the
bidding, the bot's move for a seat out of time), and the hands whose task is overdue (for the
sweeper). A hand a deadline ended is then wrapped up."""

from __future__ import annotations

import dataclasses
import functools
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Q, QuerySet

from games import realtime
from games.autoplay import bot_bid, bot_move, bot_turn
from games.handstate import load_state
from games.models import Hand, Seat
from games.services._common import db_now, hand_seats, lock_hand
from games.services._moves import (
    after_change,
    before_change,
    calls_step,
    catch_up_deal,
    log_actions,
    system_lines,
    timeout_lines,
)
from games.services.wrap_up import wrapped_up
from shengji.engine import HandState, ShengjiError
from shengji.engine.hand import BIDDING, BURYING, DEALING, PLAYING
from shengji.engine.views import call_defaults


@dataclasses.dataclass(frozen=True)
class DeadlineRun:
    """What a delivery of a deadline task did: moved the hand at ``seq``, sent itself again
    for a deadline that moved on (``rearmed``), or nothing."""

    outcome: str  # "moved", "rearmed" or "no-op"
    seq: int


def hand_advance(*, hand_id: int, seq: int, due: str | None = None) -> bool:
    """Whether the deadline task (hand, seq, due) moved the hand (``deadline_run``)."""
    return deadline_run(hand_id=hand_id, seq=seq, due=due).outcome == "moved"


def deadline_run(*, hand_id: int, seq: int, due: str | None = None) -> DeadlineRun:
    """A deadline task of (hand, seq) has come (``_deadline_run``); a hand it ended is then
    wrapped up. The common case, the hand's timer finding the deadline moved on by the
    players' moves, costs one statement (``_rearm_moved_on``)."""
    if due is not None:
        rearmed = _rearm_moved_on(hand_id, seq, datetime.fromisoformat(due))
        if rearmed is not None:
            return rearmed
    run, hand = _deadline_run(hand_id=hand_id, seq=seq, due=due)
    if hand is not None:
        wrapped_up(hand)
    return run


@transaction.atomic
def _deadline_run(
    *, hand_id: int, seq: int, due: str | None = None
) -> tuple[DeadlineRun, Hand | None]:
    """A deadline task of (hand, seq) has come: the server or the bot moves.

    Compare-and-set: nothing moves unless the hand's deadline has passed by the database's
    clock and the task speaks for the hand as it is now (sent at its current seq) or is its
    timer (``Hand.timer_seq``); a move changes the seq and the timer, so a late, early or
    repeated task does nothing and each deadline fires once. The timer task (sent with its
    ``due``) that finds the deadline moved on sends itself again for the new deadline.
    """
    skip = DeadlineRun("no-op", seq)
    still = Hand.objects.filter(pk=hand_id, status=Hand.Status.PLAYING)
    if not still.filter(Q(seq=seq) | Q(timer_seq=seq)).exists():
        # Most tasks that find their hand moved on stop here: seq only grows and a hand never
        # plays again, so this one can never act. No need to wait for the locks to know it.
        return skip, None
    hand = lock_hand(hand_id)
    if hand.status != Hand.Status.PLAYING or hand.deadline is None:
        return skip, None
    is_timer = seq == hand.timer_seq and (
        due is None or hand.timer_at is None or due == hand.timer_at.isoformat()
    )
    if seq != hand.seq and not is_timer:
        return skip, None
    now = db_now()
    if hand.deadline > now:
        return (_rearm(hand) if is_timer and due is not None else skip), None
    acted_at = hand.seq
    _advance(hand, now)
    return DeadlineRun("moved", acted_at), hand


@functools.cache
def _rearm_statement() -> str:
    return f"""
        UPDATE {connection.ops.quote_name(Hand._meta.db_table)}
        SET timer_seq = seq, timer_at = deadline
        WHERE id = %(hand)s AND status = %(playing)s AND timer_seq = %(seq)s
            AND timer_at = %(due)s AND deadline > clock_timestamp()
        RETURNING seq, deadline
    """


def _rearm_moved_on(hand_id: int, seq: int, due: datetime) -> DeadlineRun | None:
    """The hand's timer task (sent at ``seq`` for ``due``) finds the deadline not yet come:
    it becomes the timer of the hand as it is now and sends itself again for its deadline,
    in one statement that takes no lock but the hand row's and reads nothing else. None when
    the hand is not so (its deadline has come, or the task is no longer its timer): the
    locking path decides then (``_deadline_run``). The row's lock makes it a compare-and-set
    against a move committing meanwhile, as the locking path's is."""
    params: dict[str, Any] = {
        "hand": hand_id,
        "playing": Hand.Status.PLAYING,
        "seq": seq,
        "due": due,
    }
    with connection.cursor() as cursor:  # a statement of its own: committed when it returns
        cursor.execute(_rearm_statement(), params)
        row = cursor.fetchone()
    if row is None:
        return None
    now_seq, deadline = row
    transaction.on_commit(lambda: realtime.schedule_deadline(hand_id, now_seq, deadline))
    return DeadlineRun("rearmed", now_seq)


def _rearm(hand: Hand) -> DeadlineRun:
    assert hand.deadline is not None
    hand.timer_seq, hand.timer_at = hand.seq, hand.deadline
    hand.save(update_fields=["timer_seq", "timer_at"])
    hand_id, seq, due = hand.pk, hand.seq, hand.deadline
    transaction.on_commit(lambda: realtime.schedule_deadline(hand_id, seq, due))
    return DeadlineRun("rearmed", seq)


def _advance(hand: Hand, now: datetime) -> None:
    """The deadline's move: the next cards of the deal, the bots' bids and the close of the
    bidding, or the bot's bury (in 找朋友 its calls first, if the dealer made none) or play
    for the seat in turn; for a player out of time at 找朋友's calls step, the calls only."""
    seats = hand_seats(hand)
    state = load_state(hand)
    before = before_change(state)
    logged = catch_up_deal(hand, state, now)
    if state.phase in (DEALING, BIDDING) and logged:  # cards arrived: bots may bid on them
        logged += _bot_bids(state, seats)
    elif state.phase == BIDDING:
        logged += _bot_bids(state, seats)
        state.apply("close")
        logged.append((None, "close", False))
        if state.phase == DEALING:  # a redeal (RULES-SPEC.md §5.2 no_bid = redeal)
            hand.deal_started_at = now
    elif state.phase in (BURYING, PLAYING) and not logged:
        seat = state.to_act
        assert seat is not None
        if seats[seat].bot:
            texts = bot_turn(state, seat)  # 找朋友's dealer: the calls, then the bury
        else:  # a player's own time ran out (not a bot's or 托管's delay)
            texts = _timed_out_step(state, seat)
            timeout_lines(hand.match.table_id, seat, texts)
        logged += [(seat, text, True) for text in texts]
    prev = log_actions(hand, logged)
    system_lines(hand, state, logged, before)
    after_change(hand, state, now, seats, prev=prev)


def _timed_out_step(state: HandState, seat: int) -> list[str]:
    """The move for a player whose step ran out, applied to ``state``: at 找朋友's calls step
    only the calls, those the dealer's pickers offered first (``call_defaults``: never a card
    of the dealer's hand while another legal call exists), and the bury then has its own clock,
    so the cards the dealer was choosing are not buried for them; else the bot's bury or play
    (docs/PROTOCOL.md, "Time")."""
    if not calls_step(state):
        return bot_turn(state, seat)
    text = f"call {seat} {call_defaults(state, seat)}"
    try:
        state.apply(text, seat)
    except ShengjiError:  # no set of legal calls to offer (never at a legal table): the bot's
        text = bot_move(state, seat)
        state.apply(text, seat)
    return [text]


def _bot_bids(state: HandState, seats: list[Seat]) -> list[tuple[int | None, str, bool]]:
    logged: list[tuple[int | None, str, bool]] = []
    for seat in seats:
        if seat.bot:
            text = bot_bid(state, seat.index)
            if text is not None:
                state.apply(text, seat.index)
                logged.append((seat.index, text, True))
    return logged


def hands_overdue(*, grace_ms: int = 500) -> QuerySet[Hand]:
    cutoff = db_now() - timedelta(milliseconds=grace_ms)
    return Hand.objects.filter(status=Hand.Status.PLAYING, deadline__lt=cutoff)
