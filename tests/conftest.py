"""Shared fixtures. The embedded servers and the Celery worker fixture live in
proof/plugin.py, loaded with -p from pyproject.toml."""

from collections.abc import Iterator

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
    signs up more accounts from 127.0.0.1 than one address may in an hour."""
    if request.node.get_closest_marker("django_db") is None:
        return
    request.getfixturevalue("redis_url")
    from games import ratelimits

    ratelimits.reset_all()


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
