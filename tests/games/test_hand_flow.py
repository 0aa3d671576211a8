"""A hand through the services: one transaction per action, the log as the authority."""

from __future__ import annotations

import pytest

from accounts.errors import ApplicationError
from games import services
from games.handstate import action_texts, forget_states, load_state, record_for
from games.models import Action, AdminLog, ChatLine, Hand, HandPlayer, Seat, Table
from games.services.deadlines import hand_advance
from ladder.models import HandSettlement, LedgerEntry
from shengji.engine import HandRecord, legal_actions, replay_final, view_all, view_for
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


def start_hand() -> tuple[list, Table, Hand]:  # type: ignore[type-arg]
    users = make_users()
    table = make_table(users[0])
    hand = seat_all(table, users)
    return users, table, hand


def test_a_whole_hand_is_logged_settled_and_replays() -> None:
    users, table, hand = start_hand()
    assert table.seats.count() == 4
    hand = deal_and_close(hand)
    state = load_state(hand)
    assert state.phase == "burying" and state.dealer is not None
    hand = play_out(hand, users)

    assert hand.status == Hand.Status.FINISHED
    assert Action.objects.filter(hand=hand).count() == hand.seq
    record = record_for(hand, action_texts(hand))
    final = replay_final(HandRecord.from_json(record.to_json()))
    assert final.result is not None and final.result.to_dict() == hand.result
    assert HandSettlement.objects.filter(hand=hand).exists()
    assert LedgerEntry.objects.filter(hand=hand).count() >= 4
    players = HandPlayer.objects.filter(hand=hand).order_by("seat")
    assert [p.user_id for p in players] == [u.pk for u in users]
    assert sum(p.turns for p in players) == 100 + 1  # 25 tricks × 4 plays, and the bury
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    # Auto-ready (on by default) readies the four for the match's next hand, which starts
    # only after the pause (tests/games/test_table_features.py).
    assert Seat.objects.filter(table=table, ready=True).count() == 4
    assert table.status == Table.Status.OPEN
    match = hand.match
    match.refresh_from_db()
    assert match.levels == hand.result["levels_after"]
    assert match.next_dealer == hand.result["next_dealer"]


@pytest.mark.slow  # several whole hands (README, "The fast lane")
def test_the_next_hand_continues_the_match_with_the_same_four() -> None:
    users, table, hand = start_hand()
    play_out(deal_and_close(hand), users)
    finished = fresh(hand)
    second = None
    for user in users:
        second = services.seat_ready(table_id=table.pk, user=user) or second
    assert second is not None
    assert second.match_id == finished.match_id and second.number == 2
    assert finished.result is not None
    assert second.levels == finished.result["levels_after"]
    assert second.dealer == finished.result["next_dealer"]


def test_a_stale_or_repeated_seq_is_refused_and_changes_nothing() -> None:
    users, _, hand = start_hand()
    hand = deal_and_close(hand)
    act_as_bot_would(hand, users)  # the bury
    hand = fresh(hand)
    state = load_state(hand)
    seat = state.to_act
    assert seat is not None
    text = f"play {seat} {view_for(state, seat)['hand'].split()[0]}"
    with pytest.raises(ApplicationError) as refused:
        hand_act(hand_id=hand.pk, user=users[seat], text=text, seq=hand.seq - 1)
    assert refused.value.code == "stale_seq"
    with pytest.raises(ApplicationError) as ahead:
        hand_act(hand_id=hand.pk, user=users[seat], text=text, seq=hand.seq + 1)
    assert ahead.value.code == "stale_seq"
    assert fresh(hand).seq == hand.seq


def test_a_play_out_of_turn_or_of_another_seats_cards_is_refused() -> None:
    """The seat is always the sender's own (a message names none): a player sending the
    leader's card acts for nobody but himself, out of turn and with a card he does not hold."""
    users, _, hand = start_hand()
    hand = deal_and_close(hand)
    act_as_bot_would(hand, users)
    hand = fresh(hand)
    state = load_state(hand)
    leader = state.to_act
    assert leader is not None
    other = (leader + 1) % 4
    card = view_for(state, other)["hand"].split()[0]
    with pytest.raises(ApplicationError) as out_of_turn:
        hand_act(hand_id=hand.pk, user=users[other], text=f"play {other} {card}", seq=hand.seq)
    assert out_of_turn.value.code == "not_your_turn"
    leader_card = view_for(state, leader)["hand"].split()[0]
    with pytest.raises(ApplicationError) as for_another:
        hand_act(
            hand_id=hand.pk, user=users[other], text=f"play {leader} {leader_card}", seq=hand.seq
        )
    assert for_another.value.code == "not_your_turn"
    assert fresh(hand).seq == hand.seq
    assert not Action.objects.filter(hand=hand, seq__gte=hand.seq).exists()


