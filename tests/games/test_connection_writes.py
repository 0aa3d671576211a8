"""A seated player's sockets opening and closing (issue 19): each a few statements written out,
no write at all for a second socket of a player already connected, and the same outcomes as
before: the away mark and its grace period when the last socket closes, the seat taken back
from the bot on return."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

import pytest
from django import db
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Seat, SeatConnection, Table
from games.services._common import lock_current_hand, lock_table
from tests.games.helpers import make_table, make_users, seat_all

pytestmark = pytest.mark.django_db


def _statements(queries: CaptureQueriesContext) -> list[str]:
    """The statements but the transaction's own (BEGIN, COMMIT, savepoints)."""
    own = ("SAVEPOINT", "RELEASE", "BEGIN", "COMMIT")
    return [q["sql"] for q in queries if not q["sql"].startswith(own)]


def test_a_second_socket_of_a_connected_player_writes_no_seat() -> None:
    users = make_users(4, "cw")
    table = make_table(users[0], preset_name="ranked")
    seat_all(table, users)
    assert not services.seat_connected(table_id=table.pk, user=users[1], channel_name="a")
    rev = Table.objects.get(pk=table.pk).rev
    with CaptureQueriesContext(connection) as queries:
        assert not services.seat_connected(table_id=table.pk, user=users[1], channel_name="b")
    statements = _statements(queries)
    assert not [sql for sql in statements if sql.startswith("UPDATE")], statements
    # the table, the hand, the seats (each locked), the account's check, the socket's row
    assert len(statements) == 5, statements
    assert SeatConnection.objects.filter(seat__table=table, seat__index=1).count() == 2
    assert Table.objects.get(pk=table.pk).rev == rev  # nothing for the sockets to hear


@pytest.mark.django_db(transaction=True)  # each service's own commit: the table's rev moves
def test_closing_one_of_two_sockets_keeps_the_seat_and_the_last_starts_the_grace() -> None:
    users = make_users(4, "cc")
    table = make_table(users[0], preset_name="ranked")
    seat_all(table, users)
    for name in ("a", "b"):
        services.seat_connected(table_id=table.pk, user=users[2], channel_name=name)
    rev = Table.objects.get(pk=table.pk).rev
    with CaptureQueriesContext(connection) as queries:
        assert services.seat_disconnected(channel_name="a") is None
    assert len(_statements(queries)) == 4, _statements(queries)
    seat = Seat.objects.get(table=table, index=2)
    assert seat.connected and seat.disconnected_at is None
    assert Table.objects.get(pk=table.pk).rev == rev
    away = services.seat_disconnected(channel_name="b")
    assert away is not None and away.pk == seat.pk
    seat.refresh_from_db()
    assert not seat.connected and seat.disconnected_at is not None
    assert Table.objects.get(pk=table.pk).rev == rev + 1
    assert not SeatConnection.objects.filter(seat=seat).exists()
    assert services.seat_disconnected(channel_name="b") is None  # closed twice: nothing


def test_a_socket_moved_to_another_seat_keeps_one_row() -> None:
    users = make_users(4, "cm")
    table = make_table(users[0], preset_name="ranked")
    seat_all(table, users)
    services.seat_connected(table_id=table.pk, user=users[0], channel_name="same")
    services.seat_connected(table_id=table.pk, user=users[3], channel_name="same")
    (row,) = SeatConnection.objects.filter(channel_name="same")
    assert row.seat.index == 3


def test_the_current_hand_is_locked_with_its_match_and_table() -> None:
    users = make_users(4, "cl")
    table = make_table(users[0], preset_name="ranked")
    assert lock_current_hand(lock_table(table.pk)) is None
    hand = seat_all(table, users)
    locked = lock_current_hand(lock_table(table.pk))
    assert locked is not None and locked.pk == hand.pk
    assert locked.match.table.pk == table.pk and locked.match.pk == hand.match_id
    assert locked.seq == hand.seq and locked.seed == hand.seed


def _at_once(*calls: Callable[[], object]) -> None:
    """Run the calls in threads released together (each thread its own connection)."""
    start = threading.Barrier(len(calls))

    def run(call: Callable[[], object]) -> None:
        try:
            start.wait(10)
            call()
        finally:
            db.connections.close_all()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)


@pytest.mark.django_db(transaction=True)
def test_a_player_closing_all_sockets_at_once_is_away_however_the_closes_race() -> None:
    """A cheater's try to leave without the away mark (and so without the grace, the bot and
    the escape's settlement at the hand's end): close every socket at the same moment, or open
    one as another closes. However the statements interleave, the seat is connected exactly
    when a socket row is left for it."""
    users = make_users(4, "cr")
    table = make_table(users[0], preset_name="ranked")
    seat_all(table, users)
    connect = services.seat_connected
    for number in range(5):
        names = [f"r{number}-{i}" for i in range(3)]
        for name in names:
            connect(table_id=table.pk, user=users[1], channel_name=name)
        _at_once(*(partial(services.seat_disconnected, channel_name=name) for name in names))
        seat = Seat.objects.get(table=table, index=1)
        assert not SeatConnection.objects.filter(seat=seat).exists()
        assert not seat.connected and seat.disconnected_at is not None
        _at_once(
            partial(connect, table_id=table.pk, user=users[1], channel_name=f"o{number}"),
            partial(services.seat_disconnected, channel_name=names[0]),  # already gone
        )
        seat.refresh_from_db()
        assert seat.connected and seat.disconnected_at is None
        assert SeatConnection.objects.filter(seat=seat).count() == 1
        services.seat_disconnected(channel_name=f"o{number}")
