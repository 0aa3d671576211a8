"""The channel layer (shengji_site/channel_layer.py) on a real Redis: a group's members in the
sending process get its messages straight, in order, with nothing written to Redis for them;
the members of another process get them through Redis as channels-redis sends them."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.exceptions import RedisError

from shengji_site.channel_layer import LocalFanoutChannelLayer
from shengji_site.embedded import EmbeddedRedis, free_port

TIMEOUT = 5
# Redis paused for far longer than a delivery within the process may take on a busy machine:
# what arrives within HERE_S cannot have come through Redis.
PAUSE_MS = 4_000
HERE_S = 1.5


@pytest.fixture
def prefix(redis_url: str) -> str:
    return f"test-fanout-{uuid.uuid4().hex[:8]}"


def process(redis_url: str, prefix: str, capacity: int = 100) -> LocalFanoutChannelLayer:
    """One server process's layer (each has its own inbox in Redis)."""
    host = {"address": redis_url, "socket_timeout": 30}  # as the site's: longer than a wait
    return LocalFanoutChannelLayer(hosts=[host], prefix=prefix, capacity=capacity)


def inboxes(redis_url: str, prefix: str) -> int:
    """Messages waiting in Redis in the processes' inboxes (groups aside)."""
    client = redis.Redis.from_url(redis_url)
    keys = [k for k in client.keys(f"{prefix}*") if b":group:" not in k]
    return sum(int(client.zcard(key)) for key in keys)


async def listening(layer: LocalFanoutChannelLayer, channel: str) -> asyncio.Task[Any]:
    """A socket's receive under way, as a consumer's is."""
    task = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0.05)
    return task


async def test_members_here_get_it_straight_and_those_elsewhere_through_redis(
    redis_url: str, prefix: str
) -> None:
    here, elsewhere = process(redis_url, prefix), process(redis_url, prefix)
    mine = [await here.new_channel(), await here.new_channel()]
    theirs = await elsewhere.new_channel()
    for channel in [*mine, theirs]:
        await here.group_add("table_1", channel)
    receiving = [await listening(here, channel) for channel in mine]
    far = await listening(elsewhere, theirs)

    await here.group_send("table_1", {"type": "hand.view", "seq": 1})
    got = await asyncio.wait_for(asyncio.gather(*receiving, far), TIMEOUT)
    assert got == [{"type": "hand.view", "seq": 1}] * 3
    assert inboxes(redis_url, prefix) == 0  # the far one's was read; none was written for ours
    await here.flush()
    await here.close_pools()
    await elsewhere.close_pools()


async def test_a_members_messages_here_come_in_order_and_redis_holds_none(
    redis_url: str, prefix: str
) -> None:
    here = process(redis_url, prefix)
    channel = await here.new_channel()
    await here.group_add("table_2", channel)
    first = await listening(here, channel)
    for seq in range(5):
        await here.group_send("table_2", {"type": "hand.view", "seq": seq})
    assert inboxes(redis_url, prefix) == 0
    got = [await asyncio.wait_for(first, TIMEOUT)]
    got += [await asyncio.wait_for(here.receive(channel), TIMEOUT) for _ in range(4)]
    assert [m["seq"] for m in got] == [0, 1, 2, 3, 4]
    await here.flush()
    await here.close_pools()


async def test_a_send_from_another_loop_goes_through_redis_and_still_arrives(
    redis_url: str, prefix: str
) -> None:
    """A process whose sockets have not received yet (or a send from a loop of its own, as
    in a Celery task) sends through Redis, and the message still comes."""
    here = process(redis_url, prefix)
    channel = await here.new_channel()
    await here.group_add("table_3", channel)
    await here.group_send("table_3", {"type": "chat.line", "line": "a"})
    assert inboxes(redis_url, prefix) == 1
    got = await asyncio.wait_for(here.receive(channel), TIMEOUT)
    assert got == {"type": "chat.line", "line": "a"}
    await here.flush()
    await here.close_pools()


