"""games/groupwatch.py against the real Redis channel layer: sockets connecting together are
never taken for sockets whose groups Redis lost; a flush of the groups closes them all."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from channels.layers import get_channel_layer
from django.conf import settings

from games import groupwatch
from games.groupwatch import RESYNC_CLOSE_CODE, GroupWatch
from shengji_site.channel_layer import LocalFanoutChannelLayer


@dataclass(eq=False)
class Socket:
    """The part of a consumer the watch uses: its layer, and ``close``."""

    channel_layer: Any
    closed_with: list[int] = field(default_factory=list)

    async def close(self, code: int) -> None:
        self.closed_with.append(code)


async def connect_together(watch: GroupWatch, count: int) -> list[Socket]:
    layer = get_channel_layer()
    sockets = [Socket(layer) for _ in range(count)]
    await asyncio.gather(*(watch.add(socket) for socket in sockets))
    return sockets


def test_sockets_connecting_together_are_not_closed_as_lost(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A loaded server: the first socket's canary reaches Redis after the next socket's check
    # (they may use different connections of the pool).
    set_canary = groupwatch._set_canary

    async def slow_set_canary(connections: list[Any], key: str) -> None:
        await asyncio.sleep(0.05)
        await set_canary(connections, key)

    monkeypatch.setattr(groupwatch, "_set_canary", slow_set_canary)

    async def scenario() -> list[list[int]]:
        watch = GroupWatch()
        sockets = await connect_together(watch, 20)
        await watch._check(sockets[0].channel_layer)  # as the periodic check does
        for socket in sockets:
            watch.discard(socket)
        return [socket.closed_with for socket in sockets]

    assert asyncio.run(scenario()) == [[]] * 20


def test_every_socket_is_closed_for_resync_when_redis_loses_the_groups(redis_url: str) -> None:
    async def scenario() -> tuple[list[list[int]], list[int]]:
        watch = GroupWatch()
        sockets = await connect_together(watch, 3)
        prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
        client = redis.Redis.from_url(redis_url)
        client.delete(*client.keys(f"{prefix}:canary:*"))
        await watch._check(sockets[0].channel_layer)
        late = Socket(sockets[0].channel_layer)  # connects after the loss was seen: kept
        await watch.add(late)
        watch.discard(late)
        return [socket.closed_with for socket in sockets], late.closed_with

    closed, late = asyncio.run(scenario())
    assert closed == [[RESYNC_CLOSE_CODE]] * 3
    assert late == []


def a_process(redis_url: str, prefix: str) -> LocalFanoutChannelLayer:
    """One server process's channel layer: its channels are ``specific.<client_prefix>!…``."""
    return LocalFanoutChannelLayer(hosts=[{"address": redis_url}], prefix=prefix)


def test_a_killed_processs_channels_leave_their_groups_and_no_other(redis_url: str) -> None:
    """Three processes with a socket each in one group: one watched and alive, one watched
    whose alive key lapsed (killed: nothing refreshes it), one that never registered (another
    version of the code). The sweep takes out the killed one's channel alone, forgets that
    process, and looks again only after ``JANITOR_EVERY_S``."""
    prefix = f"test-janitor-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    group_key = f"{prefix}:group:table_9"

    async def scenario() -> dict[str, str]:
        layers = {name: a_process(redis_url, prefix) for name in ("killed", "alive", "older")}
        channels = {}
        for name, layer in layers.items():
            channels[name] = await layer.new_channel()
            await layer.group_add("table_9", channels[name])
        for name in ("killed", "alive"):
            watch = GroupWatch()
            watch.prefix = prefix
            socket = Socket(layers[name])
            await watch.add(socket)
            watch.discard(socket)
        for layer in layers.values():
            await layer.close_pools()
        return channels

    channels = asyncio.run(scenario())
    killed = groupwatch.process_of(channels["killed"])
    assert client.ttl(groupwatch.alive_key(prefix, killed)) > 0
    client.delete(groupwatch.alive_key(prefix, killed))  # lapsed: its process is gone

    assert groupwatch.forget_dead_channels(client, prefix) == 1
    members = {groupwatch.text(m) for m in client.zrange(group_key, 0, -1)}
    assert members == {channels["alive"], channels["older"]}
    registered = {groupwatch.text(m) for m in client.smembers(groupwatch.registry_key(prefix))}
    assert registered == {groupwatch.process_of(channels["alive"])}

    client.zadd(group_key, {channels["killed"]: 1})  # back in, as a leftover would be
    client.sadd(groupwatch.registry_key(prefix), killed)
    assert groupwatch.forget_dead_channels(client, prefix) == 0  # within the minute: not again
    client.delete(f"{prefix}:janitor")
    assert groupwatch.forget_dead_channels(client, prefix) == 1
    for key in client.scan_iter(match=f"{prefix}*"):
        client.delete(key)
