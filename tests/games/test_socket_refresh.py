"""The table socket's refresh (TableConsumer._want_refresh): changes that come while a state
is being read are met by one more read, not one each; views that come meanwhile follow the
state in order, and those the state already holds are not sent again."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from games import selectors, services
from games.realtime import hand_view_message, table_group
from proof.fuzz import session_headers
from shengji_site.asgi import application
from tests.games.helpers import make_table, make_users, seat_all

pytestmark = [pytest.mark.django_db(transaction=True)]
TIMEOUT = 15


class Gate:
    """Holds every state read (the real one runs, then waits) until released."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()
        self.reads = 0
        real = selectors.presence_and_state

        def gated(**kwargs: Any) -> Any:
            found = real(**kwargs)
            self.reads += 1
            self.entered.set()
            assert self.open.wait(TIMEOUT), "the gate was never opened"
            return found

        monkeypatch.setattr(selectors, "presence_and_state", gated)

    async def wait_entered(self) -> None:
        assert await database_sync_to_async(self.entered.wait)(TIMEOUT)


def a_table_with_a_hand() -> tuple[int, int]:
    users = make_users()
    table = make_table(users[0])
    hand = seat_all(table, users)  # no worker: the hand waits at seq 0 for its deal
    return table.pk, hand.pk


async def frames_until_quiet(socket: WebsocketCommunicator) -> list[dict[str, Any]]:
    frames = []
    while not await socket.receive_nothing(timeout=0.5):
        frames.append(await socket.receive_json_from(timeout=TIMEOUT))
    return frames


async def spectator(table_id: int) -> WebsocketCommunicator:
    headers = await database_sync_to_async(session_headers)(None)
    socket = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=TIMEOUT)
    assert first["type"] == "state"
    return socket


CHANGED = {"type": "table.changed", "line": None}


async def a_state_read_in_flight(
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, int, WebsocketCommunicator, Gate]:
    """A spectator's socket at a table with a hand, its state read held by the gate."""
    table_id, hand_id = await database_sync_to_async(a_table_with_a_hand)()
    socket = await spectator(table_id)
    gate = Gate(monkeypatch)
    await get_channel_layer().group_send(table_group(table_id), CHANGED)
    await gate.wait_entered()
    return table_id, hand_id, socket, gate


async def test_changes_during_a_state_read_make_one_more_read_not_one_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table_id, _hand, socket, gate = await a_state_read_in_flight(monkeypatch)
    layer = get_channel_layer()
    for _ in range(5):
        await layer.group_send(table_group(table_id), CHANGED)
    await socket.receive_nothing(timeout=0.3)  # the five reach the socket, held by the gate
    gate.open.set()
    frames = await frames_until_quiet(socket)
    assert [f["type"] for f in frames] == ["state", "state"]
    assert gate.reads == 2
    await socket.disconnect()


async def test_views_during_a_state_read_follow_it_without_the_ones_it_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table_id, hand_id, socket, gate = await a_state_read_in_flight(monkeypatch)
    layer = get_channel_layer()

    def view(seq: int) -> dict[str, Any]:
        seats = [{"seat": n, "hand": "secret"} for n in range(4)]
        return hand_view_message(hand_id, seq, seats, {"marker": seq}, [None] * 4, [False] * 4)

    for seq in (0, 1, 2):  # the state read holds seq 0: only 1 and 2 are newer
        await layer.group_send(table_group(table_id), view(seq))
    await socket.receive_nothing(timeout=0.3)
    gate.open.set()
    frames = await frames_until_quiet(socket)
    assert [f["type"] for f in frames] == ["state", "view", "view"]
    assert frames[0]["hand"]["id"] == hand_id and frames[0]["hand"]["seq"] == 0
    assert [(f["seq"], f["view"]) for f in frames[1:]] == [(1, {"marker": 1}), (2, {"marker": 2})]
    # Once the read is over, views go straight through again.
    await layer.group_send(table_group(table_id), view(3))
    after = await socket.receive_json_from(timeout=TIMEOUT)
    assert (after["type"], after["seq"], after["view"]) == ("view", 3, {"marker": 3})
    await socket.disconnect()


async def test_a_seated_socket_forwards_its_own_seats_view_only() -> None:
    users = await database_sync_to_async(make_users)()
    table = await database_sync_to_async(make_table)(users[0])
    hand = await database_sync_to_async(seat_all)(table, users)
    headers = await database_sync_to_async(session_headers)(users[2])
    socket = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    occupants = [u.pk for u in users]
    event = hand_view_message(
        hand.pk, 5, [{"seat": n} for n in range(4)], {"seat": None}, occupants, [True] * 4
    )
    layer = get_channel_layer()
    await layer.group_send(table_group(table.pk), event)
    frame = await socket.receive_json_from(timeout=TIMEOUT)
    assert frame["view"] == {"seat": 2}
    # A view sent for seat 2's earlier occupant (the user left the seat): dropped.
    await layer.group_send(
        table_group(table.pk), {**event, "seq": 6, "occupants": [*occupants[:2], 999, None]}
    )
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()
    assert await database_sync_to_async(services.playing_hand_id)(table_id=table.pk) == hand.pk
