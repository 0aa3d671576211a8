"""CPU accounting of a bench: this process's CPU time and event-loop lag (``LoopMeter``), and
the CPU of named server processes, each with its children, and of the whole machine
(``CpuMeter``)."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import gc
import os
import resource
import threading
import time
from typing import Any

import psutil

from proof.stats import percentile, rounded

LAG_TICK = 0.05


class LoopMeter:
    """This process's CPU time and the lag of its event loop (how late a timer of
    ``LAG_TICK`` seconds fires) while the block runs, and its garbage collections. Entered
    inside a running loop. ``collect=False``: the collector is off while the block runs (what
    exists is frozen first), so the client's own pauses do not count as the server's latency;
    a run of some minutes leaves little cyclic garbage, collected when the block ends."""

    def __init__(self, *, collect: bool = True) -> None:
        self.collect = collect

    def __enter__(self) -> LoopMeter:
        self.lags: list[float] = []
        self.gc_pauses: list[float] = []  # each garbage collection's length, seconds
        self._gc_began = 0.0
        if not self.collect:
            gc.collect()
            gc.freeze()
            gc.disable()
        self.started = time.monotonic()
        self.cpu = own_cpu()
        self.task = asyncio.get_running_loop().create_task(self._watch())
        gc.callbacks.append(self._gc_timed)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._gc_timed)
        self.task.cancel()
        self.wall = time.monotonic() - self.started
        self.cpu = own_cpu() - self.cpu
        if not self.collect:
            gc.enable()
            gc.unfreeze()

    def _gc_timed(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_began = time.perf_counter()
        else:
            self.gc_pauses.append(time.perf_counter() - self._gc_began)

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
                "p99": rounded(1000 * (percentile(self.lags, 99) or 0)),
                "max": rounded(1000 * max(self.lags, default=0)),
            },
            # The client's own pauses: a collection stops every socket of the process at once,
            # and a latency in flight then is the client's, not the server's.
            "gc_pauses_ms": {
                "count": len(self.gc_pauses),
                "max": rounded(1000 * max(self.gc_pauses, default=0)),
                "total": rounded(1000 * sum(self.gc_pauses)),
            },
        }


def own_cpu() -> float:
    """CPU seconds (user and system) of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class CpuMeter:
    """CPU seconds of named server processes (each with its children, living and reaped) and
    of the whole machine, between ``start()`` and ``stop()``. An ASGI process (``daphne0``,
    ``uvicorn1``: ``is_asgi``) is also measured apart for its main thread (its event loop,
    without its database threads), as ``daphne0 loop``, ``uvicorn1 loop``.

    Meanwhile a thread samples the processes every ``every`` seconds (the ``timeline``), so
    that ``between`` can tell the CPU of any stretch of the run: the steady play, say, with
    no hand starting or ending in it."""

    def __init__(self, pids: dict[str, int], every: float = 0.5) -> None:
        self.processes = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.every = every
        self.timeline: list[tuple[float, dict[str, float]]] = []
        self._stopping = threading.Event()
        self._sampler: threading.Thread | None = None

    def start(self) -> None:
        self.before = self._sample()
        self.machine_before = psutil.cpu_times()
        self.started = time.monotonic()
        self.timeline = [(self.started, self.before)]
        self._stopping.clear()
        self._sampler = threading.Thread(target=self._sample_every, daemon=True)
        self._sampler.start()

    def _sample_every(self) -> None:
        while not self._stopping.wait(self.every):
            before = time.monotonic()
            sample = self._sample()
            self.timeline.append(((before + time.monotonic()) / 2, sample))

    def between(self, start: float, end: float) -> dict[str, float]:
        """CPU seconds of each process from ``start`` to ``end`` (``time.monotonic()``
        times within the run), each end read off the timeline between its two samples."""
        return {name: self._at(end, name) - self._at(start, name) for name in self.timeline[0][1]}

    def _at(self, moment: float, name: str) -> float:
        times = [at for at, _ in self.timeline]
        index = min(max(bisect.bisect_right(times, moment), 1), len(times) - 1)
        (t0, s0), (t1, s1) = self.timeline[index - 1], self.timeline[index]
        share = 0.0 if t1 == t0 else min(max((moment - t0) / (t1 - t0), 0.0), 1.0)
        return s0[name] + share * (s1[name] - s0[name])

    def stop(self) -> dict[str, Any]:
        self._stopping.set()
        if self._sampler is not None:
            self._sampler.join()
        wall = time.monotonic() - self.started
        after = self._sample()
        self.timeline.append((time.monotonic(), after))
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
            if is_asgi(name):  # its event loop apart from its database threads
                sample[f"{name} loop"] = _thread_cpu(process, process.pid)
        return sample


def _busy(times: Any) -> tuple[float, ...]:
    return (times.user, times.nice, times.system, times.irq, times.softirq, times.steal)


def _tree_cpu(process: psutil.Process) -> float:
    try:
        total = float(sum(process.cpu_times()[:4]))  # own user, system; reaped children's
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


def is_asgi(name: str) -> bool:
    """Whether a process called ``name`` in ``server_pids`` is an ASGI server: the server's
    name and an index (``daphne0``, ``uvicorn1``; shengji_site.launcher.ASGI_SERVERS)."""
    from shengji_site.launcher import ASGI_SERVERS

    server = name.rstrip("0123456789")
    return server in ASGI_SERVERS and server != name


def asgi_pids(site: Any) -> dict[str, int]:
    """The pids of a ``LiveSite``'s ASGI processes by name, in the order it started them
    (``daphne0`` first)."""
    return {name: pid for name, pid in server_pids(site).items() if is_asgi(name)}


def server_pids(site: Any) -> dict[str, int]:
    """The pids of a ``LiveSite``'s processes by name (none for a site not started here)."""
    if not hasattr(site, "processes"):
        return {}
    pids: dict[str, int] = {name: process.pid for name, process in site.processes.items()}
    pids["postgres"] = site.postgres.process.pid
    pids["redis"] = site.redis.process.pid
    return pids