async def test_a_full_inbox_drops_the_oldest_and_left_members_get_nothing(
    redis_url: str, prefix: str
) -> None:
    here = process(redis_url, prefix, capacity=3)
    channel, gone = await here.new_channel(), await here.new_channel()
    for member in (channel, gone):
        await here.group_add("table_4", member)
    first = await listening(here, channel)
    await here.group_discard("table_4", gone)
    await here.group_send("table_4", {"seq": 0})
    assert (await asyncio.wait_for(first, TIMEOUT))["seq"] == 0
    for seq in range(1, 6):  # nobody reading: past capacity the oldest go
        await here.group_send("table_4", {"seq": seq})
    got = [await asyncio.wait_for(here.receive(channel), TIMEOUT) for _ in range(3)]
    assert [m["seq"] for m in got] == [3, 4, 5]
    assert gone not in here.receive_buffer
    await here.flush()
    await here.close_pools()


async def test_a_command_sent_with_a_group_send_runs_first_in_the_same_trip(
    redis_url: str, prefix: str
) -> None:
    here = process(redis_url, prefix)
    mine = await here.new_channel()
    await here.group_add("table_2", mine)
    receiving = await listening(here, mine)
    key = f"{prefix}:first"
    await here.group_send_after("table_2", {"type": "hand.view", "seq": 2}, first=("SET", key, "7"))
    assert await asyncio.wait_for(receiving, TIMEOUT) == {"type": "hand.view", "seq": 2}
    assert redis.Redis.from_url(redis_url).get(key) == b"7"
    assert here.shares_redis(redis_url) and not here.shares_redis("redis://elsewhere:6379/0")
    await here.flush()
    await here.close_pools()


async def test_a_failing_command_sent_with_a_group_send_does_not_stop_the_send(
    redis_url: str, prefix: str
) -> None:
    here = process(redis_url, prefix)
    mine = await here.new_channel()
    await here.group_add("table_3", mine)
    receiving = await listening(here, mine)
    broken = ("EVAL", "return redis.call('NOSUCHCOMMAND')", 0)
    await here.group_send_after("table_3", {"type": "hand.view", "seq": 3}, first=broken)
    assert await asyncio.wait_for(receiving, TIMEOUT) == {"type": "hand.view", "seq": 3}
    await here.flush()
    await here.close_pools()


async def test_members_here_get_it_before_redis_answers(redis_url: str, prefix: str) -> None:
    """Redis is paused (every client's commands wait): the member in the sending process has
    the message at once, and the send ends once Redis answers (for members elsewhere)."""
    here = process(redis_url, prefix)
    mine = await here.new_channel()
    await here.group_add("table_5", mine)
    receiving = await listening(here, mine)
    admin = redis.Redis.from_url(redis_url)
    admin.client_pause(PAUSE_MS, all=True)
    try:
        sending = asyncio.ensure_future(here.group_send("table_5", {"type": "hand.view", "seq": 5}))
        got = await asyncio.wait_for(receiving, HERE_S)
        assert got == {"type": "hand.view", "seq": 5}
        assert not sending.done()  # still waiting for Redis
    finally:
        admin.client_unpause()
    await asyncio.wait_for(sending, TIMEOUT)
    await here.flush()
    await here.close_pools()


async def test_a_soon_send_returns_once_members_here_have_it_and_redis_follows_in_order(
    redis_url: str, prefix: str
) -> None:
    """``group_send_soon`` with Redis paused: each send returns at once, the member here has
    every message, and the member elsewhere gets them all, in the order sent, once Redis is
    back."""
    here, elsewhere = process(redis_url, prefix), process(redis_url, prefix)
    mine, theirs = await here.new_channel(), await elsewhere.new_channel()
    await here.group_add("table_7", mine)
    await here.group_add("table_7", theirs)
    receiving = await listening(here, mine)
    admin = redis.Redis.from_url(redis_url)
    admin.client_pause(PAUSE_MS, all=True)
    try:
        for seq in range(5):
            await asyncio.wait_for(here.group_send_soon("table_7", {"seq": seq}), HERE_S)
        got = [await asyncio.wait_for(receiving, HERE_S)]
        got += [await asyncio.wait_for(here.receive(mine), HERE_S) for _ in range(4)]
        assert [m["seq"] for m in got] == [0, 1, 2, 3, 4]
        assert len(here.sending) == 1  # the last of the chain, waiting for Redis
    finally:
        admin.client_unpause()
    far = [await asyncio.wait_for(elsewhere.receive(theirs), TIMEOUT) for _ in range(5)]
    assert [m["seq"] for m in far] == [0, 1, 2, 3, 4]
    await asyncio.sleep(0.05)
    assert here.sending == {}
    await here.flush()
    await here.close_pools()
    await elsewhere.close_pools()


