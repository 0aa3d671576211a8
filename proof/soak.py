"""The soak: many tables of bot players for a long while, with daphnes, the Celery worker and
Redis killed at random (seeded) times and bad clients throughout (docs/proof/SOAK.md; the bench
is ``bench/soak.py``, the short version ``tests/proof/test_soak.py``).

Pieces, each usable alone:

- ``SoakSeat``: a ``DrillSeat`` that plays hand after hand until told to stop, then finishes
  the hand in progress; it keeps only its last frames (an hour of views would fill memory);
- ``schedule``: the faults' times, spread over a window;
- ``Sampler``: the memory (PSS) of each long-lived process of the site, with its pid, and the
  site's queues and connections (``site_counts``);
- ``memory_verdict``: the end's memory against the level 10 minutes in (or 10 minutes after a
  process's last restart);
- the bad clients (``bad_clients``), run in a process of their own (``python -m proof.soak``)
  so that a flood cannot starve the seats' event loop;
- ``run_soak``: all of it against a ``LiveSite``; ``broken``: the invariants.

Functions named ``*_inside`` run inside the site (``LiveSite.call``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from websockets.exceptions import ConnectionClosed

from proof import drills
from proof.drill_seat import DrillSeat, audit
from proof.livesite import ROOT, LiveSite

# Deadlines short enough that a stalled turn fires within a fault's reach (the worker stays
# down longer than this), long enough that a seat playing normally is almost never overtaken.
SOAK_TIMINGS = {
    "play_seconds": 10,
    "bury_seconds": 10,
    "bid_window_seconds": 1,
    "deal_interval_ms": 0,
}
DEADLINE_S = 10.0
EARLY_SLACK_S = 1.0  # an automatic move sooner than this before its deadline is early
PING_EVERY_S = 3.0  # the drills' 1 s × 400 sockets is 400 pings a second for nothing
FRAMES_KEPT = 32
LINGER_S = 10.0  # after stopping: how long a seat whose hand ended waits for a next one
BASELINE_MINUTE = 10.0
MEMORY_GROWTH = 0.10
STOP_WAIT_S = 600.0
RECEIVE_S = 60.0
SETTLE_WAIT_S = 120.0
LOG_CHUNK = 400  # hands per database read of the logs


# --- the seat --------------------------------------------------------------------------------


@dataclass
class SoakSeat(DrillSeat):
    """A seat that plays hand after hand until ``stopping``, then finishes its hand."""

    stopping: bool = False
    linger_s: float = LINGER_S
    changed_at: float = 0.0
    failure: str | None = None

    async def run(self) -> None:
        try:
            await self._play()
        except Exception as error:  # the verdict names the seat and what broke it
            self.failure = f"{self.name}: {type(error).__name__}: {error}"
        with contextlib.suppress(Exception):
            await self.close()

    async def _play(self) -> None:
        await self._reconnect(None)
        await self._ready_if_wanted()
        while not self.done():
            try:
                await self._act_if_my_turn()
                await self._receive(2.0 if self.stopping else RECEIVE_S)
            except TimeoutError:
                continue
            except ConnectionClosed as closed:
                if not await self._dropped(closed):
                    return

    def done(self) -> bool:
        if not self.stopping:
            return False
        between_hands = self.view is None or self.view.get("phase") == "finished"
        return between_hands and time.monotonic() - self.changed_at >= self.linger_s

    async def _ready_if_wanted(self) -> None:
        if not self.stopping:
            await super()._ready_if_wanted()

    async def _receive(self, timeout: float, want: str | None = None) -> dict[str, Any]:
        frame = await super()._receive(timeout, want)
        if len(self.frames) > 2 * FRAMES_KEPT:
            del self.frames[:-FRAMES_KEPT]
        return frame

    def _take_view(self, hand_id: int, seq: int, view: dict[str, Any]) -> None:
        self.changed_at = time.monotonic()
        super()._take_view(hand_id, seq, view)


@dataclass
class SoakTable:
    id: int
    seats: list[SoakSeat]


def soak_tables(site: LiveSite, count: int, *, think: float) -> list[SoakTable]:
    """``count`` new casual tables; seat n of each talks to daphne n mod (number of daphnes)."""
    made = drills.make_tables(site, count, ranked=False, **SOAK_TIMINGS)
    daphnes = len(site.http_ports)
    tables = []
    for table in made:
        path = f"/ws/table/{table['id']}/"
        seats = [
            SoakSeat(
                site.ws_url(path, index % daphnes),
                person["session"],
                site.origin,
                name=person["username"],
                think=think,
                ping_every=PING_EVERY_S,
                goal=10**9,
            )
            for index, person in enumerate(table["players"])
        ]
        tables.append(SoakTable(table["id"], seats))
    return tables


# --- the faults' times -----------------------------------------------------------------------


def schedule(
    rng: random.Random, kinds: Iterable[str], each: int, start: float, end: float
) -> list[tuple[float, str]]:
    """``each`` times of every kind in [start, end] seconds: the window cut in ``each`` equal
    slots per kind, a random time in each, so every kind is spread over the whole window; the
    kinds' events interleave, and no two come within a tenth of a slot of each other."""
    slot = (end - start) / max(each, 1)
    events: list[tuple[float, str]] = []
    for kind in kinds:
        for number in range(each):
            events.append((start + slot * (number + rng.uniform(0.05, 0.95)), kind))
    events.sort()
    spaced: list[tuple[float, str]] = []
    for at, kind in events:
        if spaced and at - spaced[-1][0] < slot / 10:
            at = spaced[-1][0] + slot / 10
        spaced.append((at, kind))
    return spaced


