"""The channel layer: channels-redis, with a group's sockets in this process served in it.

channels-redis carries every group message through Redis, even to a socket of the very process
that sends it: a sorted-set write by a Lua script, then this process's receive loop popping it
back and unpacking it. With a table's sockets on one process (docs/OPERATIONS.md, "Routing a
table to one process") that is every move's fan-out. Here each process also keeps which of its
own sockets are in which group (it adds and discards them itself): a group send hands the
message straight to those first, then asks Redis who else is in the group (one pipelined trip)
and sends through Redis only to the members elsewhere. A move's views reach the sockets of its
own process without waiting for Redis.

What stays as channels-redis has it: the group members are in Redis (so every process sees the
same groups, and a socket that joins or leaves is seen at once; this process's own list only
decides which of its sockets it serves itself); one message reaches a socket in
the order its sender sent it (a process's sends to its own sockets all go straight, its sends to
another process all through Redis); a socket's inbox holds at most ``capacity`` messages, the
oldest dropped past it (the newest, for a socket whose messages go into its server's queue:
``deliver_into``); and messages from other processes come as before. Only the event loop
the sockets receive on hands messages over straight (a send from another loop, a Celery task's
say, goes through Redis). The reader outlives a Redis restart: it reads again once Redis is
back (the messages lost meanwhile show as a gap, docs/PROTOCOL.md, and if Redis lost the groups
the group watch closes the sockets: games/groupwatch.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)
# A process's connections to Redis for its channel layer: at most POOL_SIZE, a call waiting up to
# POOL_WAIT_S for one to be free. redis-py's default pool opens a new connection whenever all
# are busy (up to 100) and keeps each for good, so a burst (every socket of a process closing
# at once when Redis restarts) left a process holding its burst's connections for ever, and
# past 100 it failed calls outright ("Too many connections"). Redis serves one command at a
# time: more connections than this add no throughput. ``CONFIG["hosts"]`` may set both.
POOL_SIZE = 32
POOL_WAIT_S = 20.0
# A socket's handler of a message at once (``take_at_once``): given the message and how many
# were queued for the socket so far, True if it took the message.
AtOnce = Callable[[dict[str, Any], int], Awaitable[bool]]


def _raise_if_cancelled() -> None:
    """Raise the cancellation asked of the running task, should a call have swallowed it."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class LocalFanoutChannelLayer(RedisChannelLayer):
    """One reader per process takes its inbox off Redis and sorts the messages into each
    socket's queue; a group send puts a message for a socket of this process into its queue
    itself. (channels-redis's own receive lets one waiting socket read Redis for all, so a
    message put straight into a queue would wait until Redis next answered that reader.)"""

    reader: asyncio.Task[None] | None = None
    reader_loop: asyncio.AbstractEventLoop | None = None
    # redis-py can swallow the cancellation of a blocking read (a known race of its asyncio
    # client): the reader checks for one before each read, so a short wait bounds how long a
    # cancelled reader (a closing event loop's) lives on.
    brpop_timeout = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # group → this process's sockets in it, from their add until their discard (a socket
        # open longer than ``group_expiry``, a day, is still served by its own process).
        self.local_members: dict[str, set[str]] = {}
        # group → this process's last Redis half of a ``group_send_soon``, until it is done.
        self.sending: dict[str, asyncio.Future[None]] = {}
        # channel → the socket's handler that takes a message at once (``take_at_once``), and
        # how many messages were put in its queue since (the socket counts those it took).
        self.at_once: dict[str, AtOnce] = {}
        self.queued: dict[str, int] = {}
        # channel → the queue its socket's one task reads (``deliver_into``).
        self.inboxes: dict[str, asyncio.Queue[Any]] = {}

    def create_pool(self, index: int) -> BlockingConnectionPool:
        """A bounded pool that waits for a free connection (``POOL_SIZE``, ``POOL_WAIT_S``)."""
        host = dict(self.hosts[index])
        host.setdefault("max_connections", POOL_SIZE)
        host.setdefault("timeout", POOL_WAIT_S)
        if "address" in host:
            return BlockingConnectionPool.from_url(host.pop("address"), **host)
        return BlockingConnectionPool(**host)

    async def group_add(self, group: str, channel: str) -> None:
        """Listed here before Redis hears of it: a send meanwhile already reaches the socket
        (which is joining, so may have it), and none finds it in Redis but not here."""
        ours = self._ours(channel)
        if ours:
            self.local_members.setdefault(group, set()).add(channel)
        try:
            await super().group_add(group, channel)
        except BaseException:
            if ours:
                self._unlist(group, channel)
            raise

    async def group_discard(self, group: str, channel: str) -> None:
        """Off this process's list at once; off Redis's when Redis answers. A leave that Redis
        fails (a restart, every connection of the pool busy reconnecting) is logged, not
        raised: raised, it ended a socket's disconnect before its seat's socket row and its
        counts were let go. The entry it leaves lapses with the group's expiry, or went with
        the restart (docs/proof/SOAK.md, *Found by the soak*)."""
        self._unlist(group, channel)
        try:
            await super().group_discard(group, channel)
        except (RedisError, OSError) as error:
            logger.warning("left %s in Redis's %s: %r", channel, group, error)

    def _unlist(self, group: str, channel: str) -> None:
        members = self.local_members.get(group)
        if members is not None:
            members.discard(channel)
            if not members:
                del self.local_members[group]

    async def flush(self) -> None:
        self.local_members.clear()
        await super().flush()

    async def _brpop_with_clean(self, index: int, channel: str, timeout: float) -> Any:
        _raise_if_cancelled()
        return await super()._brpop_with_clean(index, channel, timeout)

    async def receive(self, channel: str) -> Any:
        if "!" not in channel:
            return await super().receive(channel)
        self._read_inbox()
        queue = self.receive_buffer[channel]
        try:
            message = await queue.get()
        except asyncio.CancelledError:
            self.receive_buffer.pop(channel, None)  # the socket is gone (as channels-redis)
            raise
        if queue.empty():
            self.receive_buffer.pop(channel, None)
        return message

    def _read_inbox(self) -> None:
        """Start this process's reader in the running loop, unless it runs there already."""
        loop = asyncio.get_running_loop()
        if self.reader is not None and self.reader_loop is loop and not self.reader.done():
            return
        self.reader_loop = loop
        self.reader = loop.create_task(self._reader())

    async def _reader(self) -> None:
        inbox = f"specific.{self.client_prefix}!"
        while True:
            try:
                to, message = await self.receive_single(inbox)
            except (RedisError, OSError):
                _raise_if_cancelled()  # redis-py may have turned the cancellation into its own
                # Redis restarting: the messages sent meanwhile are lost (each socket sees the
                # gap in its next view or pong, docs/PROTOCOL.md); read again once it is back.
                logger.warning("channel layer: Redis unreachable, reading again in 1 s")
                await asyncio.sleep(1)
                continue
            for channel in to if isinstance(to, list) else [to]:
                self._queue(channel, message)

    def _queue(self, channel: str, message: dict[str, Any]) -> None:
        """Into the socket's queue, which its own task reads in order."""
        inbox = self.inboxes.get(channel)
        if inbox is None:
            self.receive_buffer[channel].put_nowait(message)
        elif inbox.qsize() < self.capacity:
            inbox.put_nowait(message)
        else:
            logger.warning("channel layer: a socket %s messages behind; one dropped", self.capacity)
            return
        if channel in self.at_once:
            self.queued[channel] += 1

    def deliver_into(self, channel: str, inbox: asyncio.Queue[Any]) -> None:
        """From now on this process puts the socket's messages straight into ``inbox``: the
        queue its ASGI server puts the client's messages in, which the socket's one task
        reads (``TableConsumer.__call__``). A message then wakes that task alone; channels'
        loop waits on a task per source instead, two turns of the event loop more before the
        message is handled. Past ``capacity`` waiting there, a message is dropped, as a full
        queue drops one (the socket sees the gap in its next view or pong, docs/PROTOCOL.md).
        Until ``stop_delivering``."""
        self._read_inbox()
        self.inboxes[channel] = inbox

    def stop_delivering(self, channel: str) -> None:
        self.inboxes.pop(channel, None)

    def take_at_once(self, channel: str, handler: AtOnce) -> None:
        """From now on ``group_send_soon`` may hand a message of the group to this socket of
        this process by awaiting ``handler(message)`` in the sender's task, rather than through
        its queue. The handler takes it only if the socket has taken every message queued for
        it and is not taking one now (it returns False otherwise, and the message is queued):
        so a socket's messages keep their order. Until ``drop_at_once`` (the socket closing)."""
        self.at_once[channel] = handler
        self.queued[channel] = 0

    def drop_at_once(self, channel: str) -> None:
        self.at_once.pop(channel, None)
        self.queued.pop(channel, None)

    async def close_pools(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            self.reader = None
        await super().close_pools()

    def _ours(self, channel: str) -> bool:
        """A channel of a socket in this process (channels-redis names them so)."""
        return "!" in channel and self.non_local_name(channel) == f"specific.{self.client_prefix}!"

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self.group_send_after(group, message)

    async def group_send_after(
        self, group: str, message: dict[str, Any], *, first: Sequence[Any] = ()
    ) -> None:
        """``group_send``, with one command of the caller's run first in the same round trip
        to Redis as the group's members are asked for (``first``: a command's arguments, as
        ``execute_command`` takes them, on the group's shard). Its reply is not read, and its
        error is logged, not raised; should Redis be unreachable, neither it nor the send is
        done (the caller's error, as for ``group_send``), but the members in this process
        have it already.

        From the loop this process's sockets receive on, those in the group get the message at
        once, before Redis is asked anything; from another loop (a thread's), every member gets
        it through Redis, as channels-redis sends it."""
        assert self.require_valid_group_name(group), "Group name not valid"
        here = self._on_reader_loop()
        if here:
            self._deliver_here(group, message)
        await self._send_elsewhere(group, message, first, here=here)

    async def group_send_soon(
        self, group: str, message: dict[str, Any], *, first: Sequence[Any] = ()
    ) -> None:
        """``group_send_after`` that returns once this process's members have the message: the
        round trip to Redis (``first``, the members elsewhere) is made after the caller goes
        on, behind this process's earlier ones for the group, so that they reach Redis in the
        order sent. Its failure is logged, not raised (the other processes' sockets see the
        gap in their next view, docs/PROTOCOL.md). A socket's handler that sends its move's
        views so has its own view at once. From another loop, ``group_send_after``."""
        assert self.require_valid_group_name(group), "Group name not valid"
        if not self._on_reader_loop():
            await self.group_send_after(group, message, first=first)
            return
        await self._hand_over_here(group, message)
        before = self.sending.get(group)
        task = asyncio.ensure_future(self._send_elsewhere_after(before, group, message, first))
        self.sending[group] = task
        task.add_done_callback(lambda done: self._sent(group, done))

    def _on_reader_loop(self) -> bool:
        return self.reader is not None and asyncio.get_running_loop() is self.reader_loop

    def _deliver_here(self, group: str, message: dict[str, Any]) -> None:
        local = self.local_members.get(group)
        if local:
            delivered = dict(message)  # as channels-redis hands one copy to the process
            for channel in local:
                self._queue(channel, delivered)

    async def _hand_over_here(self, group: str, message: dict[str, Any]) -> None:
        """``_deliver_here``, each socket that takes messages at once and is idle taking it
        in this task (no wake-up of its own), the others through their queues."""
        local = self.local_members.get(group)
        if not local:
            return
        delivered = dict(message)
        members = list(local)
        for index, channel in enumerate(members):
            handler = self.at_once.get(channel)
            try:
                if handler is not None and await self._taken_at_once(handler, channel, delivered):
                    continue
            except asyncio.CancelledError:
                # The sender cancelled mid-way: the sockets not yet served have it queued (the
                # one being served too: a view it sent already is not sent again).
                for rest in members[index:]:
                    self._queue(rest, delivered)
                raise
            self._queue(channel, delivered)

    async def _taken_at_once(self, handler: AtOnce, channel: str, message: dict[str, Any]) -> bool:
        try:
            return await handler(message, self.queued.get(channel, 0))
        except Exception:  # one socket's failure is not the sender's nor the other sockets'
            logger.exception("channel layer: a socket failed to take a message at once")
            return True  # as a queued message whose handler failed: not taken again

    async def _send_elsewhere(
        self, group: str, message: dict[str, Any], first: Sequence[Any], *, here: bool
    ) -> None:
        members = await self._members(group, first)
        # Ours were served (``here``), or have left (a discard whose Redis half failed).
        remote = [channel for channel in members if not (here and self._ours(channel))]
        if remote:
            await self._send_through_redis(remote, message)

    async def _send_elsewhere_after(
        self,
        before: asyncio.Future[None] | None,
        group: str,
        message: dict[str, Any],
        first: Sequence[Any],
    ) -> None:
        if before is not None and not before.done():
            await asyncio.wait([before])  # its outcome is its own to log
        try:
            await self._send_elsewhere(group, message, first, here=True)
        except (RedisError, OSError) as error:
            logger.warning("channel layer: a message to %s lost: %s", group, error)

    def _sent(self, group: str, task: asyncio.Future[None]) -> None:
        if self.sending.get(group) is task:
            del self.sending[group]

    async def _members(self, group: str, first: Sequence[Any] = ()) -> list[str]:
        """The group's channels, those past ``group_expiry`` dropped, in one round trip (after
        the command ``first``, if any)."""
        key = self._group_key(group)
        pipe = self.connection(self.consistent_hash(group)).pipeline(transaction=False)
        if first:
            pipe.execute_command(*first)
        pipe.zremrangebyscore(key, min=0, max=int(time.time()) - self.group_expiry)
        pipe.zrange(key, 0, -1)
        replies = await pipe.execute(raise_on_error=False)
        if first and isinstance(replies[0], Exception):  # the send does not depend on it
            logger.warning("channel layer: a command sent with a group send failed: %s", replies[0])
        dropped, names = replies[-2:]
        for reply in (dropped, names):
            if isinstance(reply, Exception):
                raise reply
        return [name.decode("utf8") for name in names]

    def shares_redis(self, url: str) -> bool:
        """Whether every group of this layer lives in the Redis at ``url`` (one shard, that
        address): a command sent with a group send then reaches the same data."""
        addresses = [host.get("address") for host in self.hosts]
        return addresses == [url]

    async def _send_through_redis(self, channels: list[str], message: dict[str, Any]) -> None:
        """To these members as channels-redis sends a group message: one copy per receiving
        process, in its inbox (a sorted set scored by time), unless the inbox is full; the
        inbox's expired messages dropped first. One round trip per Redis shard."""
        by_connection, messages, capacities = self._map_channel_keys_to_connection(
            channels, message
        )
        now = time.time()
        for index, keys in by_connection.items():
            args = [messages[key] for key in keys] + [capacities[key] for key in keys]
            await self.connection(index).eval(
                _INBOX_ADD, len(keys), *keys, *args, now, int(now) - int(self.expiry), self.expiry
            )


# KEYS: the inboxes; ARGV: a message for each, then each one's capacity, then the time, the
# time before which a message has expired, and the inbox's expiry in seconds.
_INBOX_ADD = """
    local n = #KEYS
    local now, stale, expiry = ARGV[2 * n + 1], ARGV[2 * n + 2], ARGV[2 * n + 3]
    local full = 0
    for i, inbox in ipairs(KEYS) do
        redis.call('ZREMRANGEBYSCORE', inbox, 0, stale)
        if redis.call('ZCARD', inbox) < tonumber(ARGV[n + i]) then
            redis.call('ZADD', inbox, now, ARGV[i])
            redis.call('EXPIRE', inbox, expiry)
        else
            full = full + 1
        end
    end
    return full
"""
