"""pytest plugin (loaded with -p before Django's settings are read).

Without DATABASE_URL / REDIS_URL the suite runs against an embedded PostgreSQL and an embedded
Redis of its own, in a temporary folder on free loopback ports, started once per session and only
when a test needs them. With the URLs set it uses those servers and starts nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from shengji_site.embedded import EmbeddedPostgres, EmbeddedRedis, free_port

SESSION_TAG = uuid.uuid4().hex[:10]
# Tests never touch the var/ folder of `serve`: their own, removed at the end.
_VAR_DIR = Path(tempfile.mkdtemp(prefix="shengji-test-"))
(_VAR_DIR / "static").mkdir()
os.environ["SHENGJI_VAR_DIR"] = str(_VAR_DIR)
if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
    os.environ["EMBEDDED_PG_PORT"] = str(free_port())
    os.environ["EMBEDDED_REDIS_PORT"] = str(free_port())
# A shared Redis (as on CI) may hold other runs' messages: this test run keeps to its own names.
os.environ["CHANNELS_PREFIX"] = f"shengji-test-{SESSION_TAG}"
os.environ["CELERY_QUEUE"] = f"shengji-test-{SESSION_TAG}"
os.environ["CELERY_CONTROL_EXCHANGE"] = f"shengji-test-{SESSION_TAG}"
# No persistent connections in tests: one left open in a worker thread keeps the test database
# from being dropped at the end.
os.environ.setdefault("DB_CONN_MAX_AGE", "0")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_VAR_DIR, ignore_errors=True)


@pytest.fixture(scope="session")
def embedded_postgres() -> Iterator[str]:
    """The database server's URL, starting the embedded one if DATABASE_URL is unset."""
    from django.conf import settings

    if not settings.USE_EMBEDDED_POSTGRES:
        yield settings.DATABASE_URL
        return
    server = EmbeddedPostgres(settings.VAR_DIR / "postgres", settings.EMBEDDED_PG_PORT, "shengji")
    server.start()
    try:
        yield server.url
    finally:
        from django.db import connections

        connections.close_all()
        server.stop()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """The Redis server's URL, starting the embedded one if REDIS_URL is unset."""
    from django.conf import settings

    if not settings.USE_EMBEDDED_REDIS:
        yield settings.REDIS_URL
        return
    server = EmbeddedRedis(settings.VAR_DIR / "redis", settings.EMBEDDED_REDIS_PORT, False)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def celery_worker(redis_url: str, transactional_db: None) -> Iterator[object]:
    """A real Celery worker (threads in this process) consuming this test run's queue."""
    from celery.contrib.testing.worker import start_worker

    from shengji_site.celery import app

    with start_worker(
        app,
        pool="threads",
        concurrency=2,
        perform_ping_check=False,
        loglevel="WARNING",
        shutdown_timeout=10,
    ) as worker:
        yield worker
