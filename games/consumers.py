"""The table socket: authenticate, parse, call a service, forward views. No game state here."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY

from accounts import client_address, ratelimits
from accounts.errors import ApplicationError, is_known_code
from games import selectors, services
from games.feed import (
    GAP_WAIT_S,
    NOWHERE,
    RESYNC,
    STOP_WAIT,
    WAIT,
    SendState,
    SendView,
    Step,
    TableFeed,
)
from games.groupwatch import watch
from games.realtime import session_digest, table_group, user_group
from shengji.engine import ShengjiError

logger = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


def database_sync_to_async(function: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Run a service in daphne's thread pool (``ASGI_THREADS``), not in the one thread all
    sockets would share: services lock the rows they change, so sockets need not queue behind
    each other's database round trips; each socket still awaits its own calls in order."""
    pooled: Callable[P, Coroutine[Any, Any, R]]
    pooled = DatabaseSyncToAsync(function, thread_sensitive=False)
    return pooled


MAX_FRAME = 4096
RATE_PER_SECOND = 8.0
RATE_BURST = 20.0
# A seat's moves and what it asks of its seat: never dropped unanswered past the limit.
ANSWERED_WHEN_REFUSED = frozenset(
    {
        "bid",
        "bury",
        "play",
        "call",
        "takeback",
        "leave",
        "sit",
        "stand",
        "ready",
        "bot",
        "autopilot",
    }
)
TOO_MANY_SOCKETS = 4429  # the close code when a user already has the most sockets it may
FLOOD_CLOSE = 1008  # policy violation: the close code of a socket that kept sending past its limit
# Messages the table socket's task takes from its queue one after another before it lets the
# event loop run the other sockets: a queue that holds a flood is read in bounded batches.
TAKEN_BEFORE_YIELD = 32
# The close codes when the user's session ends (docs/PROTOCOL.md): do not reconnect with it.
SESSION_CLOSE_CODES = {services.SESSION_ENDED: 4401, services.ACCOUNT_SUSPENDED: 4403}
HAND_ACTIONS = {"bid", "call", "bury", "play"}
MAX_SEATS = 8  # seats 0..7 at the biggest table (RULES-SPEC.md §9.1)
# Hints: the bot's choice costs a state read; a button pressed now and then, not a stream.
HINT_PER_SECOND = 1.0
HINT_BURST = 3.0
_background: set[asyncio.Future[None]] = set()  # kept until done (the loop holds tasks weakly)


def _in_background(work: Awaitable[None]) -> None:
    """Run ``work`` after the handler returns (a warm-up, a move's task publish), its failure
    logged: the socket's next message need not wait for it."""
    task = asyncio.ensure_future(work)
    _background.add(task)
    task.add_done_callback(_log_failure)


def _log_failure(task: asyncio.Future[None]) -> None:
    _background.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.error("background work failed", exc_info=task.exception())


class RateLimit:
    """A token bucket: ``RATE_BURST`` messages at once, then ``RATE_PER_SECOND``."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float = RATE_PER_SECOND, burst: float = RATE_BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = burst, time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


TAKE, REFUSE, DROP, CLOSE = "take", "refuse", "drop", "close"


class MessageLimit:
    """What a socket does with a client's message (docs/PROTOCOL.md, "Limits"): ``take`` it
    while its bucket has a token; past it, ``refuse`` the first of a run (one `rate_limited`
    answer) and ``drop`` the rest unanswered (an answer each would cost what the limit saves,
    and pile up in the server for a client that does not read); once the refused messages
    overflow their own bucket (``settings.SHENGJI_SOCKET_OVERFLOW`` at once, then
    ``_OVERFLOW_PER_S``), ``close`` the socket (``FLOOD_CLOSE``)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.bucket = RateLimit(rate, burst)
        self.overflow = RateLimit(
            settings.SHENGJI_SOCKET_OVERFLOW_PER_S, settings.SHENGJI_SOCKET_OVERFLOW
        )
        self.refusing = False

    def verdict(self) -> str:
        if self.bucket.allow():
            self.refusing = False
            return TAKE
        if not self.overflow.allow():
            return CLOSE
        if self.refusing:
            return DROP
        self.refusing = True
        return REFUSE


