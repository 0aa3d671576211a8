"""A hostile socket client: as many one-byte frames as the connection takes, for a while.

What a flooder does to a site (docs/proof/SECURITY.md, "One socket's flood reaches nobody
else"): it opens a socket as a browser would (the site's ``Origin``, a session cookie or
none), then writes masked one-byte text frames, built once, as fast as the kernel takes them,
and never reads what the server sends unless asked to. When the server closes or drops the
connection it opens another (``reconnect``), until the time is up. The handshake is written out
here rather than taken from a WebSocket library, so that nothing throttles the writes.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

# A masked text frame: FIN + text, mask bit + length 1, a zero mask key, the byte "1".
ONE_BYTE_FRAME = b"\x81\x81\x00\x00\x00\x001"
CHUNK_FRAMES = 8192  # frames per write (57 kB)


@dataclass
class FloodReport:
    """What one flood did: the frames the kernel took, the connections it opened (and those the
    server refused), and the close codes the server sent, when it sent one."""

    frames_written: int = 0
    connections: int = 0
    refused: int = 0
    close_codes: list[int] = field(default_factory=list)
    seconds: float = 0.0


def _handshake(url: str, origin: str, session: str | None) -> tuple[str, int, bytes]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {parts.path or '/'} HTTP/1.1",
        f"Host: {host}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        f"Origin: {origin}",
    ]
    if session:
        lines.append(f"Cookie: sessionid={session}")
    return host, port, ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _open(url: str, origin: str, session: str | None) -> tuple[Any, Any] | None:
    host, port, request = _handshake(url, origin, session)
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        writer.close()
        return None
    return reader, writer


def _close_code(data: bytes) -> int | None:
    """The code of the first close frame (opcode 8) among the server's frames in ``data``."""
    at = 0
    while at + 2 <= len(data):
        opcode, length = data[at] & 0x0F, data[at + 1] & 0x7F
        head = 2
        if length == 126:
            length, head = int.from_bytes(data[at + 2 : at + 4], "big"), 4
        elif length == 127:
            length, head = int.from_bytes(data[at + 2 : at + 10], "big"), 10
        payload = data[at + head : at + head + length]
        if opcode == 8:
            return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
        at += head + length
    return None


async def _drain_reads(reader: Any, into: bytearray) -> None:
    while chunk := await reader.read(65536):
        into += chunk


async def flood(
    url: str,
    origin: str,
    seconds: float,
    *,
    session: str | None = None,
    reconnect: bool = True,
    read: bool = False,
) -> FloodReport:
    """Write one-byte frames to the socket at ``url`` for ``seconds``; with ``read``, read
    (and drop) what the server sends meanwhile, else leave it unread."""
    report = FloodReport()
    chunk = ONE_BYTE_FRAME * CHUNK_FRAMES
    started = time.monotonic()
    end = started + seconds
    while time.monotonic() < end:
        try:
            opened = await _open(url, origin, session)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        report.connections += 1
        if opened is None:
            report.refused += 1
            await asyncio.sleep(0.05)
            continue
        reader, writer = opened
        received = bytearray()
        reading = asyncio.ensure_future(_drain_reads(reader, received)) if read else None
        # Writing ends when the server drops the connection or stops reading it.
        with contextlib.suppress(OSError, TimeoutError):
            while time.monotonic() < end:
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), max(0.01, end - time.monotonic()))
                report.frames_written += CHUNK_FRAMES
        if reading is None:
            with contextlib.suppress(OSError, TimeoutError):
                received += await asyncio.wait_for(reader.read(65536), 0.5)
        else:
            reading.cancel()
        code = _close_code(bytes(received))
        if code is not None:
            report.close_codes.append(code)
        writer.transport.abort()
        if not reconnect:
            break
    report.seconds = time.monotonic() - started
    return report
