"""Every socket route bounds what one client's messages cost (docs/PROTOCOL.md, "Limits";
docs/proof/SECURITY.md): the table socket reads its queue in bounded batches, answers one
refusal of a run and drops the rest, and closes a socket that keeps on with 1008; the lobby
socket the same; the load benchmark's echo socket is routed only where the bench turns it on,
capped per address and limited; a failure no service put in words reaches the client as its
code alone, never the exception's text.

In one process over Channels' test communicator (real PostgreSQL and Redis); the whole site
under a flood, in its own processes, is tests/proof/test_trust3_flood.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from accounts import ratelimits
from accounts.errors import ApplicationError
from games import handstate
from games.consumers import FLOOD_CLOSE, TAKEN_BEFORE_YIELD, failure_frame
from games.models import Action, Hand
from proof.fuzz import session_headers
from shengji.engine import IllegalPlayError, InvalidRecordError
from shengji_site.asgi import application
from shengji_site.consumers import LOBBY_BURST
from shengji_site.routing import websocket_routes
from tests.games.helpers import act_as_bot_would, deal_and_close, make_table, make_users, seat_all

pytestmark = [pytest.mark.django_db(transaction=True)]
TIMEOUT = 10
ONE_BYTE = {"type": "websocket.receive", "text": "1"}


@pytest.fixture(autouse=True)
def no_counts(redis_url: str) -> Any:
    ratelimits.reset_all()
    yield
    ratelimits.reset_all()


async def open_socket(
    path: str, user: Any = None, address: str = "192.0.2.30", app: Any = application
) -> WebsocketCommunicator:
    headers = await database_sync_to_async(session_headers)(user)
    socket = WebsocketCommunicator(app, path, headers=headers)
    socket.scope["client"] = [address, 50000]
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    return socket


async def until_closed(socket: WebsocketCommunicator) -> tuple[list[Any], int | None]:
    """Every frame the socket is sent until it is closed (its code), or None if it is not
    closed within the timeout."""
    frames: list[Any] = []
    while True:
        try:
            output = await socket.receive_output(timeout=TIMEOUT)
        except TimeoutError:
            return frames, None
        if output["type"] == "websocket.close":
            return frames, output.get("code")
        frames.append(json.loads(output["text"]))


async def a_table() -> int:
    def made() -> int:
        (creator,) = make_users(1, prefix="host")
        table_id: int = make_table(creator).pk
        return table_id

    table_id: int = await database_sync_to_async(made)()
    return table_id


async def flooded(socket: WebsocketCommunicator, count: int) -> None:
    """``count`` one-byte frames queued at once, as daphne queues what one read parsed."""
    for _ in range(count):
        socket.input_queue.put_nowait(ONE_BYTE)


# --- the table socket ----------------------------------------------------------------------


async def test_regression_a_flood_was_answered_frame_by_frame_and_never_closed() -> None:
    socket = await open_socket(f"/ws/table/{await a_table()}/")
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    await flooded(socket, 2000)
    frames, code = await until_closed(socket)

    assert code == FLOOD_CLOSE
    codes = [frame.get("code") for frame in frames]
    # The bucket's 20 taken (each not JSON of a message: bad_message), one refusal answered,
    # the rest dropped unanswered until the refusals overflowed.
    assert codes.count("rate_limited") == 1
    assert set(codes) == {"bad_message", "rate_limited"}
    assert 20 <= codes.count("bad_message") <= 22
    await socket.disconnect()


async def test_regression_the_table_socket_took_a_whole_flood_in_one_turn_of_the_loop() -> None:
    socket = await open_socket(f"/ws/table/{await a_table()}/")
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    await flooded(socket, 1000)
    await asyncio.sleep(0)  # one turn of the event loop: the socket's task runs once

    assert socket.input_queue.qsize() >= 1000 - TAKEN_BEFORE_YIELD - 1
    _, code = await until_closed(socket)
    assert code == FLOOD_CLOSE
    turns = 0
    while socket.input_queue.qsize() and turns < 1000:  # the rest dropped, a batch a turn
        await asyncio.sleep(0)
        turns += 1
    assert socket.input_queue.qsize() == 0
    assert turns >= (1000 - 100) // TAKEN_BEFORE_YIELD
    await socket.disconnect()


async def test_a_client_within_its_limit_is_answered_every_time_and_stays_open() -> None:
    socket = await open_socket(f"/ws/table/{await a_table()}/")
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    # Thirty at once: the bucket's 20 answered, then the first past it refused and answered.
    # (On a busy machine a token may come back, 8 a second, while the 20 are answered: a pong
    # may then come before the refusal, or among the dropped rest.)
    for _ in range(30):
        await socket.send_json_to({"type": "ping"})
    answers: list[str] = []
    while "rate_limited" not in answers:
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        answers.append(frame.get("code") or frame["type"])
    assert answers[:20] == ["pong"] * 20
    assert set(answers[20:-1]) <= {"pong"}
    while not await socket.receive_nothing(timeout=0.3):  # what a token came back for
        assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "pong"
    await socket.send_json_to({"type": "ping"})  # tokens back at 8 a second: answered
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "pong"
    await socket.disconnect()


# --- the lobby socket ----------------------------------------------------------------------


@pytest.mark.parametrize("logged_in", [False, True])
async def test_regression_the_lobby_answered_every_message_after_a_session_check(
    logged_in: bool,
) -> None:
    user = None
    if logged_in:
        (user,) = await database_sync_to_async(make_users)(1, prefix="lobbyist")
    socket = await open_socket("/ws/lobby/", user)
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "lobby"
    await flooded(socket, 2000)
    frames, code = await until_closed(socket)

    assert code == FLOOD_CLOSE
    codes = [frame.get("code") for frame in frames if frame["type"] == "error"]
    assert codes.count("rate_limited") == 1
    assert codes.count("unknown_type") <= LOBBY_BURST + 1
    await socket.disconnect()


# --- the echo socket -----------------------------------------------------------------------


async def test_regression_the_echo_socket_was_routed_in_the_site() -> None:
    headers = await database_sync_to_async(session_headers)(None)
    socket = WebsocketCommunicator(application, "/ws/echo/", headers=headers)
    connected, code = await socket.connect(timeout=TIMEOUT)
    assert (connected, code) == (False, 4404)


async def test_the_echo_socket_where_it_is_routed_is_capped_per_address_and_limited(
    settings: Any,
) -> None:
    settings.SHENGJI_ECHO_SOCKETS_PER_IP = 2
    echo_app = URLRouter(websocket_routes(echo=True))
    first, second = [await open_socket("/ws/echo/", app=echo_app) for _ in range(2)]
    third = await open_socket("/ws/echo/", app=echo_app)
    frames, code = await until_closed(third)
    assert (frames[0]["code"], code) == ("too_many_sockets", 4429)
    elsewhere = await open_socket("/ws/echo/", address="192.0.2.31", app=echo_app)
    await elsewhere.send_json_to({"type": "echo", "n": 1})
    assert await elsewhere.receive_json_from(timeout=TIMEOUT) == {"type": "echo", "n": 1}

    await flooded(first, 2000)
    frames, code = await until_closed(first)
    assert code == FLOOD_CLOSE
    assert frames.count(ApplicationError("rate_limited").as_message()) == 1
    assert frames.count(1) == settings.SHENGJI_ECHO_BURST  # each within the limit echoed
    assert len(frames) <= settings.SHENGJI_ECHO_BURST + 3
    await first.disconnect(timeout=TIMEOUT)  # its count let go (1 s is short on a busy machine)
    again = await open_socket("/ws/echo/", app=echo_app)  # a closed socket no longer counts
    await again.send_json_to({"type": "echo", "n": 2})
    assert await again.receive_json_from(timeout=TIMEOUT) == {"type": "echo", "n": 2}
    for socket in (second, third, elsewhere, again):
        await socket.disconnect()


# --- the error frame -----------------------------------------------------------------------


def a_hand_past_its_bury() -> tuple[int, int, Any, str]:
    """A hand in play past its bury: (table, hand, the dealer, the bury's text)."""
    users = make_users(4, prefix="replayer")
    table = make_table(users[0])
    hand = deal_and_close(seat_all(table, users))
    bury = act_as_bot_would(hand, users)
    assert bury.startswith("bury")
    return table.pk, hand.pk, users[int(bury.split()[1])], bury


def break_the_log(hand_id: int, bury: str) -> None:
    """The hand's log no longer replays: its seed changed, so the logged bury names cards the
    dealer was never dealt; and this process keeps no state of it."""
    hand = Hand.objects.get(pk=hand_id)
    Hand.objects.filter(pk=hand_id).update(seed=hand.seed + 1)
    assert Action.objects.filter(hand=hand, text=bury).exists()
    handstate.forget_states()


@pytest.mark.parametrize("message", [{"type": "check", "action": "play"}, {"type": "hint"}])
async def test_regression_a_failed_replay_sent_the_logged_bury_to_the_client(
    message: dict[str, Any],
) -> None:
    table_id, hand_id, dealer, bury = await database_sync_to_async(a_hand_past_its_bury)()
    socket = await open_socket(f"/ws/table/{table_id}/", dealer)
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    await database_sync_to_async(break_the_log)(hand_id, bury)
    await socket.send_json_to({**message, "cards": "3H"})
    frame = await socket.receive_json_from(timeout=TIMEOUT)

    assert frame["type"] == "error"
    assert frame["code"] == "internal"
    kitty = bury.split(" ", 2)[2]
    assert kitty not in json.dumps(frame, ensure_ascii=False)
    assert "refused" not in frame["message"]
    await socket.disconnect()


def test_an_engine_error_of_a_known_code_is_sent_with_its_codes_own_words() -> None:
    illegal = IllegalPlayError("must_follow_pair", "hidden detail: AS AS")
    frame = failure_frame(illegal)
    assert frame["code"] == "must_follow_pair"
    assert "AS" not in frame["message"] and "hidden" not in frame["message"]
    broken = failure_frame(InvalidRecordError("action 12 'bury 0 AS KS' refused"))
    assert broken["code"] == "internal" and "AS" not in broken["message"]
    coded = ValueError("secret text")
    coded.code = "hand_not_found"  # type: ignore[attr-defined]
    assert failure_frame(coded)["code"] == "internal"  # not an engine error: no code of its own


async def test_a_move_past_the_limit_is_answered_never_dropped() -> None:
    """A page that spent its bucket on checks still hears of the move it sends next: a play
    dropped unanswered would leave the page waiting while the clock plays for the player."""
    socket = await open_socket(f"/ws/table/{await a_table()}/")
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    for _ in range(30):  # past the bucket's 20: the first refusal answered, the rest dropped
        await socket.send_json_to({"type": "check", "action": "play", "cards": "AS"})
    for _ in range(3):
        await socket.send_json_to({"type": "play", "seq": 0, "cards": "AS"})
    # The run's first refusal (a check), then each of the three plays; nothing else refused.
    refused = 0
    while refused < 4:  # a dropped play never comes: the receive times out and fails
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        refused += frame.get("code") == "rate_limited"
    await socket.disconnect()


async def test_a_pong_carries_the_servers_clock() -> None:
    """The page counts deadlines by the server's clock (docs/PROTOCOL.md, "pong")."""
    socket = await open_socket(f"/ws/table/{await a_table()}/")
    assert (await socket.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    before = time.time() * 1000
    await socket.send_json_to({"type": "ping"})
    pong = await socket.receive_json_from(timeout=TIMEOUT)
    assert pong["type"] == "pong" and before - 1 <= pong["now"] <= time.time() * 1000 + 1
    await socket.disconnect()
