"""Issue 33, point 4: after an escape the other three were stranded at a ranked table that can
never refill (quick match seats all four): their page kept offering 准备, the dead table stayed
in the lobby, and sitting elsewhere failed with "请先离开你在另一张桌的座位" naming no table.
Now the table closes at once, the others are stood up and offered quick match (docs/LADDER.md,
"A ranked table that loses a player")."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from games import matchmaking, selectors, services
from games.models import QueueEntry, Seat, Table
from tests.games.helpers import make_table, make_users, ranked_table, ready_all
from tests.https import HTTPS


@pytest.fixture(autouse=True)
def fast_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def page_config(client: Client, table_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    html = client.get(f"/tables/{table_id}/").content.decode()
    found = {
        name: json.loads(re.search(rf'id="table-{name}"[^>]*>(.*?)</script>', html, re.S)[1])  # type: ignore[index]
        for name in ("config", "labels")
    }
    return found["config"], found["labels"]


@pytest.mark.django_db
def test_finding_after_an_escape_the_others_are_freed_and_offered_quick_match() -> None:
    users = make_users(4, prefix="dead")
    table = ranked_table(users)
    hand = ready_all(table, users)
    assert any(t["id"] == table.pk for t in selectors.lobby_list())
    services.hand_leave(hand_id=hand.pk, user=users[1])
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED  # closed at once, by the wrap-up
    assert not Seat.objects.filter(table=table, user__isnull=False).exists()
    assert all(t["id"] != table.pk for t in selectors.lobby_list())  # gone from the lobby
    stayer = users[0]
    presence = selectors.presence_get(table_id=table.pk, user=stayer)
    assert presence is not None
    frame = selectors.table_state_for(presence=presence)
    assert frame["you"]["seat"] is None
    assert frame["table"]["quick_match_offer"] is True
    assert frame["table"]["ended_by_escape"] is True
    # The page offers 快速匹配, in the reader's words, and it works at once.
    client = Client(**HTTPS)
    client.force_login(stayer)
    config, labels = page_config(client, table.pk)
    assert config["urls"]["quick_join"] == "/tables/quick/join/"
    assert labels["quick_match_again"] == "Quick match" and "escaped" in labels["dead_escape_text"]
    client.cookies["django_language"] = "zh-hans"
    _config, chinese = page_config(client, table.pk)
    assert chinese["quick_match_again"] == "快速匹配"
    for user in users[:1] + users[2:]:
        assert not services.seated_elsewhere(user=user)
        matchmaking.queue_join(user=user)
    assert QueueEntry.objects.count() == 3


@pytest.mark.django_db
def test_a_ranked_table_left_between_hands_closes_and_a_casual_one_stays_open() -> None:
    users = make_users(4, prefix="left")
    table = ranked_table(users)
    services.seat_leave(table_id=table.pk, user=users[2])
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert not Seat.objects.filter(table=table, user__isnull=False).exists()
    casual_users = make_users(4, prefix="casual")
    casual = make_table(casual_users[0], preset_name="seed000", stake=10)
    for index, user in enumerate(casual_users):
        services.seat_take(table_id=casual.pk, user=user, index=index)
    hand = ready_all(casual, casual_users)
    services.hand_leave(hand_id=hand.pk, user=casual_users[1])
    casual.refresh_from_db()
    assert casual.status == Table.Status.OPEN  # another player may sit in the free seat
    assert Seat.objects.filter(table=casual, user__isnull=False).count() == 3


@pytest.mark.django_db
def test_finding_seated_elsewhere_names_and_links_the_table() -> None:
    (user,) = make_users(1, prefix="elsewhere")
    first = make_table(user, preset_name="seed002", stake=10)
    second = make_table(user, preset_name="seed002", stake=10)
    services.seat_take(table_id=first.pk, user=user, index=0)
    client = Client(**HTTPS)
    client.force_login(user)
    refused = client.post(
        f"/tables/{second.pk}/sit/", {"seat": "0"}, HTTP_ACCEPT="application/json"
    ).json()
    assert refused["code"] == "seated_elsewhere" and refused["plain"] is True
    assert refused["link_url"] == f"/tables/{first.pk}/" and refused["link_text"] == "test table"
    assert f"table {first.pk}" in refused["message"]
    client.cookies["django_language"] = "zh-hans"
    chinese = client.post(
        f"/tables/{second.pk}/sit/", {"seat": "0"}, HTTP_ACCEPT="application/json"
    ).json()
    assert chinese["message"] == f"请先离开你在 {first.pk} 号桌「test table」的座位"
