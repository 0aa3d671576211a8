"""Issue 34, finding 7e: the hint handler read the database before its rate limit, and quick
match's join and leave had none. Both are limited per user (``SHENGJI_ACTION_LIMITS``), in
Redis, before any database read."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import QueueEntry
from tests.games.helpers import logged_in, make_users
from tests.games.test_table_socket import connect, setup_table
from tests.https import JSON

HINTS = 12


@pytest.mark.django_db(transaction=True)
async def test_regression_the_hint_handler_reads_the_database_before_its_rate_limit(
    redis_url: str,
) -> None:
    """A stranger at the table asks for hints again and again: each costs a read of the seats
    (``not_seated``) until the limit, then is refused before any read (``rate_limited``)."""
    _, table_id = await database_sync_to_async(setup_table)()
    (stranger,) = await database_sync_to_async(make_users)(1, "stranger")
    peer = await connect(table_id, stranger, "stranger")
    codes = []
    for _ in range(HINTS):
        await peer.socket.send_json_to({"type": "hint"})
        codes.append((await peer.until(lambda f: f["type"] in {"error", "hint"}))["code"])
    burst = settings.SHENGJI_ACTION_LIMITS["hint"][0][0]
    assert codes[:burst] == ["not_seated"] * burst
    assert set(codes[burst:]) == {"rate_limited"}
    await peer.socket.disconnect()


@pytest.mark.django_db
def test_regression_quick_match_join_and_leave_had_no_limit(settings: Any) -> None:
    (user,) = make_users(1, "queuer")
    client = logged_in(user)
    answers = []
    for turn in range(20):
        path = "/tables/quick/join/" if turn % 2 == 0 else "/tables/quick/leave/"
        with CaptureQueriesContext(connection) as queries:
            response = client.post(path, **JSON)
        answers.append(response.status_code)
        if response.status_code == 429:
            assert response.json()["code"] == "rate_limited"
            assert not any(QueueEntry._meta.db_table in q["sql"] for q in queries.captured_queries)
    allowed = settings.SHENGJI_ACTION_LIMITS["quick_match"][0][0]
    assert answers[:allowed] == [200] * allowed
    assert answers[allowed:] == [429] * (20 - allowed)
