"""Every state change of tables, seats and hands (ARCHITECTURE.md "One action, end to end").

Each service runs in one transaction with the rows it changes locked; whatever must be seen
outside (socket frames, deadline tasks) happens only after the commit, so every acknowledged
action is already in the database.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Q, QuerySet

from accounts.models import User
from games import ratelimits, realtime
from games.autoplay import bot_bid, bot_move
from games.engine import PRESET_NAMES, HandState, ShengjiError, preset, view_for
from games.engine.hand import BIDDING, BURYING, DEALING, FINISHED, PLAYING
from games.errors import ApplicationError
from games.handstate import load_state, public_summary
from games.models import (
    Action,
    AdminLog,
    ChatLine,
    Hand,
    HandPlayer,
    Match,
    Seat,
    SeatConnection,
    Table,
)

logger = logging.getLogger(__name__)
SEATS = 4
DRAWS = 100
DRAW_BATCH = 5  # draws applied per deadline during the deal: a frame every 5 cards
CHAT_MAX = 200
MAX_STAKE = 100_000


def db_now() -> datetime:
    """The database's clock: the one every deadline is compared with."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        (now,) = cursor.fetchone()
    return now  # type: ignore[no-any-return]


def bot_delay() -> timedelta:
    return timedelta(milliseconds=settings.SHENGJI_BOT_DELAY_MS)


# --- tables and seats ------------------------------------------------------------------------


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