def fault_window(seconds: float) -> tuple[float, float]:
    """When the faults come: from 3 minutes in (a tenth of a short run) to 20 minutes before
    the end (15 % of a run under 40 minutes), so that a process restarted by the last fault
    still has its level 10 minutes after the restart sampled before the end."""
    if seconds >= 40 * 60:
        return 3 * 60.0, seconds - 20 * 60.0
    return min(3 * 60.0, 0.1 * seconds), 0.85 * seconds


# --- what the site holds: memory, queues, connections ----------------------------------------


def tree_pids(root: int) -> list[int]:
    """``root`` and every process descending from it (a worker's pool, PostgreSQL's backends)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def pss_kb(pid: int) -> int:
    """The proportional set size of one process (shared pages divided among their sharers, so
    PostgreSQL's backends sum to what they really hold) less its shared memory (PostgreSQL's
    shared buffers: a cache that fills as the run adds data, not a leak); its RSS where PSS is
    unreadable."""
    try:
        fields = dict(
            line.split(":", 1)
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
        )
        return int(fields["Pss"].split()[0]) - int(fields.get("Pss_Shmem", "0 kB").split()[0])
    except (OSError, KeyError, ValueError):
        pass
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except OSError:
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def long_lived(site: LiveSite) -> dict[str, int]:
    """The pid of each long-lived process of the site."""
    pids = {name: process.pid for name, process in site.processes.items()}
    for name, server in (("redis", site.redis), ("postgres", site.postgres)):
        if server.process is not None:
            pids[name] = server.process.pid
    return pids


def memory(site: LiveSite) -> tuple[dict[str, int], dict[str, int]]:
    pids = long_lived(site)
    return {name: sum(pss_kb(p) for p in tree_pids(pid)) for name, pid in pids.items()}, pids


def _tcp_rows() -> list[tuple[int, int, int]]:
    """(local port, remote port, socket inode) of every established TCP connection."""
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "01":
                    local = int(fields[1].rsplit(":", 1)[1], 16)
                    remote = int(fields[2].rsplit(":", 1)[1], 16)
                    rows.append((local, remote, int(fields[9])))
    return rows


def established(port: int) -> int:
    """TCP connections established to ``port`` on this machine (the sockets a daphne holds)."""
    return sum(local == port for local, _remote, _inode in _tcp_rows())


def _socket_inodes(pid: int) -> set[int]:
    found = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    found.add(int(target[8:-1]))
    return found


def connections_to(site: LiveSite, port: int) -> dict[str, int]:
    """For each process of the site (daphnes, worker, beat): its connections to ``port``."""
    inodes = {inode for _local, remote, inode in _tcp_rows() if remote == port}
    counts = {}
    for name, process in site.processes.items():
        held = set().union(*(_socket_inodes(pid) for pid in tree_pids(process.pid)))
        counts[name] = len(held & inodes)
    return counts


def is_liveness_key(prefix: str, key: str) -> bool:
    """A key of the processes' liveness (games.groupwatch): an alive key, the registry, the
    sweep's once-a-minute mark."""
    return key.startswith(f"{prefix}:alive:") or key in (
        f"{prefix}:processes",
        f"{prefix}:janitor",
    )


