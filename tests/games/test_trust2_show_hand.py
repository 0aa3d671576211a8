"""Issue 34, finding 7g: ``show_hand`` showed a player's cards to any spectator, an opponent's
second account included. A spectator whose client address is a seated player's at that table
sees only the public view (``TableConsumer._watch_if_allowed``)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import services
from proof.fuzz import session_headers
from shengji_site.asgi import application
from tests.games.helpers import deal_and_close, make_table, make_users, seat_all
from tests.games.test_table_socket import Peer

pytestmark = [pytest.mark.django_db(transaction=True)]
OPPONENT_ADDRESS = "198.51.100.7"
STRANGER_ADDRESS = "203.0.113.9"


def table_with_a_shown_hand() -> tuple[list[Any], int]:
    users = make_users()
    table = make_table(users[0], bury_seconds=60, play_seconds=60)
    deal_and_close(seat_all(table, users))
    services.seat_show_hand(table_id=table.pk, user=users[0], allow=True)
    return users, table.pk


async def connect_from(table_id: int, user: Any, address: str, name: str) -> Peer:
    headers = await database_sync_to_async(session_headers)(user)
    socket = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    socket.scope["client"] = (address, 50000)
    connected, _ = await socket.connect()
    assert connected
    peer = Peer(name, socket)
    await peer.until(lambda f: f["type"] == "state")
    return peer


async def watched_cards(peer: Peer, seat: int) -> str:
    await peer.socket.send_json_to({"type": "watch", "seat": seat})
    frame = await peer.until(
        lambda f: (
            (f["type"] == "state" and f["you"]["watching"] == seat)
            or (f["type"] == "state" and f["you"]["watching"] is None)
        )
    )
    return str(frame["hand"]["view"].get("hand") or "")


async def test_regression_show_hand_showed_cards_to_an_opponents_second_account(
    redis_url: str,
) -> None:
    users, table_id = await database_sync_to_async(table_with_a_shown_hand)()
    alt, stranger = await database_sync_to_async(make_users)(2, "watcher")
    opponent = await connect_from(table_id, users[1], OPPONENT_ADDRESS, "opponent")

    second_account = await connect_from(table_id, alt, OPPONENT_ADDRESS, "alt")
    assert await watched_cards(second_account, 0) == ""  # the public view: no cards of seat 0
    watcher = await connect_from(table_id, stranger, STRANGER_ADDRESS, "stranger")
    assert len((await watched_cards(watcher, 0)).split()) >= 25  # seat 0 shows its hand to them
    for peer in (opponent, second_account, watcher):
        await peer.socket.disconnect()
