"""The lobby feed's two costs kept flat: one table list built per change, and a cap on sockets.

One build per change: every lobby socket of a server process hears each ``lobby.changed``
group message, but the process's ``LobbyFeed`` builds the table list once for it (the message
names its change, ``games.realtime``), encodes it once, and sends that same frame to every
lobby socket of the process. Changes that come while a build runs are met by one more build
after it, not one each; a socket that connects gets its first frame from a build that started
after it joined the group, so it misses no change. (Before: each socket queried the lobby for
itself on every change, N sockets N queries.)

The cap: a user may hold ``SHENGJI_LOBBY_SOCKETS_PER_USER`` lobby sockets and an address
(``accounts.client_address``) ``SHENGJI_LOBBY_SOCKETS_PER_IP``, every lobby socket
from it counted, logged in or not. One more is accepted, sent an ``error``
``too_many_sockets`` and closed with 4429 (docs/PROTOCOL.md). The counts live in Redis, shared
by every server process; each process marks its sockets alive every third of
``SHENGJI_CONNECTION_TIMEOUT_S``, and a socket not marked for that long (its process died)
stops counting. When Redis cannot be reached the cap lets sockets in (and logs it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections import OrderedDict
from typing import Any

import redis
from asgiref.sync import sync_to_async
from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import close_old_connections

from accounts import shared_redis
from accounts.client_address import client_ip_from_scope
from games import rules_words, selectors

logger = logging.getLogger(__name__)

TOO_MANY_SOCKETS = 4429  # as the table socket's
SEEN_CHANGES = 512  # change names remembered, to build once however many copies arrive
BUILD_RETRY_S = 1.0
BUILD_TRIES = 5


def per_user_cap() -> int:
    return settings.SHENGJI_LOBBY_SOCKETS_PER_USER


def per_ip_cap() -> int:
    return settings.SHENGJI_LOBBY_SOCKETS_PER_IP


def _ttl_ms() -> int:
    return int(settings.SHENGJI_CONNECTION_TIMEOUT_S * 1000)


# --- the cap -------------------------------------------------------------------------------------

# KEYS: one sorted set per counted owner (user, address) of the sockets it holds, scored by
# when each was last marked alive. ARGV: now (ms), the socket's channel name, how long an
# unmarked socket counts (ms), then each key's cap. Returns 0 (counted in every key) or the
# 1-based index of the first key that is full (counted nowhere).
_OPEN_SCRIPT = """
local now, member, ttl = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - ttl)
  local cap = tonumber(ARGV[3 + i])
  if not redis.call('ZSCORE', KEYS[i], member) and redis.call('ZCARD', KEYS[i]) >= cap then
    return i
  end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now, member)
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 0
"""


def socket_slots(user: Any, scope: dict[str, Any]) -> list[tuple[str, int]]:
    """The (Redis key, cap) pairs a lobby socket counts in: its address's (as every limit per
    address reads it, ``client_ip_from_scope``), and its user's."""
    address = client_ip_from_scope(scope)
    slots = [(shared_redis.key("lobby", "ip", address), per_ip_cap())]
    if getattr(user, "is_authenticated", False):
        slots.append((shared_redis.key("lobby", "user", user.pk), per_user_cap()))
    return slots


def socket_open(slots: list[tuple[str, int]], channel_name: str) -> bool:
    """Count a new lobby socket; False when its user or address already has the most."""
    try:
        keys = [key for key, _ in slots]
        caps = [cap for _, cap in slots]
        args: list[str | int] = [shared_redis.now_ms(), channel_name, _ttl_ms(), *caps]
        return int(shared_redis.client().eval(_OPEN_SCRIPT, len(keys), *keys, *args)) == 0
    except redis.RedisError:
        logger.warning("lobby socket cap skipped: Redis unreachable")
        return True


def sockets_alive(members: list[tuple[list[tuple[str, int]], str]]) -> None:
    """Mark these sockets (slots, channel name) alive: one Redis trip for all."""
    if not members:
        return
    try:
        pipe = shared_redis.client().pipeline(transaction=False)
        now = shared_redis.now_ms()
        for slots, channel_name in members:
            for key, _ in slots:
                pipe.zadd(key, {channel_name: now}, xx=True)
                pipe.pexpire(key, _ttl_ms())
        pipe.execute()
    except redis.RedisError:
        logger.warning("lobby sockets not marked alive: Redis unreachable")


