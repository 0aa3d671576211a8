"""Issue 34, finding 1: a hand of a private table or of practice is visible only to its players
(and staff) in every page, JSON and API listing; no API shows a live hand; a hidden hand answers
exactly as a missing one (``games.selectors.hands_visible_to``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games import services
from games.models import Hand, Table
from games.services.wrap_up import hand_settle
from tests.games.helpers import deal_and_close, logged_in, make_table, make_users, play_out
from tests.https import HTTPS
from tests.ladder.helpers import make_hand

pytestmark = pytest.mark.django_db

HAND_PATHS = ("/hands/{id}/", "/hands/{id}/record.json", "/hands/{id}/ledger.json")
API_HAND = "/api/hands/{id}/"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def answer(client: Client, path: str, hand_id: int) -> tuple[int, str]:
    """A response's status and body, with the address asked and the form's CSRF token written
    out (a missing id and a hidden one must answer alike but for the address asked)."""
    url = path.format(id=hand_id)
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    body = response.content.decode().replace(url, "<url>")
    for said in (f"hand {hand_id}", f'"hand_id":{hand_id}'):
        body = body.replace(said, said.replace(str(hand_id), "<id>"))
    return response.status_code, re.sub(r'csrfmiddlewaretoken" value="\w+"', "<csrf>", body)


def missing_id() -> int:
    last = Hand.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    return last + 1000


def assert_answers_as_missing(client: Client, hand_id: int, paths: tuple[str, ...]) -> None:
    missing = missing_id()
    for path in paths:
        status, body = answer(client, path, hand_id)
        assert status == 404, (path, status)
        assert (status, body) == answer(client, path, missing), path


def test_regression_private_tables_hands_are_public_live_ones_too() -> None:
    """The audit: a private table's hand (live, then over) polled by id, anonymously and as a
    stranger, through every page and the API; and the players' pages and hand lists."""
    players = make_users(4)
    stranger, staff = make_users(2, prefix="outsider")
    staff.is_staff = True
    staff.save()
    table = make_table(players[0], unlisted=True)
    for index, user in enumerate(players):
        services.seat_take(table_id=table.pk, user=user, index=index)
    live = None
    for user in players:
        live = services.seat_ready(table_id=table.pk, user=user) or live
    assert live is not None
    deal_and_close(live)

    # Live: no page and no API shows it, to anyone (its own players and staff included).
    for client in (Client(**HTTPS), logged_in(stranger), logged_in(players[0]), logged_in(staff)):
        assert_answers_as_missing(client, live.pk, (*HAND_PATHS, API_HAND))

    hand = play_out(live, players)
    assert hand.status == Hand.Status.FINISHED
    for client in (Client(**HTTPS), logged_in(stranger)):
        assert_answers_as_missing(client, hand.pk, (*HAND_PATHS, API_HAND))
        listed = client.get(f"/api/players/{players[1].username}/hands/").json()
        assert listed["count"] == 0 and listed["results"] == []
        page = client.get(f"/players/{players[1].username}/").content.decode()
        assert f"/hands/{hand.pk}/" not in page

    # Its players and staff see it everywhere.
    for user in (players[2], staff):
        client = logged_in(user)
        for path in (*HAND_PATHS, API_HAND):
            assert client.get(path.format(id=hand.pk)).status_code == 200, (user, path)
        listed = client.get(f"/api/players/{players[1].username}/hands/").json()
        assert [row["hand_id"] for row in listed["results"]] == [hand.pk]
        assert listed["count"] == 1
        page = client.get(f"/players/{players[1].username}/").content.decode()
        assert f'href="/hands/{hand.pk}/"' in page


def test_regression_practice_hands_are_public() -> None:
    """A practice hand (a bot seated at its start) at a listed table is its player's alone."""
    player, stranger = make_users(2)
    hand = make_hand([player, None, None, None], ranked=False, result={"attacker_points": 0})
    assert not hand.match.table.unlisted
    hand_settle(hand_id=hand.pk)
    for client in (Client(**HTTPS), logged_in(stranger)):
        assert_answers_as_missing(client, hand.pk, (*HAND_PATHS, API_HAND))
        assert client.get(f"/api/players/{player.username}/hands/").json()["count"] == 0
    mine = logged_in(player)
    assert mine.get(API_HAND.format(id=hand.pk)).json()["id"] == hand.pk
    assert mine.get(f"/api/players/{player.username}/hands/").json()["count"] == 1


def test_a_listed_tables_hand_that_is_over_stays_public_and_a_live_one_is_not_in_the_api() -> None:
    players = make_users(4)
    table: Table = make_table(players[0])
    for index, user in enumerate(players):
        services.seat_take(table_id=table.pk, user=user, index=index)
    live = None
    for user in players:
        live = services.seat_ready(table_id=table.pk, user=user) or live
    assert live is not None
    deal_and_close(live)
    visitor = Client(**HTTPS)
    assert_answers_as_missing(visitor, live.pk, (API_HAND,))
    hand = play_out(live, players)
    for path in (*HAND_PATHS, API_HAND):
        assert visitor.get(path.format(id=hand.pk)).status_code == 200, path
    listed = visitor.get(f"/api/players/{players[0].username}/hands/").json()
    assert [row["hand_id"] for row in listed["results"]] == [hand.pk]
