"""Four players and a spectator on real sockets (Channels over Redis, PostgreSQL, a Celery
worker for the deadlines): a whole hand to its settlement, and nothing leaks."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import services
from games.handstate import action_texts, record_for
from games.models import Hand, Seat
from ladder.models import HandSettlement
from proof.fuzz import session_headers
from shengji.engine import (
    Trump,
    format_cards,
    legal_follow,
    parse_cards,
    replay,
    view_for,
    view_public,
)
from shengji_site.asgi import application
from tests.games.helpers import make_table, make_users

if TYPE_CHECKING:
    from pytest_django import Settings

pytestmark = [pytest.mark.django_db(transaction=True)]
TIMEOUT = 15


class Peer:
    """One socket: keeps every frame, and the newest hand view it was sent."""

    def __init__(self, name: str, communicator: WebsocketCommunicator) -> None:
        self.name = name
        self.socket = communicator
        self.frames: list[dict[str, Any]] = []
        self.seq = -1
        self.view: dict[str, Any] | None = None

    @property
    def hand_view(self) -> dict[str, Any]:
        """The newest hand view, once the socket has been sent one."""
        assert self.view is not None
        return self.view

    async def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        frame: dict[str, Any] = await self.socket.receive_json_from(timeout=timeout)
        self.frames.append(frame)
        hand = frame.get("hand") if frame["type"] == "state" else frame
        if frame["type"] in {"state", "view"} and hand and hand.get("seq", -1) >= self.seq:
            self.seq, self.view = hand["seq"], hand["view"]
        return frame

    async def until(self, test: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: nothing matched; last {self.frames[-3:]}")
            frame = await self.receive(remaining)
            if test(frame):
                return frame

    async def drain(self) -> None:
        while not await self.socket.receive_nothing(timeout=0.05):
            await self.receive()


async def connect(table_id: int, user: Any | None, name: str, address: str | None = None) -> Peer:
    """A socket to the table; ``address`` sets the client's address (a spectator from a seated
    player's address sees no shown hand, docs/PROTOCOL.md)."""
    headers = await database_sync_to_async(session_headers)(user)
    communicator = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    if address is not None:
        communicator.scope["client"] = (address, 50000)
    connected, _ = await communicator.connect()
    assert connected
    peer = Peer(name, communicator)
    await peer.until(lambda f: f["type"] == "state")
    return peer


def choose(view: dict[str, Any]) -> tuple[str, str]:
    """What a careful player does from its own view only: bury 8, lead one, follow legally."""
    hand = parse_cards(view["hand"])
    if view["phase"] == "burying":
        return "bury", format_cards(hand[:8])
    trick = view["trick"]
    if not trick or not trick["plays"]:
        return "play", format_cards(hand[:1])
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    lead = parse_cards(trick["plays"][0]["cards"])
    return "play", format_cards(legal_follow(hand, lead, trump))


def setup_table(bury_seconds: int = 60, play_seconds: int = 60) -> tuple[list[Any], int]:
    users = make_users()
    table = make_table(users[0], bury_seconds=bury_seconds, play_seconds=play_seconds)
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    return users, table.pk


async def start_hand(peers: list[Peer], table_id: int) -> None:
    for peer in peers:
        await peer.socket.send_json_to({"type": "ready"})
    # The worker's deadline task deals all 100 cards and closes the bid window (both 0 here).
    for peer in peers:
        await peer.until(lambda f: f["type"] == "view" and f["view"]["phase"] == "burying")


def whose_turn(peers: list[Peer]) -> Peer:
    for peer in peers:
        view = peer.view
        if view and view["to_act"] == view["seat"] and view["phase"] in {"burying", "playing"}:
            return peer
    raise AssertionError("nobody is to act")


