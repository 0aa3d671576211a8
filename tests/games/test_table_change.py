"""A table's change carried to its sockets (``selectors.table_change``,
``TableConsumer.table_changed``): the change is read once after its commit, and each socket
makes its own ``state`` from the message with no database read, seeing only what a read of
its own would show it; the newest change wins, and what the message cannot answer is read."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import connection, transaction

from games import selectors, services
from games.models import Table
from games.realtime import table_group
from games.services import _common
from proof.fuzz import session_headers
from shengji_site.asgi import application
from tests.games.helpers import deal_and_close, make_table, make_users, seat_all

pytestmark = [pytest.mark.django_db(transaction=True)]
TIMEOUT = 15
PRESENCE_AND_STATE = selectors.presence_and_state  # the test's own reads are not counted


class ReadCounter:
    """Counts the state reads sockets make (on connecting, on a refresh)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads = 0
        for name in ("presence_and_state", "table_state_for"):
            monkeypatch.setattr(selectors, name, self._counted(getattr(selectors, name)))

    def _counted(self, real: Any) -> Any:
        def counted(**kwargs: Any) -> Any:
            self.reads += 1
            return real(**kwargs)

        return counted


async def open_socket(table_id: int, user: Any) -> WebsocketCommunicator:
    headers = await database_sync_to_async(session_headers)(user)
    socket = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def frames_until_quiet(socket: WebsocketCommunicator) -> list[dict[str, Any]]:
    frames = []
    while not await socket.receive_nothing(timeout=0.5):
        frames.append(await socket.receive_json_from(timeout=TIMEOUT))
    return frames


async def last_state(socket: WebsocketCommunicator) -> dict[str, Any]:
    """The last state sent; waiting up to TIMEOUT for a first one (a busy machine may send it
    after the first half second of quiet)."""
    frames = await frames_until_quiet(socket)
    while not any(f["type"] == "state" for f in frames):
        frames.append(await socket.receive_json_from(timeout=TIMEOUT))
        frames += await frames_until_quiet(socket)
    return [f for f in frames if f["type"] == "state"][-1]


def read_state(table_id: int, user: Any, watching: int | None = None) -> dict[str, Any]:
    """The state a read of the socket's own would send, as the client decodes it."""
    found = PRESENCE_AND_STATE(table_id=table_id, user=user, watching=watching)
    assert found is not None
    decoded: dict[str, Any] = json.loads(json.dumps(found[1]))
    return decoded


def a_dealt_table() -> tuple[list[Any], int, int]:
    users = make_users()
    table = make_table(users[0])
    hand = deal_and_close(seat_all(table, users))
    return users, table.pk, hand.pk


async def test_a_change_reaches_every_socket_as_its_own_state_with_no_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    users, table_id, _hand = await database_sync_to_async(a_dealt_table)()
    seated = [await open_socket(table_id, user) for user in users]
    watcher = await open_socket(table_id, None)
    for socket in [*seated, watcher]:
        await frames_until_quiet(socket)
    counter = ReadCounter(monkeypatch)

    await database_sync_to_async(services.seat_show_hand)(
        table_id=table_id, user=users[1], allow=True
    )

    for index, socket in enumerate(seated):
        state = await last_state(socket)
        assert state == await database_sync_to_async(read_state)(table_id, users[index])
        assert state["you"] == {"seat": index, "watching": None}
        assert state["hand"]["view"]["hand"], "a seat sees its own cards"
    shown = await last_state(watcher)
    assert shown == await database_sync_to_async(read_state)(table_id, AnonymousUser())
    assert "hand" not in shown["hand"]["view"] or not shown["hand"]["view"]["hand"]
    assert shown["seats"][1]["shows_hand"] is True
    assert counter.reads == 0
    for socket in [*seated, watcher]:
        await socket.disconnect()


async def test_a_watcher_sees_a_seat_only_while_its_player_allows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    users, table_id, _hand = await database_sync_to_async(a_dealt_table)()
    watcher = await open_socket(table_id, None)
    await frames_until_quiet(watcher)
    await watcher.send_json_to({"type": "watch", "seat": 2})
    assert (await last_state(watcher))["you"] == {"seat": None, "watching": 2}
    counter = ReadCounter(monkeypatch)

    for allow in (True, False):
        await database_sync_to_async(services.seat_show_hand)(
            table_id=table_id, user=users[2], allow=allow
        )
        state = await last_state(watcher)
        assert state == await database_sync_to_async(read_state)(table_id, AnonymousUser(), 2)
        seat_two = await database_sync_to_async(read_state)(table_id, users[2])
        assert (state["hand"]["view"] == seat_two["hand"]["view"]) is allow
    assert counter.reads == 0
    await watcher.disconnect()


