"""The lobby: the page lists the tables, a table is created with the form, seats are taken,
readied and left through the views (refusals shown with their code), bots fill casual seats,
and the lobby socket sends the new list after a change."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import selectors, services
from games.models import Hand, Seat, Table
from ladder.services import ladder_profile_open
from shengji_site.asgi import application
from tests.games.helpers import make_table, make_users, seat_all
from tests.https import HTTPS, JSON

LOBBY = "/tables/"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def client() -> Client:
    return Client(**HTTPS)


def login(user: User) -> Client:
    client = Client(**HTTPS)
    client.force_login(user)
    return client


def page(client: Client, url: str = LOBBY) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def post(client: Client, url: str, data: dict[str, Any] | None = None) -> str:
    """A form post as a browser without the script makes it: the lobby it lands on."""
    response = client.post(url, data or {}, follow=True)
    assert response.status_code == 200
    assert response.redirect_chain and response.redirect_chain[-1][0].startswith(LOBBY)
    return response.content.decode()


@pytest.mark.django_db
def test_the_lobby_lists_open_tables_with_their_seats_and_state(client: Client) -> None:
    users = make_users(6)
    casual = make_table(users[0], ranked=False, preset_name="seed002", stake=30, min_balance=0)
    casual.name = "周末小桌"
    casual.save()
    services.seat_take(table_id=casual.pk, user=users[4], index=1)
    services.seat_ready(table_id=casual.pk, user=users[4])
    services.seat_fill_bot(table_id=casual.pk, user=users[4], index=3)
    playing = make_table(users[0], stake=100)
    seat_all(playing, users[:4])
    closed = make_table(users[5])
    services.table_close(table_id=closed.pk, actor=users[5])

    html = page(client)

    assert "周末小桌" in html and "seed002" in html and "casual" in html
    assert f'id="table-{casual.pk}"' in html and f'id="table-{playing.pk}"' in html
    assert f'id="table-{closed.pk}"' not in html
    assert str(users[4]) in html and "✓ ready" in html and "(bot)" not in html
    assert html.count('class="seat is-ready is-bot"') == 1  # the bot sits ready at seat 3
    assert "hand in progress" in html
    assert "stake 30" in html and "minimum balance 0" in html
    assert reverse("games:table", args=[casual.pk]) in html
    assert 'src="/static/games/lobby.js"' in html and 'type="module"' in html
    # Anonymous visitors see no seat forms.
    assert "/sit/" not in html
    assert 'href="/tables/"' in page(client, "/")  # the nav link


@pytest.mark.django_db
def test_creating_a_table_with_the_form(client: Client) -> None:
    user = make_users(1)[0]
    assert client.get("/tables/new/").status_code == 302  # log in first
    player = login(user)
    assert 'name="preset"' in page(player, "/tables/new/")
    made = player.post(
        "/tables/new/",
        {"name": "午夜场", "mode": "casual", "preset": "seed003", "stake": "50",
         "min_balance": "10", "play_seconds": "15"},
    )  # fmt: skip
    table = Table.objects.get(name="午夜场")
    assert made["Location"] == f"/tables/{table.pk}/"
    html = page(player, made["Location"])
    assert (table.preset, table.ranked, table.stake, table.min_balance, table.play_seconds) == (
        "seed003", False, 50, 10, 15,
    )  # fmt: skip
    assert table.creator == user and table.seats.count() == 4
    # The creator sits at seat 1 and lands on the table's page (issue 33).
    assert table.seats.get(index=0).user == user
    assert "午夜场" in html and 'id="table-name"' in html

    # Ranked tables come only from quick match: the form refuses to make one.
    refused = player.post(
        "/tables/new/",
        {"name": "ranked one", "mode": "ranked", "preset": "seed002", "stake": "100",
         "min_balance": "0", "play_seconds": "20"},
    )  # fmt: skip
    assert refused.status_code == 400 and b"quick match" in refused.content
    assert not Table.objects.filter(name="ranked one").exists()

    # A bad stake is refused and nothing is created; the form comes back with its error.
    response = player.post(
        "/tables/new/",
        {"name": "bad", "mode": "casual", "preset": "seed000", "stake": "0",
         "min_balance": "0", "play_seconds": "20"},
    )  # fmt: skip
    assert response.status_code == 400 and b"errorlist" in response.content
    assert not Table.objects.filter(name="bad").exists()
    # JSON, as the lobby's script asks.
    made = player.post(
        "/tables/new/",
        {"name": "js", "mode": "casual", "preset": "seed004", "stake": "5",
         "min_balance": "0", "play_seconds": "20"},
        **JSON,
    )  # fmt: skip
    assert made.json()["ok"] is True and Table.objects.get(name="js").preset == "seed004"


@pytest.mark.django_db
def test_sit_ready_and_leave_through_the_views_with_refusals_shown() -> None:
    alice, bob, carol = make_users(3)
    table = make_table(alice, stake=100, min_balance=0)
    a, b, c = login(alice), login(bob), login(carol)
    base = f"/tables/{table.pk}"

    html = post(a, f"{base}/sit/", {"seat": "0", "stake": "250"})
    assert "You sit at seat 0." in html
    table.refresh_from_db()
    assert table.stake == 250  # the first to sit sets the stake
    assert "Leave seat" in html and f'action="{base}/ready/"' in html

    html = post(b, f"{base}/sit/", {"seat": "0"})
    assert "that seat is taken (seat_taken)" in html
    post(b, f"{base}/sit/", {"seat": "1", "stake": "999"})
    table.refresh_from_db()
    assert table.stake == 250  # only the first to sit sets it
    assert "(already_seated)" in post(b, f"{base}/sit/", {"seat": "2"})
    assert "(invalid_seat)" in post(c, f"{base}/sit/", {"seat": "7"})
    assert "(bad_message)" in post(c, f"{base}/sit/", {"seat": "two"})
    assert "(not_seated)" in post(c, f"{base}/leave/")
    assert "(not_seated)" in post(c, f"{base}/ready/")

    assert "You are ready." in post(a, f"{base}/ready/", {"ready": "1"})
    assert Seat.objects.get(table=table, index=0).ready
    assert "You are not ready." in post(a, f"{base}/ready/", {"ready": "0"})
    assert not Seat.objects.get(table=table, index=0).ready
    assert "You left your seat." in post(a, f"{base}/leave/")
    assert Seat.objects.get(table=table, index=0).user is None

    # The same refusals as JSON for the lobby's script, with their HTTP status.
    refused = b.post(f"{base}/sit/", {"seat": "3"}, **JSON)
    assert refused.status_code == 409
    assert refused.json() == {
        "ok": False,
        "code": "already_seated",
        "message": "you already have a seat at this table",
    }
    assert b.post(f"{base}/leave/", **JSON).json()["ok"] is True
    missing = b.post("/tables/999999/sit/", {"seat": "0"}, **JSON)
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    # Only POST, and only logged in.
    assert b.get(f"{base}/sit/").status_code == 405
    anonymous = Client(**HTTPS)
    assert anonymous.post(f"{base}/sit/", {"seat": "0"})["Location"].startswith("/accounts/login/")
    assert anonymous.post(f"{base}/sit/", {"seat": "0"}, **JSON).status_code == 401


@pytest.mark.django_db
def test_the_minimum_balance_is_checked_when_sitting() -> None:
    (rich,) = make_users(1, prefix="rich")
    (poor,) = make_users(1, prefix="poor", bankroll=0)
    ladder_profile_open(user=poor)  # the sign-up grant: 1000 table points
    table = make_table(rich, min_balance=5000)  # more than one hand can take here (1580)
    html = post(login(poor), f"/tables/{table.pk}/sit/", {"seat": "0"})
    assert "you hold 1" in html and "(insufficient_balance)" not in html  # its numbers, no code
    assert "You sit at seat 0." in post(login(rich), f"/tables/{table.pk}/sit/", {"seat": "0"})


@pytest.mark.django_db
def test_four_ready_start_the_hand_and_then_leaving_is_refused() -> None:
    users = make_users(4)
    table = make_table(users[0])
    clients = [login(u) for u in users]
    for index, client in enumerate(clients):
        post(client, f"/tables/{table.pk}/sit/", {"seat": str(index)})
    for client in clients[:3]:
        post(client, f"/tables/{table.pk}/ready/", {"ready": "1"})
    html = post(clients[3], f"/tables/{table.pk}/ready/", {"ready": "1"})
    assert "All four are ready: the hand starts." in html
    assert Hand.objects.filter(match__table=table, status=Hand.Status.PLAYING).exists()
    assert "(hand_in_progress)" in post(clients[0], f"/tables/{table.pk}/leave/")
    assert "hand in progress" in html


@pytest.mark.django_db
def test_bots_fill_empty_seats_of_casual_tables_only() -> None:
    creator, stranger = make_users(2)
    casual = make_table(creator, ranked=False, preset_name="seed000")
    ranked = services.ranked_table_open(users=make_users(4, prefix="r"), name="ranked", stake=10)
    owner = login(creator)
    assert "A bot sits at seat 2." in post(owner, f"/tables/{casual.pk}/bot/", {"seat": "2"})
    seat = Seat.objects.get(table=casual, index=2)
    assert seat.bot and seat.ready and seat.user is None
    assert "(seat_taken)" in post(owner, f"/tables/{casual.pk}/bot/", {"seat": "2"})
    assert "(ranked_no_bots)" in post(owner, f"/tables/{ranked.pk}/bot/", {"seat": "1"})
    assert "(not_allowed)" in post(login(stranger), f"/tables/{casual.pk}/bot/", {"seat": "1"})
    # The creator sees the bot buttons of their casual table, others do not.
    assert f'action="/tables/{casual.pk}/bot/"' in page(owner)
    assert f'action="/tables/{casual.pk}/bot/"' not in page(login(stranger))


@pytest.mark.django_db
def test_the_table_page_placeholder_links_back(client: Client) -> None:
    users = make_users(1)
    table = make_table(users[0])
    assert reverse("games:table", args=[table.pk]) == f"/tables/{table.pk}/"
    html = page(client, f"/tables/{table.pk}/")
    assert "test table" in html and 'href="/tables/"' in html
    assert client.get("/tables/999999/").status_code == 404


@pytest.mark.django_db
def test_the_status_feed_tells_the_viewer_their_seats() -> None:
    alice, bob = make_users(2)
    table = make_table(alice)
    services.seat_take(table_id=table.pk, user=bob, index=2)
    body = login(bob).get("/tables/status/").json()
    assert body["viewer"] == {"seats": {str(table.pk): {"seat": 2, "ready": False}}, "created": []}
    assert "size" not in body["queue"] and body["queue"]["queued"] is False
    assert login(alice).get("/tables/status/").json()["viewer"]["created"] == [table.pk]
    assert Client(**HTTPS).get("/tables/status/").json()["viewer"] == {"seats": {}, "created": []}


# --- the live feed ----------------------------------------------------------------------------


def _session_headers(user: User) -> list[tuple[bytes, bytes]]:
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    return [(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)]


async def _frame_where(socket: WebsocketCommunicator, test: Any) -> dict[str, Any]:
    for _ in range(20):
        frame: dict[str, Any] = await socket.receive_json_from(timeout=10)
        assert frame["type"] == "lobby"
        if test(frame):
            return frame
    raise AssertionError("no such lobby frame")


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_sends_the_list_again_after_a_change(redis_url: str) -> None:
    alice, bob = await database_sync_to_async(make_users)(2)
    socket = WebsocketCommunicator(
        application, "/ws/lobby/", headers=await database_sync_to_async(_session_headers)(bob)
    )
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=10)
    assert first == {"type": "lobby", "tables": []}

    creator = await database_sync_to_async(login)(alice)
    data = {"name": "直播桌", "mode": "casual", "preset": "seed000", "stake": "20",
            "min_balance": "0", "play_seconds": "20"}  # fmt: skip
    await database_sync_to_async(creator.post)("/tables/new/", data)
    frame = await _frame_where(socket, lambda f: f["tables"])
    (table,) = frame["tables"]
    assert (table["name"], table["preset"], table["ranked"], table["stake"]) == (
        "直播桌", "seed000", False, 20,
    )  # fmt: skip

    sitter = await database_sync_to_async(login)(bob)
    await database_sync_to_async(sitter.post)(f"/tables/{table['id']}/sit/", {"seat": 1})
    frame = await _frame_where(socket, lambda f: f["tables"][0]["seats"][1]["user"] == "player1")
    assert frame["tables"][0]["seats"][1] == {"seat": 1, "user": "player1", "bot": False,
                                              "autopilot": False, "ready": False}  # fmt: skip
    await socket.disconnect()


@pytest.mark.django_db
def test_a_player_on_autopilot_is_listed_as_such_not_as_a_bot(client: Client) -> None:
    """托管 keeps the seat the player's: the lobby says "(autopilot)", not "(bot)"."""
    users = make_users(4)
    table = make_table(users[0], stake=100)
    seat_all(table, users)
    services.seat_autopilot(table_id=table.pk, user=users[2], on=True)
    html = page(client)
    assert f"{users[2]} (autopilot)" in html and "(bot)" not in html
    (row,) = [t for t in selectors.lobby_list() if t["id"] == table.pk]
    assert [s["autopilot"] for s in row["seats"]] == [False, False, True, False]
