"""Pings without PostgreSQL (issue 19): the pong's position comes from a Redis key the mover
sets (games/positions.py), the database only when the key is gone (a Redis restart) or stale;
the socket's row is touched once a third of the connection timeout, not on every ping.
And a seq gap: a socket that missed a change is sent a ``state`` instead of the next view."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
import redis
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import positions, realtime, services
from games.feed import GAP_WAIT_S
from games.models import Hand, SeatConnection
from games.realtime import hand_view_message, table_group
from proof.fuzz import session_headers
from shengji_site.asgi import application
from tests.games.helpers import advance, make_table, make_users, seat_all

pytestmark = [pytest.mark.django_db(transaction=True)]
TIMEOUT = 15
LONG_AGO = timedelta(days=365)


def a_table_with_a_hand() -> tuple[int, int, list[Any]]:
    users = make_users()
    table = make_table(users[0])
    hand = seat_all(table, users)  # no worker: the hand waits at seq 0 for its deal
    return table.pk, hand.pk, users


def forget_positions() -> None:
    """What a Redis restart without its data does to the positions."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    keys = list(client.scan_iter(match=f"{settings.SHENGJI_POSITION_PREFIX}:*"))
    if keys:
        client.delete(*keys)


def position_key_ttl_ms(table_id: int) -> int:
    client = redis.Redis.from_url(settings.REDIS_URL)
    return int(client.pttl(f"{settings.SHENGJI_POSITION_PREFIX}:{table_id}"))


def set_seq_behind_redis(hand_id: int, seq: int) -> None:
    """Move the hand in the database only: no publish, so the Redis key does not know."""
    Hand.objects.filter(pk=hand_id).update(seq=seq)


def ping_queries(table_id: int, sent: positions.Position) -> tuple[Any, int]:
    """The ping's service in this thread, and how many queries it made here."""
    with CaptureQueriesContext(connection) as queries:
        position = services.socket_ping(
            table_id=table_id, owner="user:0", channel_name="ping-test", sent=sent
        )
    return position, len(queries.captured_queries)


def test_the_mover_sets_the_position_and_a_ping_then_reads_no_database() -> None:
    table_id, hand_id, _users = a_table_with_a_hand()  # the hand's start published seq 0
    assert ping_queries(table_id, (hand_id, 0)) == ((hand_id, 0), 0)
    assert 0 < position_key_ttl_ms(table_id) <= settings.SHENGJI_POSITION_TTL_S * 1000
    # The deal: one change logs every draw; the mover moves the key with it.
    assert advance(Hand.objects.get(pk=hand_id))
    seq = Hand.objects.get(pk=hand_id).seq
    assert seq > 1
    assert ping_queries(table_id, (hand_id, seq)) == ((hand_id, seq), 0)


def test_a_ping_after_redis_lost_the_position_reads_the_database_and_sets_it_again() -> None:
    table_id, hand_id, _users = a_table_with_a_hand()
    set_seq_behind_redis(hand_id, 7)
    forget_positions()
    position, queries = ping_queries(table_id, (hand_id, 0))
    assert position == (hand_id, 7) and queries == 1
    assert ping_queries(table_id, (hand_id, 0)) == ((hand_id, 7), 0)  # kept again


def test_a_key_older_than_what_the_socket_was_sent_is_stale_and_never_taken_back() -> None:
    table_id, hand_id, _users = a_table_with_a_hand()
    set_seq_behind_redis(hand_id, 7)  # a change whose publish failed, a later view got through
    position, queries = ping_queries(table_id, (hand_id, 7))
    assert position == (hand_id, 7) and queries == 1
    # A late publish of an older position (movers' publishes out of order) changes nothing.
    positions.position_set(table_id, (hand_id, 3))
    assert ping_queries(table_id, (hand_id, 0)) == ((hand_id, 7), 0)


def test_a_stale_key_lives_no_longer_than_its_ttl(settings: Any) -> None:
    settings.SHENGJI_POSITION_TTL_S = 0.3
    table_id, hand_id, _users = a_table_with_a_hand()
    positions.position_set(table_id, (hand_id, 0))
    set_seq_behind_redis(hand_id, 7)  # the publish of seq 7 failed: nobody was told
    assert ping_queries(table_id, (hand_id, 0)) == ((hand_id, 0), 0)
    time.sleep(0.4)
    assert ping_queries(table_id, (hand_id, 0)) == ((hand_id, 7), 1)


