from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games import lobby
from games.consumers import SessionBound
from games.errors import ApplicationError
from games.groupwatch import watch
from games.realtime import LOBBY_GROUP

NO_SUCH_SOCKET = 4404  # as a table that does not exist: do not reconnect


class EchoConsumer(AsyncJsonWebsocketConsumer):
    """Sends every JSON message straight back: the floor of the socket stack in benchmarks."""

    async def receive_json(self, content: object, **kwargs: object) -> None:
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
        if await self._session_holds():
            await self.send_json(ApplicationError("unknown_type").as_message())

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        if not self.ended:
            lobby.feed().change(event)
