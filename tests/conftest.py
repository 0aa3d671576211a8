"""Shared fixtures. The embedded servers and the Celery worker fixture live in
proof/plugin.py, loaded with -p from pyproject.toml."""

import asyncio
import inspect
from collections.abc import AsyncIterator, Iterator

import pytest
from channels.layers import channel_layers


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    embedded_postgres: str, django_db_modify_db_settings_parallel_suffix: None
) -> None:
    """pytest-django creates the test database after this: the server must be up by then."""


@pytest.fixture(autouse=True)
def fresh_rate_limits(request: pytest.FixtureRequest) -> None:
    """Each test that uses the database starts with no counts left in Redis by an earlier one
    (sign-ups per address, sockets, chat): Redis outlives each test's database, and a suite
    signs up more accounts from 127.0.0.1 than one address may in an hour. The API's throttles
    (DRF's, in the process's cache) are emptied too: a test that floods the token route would
    otherwise leave the next one in the same process, within the minute, refused (429)."""
    if request.node.get_closest_marker("django_db") is None:
        return
    request.getfixturevalue("redis_url")
    from django.core.cache import cache

    from accounts import ratelimits

    ratelimits.reset_all()
    cache.clear()


@pytest.fixture(autouse=True)
def fresh_channel_layers() -> Iterator[None]:
    """Each test gets channel layer objects of its own. channels-redis binds a layer's receive
    locks to the event loop that first used them, and every async test runs in a loop of its
    own, so a layer shared between tests can fail a later one with "bound to a different event
    loop" (a server process has one loop, so the site itself never meets this)."""
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def fresh_move_connections() -> Iterator[None]:
    """The optimistic move's connections (games/asyncdb.py) belong to the event loop that
    opened them, and every async test has a loop of its own: each test's are closed after it,
    so none is left to keep the test database from being dropped at the end."""
    yield
    from games import asyncdb

    asyncdb.drop_all()


@pytest.fixture
async def table_change_sends_settled() -> AsyncIterator[None]:
    """An async test's delayed table-change sends (games/services/_common.py,
    ``_TableChangeDelays``) are done before its event loop closes: a send still running then
    would wait for that loop for ever (its thread calls back into it), and one still pending
    would never be sent, holding back the table's next change in a later test."""
    yield
    from games.services import _common

    delays = _common._table_change_delays
    for _ in range(500):  # at most 10 s: the longest delay a test sets is 3 s
        if not delays.pending and not delays.running:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"table-change sends never settled: {delays.pending}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every async test waits for the table-change sends it caused (the fixture above); a test
    that runs a real Celery worker is marked ``celery_worker`` (README, "The fast lane")."""
    for item in items:
        function = getattr(item, "function", None)
        if function is not None and inspect.iscoroutinefunction(function):
            item.fixturenames.append("table_change_sends_settled")  # type: ignore[attr-defined]
        if "celery_worker" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.celery_worker)
