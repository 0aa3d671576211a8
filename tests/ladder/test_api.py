"""The REST API: public profiles, leaderboards, hands, tokens, and its OpenAPI schema."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.services.wrap_up import hand_settle
from ladder.services import ladder_points_adjust
from tests.ladder.helpers import PASSWORD, make_hand, make_user, make_users

pytestmark = pytest.mark.django_db


def test_public_profile(api: APIClient) -> None:
    users = make_users()
    ladder_points_adjust(user=users[0], account="title", amount=130, reason="t", by=None)
    hand_settle(hand_id=make_hand(users, result={"attacker_points": 0}).pk)
    response = api.get(f"/api/players/{users[0].username}/")
    assert response.status_code == 200
    data = response.json()
    assert data["title"] == {"code": "pinming", "name": "拼命", "english": "Relentless",
                             "min_points": 130}  # fmt: skip
    assert data["title_points"] == 133
    assert data["table_points"] == 1390
    assert data["hands_played"] == 1 and data["hands_won"] == 1 and data["win_rate"] == 1.0
    assert data["rating_provisional"] is True
    assert data["ranks"] == {"title": 1, "rating": None, "points": 1}


def test_unknown_player_is_a_404_with_a_code(api: APIClient) -> None:
    response = api.get("/api/players/nobody/")
    assert response.status_code == 404
    assert response.json()["code"] == "player_not_found"


def test_a_players_hands(api: APIClient) -> None:
    users = make_users()
    first = make_hand(users, result={"attacker_points": 0})
    second = make_hand(users, result={"attacker_points": 240}, levels=("K", "5"))
    for hand in (first, second):
        hand_settle(hand_id=hand.pk)
    response = api.get(f"/api/players/{users[1].username}/hands/?limit=1")
    data = response.json()
    assert data["count"] == 2 and data["limit"] == 1
    [row] = data["results"]
    assert (row["hand_id"], row["seat"], row["won"], row["table_points"], row["title_points"]) == (
        second.pk, 1, True, 590, 4,
    )  # fmt: skip
    assert row["replay_url"].endswith(f"/{second.pk}/")
    older = api.get(f"/api/players/{users[1].username}/hands/?limit=1&offset=1").json()
    assert older["results"][0]["table_points"] == -400


def test_leaderboard_with_the_viewers_rank(api: APIClient) -> None:
    users = [make_user() for _ in range(3)]
    for points, user in zip((10, 30, 20), users, strict=True):
        ladder_points_adjust(user=user, account="title", amount=points, reason="t", by=None)
    anonymous = api.get("/api/leaderboards/title/").json()
    assert [row["username"] for row in anonymous["results"]] == [
        users[1].username, users[2].username, users[0].username,
    ]  # fmt: skip
    assert anonymous["viewer"] is None
    api.force_authenticate(users[0])
    mine = api.get("/api/leaderboards/title/?page=1").json()
    assert mine["viewer"] == {"rank": 3, "page": 1}
    assert api.get("/api/leaderboards/elo/").status_code == 404
    assert api.get("/api/leaderboards/title/?page=x").json()["code"] == "parameter_invalid"


def test_hand_detail_shows_the_settlement(api: APIClient) -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0})
    hand_settle(hand_id=hand.pk)
    data = api.get(f"/api/hands/{hand.pk}/").json()
    assert data["settled"] is True
    assert data["outcome"]["levels_gained"] == 3
    assert [seat["username"] for seat in data["seats"]] == [u.username for u in users]
    unsettled = make_hand(users)  # over, not yet wrapped up
    pending = api.get(f"/api/hands/{unsettled.pk}/").json()
    assert (pending["settled"], pending["outcome"], pending["entries"]) == (False, None, [])
    live = make_hand(users, status="playing")  # no API shows a hand in progress
    assert api.get(f"/api/hands/{live.pk}/").json()["code"] == "hand_not_found"
    assert api.get("/api/hands/999999/").json()["code"] == "hand_not_found"
    house = [e for e in data["entries"] if e["username"] is None]
    assert house == [{"username": None, "kind": "fee", "account": "table", "amount": 20,
                      "balance_after": None}]  # fmt: skip


def test_token_for_scripts(api: APIClient) -> None:
    user = make_user()
    bad = api.post("/api/auth/token/", {"username": user.username, "password": "wrong"})
    assert bad.status_code == 400 and bad.json()["code"] == "credentials_invalid"
    response = api.post("/api/auth/token/", {"username": user.username, "password": PASSWORD})
    token = response.json()["token"]
    assert Token.objects.get(user=user).key == token
    assert api.get("/api/me/").status_code in (401, 403)
    script = APIClient(HTTP_X_FORWARDED_PROTO="https")
    script.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = script.get("/api/me/")
    assert me.status_code == 200 and me.json()["username"] == user.username
    ledger = script.get("/api/me/ledger/").json()
    assert [(e["kind"], e["amount"], e["balance_after"]) for e in ledger] == [("grant", 1000, 1000)]
    assert script.delete("/api/auth/token/").status_code == 204
    revoked = script.get("/api/me/", HTTP_ACCEPT_LANGUAGE="en")
    assert revoked.status_code == 403  # DRF: 403 when session authentication comes first
    assert revoked.json()["code"] == "credentials_invalid"  # not the framework's own text


def test_session_authentication_for_the_site(client: Client) -> None:
    user = make_user()
    client.login(username=user.username, password=PASSWORD)
    response = client.get("/api/me/")
    assert response.status_code == 200
    assert response.json()["table_points"] == 1000


def test_schema_lists_the_ladder_api_and_the_docs_page_serves(api: APIClient) -> None:
    schema = api.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in (
        "/api/players/{username}/",
        "/api/players/{username}/hands/",
        "/api/leaderboards/{board}/",
        "/api/hands/{hand_id}/",
        "/api/auth/token/",
        "/api/me/ledger/",
    ):
        assert path in paths
    schemes = schema.json()["components"]["securitySchemes"]
    assert {"cookieAuth", "tokenAuth"} <= set(schemes)
    docs = api.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()
