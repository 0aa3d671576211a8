"""Issue 34, finding 7f: a private table's id answered ``not_seated`` / ``not_allowed`` where a
missing id answers ``not_found``, so private table ids could be probed. Every table request
answers a hidden table exactly as a missing one (``views._require_visible``)."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import Seat, Table
from tests.games.helpers import logged_in, make_users
from tests.https import JSON

pytestmark = pytest.mark.django_db
ACTIONS: tuple[tuple[str, dict[str, str]], ...] = (
    ("sit/", {"seat": "2"}),
    ("leave/", {}),
    ("ready/", {"ready": "1"}),
    ("bot/", {"seat": "3"}),
)


def answer(client: Any, table_id: int, path: str, data: dict[str, str]) -> tuple[int, Any]:
    response = client.post(f"/tables/{table_id}/{path}", data, **JSON)
    return response.status_code, response.json()


def test_regression_a_private_table_id_answers_other_than_a_missing_one() -> None:
    owner, stranger = make_users(2)
    table = services.table_create(creator=owner, name="秘密", unlisted=True)
    services.seat_take(table_id=table.pk, user=owner, index=0)
    missing = (Table.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000
    client = logged_in(stranger)
    for path, data in ACTIONS:
        hidden = answer(client, table.pk, path, data)
        assert hidden == answer(client, missing, path, data), path
        assert hidden[0] == 404 and hidden[1]["code"] == "not_found", path
    assert list(Seat.objects.filter(table=table).values_list("user_id", "bot")) == [
        (owner.pk, False),
        (None, False),
        (None, False),
        (None, False),
    ]
    # Its players still act: the owner adds a bot.
    assert answer(logged_in(owner), table.pk, "bot/", {"seat": "3"})[1]["ok"] is True
