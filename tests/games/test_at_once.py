"""A move's views handed to the idle sockets of its process in the mover's own task (the
channel layer's ``take_at_once``, ``TableConsumer._take_at_once``), and never ahead of a
message already queued for a socket. Real sockets, the site's channel layer on real Redis."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import realtime
from games.handstate import load_state
from games.models import Hand
from shengji.engine import legal_actions, view_for, view_public
from tests.games.test_table_socket import Peer, choose, connect, setup_table, start_hand, whose_turn

pytestmark = [pytest.mark.django_db(transaction=True)]


async def seated_peers(settings: Any) -> tuple[list[Peer], int]:
    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat-{i}") for i, user in enumerate(users)]
    await start_hand(peers, table_id)
    return peers, table_id


def queued(layer: Any) -> list[int]:
    """How many messages went through each table socket's queue (in the order they opened)."""
    return [layer.queued[channel] for channel in layer.at_once]


async def test_a_moves_views_reach_the_idle_sockets_without_their_queues(
    celery_worker: object, settings: Any
) -> None:
    """The bury (the locking path) and two plays by the one statement: after each statement
    move, the three other sockets' queues took nothing (each was handed its view in the
    mover's task), the mover's took the group's copy (its handler was busy), and every socket
    has exactly one view of the move."""
    peers, _table_id = await seated_peers(settings)
    layer = get_channel_layer()
    try:
        assert len(layer.at_once) == 4
        assert len(layer.inboxes) == 4  # each socket's messages go into its server's queue
        by_statement = 0
        for _ in range(3):
            await asyncio.sleep(0.3)  # the sockets have taken everything sent so far
            peer = whose_turn(peers)
            kind, cards = choose(peer.hand_view)
            seq, before = peer.seq, queued(layer)
            await peer.socket.send_json_to({"type": kind, "cards": cards, "seq": seq})
            for other in peers:
                if other.seq <= seq:
                    await other.until(lambda f, s=seq: f["type"] == "view" and f["seq"] > s)
            await asyncio.sleep(0.3)
            grown = sorted(after - was for after, was in zip(queued(layer), before, strict=True))
            if grown == [0, 0, 0, 1]:
                by_statement += 1
            for other in peers:
                views = [f for f in other.frames if f["type"] == "view" and f["seq"] == seq + 1]
                assert len(views) == 1
        assert by_statement >= 2  # the plays; the bury may take the locking path
    finally:
        for peer in peers:
            await peer.socket.disconnect()
    assert layer.at_once == {}  # each socket dropped its handler as it closed
    assert layer.inboxes == {}


def next_view_message(table_id: int) -> tuple[dict[str, Any], int]:
    """The group message a legal move of the seat in turn would send (not made: the hand in
    the database stays), and the seq it would bring."""
    hand = Hand.objects.get(match__table_id=table_id, status=Hand.Status.PLAYING)
    state = load_state(hand)
    seat = state.to_act
    assert seat is not None
    state.apply(legal_actions(state, seat)[0], seat)
    occupants: list[int | None] = [None] * state.players
    for player in hand.players.all():
        occupants[player.seat] = player.user_id
    message = realtime.hand_view_message(
        hand.pk,
        hand.seq + 1,
        [view_for(state, s) for s in range(state.players)],
        view_public(state),
        occupants,
        [False] * state.players,
        prev=hand.seq,
    )
    return message, hand.seq + 1


async def test_a_view_handed_over_at_once_never_overtakes_a_message_queued_before_it(
    celery_worker: object, settings: Any
) -> None:
    """A chat line is queued for every socket, and in the same turn of the loop (before any
    socket has taken it) a view is handed over: each socket sends the line first, then the
    view. (Were idleness judged by the socket's lock alone, the view would go first.)"""
    peers, table_id = await seated_peers(settings)
    layer = get_channel_layer()
    try:
        await asyncio.sleep(0.3)
        message, seq = await database_sync_to_async(next_view_message)(table_id)
        group = realtime.table_group(table_id)
        line: dict[str, Any] = {
            "user": None,
            "text": "queued first",
            "system": True,
            "code": "",
            "params": [],
        }
        layer._deliver_here(group, {"type": "chat.line", "line": line})
        await layer.group_send_soon(group, message)
        for peer in peers:
            await peer.until(lambda f: f["type"] == "view" and f["seq"] == seq)
            kinds = [
                "line" if f["type"] == "chat" and f["line"]["text"] == "queued first" else "view"
                for f in peer.frames
                if f["type"] == "chat" or (f["type"] == "view" and f["seq"] == seq)
            ]
            assert kinds == ["line", "view"]
    finally:
        for peer in peers:
            await peer.socket.disconnect()
