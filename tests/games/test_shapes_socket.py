"""Tables of 6 and 8 seats over the table socket (issue 32, item 2), with real PostgreSQL,
Redis and a Celery worker: a 6-seat 找朋友 practice hand and an 8-seat 拖拉机 hand played to
their end by one player, bots in the other seats and timeouts; each frame is exactly the seat's
view (the calls hidden from every other seat and spectator until the first lead); the dealer's
calls over the socket; no socket acts for another seat."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import services
from games.handstate import action_texts, load_state, record_for
from games.models import Action, Hand
from shengji.engine import (
    Trump,
    format_cards,
    legal_follow,
    parse_cards,
    replay,
    view_for,
    view_public,
)
from tests.games.helpers import deal_and_close, make_table, make_users, seat_all
from tests.games.test_table_socket import Peer, connect

pytestmark = [pytest.mark.django_db(transaction=True)]


def my_play(view: dict[str, Any], draw_policy: str) -> str:
    """A legal play from the seat's own view: a single to lead, a legal follow otherwise."""
    hand = parse_cards(view["hand"])
    trick = view["trick"]
    if not trick or not trick["plays"]:
        return format_cards(hand[:1])
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    lead = parse_cards(trick["plays"][0]["cards"])
    return format_cards(legal_follow(hand, lead, trump, draw_policy=draw_policy))


def table_with_bots(players: int, mode: str) -> tuple[Any, int]:
    (user,) = make_users(1, f"solo{players}")
    house = {"mode": mode} if mode == "friends" else {}
    table = make_table(
        user, players=players, house_rules=house, stake=10, bury_seconds=1, play_seconds=1
    )
    for index in range(1, players):
        services.seat_fill_bot(table_id=table.pk, user=user, index=index)
    services.seat_take(table_id=table.pk, user=user, index=0)
    return user, table.pk


def states_of(hand_id: int) -> list[Any]:
    hand = Hand.objects.get(pk=hand_id)
    return list(replay(record_for(hand, action_texts(hand))))


@pytest.mark.parametrize(("players", "mode"), [(6, "friends"), (8, "tractor")])
async def test_one_player_and_bots_play_a_whole_hand_over_the_socket_with_timeouts(
    celery_worker: object, settings: Any, players: int, mode: str
) -> None:
    settings.SHENGJI_BOT_DELAY_MS = 20
    settings.SHENGJI_SOCKET_BURST = 1000
    user, table_id = await database_sync_to_async(table_with_bots)(players, mode)
    me = await connect(table_id, user, "seat 0")
    watcher = await connect(table_id, None, "spectator")
    await me.socket.send_json_to({"type": "ready"})
    turns = 0
    while True:
        frame = await me.until(lambda f: f["type"] in {"view", "state"}, timeout=60)
        view = me.view
        if view is None or (frame["type"] == "state" and frame["hand"] is None):
            continue
        if view["phase"] == "finished":
            break
        if view["phase"] == "playing" and view["to_act"] == 0:
            turns += 1
            if turns % 2:  # every other turn the clock runs out and the bot plays
                await me.socket.send_json_to(
                    {"type": "play", "seq": me.seq, "cards": my_play(view, "no_protections")}
                )
    hand_id = await database_sync_to_async(services.playing_hand_id)(table_id=table_id)
    hand_id = (
        hand_id
        or await database_sync_to_async(
            lambda: Hand.objects.filter(match__table_id=table_id).values_list("pk", flat=True).get()
        )()
    )
    await asyncio.sleep(0.3)
    for peer in (me, watcher):
        await peer.drain()
    hand = await database_sync_to_async(Hand.objects.get)(pk=hand_id)
    assert hand.status == Hand.Status.FINISHED
    assert hand.result is not None and hand.result["players"] == players
    assert hand.result["mode"] == mode
    mine = await database_sync_to_async(
        lambda: list(Action.objects.filter(hand_id=hand_id, seat=0, text__startswith="play"))
    )()
    assert any(a.auto for a in mine) and any(not a.auto for a in mine)  # timeouts and plays
    states = await database_sync_to_async(states_of)(hand_id)
    views = [f for f in me.frames if f["type"] == "view"]
    assert len(views) > 20
    for frame in views:
        assert frame["view"] == view_for(states[frame["seq"]], 0)  # nothing more than seat 0's
        assert len(frame["view"]["card_counts"]) == players
    public = [f for f in watcher.frames if f["type"] == "view"]
    assert public and all(f["view"] == view_public(states[f["seq"]]) for f in public)
    for peer in (me, watcher):
        await peer.socket.disconnect()


