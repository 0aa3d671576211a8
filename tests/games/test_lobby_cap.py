"""The lobby socket (games/lobby.py, docs/PROTOCOL.md): one table list built per change however
many lobby sockets listen, the same frame to each; and a cap on lobby sockets per address and
per user (refused with ``too_many_sockets`` and close code 4429). Real Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts import ratelimits
from accounts.models import User
from games import lobby, selectors, services
from proof.fuzz import session_headers
from shengji_site.asgi import application
from tests.games.helpers import make_table, make_users

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_counts(redis_url: str, settings: Any) -> Iterator[None]:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    ratelimits.reset_all()
    yield
    ratelimits.reset_all()


async def lobby_socket(user: User | None = None, address: str = "192.0.2.20") -> Any:
    headers = await database_sync_to_async(session_headers)(user)
    socket = WebsocketCommunicator(application, "/ws/lobby/", headers=headers)
    socket.scope["client"] = [address, 50000]
    connected, _ = await socket.connect(timeout=10)
    assert connected
    return socket


async def first_lobby(socket: Any) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = await socket.receive_json_from(timeout=10)
        if frame["type"] == "lobby":
            return frame


async def refused(socket: Any) -> int:
    frame = await socket.receive_json_from(timeout=10)
    assert frame == {
        "type": "error",
        "code": "too_many_sockets",
        "message": "too many lobby windows open: close one",
    }
    closed = await socket.receive_output(timeout=10)
    assert closed["type"] == "websocket.close"
    return int(closed["code"])


async def test_regression_lobby_sockets_from_one_address_were_uncapped(settings: Any) -> None:
    """400 lobby sockets from one address were all accepted. Now the address may hold
    SHENGJI_LOBBY_SOCKETS_PER_IP of them; one more is refused with 4429, another address is
    not, and a closed socket frees its place."""
    settings.SHENGJI_LOBBY_SOCKETS_PER_IP = 3
    sockets = [await lobby_socket() for _ in range(3)]
    for socket in sockets:
        await first_lobby(socket)
    assert await refused(await lobby_socket()) == lobby.TOO_MANY_SOCKETS
    other = await lobby_socket(address="198.51.100.7")
    await first_lobby(other)
    await sockets[0].disconnect()
    again = await lobby_socket()
    await first_lobby(again)
    for socket in [*sockets[1:], other, again]:
        await socket.disconnect()


async def test_a_user_may_hold_only_so_many_lobby_sockets(settings: Any) -> None:
    settings.SHENGJI_LOBBY_SOCKETS_PER_USER = 2
    user, other = await database_sync_to_async(lambda: make_users(2, prefix="cap"))()
    mine = [await lobby_socket(user, address=f"203.0.113.{i}") for i in range(2)]
    for socket in mine:
        await first_lobby(socket)
    # From yet another address: the user's cap, not the address's, refuses it.
    assert await refused(await lobby_socket(user, address="203.0.113.9")) == 4429
    theirs = await lobby_socket(other, address="203.0.113.9")
    await first_lobby(theirs)
    for socket in [*mine, theirs]:
        await socket.disconnect()


async def test_regression_each_lobby_socket_queried_the_lobby_on_every_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each table change made every lobby socket query the lobby for itself: N sockets, N
    queries (20 sit/leave with 400 sockets: 0.88 s to 10.4 s). Now the process builds the
    list once per change and sends every socket the same frame."""
    calls = 0
    real = selectors.lobby_list

    def counted(**kwargs: Any) -> list[dict[str, Any]]:
        nonlocal calls
        calls += 1
        return real(**kwargs)

    monkeypatch.setattr(selectors, "lobby_list", counted)
    players = await database_sync_to_async(lambda: make_users(3, prefix="many"))()
    table = await database_sync_to_async(lambda: make_table(players[0], ranked=False))()
    sockets = [await lobby_socket(address=f"192.0.2.{i}") for i in range(12)]
    for socket in sockets:
        await first_lobby(socket)

    for round_, player in enumerate(players[1:], start=1):
        calls = 0
        await database_sync_to_async(services.seat_take)(
            table_id=table.pk, user=player, index=round_
        )
        frames = [await first_lobby(socket) for socket in sockets]
        assert calls == 1, f"{calls} lobby queries for one change heard by {len(sockets)}"
        assert all(frame == frames[0] for frame in frames)
        seated = [s["user"] for t in frames[0]["tables"] if t["id"] == table.pk for s in t["seats"]]
        assert str(player) in seated
    await asyncio.sleep(0.2)
    assert calls == 1  # no late duplicate builds
    for socket in sockets:
        await socket.disconnect()


async def test_changes_while_a_list_is_built_are_met_by_one_more_build_not_one_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A burst of changes: every socket ends on the newest list, and there are fewer builds
    than changes; a socket never gets an older list after a newer one."""
    calls = 0
    real = selectors.lobby_list

    def slow(**kwargs: Any) -> list[dict[str, Any]]:
        nonlocal calls
        calls += 1
        import time

        time.sleep(0.2)
        return real(**kwargs)

    # One creator each: a user keeps at most 3 open tables (docs/proof/SECURITY-PLAYERS.md,
    # finding 4).
    creators = await database_sync_to_async(lambda: make_users(5, prefix="burst"))()
    sockets = [await lobby_socket(address=f"192.0.2.{i}") for i in range(4)]
    for socket in sockets:
        await first_lobby(socket)
    monkeypatch.setattr(selectors, "lobby_list", slow)
    tables = []
    for creator in creators:
        tables.append(await database_sync_to_async(lambda c=creator: make_table(c).pk)())
    await asyncio.sleep(1.5)
    for socket in sockets:
        newest: list[int] = []
        while not await socket.receive_nothing(timeout=0.3):
            frame = await first_lobby(socket)
            ids = [t["id"] for t in frame["tables"]]
            assert len(ids) >= len(newest)  # never an older list after a newer one
            newest = ids
        assert set(tables) <= set(newest)
    assert calls < len(tables)
    for socket in sockets:
        await socket.disconnect()


async def test_a_lobby_socket_gets_nothing_else_and_its_messages_are_refused() -> None:
    socket = await lobby_socket()
    await first_lobby(socket)
    await socket.send_json_to({"type": "state"})
    assert (await socket.receive_json_from(timeout=10))["code"] == "unknown_type"
    await socket.disconnect()
