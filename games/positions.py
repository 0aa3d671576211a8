"""Where each table's latest hand stands, as (hand id, seq), kept in Redis so that a ``pong``
costs no database trip (docs/PROTOCOL.md, ``pong``).

The mover sets a table's key after each change's commit (``realtime.hand_changed``), before it
sends the change's views; a key only ever moves forward (a newer hand, or a higher seq of the
same hand), so two movers' publishes arriving out of order cannot take it back. A ping reads it
(``table_position``) and reads the database instead when:

- the key is missing: Redis restarted without its data, or no change was published since the
  key last expired. The database's position is set again then;
- the key is older than what the asking socket was already sent: it is stale for sure (a
  publish failed while Redis could not be reached, and a later view got through).

A key can also be stale unnoticed: the change whose publish failed is the table's latest, so
the key still holds the position every socket was sent. That is why every key lives only
``SHENGJI_POSITION_TTL_S`` after it was last set: by then it is gone and the next ping reads
the database. The next change published meanwhile shows the gap to every socket at once (its
``prev``, ``TableConsumer.hand_view``).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import redis
from django.conf import settings
from redis.commands.core import Script

from accounts import shared_redis
from games.models import Hand

logger = logging.getLogger(__name__)
Position = tuple[int, int]  # (hand id, seq); (0, 0) before the table's first hand
NO_HAND: Position = (0, 0)

# KEYS[1]: the table's position "hand:seq". ARGV: hand, seq, the key's life (ms). The key is set
# (and lives on) unless it already holds a newer position. Returns 1 when set.
_SET_SCRIPT = """
local hand, seq = tonumber(ARGV[1]), tonumber(ARGV[2])
local held = redis.call('GET', KEYS[1])
if held then
  local h, s = string.match(held, '^(%d+):(%d+)$')
  h, s = tonumber(h), tonumber(s)
  if h and (h > hand or (h == hand and s > seq)) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2], 'PX', tonumber(ARGV[3]))
return 1
"""


@functools.cache
def _set_script() -> Script:
    """Sent by its digest (EVALSHA), loaded again by redis-py if Redis lost it."""
    return shared_redis.client().register_script(_SET_SCRIPT)


def _key(table_id: int) -> str:
    return f"{settings.SHENGJI_POSITION_PREFIX}:{table_id}"


def _ttl_ms() -> int:
    return max(1, int(settings.SHENGJI_POSITION_TTL_S * 1000))


def _parse(raw: bytes | str | None) -> Position | None:
    if raw is None:
        return None
    text = raw.decode() if isinstance(raw, bytes) else raw
    hand, _, seq = text.partition(":")
    try:
        return int(hand), int(seq)
    except ValueError:
        return None


def position_set(table_id: int, position: Position) -> None:
    """The table's latest hand stands here now, unless the key holds a newer position already.
    Call after the commit that made it. When Redis cannot be reached the key is left as it was
    (stale for at most its life) and the caller goes on."""
    hand, seq = position
    try:
        _set_script()(
            keys=[_key(table_id)], args=[hand, seq, _ttl_ms()], client=shared_redis.client()
        )
    except redis.RedisError:
        logger.warning("position of table %s not kept: Redis unreachable", table_id)


def position_set_command(table_id: int, position: Position) -> tuple[Any, ...]:
    """``position_set`` as one Redis command's arguments, for a caller that sends it in a
    round trip of its own making (``realtime.hand_changed_async``: with the group send). The
    script goes by its text: Redis compiles it once and keeps it, and a Redis that restarted
    needs nothing loaded first."""
    hand, seq = position
    return ("EVAL", _SET_SCRIPT, 1, _key(table_id), hand, seq, _ttl_ms())


def position_forget(table_id: int) -> None:
    """The table's key holds a position that is no longer its latest hand's (the hand was made
    void): the next ping reads the database."""
    try:
        shared_redis.client().delete(_key(table_id))
    except redis.RedisError:
        logger.warning("position of table %s not forgotten: Redis unreachable", table_id)


def _held(table_id: int) -> Position | None:
    try:
        return _parse(shared_redis.client().get(_key(table_id)))
    except redis.RedisError:
        return None


def position_from_database(table_id: int) -> Position:
    """The table's latest hand that is not void, as the ``state`` shows it (one small query)."""
    found = (
        Hand.objects.filter(match__table_id=table_id)
        .exclude(status=Hand.Status.VOID)
        .order_by("-pk")
        .values_list("pk", "seq")
        .first()
    )
    return NO_HAND if found is None else found


def table_position(table_id: int, *, at_least: Position = NO_HAND) -> Position:
    """Where the table's latest hand stands: from Redis, or from the database (setting the key
    again) when the key is missing or older than ``at_least``, the position the asking socket
    was last sent (so the answer is never older than what the socket already has, but for a
    hand made void since)."""
    held = _held(table_id)
    if held is not None and held >= at_least:
        return held
    position = position_from_database(table_id)
    position_set(table_id, position)
    return position