def dealt_six(bury_seconds: int = 60) -> tuple[list[Any], int, int]:
    users = make_users(6, "callsock")
    table = make_table(
        users[0], players=6, house_rules={"mode": "friends"}, stake=10, bury_seconds=bury_seconds
    )
    hand = deal_and_close(seat_all(table, users))
    dealer = load_state(hand).dealer
    assert dealer is not None
    return users, table.pk, dealer


async def test_the_dealers_calls_over_the_socket_are_hidden_from_the_others_until_the_lead(
    celery_worker: object, settings: Any
) -> None:
    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id, dealer = await database_sync_to_async(dealt_six)()
    other = (dealer + 2) % 6
    boss = await connect(table_id, users[dealer], "dealer")
    them = await connect(table_id, users[other], "other")
    watcher = await connect(table_id, None, "spectator")
    assert boss.hand_view["calls_made"] is False

    # Another seat can neither call nor bury for the dealer: the server names the sender's seat.
    await them.socket.send_json_to({"type": "call", "seq": them.seq, "calls": "1AS 2AS"})
    assert (await them.until(lambda f: f["type"] == "error"))["code"] == "not_your_turn"
    cards = " ".join(boss.hand_view["hand"].split()[:6])
    await them.socket.send_json_to(
        {"type": "bury", "seq": them.seq, "cards": cards, "seat": dealer}
    )
    assert (await them.until(lambda f: f["type"] == "error"))["code"] in {
        "not_your_turn",
        "bury_cards_not_held",
    }
    # The dealer: a check, a refused call, the hint's call, then the bury.
    await boss.socket.send_json_to({"type": "check", "action": "call", "calls": "1BJ"})
    checked = await boss.until(lambda f: f["type"] == "check")
    assert checked["ok"] is False and checked["code"] in {"friend_joker", "friend_wrong_count"}
    await boss.socket.send_json_to({"type": "call", "seq": boss.seq, "calls": "1BJ 1SJ"})
    assert (await boss.until(lambda f: f["type"] == "error"))["code"] == "friend_joker"
    await boss.socket.send_json_to({"type": "hint"})
    hint = await boss.until(lambda f: f["type"] == "hint")
    assert hint["action"] == "call" and hint["calls"] == hint["cards"] != ""
    seq = boss.seq
    await boss.socket.send_json_to({"type": "call", "seq": seq, "calls": hint["calls"]})
    await boss.until(lambda f: f["type"] == "view" and f["seq"] > seq)
    assert [f"{c['ordinal']}{c['card']}" for c in boss.hand_view["calls"]] == hint["calls"].split()
    await them.until(lambda f: f["type"] == "view" and f["seq"] > seq)
    await watcher.until(lambda f: f["type"] == "view" and f["seq"] > seq)
    for peer in (them, watcher):
        assert peer.hand_view["calls"] is None and peer.hand_view["calls_made"] is True

    await boss.socket.send_json_to({"type": "hint"})
    hint = await boss.until(lambda f: f["type"] == "hint")
    assert hint["action"] == "bury"
    seq = boss.seq
    await boss.socket.send_json_to({"type": "bury", "seq": seq, "cards": hint["cards"]})
    await boss.until(lambda f: f["type"] == "view" and f["view"]["phase"] == "playing")
    await them.until(lambda f: f["type"] == "view" and f["view"]["phase"] == "playing")
    assert them.hand_view["calls"] is None  # buried, not yet led
    lead = boss.hand_view["hand"].split()[0]
    seq = boss.seq
    await boss.socket.send_json_to({"type": "play", "seq": seq, "cards": lead})
    await them.until(lambda f: f["type"] == "view" and f["seq"] > seq)
    await watcher.until(lambda f: f["type"] == "view" and f["seq"] > seq)
    for peer in (them, watcher):
        assert [f"{c['ordinal']}{c['card']}" for c in peer.hand_view["calls"]] == hint_calls(boss)
        assert all(c["seat"] is None or c["seen"] for c in peer.hand_view["calls"])
    # No frame to another seat or the spectator held the calls before the first lead.
    for peer in (them, watcher):
        for frame in peer.frames:
            view = frame.get("view") or (frame.get("hand") or {}).get("view")
            if view and view.get("phase") in {"burying"}:
                assert view["calls"] is None
    for peer in (boss, them, watcher):
        await peer.socket.disconnect()


def hint_calls(peer: Peer) -> list[str]:
    return [f"{c['ordinal']}{c['card']}" for c in peer.hand_view["calls"]]