async def test_four_sockets_play_a_hand_to_its_settlement_and_nothing_leaks(
    celery_worker: object, settings: Settings
) -> None:
    # The four sockets play at machine speed: on a fast run seat 0 sends its ~28 messages in
    # under a second, past the per-socket bucket (20 at once, then 8 a second) that a human
    # never reaches. The limit is tests/proof/test_rate_limits.py's subject, not this test's.
    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    watcher = await connect(table_id, None, "spectator")
    await start_hand(peers, table_id)
    hand_id = await database_sync_to_async(services.playing_hand_id)(table_id=table_id)

    # An out-of-turn play and a stale seq go to their sender only, with a stable code.
    actor = whose_turn(peers)
    other = peers[(peers.index(actor) + 1) % 4]
    await other.socket.send_json_to(
        {"type": "play", "seq": other.seq, "cards": other.hand_view["hand"].split()[0]}
    )
    assert (await other.until(lambda f: f["type"] == "error"))["code"] in {
        "not_your_turn",
        "wrong_phase",
    }
    kind, cards = choose(actor.hand_view)
    await actor.socket.send_json_to({"type": kind, "seq": actor.seq - 1, "cards": cards})
    assert (await actor.until(lambda f: f["type"] == "error"))["code"] == "stale_seq"

    while True:
        actor = whose_turn(peers)
        kind, cards = choose(actor.hand_view)
        seq = actor.seq
        await actor.socket.send_json_to({"type": kind, "seq": seq, "cards": cards})
        for peer in peers:
            await peer.until(lambda f, p=peer, s=seq: f["type"] in {"view", "state"} and p.seq > s)
        if actor.hand_view["phase"] == "finished":
            break
    for peer in [*peers, watcher]:
        await peer.drain()

    hand = await database_sync_to_async(Hand.objects.get)(pk=hand_id)
    assert hand.status == Hand.Status.FINISHED
    settled = database_sync_to_async(HandSettlement.objects.filter(hand=hand).exists)
    for _ in range(400):  # the wrap-up follows the last play's commit, on a busy machine later
        if await settled():
            break
        await asyncio.sleep(0.05)
    assert await settled()
    record = await database_sync_to_async(lambda: record_for(hand, action_texts(hand)))()
    states = list(replay(record))
    for seat, peer in enumerate(peers):
        views = [f for f in peer.frames if f["type"] == "view"]
        assert len(views) > 25
        for frame in views:
            assert frame["view"]["seat"] == seat
            truth = view_for(states[frame["seq"]], seat)
            assert frame["view"] == truth  # exactly the seat's own view, nothing more
            # The server's next deadline rides with every view; none once the hand is over.
            assert (frame["deadline"] is None) == (truth["phase"] == "finished")
    spectator_views = [f for f in watcher.frames if f["type"] == "view"]
    assert spectator_views and all("hand" not in f["view"] for f in spectator_views)
    assert all(f["view"] == view_public(states[f["seq"]]) for f in spectator_views)
    for peer in [*peers, watcher]:
        await peer.socket.disconnect()


async def test_a_disconnected_player_is_played_by_the_bot_and_takes_the_seat_back(
    celery_worker: object, settings: Any
) -> None:
    settings.SHENGJI_DISCONNECT_GRACE_S = 1
    settings.SHENGJI_BOT_DELAY_MS = 50
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    await start_hand(peers, table_id)
    dealer = whose_turn(peers)
    index = peers.index(dealer)
    await dealer.socket.disconnect()

    # After the grace period the bot buries for the absent dealer; everyone sees it.
    watcher = peers[(index + 1) % 4]
    await watcher.until(
        lambda f: f["type"] == "view" and f["view"]["phase"] == "playing", timeout=TIMEOUT
    )
    seat = await database_sync_to_async(Seat.objects.get)(table_id=table_id, index=index)
    assert seat.bot and not seat.connected
    assert any(
        f["type"] == "state" and any("bot plays seat" in (c["text"]) for c in f["chat"])
        for f in watcher.frames
    )
    auto = await database_sync_to_async(
        lambda: list(
            Hand.objects.get(match__table_id=table_id, status="playing")
            .actions.filter(auto=True)
            .values_list("text", flat=True)
        )
    )()
    assert auto and auto[0].startswith(f"bury {index}")

    back = await connect(table_id, users[index], "back")
    assert back.view is not None and back.view["seat"] == index  # the current view at once
    seat = await database_sync_to_async(Seat.objects.get)(table_id=table_id, index=index)
    assert not seat.bot and seat.connected
    await back.socket.disconnect()
    for peer in peers:
        if peer is not dealer:
            await peer.socket.disconnect()


async def test_regression_a_live_socket_the_sweep_forgot_left_the_bot_in_the_seat(
    celery_worker: object, settings: Any
) -> None:
    """A stalled server (a loaded machine) noted no ping for the connection timeout: the sweep
    forgot the socket though it lived, the grace period ran, the bot took the seat, and the
    player's pings never registered the socket again. Now the next ping does, and the player
    has the seat back. (A ping touches the database once a third of the timeout: the sweep
    forgets only a socket untouched for the whole timeout, so its next ping always does.)"""
    settings.SHENGJI_CONNECTION_TIMEOUT_S = 3
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    await start_hand(peers, table_id)

    def forget_and_take_over() -> Seat:
        from games.models import SeatConnection

        row = SeatConnection.objects.get(seat__table_id=table_id, seat__index=1)
        services.seat_disconnected(channel_name=row.channel_name)  # what the sweep does
        seat = Seat.objects.get(table_id=table_id, index=1)
        assert seat.disconnected_at is not None and not seat.connected
        assert services.seat_takeover(seat_id=seat.pk, since=seat.disconnected_at.isoformat())
        return Seat.objects.get(pk=seat.pk)

    seat = await database_sync_to_async(forget_and_take_over)()
    assert seat.bot
    await asyncio.sleep(1.1)  # as for the sweep: the socket's last touch is a third ago
    await peers[1].socket.send_json_to({"type": "ping"})
    await peers[1].until(lambda f: f["type"] == "pong")
    seat = await database_sync_to_async(Seat.objects.get)(pk=seat.pk)
    assert not seat.bot and seat.connected and seat.disconnected_at is None
    assert await database_sync_to_async(seat.connections.count)() == 1
    # A spectator's ping registers nothing.
    watcher = await connect(table_id, None, "spectator")
    await asyncio.sleep(1.1)  # its touch is due too
    await watcher.socket.send_json_to({"type": "ping"})
    await watcher.until(lambda f: f["type"] == "pong")
    assert await database_sync_to_async(seat.connections.count)() == 1
    for peer in [*peers, watcher]:
        await peer.socket.disconnect()