def test_a_table_without_a_hand_has_no_position_and_a_void_hand_is_forgotten() -> None:
    users = make_users()
    table = make_table(users[0])
    assert ping_queries(table.pk, positions.NO_HAND) == (None, 1)
    assert ping_queries(table.pk, positions.NO_HAND) == (None, 0)
    hand = seat_all(table, users)
    assert ping_queries(table.pk, positions.NO_HAND)[0] == (hand.pk, 0)
    services.table_close(table_id=table.pk, actor=users[0], reason="test")
    assert ping_queries(table.pk, positions.NO_HAND) == (None, 1)


async def test_the_optimistic_moves_publish_sets_the_position_in_the_group_sends_trip() -> None:
    table_id, hand_id, users = await database_sync_to_async(a_table_with_a_hand)()
    layer = get_channel_layer()
    assert layer.shares_redis(settings.REDIS_URL)  # the site's layer: one trip for both
    occupants: list[int | None] = [u.pk for u in users]
    await realtime.hand_changed_async(table_id, view_message(hand_id, 9, 8, occupants))
    assert await database_sync_to_async(positions.table_position)(table_id) == (hand_id, 9)
    assert 0 < position_key_ttl_ms(table_id) <= settings.SHENGJI_POSITION_TTL_S * 1000
    # A publish of an older position that arrives late does not take the key back.
    await realtime.hand_changed_async(table_id, view_message(hand_id, 8, 7, occupants))
    assert await database_sync_to_async(positions.table_position)(table_id) == (hand_id, 9)


# --- on a socket -----------------------------------------------------------------------------


async def open_socket(table_id: int, user: Any | None) -> WebsocketCommunicator:
    headers = await database_sync_to_async(session_headers)(user)
    socket = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    return socket


async def pong(socket: WebsocketCommunicator) -> dict[str, Any]:
    """The pong's position (its server clock, `now`, checked and left out)."""
    await socket.send_json_to({"type": "ping"})
    frame: dict[str, Any] = await socket.receive_json_from(timeout=TIMEOUT)
    assert frame["type"] == "pong" and isinstance(frame.pop("now"), int)
    return frame


def last_seen_set_long_ago(table_id: int) -> Any:
    row = SeatConnection.objects.get(seat__table_id=table_id, seat__index=0)
    row.last_seen -= LONG_AGO
    row.save(update_fields=["last_seen"])
    return row.last_seen


def last_seen(table_id: int) -> Any:
    return SeatConnection.objects.get(seat__table_id=table_id, seat__index=0).last_seen


async def test_a_socket_s_pong_comes_from_redis_and_after_a_restart_from_the_database(
    settings: Any,
) -> None:
    settings.SHENGJI_CONNECTION_TIMEOUT_S = 6  # the row is touched every 2 s at most
    table_id, hand_id, users = await database_sync_to_async(a_table_with_a_hand)()
    socket = await open_socket(table_id, users[0])
    long_ago = await database_sync_to_async(last_seen_set_long_ago)(table_id)
    await database_sync_to_async(set_seq_behind_redis)(hand_id, 7)

    # The key holds seq 0, the database 7: the pong tells Redis's, and the row is not touched.
    assert await pong(socket) == {"type": "pong", "hand": hand_id, "seq": 0}
    assert await database_sync_to_async(last_seen)(table_id) == long_ago

    # Redis restarted without its data: the database answers, and the key is set again.
    await database_sync_to_async(forget_positions)()
    assert await pong(socket) == {"type": "pong", "hand": hand_id, "seq": 7}
    assert await database_sync_to_async(position_key_ttl_ms)(table_id) > 0

    # A third of the timeout after the last touch, a ping touches the row again.
    await asyncio.sleep(2.1)
    await pong(socket)
    assert await database_sync_to_async(last_seen)(table_id) > long_ago + LONG_AGO / 2
    await socket.disconnect()


def channel_of_seat(table_id: int, index: int) -> str:
    row = SeatConnection.objects.get(seat__table_id=table_id, seat__index=index)
    return row.channel_name


def view_message(hand_id: int, seq: int, prev: int, occupants: list[int | None]) -> dict[str, Any]:
    views = [{"seat": n, "seq": seq} for n in range(4)]
    return hand_view_message(
        hand_id, seq, views, {"seat": None, "seq": seq}, occupants, [False] * 4, prev=prev
    )


