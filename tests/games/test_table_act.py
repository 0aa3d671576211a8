"""table_act, the socket's path for bids, buries and plays: it finds the table's hand
and the user's seat in the transaction that acts, and refuses anyone but the seat's player."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.errors import ApplicationError
from accounts.models import User
from games import services
from games.handstate import load_state
from games.models import Action, Hand
from games.services.hands import table_act
from shengji.engine import legal_actions
from shengji_site.embedded import free_port
from tests.games.helpers import deal_and_close, fresh, make_table, make_users, seat_all

pytestmark = pytest.mark.django_db


def turn(hand: Hand) -> tuple[int, str, str, int]:
    """The seat in turn, its first legal action's kind and cards, and the hand's seq."""
    hand = fresh(hand)
    state = load_state(hand)
    seat = state.to_act
    assert seat is not None
    kind, _seat, cards = str(legal_actions(state, seat)[0]).split(" ", 2)
    return seat, kind, cards, hand.seq


def test_the_seat_in_turn_acts_and_the_action_is_logged_as_its_own() -> None:
    users = make_users()
    table = make_table(users[0])
    hand = deal_and_close(seat_all(table, users))
    seat, kind, cards, seq = turn(hand)
    table_act(table_id=table.pk, user=users[seat], kind=kind, cards=cards, seq=seq)
    logged = Action.objects.get(hand=hand, seq=seq)
    assert (logged.seat, logged.text, logged.auto) == (seat, f"{kind} {seat} {cards}", False)
    assert fresh(hand).seq == seq + 1


def test_a_stranger_a_player_without_a_hand_and_a_removed_player_change_nothing() -> None:
    users = make_users()
    stranger = User.objects.create_user("stranger", password="pw-long-enough-1")
    table = make_table(users[0])
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    with pytest.raises(ApplicationError) as refused:
        table_act(table_id=table.pk, user=users[0], kind="play", cards="SA", seq=0)
    assert refused.value.code == "no_hand"
    with pytest.raises(ApplicationError) as refused:
        table_act(table_id=table.pk, user=stranger, kind="play", cards="SA", seq=0)
    assert refused.value.code == "not_seated"

    hand = None
    for user in users:
        hand = services.seat_ready(table_id=table.pk, user=user) or hand
    assert hand is not None
    hand = deal_and_close(hand)
    seat, kind, cards, seq = turn(hand)
    services.seat_remove(table_id=table.pk, index=seat, actor=users[(seat + 1) % 4])
    seq = fresh(hand).seq
    for user in (stranger, users[seat]):
        with pytest.raises(ApplicationError) as refused:
            table_act(table_id=table.pk, user=user, kind=kind, cards=cards, seq=seq)
        assert refused.value.code == "not_seated"
    assert fresh(hand).seq == seq
    assert not Action.objects.filter(hand=hand, seq__gte=seq).exists()


def test_another_seats_cards_or_a_stale_seq_are_refused() -> None:
    users = make_users()
    table = make_table(users[0])
    hand = deal_and_close(seat_all(table, users))
    seat, kind, cards, seq = turn(hand)
    other = users[(seat + 1) % 4]
    with pytest.raises(ApplicationError) as refused:
        table_act(table_id=table.pk, user=other, kind=kind, cards=cards, seq=seq)
    assert refused.value.code in {"not_your_turn", "cards_not_in_hand"}
    with pytest.raises(ApplicationError) as refused:
        table_act(table_id=table.pk, user=users[seat], kind=kind, cards=cards, seq=seq - 1)
    assert refused.value.code == "stale_seq"
    assert fresh(hand).seq == seq


def test_a_move_stands_when_its_frames_cannot_reach_redis(
    settings: Any, django_capture_on_commit_callbacks: Any, caplog: pytest.LogCaptureFixture
) -> None:
    users = make_users()
    table = make_table(users[0])
    hand = deal_and_close(seat_all(table, users))
    seat, kind, cards, seq = turn(hand)
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    layer = settings.CHANNEL_LAYERS["default"]
    settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {**layer["CONFIG"], "hosts": [dead]}}}
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        table_act(table_id=table.pk, user=users[seat], kind=kind, cards=cards, seq=seq)
    assert callbacks  # the publishing ran, and failed quietly
    assert "Redis unreachable" in caplog.text
    assert Action.objects.get(hand=hand, seq=seq).text == f"{kind} {seat} {cards}"
    assert fresh(hand).seq == seq + 1