class Limited(AsyncJsonWebsocketConsumer):
    """A socket whose client messages pass a ``MessageLimit`` first (``admitted``)."""

    limit: MessageLimit
    flooded = False  # closed for flooding: every message still queued is dropped

    def answers_each_refusal(self, text_data: str | None) -> bool:
        """Whether a message refused past the first of a run is answered all the same."""
        return False

    async def admitted(self, text_data: str | None = None) -> bool:
        """Whether to handle the client's message; else it is answered `rate_limited` (the
        first of a run, and every one ``answers_each_refusal`` names), dropped, or the socket
        is closed for flooding."""
        if self.flooded:
            return False
        verdict = self.limit.verdict()
        if verdict == TAKE:
            return True
        if verdict == REFUSE or (verdict == DROP and self.answers_each_refusal(text_data)):
            await self.send_json(ApplicationError("rate_limited").as_message())
        elif verdict == CLOSE:
            self.flooded = True
            FloodLog.note(str(self.scope.get("path")))
            await self.close(code=FLOOD_CLOSE)
        return False


class FloodLog:
    """One warning a second at most for the sockets closed for flooding, with how many it
    stands for: a flooder reconnecting in a loop must not flood the log instead."""

    last = 0.0
    unlogged = 0

    @classmethod
    def note(cls, path: str) -> None:
        now = time.monotonic()
        if now - cls.last < 1.0:
            cls.unlogged += 1
            return
        more, cls.unlogged, cls.last = cls.unlogged, 0, now
        logger.warning(
            "socket closed for flooding: %s (%d more since the last warning)", path, more
        )


def failure_frame(error: Exception) -> dict[str, Any]:
    """The error frame of a failure no service put in words: an engine error of one of the
    project's codes (accounts/errors.py) gets that code and the code's own message, anything else
    `internal`. Never the exception's text: a replay's error quotes a logged action (a bury's,
    the kitty). Logged either way."""
    code = getattr(error, "code", None)
    if isinstance(error, ShengjiError) and isinstance(code, str) and is_known_code(code):
        logger.warning("table socket: an engine error not put in words", exc_info=error)
        return ApplicationError(code).as_message()
    logger.error("table socket message failed", exc_info=error)
    return ApplicationError("internal").as_message()


def _cards(content: dict[str, Any]) -> str:
    cards = content.get("cards", "")
    if not isinstance(cards, str) or len(cards) > 400:
        raise ApplicationError("bad_message")
    return cards.strip()


def _calls(content: dict[str, Any]) -> str:
    """A ``call`` message's calls, "2AS 1KH" (the engine reads them: docs/NOTATION.md)."""
    calls = content.get("calls", "")
    if not isinstance(calls, str) or len(calls) > 200:
        raise ApplicationError("bad_message")
    return calls.strip()


def _int(content: dict[str, Any], key: str) -> int:
    value = content.get(key)
    if type(value) is not int:
        raise ApplicationError("bad_message", f"'{key}' must be a whole number")
    return value


def _switch(content: dict[str, Any]) -> bool:
    on = content.get("on")
    if type(on) is not bool:
        raise ApplicationError("bad_message", "'on' must be true or false")
    return on


def _nothing() -> None:
    return None


def _session_marks(scope: dict[str, Any]) -> tuple[str | None, str]:
    """The socket's session key and the password hash it was logged in with."""
    session = scope.get("session")
    if session is None:
        return None, ""
    return session.session_key, str(session.get(HASH_SESSION_KEY) or "")


def _visible(
    presence: selectors.Presence, watchable: list[bool], per_seat: list[str], public: str
) -> str:
    """Of a change's parts (a move's view frames, a table change's hand), the one this
    presence may see: its seat's, the watched seat's when its player allows it, else the
    public one (as ``selectors.hand_view_for``)."""
    if presence.seat is not None:
        return per_seat[presence.seat]
    watching = presence.watching
    if watching is not None and watching < len(watchable) and watchable[watching]:
        return per_seat[watching]
    return public


class SessionEnded(Exception):
    """The session check before a message found the session ended: the message does nothing."""

    def __init__(self, end: services.SessionEnd) -> None:
        super().__init__(end.code)
        self.end = end


