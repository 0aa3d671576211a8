"""Closing the sockets of a server process when Redis has lost their channel groups.

Group memberships live in Redis. When Redis restarts without its data (or is flushed), every
membership is gone, but a socket may outlive the outage: channels-redis reconnects silently
when Redis is back before the socket's next read, and the socket then stays open and never
hears of a change again. So each server process keeps a canary key in Redis, beside the
groups, and checks it every ``SHENGJI_GROUPS_CHECK_S`` seconds while it has sockets open, and
whenever a socket connects. When the canary is gone, the process closes every socket it holds
with ``RESYNC_CLOSE_CODE``; the clients reconnect and get a fresh ``state`` (docs/PROTOCOL.md).

A process killed outright (``kill -9``, a crash) never runs its sockets' disconnects, so their
channels stay in their groups in Redis, each group send writing to them, until channels-redis's
group expiry (a day). So each watching process also says it is alive: it registers its channels'
prefix (``client_prefix``) in a set and refreshes a key with a lifetime of
``SHENGJI_CHANNELS_ALIVE_S`` at every check. The worker's sweep, at most once a
``JANITOR_EVERY_S``, takes out of every group the channels of a registered process whose key
lapsed (``forget_dead_channels``). A process that never registered (another version of the
code) is left alone.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from typing import Any

import redis
from django.conf import settings
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RESYNC_CLOSE_CODE = 4012  # "reconnect and ask for the state again"
CANARY_TTL_S = 3600  # refreshed at every check: it only lapses when nobody checks
JANITOR_EVERY_S = 60  # the sweep looks for a dead process's channels at most this often


def layer_prefix() -> str:
    layers: dict[str, Any] = settings.CHANNEL_LAYERS
    return str(layers["default"].get("CONFIG", {}).get("prefix", "asgi"))


def alive_key(prefix: str, process: str) -> str:
    return f"{prefix}:alive:{process}"


def registry_key(prefix: str) -> str:
    """The set of the channel prefixes of the processes that say they are alive."""
    return f"{prefix}:processes"


def process_of(channel: str) -> str:
    """The ``client_prefix`` of the process a channel belongs to: ``specific.<it>!<id>``."""
    return channel.partition("!")[0].rpartition(".")[2]


class GroupWatch:
    """The sockets of this process and the canary that tells whether their groups still exist."""

    def __init__(self) -> None:
        self.sockets: weakref.WeakSet[Any] = weakref.WeakSet()
        self.prefix = layer_prefix()
        self.key = f"{self.prefix}:canary:{uuid.uuid4().hex}"
        self.task: asyncio.Task[None] | None = None
        # One check at a time: sockets connecting together after a restart must not each find
        # the canary gone and close the ones that came back just before them.
        self.checking: asyncio.Lock | None = None

    async def add(self, consumer: Any) -> None:
        """Watch ``consumer`` (call before it joins its groups)."""
        connections = _connections(consumer.channel_layer)
        if not connections:
            return  # not a Redis layer: nothing can be lost behind our back
        if self.task is None or self.task.done() or self.task.get_loop() is not _loop():
            self.checking = asyncio.Lock()
            self.task = asyncio.create_task(self._run(consumer.channel_layer))
            # No socket was watched, so none can have lost its groups: a fresh canary. Held
            # under the lock (taken here without yielding): a socket connecting meanwhile must
            # not check before the canary is set, find none, and close this one.
            async with self.checking:
                self.sockets.add(consumer)
                await _set_canary(connections, self.key)
                await self._say_alive(consumer.channel_layer)
            return
        # The first socket back after Redis lost its data closes the deaf ones at once.
        await self._check(consumer.channel_layer)
        self.sockets.add(consumer)

    def discard(self, consumer: Any) -> None:
        self.sockets.discard(consumer)
        if not self.sockets and self.task is not None:
            self.task.cancel()
            self.task = None  # the next socket starts a new watch (this one may not be done yet)

    async def _run(self, layer: Any) -> None:
        while True:  # until cancelled: a socket whose consumer crashed is never discarded
            await asyncio.sleep(settings.SHENGJI_GROUPS_CHECK_S)
            await self._check(layer)

    async def _check(self, layer: Any) -> None:
        assert self.checking is not None
        async with self.checking:
            if await self._groups_lost(layer):
                await self._close_all()

    async def _groups_lost(self, layer: Any) -> bool:
        connections = _connections(layer)
        try:
            kept = [await connection.expire(self.key, CANARY_TTL_S) for connection in connections]
            await self._say_alive(layer)
            if all(kept):
                return False
            await _set_canary(connections, self.key)
        except (RedisError, OSError):
            return False  # Redis is down: the sockets' own reads fail and close them
        return True

    async def _say_alive(self, layer: Any) -> None:
        """This process's channels are live for ``SHENGJI_CHANNELS_ALIVE_S`` more."""
        process = getattr(layer, "client_prefix", None)
        if process is None:
            return
        for connection in _connections(layer):
            async with connection.pipeline(transaction=False) as pipe:
                pipe.set(alive_key(self.prefix, process), 1, ex=settings.SHENGJI_CHANNELS_ALIVE_S)
                pipe.sadd(registry_key(self.prefix), process)
                await pipe.execute()

    async def _close_all(self) -> None:
        sockets = list(self.sockets)
        logger.warning("Redis lost the channel groups: closing %d sockets", len(sockets))
        for consumer in sockets:
            self.sockets.discard(consumer)
            try:
                await consumer.close(code=RESYNC_CLOSE_CODE)
            except Exception:  # one socket already gone must not keep the others open
                logger.exception("closing a socket after Redis lost its groups failed")


def _loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def _connections(layer: Any) -> list[Any]:
    """The layer's Redis connections (one per shard), or none for a layer without Redis."""
    connection = getattr(layer, "connection", None)
    if connection is None:
        return []
    return [connection(index) for index in range(getattr(layer, "ring_size", 1))]


async def _set_canary(connections: list[Any], key: str) -> None:
    for connection in connections:
        await connection.set(key, 1, ex=CANARY_TTL_S)


def forget_dead_channels(client: redis.Redis, prefix: str) -> int:
    """Take out of every group the channels of the registered processes whose alive key
    lapsed, then forget those processes; at most once a ``JANITOR_EVERY_S`` across workers.
    The number of channels taken out."""
    if not client.set(f"{prefix}:janitor", 1, nx=True, ex=JANITOR_EVERY_S):
        return 0
    dead = _dead_processes(client, prefix)
    if not dead:
        return 0
    removed = 0
    for key in client.scan_iter(match=f"{prefix}:group:*", count=500):
        members: list[bytes] = client.zrange(key, 0, -1)  # type: ignore[assignment]
        gone = [m for m in members if process_of(text(m)) in dead]
        if gone:
            removed += int(client.zrem(key, *gone))
    client.srem(registry_key(prefix), *dead)
    if removed:
        logger.warning(
            "took %d channels of %d dead processes out of their groups", removed, len(dead)
        )
    return removed


def _dead_processes(client: redis.Redis, prefix: str) -> set[str]:
    known = sorted(text(m) for m in client.smembers(registry_key(prefix)))
    if not known:
        return set()
    with client.pipeline(transaction=False) as pipe:
        for process in known:
            pipe.exists(alive_key(prefix, process))
        alive = pipe.execute()
    return {process for process, live in zip(known, alive, strict=True) if not live}


def text(value: Any) -> str:
    """A Redis reply as text (the clients answer bytes)."""
    return value.decode() if isinstance(value, bytes) else value


watch = GroupWatch()