async def test_an_older_change_is_dropped_and_what_it_cannot_answer_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    users, table_id, hand_id = await database_sync_to_async(a_dealt_table)()
    socket = await open_socket(table_id, users[0])
    first = await last_state(socket)
    change = await database_sync_to_async(selectors.table_change)(table_id=table_id)
    assert change is not None and change["rev"] == first["table"]["rev"]
    counter = ReadCounter(monkeypatch)
    layer = get_channel_layer()

    async def send(change: dict[str, Any] | None) -> None:
        await layer.group_send(table_group(table_id), {"type": "table.changed", "change": change})

    await send(change)  # the change this socket's state already holds
    assert await socket.receive_nothing(timeout=0.5)
    await send({**change, "rev": change["rev"] + 1})  # a newer one: sent, from the message
    assert (await last_state(socket))["table"]["rev"] == change["rev"]  # as the table says
    await send(change)  # older than the newest sent
    assert await socket.receive_nothing(timeout=0.5)
    assert counter.reads == 0

    # A change of a hand older than the one sent (a late copy from another process): read.
    await send({**change, "rev": change["rev"] + 2, "hand": [hand_id - 1, 0]})
    assert (await last_state(socket))["hand"]["id"] == hand_id
    assert counter.reads == 1
    await send(None)  # the table gone, or its change not readable: read
    await last_state(socket)
    assert counter.reads == 2
    await socket.disconnect()


def test_a_transaction_moves_the_rev_on_once_and_sends_one_change() -> None:
    users = make_users()
    table = make_table(users[0])
    before = Table.objects.get(pk=table.pk).rev

    def pending() -> int:
        return sum(
            isinstance(entry[1], _common._TableChangePublish) for entry in connection.run_on_commit
        )

    with transaction.atomic():
        locked = _common.lock_table(table.pk)
        try:
            with transaction.atomic():
                _common.table_changed(locked, _common.system("practice"))
                assert pending() == 1
                raise RuntimeError("roll the savepoint back")
        except RuntimeError:
            pass
        assert pending() == 0  # the rolled-back savepoint took its send with it
        _common.table_changed(locked, _common.system("practice"))
        _common.table_changed(locked, None)
        assert pending() == 1
    assert Table.objects.get(pk=table.pk).rev == before + 1


def test_the_change_holds_each_seats_view_and_the_public_one_apart() -> None:
    users, table_id, _hand = a_dealt_table()
    change = selectors.table_change(table_id=table_id)
    assert change is not None
    hands = [json.loads(text) for text in change["hands"]]
    assert len(hands) == 5
    for index, user in enumerate(users):
        assert hands[index] == read_state(table_id, user)["hand"]
    assert hands[4] == read_state(table_id, AnonymousUser())["hand"]
    assert change["occupants"] == [user.pk for user in users]
    assert selectors.table_change(table_id=10**9) is None


async def test_a_socket_opening_as_the_table_changes_is_sent_the_change_after_its_first_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    users, table_id, _hand = await database_sync_to_async(a_dealt_table)()
    read, go_on = threading.Event(), threading.Event()
    real = selectors.table_state_for

    def read_then_wait(**kwargs: Any) -> Any:
        state = real(**kwargs)
        read.set()
        assert go_on.wait(TIMEOUT)
        return state

    monkeypatch.setattr(selectors, "table_state_for", read_then_wait)
    headers = await database_sync_to_async(session_headers)(None)
    socket = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    assert await database_sync_to_async(read.wait)(TIMEOUT)
    before = (await database_sync_to_async(Table.objects.get)(pk=table_id)).rev
    await database_sync_to_async(services.seat_show_hand)(
        table_id=table_id, user=users[0], allow=True
    )
    assert await socket.receive_nothing(timeout=0.5)  # the change waits for the connect
    go_on.set()
    revs = [f["table"]["rev"] for f in await frames_until_quiet(socket) if f["type"] == "state"]
    assert revs == [before, before + 1]  # the read made before the change, then the change
    await socket.disconnect()


def test_changes_committed_while_their_table_is_read_make_one_more_read_not_one_each() -> None:
    reading, release = threading.Event(), threading.Event()
    sent: list[int] = []

    def send(table_id: int) -> None:  # a read that takes as long as the test says
        sent.append(table_id)
        if len(sent) == 1:
            reading.set()
            assert release.wait(TIMEOUT)

    reads = _common._TableChangeReads(send)
    first = threading.Thread(target=reads.publish, args=(7,))
    first.start()
    assert reading.wait(TIMEOUT)
    for _ in range(3):  # three commits while the first read runs: they return at once
        reads.publish(7)
    reads.publish(8)  # another table is read on its own, meanwhile
    assert sent == [7, 8]
    release.set()
    first.join(TIMEOUT)
    assert sent == [7, 8, 7]  # the reader read once more, after them all
    reads.publish(7)  # nothing in flight now: read at once
    assert sent == [7, 8, 7, 7]
    assert reads.reading == set() and reads.again == set()


def test_a_read_that_fails_leaves_the_table_to_the_next_change() -> None:
    calls: list[int] = []

    def send(table_id: int) -> None:
        calls.append(table_id)
        if len(calls) == 1:
            raise RuntimeError("the database went away")

    reads = _common._TableChangeReads(send)
    with pytest.raises(RuntimeError):
        reads.publish(3)
    reads.publish(3)  # not stuck as "being read"
    assert calls == [3, 3]
