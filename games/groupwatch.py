"""Closing the sockets of a server process when Redis has lost their channel groups.

Group memberships live in Redis. When Redis restarts without its data (or is flushed), every
membership is gone, but a socket may outlive the outage: channels-redis reconnects silently
when Redis is back before the socket's next read, and the socket then stays open and never
hears of a change again. So each server process keeps a canary key in Redis, beside the
groups, and checks it every ``SHENGJI_GROUPS_CHECK_S`` seconds while it has sockets open, and
whenever a socket connects. When the canary is gone, the process closes every socket it holds
with ``RESYNC_CLOSE_CODE``; the clients reconnect and get a fresh ``state`` (docs/PROTOCOL.md).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from typing import Any

from django.conf import settings
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RESYNC_CLOSE_CODE = 4012  # "reconnect and ask for the state again"
CANARY_TTL_S = 3600  # refreshed at every check: it only lapses when nobody checks


class GroupWatch:
    """The sockets of this process and the canary that tells whether their groups still exist."""

    def __init__(self) -> None:
        self.sockets: weakref.WeakSet[Any] = weakref.WeakSet()
        layers: dict[str, Any] = settings.CHANNEL_LAYERS
        prefix = layers["default"].get("CONFIG", {}).get("prefix", "asgi")
        self.key = f"{prefix}:canary:{uuid.uuid4().hex}"
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
            if all(kept):
                return False
            await _set_canary(connections, self.key)
        except (RedisError, OSError):
            return False  # Redis is down: the sockets' own reads fail and close them
        return True

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


watch = GroupWatch()