def site_counts(site: LiveSite, held_before: float = 0.0) -> dict[str, int]:
    """Queues and connections: the channel layer's keys in Redis, the Celery queue and its
    unacknowledged tasks, Redis's clients, PostgreSQL's sessions on the site's database, and
    the sockets open at each daphne. The tasks delivered before ``held_before`` (a wall-clock
    time: when the worker was last killed) are counted apart: the killed worker held them,
    and kombu gives them out again only after its visibility timeout, an hour (FAULTS.md)."""
    import psycopg

    counts: dict[str, int] = {}
    try:
        client = redis.Redis.from_url(site.redis.url, socket_timeout=5)
        prefix = site.env["CHANNELS_PREFIX"]
        keys = [k.decode() for k in client.scan_iter(f"{prefix}*", count=1000)]
        counts["canaries"] = sum(k.startswith(f"{prefix}:canary:") for k in keys)
        # The rate limits' windows share the prefix and lapse by themselves (accounts.ratelimits).
        counts["limit_keys"] = sum(k.startswith(f"{prefix}:limits:") for k in keys)
        # The processes saying they are alive (games.groupwatch): each key lapses by itself.
        counts["liveness_keys"] = sum(is_liveness_key(prefix, k) for k in keys)
        counts["channel_keys"] = (
            len(keys) - counts["canaries"] - counts["limit_keys"] - counts["liveness_keys"]
        )
        counts["celery_queue"] = int(client.llen(site.env["CELERY_QUEUE"]))
        held = int(client.zcount("unacked_index", "-inf", f"({held_before}"))
        counts["celery_unacked"] = int(client.hlen("unacked")) - held
        counts["celery_held_by_killed_worker"] = held
        counts["redis_clients"] = int(client.info("clients")["connected_clients"]) - 1
        client.close()
    except redis.RedisError:
        counts["redis_down"] = 1
    with (
        contextlib.suppress(psycopg.Error),
        psycopg.connect(
            site.postgres.url.replace("postgres://", "postgresql://"), connect_timeout=5
        ) as conn,
    ):
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid()"
        ).fetchone()
        counts["postgres_sessions"] = int(row[0]) if row else -1
    for index, port in enumerate(site.http_ports):
        counts[f"sockets_{site.asgi_name(index)}"] = established(port)
    for server, port in (("redis", site.redis.port), ("postgres", site.postgres.port)):
        for name, count in connections_to(site, port).items():
            counts[f"{server}_from_{name}"] = count
    return counts


@dataclass
class Sampler:
    """A sample of memory and counts every ``every`` seconds (``t`` in minutes since start)."""

    site: LiveSite
    every: float
    started: float = field(default_factory=time.monotonic)
    samples: list[dict[str, Any]] = field(default_factory=list)

    def take(self, label: str = "") -> dict[str, Any]:
        kb, pids = memory(self.site)
        sample = {
            "t": round((time.monotonic() - self.started) / 60, 2),
            "pss_kb": kb,
            "pid": pids,
            "counts": site_counts(self.site),
            "clients_kb": pss_kb(os.getpid()),
        }
        if label:
            sample["label"] = label
        self.samples.append(sample)
        return sample

    async def run(self, until: asyncio.Event) -> None:
        while not until.is_set():
            await asyncio.to_thread(self.take)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(until.wait(), self.every)


def memory_verdict(
    samples: list[dict[str, Any]], end: dict[str, Any], *, growth: float = MEMORY_GROWTH
) -> dict[str, Any]:
    """For each process: its level at minute 10, or 10 minutes after its last start (a pid
    not seen in the sample before), against the ``end`` sample. A process with no such
    sample before the end is excluded, with why."""
    verdict: dict[str, Any] = {}
    for name, end_kb in end["pss_kb"].items():
        started_at = 0.0
        previous = None
        for sample in [*samples, end]:
            pid = sample["pid"].get(name)
            if previous is not None and pid != previous:
                started_at = sample["t"]
            previous = pid
        due = max(BASELINE_MINUTE, started_at + BASELINE_MINUTE)
        base = next(
            (s for s in samples if s["t"] >= due and s["pid"].get(name) == end["pid"][name]), None
        )
        if base is None or base["t"] >= end["t"]:
            verdict[name] = {
                "excluded": f"last started at minute {started_at}: no sample 10 minutes later"
            }
            continue
        ratio = end_kb / max(base["pss_kb"][name], 1)
        verdict[name] = {
            "base_minute": base["t"],
            "base_kb": base["pss_kb"][name],
            "end_kb": end_kb,
            "ratio": round(ratio, 3),
            "ok": ratio <= 1 + growth,
        }
    return verdict


POOLED = ("redis_", "postgres_")  # connection counts: pools keep what they opened


