"""daphne's WebSocket connections, each with bounded work and bounded memory.

daphne puts every frame a client sends into the application's queue, which has no bound, and
keeps whatever the application writes until the client reads it. One client could so make the
process parse, queue and answer frames for seconds on end, or grow it by megabytes a second
(docs/proof/SECURITY.md, "One socket's flood reaches nobody else"). Here, before any socket code
sees a frame:

- a connection may send ``SHENGJI_WS_FRAME_BURST`` frames at once, then
  ``SHENGJI_WS_FRAMES_PER_S`` a second (far above what the sockets themselves take,
  games/consumers.py: a browser sends a few a second). Past that it is sent a close frame
  (1008) and dropped at once: the frames still unread in its buffer are not parsed;
- a connection whose client has left more than ``SHENGJI_WS_UNSENT_BYTES`` unread (written by
  the server, not yet taken by the client's TCP stack) is dropped instead of being written more;
- a socket the application closes with 1008 (``games.consumers.FLOOD_CLOSE``: it kept sending
  past its limit) is dropped as soon as its close frame is written, not after the client's
  answer that a flooder never sends;
- 2 s after the last such drop, the C heap's free memory is handed back to the system
  (``HeapTrim``): what a flood's connections used does not stay in the process's RSS.

Installed by ``daphne_uvloop`` in daphne's process. uvicorn (``--ws websockets-sansio``) stops
reading a connection while a frame it queued waits for the application, so a flood there waits
in the client's own TCP buffers; the sockets' own limits (games/consumers.py) apply on both.
"""

from __future__ import annotations

import ctypes
import logging
import time
from collections.abc import Callable
from typing import Any, cast

from daphne.ws_protocol import WebSocketProtocol

logger = logging.getLogger(__name__)
FLOOD_CLOSE = 1008  # policy violation (as games.consumers.FLOOD_CLOSE)

_on_message: Callable[[Any, bytes, bool], None] = WebSocketProtocol.onMessage
_handle_reply: Callable[[Any, dict[str, Any]], None] = WebSocketProtocol.handle_reply


class Limits:
    """The settings' numbers, read once (daphne imports this before Django is set up)."""

    burst = 0.0
    per_second = 0.0
    unsent_bytes = 0

    @classmethod
    def load(cls) -> None:
        if cls.burst:
            return
        from django.conf import settings

        cls.per_second = float(settings.SHENGJI_WS_FRAMES_PER_S)
        cls.unsent_bytes = int(settings.SHENGJI_WS_UNSENT_BYTES)
        cls.burst = float(settings.SHENGJI_WS_FRAME_BURST)


class FrameBucket:
    __slots__ = ("at", "tokens")

    def __init__(self) -> None:
        self.tokens, self.at = Limits.burst, time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(Limits.burst, self.tokens + (now - self.at) * Limits.per_second)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def unsent_bytes(transport: Any) -> int:
    """Bytes written to ``transport`` that its socket has not taken yet (Twisted's buffer of
    a TCP connection, under any wrapping transport such as TLS's); 0 when it cannot tell."""
    seen = 0
    while transport is not None and seen < 4:
        buffer = getattr(transport, "dataBuffer", None)
        if isinstance(buffer, bytes):
            offset = int(getattr(transport, "offset", 0))
            return len(buffer) - offset + int(getattr(transport, "_tempDataLen", 0))
        transport = getattr(transport, "transport", None)
        seen += 1
    return 0


class DropLog:
    """One warning a second at most, with how many drops it stands for: a flooder reconnecting
    in a loop must not flood the log instead."""

    last = 0.0
    unlogged = 0

    @classmethod
    def note(cls, why: str, client: Any) -> None:
        now = time.monotonic()
        if now - cls.last < 1.0:
            cls.unlogged += 1
            return
        more, cls.unlogged, cls.last = cls.unlogged, 0, now
        logger.warning("socket dropped: %s (%s; %d more since the last warning)", why, client, more)


class HeapTrim:
    """Once drops have stopped for ``AFTER_S`` seconds, the C heap's free memory handed back to
    the system (glibc's ``malloc_trim``): the buffers of a flood's connections, freed, would
    otherwise stay in the process's RSS."""

    AFTER_S = 2.0
    due = 0.0
    pending = False

    @classmethod
    def soon(cls) -> None:
        cls.due = time.monotonic() + cls.AFTER_S
        if not cls.pending:
            cls.pending = True
            cls._later(cls.AFTER_S)

    @classmethod
    def _later(cls, seconds: float) -> None:
        from twisted.internet import reactor

        cast(Any, reactor).callLater(seconds, cls._run)

    @classmethod
    def _run(cls) -> None:
        wait = cls.due - time.monotonic()
        if wait > 0:
            cls._later(wait)
            return
        cls.pending = False
        trim = _malloc_trim()
        if trim is not None:
            trim(0)


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    trim: Callable[[int], int] | None = getattr(libc, "malloc_trim", None)
    return trim


def drop(protocol: Any, why: str) -> None:
    """Close the connection now: a close frame (1008) if it is open, then the TCP connection
    aborted (what is buffered either way is discarded; no more of its data is parsed)."""
    if getattr(protocol, "guard_dropped", False):
        return
    protocol.guard_dropped = True
    DropLog.note(why, getattr(protocol, "client_addr", None))
    HeapTrim.soon()
    if protocol.state == WebSocketProtocol.STATE_OPEN:
        protocol.sendCloseFrame(code=FLOOD_CLOSE, isReply=False)
    protocol.dropConnection(abort=True)


def on_message(protocol: Any, payload: bytes, is_binary: bool) -> None:
    """daphne's ``onMessage``, within the connection's frame bucket."""
    if getattr(protocol, "guard_dropped", False):
        return
    bucket = protocol.__dict__.get("guard_frames")
    if bucket is None:
        Limits.load()
        bucket = protocol.guard_frames = FrameBucket()
    if not bucket.allow():
        drop(protocol, "frames past the connection's limit")
        return
    _on_message(protocol, payload, is_binary)


def handle_reply(protocol: Any, message: dict[str, Any]) -> None:
    """daphne's ``handle_reply``: nothing written to a socket no longer open or to a client
    that leaves too much unread, and a socket closed for flooding dropped once its close frame
    is written."""
    kind = message.get("type")
    if kind == "websocket.send":
        if protocol.state != WebSocketProtocol.STATE_OPEN:
            # The client has gone (its close came while the consumer was answering it): the
            # frame has nowhere to go, and raising here would end the consumer before its
            # disconnect, leaving its channel in its groups (docs/proof/SOAK.md).
            return
        Limits.load()
        if unsent_bytes(protocol.transport) > Limits.unsent_bytes:
            drop(protocol, "its client left too much unread")
            return
    _handle_reply(protocol, message)
    if (
        kind == "websocket.close"
        and message.get("code") == FLOOD_CLOSE
        and protocol.state != WebSocketProtocol.STATE_CLOSED
    ):
        drop(protocol, "closed for flooding")


def install() -> None:
    WebSocketProtocol.onMessage = on_message
    WebSocketProtocol.handle_reply = handle_reply
