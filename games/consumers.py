"""The table socket: authenticate, parse, call a service, forward views. No game state here."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from games import ratelimits, selectors, services
from games.errors import ApplicationError
from games.groupwatch import watch
from games.realtime import LOBBY_GROUP, table_group

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
TOO_MANY_SOCKETS = 4429  # the close code when a user already has the most sockets it may
HAND_ACTIONS = {"bid", "bury", "play"}


class RateLimit:
    """A token bucket: ``RATE_BURST`` messages at once, then ``RATE_PER_SECOND``."""

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


def _cards(content: dict[str, Any]) -> str:
    cards = content.get("cards", "")
    if not isinstance(cards, str) or len(cards) > 400:
        raise ApplicationError("bad_message")
    return cards.strip()


def _int(content: dict[str, Any], key: str) -> int:
    value = content.get(key)
    if type(value) is not int:
        raise ApplicationError("bad_message", f"'{key}' must be a whole number")
    return value


class TableConsumer(AsyncJsonWebsocketConsumer):
    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its trip, before every message, to the one shared thread
        to close old database connections: nothing here touches the database except through
        ``database_sync_to_async``, which does that in the thread it runs in. (Every view
        forwarded to a seat would otherwise wait its turn in that thread.)"""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope["user"]
        self.groups_joined: set[str] = set()
        self.watching: int | None = None
        self.presence: selectors.Presence | None = None  # as of the last state sent
        self.refresh_wanted = False
        self.refresh_task: asyncio.Task[None] | None = None
        self.held: list[dict[str, Any]] | None = None  # views that came during a refresh
        self.state_at: tuple[int, int] = (-1, -1)  # (hand, seq) of the last state sent
        self.seat_socket = False  # registered as a seated player's socket (SeatConnection)
        self.limit = RateLimit(settings.SHENGJI_SOCKET_RATE_PER_S, settings.SHENGJI_SOCKET_BURST)
        self.owner = ratelimits.socket_owner(self.user, self.scope.get("client"))
        presence = await self._presence()
        if presence is None:
            await self.close(code=4404)
            return
        await self.accept()
        if not await self._socket_counts():
            await self.send_json(ApplicationError("too_many_sockets").as_message())
            await self.close(code=TOO_MANY_SOCKETS)
            return
        await watch.add(self)
        await self._join(presence)
        if presence.seat is not None:
            await self._register_seat_socket()
        await self._send_state(presence)

    async def disconnect(self, code: int) -> None:
        watch.discard(self)
        task = getattr(self, "refresh_task", None)
        if task is not None:
            task.cancel()
        for group in getattr(self, "groups_joined", set()):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "table_id", None) is not None:
            await database_sync_to_async(services.seat_disconnected)(channel_name=self.channel_name)
        if getattr(self, "counted", False):
            await sync_to_async(ratelimits.socket_closed)(**self._socket_key())

    # --- incoming ------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            if not self.limit.allow():
                raise ApplicationError("rate_limited")
            await self._dispatch(self._decode(text_data))
        except ApplicationError as error:
            await self.send_json(error.as_message())
        except Exception as error:  # the socket outlives any failure of one message
            code = getattr(error, "code", None)
            if isinstance(code, str):  # another layer's coded error (e.g. the ladder's)
                await self.send_json({"type": "error", "code": code, "message": str(error)})
                return
            logger.exception("table socket message failed")
            await self.send_json(ApplicationError("internal").as_message())

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
        known = await database_sync_to_async(services.connections_touch)(
            channel_name=self.channel_name
        )
        if not known and self.seat_socket:
            # The sweep forgot this socket while it lived: its player is here. Register it
            # again, which takes the seat back from the bot as a reconnect would.
            await self._register_seat_socket()
        await sync_to_async(ratelimits.socket_touch)(**self._socket_key())
        # Where the hand is: a client that missed a frame (a Redis restart can lose some) sees
        # that it is behind and asks for the state (docs/PROTOCOL.md).
        hand = await database_sync_to_async(selectors.current_hand_get)(table_id=self.table_id)
        position = {} if hand is None else {"hand": hand.pk, "seq": hand.seq}
        await self.send_json({"type": "pong", **position})

    async def on_state(self, content: dict[str, Any]) -> None:
        await self._refresh_now()

    async def on_bid(self, content: dict[str, Any]) -> None:
        await self._act(content, "bid", _cards(content))

    async def on_bury(self, content: dict[str, Any]) -> None:
        await self._act(content, "bury", _cards(content))

    async def on_play(self, content: dict[str, Any]) -> None:
        await self._act(content, "play", _cards(content))

    async def on_leave(self, content: dict[str, Any]) -> None:
        await self._own_seat()
        hand_id = await self._hand_id()
        await database_sync_to_async(services.hand_leave)(hand_id=hand_id, user=self.user)

    async def on_check(self, content: dict[str, Any]) -> None:
        action = content.get("action")
        if not isinstance(action, str) or action not in HAND_ACTIONS:
            raise ApplicationError("bad_message", "check takes an action: bid, bury or play")
        seat = await self._own_seat()
        hand_id = await self._hand_id()
        text = f"{action} {seat} {_cards(content)}"
        try:
            await database_sync_to_async(services.hand_check)(
                hand_id=hand_id, user=self.user, text=text
            )
        except ApplicationError as error:
            await self.send_json(
                {"type": "check", "ok": False, "code": error.code, "message": error.message}
            )
            return
        await self.send_json({"type": "check", "ok": True})

    async def on_sit(self, content: dict[str, Any]) -> None:
        self._require_login()
        stake = content.get("stake")
        await database_sync_to_async(services.seat_take)(
            table_id=self.table_id,
            user=self.user,
            index=_int(content, "seat"),
            stake=stake if type(stake) is int else None,
        )
        await self._register_seat_socket()  # this socket is the seat's now

    async def on_stand(self, content: dict[str, Any]) -> None:
        self._require_login()
        await database_sync_to_async(services.seat_leave)(table_id=self.table_id, user=self.user)
        self.seat_socket = False

    async def on_ready(self, content: dict[str, Any]) -> None:
        self._require_login()
        await database_sync_to_async(services.seat_ready)(
            table_id=self.table_id, user=self.user, ready=content.get("ready", True) is not False
        )

    async def on_bot(self, content: dict[str, Any]) -> None:
        self._require_login()
        await database_sync_to_async(services.seat_fill_bot)(
            table_id=self.table_id, user=self.user, index=_int(content, "seat")
        )

    async def on_chat(self, content: dict[str, Any]) -> None:
        text = content.get("text")
        if not isinstance(text, str):
            raise ApplicationError("bad_message", "chat takes a 'text' string")
        await database_sync_to_async(services.chat_post)(
            table_id=self.table_id, user=self.user, text=text
        )

    async def on_watch(self, content: dict[str, Any]) -> None:
        seat = content.get("seat")
        if seat is not None and (type(seat) is not int or not 0 <= seat <= 3):
            raise ApplicationError("invalid_seat")
        self.watching = seat
        await self._refresh_now()

    async def on_show_hand(self, content: dict[str, Any]) -> None:
        self._require_login()
        await database_sync_to_async(services.seat_show_hand)(
            table_id=self.table_id, user=self.user, allow=content.get("allow") is True
        )

    async def _act(self, content: dict[str, Any], kind: str, cards: str) -> None:
        seq = _int(content, "seq")
        self._require_login()
        await database_sync_to_async(services.table_act)(
            table_id=self.table_id, user=self.user, kind=kind, cards=cards, seq=seq
        )

    # --- group events --------------------------------------------------------------------

    async def hand_view(self, event: dict[str, Any]) -> None:
        if self.held is not None:  # a state is being read: it may be older than this view
            self.held.append(event)
            return
        await self._forward_view(event)

    async def _forward_view(self, event: dict[str, Any]) -> None:
        view = self._view_to_forward(event)
        if view is not None:
            await self.send_json(
                {"type": "view", "hand": event["hand"], "seq": event["seq"], "view": view}
            )

    def _view_to_forward(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The one view of a move this socket may see: its seat's, the watched seat's when its
        player allows it, else the public one. None when the socket's seat is no longer its
        user's (a frame sent after the user left the seat: the refresh that follows tells)."""
        presence = self.presence
        if presence is None:
            return None
        if presence.seat is not None:
            if event["occupants"][presence.seat] != getattr(self.user, "pk", None):
                return None
            view: dict[str, Any] = event["views"][presence.seat]
            return view
        if presence.watching is not None and event["watchable"][presence.watching]:
            watched: dict[str, Any] = event["views"][presence.watching]
            return watched
        public: dict[str, Any] = event["public"]
        return public

    async def table_changed(self, event: dict[str, Any]) -> None:
        self._want_refresh()

    async def chat_line(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "chat", "line": event["line"]})

    # --- helpers -------------------------------------------------------------------------

    async def _register_seat_socket(self) -> None:
        """Record this socket as its seated player's (the sweep and the grace period go by
        these rows); remembered so that a ping can do it again if the sweep forgot it."""
        await database_sync_to_async(services.seat_connected)(
            table_id=self.table_id, user=self.user, channel_name=self.channel_name
        )
        self.seat_socket = True

    def _socket_key(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "owner": self.owner, "channel_name": self.channel_name}

    async def _socket_counts(self) -> bool:
        """Count this socket against its owner's cap at the table (docs/PROTOCOL.md)."""
        self.counted = await sync_to_async(ratelimits.socket_open)(**self._socket_key())
        return self.counted

    def _require_login(self) -> None:
        if not self.user.is_authenticated:
            raise ApplicationError("login_required")

    async def _presence(self) -> selectors.Presence | None:
        return await database_sync_to_async(selectors.presence_get)(
            table_id=self.table_id, user=self.user, watching=self.watching
        )

    async def _own_seat(self) -> int:
        self._require_login()
        presence = await self._presence()
        if presence is None or presence.seat is None:
            raise ApplicationError("not_seated")
        return presence.seat

    async def _hand_id(self) -> int:
        hand = await database_sync_to_async(services.playing_hand_id)(table_id=self.table_id)
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
        self.held = []
        try:
            while self.refresh_wanted:
                self.refresh_wanted = False
                try:
                    if not await self._refresh():
                        return
                except Exception:  # the socket outlives a failed refresh; the next retries
                    logger.exception("table socket refresh failed")
                await self._send_held()
        finally:
            self.held = None  # no await after the loop's last check: a change then starts anew

    async def _send_held(self) -> None:
        """The views that came while the state was read, in order, but those it holds."""
        held = self.held
        assert held is not None
        while held:  # views coming meanwhile are held too, behind these
            event = held.pop(0)
            if (event["hand"], event["seq"]) > self.state_at:
                await self._forward_view(event)

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

    async def _send_state(self, presence: selectors.Presence) -> None:
        await self._send(await database_sync_to_async(selectors.table_state_for)(presence=presence))

    async def _send(self, state: dict[str, Any]) -> None:
        hand = state["hand"]
        self.state_at = (-1, -1) if hand is None else (hand["id"], hand["seq"])
        await self.send_json(state)


class LobbyConsumer(AsyncJsonWebsocketConsumer):
    """The lobby feed: the table list on connecting and after every change."""

    async def connect(self) -> None:
        await self.accept()
        await watch.add(self)
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self._send_tables()

    async def disconnect(self, code: int) -> None:
        watch.discard(self)
        task = getattr(self, "refresh_task", None)
        if task is not None:
            task.cancel()
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.send_json(ApplicationError("unknown_type").as_message())

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self._send_tables()

    async def _send_tables(self) -> None:
        tables = await database_sync_to_async(selectors.lobby_list)()
        await self.send_json({"type": "lobby", "tables": tables})
