"""WebSocket load: N tables of four bot-driven clients over real sockets, beside an echo floor.

Run: ``.venv/bin/python bench/bench_ws_load.py --tables 100 --hands 2 --think 1.0``
(docs/proof/LOAD.md gives the method and the figures).

The site is a ``LiveSite`` (shengji_site/testing/livesite.py): the processes of ``manage.py
serve`` (one daphne, a Celery worker, Celery beat, embedded PostgreSQL and Redis) started as
children of this script; ``--url`` runs against a site already running instead (tables are then
made through ``manage.py shell`` with this shell's DATABASE_URL, REDIS_URL and SECRET_KEY,
which must be the site's).

1. Echo alone: as many sockets as the game will use (4 per table) send to ``/ws/echo/`` at the
   game's message rate (each every 4 × think: the table's one action per think, shared by
   four seats); latency = send → the echo back.
2. Game: four ``SeatClient`` per table play ``--hands`` hands from their own views (the basic
   bot; no bids by default, so the kitty is flipped: a pure bury-and-play benchmark), acting
   ``think`` × (1 ± jitter) seconds after their turn comes. Latency of one action = from the
   moment its client sent it to the moment the last of the table's four seats received a view
   with a newer ``seq``. Meanwhile one echo probe per table sends every ``think`` seconds: the
   floor of the stack under the same load, in the same run.

The goal (issue 9): p99(game) ≤ 3 × p99(echo probes during the game), at 100 tables, with no
errors; the ratio against the echo phase alone is reported beside it. Errors: any ``error``
frame (with ``--bids``, refused bids are counted apart as bid races), a socket dropped or
timed out, a view missing for a seat, a hand not finished.

Clients run in ``--procs`` separate processes (0: in this one), each one asyncio loop; all
times are ``time.monotonic()`` (CLOCK_MONOTONIC, shared by every process of the machine). The
CPU of the clients and of every server process is measured and reported with the loop lag of
each client process (how late its timers fire: a client that keeps up has a small lag).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import math
import multiprocessing
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shengji_site.testing.botclient import PING_EVERY, SeatClient  # noqa: E402

GOAL_RATIO = 3.0
GAME_KINDS = {"bury", "play"}
BID_REFUSALS = {"stale_seq", "wrong_phase"}
CONNECT_AT_ONCE = 10
ECHO_DRAIN_SECONDS = 10.0
LAG_TICK = 0.05


@dataclass
class Options:
    tables: int = 10
    hands: int = 2
    think: float = 1.0
    jitter: float = 0.5
    echo_seconds: float = 30.0
    procs: int = 1
    daphnes: int = 1
    client_nice: int = 0
    bids: bool = False
    ramp: float = 5.0
    hand_budget: float = 900.0
    play_seconds: int = 20
    bury_seconds: int = 30
    bid_window_seconds: int = 0
    deal_interval_ms: int = 0
    url: str | None = None
    base: str | None = None
    site_env: dict[str, str] = field(default_factory=dict)
    seed: int = 1
    keep_samples: bool = False  # every latency in the result (seconds), for tests


# --- numbers ---------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def summary_ms(seconds: list[float]) -> dict[str, Any]:
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50": _round(percentile(ms, 50)),
        "p95": _round(percentile(ms, 95)),
        "p99": _round(percentile(ms, 99)),
        "max": _round(max(ms) if ms else None),
    }


def _round(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def ratio(game: dict[str, Any], floor: dict[str, Any]) -> float | None:
    if not game["p99"] or not floor["p99"]:
        return None
    return round(game["p99"] / floor["p99"], 2)


# --- the client side: echo sockets -----------------------------------------------------------


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
    errors: list[str] = field(default_factory=list)
    pending: dict[int, float] = field(default_factory=dict)
    socket: Any = None

    async def connect(self) -> None:
        self.socket = await websockets.connect(
            self.url,
            origin=self.origin,
            open_timeout=30,
            ping_interval=None,  # type: ignore[arg-type]
        )

    async def run(self, stop: asyncio.Event) -> None:
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
        await _sleep_or_stop(stop, self.rng.uniform(0, self.interval))
        while not stop.is_set():
            number += 1
            self.pending[number] = time.monotonic()
            await self.socket.send(json.dumps({"type": "echo", "n": number}))
            spread = self.interval * self.rng.uniform(1 - self.jitter, 1 + self.jitter)
            await _sleep_or_stop(stop, spread)

    async def _drain(self) -> None:
        deadline = time.monotonic() + ECHO_DRAIN_SECONDS
        while self.pending and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if self.pending:
            self.errors.append(f"{len(self.pending)} echo(es) never came back")

    async def _read(self) -> None:
        try:
            async for raw in self.socket:
                at = time.monotonic()
                sent = self.pending.pop(json.loads(raw).get("n"), None)
                if sent is None:
                    self.errors.append("an echo nobody sent")
                else:
                    self.latencies.append(at - sent)
        except websockets.ConnectionClosed:
            pass  # reported by run() when it sends, or as echoes that never came back


async def _sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


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


def echo_sockets(
    ws_bases: list[str], origin: str, count: int, interval: float, jitter: float, seed: int
):
    """``count`` echo sockets, spread over the daphnes in turn."""
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
    with Meter() as meter:
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


# --- the client side: game tables ------------------------------------------------------------


class Meter:
    """This process's CPU time and the lag of its event loop while the block runs."""

    def __enter__(self) -> Meter:
        self.lags: list[float] = []
        self.started = time.monotonic()
        self.cpu = _own_cpu()
        self.task = asyncio.get_running_loop().create_task(self._watch())
        return self

    def __exit__(self, *exc: object) -> None:
        self.task.cancel()
        self.wall = time.monotonic() - self.started
        self.cpu = _own_cpu() - self.cpu

    async def _watch(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(LAG_TICK)
            self.lags.append(time.monotonic() - before - LAG_TICK)

    def figures(self) -> dict[str, Any]:
        return {
            "client_cpu_s": round(self.cpu, 3),
            "client_wall_s": round(self.wall, 3),
            "loop_lag_ms": {
                "p99": _round(1000 * (percentile(self.lags, 99) or 0)),
                "max": _round(1000 * max(self.lags, default=0)),
            },
        }


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def seat_clients(
    table: dict[str, Any], job: dict[str, Any], rng: random.Random
) -> list[SeatClient]:
    bases = job["ws_bases"]
    clients = []
    for index, person in enumerate(table["players"]):
        # Like a balancer: the sockets take the daphnes in turn, so a table's seats are spread.
        base = bases[(table["id"] + index) % len(bases)]
        client = SeatClient(
            f"{base}/ws/table/{table['id']}/",
            person["session"],
            job["origin"],
            name=person["username"],
            think=job["think"],
            jitter=job["jitter"],
            bids=job["bids"],
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
    """The four seats of one table play ``hands`` hands in at most ``budget`` seconds; a seat
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
            errors.append(f"{clients[0].name}: its table could not seat four sockets")
            await asyncio.gather(*(c.close() for c in clients if c.socket is not None))
    await connected()
    with Meter() as meter:
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
        **meter.figures(),
    }


def arrivals(client: SeatClient) -> dict[int, tuple[list[int], list[float]]]:
    """For each hand, the seqs of the views this seat received, each with the time the seat
    first saw it or a newer one (increasing in both)."""
    seen: dict[int, tuple[list[int], list[float]]] = {}
    for at, frame in client.frames:
        if frame.get("type") == "view":
            hand, seq = frame["hand"], frame["seq"]
        elif frame.get("type") == "state" and frame.get("hand"):
            hand, seq = frame["hand"]["id"], frame["hand"]["seq"]
        else:
            continue
        seqs, times = seen.setdefault(hand, ([], []))
        if not seqs or seq > seqs[-1]:
            seqs.append(seq)
            times.append(at)
    return seen


def first_view_after(seen: dict[int, tuple[list[int], list[float]]], hand: int | None, seq: int):
    seqs, times = seen.get(hand, ([], [])) if hand is not None else ([], [])
    index = bisect.bisect_right(seqs, seq)
    return times[index] if index < len(seqs) else None


def finished_seqs(client: SeatClient) -> dict[int, int]:
    """The seq at which each hand this seat saw finished (in a ``view``, or in the ``state``
    that the end of a hand also sends)."""
    ends = {}
    for _, frame in client.frames:
        kind, hand = frame.get("type"), frame.get("hand")
        if kind == "state" and hand:
            hand_id, seq, view = hand["id"], hand["seq"], hand["view"]
        elif kind == "view":
            hand_id, seq, view = hand, frame["seq"], frame["view"]
        else:
            continue
        if view.get("phase") == "finished":
            ends[hand_id] = seq
    return ends


def table_figures(tables: list[list[SeatClient]], hands: int, bids: bool) -> dict[str, Any]:
    """Latency of every bury and play (send → the last of four seats sees a newer view), the
    errors the frames show, and the span of the game. Each latency has a kind: ``bury``,
    ``play``, or ``hand_end`` (the play that ended a hand: its transaction settles the hand)."""
    latencies: list[float] = []
    kinds: list[str] = []
    errors: list[str] = []
    bid_races = 0
    spans: list[float] = []
    for clients in tables:
        seen = [arrivals(c) for c in clients]
        ends = finished_seqs(clients[0])
        for client in clients:
            for sent in client.sent:
                if sent.kind not in GAME_KINDS:
                    continue
                times = [first_view_after(s, sent.hand, sent.seq) for s in seen]
                if any(t is None for t in times):
                    errors.append(f"{client.name}: no view after its {sent.kind} at {sent.seq}")
                    continue
                last = max(t for t in times if t is not None)
                latencies.append(last - sent.at)
                ended = ends.get(sent.hand) == sent.seq + 1
                kinds.append("hand_end" if ended else sent.kind)
                spans += [sent.at, last]
            races, refused = split_errors(client, bids)
            bid_races += races
            errors += refused
            if client.hands_finished < hands:
                errors.append(f"{client.name}: {client.hands_finished} of {hands} hands finished")
    return {
        "latencies": latencies,
        "kinds": kinds,
        "errors": errors,
        "bid_races": bid_races,
        "actions": len(latencies),
        "hands_finished": sum(min(c.hands_finished for c in clients) for clients in tables),
        "first_at": min(spans, default=None),
        "last_at": max(spans, default=None),
    }


def split_errors(client: SeatClient, bids: bool) -> tuple[int, list[str]]:
    """(bid races, other errors) among the error frames of one seat: with bids on, as many
    stale or late refusals as the seat sent bids are the documented bid races."""
    allowed = sum(1 for s in client.sent if s.kind == "bid") if bids else 0
    races, refused = 0, []
    for at, frame in client.frames:
        if frame.get("type") != "error":
            continue
        if frame.get("code") in BID_REFUSALS and races < allowed:
            races += 1
        else:
            refused.append(f"{client.name}: error {frame.get('code')} {last_sent(client, at)}")
    return races, refused


def last_sent(client: SeatClient, before: float) -> str:
    """What the seat last sent before ``before`` (what an error frame most likely answers)."""
    sent = [s for s in client.sent if s.at <= before]
    if not sent:
        return "(nothing sent yet)"
    s = sent[-1]
    ago = before - s.at
    return f"after its {s.kind} {s.cards!r} at seq {s.seq} of hand {s.hand}, {ago:.3f} s before"


# --- client processes ------------------------------------------------------------------------


def _client_main(job: dict[str, Any], results: Any, connected: Any, go: Any) -> None:
    """A client process: one phase's share of sockets, its figures back through ``results``."""
    if job.get("nice"):
        os.nice(job["nice"])

    async def wait_for_go() -> None:
        connected.release()
        await asyncio.get_running_loop().run_in_executor(None, go.wait)

    phase = echo_phase if job["phase"] == "echo" else game_phase
    try:
        results.put(asyncio.run(phase(job, wait_for_go)))
    except BaseException as error:
        results.put({"failed": repr(error)[:500]})
        raise


def run_in_processes(jobs: list[dict[str, Any]], on_go: Callable[[], None]) -> list[dict[str, Any]]:
    """Run one job per process; when all have connected, ``on_go()`` then let them start."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    connected = context.Semaphore(0)
    go = context.Event()
    workers = [
        context.Process(target=_client_main, args=(job, results, connected, go)) for job in jobs
    ]
    for worker in workers:
        worker.start()
    try:
        for _ in jobs:
            _acquire_or_fail(connected, workers)
        on_go()
        go.set()
        figures = [results.get(timeout=24 * 3600) for _ in jobs]
    finally:
        for worker in workers:
            worker.join(30)
            if worker.is_alive():
                worker.kill()
    failed = [f["failed"] for f in figures if "failed" in f]
    if failed:
        raise RuntimeError(f"a client process failed: {failed[0]}")
    return figures


def _acquire_or_fail(semaphore: Any, workers: list[Any]) -> None:
    while not semaphore.acquire(timeout=1):
        dead = [w for w in workers if not w.is_alive()]
        if dead:
            raise RuntimeError(f"client process {dead[0].pid} exited with {dead[0].exitcode}")


def run_phase(jobs: list[dict[str, Any]], procs: int, on_go: Callable[[], None]):
    if procs > 0:
        return run_in_processes(jobs, on_go)
    (job,) = jobs

    async def connected() -> None:
        on_go()

    phase = echo_phase if job["phase"] == "echo" else game_phase
    return [asyncio.run(phase(job, connected))]


def split(items: list[Any], parts: int) -> list[list[Any]]:
    return [items[i::parts] for i in range(parts)]


# --- the server side -------------------------------------------------------------------------


class RunningSite:
    """A site already running at ``url``; tables are made with this checkout's manage.py and
    the environment of this shell (which must be the site's database, Redis and secret)."""

    def __init__(self, url: str) -> None:
        self.base_url = url.rstrip("/")
        self.env = dict(os.environ)

    def ws_url(self, path: str) -> str:
        return self.base_url.replace("http", "ws", 1) + path

    @property
    def origin(self) -> str:
        return self.base_url

    def call(self, function: str, **kwargs: Any) -> Any:
        from shengji_site.testing.livesite import LiveSite

        return LiveSite.call(self, function, **kwargs)  # type: ignore[arg-type]

    def manage(self, *args: str, timeout: float = 300) -> str:
        from shengji_site.testing.livesite import LiveSite

        return LiveSite.manage(self, *args, timeout=timeout)  # type: ignore[arg-type]


class CpuMeter:
    """CPU seconds of named server processes (each with its children, living and reaped) and
    of the whole machine, between ``start()`` and ``stop()``."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.processes = {name: psutil.Process(pid) for name, pid in pids.items()}

    def start(self) -> None:
        self.before = self._sample()
        self.machine_before = psutil.cpu_times()
        self.started = time.monotonic()

    def stop(self) -> dict[str, Any]:
        wall = time.monotonic() - self.started
        after = self._sample()
        machine = psutil.cpu_times()
        busy = sum(_busy(machine)) - sum(_busy(self.machine_before))
        percent = {name: round(100 * (after[name] - self.before[name]) / wall, 1) for name in after}
        return {
            "wall_s": round(wall, 2),
            "server_percent_of_one_core": percent,
            "machine_busy_percent_of_one_core": round(100 * busy / wall, 1),
            "cores": psutil.cpu_count(),
            "load_average_1m_at_end": round(os.getloadavg()[0], 2),
        }

    def _sample(self) -> dict[str, float]:
        sample = {name: _tree_cpu(process) for name, process in self.processes.items()}
        for name, process in self.processes.items():
            if name.startswith("daphne"):  # its event loop apart from its database threads
                sample[f"{name} loop"] = _thread_cpu(process, process.pid)
        return sample


def _busy(times: Any) -> tuple[float, ...]:
    return (times.user, times.nice, times.system, times.irq, times.softirq, times.steal)


def _tree_cpu(process: psutil.Process) -> float:
    try:
        total = sum(process.cpu_times()[:4])  # own user, system; reaped children's
        for child in process.children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess):
                total += sum(child.cpu_times()[:2])
        return total
    except psutil.NoSuchProcess:
        return 0.0


def _thread_cpu(process: psutil.Process, thread_id: int) -> float:
    with contextlib.suppress(psutil.NoSuchProcess):
        for thread in process.threads():
            if thread.id == thread_id:
                return float(thread.user_time + thread.system_time)
    return 0.0


def server_pids(site: Any) -> dict[str, int]:
    if not hasattr(site, "processes"):
        return {}
    pids = {name: process.pid for name, process in site.processes.items()}
    pids["postgres"] = site.postgres.process.pid
    pids["redis"] = site.redis.process.pid
    return pids


def start_site(options: Options) -> Any:
    if options.url:
        return RunningSite(options.url)
    from shengji_site.testing.livesite import LiveSite

    base = Path(options.base or tempfile.mkdtemp(prefix="shengji-load-"))
    site = LiveSite(base, env=options.site_env, daphnes=options.daphnes)
    try:
        site.start()
    except BaseException:
        site.stop()
        raise
    return site


def make_tables(site: Any, options: Options) -> list[dict[str, Any]]:
    prefix = f"ld{os.getpid()}x{int(time.time()) % 100000}_"
    return list(
        site.call(
            "shengji_site.testing.livesetup.tables",
            count=options.tables,
            prefix=prefix,
            play_seconds=options.play_seconds,
            bury_seconds=options.bury_seconds,
            bid_window_seconds=options.bid_window_seconds,
            deal_interval_ms=options.deal_interval_ms,
        )
    )


# --- the run ---------------------------------------------------------------------------------


def run_bench(options: Options, log: Callable[[str], None] = print) -> dict[str, Any]:
    site = start_site(options)
    try:
        return measure(site, options, log)
    finally:
        if hasattr(site, "stop"):
            site.stop()
            if options.base is None:  # a folder of our own: its database, logs, everything
                shutil.rmtree(site.base, ignore_errors=True)


def measure(site: Any, options: Options, log: Callable[[str], None]) -> dict[str, Any]:
    started = time.monotonic()
    tables = make_tables(site, options)
    log(f"{len(tables)} tables ready in {time.monotonic() - started:.1f} s")
    shared = {
        "ws_bases": [site.ws_url("", i) for i in range(options.daphnes)]
        if options.daphnes > 1
        else [site.ws_url("")],
        "origin": site.origin,
        "think": options.think,
        "jitter": options.jitter,
        "nice": options.client_nice,
    }
    parts = max(1, options.procs)
    meter = CpuMeter(server_pids(site))

    sockets = 4 * options.tables
    echo_jobs = [
        {
            **shared,
            "phase": "echo",
            "count": len(share),
            "interval": 4 * options.think,
            "seconds": options.echo_seconds,
            "seed": options.seed + 100 * i,
        }
        for i, share in enumerate(split(list(range(sockets)), parts))
        if share
    ]
    log(f"echo alone: {sockets} sockets, each every {4 * options.think:g} s")
    echo = run_phase(echo_jobs, options.procs, meter.start)
    echo_cpu = meter.stop()

    game_jobs = [
        {
            **shared,
            "phase": "game",
            "tables": share,
            "hands": options.hands,
            "bids": options.bids,
            "ramp": options.ramp,
            "budget": options.hands * options.hand_budget,
            "seed": options.seed + 1000 + 100 * i,
        }
        for i, share in enumerate(split(tables, parts))
        if share
    ]
    log(f"game: {options.tables} tables, {options.hands} hand(s), think {options.think:g} s")
    game = run_phase(game_jobs, options.procs, meter.start)
    game_cpu = meter.stop()
    return report(options, echo, echo_cpu, game, game_cpu)


def report(
    options: Options,
    echo: list[dict[str, Any]],
    echo_cpu: dict[str, Any],
    game: list[dict[str, Any]],
    game_cpu: dict[str, Any],
) -> dict[str, Any]:
    latencies = [x for part in game for x in part["latencies"]]
    game_ms = summary_ms(latencies)
    kinds = [k for part in game for k in part["kinds"]]
    by_kind = {
        kind: summary_ms([x for x, k in zip(latencies, kinds, strict=True) if k == kind])
        for kind in ("bury", "play", "hand_end")
    }
    alone_ms = summary_ms([x for part in echo for x in part["latencies"]])
    probes_ms = summary_ms([x for part in game for x in part["probe_latencies"]])
    errors = [e for part in echo + game for e in part["errors"]]
    firsts = [p["first_at"] for p in game if p["first_at"] is not None]
    lasts = [p["last_at"] for p in game if p["last_at"] is not None]
    span = max(lasts) - min(firsts) if firsts and lasts else None
    actions = len(latencies)
    ratio_probes = ratio(game_ms, probes_ms)
    samples = {}
    if options.keep_samples:
        samples = {
            "samples_s": {
                "game": latencies,
                "echo_alone": [x for part in echo for x in part["latencies"]],
                "echo_concurrent": [x for part in game for x in part["probe_latencies"]],
            }
        }
    return {
        "tables": options.tables,
        "sockets": 4 * options.tables,
        "probes": options.tables,
        "hands": options.hands,
        "hands_finished": sum(p["hands_finished"] for p in game),
        "think_s": options.think,
        "jitter": options.jitter,
        "bids": options.bids,
        "actions": actions,
        "offered_actions_per_s": round(options.tables / options.think, 1),
        "actions_per_s": round(actions / span, 1) if span else None,
        "game_ms": game_ms,
        "game_ms_by_kind": by_kind,
        "echo_alone_ms": alone_ms,
        "echo_concurrent_ms": probes_ms,
        "ratio_vs_concurrent": ratio_probes,
        "ratio_vs_alone": ratio(game_ms, alone_ms),
        "goal": f"p99(game) <= {GOAL_RATIO:g} x p99(echo concurrent), 0 errors",
        "goal_met": bool(ratio_probes is not None and ratio_probes <= GOAL_RATIO and not errors),
        "errors": len(errors),
        "error_samples": errors[:10],
        "bid_races": sum(p["bid_races"] for p in game),
        "client_procs": max(1, options.procs) if options.procs else 0,
        "client_nice": options.client_nice,
        "client": client_cpu(game),
        "client_echo_phase": client_cpu(echo),
        "cpu_game": game_cpu,
        "server_cpu_ms_per_action": cpu_per_action(game_cpu, actions),
        "cpu_echo_alone": echo_cpu,
        **samples,
    }


def cpu_per_action(cpu: dict[str, Any], actions: int) -> dict[str, float]:
    """Milliseconds of CPU per game action, for each server process (the whole game phase,
    hand starts and pings included, divided by the bury and play actions)."""
    if not actions:
        return {}
    return {
        name: round(percent / 100 * cpu["wall_s"] * 1000 / actions, 2)
        for name, percent in cpu["server_percent_of_one_core"].items()
    }


def client_cpu(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "cpu_percent_of_one_core": [
            round(100 * p["client_cpu_s"] / p["client_wall_s"], 1) for p in parts
        ],
        "loop_lag_ms": [p["loop_lag_ms"] for p in parts],
    }


def print_table(result: dict[str, Any]) -> None:
    rows = [
        ("game: action → 4 views", result["game_ms"]),
        ("  bury", result["game_ms_by_kind"]["bury"]),
        ("  play", result["game_ms_by_kind"]["play"]),
        ("  play that ends a hand", result["game_ms_by_kind"]["hand_end"]),
        ("echo alone", result["echo_alone_ms"]),
        ("echo during the game", result["echo_concurrent_ms"]),
    ]
    print(f"\n{'latency (ms)':<26}{'n':>8}{'p50':>9}{'p95':>9}{'p99':>9}{'max':>9}")
    for name, row in rows:
        cells = "".join(f"{'-' if row[k] is None else row[k]:>9}" for k in ("p50", "p95", "p99"))
        print(f"{name:<26}{row['n']:>8}{cells}{'-' if row['max'] is None else row['max']:>9}")
    print(
        f"\ntables {result['tables']}, sockets {result['sockets']} (+{result['probes']} probes),"
        f" hands {result['hands_finished']}/{result['tables'] * result['hands']},"
        f" actions {result['actions']}, offered {result['offered_actions_per_s']}/s,"
        f" achieved {result['actions_per_s']}/s"
    )
    print(
        f"p99 ratio: {result['ratio_vs_concurrent']} vs echo during the game (the goal, ≤ 3),"
        f" {result['ratio_vs_alone']} vs echo alone; errors {result['errors']}"
        f" (bid races apart: {result['bid_races']}); goal met: {result['goal_met']}"
    )
    cpu = result["cpu_game"]
    print(
        f"CPU during the game (% of one core, {cpu['cores']} cores): server"
        f" {cpu['server_percent_of_one_core']}, clients"
        f" {result['client']['cpu_percent_of_one_core']}, whole machine"
        f" {cpu['machine_busy_percent_of_one_core']}; client loop lag"
        f" {result['client']['loop_lag_ms']}"
    )
    print(f"server CPU ms per action: {result['server_cpu_ms_per_action']}")
    for line in result["error_samples"]:
        print("  error:", line)


def parse(argv: list[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--tables", type=int, default=Options.tables)
    add("--hands", type=int, default=Options.hands)
    add("--think", type=float, default=Options.think, help="mean seconds before each action")
    add("--jitter", type=float, default=Options.jitter, help="think × (1 ± jitter), uniform")
    add("--echo-seconds", type=float, default=Options.echo_seconds, help="echo-alone phase")
    add("--procs", type=int, default=Options.procs, help="client processes (0: this one)")
    add("--daphnes", type=int, default=Options.daphnes, help="daphne processes of the site")
    add("--client-nice", type=int, default=Options.client_nice, help="nice of client processes")
    add("--bids", action="store_true", help="clients bid too (refused bids: bid races)")
    add("--ramp", type=float, default=Options.ramp, help="seconds over which tables start")
    add("--hand-budget", type=float, default=Options.hand_budget, help="seconds per hand at most")
    add("--play-seconds", type=int, default=Options.play_seconds)
    add("--deal-interval-ms", type=int, default=Options.deal_interval_ms)
    add("--bid-window-seconds", type=int, default=Options.bid_window_seconds)
    add("--url", help="a running site (its DATABASE_URL, REDIS_URL, SECRET_KEY in this shell)")
    add("--base", help="folder of the LiveSite (default: a new temporary one)")
    add("--site-env", action="append", default=[], help="NAME=VALUE for the site's processes")
    add("--seed", type=int, default=Options.seed)
    args = parser.parse_args(argv)
    return Options(
        tables=args.tables,
        hands=args.hands,
        think=args.think,
        jitter=args.jitter,
        echo_seconds=args.echo_seconds,
        procs=args.procs,
        daphnes=args.daphnes,
        client_nice=args.client_nice,
        bids=args.bids,
        ramp=args.ramp,
        hand_budget=args.hand_budget,
        play_seconds=args.play_seconds,
        deal_interval_ms=args.deal_interval_ms,
        bid_window_seconds=args.bid_window_seconds,
        url=args.url,
        base=args.base,
        site_env=dict(item.split("=", 1) for item in args.site_env),
        seed=args.seed,
    )


def main(argv: list[str] | None = None) -> None:
    options = parse(argv)
    # A SIGTERM (``timeout``, a killed shell) stops the site's processes too, not only this one.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    result = run_bench(options, log=lambda line: print(line, flush=True))
    print_table(result)
    print(json.dumps({"bench": "ws_load", **result, "options": asdict(options)}))


if __name__ == "__main__":
    main()
