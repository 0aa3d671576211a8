"""At the table (issue 16): 托管 (autopilot), auto-ready with the pause before the next hand,
the hint, the away countdown, system lines as a code and parameters, per-table numbering."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import User
from games import selectors, services
from games.chat_words import NAMED_SEATS
from games.handstate import load_state
from games.models import Action, ChatLine, Hand, HandPlayer, Seat, Table
from games.services._common import SYSTEM_LINES
from shengji.engine import parse_cards
from tests.games.helpers import (
    act_as_bot_would,
    advance,
    fresh,
    make_table,
    make_users,
    ready_all,
    seat_all,
)
from tests.games.test_table_socket import Peer, connect, setup_table, start_hand, whose_turn

# The contract's codes and how many parameters each takes (docs/PROTOCOL.md, "System lines").
CODES = {
    "sits": 2,
    "leaves": 2,
    "bot_sits": 1,
    "hand_starts": 2,
    "bids": 2,
    "throw_forced": 3,
    "throw_back": 1,
    "result": 4,
    "escaped": 2,
    "bot_plays": 2,
    "autopilot_on": 2,
    "autopilot_off": 2,
    "back": 2,
    "closed": 0,
    "removed": 1,
    "practice": 0,
    "away_freed": 2,
    "stands_short": 2,
    "friends_called": 2,
    "friend_joins": 3,
    "call_spent": 3,
    "timeout_play": 2,
    "timeout_bury": 1,
    "timeout_call": 1,
    "takeback_bid": 2,
    "takeback_play": 2,
}


def seat_row(table_id: int, index: int) -> Seat:
    return Seat.objects.get(table_id=table_id, index=index)


def play_out_with_bots(hand: Hand, users: list[User]) -> Hand:
    """Humans act through ``hand_act``; a seat the bot plays moves at its deadline (the bot's
    delay is 0 in these tests)."""
    while fresh(hand).status == Hand.Status.PLAYING:
        current = fresh(hand)
        state = load_state(current)
        if state.phase in ("dealing", "bidding"):
            assert advance(current)
            continue
        assert state.to_act is not None
        if seat_row(current.match.table_id, state.to_act).bot:
            assert advance(current)
        else:
            act_as_bot_would(current, users)
    return fresh(hand)


async def wait_for(test: Any, timeout: float = 15) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = await database_sync_to_async(test)()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError("timed out")


# --- system lines: a code and parameters ------------------------------------------------------


def test_every_code_of_the_contract_has_an_english_line_taking_its_parameters() -> None:
    assert set(SYSTEM_LINES) == set(CODES)
    for code, count in CODES.items():
        params = [f"p{i}" for i in range(count)]
        text = SYSTEM_LINES[code].format(*params)
        assert all(p in text for p in params), code  # every parameter shows in the English


@pytest.mark.django_db
def test_every_system_line_of_a_hand_has_a_code_and_its_parameters(settings: Any) -> None:
    settings.SHENGJI_BOT_DELAY_MS = 0
    users = make_users(3)
    table = make_table(users[0])
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    services.seat_fill_bot(table_id=table.pk, user=users[0], index=3)
    hand = None
    for user in users:
        hand = services.seat_ready(table_id=table.pk, user=user) or hand
    assert hand is not None
    play_out_with_bots(hand, [*users, users[0]])
    services.table_close(table_id=table.pk, actor=users[0], reason="test")

    lines = list(ChatLine.objects.filter(table=table, system=True))
    codes = [line.code for line in lines]
    for line in lines:
        assert line.code in CODES, line.text
        named = line.code in NAMED_SEATS  # and the player's name (docs/PROTOCOL.md)
        assert len(line.params) == CODES[line.code] + named, (line.code, line.params)
        assert line.text == SYSTEM_LINES[line.code].format(*line.params)
    assert {"sits", "bot_sits", "practice", "hand_starts", "result", "closed"} <= set(codes)
    starts = next(line for line in lines if line.code == "hand_starts")
    assert starts.params == [1, 1]  # the first hand of the table's first match
    result = next(line for line in lines if line.code == "result")
    assert result.params[2] in ("attackers", "defenders")
    backlog = selectors.chat_backlog(table_id=table.pk)
    assert all(
        entry["code"] in CODES
        and len(entry["params"]) == CODES[entry["code"]] + (entry["code"] in NAMED_SEATS)
        for entry in backlog
        if entry["system"]
    )


@pytest.mark.django_db
def test_a_players_chat_line_has_an_empty_code() -> None:
    users = make_users(1)
    table = make_table(users[0])
    services.chat_post(table_id=table.pk, user=users[0], text="加油")
    (line,) = selectors.chat_backlog(table_id=table.pk)
    assert line["code"] == "" and line["params"] == [] and line["text"] == "加油"


# --- per-table numbering ----------------------------------------------------------------------


@pytest.mark.django_db
def test_matches_and_hands_are_numbered_per_table() -> None:
    first_users, second_users = make_users(4, "a"), make_users(4, "b")
    first = make_table(first_users[0])
    seat_all(first, first_users)
    second = make_table(second_users[0])
    assert (
        selectors.table_state_for(presence=selectors.Presence(second.pk, None, None))["table"][
            "match_number"
        ]
        is None
    )  # before the first hand
    hand = seat_all(second, second_users)
    assert hand.match_id > first.matches.get().pk  # a later match site-wide …
    state = selectors.table_state_for(presence=selectors.Presence(second.pk, 0, None))
    assert state["table"]["match_number"] == 1  # … is this table's first
    assert state["hand"]["number"] == 1 and state["hand"]["match_number"] == 1


# --- the away countdown -----------------------------------------------------------------------


@pytest.mark.django_db
def test_away_until_runs_during_the_grace_and_is_null_once_the_bot_plays(settings: Any) -> None:
    users = make_users()
    table = make_table(users[0])
    seat_all(table, users)
    services.seat_connected(table_id=table.pk, user=users[1], channel_name="c1")
    seats = selectors.seats_list(table_id=table.pk)
    assert seats[1]["away_until"] is None
    assert seats[1]["autopilot"] is False and seats[1]["auto_ready"] is True

    services.seat_disconnected(channel_name="c1")
    seat = seat_row(table.pk, 1)
    assert seat.disconnected_at is not None
    grace = timedelta(seconds=settings.SHENGJI_DISCONNECT_GRACE_S)
    until = selectors.seats_list(table_id=table.pk)[1]["away_until"]
    assert until == (seat.disconnected_at + grace).isoformat()

    assert services.seat_takeover(seat_id=seat.pk, since=seat.disconnected_at.isoformat())
    assert seat_row(table.pk, 1).bot
    assert selectors.seats_list(table_id=table.pk)[1]["away_until"] is None


# --- autopilot (托管) ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_reconnect_does_not_end_autopilot() -> None:
    users = make_users()
    table = make_table(users[0])
    seat_all(table, users)
    services.seat_connected(table_id=table.pk, user=users[2], channel_name="c2")
    services.seat_autopilot(table_id=table.pk, user=users[2], on=True)
    services.seat_disconnected(channel_name="c2")
    services.seat_connected(table_id=table.pk, user=users[2], channel_name="c2b")
    seat = seat_row(table.pk, 2)
    assert seat.autopilot and seat.bot and seat.connected and seat.disconnected_at is None
    assert not ChatLine.objects.filter(table=table, code="back").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("gone", [False, True])
def test_autopilot_at_the_hands_end_is_present_unless_gone_past_the_grace(
    settings: Any, gone: bool
) -> None:
    """Connected on autopilot: present, and ready for the next hand. Gone longer than the
    grace period when the hand ends: absent, as after a takeover, and the seat is free."""
    settings.SHENGJI_BOT_DELAY_MS = 0
    users = make_users()
    table = make_table(users[0])
    hand = seat_all(table, users)
    services.seat_connected(table_id=table.pk, user=users[0], channel_name="c0")
    services.seat_autopilot(table_id=table.pk, user=users[0], on=True)
    if gone:
        services.seat_disconnected(channel_name="c0")
        long_ago = timezone.now() - timedelta(hours=1)
        Seat.objects.filter(table=table, index=0).update(disconnected_at=long_ago)
    hand = play_out_with_bots(hand, users)

    player = HandPlayer.objects.get(hand=hand, seat=0)
    assert player.auto_turns == player.turns > 0  # every turn of the seat was the bot's
    assert player.absent_at_end is gone
    seat = seat_row(table.pk, 0)
    if gone:
        assert seat.user_id is None and not seat.autopilot
    else:
        assert seat.user_id == users[0].pk and seat.autopilot and seat.ready


async def test_autopilot_on_the_bot_plays_the_seat_and_acting_turns_it_off(
    celery_worker: object, settings: Any
) -> None:
    settings.SHENGJI_SOCKET_BURST = 1000
    settings.SHENGJI_BOT_DELAY_MS = 1500
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    await start_hand(peers, table_id)
    dealer = whose_turn(peers)
    index = peers.index(dealer)

    await dealer.socket.send_json_to({"type": "autopilot", "on": True})
    state = await dealer.until(
        lambda f: f["type"] == "state" and f["seats"][index]["autopilot"] is True
    )
    assert state["seats"][index]["bot"] is True
    assert any(c["code"] == "autopilot_on" for c in state["chat"])
    # The bot buries for the dealer (not at the dealer's 60 s deadline, at the bot's delay).
    await dealer.until(lambda f: f["type"] == "view" and f["view"]["phase"] == "playing")
    bury = await database_sync_to_async(
        lambda: Action.objects.get(hand__match__table_id=table_id, text__startswith="bury")
    )()
    assert bury.auto and bury.seat == index

    # The dealer leads now, before the bot's delay is over: acting turns autopilot off.
    lead = dealer.hand_view["hand"].split()[0]
    await dealer.socket.send_json_to({"type": "play", "seq": dealer.seq, "cards": lead})
    await dealer.until(lambda f: f["type"] == "state" and f["seats"][index]["autopilot"] is False)
    seat = await database_sync_to_async(seat_row)(table_id, index)
    assert not seat.autopilot and not seat.bot
    played = await database_sync_to_async(
        lambda: (
            Action.objects.filter(hand__match__table_id=table_id, text__startswith="play")
            .order_by("seq")
            .first()
        )
    )()
    assert played is not None and played.text == f"play {index} {lead}" and not played.auto
    for peer in peers:
        await peer.socket.disconnect()


async def test_autopilot_off_the_turn_waits_for_the_player(
    celery_worker: object, settings: Any
) -> None:
    settings.SHENGJI_BOT_DELAY_MS = 1000
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    await start_hand(peers, table_id)
    dealer = whose_turn(peers)
    index = peers.index(dealer)
    await dealer.socket.send_json_to({"type": "autopilot", "on": True})
    await dealer.socket.send_json_to({"type": "autopilot", "on": False})
    await dealer.until(
        lambda f: (
            f["type"] == "state"
            and f["seats"][index]["autopilot"] is False
            and any(c["code"] == "autopilot_off" for c in f["chat"])
        )
    )
    await asyncio.sleep(2)  # past the bot's delay: nobody buries for the dealer
    hand = await database_sync_to_async(
        lambda: Hand.objects.get(match__table_id=table_id, status="playing")
    )()
    assert load_state(hand).phase == "burying"
    assert not await database_sync_to_async(hand.actions.filter(auto=True).exists)()
    assert hand.deadline is not None
    assert hand.deadline > timezone.now() + timedelta(seconds=30)  # the dealer's own 60 s
    for peer in peers:
        await peer.socket.disconnect()


async def test_only_a_seated_player_switches_and_only_their_own_seat(
    celery_worker: object,
) -> None:
    users, table_id = await database_sync_to_async(setup_table)()
    outsider = (await database_sync_to_async(make_users)(1, "outsider"))[0]
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    stranger = await connect(table_id, outsider, "outsider")
    anonymous = await connect(table_id, None, "anonymous")
    await stranger.socket.send_json_to({"type": "autopilot", "on": True})
    assert (await stranger.until(lambda f: f["type"] == "error"))["code"] == "not_seated"
    await anonymous.socket.send_json_to({"type": "autopilot", "on": True})
    assert (await anonymous.until(lambda f: f["type"] == "error"))["code"] == "login_required"
    # A seat named in the message is ignored: the sender's own seat switches.
    await peers[1].socket.send_json_to({"type": "autopilot", "on": True, "seat": 3})
    await peers[1].until(lambda f: f["type"] == "state" and f["seats"][1]["autopilot"])
    flags = await database_sync_to_async(
        lambda: list(
            Seat.objects.filter(table_id=table_id)
            .order_by("index")
            .values_list("autopilot", flat=True)
        )
    )()
    assert flags == [False, True, False, False]
    await peers[1].socket.send_json_to({"type": "autopilot", "on": "yes"})
    assert (await peers[1].until(lambda f: f["type"] == "error"))["code"] == "bad_message"
    for peer in [*peers, stranger, anonymous]:
        await peer.socket.disconnect()


# --- the hint ---------------------------------------------------------------------------------


async def test_the_hint_is_a_legal_move_from_the_players_own_cards_and_changes_nothing(
    celery_worker: object, settings: Any
) -> None:
    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    await peers[0].socket.send_json_to({"type": "hint"})
    assert (await peers[0].until(lambda f: f["type"] == "error"))["code"] == "no_hand"
    await start_hand(peers, table_id)
    dealer = whose_turn(peers)
    index = peers.index(dealer)
    other = peers[(index + 1) % 4]

    async def hint(peer: Peer) -> dict[str, Any]:
        await peer.socket.send_json_to({"type": "hint"})
        frame: dict[str, Any] = await peer.until(lambda f: f["type"] in {"hint", "error"})
        return frame

    before = await database_sync_to_async(
        lambda: Hand.objects.get(match__table_id=table_id, status="playing")
    )()
    answer = await hint(dealer)
    assert answer["action"] == "bury"
    cards = parse_cards(answer["cards"])
    assert len(cards) == 8
    own = parse_cards(dealer.hand_view["hand"])
    assert all(cards.count(c) <= own.count(c) for c in cards)  # only the dealer's own cards
    state = load_state(before)
    state.check_action(index, f"bury {index} {answer['cards']}")  # legal: raises otherwise
    assert await hint(other) == {"type": "hint", "action": "none", "cards": ""}
    after = await database_sync_to_async(Hand.objects.get)(pk=before.pk)
    assert after.seq == before.seq  # nothing changed
    assert not any(f["type"] == "hint" for f in peers[(index + 2) % 4].frames)  # asker only

    await dealer.socket.send_json_to({"type": "bury", "seq": dealer.seq, "cards": answer["cards"]})
    await dealer.until(lambda f: f["type"] == "view" and f["view"]["phase"] == "playing")
    answer = await hint(dealer)  # the dealer leads
    assert answer["action"] == "play"
    hand = await database_sync_to_async(Hand.objects.get)(pk=before.pk)
    load_state(hand).check_action(index, f"play {index} {answer['cards']}")

    # A button, not a stream: the hint has a bucket of its own.
    codes = []
    for _ in range(5):
        codes.append((await hint(other)).get("code"))
    assert "rate_limited" in codes
    for peer in peers:
        await peer.socket.disconnect()


async def test_a_spectator_gets_no_hint(celery_worker: object) -> None:
    _, table_id = await database_sync_to_async(setup_table)()
    outsider = (await database_sync_to_async(make_users)(1, "outsider"))[0]
    stranger = await connect(table_id, outsider, "outsider")
    await stranger.socket.send_json_to({"type": "hint"})
    assert (await stranger.until(lambda f: f["type"] == "error"))["code"] == "not_seated"
    await stranger.socket.disconnect()


# --- auto-ready -------------------------------------------------------------------------------


def _finish_first_hand(users: list[User], table: Table) -> Hand:
    return _finish(seat_all(table, users), users)


def _finish(hand: Hand, users: list[User]) -> Hand:
    """The worker deals (interval 0) and closes the bidding; the players play the rest."""
    waited = time.monotonic() + 20
    while load_state(fresh(hand)).phase != "burying":
        assert time.monotonic() < waited, "the deal did not finish"
        time.sleep(0.05)
    while fresh(hand).status == Hand.Status.PLAYING:
        act_as_bot_would(hand, users)
    return fresh(hand)


@pytest.mark.django_db(transaction=True)
def test_auto_ready_starts_the_next_hand_after_the_pause(
    celery_worker: object, settings: Any
) -> None:
    settings.SHENGJI_NEXT_HAND_PAUSE_S = 2
    users = make_users()
    table = make_table(users[0])
    first = _finish_first_hand(users, table)
    assert first.finished_at is not None
    assert Seat.objects.filter(table=table, ready=True).count() == 4  # nobody pressed ready
    assert not Hand.objects.filter(match__table=table, number=2).exists()  # not at once

    deadline = time.monotonic() + 15
    while not Hand.objects.filter(match__table=table, number=2).exists():
        assert time.monotonic() < deadline, "the next hand never started"
        time.sleep(0.1)
    second = Hand.objects.get(match__table=table, number=2)
    assert second.match_id == first.match_id  # the same match goes on
    assert second.started_at >= first.finished_at + timedelta(seconds=2)
    starts = ChatLine.objects.filter(table=table, code="hand_starts").order_by("pk")
    assert [line.params for line in starts] == [[1, 1], [2, 1]]


@pytest.mark.django_db(transaction=True)
def test_a_player_with_auto_ready_off_is_not_ready_and_holds_the_next_hand(
    celery_worker: object, settings: Any
) -> None:
    settings.SHENGJI_NEXT_HAND_PAUSE_S = 0.5
    users = make_users()
    table = make_table(users[0])
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    services.seat_auto_ready(table_id=table.pk, user=users[2], on=False)
    _finish(ready_all(table, users), users)
    ready = list(Seat.objects.filter(table=table).order_by("index").values_list("ready", flat=True))
    assert ready == [True, True, False, True]
    time.sleep(2)  # well past the pause
    assert not Hand.objects.filter(match__table=table, number=2).exists()
    services.seat_leave(table_id=table.pk, user=users[2])  # free to stand between hands
    assert seat_row(table.pk, 2).user_id is None


async def test_auto_ready_switches_on_the_socket(celery_worker: object) -> None:
    users, table_id = await database_sync_to_async(setup_table)()
    peer = await connect(table_id, users[1], "seat 1")
    await peer.socket.send_json_to({"type": "auto_ready", "on": False})
    await peer.until(lambda f: f["type"] == "state" and f["seats"][1]["auto_ready"] is False)
    assert not (await database_sync_to_async(seat_row)(table_id, 1)).auto_ready
    await peer.socket.send_json_to({"type": "auto_ready", "on": True})
    await peer.until(lambda f: f["type"] == "state" and f["seats"][1]["auto_ready"] is True)
    await peer.socket.disconnect()


@pytest.mark.django_db
def test_a_lost_start_task_is_sent_again_by_the_sweeper(settings: Any) -> None:
    """The start after the pause is a task; one lost (a Redis restart) is found by the sweep:
    an open table all ready past its pause. Starting twice starts one hand."""
    settings.SHENGJI_NEXT_HAND_PAUSE_S = 0
    users = make_users()
    table = make_table(users[0])
    hand = seat_all(table, users)
    while fresh(hand).status == Hand.Status.PLAYING:
        current = fresh(hand)
        if load_state(current).phase in ("dealing", "bidding"):
            assert advance(current)
        else:
            act_as_bot_would(current, users)
    Hand.objects.filter(pk=hand.pk).update(finished_at=timezone.now() - timedelta(seconds=10))
    assert services.tables_start_overdue() == [table.pk]
    assert services.table_start_due(table_id=table.pk) is not None
    assert services.table_start_due(table_id=table.pk) is None  # once only
    assert Hand.objects.filter(match__table=table).count() == 2
    assert services.tables_start_overdue() == []


# --- the leak checker reads a system line's parameters ---------------------------------------


def test_the_leak_checker_passes_a_public_bid_in_params_and_catches_a_hidden_one() -> None:
    from proof.leakcheck import Receiver
    from shengji.engine import format_cards
    from tests.proof.test_hidden_info import engine_hand, leaks_of, view_frame

    states = engine_hand("ranked")
    last = len(states) - 1
    bid = states[last].bids[0]
    cards = format_cards(bid.cards)
    public = {"user": None, "text": f"seat {bid.seat} bids {cards}", "system": True}
    line = {**public, "code": "bids", "params": [bid.seat, cards], "at": None}
    frames = [view_frame(states, last, None), {"type": "chat", "line": line}]
    assert leaks_of(states, Receiver("public", "spectator", frames=frames)) == []

    middle = states[len(states) // 2]  # mid-play: every seat still holds cards
    hidden = format_cards(middle.hands[(bid.seat + 1) % 4][:2])
    assert hidden
    spoiled = {**line, "params": [bid.seat, hidden]}
    frames = [view_frame(states, last, None), {"type": "state", "chat": [spoiled], "hand": None}]
    found = leaks_of(states, Receiver("public", "spectator", frames=frames))
    assert any("no public event" in leak for leak in found), found