def _quoted(model: type[Any]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


# The busiest statements, written out: the ORM's building of a query costs more CPU than the
# database's answering of these (docs/proof/LOAD.md). Each locks what it reads.
_TABLE_LOCK = f"SELECT * FROM {_quoted(Table)} WHERE id = %s FOR UPDATE"
_SEATS_LOCK = f'SELECT * FROM {_quoted(Seat)} WHERE table_id = %s ORDER BY "index" FOR UPDATE'
_PLAYING_HAND_LOCK = f"""
    SELECT h.*, clock_timestamp() AS db_now,
        (SELECT p.seat FROM {_quoted(HandPlayer)} p WHERE p.hand_id = h.id AND p.user_id = %s)
            AS player_seat
    FROM {_quoted(Hand)} h JOIN {_quoted(Match)} m ON m.id = h.match_id
    WHERE m.table_id = %s AND h.status = %s
    ORDER BY h.id DESC LIMIT 1
    FOR UPDATE OF h
"""


def _lock_table(table_id: int) -> Table:
    found = list(Table.objects.raw(_TABLE_LOCK, [table_id]))
    if not found:
        raise ApplicationError("not_found")
    return found[0]


def _locked_seats(table: Table) -> list[Seat]:
    return list(Seat.objects.raw(_SEATS_LOCK, [table.pk]))


def _lock_playing_hand(table: Table, user: User) -> Hand | None:
    """The table's hand in progress, locked, with the database's clock (``db_now``) and the
    user's seat in that hand (``player_seat``, None if not a player of it). Its match holds
    only its table until a field is read (``_update_match`` saves only the fields it sets)."""
    found = list(Hand.objects.raw(_PLAYING_HAND_LOCK, [user.pk, table.pk, Hand.Status.PLAYING]))
    if not found:
        return None
    hand = found[0]
    match = Match.from_db(connection.alias, ["id", "table_id"], [hand.match_id, table.pk])
    match.table = table
    hand.match = match
    return hand


def _hand_on(table: Table) -> bool:
    """A hand is in progress, or has ended and is not yet wrapped up (``hand_wrap_up``)."""
    return table.status == Table.Status.PLAYING or current_hand(table) is not None


def current_hand(table: Table) -> Hand | None:
    return (
        Hand.objects.filter(match__table=table, status=Hand.Status.PLAYING).order_by("-pk").first()
    )


def user_balance(user: User) -> int:
    from ladder.models import LadderProfile

    balance = LadderProfile.objects.filter(user=user).values_list("balance", flat=True).first()
    return balance or 0


@transaction.atomic
def seat_take(*, table_id: int, user: User, index: int, stake: int | None = None) -> Seat:
    """Sit at seat ``index``; the first to sit at an empty table may set the stake (§6)."""
    table = _lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    if not 0 <= index < SEATS:
        raise ApplicationError("invalid_seat")
    seats = _locked_seats(table)
    if any(s.user_id == user.pk for s in seats):
        raise ApplicationError("already_seated")
    seat = seats[index]
    if seat.user_id is not None or seat.bot or _hand_on(table):
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
    _table_changed(table, f"{user} sits at seat {index}")
    return seat


@transaction.atomic
def seat_leave(*, table_id: int, user: User) -> None:
    """Stand up between hands (leaving during a hand is an escape: ``hand_leave``)."""
    table = _lock_table(table_id)
    seat = _seat_of_user(table, user)
    if _hand_on(table):
        raise ApplicationError("hand_in_progress")
    _free_seat(seat)
    _table_changed(table, f"{user} leaves seat {seat.index}")


@transaction.atomic
def seat_fill_bot(*, table_id: int, user: User, index: int) -> Seat:
    """Put a bot in an empty seat of a casual table (a seated player or the creator may)."""
    table = _lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    if table.ranked:
        raise ApplicationError("ranked_no_bots")
    if not 0 <= index < SEATS:
        raise ApplicationError("invalid_seat")
    seats = _locked_seats(table)
    if table.creator_id != user.pk and all(s.user_id != user.pk for s in seats):
        raise ApplicationError("not_allowed")
    seat = seats[index]
    if seat.user_id is not None or seat.bot or _hand_on(table):
        raise ApplicationError("seat_taken")
    seat.bot = True
    seat.ready = True
    seat.save()
    _table_changed(table, f"a bot sits at seat {index}")
    _start_if_all_ready(table, seats)
    return seat


@transaction.atomic
def seat_ready(*, table_id: int, user: User, ready: bool = True) -> Hand | None:
    """Press ready; when all four are ready the next hand starts."""
    table = _lock_table(table_id)
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    seats = _locked_seats(table)
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        raise ApplicationError("not_seated")
    seat.ready = ready
    seat.save(update_fields=["ready"])
    _table_changed(table, None)
    return _start_if_all_ready(table, seats)


def _seat_of_user(table: Table, user: User) -> Seat:
    seat = Seat.objects.select_for_update().filter(table=table, user=user).first()
    if seat is None:
        raise ApplicationError("not_seated")
    return seat


def _free_seat(seat: Seat) -> None:
    seat.user = None
    seat.ready = False
    seat.bot = False
    seat.disconnected_at = None
    seat.connected = False
    seat.show_hand_to_spectators = False
    seat.save()
    SeatConnection.objects.filter(seat=seat).delete()


def _table_changed(table: Table, line: str | None) -> None:
    if line:
        ChatLine.objects.create(table=table, system=True, text=line[:CHAT_MAX])
    table_id = table.pk
    transaction.on_commit(lambda: realtime.table_changed(table_id, line))


# --- starting a hand -------------------------------------------------------------------------


def _start_if_all_ready(table: Table, seats: list[Seat]) -> Hand | None:
    seated = all(s.user_id is not None or s.bot for s in seats)
    humans = any(s.user_id is not None for s in seats)
    if not (seated and humans) or not all(s.ready for s in seats):
        return None
    if _hand_on(table):
        return None
    return _hand_start(table, seats)


def _rules_for(table: Table) -> dict[str, Any]:
    rules = dataclasses.replace(
        preset(table.preset),
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
    _table_changed(table, f"hand {hand.number} of match {match.pk} starts")
    _after_change(hand, state, now, seats)
    return hand


# --- acting in a hand ------------------------------------------------------------------------


def _lock_hand(hand_id: int) -> Hand:
    """Lock the hand's table, then the hand: every service takes its locks in the order
    Table → Hand → Seats (by index) → ladder rows, so no two of them can deadlock."""
    table_id = Hand.objects.filter(pk=hand_id).values_list("match__table_id", flat=True).first()
    if table_id is None:
        raise ApplicationError("not_found")
    _lock_table(table_id)
    return (
        Hand.objects.select_for_update(of=("self",)).select_related("match__table").get(pk=hand_id)
    )


def _hand_seats(hand: Hand) -> list[Seat]:
    return list(Seat.objects.raw(_SEATS_LOCK, [hand.match.table_id]))


def _seat_in_hand(hand: Hand, user: User) -> int:
    player = HandPlayer.objects.filter(hand=hand, user=user).first()
    if player is None:
        raise ApplicationError("not_seated")
    return player.seat


def _check_fresh(hand: Hand, seq: int) -> None:
    """A stale or repeated message is refused. Only the deal's own draws do not make a view
    stale: a bid made while cards arrive still stands (docs/PROTOCOL.md)."""
    if seq == hand.seq:
        return
    if seq > hand.seq or seq < 0:
        raise ApplicationError("stale_seq")
    newer = Action.objects.filter(hand=hand, seq__gte=seq).exclude(text="draw")
    if newer.exists():
        raise ApplicationError("stale_seq")


def hand_act(*, hand_id: int, user: User, text: str, seq: int) -> Hand:
    """Apply one action of the user's seat, made on the view numbered ``seq``."""
    return _wrapped_up(_hand_act(hand_id=hand_id, user=user, text=text, seq=seq))


@transaction.atomic
def _hand_act(*, hand_id: int, user: User, text: str, seq: int) -> Hand:
    """Apply one action of the user's seat, made on the view numbered ``seq``."""
    hand = _lock_hand(hand_id)
    if hand.status != Hand.Status.PLAYING:
        raise ApplicationError("no_hand")
    seat = _seat_in_hand(hand, user)
    _check_fresh(hand, seq)
    return _act(hand, _hand_seats(hand), seat, text, db_now())


def table_act(*, table_id: int, user: User, kind: str, cards: str, seq: int) -> Hand:
    """A seated player's ``kind`` (bid, bury, play) of ``cards`` in the table's hand in
    progress, made on the view numbered ``seq`` (the socket's path)."""
    hand = _table_act(table_id=table_id, user=user, kind=kind, cards=cards, seq=seq)
    if hand.awaiting_wrap_up:
        # In the worker, not here: the settlement's tens of milliseconds of Python would hold
        # the interpreter lock that every socket of this server process waits for.
        hand_id = hand.pk
        transaction.on_commit(lambda: realtime.schedule_wrap_up(hand_id))
    return hand


@transaction.atomic
def _table_act(*, table_id: int, user: User, kind: str, cards: str, seq: int) -> Hand:
    """A seated player's ``kind`` (bid, bury, play) of ``cards`` in the table's hand in
    progress, made on the view numbered ``seq``: the socket's path, which finds the hand, the
    user's seat in it and the database's clock in the statement that locks the hand (the
    fewest round trips on the busiest path)."""
    table = _lock_table(table_id)
    hand = _lock_playing_hand(table, user)
    if hand is None:
        seated = user.pk is not None and table.seats.filter(user=user).exists()
        raise ApplicationError("no_hand" if seated else "not_seated")
    seats = _hand_seats(hand)
    seat = next((s.index for s in seats if user.pk is not None and s.user_id == user.pk), None)
    if seat is None or hand.player_seat != seat:  # type: ignore[attr-defined]
        raise ApplicationError("not_seated")
    _check_fresh(hand, seq)
    now: datetime = hand.db_now  # type: ignore[attr-defined]
    return _act(hand, seats, seat, f"{kind} {seat} {cards}", now)


def _act(hand: Hand, seats: list[Seat], seat: int, text: str, now: datetime) -> Hand:
    state = load_state(hand)
    throws_before = len(state.failed_throws)
    logged = _catch_up_deal(hand, state, now)
    if state.phase == BIDDING and hand.deadline is not None and hand.deadline <= now:
        raise ApplicationError("wrong_phase", "the bid window has closed")
    try:
        action = state.check_action(seat, text)
        state.apply(action, seat)
    except ShengjiError as error:
        raise ApplicationError.from_engine(error) from None
    logged.append((seat, str(action), False))
    _log_actions(hand, logged)
    _system_lines(hand, state, logged, throws_before)
    _after_change(hand, state, now, seats)
    return hand


def hand_check(*, hand_id: int, user: User, text: str) -> None:
    """Raise the reason ``text`` would be refused now, without changing anything."""
    hand = Hand.objects.select_related("match__table").filter(pk=hand_id).first()
    if hand is None or hand.status != Hand.Status.PLAYING:
        raise ApplicationError("no_hand")
    seat = _seat_in_hand(hand, user)
    state = load_state(hand)
    _catch_up_deal(hand, state, db_now())  # on this copy only: the cards due by now count
    try:
        state.check_action(seat, text)
    except ShengjiError as error:
        raise ApplicationError.from_engine(error) from None


def hand_leave(*, hand_id: int, user: User) -> Hand:
    """Choosing to leave a hand in progress: an escape (RULES.md §7)."""
    return _wrapped_up(_hand_leave(hand_id=hand_id, user=user))


@transaction.atomic
def _hand_leave(*, hand_id: int, user: User) -> Hand:
    """Choosing to leave a hand in progress: an escape (RULES.md §7)."""
    hand = _lock_hand(hand_id)
    if hand.status != Hand.Status.PLAYING:
        raise ApplicationError("no_hand")
    seat = _seat_in_hand(hand, user)
    seats = _hand_seats(hand)
    if seats[seat].user_id != user.pk:  # removed by an admin: not theirs to leave any more
        raise ApplicationError("not_seated")
    state = load_state(hand)
    action = f"leave {seat}"
    state.apply(action, seat)
    _log_actions(hand, [(seat, action, False)])
    _after_change(hand, state, db_now(), seats)
    return hand


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
    wrapped up."""
    run, hand = _deadline_run(hand_id=hand_id, seq=seq, due=due)
    if hand is not None:
        _wrapped_up(hand)
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
    hand = _lock_hand(hand_id)
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


def _rearm(hand: Hand) -> DeadlineRun:
    assert hand.deadline is not None
    hand.timer_seq, hand.timer_at = hand.seq, hand.deadline
    hand.save(update_fields=["timer_seq", "timer_at"])
    hand_id, seq, due = hand.pk, hand.seq, hand.deadline
    transaction.on_commit(lambda: realtime.schedule_deadline(hand_id, seq, due))
    return DeadlineRun("rearmed", seq)


def _advance(hand: Hand, now: datetime) -> None:
    """The deadline's move: the next cards of the deal, the bots' bids and the close of the
    bidding, or the bot's bury or play for the seat in turn."""
    seats = _hand_seats(hand)
    state = load_state(hand)
    throws_before = len(state.failed_throws)
    logged = _catch_up_deal(hand, state, now)
    if state.phase in (DEALING, BIDDING) and logged:  # cards arrived: bots may bid on them
        logged += _bot_bids(state, seats)
    elif state.phase == BIDDING:
        logged += _bot_bids(state, seats)
        state.apply("close")
        logged.append((None, "close", False))
        if state.phase == DEALING:  # a redeal (RULES.md §5.2 no_bid = redeal)
            hand.deal_started_at = now
    elif state.phase in (BURYING, PLAYING) and not logged:
        seat = state.to_act
        assert seat is not None
        text = bot_move(state, seat)
        state.apply(text)
        logged.append((seat, text, True))
    _log_actions(hand, logged)
    _system_lines(hand, state, logged, throws_before)
    _after_change(hand, state, now, seats)


def _catch_up_deal(
    hand: Hand, state: HandState, now: datetime
) -> list[tuple[int | None, str, bool]]:
    """Apply the draws due by ``now``: card k arrives k × interval after the deal starts."""
    if state.phase != DEALING or hand.deal_started_at is None:
        return []
    interval = state.rules.deal_interval_ms
    elapsed_ms = (now - hand.deal_started_at).total_seconds() * 1000
    due = DRAWS if interval == 0 else min(DRAWS, math.floor(elapsed_ms / interval) + 1)
    logged: list[tuple[int | None, str, bool]] = []
    while state.phase == DEALING and state.drawn < due:
        state.apply("draw")
        logged.append((None, "draw", False))
    return logged


def _bot_bids(state: HandState, seats: list[Seat]) -> list[tuple[int | None, str, bool]]:
    logged: list[tuple[int | None, str, bool]] = []
    for seat in seats:
        if seat.bot:
            text = bot_bid(state, seat.index)
            if text is not None:
                state.apply(text, seat.index)
                logged.append((seat.index, text, True))
    return logged


def _log_actions(hand: Hand, logged: list[tuple[int | None, str, bool]]) -> None:
    first = hand.seq
    Action.objects.bulk_create(
        [
            Action(hand=hand, seq=first + i, seat=seat, text=text, auto=auto)
            for i, (seat, text, auto) in enumerate(logged)
        ]
    )
    hand.seq = first + len(logged)


def _system_lines(
    hand: Hand, state: HandState, logged: list[tuple[int | None, str, bool]], throws_before: int
) -> None:
    """Chat lines everyone may read: bids and failed throws (never a hidden card)."""
    lines = [
        f"seat {seat} bids {text.split(' ', 2)[2]}"
        for seat, text, _ in logged
        if text.startswith("bid ")
    ]
    for failed in state.failed_throws[throws_before:]:
        shown = failed.to_dict()
        if failed.result == "forced":
            lines.append(
                f"seat {failed.seat}'s throw {shown['attempted']} fails: "
                f"{shown['played']} is played instead"
            )
        else:
            lines.append(f"seat {failed.seat}'s throw fails and is taken back")
    for line in lines:
        system_line(hand.match.table_id, line)


def system_line(table_id: int, text: str) -> None:
    line = ChatLine.objects.create(table_id=table_id, system=True, text=text[:CHAT_MAX])
    payload = {"user": None, "text": line.text, "system": True, "at": line.created_at.isoformat()}
    transaction.on_commit(lambda: realtime.chat(table_id, payload))


def _count_turns(hand: Hand) -> None:
    """Each seat's plays (and bury) and how many of them the bot made, from the log, once the
    hand has ended (the ladder's rating and the replay read them; nothing does before)."""
    counts = (
        Action.objects.filter(hand=hand, seat__isnull=False)
        .filter(Q(text__startswith="play") | Q(text__startswith="bury"))
        .values("seat")
        .annotate(turns=Count("pk"), auto_turns=Count("pk", filter=Q(auto=True)))
    )
    for row in counts:
        HandPlayer.objects.filter(hand=hand, seat=row["seat"]).update(
            turns=row["turns"], auto_turns=row["auto_turns"]
        )


def _next_deadline(hand: Hand, state: HandState, now: datetime, seats: list[Seat]) -> datetime:
    rules = state.rules
    interval = timedelta(milliseconds=rules.deal_interval_ms)
    started = hand.deal_started_at or now
    if state.phase == DEALING:
        return started + interval * min(state.drawn + DRAW_BATCH - 1, DRAWS - 1)
    if state.phase == BIDDING:
        return started + interval * (DRAWS - 1) + timedelta(seconds=rules.bid_window_s)
    seat = state.to_act
    assert seat is not None
    if seats[seat].bot:
        return now + bot_delay()
    limit = rules.bury_s if state.phase == BURYING else rules.play_s
    return now + timedelta(seconds=limit)


# What a hand's moves change; the rest of the row (rules, seed, dealer, levels) is fixed when
# the hand starts.
HAND_MOVING_FIELDS = [
    "seq",
    "deal_started_at",
    "snapshot",
    "deadline",
    "timer_seq",
    "timer_at",
    "status",
    "result",
    "finished_at",
    "awaiting_wrap_up",
]


def _after_change(hand: Hand, state: HandState, now: datetime, seats: list[Seat]) -> None:
    """Save the hand after its state moved; send views (and a deadline task if one is
    needed) on commit."""
    if state.phase == FINISHED:
        _finish_hand(hand, state, now)
    else:
        hand.deadline = _next_deadline(hand, state, now, seats)
    timer = _timer_to_send(hand, now)
    hand.snapshot = public_summary(state, hand.deadline)
    hand.save(update_fields=HAND_MOVING_FIELDS)
    hand_id, seq, table_id = hand.pk, hand.seq, hand.match.table_id
    views = [view_for(state, seat) for seat in range(SEATS)]
    public = state.view_public()
    occupants = [seat.user_id for seat in seats]
    watchable = [seat.show_hand_to_spectators and not hand.match.table.ranked for seat in seats]

    def publish() -> None:
        from games.handstate import remember_state

        remember_state(hand_id, state)
        realtime.hand_changed(table_id, hand_id, seq, views, public, occupants, watchable)
        if timer is not None:
            realtime.schedule_deadline(hand_id, *timer)

    transaction.on_commit(publish)


def _timer_to_send(hand: Hand, now: datetime) -> tuple[int, datetime] | None:
    """The deadline task this change must send, as (seq, due), or None when the task in
    flight is due no later than the new deadline and has not come yet: it will find the
    deadline moved on and send itself again for it (``deadline_run``). A player's move moves
    the deadline later, so a table sends one task per clock period instead of one per move.

    A task past its due time may be running now, or lost (the sweeper sends lost ones): a new
    one is sent, and the old one, no longer the timer, does nothing when it runs."""
    if hand.deadline is None:
        hand.timer_seq = hand.timer_at = None
        return None
    pending = hand.timer_at
    if hand.timer_seq is not None and pending is not None and now <= pending <= hand.deadline:
        return None
    hand.timer_seq, hand.timer_at = hand.seq, hand.deadline
    return hand.seq, hand.deadline


def _finish_hand(hand: Hand, state: HandState, now: datetime) -> None:
    """The hand's last move: its result. The rest (settlement, match, seats, the table) is
    ``hand_wrap_up``'s, in a transaction of its own right after this one commits, so the last
    move's views go out as fast as any other's."""
    result = state.result
    assert result is not None
    hand.result = result.to_dict()
    hand.status = Hand.Status.ESCAPED if result.escaper is not None else Hand.Status.FINISHED
    hand.finished_at = now
    hand.deadline = None
    hand.awaiting_wrap_up = True


def _wrapped_up(hand: Hand) -> Hand:
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
    hand = _lock_hand(hand_id)
    if not hand.awaiting_wrap_up:
        return False
    seats = _hand_seats(hand)
    result = hand.result
    assert result is not None and hand.finished_at is not None
    _count_turns(hand)
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
    _table_changed(table, _result_line(hand, result))
    if table.status == Table.Status.OPEN:
        # Players who pressed ready before the wrap-up found the table still playing.
        _start_if_all_ready(table, seats)
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
            _free_seat(seat)
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
    from ladder.services import ladder_settle_hand

    ladder_settle_hand(hand_id=hand.pk)


def _result_line(hand: Hand, result: dict[str, Any]) -> str:
    if result["escaper"] is not None:
        return f"hand {hand.number}: seat {result['escaper']} escaped"
    return (
        f"hand {hand.number}: attackers {result['attacker_points']} points, "
        f"{result['winner']} +{result['levels_gained']}"
    )


# --- connections, takeovers ------------------------------------------------------------------


def _lock_current_hand(table: Table) -> Hand | None:
    hand = current_hand(table)
    return None if hand is None else _lock_hand(hand.pk)


@transaction.atomic
def seat_connected(*, table_id: int, user: User, channel_name: str) -> bool:
    """A socket of a seated player opened; returns whether the player took the seat back."""
    table = _lock_table(table_id)
    hand = _lock_current_hand(table)
    seats = _locked_seats(table)
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
        _table_changed(table, f"{user} is back at seat {seat.index}")
        if hand is not None:
            state = load_state(hand)
            if state.to_act == seat.index:  # the bot was about to move: normal time again
                _after_change(hand, state, db_now(), seats)
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
    _lock_table(table_id)
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
    table = _lock_table(table_id)
    hand = _lock_current_hand(table)
    seats = _locked_seats(table)
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
    _table_changed(table, f"the bot plays seat {seat.index} for {seat.user}")
    if hand is not None:
        state = load_state(hand)
        if state.to_act == seat.index:
            _after_change(hand, state, db_now(), seats)
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


def hands_overdue(*, grace_ms: int = 500) -> QuerySet[Hand]:
    cutoff = db_now() - timedelta(milliseconds=grace_ms)
    return Hand.objects.filter(status=Hand.Status.PLAYING, deadline__lt=cutoff)


# --- chat ------------------------------------------------------------------------------------


def _clean_chat(text: str) -> str:
    cleaned = "".join(ch for ch in str(text) if ch.isprintable()).strip()
    if not cleaned:
        raise ApplicationError("chat_empty")
    if len(cleaned) > CHAT_MAX:
        raise ApplicationError("chat_too_long")
    return cleaned


@transaction.atomic
def chat_post(*, table_id: int, user: User, text: str) -> ChatLine:
    if not user.is_authenticated:
        raise ApplicationError("login_required")
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise ApplicationError("not_found")
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    cleaned = _clean_chat(text)
    ratelimits.chat_line_check(user_id=user.pk)  # per user over all tables and sockets
    line = ChatLine.objects.create(table=table, user=user, text=cleaned)
    payload = {
        "user": str(user),
        "text": line.text,
        "system": False,
        "at": line.created_at.isoformat(),
    }
    transaction.on_commit(lambda: realtime.chat(table_id, payload))
    return line


# --- admin -----------------------------------------------------------------------------------


@transaction.atomic
def table_close(*, table_id: int, actor: User, reason: str = "") -> Table:
    """Close a table; a hand in progress is void: no points move, and it is recorded so."""
    table = _lock_table(table_id)
    hand = _lock_current_hand(table)
    now = db_now()
    if hand is not None:
        hand.status = Hand.Status.VOID
        hand.result = {"outcome": "void", "reason": reason}
        hand.finished_at = now
        hand.deadline = None
        hand.save()
        _count_turns(hand)
    table.matches.filter(ended_at__isnull=True).update(ended_at=now)
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status"])
    for seat in _locked_seats(table):
        _free_seat(seat)
    AdminLog.objects.create(
        actor=actor,
        table=table,
        action="table_close",
        detail={"reason": reason, "void_hand": None if hand is None else hand.pk},
    )
    _table_changed(table, "the table was closed by an admin")
    return table


@transaction.atomic
def seat_remove(*, table_id: int, index: int, actor: User, reason: str = "") -> Seat:
    """Remove a player from a seat. Not an escape: during a hand the bot finishes it for the
    seat, and the player is settled as if present (docs/PROTOCOL.md)."""
    table = _lock_table(table_id)
    if not 0 <= index < SEATS:
        raise ApplicationError("invalid_seat")
    hand = _lock_current_hand(table)
    seats = _locked_seats(table)
    seat = seats[index]
    removed = seat.user_id
    _free_seat(seat)
    if hand is not None:
        seat.bot = True
        seat.save(update_fields=["bot"])
        state = load_state(hand)
        if state.to_act == index:  # the bot moves for the seat now, not at the human deadline
            _after_change(hand, state, db_now(), seats)
    AdminLog.objects.create(
        actor=actor,
        table=table,
        action="seat_remove",
        detail={"seat": index, "user": removed, "reason": reason},
    )
    _table_changed(table, f"an admin removed the player at seat {index}")
    return seat


def playing_hand_id(*, table_id: int) -> int | None:
    return (
        Hand.objects.filter(match__table_id=table_id, status=Hand.Status.PLAYING)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )


@transaction.atomic
def seat_show_hand(*, table_id: int, user: User, allow: bool) -> Seat:
    """A player at a casual table lets spectators watching the seat see its hand, or not."""
    table = _lock_table(table_id)
    seat = _seat_of_user(table, user)
    if table.ranked and allow:
        raise ApplicationError("not_allowed", "at ranked tables spectators see the public view")
    seat.show_hand_to_spectators = allow
    seat.save(update_fields=["show_hand_to_spectators"])
    _table_changed(table, None)
    return seat
