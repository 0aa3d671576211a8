"""Finding 4: a banned or logged-out user's open socket kept acting (after a ban, chat was
stored, bots were added, a `ready` started a hand then settled to the banned account; after
log-out the old socket still sat and chatted). Sessions now end with the account: log-out, a
password change, a ban and the account's removal close the user's table and lobby sockets at
once (the group ``user_<id>``), and every message a socket takes is checked against the
session first, so a socket whose close message was lost acts no more (docs/PROTOCOL.md).
Real PostgreSQL and Redis, the site's own ASGI application."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.hashers import make_password
from django.contrib.sessions.models import Session
from django.test import Client

from accounts.models import User
from accounts.services import user_ban
from games import services
from games.models import ChatLine, Hand, HandPlayer, Seat, SeatConnection
from ladder.models import HandSettlement, LedgerEntry
from shengji_site.asgi import application
from tests.games.helpers import deal_and_close, make_table, make_users, play_out, seat_all
from tests.https import HTTPS

TIMEOUT = 10
PASSWORD = "pw-long-enough-1"
# What a socket would do next, were it still heard: each changes something when it is.
ACTS: list[dict[str, Any]] = [
    {"type": "chat", "text": "still here"},
    {"type": "bot", "seat": 3},
    {"type": "ready"},
    {"type": "play", "seq": 0, "cards": "AS"},
    {"type": "sit", "seat": 3},
]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def logged_in(user: User) -> tuple[Client, str]:
    """A browser logged in as ``user``, and its session cookie."""
    client = Client(**HTTPS)
    client.force_login(user)
    return client, str(client.cookies["sessionid"].value)


async def open_socket(path: str, cookie: str | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if cookie is not None:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    first = await communicator.receive_json_from(timeout=TIMEOUT)
    assert first["type"] in {"state", "lobby"}
    return communicator


async def closing(communicator: WebsocketCommunicator) -> tuple[dict[str, Any], int]:
    """The last frame a socket is sent before it closes, and the close code."""
    last: dict[str, Any] = {}
    while True:
        output = await communicator.receive_output(timeout=TIMEOUT)
        if output["type"] == "websocket.close":
            return last, int(output.get("code", 1000))
        last = json.loads(output["text"])


async def still_open(communicator: WebsocketCommunicator) -> bool:
    await communicator.send_json_to({"type": "state"})
    frame = await communicator.receive_json_from(timeout=TIMEOUT)
    return frame["type"] in {"state", "error"}


async def acts_change_nothing(communicator: WebsocketCommunicator) -> None:
    """Whatever the closed socket still sends is answered with nothing and does nothing."""
    for message in ACTS:
        await communicator.send_json_to(message)
    assert await communicator.receive_nothing(timeout=0.5)


def casual_table(owner: User) -> int:
    """The user at seat 0 of a casual table, bots ready at seats 1 and 2, seat 3 empty."""
    table = make_table(owner, ranked=False, stake=10)
    services.seat_take(table_id=table.pk, user=owner, index=0)
    services.seat_fill_bot(table_id=table.pk, user=owner, index=1)
    services.seat_fill_bot(table_id=table.pk, user=owner, index=2)
    return table.pk


def table_unchanged(table_id: int, user_id: int) -> dict[str, Any]:
    seats = list(Seat.objects.filter(table_id=table_id).order_by("index"))
    return {
        "chat": ChatLine.objects.filter(table_id=table_id, user_id=user_id).count(),
        "seat3": (seats[3].user_id, seats[3].bot),
        "hands": Hand.objects.filter(match__table_id=table_id).count(),
    }


pytestmark = [pytest.mark.django_db(transaction=True)]


async def test_regression_a_banned_users_open_socket_kept_acting(
    redis_url: str,
) -> None:
    def setup() -> tuple[User, int, str]:
        user = make_users(1, prefix="banned")[0]
        return user, casual_table(user), logged_in(user)[1]

    user, table_id, cookie = await database_sync_to_async(setup)()
    table = await open_socket(f"/ws/table/{table_id}/", cookie)
    lobby = await open_socket("/ws/lobby/", cookie)

    await database_sync_to_async(user_ban)(user=user, reason="collusion at table 7", by=None)

    for socket in (table, lobby):
        last, code = await closing(socket)
        assert code == 4403
        assert last["type"] == "error" and last["code"] == "account_suspended"
        assert last["reason"] == "collusion at table 7"
        assert last["message"].endswith(": collusion at table 7")
    await acts_change_nothing(table)
    after = await database_sync_to_async(table_unchanged)(table_id, user.pk)
    assert after == {"chat": 0, "seat3": (None, False), "hands": 0}
    seat0 = await database_sync_to_async(Seat.objects.get)(table_id=table_id, index=0)
    assert seat0.user_id is None  # no hand in progress: the seat is free at once
    for socket in (table, lobby):
        await socket.disconnect()

    # A socket opened with the banned account's session is anonymous: it may watch, not act.
    again = await open_socket(f"/ws/table/{table_id}/", cookie)
    await again.send_json_to({"type": "chat", "text": "back"})
    assert (await again.receive_json_from(timeout=TIMEOUT))["code"] == "login_required"
    await again.disconnect()


def start_hand() -> tuple[list[User], int, Hand]:
    users = make_users(prefix="midhand")
    table = make_table(users[0], stake=20)  # a ranked table the sign-up grant can afford
    return users, table.pk, seat_all(table, users)


@pytest.mark.django_db(transaction=False)
def test_finding4_a_ban_mid_hand_frees_the_seat_as_an_absence() -> None:
    users, table_id, hand = start_hand()
    services.seat_connected(table_id=table_id, user=users[1], channel_name="socket-1")

    user_ban(user=users[1], reason="bot use", by=None)

    seat = Seat.objects.get(table_id=table_id, index=1)
    assert seat.user_id == users[1].pk and seat.bot and not seat.connected and not seat.ready
    assert seat.disconnected_at is not None
    assert not SeatConnection.objects.filter(seat=seat).exists()
    # Its socket closing now (or its ping) cannot take the seat back.
    assert not services.seat_connected(table_id=table_id, user=users[1], channel_name="s-2")
    assert Seat.objects.get(pk=seat.pk).bot

    hand = play_out(deal_and_close(hand), users)  # the bot's moves for seat 1, by its user
    away = HandPlayer.objects.get(hand=hand, seat=1)
    assert away.absent_at_end and not away.escaped
    assert HandSettlement.objects.filter(hand=hand).exists()
    kinds = set(LedgerEntry.objects.filter(hand=hand, user=users[1]).values_list("kind", flat=True))
    assert "escape_penalty" in kinds  # settled as today's absentee (RULES-SPEC.md §7)
    assert Seat.objects.get(pk=seat.pk).user_id is None


async def test_regression_a_logged_out_socket_still_sat_and_chatted(
    redis_url: str,
) -> None:
    def setup() -> tuple[User, int, Client, str, str]:
        user = make_users(1, prefix="leaving")[0]
        client, cookie = logged_in(user)
        return user, casual_table(user), client, cookie, logged_in(user)[1]

    user, table_id, client, cookie, other_cookie = await database_sync_to_async(setup)()
    table = await open_socket(f"/ws/table/{table_id}/", cookie)
    lobby = await open_socket("/ws/lobby/", cookie)
    elsewhere = await open_socket(f"/ws/table/{table_id}/", other_cookie)  # another browser

    response = await database_sync_to_async(client.post)("/accounts/logout/")
    assert response.status_code == 302

    for socket in (table, lobby):
        last, code = await closing(socket)
        assert (code, last["code"]) == (4401, "session_ended")
    await acts_change_nothing(table)
    assert await database_sync_to_async(table_unchanged)(table_id, user.pk) == {
        "chat": 0,
        "seat3": (None, False),
        "hands": 0,
    }
    assert await still_open(elsewhere)  # a log-out ends its own session only
    for socket in (table, lobby, elsewhere):
        await socket.disconnect()

    again = await open_socket(f"/ws/table/{table_id}/", cookie)
    await again.send_json_to({"type": "sit", "seat": 3})
    assert (await again.receive_json_from(timeout=TIMEOUT))["code"] == "login_required"
    await again.disconnect()


async def test_finding4_after_a_password_change_every_session_s_sockets_close(
    redis_url: str,
) -> None:
    def setup() -> tuple[User, int, Client, str, str]:
        user = make_users(1, prefix="changing")[0]
        client, cookie = logged_in(user)
        return user, casual_table(user), client, cookie, logged_in(user)[1]

    user, table_id, client, cookie, other_cookie = await database_sync_to_async(setup)()
    sockets = [
        await open_socket(f"/ws/table/{table_id}/", cookie),
        await open_socket("/ws/lobby/", cookie),
        await open_socket(f"/ws/table/{table_id}/", other_cookie),
    ]
    change = {
        "old_password": PASSWORD,
        "new_password1": "a-new-pw-9x",
        "new_password2": "a-new-pw-9x",
    }
    response = await database_sync_to_async(client.post)("/accounts/password_change/", change)
    assert response.status_code == 302

    for socket in sockets:
        last, code = await closing(socket)
        assert (code, last["code"]) == (4401, "session_ended")
    await acts_change_nothing(sockets[0])
    await acts_change_nothing(sockets[2])
    assert await database_sync_to_async(table_unchanged)(table_id, user.pk) == {
        "chat": 0,
        "seat3": (None, False),
        "hands": 0,
    }
    for socket in sockets:
        await socket.disconnect()


async def test_finding4_after_an_admin_deletes_the_user_their_sockets_close(
    redis_url: str,
) -> None:
    # A player who ever sat has a ladder profile and ledger rows, which block a deletion
    # (PROTECT, append-only): an account the admin can remove has only watched.
    def setup() -> tuple[User, int, Client, str]:
        owner = make_users(1, prefix="owner")[0]
        user = User.objects.create_user("removed", password=PASSWORD)  # no ladder rows
        boss = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
        admin = Client(**HTTPS)
        admin.force_login(boss)
        return user, casual_table(owner), admin, logged_in(user)[1]

    user, table_id, admin, cookie = await database_sync_to_async(setup)()
    table = await open_socket(f"/ws/table/{table_id}/", cookie)
    lobby = await open_socket("/ws/lobby/", cookie)

    url = f"/admin/accounts/user/{user.pk}/delete/"
    response = await database_sync_to_async(admin.post)(url, {"post": "yes"})
    assert response.status_code == 302
    assert not await database_sync_to_async(User.objects.filter(pk=user.pk).exists)()

    for socket in (table, lobby):
        last, code = await closing(socket)
        assert (code, last["code"]) == (4401, "session_ended")
    await acts_change_nothing(table)
    assert await database_sync_to_async(table_unchanged)(table_id, user.pk) == {
        "chat": 0,
        "seat3": (None, False),
        "hands": 0,
    }
    for socket in (table, lobby):
        await socket.disconnect()


def lose_the_message(how: str, user: User, cookie: str) -> None:
    """The change made straight in the database: no service, no signal, no group message."""
    if how == "deactivated":
        User.objects.filter(pk=user.pk).update(is_active=False, ban_reason="spam")
    elif how == "logged_out":
        Session.objects.filter(session_key=cookie).delete()
    elif how == "password_changed":
        User.objects.filter(pk=user.pk).update(password=make_password("another-pw-77"))


@pytest.mark.parametrize(
    ("how", "code", "close"),
    [
        ("deactivated", "account_suspended", 4403),
        ("logged_out", "session_ended", 4401),
        ("password_changed", "session_ended", 4401),
    ],
)
async def test_finding4_the_per_message_check_stops_a_socket_whose_close_message_was_lost(
    how: str, code: str, close: int, redis_url: str
) -> None:
    def setup() -> tuple[User, int, str]:
        user = make_users(1, prefix=f"lost-{how}")[0]
        return user, casual_table(user), logged_in(user)[1]

    user, table_id, cookie = await database_sync_to_async(setup)()
    table = await open_socket(f"/ws/table/{table_id}/", cookie)
    lobby = await open_socket("/ws/lobby/", cookie)
    await database_sync_to_async(lose_the_message)(how, user, cookie)

    # The seat is still the user's (nothing vacated it) and the bots are ready: a `ready`
    # heard would start a hand. The first message is refused, and the socket closes.
    await table.send_json_to({"type": "ready"})
    last, closed = await closing(table)
    assert (last["code"], closed) == (code, close)
    if how == "deactivated":
        assert last["reason"] == "spam"
    await acts_change_nothing(table)
    await lobby.send_json_to({"type": "ping"})
    assert (await closing(lobby))[1] == close
    assert await database_sync_to_async(table_unchanged)(table_id, user.pk) == {
        "chat": 0,
        "seat3": (None, False),
        "hands": 0,
    }
    for socket in (table, lobby):
        await socket.disconnect()


@pytest.mark.django_db(transaction=False)
def test_the_check_is_one_statement(django_assert_num_queries: Any) -> None:
    """The check each socket message pays for: one statement, two primary-key lookups (its
    time is the load bench's: docs/proof/LOAD.md)."""
    user = make_users(1, prefix="timed")[0]
    key, mark = logged_in(user)[1], user.get_session_auth_hash()

    def check(user_id: int = user.pk, session_key: str = key, session_hash: str = mark) -> Any:
        return services.socket_session_check(
            user_id=user_id, session_key=session_key, session_hash=session_hash
        )

    with django_assert_num_queries(1):
        assert check() is None
    assert check(session_hash="x") == services.SessionEnd("session_ended")
    assert check(session_key="gone") == services.SessionEnd("session_ended")
    assert check(user_id=user.pk + 999) == services.SessionEnd("session_ended")


async def test_a_session_ended_as_its_socket_opens_closes_it_before_the_seat_is_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The session's first check rides with the socket's first read, the seat's registration
    between them: an account suspended after the socket was let in (here, while its presence
    is read) is closed with no state sent and no socket row for its seat."""
    from games import selectors

    def setup() -> tuple[User, int, str]:
        user = make_users(1, prefix="opening")[0]
        return user, casual_table(user), logged_in(user)[1]

    user, table_id, cookie = await database_sync_to_async(setup)()
    real = selectors.presence_if_visible

    def suspended_meanwhile(**kwargs: Any) -> Any:
        found = real(**kwargs)
        User.objects.filter(pk=user.pk).update(is_active=False, ban_reason="spam")
        return found

    monkeypatch.setattr(selectors, "presence_if_visible", suspended_meanwhile)
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    headers.append((b"cookie", f"sessionid={cookie}".encode()))
    communicator = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    last, closed = await closing(communicator)
    assert (last["code"], last["reason"], closed) == ("account_suspended", "spam", 4403)
    rows = database_sync_to_async(SeatConnection.objects.filter(seat__table_id=table_id).count)
    assert await rows() == 0
    await communicator.disconnect()
