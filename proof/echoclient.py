"""Sockets on the site's echo consumer (``/ws/echo/``): the floor a game's latency is measured
against. Each sends a small numbered message every ``interval`` (± jitter) seconds and times
the echo of each (``time.monotonic()``, as ``botclient``).

The site routes ``/ws/echo/`` only with ``SHENGJI_ECHO_SOCKET=1`` (``ECHO_SITE_ENV``, which the
load benchmark gives the site it starts; a site given by ``--url`` must be started with it).
Every echo socket of a run comes from this machine's one address, at the game's message rate,
so the same settings lift the echo's per-address cap and its bucket out of the way."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import websockets

ECHO_DRAIN_SECONDS = 10.0
ECHO_SITE_ENV = {
    "SHENGJI_ECHO_SOCKET": "1",
    "SHENGJI_ECHO_SOCKETS_PER_IP": "100000",
    "SHENGJI_ECHO_BURST": "1000",
    "SHENGJI_ECHO_RATE_PER_S": "1000",
}


@dataclass
class EchoSocket:
    """A socket on /ws/echo/ that sends a small message every ``interval`` (± jitter) seconds
    and times each echo."""

    url: str
    origin: str
    interval: float
    jitter: float
    rng: random.Random
    latencies: list[float] = field(default_factory=list)
    sent_times: list[float] = field(default_factory=list)  # when each of ``latencies`` was sent
    errors: list[str] = field(default_factory=list)
    pending: dict[int, float] = field(default_factory=dict)
    socket: Any = None

    async def connect(self) -> None:
        self.socket = await websockets.connect(
            self.url,
            origin=self.origin,  # type: ignore[arg-type]
            open_timeout=30,
            ping_interval=None,
        )

    async def run(self, stop: asyncio.Event) -> None:
        """Send until ``stop`` is set, then wait (a while) for the echoes still on their way."""
        reader = asyncio.get_running_loop().create_task(self._read())
        try:
            await self._send_until(stop)
            await self._drain()
        except websockets.ConnectionClosed as error:
            self.errors.append(f"echo socket closed: {error!r}")
        finally:
            reader.cancel()
            await self.socket.close()

    async def _send_until(self, stop: asyncio.Event) -> None:
        number = 0
        await sleep_or_stop(stop, self.rng.uniform(0, self.interval))
        while not stop.is_set():
            number += 1
            self.pending[number] = time.monotonic()
            await self.socket.send(json.dumps({"type": "echo", "n": number}))
            spread = self.interval * self.rng.uniform(1 - self.jitter, 1 + self.jitter)
            await sleep_or_stop(stop, spread)

    async def _drain(self) -> None:
        deadline = time.monotonic() + ECHO_DRAIN_SECONDS
        while self.pending and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if self.pending:
            self.errors.append(f"{len(self.pending)} echo(es) never came back")

    async def _read(self) -> None:
        # A closed socket is reported by run() when it sends, or as echoes that never came back.
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.socket:
                at = time.monotonic()
                sent = self.pending.pop(json.loads(raw).get("n"), None)
                if sent is None:
                    self.errors.append("an echo nobody sent")
                else:
                    self.latencies.append(at - sent)
                    self.sent_times.append(sent)


async def sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, or less if ``stop`` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


def echo_sockets(
    ws_bases: list[str], origin: str, count: int, interval: float, jitter: float, seed: int
) -> list[EchoSocket]:
    """``count`` echo sockets, spread over the daphnes (``ws_bases``) in turn."""
    rng = random.Random(seed)
    return [
        EchoSocket(
            ws_bases[i % len(ws_bases)] + "/ws/echo/",
            origin,
            interval,
            jitter,
            random.Random(rng.random()),
        )
        for i in range(count)
    ]
