"""Private tables (issue 16): an unlisted casual table is in no listing (the lobby page, its
status JSON, the lobby feed, the API); its page and socket are for its creator, its players,
staff and whoever came through its invite link (/t/<code>/); to anyone else it does not exist."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from games import selectors, services
from games.models import Seat, Table
from proof.fuzz import session_headers
from shengji_site.asgi import application
from tests.games.helpers import logged_in, make_table, make_users
from tests.https import HTTPS, JSON


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def private_table(creator: User) -> Table:
    table = services.table_create(creator=creator, name="秘密小桌", unlisted=True)
    assert table.unlisted and len(table.invite_code) >= 16
    return table


def invite(table: Table) -> str:
    return f"/t/{table.invite_code}/"


@pytest.mark.django_db
def test_a_private_table_is_in_no_listing() -> None:
    users = make_users(3)
    private = private_table(users[0])
    listed = services.table_create(creator=users[1], name="open to all")
    client = logged_in(users[2])

    lobby = client.get("/tables/").content.decode()
    assert "open to all" in lobby and f'id="table-{listed.pk}"' in lobby
    assert "秘密小桌" not in lobby and f'id="table-{private.pk}"' not in lobby
    status = client.get("/tables/status/").content.decode()
    assert "秘密小桌" not in status and private.invite_code not in status
    feed = [t["id"] for t in selectors.lobby_list()]  # what the lobby socket sends
    assert listed.pk in feed and private.pk not in feed
    for url in ("/api/leaderboards/title/", f"/api/players/{users[0].username}/hands/"):
        response = client.get(url)
        assert response.status_code == 200 and "秘密小桌" not in response.content.decode()


@pytest.mark.django_db
def test_only_the_creator_players_staff_and_invited_see_the_page() -> None:
    users = make_users(4)
    table = private_table(users[0])
    page = f"/tables/{table.pk}/"
    services.seat_take(table_id=table.pk, user=users[1], index=1)
    staff = users[3]
    staff.is_staff = True
    staff.save()

    assert logged_in(users[2]).get(page).status_code == 404  # a stranger
    assert Client(**HTTPS).get(page).status_code == 404  # a visitor
    for user in (users[0], users[1], staff):
        assert logged_in(user).get(page).status_code == 200, user

    stranger = logged_in(users[2])
    response = stranger.get(invite(table))
    assert response.status_code == 302 and response["Location"] == page
    html = stranger.get(page).content.decode()
    assert 'id="invite-url" type="text" readonly value="https://testserver' in html
    assert f'{invite(table)}" aria-label=' in html  # the link, whole, to copy
    assert 'class="invite is-mine"' not in html  # the creator's box is the prominent one
    assert 'class="invite is-mine"' in logged_in(users[0]).get(page).content.decode()
    visitor = Client(**HTTPS)
    assert visitor.get(invite(table)).status_code == 302
    assert visitor.get(page).status_code == 200  # a visitor through the link may watch

    assert Client(**HTTPS).get("/t/no-such-code/").status_code == 404
    services.table_close(table_id=table.pk, actor=staff)
    assert Client(**HTTPS).get(invite(table)).status_code == 404  # a closed table's link


@pytest.mark.django_db
def test_a_stranger_cannot_sit_by_the_table_id_but_an_invited_player_can() -> None:
    users = make_users(2)
    table = private_table(users[0])
    sit = f"/tables/{table.pk}/sit/"
    client = logged_in(users[1])

    refused = client.post(sit, {"seat": "2"}, **JSON)
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert not Seat.objects.filter(user=users[1]).exists()

    client.get(invite(table))
    assert client.post(sit, {"seat": "2"}, **JSON).json()["ok"] is True
    assert Seat.objects.get(table=table, index=2).user == users[1]
    assert client.get(f"/tables/{table.pk}/").status_code == 200  # seated: still visible


@pytest.mark.django_db
def test_a_listed_table_is_open_to_all() -> None:
    (user,) = make_users(1)
    table = make_table(user)
    assert Client(**HTTPS).get(f"/tables/{table.pk}/").status_code == 200
    assert 'id="invite"' not in Client(**HTTPS).get(f"/tables/{table.pk}/").content.decode()


def invited_headers(table: Table) -> list[tuple[bytes, bytes]]:
    """A visitor's socket headers after following the invite link (the session holds it)."""
    client = Client(**HTTPS)
    assert client.get(invite(table)).status_code == 302
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    return [(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)]


async def opens(table_id: int, headers: list[tuple[bytes, bytes]]) -> tuple[bool, Any]:
    socket = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    connected, code = await socket.connect(timeout=10)
    if connected:
        frame = await socket.receive_json_from(timeout=10)
        assert frame["type"] == "state" and frame["table"]["id"] == table_id
        await socket.disconnect()
    return connected, code


@pytest.mark.django_db(transaction=True)
async def test_the_socket_refuses_a_stranger_and_lets_the_invited_and_the_creator_in(
    redis_url: str,
) -> None:
    users = await database_sync_to_async(make_users)(2)
    table = await database_sync_to_async(private_table)(users[0])

    stranger = await database_sync_to_async(session_headers)(users[1])
    assert await opens(table.pk, stranger) == (False, 4404)
    assert await opens(table.pk, await database_sync_to_async(session_headers)(None)) == (
        False,
        4404,
    )
    creator = await database_sync_to_async(session_headers)(users[0])
    assert (await opens(table.pk, creator))[0]
    invited = await database_sync_to_async(invited_headers)(table)
    assert (await opens(table.pk, invited))[0]
