from __future__ import annotations

import json
from collections import Counter
from typing import Any

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from accounts.client_address import client_ip_from_scope
from accounts.errors import ApplicationError
from games import lobby
from games.consumers import MAX_FRAME, TOO_MANY_SOCKETS, Limited, MessageLimit, SessionBound
from games.groupwatch import watch
from games.realtime import LOBBY_GROUP

NO_SUCH_SOCKET = 4404  # as a table that does not exist: do not reconnect
# The lobby takes no messages: a few are answered (`unknown_type`, after the session check),
# the rest refused as any socket's past its limit (docs/PROTOCOL.md, "The lobby feed").
LOBBY_BURST = 3.0
LOBBY_RATE_PER_S = 0.2


class EchoSockets:
    """The echo sockets of this process per client address, at most
    ``settings.SHENGJI_ECHO_SOCKETS_PER_IP`` each (the route exists only on a benchmark's site,
    so this count needs no Redis)."""

    def __init__(self) -> None:
        self.open: Counter[str] = Counter()

    def take(self, address: str) -> bool:
        if self.open[address] >= settings.SHENGJI_ECHO_SOCKETS_PER_IP:
            return False
        self.open[address] += 1
        return True

    def give_back(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


echo_sockets = EchoSockets()


class EchoConsumer(Limited):
    """Sends every JSON message straight back: the floor of the socket stack in benchmarks.
    Routed only when ``settings.SHENGJI_ECHO_SOCKET`` is on (shengji_site/routing.py); capped
    per address and limited per socket as the other routes."""

    address: str | None = None

    async def connect(self) -> None:
        self.limit = MessageLimit(settings.SHENGJI_ECHO_RATE_PER_S, settings.SHENGJI_ECHO_BURST)
        await self.accept()
        address = client_ip_from_scope(self.scope)
        if not echo_sockets.take(address):
            await self.send_json(ApplicationError("too_many_sockets").as_message())
            await self.close(code=TOO_MANY_SOCKETS)
            return
        self.address = address

    async def disconnect(self, code: int) -> None:
        if self.address is not None:
            echo_sockets.give_back(self.address)
            self.address = None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not await self.admitted():
            return
        if text_data is None or len(text_data) > MAX_FRAME:
            await self.send_json(ApplicationError("bad_message").as_message())
            return
        try:
            content = json.loads(text_data)
        except (ValueError, RecursionError):
            await self.send_json(ApplicationError("bad_message").as_message())
            return
        await self.send_json(content)


class NoSuchSocket(AsyncJsonWebsocketConsumer):
    """Every socket path no route matches (``/ws/lobby/../table/1/``, ``/ws/table/%00/``):
    refused like a table that does not exist, not an error of the server."""

    async def connect(self) -> None:
        await self.close(code=NO_SUCH_SOCKET)


class LobbyConsumer(SessionBound):
    """The lobby feed (docs/PROTOCOL.md): the table list on connecting and after every change.

    The list is built once per change for every lobby socket of the process, and a user and an
    address may hold only so many lobby sockets (games/lobby.py)."""

    lobby_slots: list[tuple[str, int]] = []

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its trip to the one shared thread before every message
        (as ``TableConsumer``'s): a change heard by N sockets would queue N trips there."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.user = self.scope["user"]
        self.limit = MessageLimit(LOBBY_RATE_PER_S, LOBBY_BURST)
        await self.accept()
        slots = lobby.socket_slots(self.user, self.scope)
        if not await sync_to_async(lobby.socket_open, thread_sensitive=False)(
            slots, self.channel_name
        ):
            await self.send_json(
                {
                    "type": "error",
                    "code": "too_many_sockets",
                    "message": "too many lobby windows open: close one",
                }
            )
            await self.close(code=lobby.TOO_MANY_SOCKETS)
            return
        self.lobby_slots = slots
        await watch.add(self)
        if not await self._bind_session():
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        lobby.feed().join(self)

    async def disconnect(self, code: int) -> None:
        watch.discard(self)
        lobby.feed().leave(self)
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        await self._unbind_session()
        if self.lobby_slots:
            await sync_to_async(lobby.socket_closed, thread_sensitive=False)(
                self.lobby_slots, self.channel_name
            )

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.ended or not await self.admitted():
            return
        if await self._session_holds():
            await self.send_json(ApplicationError("unknown_type").as_message())

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        if not self.ended:
            lobby.feed().change(event)
