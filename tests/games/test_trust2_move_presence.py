"""Issue 34, finding 7c: only pings counted as presence. A player who moved in time on a socket
that sent no pings was swept as gone, taken over and settled as absent. A move touches the
socket as a ping does (``TableConsumer._moved_is_presence``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import services
from games.handstate import load_state
from games.models import Seat, SeatConnection
from tests.games.helpers import deal_and_close, make_table, make_users, seat_all
from tests.games.test_table_socket import choose, connect

pytestmark = [pytest.mark.django_db(transaction=True)]
TIMEOUT_S = 3


def hand_to_bury() -> tuple[list[Any], int, int]:
    """Four players, a hand dealt and its bid window closed: (players, table id, who buries)."""
    users = make_users()
    table = make_table(users[0], bury_seconds=60, play_seconds=60)
    hand = deal_and_close(seat_all(table, users))
    to_act = load_state(hand).to_act
    assert to_act is not None
    return users, table.pk, to_act


async def test_regression_only_pings_counted_as_presence(redis_url: str, settings: Any) -> None:
    """The audit: a socket that moves but never pings. Its connection is older than the
    timeout when the sweep looks, but its move was not: it stays, and the seat is not away."""
    settings.SHENGJI_CONNECTION_TIMEOUT_S = TIMEOUT_S
    users, table_id, dealer_index = await database_sync_to_async(hand_to_bury)()
    peer = await connect(table_id, users[dealer_index], "dealer")
    await asyncio.sleep(TIMEOUT_S / 2)  # past the touch's share of the timeout, no ping
    kind, cards = choose(peer.hand_view)
    await peer.socket.send_json_to({"type": kind, "seq": peer.seq, "cards": cards})
    await peer.until(lambda f: f["type"] == "view" and f["view"]["phase"] == "playing")
    await asyncio.sleep(TIMEOUT_S / 2 + 0.5)  # the socket's opening is past the timeout now

    swept = await database_sync_to_async(services.connections_sweep)(older_than_s=TIMEOUT_S)
    seat = await database_sync_to_async(Seat.objects.get)(table_id=table_id, index=dealer_index)
    assert swept == 0
    assert seat.connected and seat.disconnected_at is None and not seat.bot
    alive = SeatConnection.objects.filter(seat=seat).exists
    assert await database_sync_to_async(alive)()
    await peer.socket.disconnect()
