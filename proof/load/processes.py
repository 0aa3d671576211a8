"""A phase of a load run in separate client processes (``spawn``: each one asyncio loop), or
in this process (``procs`` 0). Each process connects its share of sockets; when all have
connected, ``on_go()`` runs (the server CPU meter starts) and they start together."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Callable
from typing import Any

from proof.load.clients import PHASES


def _client_main(job: dict[str, Any], results: Any, connected: Any, go: Any) -> None:
    """A client process: one phase's share of sockets, its figures back through ``results``."""
    if job.get("nice"):
        os.nice(job["nice"])

    async def wait_for_go() -> None:
        connected.release()
        await asyncio.get_running_loop().run_in_executor(None, go.wait)

    phase = PHASES[job["phase"]]
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
        figures: list[dict[str, Any]] = [results.get(timeout=24 * 3600) for _ in jobs]
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


def run_phase(
    jobs: list[dict[str, Any]], procs: int, on_go: Callable[[], None]
) -> list[dict[str, Any]]:
    """The jobs' figures: one process each with ``procs`` > 0, else the one job in this one."""
    if procs > 0:
        return run_in_processes(jobs, on_go)
    (job,) = jobs

    async def connected() -> None:
        on_go()

    phase = PHASES[job["phase"]]
    return [asyncio.run(phase(job, connected))]


def split(items: list[Any], parts: int) -> list[list[Any]]:
    """``items`` dealt into ``parts`` shares in turn."""
    return [items[i::parts] for i in range(parts)]
