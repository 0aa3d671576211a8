"""Regression tests named after the bugs a review of the live tables found."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from accounts.errors import ApplicationError
from games import services
from games.handstate import load_state
from games.models import Action, Hand, Seat
from shengji.engine import legal_actions
from tests.games.helpers import (
    act_as_bot_would,
    advance,
    deal_and_close,
    fresh,
    hand_act,
    make_table,
    make_users,
    play_out,
    seat_all,
)

pytestmark = pytest.mark.django_db


def test_regression_admin_could_filter_live_hands_by_seed_and_read_the_bury() -> None:
    users = make_users()
    hand = deal_and_close(seat_all(make_table(users[0]), users))
    act_as_bot_would(hand, users)  # the bury, in the log of a hand still played
    staff = make_users(1, prefix="staff")[0]
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client = Client()
    client.force_login(staff)
    query: dict[str, str | int] = {"status__exact": "playing", "seed__lt": 2**62}
    probe = client.get("/admin/games/hand/", query, secure=True)
    assert probe.status_code == 400
    log = client.get("/admin/games/action/", secure=True)
    assert log.status_code == 200
    assert b"bury " not in log.content


def test_regression_a_removed_player_left_a_dead_bot_seat_and_could_still_escape() -> None:
    users, admin = make_users(), make_users(1, prefix="admin")[0]
    table = make_table(users[0])
    hand = deal_and_close(seat_all(table, users))
    services.seat_remove(table_id=table.pk, index=2, actor=admin, reason="abuse")
    with pytest.raises(ApplicationError) as refused:
        services.hand_leave(hand_id=hand.pk, user=users[2])
    assert refused.value.code == "not_seated"
    while fresh(hand).status == Hand.Status.PLAYING:
        state = load_state(fresh(hand))
        if state.to_act == 2:
            deadline = fresh(hand).deadline
            assert deadline is not None
            Hand.objects.filter(pk=hand.pk).update(deadline=deadline - timedelta(days=1))
            assert advance(hand)
        else:
            act_as_bot_would(hand, users)
    assert fresh(hand).status == Hand.Status.FINISHED
    seat = Seat.objects.get(table=table, index=2)
    assert seat.user is None and not seat.bot
    newcomer = make_users(1, prefix="new")[0]
    services.seat_take(table_id=table.pk, user=newcomer, index=2)


def test_regression_a_bot_could_reopen_a_closed_table() -> None:
    (user,) = make_users(1)
    admin = make_users(1, prefix="admin")[0]
    table = make_table(user, ranked=False, preset_name="seed000")
    services.table_close(table_id=table.pk, actor=admin)
    with pytest.raises(ApplicationError) as refused:
        services.seat_fill_bot(table_id=table.pk, user=user, index=0)
    assert refused.value.code == "table_closed"


def test_regression_four_bots_and_no_player_started_a_hand() -> None:
    (user,) = make_users(1)
    table = make_table(user, ranked=False, preset_name="seed000")
    for index in range(4):
        services.seat_fill_bot(table_id=table.pk, user=user, index=index)
    assert not Hand.objects.filter(match__table=table).exists()


def test_regression_a_player_away_at_the_end_kept_the_seat_under_seed004() -> None:
    users = make_users()
    table = make_table(users[0], ranked=False, preset_name="seed004")
    hand = seat_all(table, users)
    services.seat_connected(table_id=table.pk, user=users[1], channel_name="socket-1")
    seat = services.seat_disconnected(channel_name="socket-1")
    assert seat is not None and seat.disconnected_at is not None
    services.seat_takeover(seat_id=seat.pk, since=seat.disconnected_at.isoformat())
    hand = play_out(deal_and_close(hand), users)
    assert Seat.objects.get(table=table, index=1).user is None
    assert fresh(hand).match.ended_at is not None


def test_regression_a_bid_after_the_window_counted_when_the_close_ran_late() -> None:
    users = make_users()
    table = make_table(users[0], bid_window_seconds=60)
    hand = seat_all(table, users)
    assert advance(hand)
    hand = fresh(hand)
    state = load_state(hand)
    bids = [(seat, b) for seat in range(4) for b in legal_actions(state, seat)]
    assert bids
    assert hand.deadline is not None
    Hand.objects.filter(pk=hand.pk).update(deadline=hand.deadline - timedelta(minutes=5))
    seat, bid = bids[0]
    with pytest.raises(ApplicationError) as refused:
        hand_act(hand_id=hand.pk, user=users[seat], text=str(bid), seq=hand.seq)
    assert refused.value.code == "wrong_phase"
    assert not Action.objects.filter(hand=hand, text=str(bid)).exists()