class SessionBound(Limited):
    """A logged-in user's socket lives as long as the session it was opened with: it is in
    the group ``user_<id>``, told there when the session ends (log-out, a password change, a
    ban, the account removed), and it checks the session before each message it takes, in
    case that message was lost. Either way it sends a last ``error`` frame and closes
    (4401 ``session_ended``, 4403 ``account_suspended``; docs/PROTOCOL.md)."""

    user: Any
    ended = False
    session_key: str | None = None
    session_hash = ""
    session_password = ""  # the user's password hash as the last full session check found it
    check_due = False  # a message is being taken whose session check has not run yet

    async def _db(self, function: Callable[..., R], /, **kwargs: Any) -> R:
        """Call a service or selector in the pool (``database_sync_to_async``). The first call
        a message makes checks the session first, in the same trip to the pool: the check
        costs its query and no trip of its own. Raises ``SessionEnded`` (nothing called)."""
        if not self.check_due:
            return await database_sync_to_async(function)(**kwargs)
        self.check_due = False
        check = {
            "user_id": self.user.pk,
            "session_key": self.session_key,
            "session_hash": self.session_hash,
        }

        def checked() -> R:
            self._session_checked(*services.socket_session_state(**check))
            return function(**kwargs)

        return await database_sync_to_async(checked)()

    async def _check_pending(self) -> None:
        """The session check of a message whose database trips are not its own (a state
        read by the refresh task): a trip of its own. Raises ``SessionEnded``."""
        if self.check_due:
            await self._db(_nothing)

    async def _bind_session(self, *, check_now: bool = True) -> bool:
        """Join the user's group, then check the session (an end committed before the join
        sent its message to nobody); False when it has ended and the socket is closing.
        ``check_now`` False leaves the check to the socket's next database trip (``_db``)."""
        if not self.user.is_authenticated:
            return True
        self.session_key, self.session_hash = await sync_to_async(
            _session_marks, thread_sensitive=False
        )(self.scope)
        await self.channel_layer.group_add(user_group(self.user.pk), self.channel_name)
        if not check_now:
            self.check_due = True
            return True
        return await self._session_holds()

    async def _unbind_session(self) -> None:
        if getattr(self, "user", None) is not None and self.user.is_authenticated:
            await self.channel_layer.group_discard(user_group(self.user.pk), self.channel_name)

    async def _session_holds(self) -> bool:
        """One small query (``services.socket_session_check``); closes the socket when not."""
        if self.ended:
            return False
        if not self.user.is_authenticated:
            return True
        try:
            found = await database_sync_to_async(services.socket_session_state)(
                user_id=self.user.pk, session_key=self.session_key, session_hash=self.session_hash
            )
            self._session_checked(*found)
        except SessionEnded as ended:
            await self._end_session(ended.end.code, ended.end.reason)
            return False
        return True

    def _session_checked(self, end: services.SessionEnd | None, password: str) -> None:
        """Remember the password hash a full check accepted (the optimistic move checks the
        session by it in its own statement); raise ``SessionEnded`` when the check failed."""
        self.session_password = password
        if end is not None:
            raise SessionEnded(end)

    async def session_end(self, event: dict[str, Any]) -> None:
        """From the user's group: every session ended, or ``session`` (a digest) only."""
        session = event.get("session")
        if self.ended or not self.user.is_authenticated:
            return
        if session is not None and (
            self.session_key is None or session != session_digest(self.session_key)
        ):
            return  # another session of the user logged out
        await self._end_session(event["code"], event.get("reason") or "")

    async def _end_session(self, code: str, reason: str) -> None:
        self.ended = True
        message = ApplicationError(code).message
        last = {
            "type": "error",
            "code": code,
            "message": f"{message}: {reason}" if reason else message,
            "reason": reason,
        }
        await self.send(text_data=json.dumps(last))
        await self.close(code=SESSION_CLOSE_CODES.get(code, 4401))

    async def send_json(self, content: Any, close: bool = False) -> None:
        """Nothing after the last frame (a state being read when the session ended, say)."""
        if not self.ended:
            await super().send_json(content, close)


