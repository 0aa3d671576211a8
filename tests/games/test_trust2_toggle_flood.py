"""Issue 34, finding 7b: 托管 toggles flooded the chat past its limit. Toggles are limited per
user over all sockets (``SHENGJI_ACTION_LIMITS["autopilot"]``) and a seat's 托管 lines of the
last minute are one line (``SHENGJI_AUTOPILOT_LINE_MERGE_S``)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from games import services
from games.models import ChatLine, Seat
from tests.games.test_table_socket import Peer, connect, setup_table

pytestmark = [pytest.mark.django_db(transaction=True)]
AUTOPILOT_LINES = ("autopilot_on", "autopilot_off")
TOGGLES = 30


def autopilot_lines(table_id: int) -> list[tuple[str, list[Any]]]:
    lines = ChatLine.objects.filter(table_id=table_id, code__in=AUTOPILOT_LINES).order_by("id")
    return [(line.code, line.params) for line in lines]


async def refusals(peer: Peer, count: int) -> int:
    """Read the socket's frames until ``count`` refusals came (or none for a while)."""
    refused = 0
    while refused < count:
        if await peer.socket.receive_nothing(timeout=2):
            break
        frame = await peer.receive()
        refused += frame["type"] == "error" and frame["code"] == "rate_limited"
    return refused


async def test_regression_autopilot_toggles_flood_the_chat(redis_url: str) -> None:
    """The audit's burst: one player toggles 托管 on and off as fast as the socket goes, from
    two windows. Only the first few toggles pass, and the chat holds one 托管 line of that
    seat, saying where it stands, well under the chat's own limit."""
    users, table_id = await database_sync_to_async(setup_table)()
    windows = [await connect(table_id, users[0], "seat 0"), await connect(table_id, users[0], "b")]
    burst = settings.SHENGJI_ACTION_LIMITS["autopilot"][0][0]
    for toggle in range(TOGGLES):
        await windows[toggle % 2].socket.send_json_to({"type": "autopilot", "on": toggle % 2 == 0})
    refused = sum([await refusals(window, TOGGLES) for window in windows])
    assert refused == TOGGLES - burst  # over both windows: the limit is the user's

    lines = await database_sync_to_async(autopilot_lines)(table_id)
    assert len(lines) == 1 < settings.SHENGJI_CHAT_BURST_LINES
    seat = await database_sync_to_async(Seat.objects.get)(table_id=table_id, index=0)
    assert lines[0] == ("autopilot_on" if seat.autopilot else "autopilot_off", [0, "player0"])

    # Another seat's toggle has a line of its own: lines merge per seat only.
    await database_sync_to_async(services.seat_autopilot)(table_id=table_id, user=users[1], on=True)
    assert len(await database_sync_to_async(autopilot_lines)(table_id)) == 2
    for window in windows:
        await window.socket.disconnect()
