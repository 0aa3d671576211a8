"""Issue 34, finding 2: 托管 on then off restarted the turn's clock (the audit stalled a ranked
hand for 76 s by toggling every ≤ 19 s). No action of a player moves a deadline later than the
turn's start plus the table's time (docs/PROTOCOL.md, "Time")."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

import pytest

from accounts.models import User
from games import services
from games.handstate import load_state
from games.models import Action, Hand
from shengji.engine import legal_actions
from tests.games.helpers import (
    advance,
    deal_and_close,
    fresh,
    hand_act,
    make_users,
    ranked_table,
    ready_all,
)

pytestmark = pytest.mark.django_db

BURY_S = 2
PLAY_S = 2


def turn_start(hand: Hand) -> datetime:
    """When the turn in play began: the log's last move (the one that gave the seat its turn)."""
    return Action.objects.get(hand=hand, seq=hand.seq - 1).created_at


def to_act(hand: Hand, users: list[User]) -> User:
    seat = load_state(fresh(hand)).to_act
    assert seat is not None
    return users[seat]


def toggle_for(hand: Hand, user: User, seconds: float, limit_s: int) -> int:
    """托管 on then off, again and again for ``seconds`` (as the audit did, faster): after each
    toggle the deadline is no later than the turn's start plus the table's time. Returns the
    toggles made."""
    table_id = hand.match.table_id
    hand = fresh(hand)
    latest = turn_start(hand) + timedelta(seconds=limit_s)
    first = hand.deadline
    assert first is not None and first <= latest
    toggles = 0
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        for on in (True, False):
            services.seat_autopilot(table_id=table_id, user=user, on=on)
            toggles += 1
            deadline = fresh(hand).deadline
            assert deadline is not None and deadline <= latest, (toggles, deadline, latest)
        time.sleep(0.25)
    return toggles


def test_regression_autopilot_on_then_off_restarted_the_turns_clock(settings: Any) -> None:
    """A ranked hand: the dealer toggles 托管 through the bury and then the first player to
    lead through their play; each time the turn still ends on time and the bot moves for
    them at its deadline (the hand is never stalled)."""
    settings.SHENGJI_BOT_DELAY_MS = 1500
    users = make_users()
    table = ranked_table(users, play_seconds=PLAY_S, bury_seconds=BURY_S)
    hand = deal_and_close(ready_all(table, users))
    assert load_state(hand).phase == "burying"

    dealer = to_act(hand, users)
    assert toggle_for(hand, dealer, BURY_S + 1, BURY_S) >= 8
    assert advance(hand), "the bury's deadline had passed: the bot buries for the dealer"
    bury = Action.objects.get(hand=hand, text__startswith="bury")
    assert bury.auto

    leader = to_act(hand, users)
    assert load_state(fresh(hand)).phase == "playing"
    seq = fresh(hand).seq
    assert toggle_for(hand, leader, PLAY_S + 1, PLAY_S) >= 8
    assert advance(hand), "the play's deadline had passed: the bot plays for the leader"
    assert Action.objects.get(hand=hand, seq=seq).auto


def test_autopilot_off_keeps_the_rest_of_the_turn_and_a_move_starts_a_new_one(
    settings: Any,
) -> None:
    settings.SHENGJI_BOT_DELAY_MS = 60_000  # the bot would not move before the test ends
    users = make_users(prefix="keeper")
    table = ranked_table(users, play_seconds=30, bury_seconds=30)
    hand = deal_and_close(ready_all(table, users))
    dealer = to_act(hand, users)
    start = turn_start(fresh(hand))
    services.seat_autopilot(table_id=table.pk, user=dealer, on=True)
    # On: the bot's deadline, but never past the turn's own end.
    assert fresh(hand).deadline == start + timedelta(seconds=30)
    services.seat_autopilot(table_id=table.pk, user=dealer, on=False)
    assert fresh(hand).deadline == start + timedelta(seconds=30)  # the rest of the turn

    # The dealer buries: the next turn has the table's whole time from that move.
    state = load_state(fresh(hand))
    assert state.to_act is not None
    bury = str(legal_actions(state, state.to_act)[0])
    hand_act(hand_id=hand.pk, user=dealer, text=bury, seq=fresh(hand).seq)
    after = fresh(hand)
    assert after.deadline is not None
    whole = turn_start(after) + timedelta(seconds=30) - after.deadline
    assert timedelta(0) <= whole < timedelta(milliseconds=100)  # the move's clock, not the log's
