"""Replays (issue 8): every hand that is over has its page and its record as JSON; a hand in
progress has neither (404), so nobody sees a live hand's cards."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.errors import ApplicationError
from games import services
from games.handstate import action_texts
from games.models import Hand
from games.replay import replay_steps_get
from ladder.selectors import hand_replay_url
from shengji.engine import HandRecord, replay_final
from tests.games.helpers import deal_and_close, fresh, make_table, make_users, play_out, seat_all
from tests.https import HTTPS

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    return Client(**HTTPS)


def finished_hand() -> tuple[Hand, list[Any]]:
    users = make_users()
    hand = seat_all(make_table(users[0]), users)
    deal_and_close(hand)
    return play_out(hand, users), users


def page_data(html: str, element_id: str) -> Any:
    pattern = rf'<script id="{element_id}" type="application/json">(.*?)</script>'
    found = re.search(pattern, html, re.S)
    assert found, element_id
    return json.loads(found.group(1))


def test_a_finished_hand_has_a_replay_page_with_all_four_hands_at_every_step(
    client: Client,
) -> None:
    hand, users = finished_hand()
    assert hand.status == Hand.Status.FINISHED
    url = reverse("games:replay", kwargs={"hand_id": hand.pk})
    assert url == f"/hands/{hand.pk}/"

    response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 200
    html = response.content.decode()
    data = page_data(html, "replay-data")
    steps = data["steps"]
    actions = action_texts(hand)
    # Every action is covered once, in order: the draws folded into runs, the rest one by one.
    assert steps[0]["move"] == 0 and steps[-1]["move"] == len(actions)
    assert sum(step["count"] for step in steps) == len(actions)
    assert all(a["move"] < b["move"] for a, b in itertools.pairwise(steps))
    assert not any(a["kind"] == b["kind"] == "draw" for a, b in itertools.pairwise(steps))
    assert len(steps) < len(actions)  # the 100 draws are not 100 steps
    # All four hands are in every step; after the bury each seat shows its 25 cards.
    bury = next(step for step in steps if step["kind"] == "bury")
    assert [len(h.split()) for h in bury["view"]["hands"]] == [25, 25, 25, 25]
    assert all(len(step["view"]["hands"]) == 4 for step in steps)
    assert bury["view"]["buried"] and len(bury["view"]["buried"].split()) == 8
    plays = [step for step in steps if step["kind"] == "play"]
    assert hand.result is not None
    assert plays[0]["trick"] == 1 and plays[-1]["trick"] == hand.result["tricks"]
    assert steps[-1]["view"]["result"] == hand.result
    assert [p["name"] for p in data["players"]] == [str(u) for u in users]
    assert reverse("games:replay_record", kwargs={"hand_id": hand.pk}) in html
    assert "replay-labels" in html and "replay.js" in html


def test_the_record_json_round_trips_and_replays_to_the_same_result(client: Client) -> None:
    hand, _ = finished_hand()

    response = client.get(f"/hands/{hand.pk}/record.json")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    record = HandRecord.from_json(response.content.decode())
    assert list(record.actions) == action_texts(hand)
    assert record.seed == hand.seed and record.result == hand.result
    final = replay_final(record)  # checks the stored result is the one reached
    assert final.result is not None and final.result.to_dict() == hand.result
    assert HandRecord.from_json(record.to_json()) == record


def test_a_hand_in_progress_is_refused_everywhere_so_nobody_sees_live_hands(
    client: Client,
) -> None:
    users = make_users()
    hand = seat_all(make_table(users[0]), users)
    deal_and_close(hand)
    assert fresh(hand).status == Hand.Status.PLAYING
    for path in ("", "record.json", "ledger.json"):
        assert client.get(f"/hands/{hand.pk}/{path}").status_code == 404
    player = Client(**HTTPS)
    player.force_login(users[0])  # not even for a player of the hand
    assert player.get(f"/hands/{hand.pk}/").status_code == 404
    assert client.get("/hands/999999/").status_code == 404
    with pytest.raises(ApplicationError) as refused:
        replay_steps_get(hand=fresh(hand))
    assert refused.value.code == "not_found"


def test_escaped_and_void_hands_replay_too(client: Client) -> None:
    users = make_users()
    table = make_table(users[0])
    escaped = seat_all(table, users)
    deal_and_close(escaped)
    services.hand_leave(hand_id=escaped.pk, user=users[1])
    assert fresh(escaped).status == Hand.Status.ESCAPED
    page = client.get(f"/hands/{escaped.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    last = page_data(page.content.decode(), "replay-data")["steps"][-1]
    assert last["kind"] == "leave" and last["seat"] == 1
    record = HandRecord.from_json(client.get(f"/hands/{escaped.pk}/record.json").content.decode())
    assert replay_final(record).result.escaper == 1  # type: ignore[union-attr]

    others = make_users(prefix="other")
    table = make_table(others[0])
    void = seat_all(table, others)
    services.table_close(table_id=table.pk, actor=others[0], reason="test")
    assert fresh(void).status == Hand.Status.VOID
    assert client.get(f"/hands/{void.pk}/").status_code == 200
    record_json = json.loads(client.get(f"/hands/{void.pk}/record.json").content)
    assert "result" not in record_json  # an admin stopped it: no engine result
    HandRecord.from_json(json.dumps(record_json))


def test_the_ledger_of_a_finished_hand_and_the_profile_links_to_the_replay(
    client: Client,
) -> None:
    hand, users = finished_hand()
    ledger = client.get(f"/hands/{hand.pk}/ledger.json", HTTP_ACCEPT_LANGUAGE="en").json()
    rows = {row["username"]: row for row in ledger["players"]}
    assert set(rows) == {u.username for u in users}
    assert [rows[u.username]["seat"] for u in users] == [0, 1, 2, 3]
    assert hand.result is not None
    winners = set(hand.result["winning_seats"])
    for seat, user in enumerate(users):
        row = rows[user.username]
        assert (row["table_points"] > 0) == (seat in winners)
        assert row["entries"] and all(e["kind"] for e in row["entries"])

    assert hand_replay_url(hand.pk) == f"/hands/{hand.pk}/"
    profile = client.get(f"/players/{users[0].username}/").content.decode()
    assert f'href="/hands/{hand.pk}/"' in profile