def test_a_deadline_acts_once_even_when_its_task_runs_twice() -> None:
    users = make_users()
    table = make_table(users[0], play_seconds=0, bury_seconds=0)
    hand = deal_and_close(seat_all(table, users))
    seq = hand.seq
    assert hand_advance(hand_id=hand.pk, seq=seq) is True  # the bot buries
    assert hand_advance(hand_id=hand.pk, seq=seq) is False  # the same task again
    auto = Action.objects.filter(hand=hand, auto=True)
    assert [a.text.split()[0] for a in auto] == ["bury"]
    assert fresh(hand).seq == seq + 1


def test_a_deadline_not_yet_come_does_nothing() -> None:
    users = make_users()
    table = make_table(users[0], play_seconds=60, bury_seconds=60)
    hand = deal_and_close(seat_all(table, users))
    assert hand_advance(hand_id=hand.pk, seq=hand.seq) is False
    assert fresh(hand).seq == hand.seq


def test_a_bid_made_while_cards_arrive_is_not_stale() -> None:
    users = make_users()
    table = make_table(users[0], deal_interval_ms=0, bid_window_seconds=60)
    hand = seat_all(table, users)
    seen = fresh(hand).seq
    assert advance(hand)  # every card is drawn
    hand = fresh(hand)
    assert hand.seq == seen + 100
    state = load_state(hand)
    bids = [(seat, b) for seat in range(4) for b in legal_actions(state, seat)]
    assert bids, "a 25-card hand at level 2 without a 2 or a joker pair in all four is rare"
    seat, bid = bids[0]
    hand_act(hand_id=hand.pk, user=users[seat], text=str(bid), seq=seen)
    assert Action.objects.filter(hand=hand, text=str(bid)).exists()


def test_an_escape_stops_the_hand_and_frees_the_seat() -> None:
    users, table, hand = start_hand()
    hand = deal_and_close(hand)
    services.hand_leave(hand_id=hand.pk, user=users[2])
    hand = fresh(hand)
    assert hand.status == Hand.Status.ESCAPED
    assert hand.result is not None
    assert hand.result["escaper"] == 2
    assert HandPlayer.objects.get(hand=hand, seat=2).escaped
    assert Seat.objects.get(table=table, index=2).user is None
    assert hand.match.ended_at is not None
    assert HandSettlement.objects.filter(hand=hand).exists()


def test_closing_a_table_voids_its_hand_and_moves_no_points() -> None:
    users, table, hand = start_hand()
    admin = make_users(1, prefix="admin")[0]
    services.table_close(table_id=table.pk, actor=admin, reason="test")
    hand = fresh(hand)
    assert hand.status == Hand.Status.VOID
    assert not LedgerEntry.objects.filter(hand=hand).exists()
    assert AdminLog.objects.filter(action="table_close", table=table).exists()
    assert not Seat.objects.filter(table=table, user__isnull=False).exists()
    with pytest.raises(ApplicationError) as closed:
        services.seat_take(table_id=table.pk, user=users[0], index=0)
    assert closed.value.code == "table_closed"


def test_seats_refuse_a_second_seat_a_taken_seat_and_a_low_balance() -> None:
    users = make_users()
    table = make_table(users[0], min_balance=0)
    services.seat_take(table_id=table.pk, user=users[0], index=0, stake=250)
    table.refresh_from_db()
    assert table.stake == 250  # the first to sit sets the stake (RULES-SPEC.md §6)
    services.seat_take(table_id=table.pk, user=users[1], index=1, stake=999)
    table.refresh_from_db()
    assert table.stake == 250
    for user, index, code in [(users[0], 2, "already_seated"), (users[2], 0, "seat_taken")]:
        with pytest.raises(ApplicationError) as refused:
            services.seat_take(table_id=table.pk, user=user, index=index)
        assert refused.value.code == code
    rich = make_table(users[0], min_balance=10**9)
    with pytest.raises(ApplicationError) as poor:
        services.seat_take(table_id=rich.pk, user=users[3], index=0)
    assert poor.value.code == "insufficient_balance"


