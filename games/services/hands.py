"""Acting in a hand: a player's bid, bury or play (by the hand, or by the table: the socket's
path), checking one without making it, the basic bot's hint, and leaving the hand (an escape).
A move that ends the hand has it wrapped up after its commit. A player who acts while on
autopilot (托管) turns it off."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from accounts.errors import ApplicationError
from accounts.models import User
from games import realtime
from games.autoplay import bot_hint
from games.handstate import load_state
from games.models import Action, Hand, HandPlayer, Seat
from games.services._common import db_now, hand_seats, lock_hand, lock_playing_hand, lock_table
from games.services._moves import (
    after_change,
    before_change,
    catch_up_deal,
    log_actions,
    system_lines,
)
from games.services.autopilot import autopilot_stop
from games.services.movefacts import facts_of, remember_facts
from games.services.wrap_up import wrapped_up
from shengji.engine import HandState, ShengjiError
from shengji.engine.actions import CALL
from shengji.engine.actions import Action as EngineAction
from shengji.engine.cards import Card
from shengji.engine.friends import FriendCall, format_call, held_calls
from shengji.engine.hand import BIDDING


def playing_hand_id(*, table_id: int) -> int | None:
    return (
        Hand.objects.filter(match__table_id=table_id, status=Hand.Status.PLAYING)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )


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


def table_act(*, table_id: int, user: User, kind: str, cards: str, seq: int) -> Hand:
    """A seated player's ``kind`` (bid, call, bury, play, takeback) of ``cards`` in the table's
    hand in progress, made on the view numbered ``seq`` (the socket's path; a call's ``cards``
    are its calls, "2AS 1KH"; a takeback has none)."""
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
    table = lock_table(table_id)
    hand = lock_playing_hand(table, user)
    if hand is None:
        seated = user.pk is not None and table.seats.filter(user=user).exists()
        raise ApplicationError("no_hand" if seated else "not_seated")
    seats = hand_seats(hand)
    seat = next((s.index for s in seats if user.pk is not None and s.user_id == user.pk), None)
    if seat is None or hand.player_seat != seat:  # type: ignore[attr-defined]
        raise ApplicationError("not_seated")
    _check_fresh(hand, seq)
    now: datetime = hand.db_now  # type: ignore[attr-defined]
    _act(hand, seats, seat, f"{kind} {seat} {cards}".rstrip(), now)
    # What the next move of this table may be made against in one statement (optimistic.py).
    facts = facts_of(hand, seats, table.ranked)
    transaction.on_commit(lambda: remember_facts(table_id, facts))
    return hand


def _act(hand: Hand, seats: list[Seat], seat: int, text: str, now: datetime) -> Hand:
    state = load_state(hand)
    before = before_change(state)
    logged = catch_up_deal(hand, state, now)
    if state.phase == BIDDING and hand.deadline is not None and hand.deadline <= now:
        raise ApplicationError("wrong_phase", _("the bid window has closed"))
    try:
        action = state.check_action(seat, text)
        state.apply(action, seat)
    except ShengjiError as error:
        raise ApplicationError.from_engine(error) from None
    logged.append((seat, str(action), False))
    autopilot_stop(hand.match.table, seats[seat])
    prev = log_actions(hand, logged)
    system_lines(hand, state, logged, before)
    after_change(hand, state, now, seats, prev=prev)
    return hand


@dataclass(frozen=True)
class CheckWarning:
    """An action that would be accepted, with something its player should know first: in
    找朋友 a call of a card the dealer holds (``call_held``, ``call_held_all``;
    ENGINE-PART2-DECISIONS.md F13). ``call`` is the call ("2AS"), ``held`` the copies held."""

    code: str
    call: str
    held: int


def hand_check(*, hand_id: int, user: User, text: str) -> CheckWarning | None:
    """Raise the reason ``text`` would be refused now, without changing anything; else the
    first warning it deserves (``CheckWarning``), or None."""
    hand = Hand.objects.select_related("match__table").filter(pk=hand_id).first()
    if hand is None or hand.status != Hand.Status.PLAYING:
        raise ApplicationError("no_hand")
    seat = _seat_in_hand(hand, user)
    state = load_state(hand)
    catch_up_deal(hand, state, db_now())  # on this copy only: the cards due by now count
    try:
        action = state.check_action(seat, text)
    except ShengjiError as error:
        raise ApplicationError.from_engine(error) from None
    return _call_warning(state, action)


def _call_warning(state: HandState, action: EngineAction) -> CheckWarning | None:
    """A call naming a card of the dealer's hand (the hand as it is now, the kitty taken):
    allowed, with what it means (``friends.held_calls``)."""
    if action.kind != CALL or action.seat is None:
        return None
    calls = [FriendCall(Card(c), n) for c, n in zip(action.cards, action.ordinals, strict=True)]
    held = held_calls(calls, state.hands[action.seat], state.decks)
    if not held:
        return None
    first = held[0]
    return CheckWarning(first.code, format_call(first.call), first.held)


def table_hint(*, table_id: int, user: User) -> tuple[str, str]:
    """What the basic bot would do now for the user's seat in the table's hand in progress, as
    (``bid`` | ``call`` | ``bury`` | ``play`` | ``none``, cards; a call's cards are its calls,
    "2AS 1KH"): decided from the seat's own view and the
    public history only (``bot_hint``). Changes nothing."""
    hand = (
        Hand.objects.filter(match__table_id=table_id, status=Hand.Status.PLAYING)
        .order_by("-pk")
        .first()
    )
    if hand is None:
        raise ApplicationError("no_hand")
    seat = _seat_in_hand(hand, user)
    state = load_state(hand)
    catch_up_deal(hand, state, db_now())  # on this copy only: the cards due by now count
    return bot_hint(state, seat)


def hand_leave(*, hand_id: int, user: User) -> Hand:
    """Choosing to leave a hand in progress: an escape (RULES-SPEC.md §7)."""
    return wrapped_up(_hand_leave(hand_id=hand_id, user=user))


@transaction.atomic
def _hand_leave(*, hand_id: int, user: User) -> Hand:
    """Choosing to leave a hand in progress: an escape (RULES-SPEC.md §7)."""
    hand = lock_hand(hand_id)
    if hand.status != Hand.Status.PLAYING:
        raise ApplicationError("no_hand")
    seat = _seat_in_hand(hand, user)
    seats = hand_seats(hand)
    if seats[seat].user_id != user.pk:  # removed by an admin: not theirs to leave any more
        raise ApplicationError("not_seated")
    state = load_state(hand)
    action = f"leave {seat}"
    state.apply(action, seat)
    prev = log_actions(hand, [(seat, action, False)])
    after_change(hand, state, db_now(), seats, prev=prev)
    return hand