class TableConsumer(SessionBound):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.taking = asyncio.Lock()  # held while the socket takes a message
        self.layer_taken = 0  # messages of the channel layer taken from the socket's queue

    async def __call__(
        self,
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[dict[str, Any]]],
        send: Callable[[dict[str, Any]], Awaitable[None]],
    ) -> None:
        """Channels' consumer loop, with this socket's channel-layer messages put into the
        queue its server puts the client's in (the layer's ``deliver_into``): the one task
        reading that queue wakes once per message, where channels' loop waits on a task per
        source (two turns of the event loop more before a move is even read). Where
        ``receive`` is not such a queue's, or the layer cannot, channels' own loop."""
        inbox = getattr(receive, "__self__", None)
        layer = get_channel_layer(self.channel_layer_alias)
        deliver_into = getattr(layer, "deliver_into", None)
        if not (isinstance(inbox, asyncio.Queue) and receive == inbox.get) or deliver_into is None:
            await super().__call__(scope, receive, send)
            return
        self.scope = scope
        self.channel_layer = layer
        self.channel_name = await layer.new_channel()
        self.channel_receive = functools.partial(layer.receive, self.channel_name)
        self.base_send = send
        deliver_into(self.channel_name, inbox)
        try:
            await self._take_in_batches(inbox)
        except StopConsumer:
            pass
        finally:
            layer.stop_delivering(self.channel_name)

    async def _take_in_batches(self, inbox: asyncio.Queue[dict[str, Any]]) -> None:
        """Take the queue's messages in order, letting the event loop run the other sockets
        after every ``TAKEN_BEFORE_YIELD`` taken without a wait: a message waiting is taken
        without a turn of the loop (the move path's), but a queue that holds a flood (daphne's
        queue is unbounded) never holds the loop for more than one batch."""
        taken = 0
        while True:
            if inbox.empty():
                taken = 0  # the get below waits: the loop runs the others meanwhile
            elif taken >= TAKEN_BEFORE_YIELD:
                taken = 0
                await asyncio.sleep(0)
            message = await inbox.get()
            taken += 1
            await self.dispatch(message)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its trip, before every message, to the one shared thread
        to close old database connections: nothing here touches the database except through
        ``database_sync_to_async``, which does that in the thread it runs in. (Every view
        forwarded to a seat would otherwise wait its turn in that thread.)"""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        try:
            async with self.taking:
                await handler(message)
        finally:
            if not message["type"].startswith("websocket."):
                self.layer_taken += 1  # one of the channel layer's

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        take_at_once = getattr(self.channel_layer, "take_at_once", None)
        if take_at_once is not None:
            take_at_once(self.channel_name, self._take_at_once)
        await super().websocket_connect(message)

    async def _take_at_once(self, message: dict[str, Any], queued: int) -> bool:
        """A move's views, taken in the sender's task when this socket is idle (the channel
        layer's ``take_at_once``): the eight sockets of a table need no wake-up each. Only
        when every message queued for the socket was taken (``queued``) and none is being
        taken, so that the socket's frames keep their order; else False, and it is queued."""
        if message["type"] != "hand.view" or self.taking.locked() or queued != self.layer_taken:
            return False
        async with self.taking:
            await self.hand_view(message)
        return True

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope["user"]
        self.groups_joined: set[str] = set()
        self.watching: int | None = None
        self.presence: selectors.Presence | None = None  # as of the last state sent
        self.refresh_wanted = False
        self.refresh_task: asyncio.Task[None] | None = None
        self.feed = TableFeed()  # the order of what this socket sends
        self.gap_timer: asyncio.TimerHandle | None = None  # the feed's wait for a missing change
        self.seat_socket = False  # registered as a seated player's socket (SeatConnection)
        self.touched_at = time.monotonic()  # the database last heard of it (connections_touch)
        self.limit = MessageLimit(settings.SHENGJI_SOCKET_RATE_PER_S, settings.SHENGJI_SOCKET_BURST)
        self.hint_limit = RateLimit(HINT_PER_SECOND, HINT_BURST)
        self.owner = ratelimits.socket_owner(self.user, self.scope.get("client"))
        self.address = client_address.client_ip_from_scope(self.scope)
        self.watch_asked: int | None = None  # the seat asked for; ``watching`` when allowed
        presence = await self._db(
            selectors.presence_if_visible,
            table_id=self.table_id,
            user=self.user,
            session=self.scope.get("session"),  # an unlisted table: only those who may see it
        )
        if presence is None:
            await self.close(code=4404)
            return
        await self.accept()
        if not await self._socket_counts():
            await self.send_json(ApplicationError("too_many_sockets").as_message())
            await self.close(code=TOO_MANY_SOCKETS)
            return
        await watch.add(self)
        await self._bind_session(check_now=False)
        await self._join(presence)
        try:
            await self._send_first_state(presence)
        except SessionEnded as ended:
            await self._end_session(ended.end.code, ended.end.reason)

    async def disconnect(self, code: int) -> None:
        watch.discard(self)
        drop_at_once = getattr(self.channel_layer, "drop_at_once", None)
        if drop_at_once is not None:
            drop_at_once(self.channel_name)
        task = getattr(self, "refresh_task", None)
        if task is not None:
            task.cancel()
        timer = getattr(self, "gap_timer", None)
        if timer is not None:
            timer.cancel()
        for group in getattr(self, "groups_joined", set()):
            await self.channel_layer.group_discard(group, self.channel_name)
        await self._unbind_session()
        if getattr(self, "table_id", None) is not None:
            await database_sync_to_async(services.seat_disconnected)(channel_name=self.channel_name)
        if getattr(self, "counted", False):
            await sync_to_async(ratelimits.socket_closed, thread_sensitive=False)(
                **self._socket_key()
            )

    # --- incoming ------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.ended:
            return  # the session ended: the socket is closing and takes nothing more
        if not await self.admitted(text_data):
            return
        try:
            content = self._decode(text_data)
            self.check_due = self.user.is_authenticated  # in the message's first trip (_db)
            await self._dispatch(content)
        except SessionEnded as ended:
            await self._end_session(ended.end.code, ended.end.reason)
        except ApplicationError as error:
            await self.send_json(error.as_message())
        except Exception as error:  # the socket outlives any failure of one message
            await self.send_json(failure_frame(error))
        finally:
            self.check_due = False  # a message refused before any trip changed nothing

    def answers_each_refusal(self, text_data: str | None) -> bool:
        """A seat's move refused past the limit is always answered `rate_limited`: dropped
        unanswered, the page would wait for it and the clock would play for the player. The
        overflow's bucket still closes a flooder (docs/PROTOCOL.md, "Limits")."""
        try:
            content = self._decode(text_data)
        except ApplicationError:
            return False
        return content["type"] in ANSWERED_WHEN_REFUSED

    def _decode(self, text_data: str | None) -> dict[str, Any]:
        if text_data is None or len(text_data.encode(errors="surrogatepass")) > MAX_FRAME:
            raise ApplicationError("bad_message", "send JSON text frames of at most 4096 bytes")
        try:
            content = json.loads(text_data)
        except (ValueError, RecursionError):
            raise ApplicationError("bad_message", "that is not JSON") from None
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            raise ApplicationError("bad_message", "a message is an object with a 'type'")
        return content

    async def _dispatch(self, content: dict[str, Any]) -> None:
        kind = content["type"]
        handler = getattr(self, f"on_{kind}", None) if kind.isidentifier() else None
        if handler is None:
            raise ApplicationError("unknown_type", f"unknown message type {kind[:30]!r}")
        await handler(content)

    async def on_ping(self, content: dict[str, Any]) -> None:
        """Most pings cost Redis only: the database hears of the socket (its row's touch and
        the session check) once a third of the connection timeout (docs/proof/FAULTS.md)."""
        if services.connections_touch_due(since_s=time.monotonic() - self.touched_at):
            await self._touch()
        # Where the hand is: a client that missed a frame (a Redis restart can lose some) sees
        # that it is behind and asks for the state (docs/PROTOCOL.md).
        position = await database_sync_to_async(services.socket_ping)(
            **self._socket_key(), sent=self.feed.sent_at
        )
        where = {} if position is None else {"hand": position[0], "seq": position[1]}
        # The server's clock (ms since the epoch): the page counts deadlines by it, not by a
        # device's clock that may be off (docs/PROTOCOL.md, "pong").
        await self.send_json({"type": "pong", **where, "now": int(time.time() * 1000)})

    async def _touch(self) -> None:
        """Tell the database this socket lives, with the message's session check in the same
        trip (a logged-in socket's only check when it sends nothing but pings)."""
        self.touched_at = time.monotonic()
        if not self.seat_socket:
            await self._check_pending()
            return
        await self._note_seated_address()
        if not await self._db(services.connections_touch, channel_name=self.channel_name):
            # The sweep forgot this socket while it lived: its player is here. Register it
            # again, which takes the seat back from the bot as a reconnect would.
            await self._register_seat_socket()

    async def on_state(self, content: dict[str, Any]) -> None:
        await self._check_pending()
        await self._refresh_now()

    async def on_bid(self, content: dict[str, Any]) -> None:
        await self._act(content, "bid", _cards(content))

    async def on_bury(self, content: dict[str, Any]) -> None:
        await self._act(content, "bury", _cards(content))

    async def on_play(self, content: dict[str, Any]) -> None:
        await self._act(content, "play", _cards(content))

    async def on_call(self, content: dict[str, Any]) -> None:
        """找朋友: the dealer's calls while burying (``call <seat> 2AS 1KH``, the seat the
        sender's own); always the locking path (its refusals are the engine's)."""
        await self._act(content, "call", _calls(content))

    async def on_takeback(self, content: dict[str, Any]) -> None:
        """The sender's own seat takes back its last bid or play, under the table's takeback
        options (RULES-SPEC.md §10.22, §10.23; ``takeback <seat>``, the seat the sender's own);
        always the locking path, logged as any move."""
        await self._act(content, "takeback", "")

    async def on_leave(self, content: dict[str, Any]) -> None:
        await self._own_seat()
        hand_id = await self._hand_id()
        await self._db(services.hand_leave, hand_id=hand_id, user=self.user)

    async def on_check(self, content: dict[str, Any]) -> None:
        action = content.get("action")
        if not isinstance(action, str) or action not in HAND_ACTIONS:
            raise ApplicationError("bad_message", "check takes an action: bid, call, bury or play")
        seat = await self._own_seat()
        hand_id = await self._hand_id()
        text = f"{action} {seat} {_calls(content) if action == 'call' else _cards(content)}"
        try:
            warning = await self._db(
                services.hand_check, hand_id=hand_id, user=self.user, text=text
            )
        except ApplicationError as error:
            await self.send_json(
                {"type": "check", "ok": False, "code": error.code, "message": error.message}
            )
            return
        if warning is None:
            await self.send_json({"type": "check", "ok": True})
            return
        await self.send_json(
            {
                "type": "check",
                "ok": True,
                "warning": warning.code,
                "call": warning.call,
                "held": warning.held,
            }
        )

    async def on_sit(self, content: dict[str, Any]) -> None:
        self._require_login()
        stake = content.get("stake")
        await self._db(
            services.seat_take,
            table_id=self.table_id,
            user=self.user,
            index=_int(content, "seat"),
            stake=stake if type(stake) is int else None,
        )
        await self._register_seat_socket()  # this socket is the seat's now

    async def on_stand(self, content: dict[str, Any]) -> None:
        self._require_login()
        await self._db(services.seat_leave, table_id=self.table_id, user=self.user)
        self.seat_socket = False

    async def on_ready(self, content: dict[str, Any]) -> None:
        self._require_login()
        await self._db(
            services.seat_ready,
            table_id=self.table_id,
            user=self.user,
            ready=content.get("ready", True) is not False,
        )

    async def on_bot(self, content: dict[str, Any]) -> None:
        self._require_login()
        await self._db(
            services.seat_fill_bot,
            table_id=self.table_id,
            user=self.user,
            index=_int(content, "seat"),
        )

    async def on_chat(self, content: dict[str, Any]) -> None:
        text = content.get("text")
        if not isinstance(text, str):
            raise ApplicationError("bad_message", "chat takes a 'text' string")
        await self._db(services.chat_post, table_id=self.table_id, user=self.user, text=text)

    async def on_watch(self, content: dict[str, Any]) -> None:
        seat = content.get("seat")
        if seat is not None and (type(seat) is not int or not 0 <= seat < MAX_SEATS):
            raise ApplicationError("invalid_seat")
        await self._check_pending()
        self.watch_asked = seat
        await self._watch_if_allowed()
        await self._refresh_now()

    async def _watch_if_allowed(self) -> None:
        """Watch the seat asked for, unless this socket's client address is a seated player's
        at this table: a player's second account (another window, the same address) sees only
        the public view, never a hand its owner shows to spectators (docs/PROTOCOL.md)."""
        seat = self.watch_asked
        if seat is not None:
            seated_here = await sync_to_async(ratelimits.seated_address, thread_sensitive=False)(
                table_id=self.table_id, address=self.address
            )
            seat = None if seated_here else seat
        self.watching = seat

    async def _note_seated_address(self) -> None:
        """This seat socket's client address is a seated player's at the table, for as long
        as the socket is heard of (``_watch_if_allowed``)."""
        await sync_to_async(ratelimits.seated_address_note, thread_sensitive=False)(
            table_id=self.table_id, address=self.address
        )

    async def on_autopilot(self, content: dict[str, Any]) -> None:
        on = _switch(content)
        self._require_login()
        await self._throttle("autopilot")
        await self._db(services.seat_autopilot, table_id=self.table_id, user=self.user, on=on)

    async def on_auto_ready(self, content: dict[str, Any]) -> None:
        on = _switch(content)
        self._require_login()
        await self._db(services.seat_auto_ready, table_id=self.table_id, user=self.user, on=on)

    async def on_hint(self, content: dict[str, Any]) -> None:
        """The basic bot's choice for the asker's seat, to this socket only (nothing changes).
        Its limits (this socket's, the user's over all sockets) come before any database read."""
        self._require_login()
        if not self.hint_limit.allow():
            raise ApplicationError("rate_limited")
        await self._throttle("hint")
        await self._own_seat()
        kind, cards = await self._db(services.table_hint, table_id=self.table_id, user=self.user)
        hint = {"type": "hint", "action": kind, "cards": cards}
        await self.send_json({**hint, "calls": cards} if kind == "call" else hint)

    async def on_show_hand(self, content: dict[str, Any]) -> None:
        self._require_login()
        await self._db(
            services.seat_show_hand,
            table_id=self.table_id,
            user=self.user,
            allow=content.get("allow") is True,
        )

    async def _act(self, content: dict[str, Any], kind: str, cards: str) -> None:
        try:
            await self._move(content, kind, cards)
        except ApplicationError:
            await self._moved_is_presence()
            raise
        await self._moved_is_presence()

    async def _moved_is_presence(self) -> None:
        """A move (taken or refused) says the socket's player is here, as a ping does: the
        socket's row is touched when due, so a player who moves in time but sends no pings is
        never swept away, taken over or settled as absent (docs/PROTOCOL.md, "Time")."""
        since_s = time.monotonic() - self.touched_at
        if self.seat_socket and services.connections_touch_due(since_s=since_s):
            await self._touch()

    async def _move(self, content: dict[str, Any], kind: str, cards: str) -> None:
        seq = _int(content, "seq")
        self._require_login()
        made = await services.move(
            table_id=self.table_id,
            user=self.user,
            mover=self._mover(),
            kind=kind,
            cards=cards,
            seq=seq,
            in_thread=self._db,
        )
        if made.views is not None:
            self.check_due = False  # its statement checked the session
            await self._show_own_move(made.views)
        if made.task is not None:
            _in_background(made.task())

    def _mover(self) -> services.Mover | None:
        """The mover of a one-statement move: the user with the session this socket last
        checked in full. None before any full check: the locking path only."""
        if not self.session_password:
            return None
        return services.Mover(self.user.pk, self.session_password, self.session_key, str(self.user))

    # --- group events --------------------------------------------------------------------

    async def _show_own_move(self, event: dict[str, Any]) -> None:
        """The mover's own view of its one-statement move, sent at once: the group's copy
        waits in this socket's queue until the whole handler is done (a row's touch, say),
        and the player would wait with it. That copy is then not sent again (``hand_view``)."""
        if not self.ended:
            await self._carry_out(self.feed.own_view(event, self._frame_to_forward))

    async def hand_view(self, event: dict[str, Any]) -> None:
        if not self.ended:
            await self._carry_out(self.feed.view(event, self._frame_to_forward))
        self._learn(event)

    def _learn(self, event: dict[str, Any]) -> None:
        """What the change tells this process for the table's next move (once per process:
        ``services.learn_change``); a state not kept here is read in the background."""
        warm = services.learn_change(self.table_id, event)
        if warm is not None:
            hand_id, seq = warm
            _in_background(database_sync_to_async(services.warm_state)(hand_id=hand_id, seq=seq))

    async def _carry_out(self, steps: Iterator[Step]) -> None:
        """Do what the feed says (games/feed.py), in order: it goes on once each frame is
        written."""
        for step in steps:
            if isinstance(step, SendView):
                await self.send(text_data=step.frame)
            elif isinstance(step, SendState):
                await self._send_change(step.change)
            elif step is WAIT:
                self.gap_timer = asyncio.get_running_loop().call_later(GAP_WAIT_S, self._gap_open)
            elif step is STOP_WAIT:
                if self.gap_timer is not None:
                    self.gap_timer.cancel()
                    self.gap_timer = None
            elif step is RESYNC:
                self._want_refresh()

    def _gap_open(self) -> None:
        """The feed's wait for a missing change ran out: a fresh state, if views still wait."""
        self.gap_timer = None
        if self.feed.wait_over() and not self.ended:
            self._want_refresh()

    def _frame_to_forward(self, event: dict[str, Any]) -> str | None:
        """The one view frame of a move this socket may see (encoded once, by the mover): its
        seat's, the watched seat's when its player allows it, else the public one. None when
        the socket's seat is no longer its user's (a frame sent after the user left the seat:
        the refresh that follows tells)."""
        presence = self.presence
        if presence is None:
            return None
        if presence.seat is not None and event["occupants"][presence.seat] != getattr(
            self.user, "pk", None
        ):
            return None
        return _visible(presence, event["watchable"], event["frames"], event["public"])

    async def table_changed(self, event: dict[str, Any]) -> None:
        """A table's change: this socket's ``state`` made from the message, with no read of
        its own, or a read when the feed says so (``TableFeed.table_change``)."""
        if self.ended:
            return
        if self.watch_asked is not None:  # a player may have sat down from this address
            await self._watch_if_allowed()
        await self._carry_out(self.feed.table_change(event.get("change"), self._frame_to_forward))

    async def _send_change(self, change: dict[str, Any]) -> None:
        presence = self._presence_in(change["occupants"])
        self.presence = presence
        you = json.dumps({"seat": presence.seat, "watching": presence.watching})
        frame = (
            f'{{"type":"state","table":{change["table"]},"seats":{change["seats"]},'
            f'"you":{you},"hand":{self._hand_to_show(change, presence)},'
            f'"chat":{change["chat"]}}}'
        )
        await self.send(text_data=frame)

    def _presence_in(self, occupants: list[int | None]) -> selectors.Presence:
        user_id = getattr(self.user, "pk", None)
        seat = next((i for i, u in enumerate(occupants) if u is not None and u == user_id), None)
        return selectors.Presence(self.table_id, seat, None if seat is not None else self.watching)

    @staticmethod
    def _hand_to_show(change: dict[str, Any], presence: selectors.Presence) -> str:
        hands: list[str] = change["hands"]
        if not hands:
            return "null"
        return _visible(presence, change["watchable"], hands[:-1], hands[-1])

    async def chat_line(self, event: dict[str, Any]) -> None:
        if not self.ended:
            await self.send_json({"type": "chat", "line": event["line"]})

    # --- helpers -------------------------------------------------------------------------

    async def _register_seat_socket(self) -> None:
        """Record this socket as its seated player's (the sweep and the grace period go by
        these rows); remembered so that a ping can do it again if the sweep forgot it."""
        await self._db(
            services.seat_connected,
            table_id=self.table_id,
            user=self.user,
            channel_name=self.channel_name,
        )
        self.seat_socket = True
        self.touched_at = time.monotonic()  # the row was written with last_seen now
        await self._note_seated_address()

    def _socket_key(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "owner": self.owner, "channel_name": self.channel_name}

    async def _socket_counts(self) -> bool:
        """Count this socket against its owner's cap at the table (docs/PROTOCOL.md)."""
        # Not in the one thread every thread-sensitive call of the process shares: a burst of
        # sockets opening would queue there behind each other's Redis round trips.
        self.counted = await sync_to_async(ratelimits.socket_open, thread_sensitive=False)(
            **self._socket_key()
        )
        return self.counted

    def _require_login(self) -> None:
        if not self.user.is_authenticated:
            raise ApplicationError("login_required")

    async def _throttle(self, action: str) -> None:
        """The user's limit for ``action`` (``ratelimits.action_check``, Redis only): checked
        before the message reads the database."""
        await sync_to_async(ratelimits.action_check, thread_sensitive=False)(
            action=action, user_id=self.user.pk
        )

    async def _presence(self) -> selectors.Presence | None:
        return await self._db(
            selectors.presence_get, table_id=self.table_id, user=self.user, watching=self.watching
        )

    async def _own_seat(self) -> int:
        self._require_login()
        presence = await self._presence()
        if presence is None or presence.seat is None:
            raise ApplicationError("not_seated")
        return presence.seat

    async def _hand_id(self) -> int:
        hand = await self._db(services.playing_hand_id, table_id=self.table_id)
        if hand is None:
            raise ApplicationError("no_hand")
        return hand

    def _want_refresh(self) -> None:
        """Send a fresh ``state`` soon. Changes that come while one is being read are met by
        one more read after it, not one each: the start of a hand (four readies, the deal)
        would otherwise make every socket at the table read its whole state five times."""
        self.refresh_wanted = True
        if self.refresh_task is None or self.refresh_task.done():
            self.refresh_task = asyncio.ensure_future(self._refresh_while_wanted())

    async def _refresh_now(self) -> None:
        """A state asked for is sent before the answer to the socket's next message."""
        self._want_refresh()
        assert self.refresh_task is not None
        await self.refresh_task

    async def _refresh_while_wanted(self) -> None:
        self.feed.read_begins()
        try:
            while self.refresh_wanted:
                self.refresh_wanted = False
                try:
                    if not await self._refresh():
                        return
                except Exception:  # the socket outlives a failed refresh; the next retries
                    logger.exception("table socket refresh failed")
                # The views that came while the state was read, in order, but those it holds.
                await self._carry_out(self.feed.held_views(self._frame_to_forward))
        finally:
            self.feed.read_ends()  # no await after the loop's last check: a change starts anew

    async def _refresh(self) -> bool:
        """Send this socket its state; False when the table is gone (the socket is closed)."""
        found = await database_sync_to_async(selectors.presence_and_state)(
            table_id=self.table_id, user=self.user, watching=self.watching
        )
        if found is None:
            await self.close(code=4404)
            return False
        presence, state = found
        await self._join(presence)
        await self._send(state)
        return True

    async def _join(self, presence: selectors.Presence) -> None:
        """Be in the table's group, and remember which view of each move this socket may
        forward (``hand_view``): never another seat's."""
        self.presence = presence
        group = table_group(self.table_id)
        if group not in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.add(group)

    async def _send_first_state(self, presence: selectors.Presence) -> None:
        """The state on connecting, in one trip to the database with the session's check and,
        for a seated player, the socket's registration (``services.socket_opened``). The
        group's messages wait until ``connect`` is done, so a change committed during this
        read is sent after it (a refresh's read, in a task of its own, holds what comes
        meanwhile instead: ``hand_view``, ``table_changed``). Raises ``SessionEnded``."""
        seated = presence.seat is not None
        state = await self._db(
            services.socket_opened,
            presence=presence,
            user=self.user,
            channel_name=self.channel_name,
        )
        if seated:  # registered as a seated player's socket (SeatConnection)
            self.seat_socket = True
            self.touched_at = time.monotonic()  # the row was written with last_seen now
            await self._note_seated_address()
        await self._send(state)

    async def _send(self, state: dict[str, Any]) -> None:
        hand = state["hand"]
        at = NOWHERE if hand is None else (hand["id"], hand["seq"])
        self.feed.state_read(at, state["table"]["rev"])
        await self.send_json(state)
