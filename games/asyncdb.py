"""A few PostgreSQL connections of the event loop's own, for the one-statement move
(games/services/optimistic.py): a move then costs the socket's process no trip to a thread,
no ``SELECT 1`` health check and no transaction of its own (each statement commits by itself).

Connections are opened on demand, up to ``SIZE`` per event loop, and reused; one that fails is
dropped. A statement waits at most ``LOCK_TIMEOUT`` for a row lock: a hand held longer by
another transaction (a wrap-up, an admin) makes the caller fall back to the locking path,
which waits as long as it must, instead of holding one of these few connections.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import psycopg
from django.db import connections

SIZE = 4
LOCK_TIMEOUT = "500ms"
STATEMENT_TIMEOUT = "2s"


class Pool:
    """Idle connections of one event loop, and a bound on how many are open."""

    def __init__(self) -> None:
        self.idle: list[psycopg.AsyncConnection[Any]] = []
        self.slots = asyncio.Semaphore(SIZE)

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        async with self.slots:
            conn = self.idle.pop() if self.idle else await _open()
            try:
                yield conn
            except BaseException:
                await conn.close()  # its state is unknown (a timeout mid-statement, say)
                raise
            if conn.closed or conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                await conn.close()
            else:
                self.idle.append(conn)

    async def close(self) -> None:
        while self.idle:
            await self.idle.pop().close()


# A server process has one loop; a test run has one per async test, dropped after each
# (``drop_all``), so that none of their connections outlives its test.
_pools: dict[asyncio.AbstractEventLoop, Pool] = {}


def pool() -> Pool:
    """The running event loop's pool (a test's loop, daphne's or uvicorn's)."""
    loop = asyncio.get_running_loop()
    found = _pools.get(loop)
    if found is None:
        found = _pools[loop] = Pool()
    return found


def _conninfo() -> dict[str, Any]:
    """The default database's address, as Django has it now (a test run's test database)."""
    settings = connections["default"].settings_dict
    params: dict[str, Any] = {
        "dbname": settings["NAME"],
        "user": settings["USER"] or None,
        "password": settings["PASSWORD"] or None,
        "host": settings["HOST"] or None,
        "port": settings["PORT"] or None,
    }
    for key in ("sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout"):
        if key in settings.get("OPTIONS", {}):
            params[key] = settings["OPTIONS"][key]
    return {key: value for key, value in params.items() if value is not None}


def drop_all() -> None:
    """Close every idle connection of every loop, from outside any loop (a test's teardown):
    the socket is closed without the goodbye, which needs the loop that opened it."""
    for found in list(_pools.values()):
        while found.idle:
            found.idle.pop().pgconn.finish()
    _pools.clear()


async def _open() -> psycopg.AsyncConnection[Any]:
    options = (
        f"-c lock_timeout={LOCK_TIMEOUT} -c statement_timeout={STATEMENT_TIMEOUT} -c TimeZone=UTC"
    )
    return await psycopg.AsyncConnection.connect(
        autocommit=True, options=options, application_name="shengji-move", **_conninfo()
    )
