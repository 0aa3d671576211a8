"""One client process's share of a load run: its sockets, their loops and their figures.

A *job* is a plain dict (it crosses to a client process): ``ws_bases`` (one ``ws://`` base per
daphne), ``origin``, ``think``, ``jitter``, ``seed`` and, for the echo phase, ``count``,
``interval`` and ``seconds``; for the game phase, ``tables`` (``livesetup.tables``' JSON),
``hands``, ``bids``, ``ramp`` and ``budget``. ``connected`` is awaited once every socket is
open: the measuring starts when it returns.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

import websockets

from proof.botclient import PING_EVERY, SeatClient
from proof.cpu import LoopMeter
from proof.echoclient import echo_sockets
from proof.load.latency import table_figures

CONNECT_AT_ONCE = 10

Phase = Callable[
    [dict[str, Any], Callable[[], Awaitable[None]]], Coroutine[Any, Any, dict[str, Any]]
]


async def connect_all(sockets: Iterable[Any]) -> list[str]:
    """Open sockets a few at a time (a burst of hundreds of handshakes is not the benchmark);
    the errors of those that could not connect."""
    gate = asyncio.Semaphore(CONNECT_AT_ONCE)
    failed: list[str] = []

    async def one(socket: Any) -> None:
        async with gate:
            try:
                await socket.connect()
            except (OSError, TimeoutError, websockets.WebSocketException) as error:
                failed.append(f"{getattr(socket, 'name', 'echo')}: connect: {error!r}"[:300])
                socket.socket = None

    await asyncio.gather(*(one(socket) for socket in sockets))
    return failed


async def echo_phase(
    job: dict[str, Any], connected: Callable[[], Awaitable[None]]
) -> dict[str, Any]:
    """Phase 1: ``count`` echo sockets alone for ``seconds``."""
    sockets = echo_sockets(
        job["ws_bases"], job["origin"], job["count"], job["interval"], job["jitter"], job["seed"]
    )
    errors = await connect_all(sockets)
    sockets = [s for s in sockets if s.socket is not None]
    await connected()
    with LoopMeter(collect=job.get("client_gc", False)) as meter:
        stop = asyncio.Event()
        runs = [asyncio.get_running_loop().create_task(s.run(stop)) for s in sockets]
        await asyncio.sleep(job["seconds"])
        stop.set()
        await asyncio.gather(*runs)
    return {
        "latencies": [x for s in sockets for x in s.latencies],
        "errors": errors + [e for s in sockets for e in s.errors],
        **meter.figures(),
    }


def seat_clients(
    table: dict[str, Any], job: dict[str, Any], rng: random.Random
) -> list[SeatClient]:
    """The seats of a table, their sockets on the ASGI processes as ``routing`` says."""
    bases = job["ws_bases"]
    clients = []
    for index, person in enumerate(table["players"]):
        # "spread": like a round-robin balancer, the sockets take the processes in turn, so a
        # table's seats are spread; "table": a proxy hashing on the table id (OPERATIONS.md).
        spread = index if job.get("routing", "spread") == "spread" else 0
        base = bases[(table["id"] + spread) % len(bases)]
        client = SeatClient(
            f"{base}/ws/table/{table['id']}/",
            person["session"],
            job["origin"],
            name=person["username"],
            think=job["think"],
            jitter=job["jitter"],
            bids=job["bids"],
            seat_auto_ready=table.get("auto_ready", True),
            shape=table.get("shape") or {},
        )
        client._rng = random.Random(rng.random())
        clients.append(client)
    return clients


async def wait_pinging(clients: list[SeatClient], delay: float) -> None:
    """Wait for the table's turn to start, pinging as a browser does from the moment it
    connects: a socket silent for SHENGJI_CONNECTION_TIMEOUT_S (90 s) is forgotten and the
    bot takes its seat, which a ramp longer than that would otherwise do to the last tables."""
    end = time.monotonic() + delay
    while (left := end - time.monotonic()) > 0:
        await asyncio.sleep(min(left, PING_EVERY))
        if time.monotonic() < end:
            await asyncio.gather(*(c.send({"type": "ping"}) for c in clients))


async def play_table(
    clients: list[SeatClient], hands: int, delay: float, budget: float, errors: list[str]
) -> None:
    """The seats of one table play ``hands`` hands in at most ``budget`` seconds; a seat
    that fails or runs out of time is an error (pings keep a stuck table's sockets busy, so
    only the budget ends it)."""
    await wait_pinging(clients, delay)
    plays = [asyncio.wait_for(c.play(hands), budget) for c in clients]
    results = await asyncio.gather(*plays, return_exceptions=True)
    for client, result in zip(clients, results, strict=True):
        if isinstance(result, BaseException):
            phase = (client.view or {}).get("phase")
            errors.append(f"{client.name} (seq {client.seq}, {phase}): {result!r}"[:300])
            await client.close()  # its table cannot go on: the others time out, not hang


async def game_phase(
    job: dict[str, Any], connected: Callable[[], Awaitable[None]]
) -> dict[str, Any]:
    """Phase 2: the tables of this process, with one echo probe each."""
    rng = random.Random(job["seed"])
    tables = [seat_clients(table, job, rng) for table in job["tables"]]
    probes = echo_sockets(
        job["ws_bases"], job["origin"], len(tables), job["think"], job["jitter"], job["seed"] + 1
    )
    errors = await connect_all([c for clients in tables for c in clients])
    errors += await connect_all(probes)
    probes = [p for p in probes if p.socket is not None]
    playing = [clients for clients in tables if all(c.socket for c in clients)]
    for clients in tables:
        if clients not in playing:  # a table missing a seat cannot play: counted, left out
            errors.append(f"{clients[0].name}: its table could not seat all its sockets")
            await asyncio.gather(*(c.close() for c in clients if c.socket is not None))
    await connected()
    with LoopMeter(collect=job.get("client_gc", False)) as meter:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        probing = [loop.create_task(p.run(stop)) for p in probes]
        count = len(playing)
        await asyncio.gather(
            *(
                play_table(clients, job["hands"], job["ramp"] * i / count, job["budget"], errors)
                for i, clients in enumerate(playing)
            )
        )
        stop.set()
        await asyncio.gather(*probing)
    for clients in playing:
        for client in clients:
            await client.close()
    figures = table_figures(playing, job["hands"], job["bids"])
    return {
        **figures,
        "errors": errors + figures["errors"] + [e for p in probes for e in p.errors],
        "probe_latencies": [x for p in probes for x in p.latencies],
        "probe_times": [x for p in probes for x in p.sent_times],
        **meter.figures(),
    }


PHASES: dict[str, Phase] = {"echo": echo_phase, "game": game_phase}