def allowed_counts(
    base: dict[str, int], samples: list[dict[str, Any]], daphne_kills: int, *, pools: bool
) -> dict[str, int]:
    """What each count may be once the clients have gone: the queues and the sockets their
    level before the clients came (the Celery queue 2 more: the sweeps beat just sent); the
    canaries one per daphne, plus one per daphne killed (a dead process's canary lapses after
    an hour, ``games.groupwatch.CANARY_TTL_S``). The connections to Redis and PostgreSQL are
    held by pools that keep what they opened (redis-py's, Django's per thread), so at rest they
    stand at the pools' high-water mark, not at the cold count: with ``pools`` they are judged
    like the memory, at most 10 % (and one) over the most sampled in the first 10 minutes;
    without (a short run, whose ends and bursts are its whole length), reported only."""
    early = [s["counts"] for s in samples if s["t"] <= BASELINE_MINUTE] or [base]
    allowed = {}
    for key, value in base.items():
        if key.startswith(POOLED):
            if pools:
                working = max(value, *(counts.get(key, 0) for counts in early))
                allowed[key] = int(working * (1 + MEMORY_GROWTH)) + 1
        elif key in ("limit_keys", "liveness_keys", "celery_held_by_killed_worker"):
            continue  # reported, not judged: each lapses (a window, the visibility timeout)
        elif key == "canaries":
            allowed[key] = value + daphne_kills + sum(k.startswith("sockets_") for k in base)
        else:
            allowed[key] = value + (2 if key == "celery_queue" else 0)
    return allowed


def above(allowed: dict[str, int], now: dict[str, int]) -> dict[str, tuple[int, int]]:
    """The counts above what they may be: (allowed, found)."""
    return {k: (allowed[k], v) for k, v in now.items() if k in allowed and v > allowed[k]}


def channel_keys_left(site: LiveSite, most: int = 10) -> list[str]:
    """The channel layer's keys still in Redis (a group with the channels still in it, and
    how many seconds ago each joined)."""
    client = redis.Redis.from_url(site.redis.url, socket_timeout=5)
    prefix = site.env["CHANNELS_PREFIX"]
    keys = sorted(k.decode() for k in client.scan_iter(f"{prefix}*", count=1000))
    found = []
    channel_keys = [
        k for k in keys if not k.startswith(f"{prefix}:canary:") and not is_liveness_key(prefix, k)
    ]
    for key in channel_keys[:most]:
        if ":group:" in key:
            members: list[tuple[bytes, float]] = client.zrange(key, 0, 4, withscores=True)  # type: ignore[assignment]
            ages = [f"{m.decode()} {time.time() - at:.0f} s ago" for m, at in members]
            key += " " + ", ".join(ages)
        found.append(key)
    client.close()
    return found


# --- the bad clients (in a process of their own) ---------------------------------------------


@dataclass
class BadPlan:
    """What the bad clients do: ``count`` clients taking the kinds in turn (flood, garbage,
    storm), at the tables' ``urls``, a flood or a storm for ``burst`` seconds every ``period``."""

    urls: list[str]
    origin: str
    sessions: list[str]
    count: int
    seed: int
    period: float = 60.0
    burst: float = 5.0
    garbage_per_s: float = 5.0
    kinds: tuple[str, ...] = ("flood", "garbage", "storm")


async def _flooder(plan: BadPlan, rng: random.Random, stop: asyncio.Event) -> dict[str, Any]:
    from proof.flood import flood

    totals: Counter[str] = Counter()
    codes: Counter[int] = Counter()
    while not await _rest(stop, rng.uniform(0.5, 1.0) * plan.period):
        try:
            report = await flood(
                rng.choice(plan.urls), plan.origin, plan.burst, session=rng.choice(plan.sessions)
            )
        except (OSError, asyncio.IncompleteReadError):  # the server went away mid-handshake
            totals["cut_short"] += 1
            continue
        totals.update(frames=report.frames_written, connections=report.connections)
        totals.update(refused=report.refused, bursts=1)
        codes.update(report.close_codes)
    return {**totals, "close_codes": dict(codes)}


async def _garbage(plan: BadPlan, rng: random.Random, stop: asyncio.Event) -> dict[str, Any]:
    from proof.botclient import open_socket
    from proof.fuzz_messages import Generator, Snapshot

    generator = Generator(rng)
    totals: Counter[str] = Counter()
    codes: Counter[int] = Counter()
    while not stop.is_set():
        try:
            socket = await open_socket(
                rng.choice(plan.urls), plan.origin, rng.choice(plan.sessions), open_timeout=10
            )
        except Exception:
            totals["refused"] += 1
            await _rest(stop, 1.0)
            continue
        totals["connections"] += 1
        drain = asyncio.ensure_future(_drain(socket))
        try:
            while not stop.is_set():
                await _send_raw(socket, generator.for_role("spectator", Snapshot()).frame)
                totals["frames"] += 1
                await asyncio.sleep(rng.expovariate(plan.garbage_per_s))
        except ConnectionClosed as closed:
            codes[closed.rcvd.code if closed.rcvd is not None else 1006] += 1
        drain.cancel()
        with contextlib.suppress(Exception):
            await socket.close()
        await _rest(stop, 0.5)
    return {**totals, "close_codes": dict(codes)}