async def frames_until_quiet(socket: WebsocketCommunicator) -> list[dict[str, Any]]:
    frames = []
    while not await socket.receive_nothing(timeout=0.5):
        frames.append(await socket.receive_json_from(timeout=TIMEOUT))
    return frames


async def test_a_socket_that_missed_a_change_gets_a_state_instead_of_the_next_view() -> None:
    table_id, hand_id, users = await database_sync_to_async(a_table_with_a_hand)()
    occupants: list[int | None] = [u.pk for u in users]
    missing = await open_socket(table_id, None)  # a spectator: will miss seq 6
    seated = await open_socket(table_id, users[1])
    seated_channel = await database_sync_to_async(channel_of_seat)(table_id, 1)
    layer = get_channel_layer()
    group = table_group(table_id)

    # The deal: one change may log several draws, seq 0 → 5. No gap: both get the view.
    await layer.group_send(group, view_message(hand_id, 5, 0, occupants))
    for socket in (missing, seated):
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert (frame["type"], frame["seq"]) == ("view", 5)
    # seq 6 reaches the seated socket only: the spectator's copy was lost.
    await layer.send(seated_channel, view_message(hand_id, 6, 5, occupants))
    assert (await seated.receive_json_from(timeout=TIMEOUT))["seq"] == 6

    await layer.group_send(group, view_message(hand_id, 7, 6, occupants))
    seen = await seated.receive_json_from(timeout=TIMEOUT)
    assert (seen["type"], seen["view"]) == ("view", {"seat": 1, "seq": 7})
    # The spectator waits a while for seq 6 (it may only be late), then sends a state instead
    # of the view: the state holds it all.
    started = asyncio.get_running_loop().time()
    frame = await missing.receive_json_from(timeout=TIMEOUT)
    assert frame["type"] == "state" and frame["hand"]["id"] == hand_id
    assert asyncio.get_running_loop().time() - started >= GAP_WAIT_S * 0.9
    assert await frames_until_quiet(missing) == []
    assert await frames_until_quiet(seated) == []  # no other socket refreshed

    # The spectator goes on from its state's seq (0, the database's): the next change follows.
    await layer.group_send(group, view_message(hand_id, 8, 0, occupants))
    assert [(f["type"], f.get("seq")) for f in await frames_until_quiet(missing)] == [("view", 8)]
    await missing.disconnect()
    await seated.disconnect()


async def test_views_that_come_in_the_wrong_order_are_sent_in_order_without_a_state() -> None:
    """Two processes' publishes of consecutive changes can cross on the way to a socket."""
    table_id, hand_id, users = await database_sync_to_async(a_table_with_a_hand)()
    sockets = [await open_socket(table_id, None), await open_socket(table_id, users[2])]
    layer = get_channel_layer()
    group = table_group(table_id)
    occupants: list[int | None] = [u.pk for u in users]
    await layer.group_send(group, view_message(hand_id, 9, 5, occupants))  # after seq 5 …
    await layer.group_send(group, view_message(hand_id, 12, 9, occupants))
    await asyncio.sleep(0.2)
    await layer.group_send(group, view_message(hand_id, 5, 0, occupants))  # … which came late
    for socket in sockets:
        frames = await frames_until_quiet(socket)
        assert [(f["type"], f["seq"]) for f in frames] == [("view", 5), ("view", 9), ("view", 12)]
    await asyncio.sleep(GAP_WAIT_S)
    for socket in sockets:  # and no state after the wait
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()


async def test_real_changes_chain_their_prev_and_no_socket_refreshes() -> None:
    table_id, hand_id, users = await database_sync_to_async(a_table_with_a_hand)()
    socket = await open_socket(table_id, users[0])
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(table_group(table_id), listener)

    seqs = [0]
    for _ in range(2):  # the whole deal in one change, then the bid window's close
        hand = await database_sync_to_async(Hand.objects.get)(pk=hand_id)
        assert await database_sync_to_async(advance)(hand)
        message = await asyncio.wait_for(layer.receive(listener), TIMEOUT)
        assert message["prev"] == seqs[-1] < message["seq"]
        seqs.append(message["seq"])
    assert seqs[1] > 1  # several draws logged by one change
    frames = await frames_until_quiet(socket)
    assert [(f["type"], f["seq"]) for f in frames] == [("view", seq) for seq in seqs[1:]]
    await layer.group_discard(table_group(table_id), listener)
    await socket.disconnect()