async def test_this_process_lists_its_own_members_as_they_join_and_leave(
    redis_url: str, prefix: str
) -> None:
    """The process's own list follows its adds and discards (another process's sockets are
    not in it); a member that left gets nothing, through neither path."""
    here, elsewhere = process(redis_url, prefix), process(redis_url, prefix)
    mine, theirs = await here.new_channel(), await elsewhere.new_channel()
    await here.group_add("table_6", mine)
    await here.group_add("table_6", theirs)
    assert here.local_members == {"table_6": {mine}}
    staying = await here.new_channel()
    await here.group_add("table_6", staying)
    receiving = await listening(here, staying)
    await here.group_discard("table_6", mine)
    assert here.local_members == {"table_6": {staying}}
    await here.group_send("table_6", {"seq": 6})
    assert await asyncio.wait_for(receiving, TIMEOUT) == {"seq": 6}
    assert mine not in here.receive_buffer
    far = await asyncio.wait_for(elsewhere.receive(theirs), TIMEOUT)
    assert far == {"seq": 6}
    await here.group_discard("table_6", staying)
    assert here.local_members == {}
    await here.flush()
    await here.close_pools()
    await elsewhere.close_pools()


async def test_a_soon_send_hands_a_message_at_once_to_the_sockets_that_take_it(
    redis_url: str, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Three sockets here take messages at once: one takes it (its queue gets nothing), one
    declines (busy: it is queued, and counted), one fails (logged; the others still get it,
    and it is not queued again). A socket without a handler is queued as before."""
    here = process(redis_url, prefix)
    taker, busy, failing, plain = [await here.new_channel() for _ in range(4)]
    taken: list[tuple[str, dict[str, Any], int]] = []

    def handler(channel: str, takes: bool) -> Any:
        async def take(message: dict[str, Any], queued: int) -> bool:
            taken.append((channel, message, queued))
            if channel == failing:
                raise RuntimeError("the socket broke")
            return takes

        return take

    for channel, takes in [(taker, True), (busy, False), (failing, True)]:
        here.take_at_once(channel, handler(channel, takes))
    for channel in [failing, taker, busy, plain]:
        await here.group_add("table_9", channel)
    receiving = await listening(here, plain)  # this loop is the one the sockets receive on
    await here.group_send_soon("table_9", {"type": "hand.view", "seq": 9})
    assert sorted(channel for channel, _, _ in taken) == sorted([taker, busy, failing])
    assert all(message == {"type": "hand.view", "seq": 9} and q == 0 for _, message, q in taken)
    assert "a socket failed to take a message at once" in caplog.text
    assert here.queued == {taker: 0, busy: 1, failing: 0}
    assert await asyncio.wait_for(here.receive(busy), HERE_S) == {"type": "hand.view", "seq": 9}
    assert await asyncio.wait_for(receiving, HERE_S) == {"type": "hand.view", "seq": 9}
    for channel in [taker, failing]:
        assert channel not in here.receive_buffer or here.receive_buffer[channel].empty()
    here.drop_at_once(busy)
    assert busy not in here.at_once and busy not in here.queued
    await here.flush()
    await here.close_pools()


async def test_a_soon_send_cancelled_while_a_socket_takes_it_queues_it_for_the_rest(
    redis_url: str, prefix: str
) -> None:
    """The sender is cancelled while the first socket is taking the message at once: that
    socket and every one not yet served find it in their queues."""
    here = process(redis_url, prefix)
    channels = [await here.new_channel() for _ in range(3)]
    started = asyncio.Event()

    async def stuck(message: dict[str, Any], queued: int) -> bool:
        started.set()
        await asyncio.sleep(60)
        return True

    for channel in channels:
        here.take_at_once(channel, stuck)
        await here.group_add("table_11", channel)
    await listening(here, await here.new_channel())  # the reader runs on this loop
    sending = asyncio.ensure_future(here.group_send_soon("table_11", {"type": "hand.view"}))
    await asyncio.wait_for(started.wait(), HERE_S)
    sending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sending
    for channel in channels:
        message = await asyncio.wait_for(here.receive(channel), HERE_S)
        assert message == {"type": "hand.view"}
    await here.flush()
    await here.close_pools()


async def test_messages_for_a_socket_that_delivers_into_its_servers_queue_go_there(
    redis_url: str, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A socket whose messages go into its server's queue (``deliver_into``) gets them there,
    in order, from this process and through Redis from another, and nothing waits in the
    layer's own queues. Past capacity the newest is dropped and not counted as queued (so
    the socket may still take messages at once); after ``stop_delivering`` its messages go
    to the layer's queue again."""
    here, elsewhere = process(redis_url, prefix, capacity=3), process(redis_url, prefix)
    channel = await here.new_channel()
    inbox: asyncio.Queue[Any] = asyncio.Queue()
    inbox.put_nowait({"type": "websocket.receive", "text": "{}"})  # the client's, first
    here.deliver_into(channel, inbox)
    here.take_at_once(channel, lambda message, queued: asyncio.sleep(0, False))
    await here.group_add("table_12", channel)

    await here.group_send("table_12", {"type": "hand.view", "seq": 1})
    await elsewhere.group_send("table_12", {"type": "hand.view", "seq": 2})
    for _ in range(100):
        if inbox.qsize() == 3:
            break
        await asyncio.sleep(0.02)
    got = [inbox.get_nowait() for _ in range(3)]
    assert got[0]["type"] == "websocket.receive"
    assert [m["seq"] for m in got[1:]] == [1, 2]
    assert channel not in here.receive_buffer
    assert here.queued[channel] == 2

    for seq in range(3, 7):  # nobody reading: three wait, the fourth is dropped
        await here.group_send_soon("table_12", {"type": "hand.view", "seq": seq})
    assert [inbox.get_nowait()["seq"] for _ in range(inbox.qsize())] == [3, 4, 5]
    assert here.queued[channel] == 5
    assert "one dropped" in caplog.text

    here.stop_delivering(channel)
    await here.group_send("table_12", {"type": "hand.view", "seq": 7})
    assert (await asyncio.wait_for(here.receive(channel), HERE_S))["seq"] == 7
    assert inbox.empty()
    await here.flush()
    await here.close_pools()
    await elsewhere.flush()
    await elsewhere.close_pools()


async def test_a_leave_that_redis_fails_is_logged_not_raised(
    tmp_path: Path, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis gone (killed for a restart): a socket's leave takes it off this process's list and
    returns, so the rest of its disconnect runs; a join still fails, as a connect must."""
    server = EmbeddedRedis(tmp_path / "redis", free_port(), persistent=False)
    server.start()
    try:
        layer = process(server.url, prefix)
        channel = await layer.new_channel()
        await layer.group_add("table_7", channel)
        assert layer.local_members == {"table_7": {channel}}
    finally:
        server.stop()
    await layer.group_discard("table_7", channel)
    assert layer.local_members == {}
    assert "left" in caplog.text and "table_7" in caplog.text
    with pytest.raises((RedisError, OSError)):
        await layer.group_add("table_7", channel)
    assert layer.local_members == {}
    await layer.close_pools()


async def test_a_burst_of_calls_waits_for_the_pools_connections_and_opens_no_more(
    tmp_path: Path, prefix: str
) -> None:
    """Every socket of a process leaving at once (Redis restarted) made as many calls at once:
    they share the pool's connections, none fails, and the process holds no more connections
    afterwards than the pool's size (redis-py's default pool kept one per call, up to 100)."""
    server = EmbeddedRedis(tmp_path / "redis", free_port(), persistent=False)
    server.start()
    try:
        host = {"address": server.url, "socket_timeout": 30, "max_connections": 4}
        layer = LocalFanoutChannelLayer(hosts=[host], prefix=prefix)
        channels = [await layer.new_channel() for _ in range(120)]
        await asyncio.gather(*(layer.group_add(f"table_{n}", c) for n, c in enumerate(channels)))
        await asyncio.gather(
            *(layer.group_discard(f"table_{n}", c) for n, c in enumerate(channels))
        )
        monitor = redis.Redis.from_url(server.url)
        others = int(monitor.info("clients")["connected_clients"]) - 1
        assert 1 <= others <= 4, f"{others} connections held after the burst"
        assert layer.local_members == {}
        assert not monitor.keys(f"{prefix}*group*")
        await layer.close_pools()
        monitor.close()
    finally:
        server.stop()