async def _send_raw(socket: Any, frame: str | bytes) -> None:
    """A text frame as the fuzzer made it, lone surrogates and all (invalid UTF-8 then)."""
    if isinstance(frame, str):
        await socket.send(frame.encode("utf-8", "surrogatepass"), text=True)
    else:
        await socket.send(frame)


async def _drain(socket: Any) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for _message in socket:
            pass


async def _storm(plan: BadPlan, rng: random.Random, stop: asyncio.Event) -> dict[str, Any]:
    """Sockets opened and closed as fast as the server takes them, anonymous, in bursts; one
    in three dropped without a close (as a browser tab killed)."""
    from proof.botclient import open_socket

    totals: Counter[str] = Counter()
    while not await _rest(stop, rng.uniform(0.5, 1.0) * plan.period):
        end = time.monotonic() + plan.burst
        totals["bursts"] += 1
        while time.monotonic() < end and not stop.is_set():
            try:
                socket = await open_socket(rng.choice(plan.urls), plan.origin, None, open_timeout=5)
            except Exception:
                totals["refused"] += 1
                await asyncio.sleep(0.05)
                continue
            totals["opened"] += 1
            if rng.random() < 1 / 3:
                socket.transport.abort()
                totals["aborted"] += 1
            else:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(socket.close(), 5)
    return dict(totals)


