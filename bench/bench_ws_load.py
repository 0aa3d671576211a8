"""WebSocket load: N tables of bot-driven clients over real sockets, beside an echo floor.

Run: ``.venv/bin/python bench/bench_ws_load.py --tables 100 --hands 1 --think 1.0 --ramp 20``
(docs/proof/LOAD.md: the figures, their *Method*, and every command under *Running it*);
``--server uvicorn`` runs the same bench on uvicorn (uvloop, httptools) instead of daphne.

The site is a ``LiveSite`` (proof/livesite.py): the processes of ``manage.py
serve`` (one ASGI server process, daphne or uvicorn as ``--server`` says, ``--daphnes N``: N of
them; a Celery worker, Celery beat, embedded PostgreSQL and Redis) started as children of this
script; ``--url`` runs against a site already running instead (tables are then
made through ``manage.py shell`` with this shell's DATABASE_URL, REDIS_URL and SECRET_KEY,
which must be the site's).

1. Echo alone: as many sockets as the game will use (``--players`` per table, 4 by default)
   send to ``/ws/echo/`` at the game's message rate (each every players × think: the table's
   one action per think, shared by its seats); latency = send → the echo back.
2. Game: one ``SeatClient`` per seat (tables of ``--players`` seats in ``--mode``, tractor or
   找朋友; the dealer calls its friends in 找朋友) play ``--hands`` hands from their own views
   (the basic bot; no bids by default, so the kitty is flipped: a pure bury-and-play
   benchmark), acting
   ``think`` × (1 ± jitter) seconds after their turn comes. Latency of one action = from the
   moment its client sent it to the moment the last of the table's seats received a view
   with a newer ``seq``. Meanwhile one echo probe per table sends every ``think`` seconds: the
   floor of the stack under the same load, in the same run.

The goal (issue 19; issue 9 asked for 3×): p99(game) ≤ 2 × p99(echo probes during the game),
at 100 tables, with no errors; the ratio against the echo phase alone is reported beside it.
Errors: any ``error`` frame (with ``--bids``, refused bids are counted apart as bid races), a
socket dropped or timed out, a view missing for a seat, a hand not finished.

Clients run in ``--procs`` separate processes (0: in this one), each one asyncio loop; all
times are ``time.monotonic()`` (CLOCK_MONOTONIC, shared by every process of the machine). The
CPU of the clients and of every server process (the ASGI ones by their server's name, ``daphne0``
or ``uvicorn0``, with their event-loop thread apart) is measured and reported with the loop lag
of each client process (how late its timers fire: a client that keeps up has a small lag).

The parts are in ``proof/`` (``proof.load``: the client loops, the latency, the report;
``proof.cpu``, ``proof.stats``, ``proof.echoclient``); this script parses the flags, starts
the site, makes the tables, runs the two phases and prints the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from proof.cpu import CpuMeter, asgi_pids, server_pids  # noqa: E402
from proof.echoclient import ECHO_SITE_ENV  # noqa: E402
from proof.livesite import LiveSite  # noqa: E402
from proof.load.moveparts import (  # noqa: E402
    FOLDER_ENV,
    TRACED_APPLICATION,
    format_parts,
    move_parts,
    read_marks,
)
from proof.load.options import Options  # noqa: E402
from proof.load.processes import run_phase, split  # noqa: E402
from proof.load.report import format_table, report, steady_play  # noqa: E402
from proof.profile import Profiler  # noqa: E402
from shengji_site.launcher import ASGI_APPLICATION, ASGI_SERVERS  # noqa: E402

# --- the site --------------------------------------------------------------------------------


class TracedSite(LiveSite):
    """A ``LiveSite`` whose ASGI processes serve ``TRACED_APPLICATION`` (the site's, with each
    move's marks written down in the folder its ``env`` names: proof/load/moveparts.py)."""

    def _command(self, name: str) -> list[str]:
        command = super()._command(name)
        if self.asgi_index(name) is None:
            return command
        return [TRACED_APPLICATION if arg == ASGI_APPLICATION else arg for arg in command]


def start_site(options: Options, trace: Path | None = None) -> Any:
    """A ``LiveSite`` of its own, started (or the ``RunningSite`` at ``--url``); with
    ``trace``, its ASGI processes mark each move's path in that folder
    (proof/load/traced_asgi.py)."""
    from proof.livesite import RunningSite

    if options.url:
        return RunningSite(options.url)
    base = Path(options.base or tempfile.mkdtemp(prefix="shengji-load-"))
    env = {
        **ECHO_SITE_ENV,  # the echo socket, routed only where a bench turns it on
        **options.site_env,
        **({FOLDER_ENV: str(trace)} if trace else {}),
    }
    site_class = TracedSite if trace else LiveSite
    proxy = options.routing == "proxy"
    site = site_class(base, env=env, daphnes=options.daphnes, server=options.server, proxy=proxy)
    try:
        site.start()
    except BaseException:
        site.stop()
        raise
    return site


def socket_bases(site: Any, options: Options) -> list[str]:
    """Where the clients open their sockets: the proxy (``--routing proxy``), or each ASGI
    process (the clients then route as ``--routing`` says)."""
    if options.routing == "proxy" and not options.url:
        return [site.proxy_ws_url("")]
    if options.daphnes > 1:
        return [site.ws_url("", i) for i in range(options.daphnes)]
    return [site.ws_url("")]


def make_tables(site: Any, options: Options) -> list[dict[str, Any]]:
    """The run's tables, made inside the site: ``--players`` new players each (the table's
    shape: ``--players``, ``--mode``), seated, each seat's auto-ready off (the clients press
    ready for each hand, as ``SeatClient.play`` says)."""
    prefix = f"ld{os.getpid()}x{int(time.time()) % 100000}_"
    return list(
        site.call(
            "proof.livesetup.tables",
            count=options.tables,
            prefix=prefix,
            auto_ready=False,
            seats=options.players,
            mode=options.mode,
            play_seconds=options.play_seconds,
            bury_seconds=options.bury_seconds,
            bid_window_seconds=options.bid_window_seconds,
            deal_interval_ms=options.deal_interval_ms,
        )
    )


# --- the run ---------------------------------------------------------------------------------


def run_bench(options: Options, log: Callable[[str], None] = print) -> dict[str, Any]:
    trace = Path(tempfile.mkdtemp(prefix="shengji-trace-")) if options.trace else None
    site = start_site(options, trace)
    try:
        result = measure(site, options, log)
    finally:
        if hasattr(site, "stop"):
            site.stop()
            if options.base is None:  # a folder of our own: its database, logs, everything
                shutil.rmtree(site.base, ignore_errors=True)
    if trace is not None:
        result["move_parts"] = move_parts(result.pop("moves"), read_marks(trace))
        shutil.rmtree(trace, ignore_errors=True)
    else:
        result.pop("moves", None)
    return result


def measure(site: Any, options: Options, log: Callable[[str], None]) -> dict[str, Any]:
    started = time.monotonic()
    tables = make_tables(site, options)
    log(f"{len(tables)} tables ready in {time.monotonic() - started:.1f} s")
    shared: dict[str, Any] = {
        "ws_bases": socket_bases(site, options),
        "routing": options.routing,
        "origin": site.origin,
        "think": options.think,
        "jitter": options.jitter,
        "nice": options.client_nice,
        "client_gc": options.client_gc,
    }
    parts = max(1, options.procs)
    meter = CpuMeter(server_pids(site))

    sockets = options.players * options.tables
    echo_jobs = [
        {
            **shared,
            "phase": "echo",
            "count": len(share),
            "interval": options.players * options.think,
            "seconds": options.echo_seconds,
            "seed": options.seed + 100 * i,
        }
        for i, share in enumerate(split(list(range(sockets)), parts))
        if share
    ]
    log(f"echo alone: {sockets} sockets, each every {options.players * options.think:g} s")
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
    log(
        f"game: {options.tables} tables of {options.players} ({options.mode}),"
        f" {options.hands} hand(s), think {options.think:g} s"
    )
    profiled, profiler = _profiler(site, options)

    def game_starts() -> None:
        meter.start()
        if profiler is not None:
            profiler.start()

    game = run_phase(game_jobs, options.procs, game_starts)
    game_cpu = meter.stop()
    result = report(options, echo, echo_cpu, game, game_cpu, steady_play(game, meter.between))
    result["moves"] = [move for part in game for move in part.get("moves", [])]
    if options.keep_samples:  # each process's CPU seconds as sampled, beside the latencies
        result["samples_s"]["cpu_timeline"] = [
            [round(at, 3), {name: round(s, 3) for name, s in cpu.items()}]
            for at, cpu in meter.timeline
        ]
    if profiler is not None:
        result["profile"] = {"process": profiled, "layers": profiler.stop()}
    return result


def _profiler(site: Any, options: Options) -> tuple[str, Profiler | None]:
    """``--profile``: py-spy on the first ASGI process (daphne0 or uvicorn0) during the game;
    its name and the profiler (None without ``--profile`` or a site of our own)."""
    first = next(iter(asgi_pids(site).items()), None)
    if not options.profile or first is None:
        return "", None
    if not Profiler.available():
        raise SystemExit("--profile needs py-spy (pip install -e '.[dev]')")
    name, pid = first
    return name, Profiler(pid)


def parse(argv: list[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--tables", type=int, default=Options.tables)
    add("--players", type=int, choices=range(4, 9), default=Options.players, help="seats a table")
    add(
        "--mode",
        choices=("tractor", "friends"),
        default=Options.mode,
        help="the tables' mode (friends: 找朋友, 5–8 players)",
    )
    add("--hands", type=int, default=Options.hands)
    add("--think", type=float, default=Options.think, help="mean seconds before each action")
    add("--jitter", type=float, default=Options.jitter, help="think × (1 ± jitter), uniform")
    add("--echo-seconds", type=float, default=Options.echo_seconds, help="echo-alone phase")
    add("--procs", type=int, default=Options.procs, help="client processes (0: this one)")
    add(
        "--server",
        choices=ASGI_SERVERS,
        default=Options.server,
        help="the site's ASGI server (with --url: the one running there, for the report)",
    )
    add(
        "--daphnes",
        "--asgi-processes",
        dest="daphnes",
        type=int,
        default=Options.daphnes,
        help="ASGI processes of the site (daphne or uvicorn, as --server says)",
    )
    add(
        "--routing",
        choices=("spread", "table", "proxy"),
        default=Options.routing,
        help=(
            "with several ASGI processes: a table's sockets spread over them, or all on one; "
            "proxy: through haproxy as `serve --processes N` runs it (serve's configuration)"
        ),
    )
    add("--client-nice", type=int, default=Options.client_nice, help="nice of client processes")
    add(
        "--client-gc",
        action="store_true",
        help="keep the client processes' garbage collector on while they measure (off: its"
        " pauses would count as the server's latency)",
    )
    add("--bids", action="store_true", help="clients bid too (refused bids: bid races)")
    add("--ramp", type=float, default=Options.ramp, help="seconds over which tables start")
    add("--hand-budget", type=float, default=Options.hand_budget, help="seconds per hand at most")
    add("--play-seconds", type=int, default=Options.play_seconds)
    add("--deal-interval-ms", type=int, default=Options.deal_interval_ms)
    add("--bid-window-seconds", type=int, default=Options.bid_window_seconds)
    add(
        "--url",
        help="a running site (its DATABASE_URL, REDIS_URL, SECRET_KEY in this shell), started "
        "with SHENGJI_ECHO_SOCKET=1 and the echo's limits raised (proof/echoclient.py)",
    )
    add("--base", help="folder of the LiveSite (default: a new temporary one)")
    add("--site-env", action="append", default=[], help="NAME=VALUE for the site's processes")
    add("--seed", type=int, default=Options.seed)
    add("--profile", action="store_true", help="py-spy on the first ASGI process: CPU by layer")
    add(
        "--trace",
        action="store_true",
        help="mark each one-statement move's path in the site (proof/load/traced_asgi.py): its time"
        " by part",
    )
    add(
        "--keep-samples",
        action="store_true",
        help="every latency in the JSON line, with when each was sent, and the processes' CPU"
        " as sampled (seconds)",
    )
    args = parser.parse_args(argv)
    return Options(
        tables=args.tables,
        players=args.players,
        mode=args.mode,
        hands=args.hands,
        think=args.think,
        jitter=args.jitter,
        echo_seconds=args.echo_seconds,
        procs=args.procs,
        daphnes=args.daphnes,
        routing=args.routing,
        server=args.server,
        client_nice=args.client_nice,
        client_gc=args.client_gc,
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
        profile=args.profile,
        trace=args.trace,
        keep_samples=args.keep_samples,
    )


def main(argv: list[str] | None = None) -> None:
    options = parse(argv)
    # A SIGTERM (``timeout``, a killed shell) stops the site's processes too, not only this one.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    result = run_bench(options, log=lambda line: print(line, flush=True))
    print(format_table(result))
    if "move_parts" in result:
        print(format_parts(result["move_parts"]))
    print(json.dumps({"bench": "ws_load", **result, "options": asdict(options)}))


if __name__ == "__main__":
    main()
