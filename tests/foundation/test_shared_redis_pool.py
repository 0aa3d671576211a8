"""The shared Redis client (``accounts.shared_redis``) holds at most ``POOL_SIZE`` connections a
process, however many threads call at once: the rest wait for a free one (docs/proof/SOAK.md,
the Redis connections at rest)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import redis

from accounts import shared_redis
from shengji_site.embedded import EmbeddedRedis, free_port


def test_a_burst_of_threads_shares_the_pools_connections_and_opens_no_more(
    tmp_path: Path,
) -> None:
    server = EmbeddedRedis(tmp_path / "redis", free_port(), persistent=False)
    server.start()
    try:
        client = shared_redis._client(server.url)
        # Each call holds its connection for 50 ms: 64 at once would open 64 without a bound.
        with ThreadPoolExecutor(64) as pool:
            answers = list(pool.map(lambda n: client.blpop([f"nothing:{n}"], 0.05), range(64)))
        assert answers == [None] * 64
        monitor = redis.Redis.from_url(server.url)
        others = int(monitor.info("clients")["connected_clients"]) - 1
        assert 1 <= others <= shared_redis.POOL_SIZE < 64, f"{others} connections held"
        monitor.close()
    finally:
        shared_redis._client.cache_clear()
        server.stop()
