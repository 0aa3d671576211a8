"""A table's changes sent a moment after their commit in a server process
(``_common._TableChangeDelays``, ``SHENGJI_TABLE_CHANGE_DELAY_MS``): a burst of changes is read
and sent once, in a message read after the last of them; a change committed once the read has
begun is sent again; outside a server's event loop (a Celery task, a command) at once."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.test import override_settings

from games import selectors, services
from games.models import Table
from games.realtime import table_group
from games.services import _common
from tests.games.helpers import make_table, make_users

pytestmark = [pytest.mark.django_db(transaction=True)]
TIMEOUT = 15


class Listener:
    """A channel in the table's group on the site's own channel layer (Redis)."""

    def __init__(self) -> None:
        self.layer: Any = get_channel_layer()
        self.channel = ""

    async def join(self, table_id: int) -> None:
        """Join the group, and let the table's earlier changes (its seats taken) go by."""
        self.channel = await self.layer.new_channel()
        await self.layer.group_add(table_group(table_id), self.channel)
        await self.revs(quiet_s=0.6)

    async def heard(self, quiet_s: float) -> list[dict[str, Any]]:
        """The messages heard until none comes for ``quiet_s``."""
        messages = []
        while True:
            try:
                messages.append(await asyncio.wait_for(self.layer.receive(self.channel), quiet_s))
            except TimeoutError:
                return messages

    async def revs(self, quiet_s: float) -> list[int]:
        """The revs of the table changes heard until none comes for ``quiet_s``."""
        heard = await self.heard(quiet_s)
        return [m["change"]["rev"] for m in heard if m["type"] == "table.changed"]


async def eventually(condition: Callable[[], bool]) -> None:
    """Wait until ``condition`` holds (at most TIMEOUT seconds): no fixed sleep that a busy
    machine could outlast."""
    for _ in range(int(TIMEOUT / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the condition never held")


async def sends_settled() -> None:
    """Every delayed send of the site's scheduler done: none may still be running when the
    test's event loop closes (its thread would wait for that loop for ever)."""
    delays = _common._table_change_delays
    await eventually(lambda: not delays.pending and not delays.running)


def a_table() -> tuple[list[Any], int]:
    users = make_users()
    table = make_table(users[0])
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    return users, table.pk


async def a_listened_table() -> tuple[list[Any], int, Listener]:
    """A table of four seated players, and a listener in its group."""
    users, table_id = await database_sync_to_async(a_table)()
    listener = Listener()
    await listener.join(table_id)
    return users, table_id, listener


def rev_of(table_id: int) -> int:
    return Table.objects.get(pk=table_id).rev


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The tables whose change is read, in order (the read itself is the real one)."""
    reads: list[int] = []
    real = selectors.table_change

    def counted(*, table_id: int) -> Any:
        reads.append(table_id)
        return real(table_id=table_id)

    monkeypatch.setattr(selectors, "table_change", counted)
    return reads


# The delay is far longer than the site's (50 ms) so that the four commits, even on a busy
# machine, all land before the read begins.
@override_settings(SHENGJI_TABLE_CHANGE_DELAY_MS=3000)
async def test_a_burst_of_changes_on_the_server_is_read_and_sent_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    users, table_id, listener = await a_listened_table()
    reads = counted_reads(monkeypatch)
    for user in users:  # four transactions, each committed in the server's thread pool
        await database_sync_to_async(services.seat_ready)(table_id=table_id, user=user, ready=False)
    last = await database_sync_to_async(rev_of)(table_id)
    assert await listener.revs(quiet_s=4.0) == [last]  # one message, read after the last commit
    assert reads == [table_id]
    await sends_settled()


@override_settings(SHENGJI_TABLE_CHANGE_DELAY_MS=3000)
async def test_the_change_that_starts_a_hand_goes_at_once_before_its_first_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client that hears of a hand it has no state of asks for one: the change announcing
    the hand goes before the hand's first view, with the readies' changes scheduled before it
    (its read covers them), and no other read comes after."""
    users, table_id, listener = await a_listened_table()
    reads = counted_reads(monkeypatch)
    for user in users:
        await database_sync_to_async(services.seat_ready)(table_id=table_id, user=user)
    heard = await listener.heard(quiet_s=1.0)
    kinds = [m["type"] for m in heard]
    assert kinds[0] == "table.changed" and "hand.view" in kinds
    assert kinds.count("table.changed") == 1
    change = heard[0]["change"]
    assert change["rev"] == await database_sync_to_async(rev_of)(table_id)
    assert change["hand"] is not None  # the new hand, in the state before its view
    assert reads == [table_id]
    await sends_settled()


@override_settings(SHENGJI_TABLE_CHANGE_DELAY_MS=0)
async def test_with_no_delay_each_commit_sends_its_own_change() -> None:
    users, table_id, listener = await a_listened_table()
    before = await database_sync_to_async(rev_of)(table_id)
    for user in users[:3]:
        await database_sync_to_async(services.seat_ready)(table_id=table_id, user=user, ready=False)
    assert await listener.revs(quiet_s=0.5) == [before + 1, before + 2, before + 3]


# With a delay far longer than the wait below, only a change sent at once can be heard in it.
@override_settings(SHENGJI_TABLE_CHANGE_DELAY_MS=3000)
async def test_outside_a_server_loop_a_change_is_sent_at_once() -> None:
    users, table_id, listener = await a_listened_table()
    before = await database_sync_to_async(rev_of)(table_id)
    done = threading.Event()

    def ready_in_a_thread_of_its_own() -> None:  # as a Celery task or a command runs it
        services.seat_ready(table_id=table_id, user=users[0], ready=False)
        done.set()

    thread = threading.Thread(target=ready_in_a_thread_of_its_own)
    thread.start()
    assert await database_sync_to_async(done.wait)(TIMEOUT)
    # sent before the call returned: already waiting in the channel
    message = await asyncio.wait_for(listener.layer.receive(listener.channel), 1.0)
    assert message["change"]["rev"] == before + 1
    thread.join(TIMEOUT)


async def test_a_change_committed_once_the_read_has_begun_is_read_again() -> None:
    loop = asyncio.get_running_loop()
    reading, release = threading.Event(), threading.Event()
    sent: list[int] = []

    def send(table_id: int) -> None:
        sent.append(table_id)
        if len(sent) == 1:
            reading.set()
            assert release.wait(TIMEOUT)

    delays = _common._TableChangeDelays(send)
    for _ in range(3):  # three commits within the delay: one read
        delays.schedule(loop, 7, 0.05)
    delays.schedule(loop, 8, 0.05)  # another table: its own
    assert await asyncio.to_thread(reading.wait, TIMEOUT)
    delays.schedule(loop, 7, 0.05)  # committed while table 7 is being read
    release.set()
    await eventually(lambda: len(sent) >= 3 and not delays.pending and not delays.running)
    assert sorted(sent) == [7, 7, 8]
    assert delays.pending == {} and not delays.running


async def test_a_failed_read_is_logged_and_the_next_change_is_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    loop = asyncio.get_running_loop()
    sent: list[int] = []

    def send(table_id: int) -> None:
        sent.append(table_id)
        if len(sent) == 1:
            raise RuntimeError("the database went away")

    delays = _common._TableChangeDelays(send)
    delays.schedule(loop, 3, 0.01)
    await eventually(lambda: "sending table 3's change failed" in caplog.text)
    await eventually(lambda: not delays.running)
    delays.schedule(loop, 3, 0.01)  # not stuck as pending
    await eventually(lambda: len(sent) == 2 and not delays.running)
    assert sent == [3, 3]