async def test_bad_messages_get_errors_and_the_socket_lives(celery_worker: object) -> None:
    users, table_id = await database_sync_to_async(setup_table)()
    peer = await connect(table_id, users[0], "seat 0")
    for raw in ["not json", "[]", '{"type": 5}', '{"type": "__init__"}', "x" * 5000]:
        await peer.socket.send_to(text_data=raw)
        error = await peer.until(lambda f: f["type"] == "error")
        assert error["code"] in {"bad_message", "unknown_type"}
    await peer.socket.send_json_to({"type": "play", "seq": "1", "cards": "AS"})
    assert (await peer.until(lambda f: f["type"] == "error"))["code"] == "bad_message"
    await peer.socket.send_json_to({"type": "play", "seq": 0, "cards": "AS"})
    assert (await peer.until(lambda f: f["type"] == "error"))["code"] == "no_hand"
    await peer.socket.send_json_to({"type": "ping"})
    assert (await peer.until(lambda f: f["type"] in {"pong", "error"}))["type"] == "pong"
    await peer.socket.disconnect()


async def test_regression_socket_died_on_anonymous_leave_list_action_and_deep_json(
    celery_worker: object,
) -> None:
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    await start_hand(peers, table_id)
    anonymous = await connect(table_id, None, "anonymous")
    for message in [{"type": "leave"}, {"type": "check", "action": ["play"], "cards": "AS"}]:
        await anonymous.socket.send_json_to(message)
        error = await anonymous.until(lambda f: f["type"] == "error")
        assert error["code"] in {"login_required", "bad_message", "not_seated"}
    await anonymous.socket.send_to(text_data="[" * 1500 + "]" * 1500)
    assert (await anonymous.until(lambda f: f["type"] == "error"))["code"] == "bad_message"
    await anonymous.socket.send_json_to({"type": "ping"})
    assert (await anonymous.until(lambda f: f["type"] in {"pong", "error"}))["type"] == "pong"
    hand = await database_sync_to_async(
        lambda: Hand.objects.get(match__table_id=table_id, status="playing")
    )()
    assert hand.status == Hand.Status.PLAYING
    for peer in [*peers, anonymous]:
        await peer.socket.disconnect()


def casual_table_seat_one_shows() -> tuple[list[Any], int]:
    users = make_users()
    table = make_table(users[0], ranked=False, preset_name="seed002", bury_seconds=60)
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    services.seat_show_hand(table_id=table.pk, user=users[1], allow=True)
    return users, table.pk


def playing_view(frame: dict[str, Any]) -> dict[str, Any] | None:
    """The view in a ``view`` frame, or in a ``state`` frame's hand, once the play is on."""
    if frame["type"] == "view":
        view: dict[str, Any] = frame["view"]
    elif frame["type"] == "state" and frame.get("hand"):
        view = frame["hand"]["view"]
    else:
        return None
    return view if view["phase"] == "playing" else None


async def test_regression_a_spectator_kept_getting_a_seat_view_after_the_player_revoked(
    celery_worker: object,
) -> None:
    users, table_id = await database_sync_to_async(casual_table_seat_one_shows)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    watcher = await connect(table_id, None, "watcher", address="198.51.100.7")
    await watcher.socket.send_json_to({"type": "watch", "seat": 1})
    await watcher.until(lambda f: f["type"] == "state" and f["you"]["watching"] == 1)
    await start_hand(peers, table_id)
    await watcher.until(lambda f: f["type"] == "view" and f["view"]["phase"] == "burying")
    assert watcher.view is not None and watcher.view.get("seat") == 1  # allowed: seat 1's view

    await database_sync_to_async(services.seat_show_hand)(
        table_id=table_id, user=users[1], allow=False
    )
    dealer = whose_turn(peers)
    kind, cards = choose(dealer.hand_view)
    await dealer.socket.send_json_to({"type": kind, "seq": dealer.seq, "cards": cards})
    # The bury's view, or a state holding it: a view that comes while the state the revoke
    # asked for is read is sent only if newer than it (docs/PROTOCOL.md).
    frame = await watcher.until(lambda f: playing_view(f) is not None)
    view = playing_view(frame)
    assert view is not None and "hand" not in view and "seat" not in view
    for peer in [*peers, watcher]:
        await peer.socket.disconnect()