def socket_closed(slots: list[tuple[str, int]], channel_name: str) -> None:
    try:
        pipe = shared_redis.client().pipeline(transaction=False)
        for key, _ in slots:
            pipe.zrem(key, channel_name)
        pipe.execute()
    except redis.RedisError:
        logger.warning("lobby socket not uncounted: Redis unreachable")


# --- the feed ----------------------------------------------------------------------------------


class LobbyFeed:
    """The lobby sockets of one server process (one event loop) and the builds they share.

    A socket here has ``channel_name``, ``send(text_data=…)`` and ``ended`` (a socket whose
    session ended gets nothing more), and ``lobby_slots`` (what it counts in)."""

    def __init__(self) -> None:
        self.sockets: set[Any] = set()  # have had a first frame: hear every change
        self.waiting: set[Any] = set()  # need a frame built after they joined the group
        self.changed = False
        self.seen: OrderedDict[str, None] = OrderedDict()
        self.task: asyncio.Task[None] | None = None
        self.keepalive: asyncio.Task[None] | None = None
        self.builds = 0  # how many table lists this process built (tests read it)

    def join(self, socket: Any) -> None:
        """A socket in the lobby group: it gets the table list from the next build."""
        self.waiting.add(socket)
        self._start()
        if self.keepalive is None or self.keepalive.done():
            self.keepalive = asyncio.create_task(self._keep_alive())

    def leave(self, socket: Any) -> None:
        self.sockets.discard(socket)
        self.waiting.discard(socket)
        if not self.sockets and not self.waiting and self.keepalive is not None:
            self.keepalive.cancel()
            self.keepalive = None

    def change(self, event: dict[str, Any]) -> None:
        """A ``lobby.changed`` message, heard by one of the sockets (each hears its copy)."""
        name = event.get("change")
        if isinstance(name, str):
            if name in self.seen:
                return
            self.seen[name] = None
            while len(self.seen) > SEEN_CHANGES:
                self.seen.popitem(last=False)
        if self.sockets:
            self.changed = True
            self._start()

    def _start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        failures = 0
        while self.changed or self.waiting:
            new, self.waiting = self.waiting, set()
            targets = new | self.sockets if self.changed else set(new)
            self.changed = False
            self.sockets |= new
            try:
                tables = await _build()
            except Exception:
                logger.exception("lobby list failed")
                failures += 1
                if failures >= BUILD_TRIES:
                    return  # the sockets get the next change's list
                self.waiting |= new & self.sockets  # still owed a first frame
                self.changed = self.changed or bool(targets - new)
                await asyncio.sleep(BUILD_RETRY_S)
                continue
            failures = 0
            self.builds += 1
            text = json.dumps({"type": "lobby", "tables": tables})
            for socket in targets:
                if socket in self.sockets and not getattr(socket, "ended", False):
                    try:
                        await socket.send(text_data=text)
                    except Exception:  # one closed socket must not cost the others their frame
                        logger.debug("lobby frame not sent to %s", socket.channel_name)

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, settings.SHENGJI_CONNECTION_TIMEOUT_S / 3))
            members = [
                (s.lobby_slots, s.channel_name)
                for s in self.sockets | self.waiting
                if getattr(s, "lobby_slots", None)
            ]
            await sync_to_async(sockets_alive, thread_sensitive=False)(members)


def _lobby_tables() -> list[dict[str, Any]]:
    try:
        return [with_rules_changed(table) for table in selectors.lobby_list()]
    finally:
        # Here, in the context the query ran in: the feed's task runs in a context copied
        # from the socket that started it, whose connection the wrapper's own clean-up (outside
        # that context) would not see, and leave open.
        close_old_connections()


def with_rules_changed(table: dict[str, Any]) -> dict[str, Any]:
    """A listed table with ``rules_changed``: whether its house rules change a rule of its
    preset (the lobby then says "<preset> · house rules"); a 找朋友 table's shape alone does
    not."""
    changed = rules_words.house_rules_change_preset(
        table["preset"], table.get("house_rules"), decks=int(table.get("decks") or 2)
    )
    return {**table, "rules_changed": changed}


async def _build() -> list[dict[str, Any]]:
    build = DatabaseSyncToAsync(_lobby_tables, thread_sensitive=False)
    tables: list[dict[str, Any]] = await build()
    return tables


_feeds: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LobbyFeed] = (
    weakref.WeakKeyDictionary()
)


def feed() -> LobbyFeed:
    """This process's feed (one per event loop: daphne runs one; each test has its own)."""
    loop = asyncio.get_running_loop()
    found = _feeds.get(loop)
    if found is None:
        found = _feeds[loop] = LobbyFeed()
    return found