async def _rest(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep ``seconds`` unless told to stop; whether told to stop."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
    return stop.is_set()


async def bad_clients(plan: BadPlan) -> dict[str, Any]:
    """Run the bad clients until SIGTERM; what each did."""
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    makers = {"flood": _flooder, "garbage": _garbage, "storm": _storm}
    kinds = [plan.kinds[n % len(plan.kinds)] for n in range(plan.count)]
    runs = [
        makers[kind](plan, random.Random(f"{plan.seed}-{n}"), stop) for n, kind in enumerate(kinds)
    ]
    results = await asyncio.gather(*runs, return_exceptions=True)
    return {
        f"{kind}{n}": r if isinstance(r, dict) else {"error": repr(r)}
        for n, (kind, r) in enumerate(zip(kinds, results, strict=True))
    }


def start_bad_clients(plan: BadPlan, base: Path) -> subprocess.Popen[str]:
    plan_path = base / "bad-clients.json"
    plan_path.write_text(json.dumps(plan.__dict__))
    with open(base / "bad-clients.log", "ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "proof.soak", str(plan_path)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )


def stop_bad_clients(process: subprocess.Popen[str]) -> dict[str, Any]:
    process.send_signal(signal.SIGTERM)
    try:
        out, _err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        return {"error": "did not stop within 60 s"}
    try:
        found: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": f"no report (exit {process.returncode})"}
    return found


# --- inside the site -------------------------------------------------------------------------


def table_reports_inside(*, table_ids: list[int]) -> dict[str, Any]:
    from proof.livesetup import table_report

    return {str(table_id): table_report(table_id=table_id) for table_id in table_ids}


def hands_inside(*, table_ids: list[int]) -> dict[str, int]:
    """Every hand at these tables: its id and whether it is still being played."""
    from games.models import Hand

    hands = Hand.objects.filter(match__table_id__in=table_ids)
    return {str(pk): status == "playing" for pk, status in hands.values_list("pk", "status")}


# --- the run ---------------------------------------------------------------------------------


@dataclass
class SoakOptions:
    tables: int = 100
    minutes: float = 60.0
    kills_each: int = 3
    bad_clients: int = 3
    seed: int = 1
    think: float = 1.0
    sample_every_s: float = 60.0
    ramp_s: float = 30.0
    worker_down_s: tuple[float, float] = (DEADLINE_S + 3, DEADLINE_S + 12)
    stall_every_s: float = 20.0
    bad_period_s: float = 60.0
    bad_burst_s: float = 5.0
    bad_kinds: tuple[str, ...] = ("flood", "garbage", "storm")
    judge_growth: bool = True
    settle_s: float = SETTLE_WAIT_S
    linger_s: float = LINGER_S


@dataclass
class Soak:
    site: LiveSite
    options: SoakOptions
    tables: list[SoakTable] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    rng: random.Random = field(default_factory=random.Random)
    started: float = 0.0
    worker_killed_at: float = 0.0  # wall-clock time (kombu's unacked_index scores)

    @property
    def seats(self) -> list[SoakSeat]:
        return [seat for table in self.tables for seat in table.seats]

    def minute(self) -> float:
        return round((time.monotonic() - self.started) / 60, 2)

    async def stall_some(self, count: int) -> None:
        """``count`` random seats let their next turn of play pass (a deadline to fire)."""
        for seat in self.rng.sample(self.seats, min(count, len(self.seats))):
            seat.stall_next = True

    async def fault(self, kind: str, number: int) -> None:
        site, at = self.site, self.minute()
        started = time.monotonic()
        record: dict[str, Any] = {"kind": kind, "minute": at}
        if kind == "daphne":
            name = site.asgi_name(number % len(site.http_ports))
            record["process"] = name
            await asyncio.to_thread(site.kill, name)
            await drills.restart(site, name)
        elif kind == "worker":
            await self.stall_some(max(2, len(self.tables) // 10))
            await asyncio.sleep(3.0)  # some stalls start their clocks before the kill
            await asyncio.to_thread(site.kill, "worker")
            self.worker_killed_at = time.time()
            down = self.rng.uniform(*self.options.worker_down_s)
            record["down_s"] = round(down, 1)
            await asyncio.sleep(down)
            await drills.restart(site, "worker")
        else:
            await self.stall_some(max(2, len(self.tables) // 10))
            await asyncio.sleep(3.0)
            await asyncio.to_thread(site.restart_redis, kill=True)
        record["restart_s"] = round(time.monotonic() - started, 2)
        self.faults.append(record)

    async def faults_on_schedule(
        self, events: list[tuple[float, str]], stop: asyncio.Event
    ) -> None:
        numbers: Counter[str] = Counter()
        for at, kind in events:
            wait = self.started + at - time.monotonic()
            if await _rest(stop, max(0.0, wait)):
                return
            try:
                await self.fault(kind, numbers[kind])
            except Exception as error:
                self.faults.append({"kind": kind, "error": f"{type(error).__name__}: {error}"})
            numbers[kind] += 1

    async def stalls(self, stop: asyncio.Event) -> None:
        while not await _rest(stop, self.rng.expovariate(1 / self.options.stall_every_s)):
            await self.stall_some(1)


async def play(soak: Soak, ramp_s: float) -> list[asyncio.Task[None]]:
    """Every seat playing (again), the tables started over ``ramp_s``: not all deals at once."""
    loop = asyncio.get_running_loop()
    runs: list[asyncio.Task[None]] = []
    for table in soak.tables:
        for seat in table.seats:
            seat.stopping = False
            runs.append(loop.create_task(seat.run()))
        await asyncio.sleep(ramp_s / max(len(soak.tables), 1))
    return runs


async def stop_seats(soak: Soak, runs: list[asyncio.Task[None]]) -> tuple[int, float]:
    """Every seat finishes its hand and closes; how many had not within ``STOP_WAIT_S``, and
    how long it took."""
    started = time.monotonic()
    for seat in soak.seats:
        seat.stall_next = False
        seat.linger_s = soak.options.linger_s
        seat.stopping = True
    _done, pending = await asyncio.wait(runs, timeout=STOP_WAIT_S)
    for run in pending:
        run.cancel()
    return len(pending), round(time.monotonic() - started, 1)


async def run_soak(site: LiveSite, options: SoakOptions) -> dict[str, Any]:
    """The whole soak on a started ``site`` (two daphnes, supervised, worker log at INFO)."""
    soak = Soak(site, options, rng=random.Random(options.seed))
    seconds = options.minutes * 60
    soak.tables = await asyncio.to_thread(soak_tables, site, options.tables, think=options.think)
    bad_people = await asyncio.to_thread(
        site.call, "proof.livesetup.players", count=3, prefix=f"bad{uuid.uuid4().hex[:6]}_"
    )
    base = await asyncio.to_thread(site_counts, site)
    sampler = Sampler(site, options.sample_every_s)
    soak.started = sampler.started = time.monotonic()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    runs = await play(soak, options.ramp_s)
    bad = (
        start_bad_clients(bad_plan(site, soak, bad_people), site.base)
        if options.bad_clients
        else None
    )
    events = schedule(
        soak.rng, ("daphne", "worker", "redis"), options.kills_each, *fault_window(seconds)
    )
    background = [
        loop.create_task(sampler.run(stop)),
        loop.create_task(soak.faults_on_schedule(events, stop)),
        loop.create_task(soak.stalls(stop)),
    ]
    await _rest(stop, max(0.0, soak.started + seconds - time.monotonic()))
    end = await asyncio.to_thread(sampler.take, "end")
    stop.set()
    bad_report = await asyncio.to_thread(stop_bad_clients, bad) if bad else {}
    await asyncio.gather(*background)  # a fault under way completes
    still_playing, stop_s = await stop_seats(soak, runs)
    kills = sum(f["kind"] == "daphne" and "error" not in f for f in soak.faults)
    allowed = allowed_counts(base, sampler.samples, kills, pools=options.judge_growth)
    settled = await settle(site, soak, allowed)
    figures = await judge(site, soak)
    figures.update(
        tables=options.tables,
        minutes=options.minutes,
        seed=options.seed,
        think_s=options.think,
        faults=soak.faults,
        fault_counts=dict(Counter(f["kind"] for f in soak.faults if "error" not in f)),
        fault_errors=[f for f in soak.faults if "error" in f],
        restarted_by_supervisor=dict(site.restarts),
        supervisor_gave_up=site.gave_up,
        bad_clients=bad_report,
        seats_still_playing_at_stop=still_playing,
        stop_s=stop_s,
        seat_failures=[s.failure for s in soak.seats if s.failure][:10],
        base_counts=base,
        **settled,
        memory_samples=[{k: s[k] for k in ("t", "pss_kb")} for s in [*sampler.samples, end]],
        memory=memory_verdict(sampler.samples, end) if options.judge_growth else "not judged",
        clients_kb={"base": sampler.samples[0]["clients_kb"], "end": end["clients_kb"]},
        peak_counts=peaks(sampler.samples),
    )
    return figures


def peaks(samples: list[dict[str, Any]]) -> dict[str, int]:
    """The highest of each count over the samples taken under load."""
    found: dict[str, int] = {}
    for sample in samples:
        for key, value in sample["counts"].items():
            found[key] = max(found.get(key, value), value)
    return found


def bad_plan(site: LiveSite, soak: Soak, people: list[dict[str, Any]]) -> BadPlan:
    """The bad clients at the soak's tables (each table's URL on one daphne, in turn)."""
    daphnes = len(site.http_ports)
    return BadPlan(
        urls=[site.ws_url(f"/ws/table/{t.id}/", n % daphnes) for n, t in enumerate(soak.tables)],
        origin=site.origin,
        sessions=[person["session"] for person in people],
        count=soak.options.bad_clients,
        seed=soak.options.seed,
        period=soak.options.bad_period_s,
        burst=soak.options.bad_burst_s,
        kinds=soak.options.bad_kinds,
    )


async def settle(site: LiveSite, soak: Soak, allowed: dict[str, int]) -> dict[str, Any]:
    """Wait (up to ``settle_s``) for every hand to end and every count to come back to
    what it may be; what is still off then."""
    started = time.monotonic()
    table_ids = [t.id for t in soak.tables]
    while True:
        hands = await asyncio.to_thread(site.call, "proof.soak.hands_inside", table_ids=table_ids)
        counts = await asyncio.to_thread(site_counts, site, soak.worker_killed_at)
        off = above(allowed, counts)
        playing = sum(hands.values())
        if (not playing and not off) or time.monotonic() - started > soak.options.settle_s:
            break
        await asyncio.sleep(5.0)
    return {
        "settle_s": round(time.monotonic() - started, 1),
        "allowed_counts": allowed,
        "end_counts": counts,
        "counts_above_base": off,
        "channel_keys_left": await asyncio.to_thread(channel_keys_left, site),
    }


async def judge(site: LiveSite, soak: Soak) -> dict[str, Any]:
    """Every action sent judged against the logs, every stalled turn's deadline counted, every
    automatic move timed, every hand's settlement counted, in chunks of hands."""
    table_ids = [t.id for t in soak.tables]
    reports: dict[int, dict[str, Any]] = {}
    for chunk in chunks(table_ids, 25):
        found = await asyncio.to_thread(
            site.call, "proof.soak.table_reports_inside", table_ids=chunk
        )
        reports.update({int(k): v for k, v in found.items()})
    hand_list = sorted(
        int(h)
        for h in await asyncio.to_thread(site.call, "proof.soak.hands_inside", table_ids=table_ids)
    )
    seats = soak.seats
    pending = [(hand, seq, s.seat or 0) for s in seats for hand, seq in s.stalled]
    actions: Counter[str] = Counter()
    lost: list[str] = []
    fired: list[int] = []
    autos: Counter[str] = Counter()
    early: list[str] = []
    for chunk in chunks(hand_list, LOG_CHUNK):
        logs = await asyncio.to_thread(site.call, f"{drills.SETUP}.hand_logs", hand_ids=chunk)
        judged = audit(list[DrillSeat](seats), logs, hands=set(chunk))
        lost += judged.pop("lost_samples")
        actions.update(judged)
        mine = [p for p in pending if str(p[0]) in logs]
        fired += drills.fires(logs, mine)
        stalled = {(hand, seq) for hand, seq, _seat in mine}
        for hand, log in logs.items():
            timed = auto_moves(log["actions"], stalled, int(hand))
            autos.update(kind for kind, _text in timed)
            early += [text for kind, text in timed if kind == "early"]
    return {
        **drills.hands_summary(reports),
        "actions": {**actions, "lost_samples": lost[:5]},
        "stalled_turns": len(pending),
        "fires_per_stalled_turn": dict(Counter(fired)),
        "auto_moves": dict(autos),
        "early_auto_moves": early[:5],
        "takeovers": sum(drills.takeovers(r) for r in reports.values()),
        "sockets_left_open": drills.open_sockets(reports),
        "seat_drops": sum(len(s.drops) for s in seats),
        "close_codes": dict(Counter(d.code or 0 for s in seats for d in s.drops)),
        "resume_s": drills.timing(drills.resume_times(list[DrillSeat](seats))),
    }


def auto_moves(
    actions: list[dict[str, Any]], stalled: set[tuple[int, int]], hand: int
) -> list[tuple[str, str]]:
    """Each automatic move of a hand: ``stalled`` (a turn let pass on purpose), ``overtaken``
    (a seat slower than its deadline), or ``early`` (sooner than its deadline after the move
    before: a deadline fired twice, or the bot playing a seat)."""
    found = []
    for before, action in itertools.pairwise(actions):
        if not action["auto"]:
            continue
        if (hand, action["seq"]) in stalled:
            found.append(("stalled", ""))
        elif action["at"] - before["at"] >= DEADLINE_S - EARLY_SLACK_S:
            found.append(("overtaken", ""))
        else:
            gap = action["at"] - before["at"]
            found.append(
                ("early", f"hand {hand} #{action['seq']} {action['text']} after {gap:.2f} s")
            )
    return found


def chunks(items: list[int], size: int) -> list[list[int]]:
    return [items[n : n + size] for n in range(0, len(items), size)]


def broken(figures: dict[str, Any], kills_each: int) -> list[str]:
    """The soak's invariants, as readable failures."""
    failures = []
    check = figures.get("ladder_check", "ok")
    if not str(check).startswith("ok"):
        failures.append(f"ladder_check: {check}")
    if figures["actions"].get("lost", 0):
        failures.append(f"acknowledged actions lost: {figures['actions']['lost_samples']}")
    if set(figures["fires_per_stalled_turn"]) - {1}:
        failures.append(
            f"a stalled turn's deadline fired other than once: {figures['fires_per_stalled_turn']}"
        )
    if figures["early_auto_moves"]:
        failures.append(f"automatic moves before their deadline: {figures['early_auto_moves']}")
    if figures["hands_settled_once"] != figures["hands_played"]:
        failures.append("a finished hand not settled exactly once")
    if figures["hands_unfinished"]:
        failures.append(f"{figures['hands_unfinished']} hands left unfinished")
    if figures["takeovers"]:
        failures.append(f"the bot took {figures['takeovers']} seats whose players were there")
    if figures["seat_failures"] or figures["seats_still_playing_at_stop"]:
        failures.append(f"seats failed or did not stop: {figures['seat_failures']}")
    if figures["sockets_left_open"]:
        failures.append(f"{figures['sockets_left_open']} socket rows left")
    for kind in ("daphne", "worker", "redis"):
        if figures["fault_counts"].get(kind, 0) < kills_each:
            failures.append(
                f"{kind}: {figures['fault_counts'].get(kind, 0)} of {kills_each} faults done"
            )
    if figures["fault_errors"]:
        failures.append(f"faults failed: {figures['fault_errors']}")
    if figures["supervisor_gave_up"]:
        failures.append(f"the supervisor gave up on {figures['supervisor_gave_up']}")
    if figures["counts_above_base"]:
        failures.append(
            f"counts above their base after the clients stopped: {figures['counts_above_base']}"
        )
    if isinstance(figures["memory"], dict):
        grown = [n for n, m in figures["memory"].items() if m.get("ok") is False]
        if grown:
            failures.append(f"memory grew more than 10 %: {grown}")
    bad = figures.get("bad_clients", {})
    if "error" in bad or any("error" in v for v in bad.values() if isinstance(v, dict)):
        failures.append(f"a bad client failed: {bad}")
    return failures


def main(plan_path: str) -> None:
    """The bad clients' process: the plan's JSON in, one JSON line of what they did out."""
    given = json.loads(Path(plan_path).read_text())
    plan = BadPlan(**{**given, "kinds": tuple(given["kinds"])})
    print(json.dumps(asyncio.run(bad_clients(plan))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
