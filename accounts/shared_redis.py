"""The Redis every server process shares for short-lived counts and notes: the rate limits
(``accounts.ratelimits``), the lobby's socket cap (``games.lobby``) and a table's position
(``games.positions``).

One client per URL (``settings.REDIS_URL``), connecting within 2 s and answering within 5 s;
the counts' keys under ``settings.SHENGJI_RATELIMIT_PREFIX``; the time in milliseconds, as the
counts' sorted sets score it. The client holds at most ``POOL_SIZE`` connections a process: a
call waits up to ``POOL_WAIT_S`` for a free one, then fails as Redis unreachable. Every socket
of a process may call at once (a burst of reconnections), each in a thread of its own;
redis-py's default pool opened a connection for each caller and kept it. ``fail_open`` lets a
call through, logged, when Redis cannot be reached: a Redis outage must not lock every player
out.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from django.conf import settings

logger = logging.getLogger(__name__)
T = TypeVar("T")


POOL_SIZE = 16
POOL_WAIT_S = 2.0


@functools.cache
def _client(url: str) -> redis.Redis:
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_SIZE,
        timeout=POOL_WAIT_S,
        socket_connect_timeout=2,
        socket_timeout=5,
    )
    return redis.Redis(connection_pool=pool)


def client() -> redis.Redis:
    return _client(settings.REDIS_URL)


def key(*parts: object) -> str:
    """A count's key: the site's prefix, then ``parts`` joined by colons."""
    return ":".join([settings.SHENGJI_RATELIMIT_PREFIX, *map(str, parts)])


def now_ms() -> int:
    return int(time.time() * 1000)


def fail_open(default: T) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """The decorated call answers ``default`` when Redis cannot be reached, and says so in the
    log."""

    def wrap(function: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> T:
            try:
                return function(*args, **kwargs)
            except redis.RedisError:
                logger.warning("rate limit %s skipped: Redis unreachable", function.__name__)
                return default

        return guarded

    return wrap
