"""The server's part of a hand's moments (issue 33): a turn that runs out says so in a system
line (a play with its cards, a bury without them); the next hand never starts at the wrap-up,
only after the pause, so every player sees the result; a closed table's state and page say it
is closed and nobody can sit."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.errors import ApplicationError
from games import services
from games.handstate import load_state
from games.models import Action, ChatLine, Hand, Seat, Table
from games.selectors import Presence, table_state_for
from tests.games.helpers import (
    advance,
    deal_and_close,
    fresh,
    logged_in,
    make_table,
    make_users,
    seat_all,
)
from tests.games.test_wrap_up import last_move_without_wrap_up, to_the_last_move

pytestmark = pytest.mark.django_db


def run_out_the_clock(hand: Hand) -> None:
    """The turn's deadline has passed (by the database's clock); its task runs."""
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert advance(hand)


def test_a_turn_that_runs_out_says_so_in_a_system_line_with_a_play_but_no_buried_card() -> None:
    users = make_users()
    hand = deal_and_close(seat_all(make_table(users[0]), users))
    dealer = load_state(hand).dealer
    assert dealer is not None
    run_out_the_clock(hand)  # the dealer's bury
    bury = ChatLine.objects.get(code="timeout_bury")
    assert bury.params == [dealer, users[dealer].username]  # the seat, and who sat there
    buried = Action.objects.get(hand=hand, text__startswith="bury ")
    assert buried.auto
    for card in buried.text.split()[2:]:
        assert card not in bury.text  # the kitty stays hidden

    seat = load_state(fresh(hand)).to_act
    assert seat is not None
    run_out_the_clock(hand)  # the leader's play
    played = Action.objects.filter(hand=hand, text__startswith="play ").get()
    line = ChatLine.objects.get(code="timeout_play")
    assert line.params == [seat, played.text.split(" ", 2)[2], users[seat].username]
    assert line.text == f"seat {seat}'s time ran out: the system played {line.params[1]}"


def test_a_bots_or_autopilots_move_is_no_timeout(settings: Any) -> None:
    settings.SHENGJI_BOT_DELAY_MS = 0
    users = make_users()
    table = make_table(users[0])
    hand = deal_and_close(seat_all(table, users))
    dealer = load_state(hand).dealer
    assert dealer is not None
    services.seat_autopilot(table_id=table.pk, user=users[dealer], on=True)
    run_out_the_clock(hand)  # 托管's bury at the bot's delay
    assert Action.objects.filter(hand=hand, text__startswith="bury ", auto=True).exists()
    assert not ChatLine.objects.filter(code__startswith="timeout_").exists()


def test_the_next_hand_waits_the_pause_even_when_all_pressed_ready_during_the_hand(
    settings: Any,
) -> None:
    """Issue 33, point 2: four players who pressed ready before the wrap-up found the table
    playing used to get the next deal at the wrap-up, their result never shown."""
    settings.SHENGJI_NEXT_HAND_PAUSE_S = 30
    users = make_users()
    hand = last_move_without_wrap_up(to_the_last_move(users), users)
    table = hand.match.table
    for user in users:  # the table is still playing: a ready waits for the wrap-up
        assert services.seat_ready(table_id=table.pk, user=user) is None
    assert services.hand_wrap_up(hand_id=hand.pk) is True
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN
    assert Seat.objects.filter(table=table, ready=True).count() == 4
    assert not Hand.objects.filter(match__table=table, number=2).exists()  # not at the wrap-up
    assert services.table_start_due(table_id=table.pk) is None  # nor before the pause ends
    ended = fresh(hand).finished_at
    assert ended is not None
    Hand.objects.filter(pk=hand.pk).update(finished_at=ended - timedelta(seconds=31))
    assert services.table_start_due(table_id=table.pk) is not None


def test_the_state_gives_the_hands_end_for_the_countdown() -> None:
    users = make_users()
    table = make_table(users[0])
    hand = seat_all(table, users)
    head = table_state_for(presence=Presence(table.pk, 0, None))["hand"]
    assert head["finished_at"] is None
    Hand.objects.filter(pk=hand.pk).update(finished_at=timezone.now())
    head = table_state_for(presence=Presence(table.pk, 0, None))["hand"]
    assert head["finished_at"] == fresh(hand).finished_at.isoformat()  # type: ignore[union-attr]


def test_a_closed_table_says_so_in_its_state_and_page_and_nobody_sits() -> None:
    users = make_users(5)
    table = make_table(users[0])
    seat_all(table, users[:4])
    services.table_close(table_id=table.pk, actor=users[4], reason="test")
    state = table_state_for(presence=Presence(table.pk, None, None))
    assert state["table"]["status"] == "closed"
    assert all(s["user"] is None and not s["bot"] for s in state["seats"])
    with pytest.raises(ApplicationError) as refused:
        services.seat_take(table_id=table.pk, user=users[4], index=0)
    assert refused.value.code == "table_closed"
    page = logged_in(users[4]).get(f"/tables/{table.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = page.content.decode()
    assert 'id="table-closed" class="tbl-closed" role="alert">' in html  # shown, not hidden
    assert "这张桌已关闭" in html
    assert 'id="invite"' not in html