def test_chat_is_length_limited_and_cleaned() -> None:
    users = make_users(1)
    table = make_table(users[0])
    line = services.chat_post(table_id=table.pk, user=users[0], text="  <b>加油</b>\x07 ")
    assert line.text == "<b>加油</b>"
    for text, code in [("x" * 201, "chat_too_long"), (" \n ", "chat_empty")]:
        with pytest.raises(ApplicationError) as refused:
            services.chat_post(table_id=table.pk, user=users[0], text=text)
        assert refused.value.code == code


def test_state_rebuilt_from_the_log_equals_the_cached_state() -> None:
    users, _, hand = start_hand()
    hand = deal_and_close(hand)
    for _ in range(9):
        act_as_bot_would(hand, users)
    hand = fresh(hand)
    cached = view_all(load_state(hand))
    forget_states()
    assert view_all(load_state(hand)) == cached


@pytest.mark.slow  # several whole hands (README, "The fast lane")
def test_when_the_four_change_a_new_match_starts_at_level_two() -> None:
    users, table, hand = start_hand()
    play_out(deal_and_close(hand), users)
    services.seat_leave(table_id=table.pk, user=users[3])
    newcomer = make_users(1, prefix="newcomer")[0]
    services.seat_take(table_id=table.pk, user=newcomer, index=3)
    second = None
    for user in [*users[:3], newcomer]:
        second = services.seat_ready(table_id=table.pk, user=user) or second
    assert second is not None
    assert second.match_id != hand.match_id and second.number == 1
    assert second.levels == ["2", "2"] and second.dealer is None
    old = fresh(hand).match
    assert old.ended_at is not None


def test_a_player_still_away_at_the_end_is_settled_then_charged_as_an_escaper() -> None:
    users, table, hand = start_hand()
    services.seat_connected(table_id=table.pk, user=users[1], channel_name="socket-1")
    seat = services.seat_disconnected(channel_name="socket-1")
    assert seat is not None and not seat.connected
    assert seat.disconnected_at is not None
    assert services.seat_takeover(seat_id=seat.pk, since=seat.disconnected_at.isoformat())
    assert not services.seat_takeover(seat_id=seat.pk, since="2000-01-01T00:00:00+00:00")
    hand = play_out(deal_and_close(hand), users)
    away = HandPlayer.objects.get(hand=hand, seat=1)
    assert away.absent_at_end and not away.escaped
    kinds = set(LedgerEntry.objects.filter(hand=hand, user=users[1]).values_list("kind", flat=True))
    assert "escape_penalty" in kinds
    partner = set(
        LedgerEntry.objects.filter(hand=hand, user=users[3]).values_list("kind", flat=True)
    )
    assert "escape_penalty" not in partner


def test_bids_and_results_become_system_lines() -> None:
    users = make_users()
    table = make_table(users[0], bid_window_seconds=60)
    hand = seat_all(table, users)
    assert advance(hand)
    hand = fresh(hand)
    state = load_state(hand)
    bids = [(seat, b) for seat in range(4) for b in legal_actions(state, seat)]
    assert bids, "a 25-card hand at level 2 without a 2 or a joker pair in all four is rare"
    seat, bid = bids[0]
    hand_act(hand_id=hand.pk, user=users[seat], text=str(bid), seq=hand.seq)
    cards = str(bid).split(" ", 2)[2]
    assert ChatLine.objects.filter(table=table, system=True, text=f"seat {seat} bids {cards}")


def test_three_bots_and_a_player_finish_a_hand_at_a_casual_table(settings) -> None:  # type: ignore[no-untyped-def]
    settings.SHENGJI_BOT_DELAY_MS = 0
    (user,) = make_users(1)
    table = make_table(user, ranked=False, preset_name="seed002", bid_window_seconds=0)
    services.seat_take(table_id=table.pk, user=user, index=0)
    for index in (1, 2, 3):
        services.seat_fill_bot(table_id=table.pk, user=user, index=index)
    hand = services.seat_ready(table_id=table.pk, user=user)
    assert hand is not None
    for _ in range(400):
        hand = fresh(hand)
        if hand.status != Hand.Status.PLAYING:
            break
        state = load_state(hand)
        if state.to_act == 0:
            act_as_bot_would(hand, [user, None, None, None])
        else:
            assert advance(hand)
    hand = fresh(hand)
    assert hand.status == Hand.Status.FINISHED
    bots = HandPlayer.objects.filter(hand=hand, user__isnull=True)
    assert bots.count() == 3 and all(p.turns == p.auto_turns > 0 for p in bots)
    # Bots at the start: a practice hand, settled with no ledger rows for anyone (docs/LADDER.md).
    assert not LedgerEntry.objects.filter(hand=hand).exists()
    assert HandSettlement.objects.get(hand=hand).practice
