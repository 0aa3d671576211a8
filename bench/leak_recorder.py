"""Hidden information under many hands: play N hands over real sockets and check every frame.

    .venv/bin/python bench/leak_recorder.py                      # 200 hands, embedded servers
    .venv/bin/python bench/leak_recorder.py --hands 40
    .venv/bin/python bench/leak_recorder.py --shapes --hands 20  # 6 and 8 seats, both modes
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/shengji REDIS_URL=redis://127.0.0.1:6379/5 \\
        .venv/bin/python bench/leak_recorder.py --hands 200

Runs the drill of tests/proof/test_hidden_info.py (proof/leakdrill.py) in waves
of four tables of five hands (forced and rejected throws, bids, bot seats, a player who drops and
comes back, escapes, a permission withdrawn mid-hand, a seat that changes player), in process:
Channels sockets driven by ``WebsocketCommunicator``, a Celery worker in threads, real
PostgreSQL and Redis. Every frame sent to every seat, spectator and the lobby, and every HTTP
answer about a live hand, goes through the checker (proof/leakcheck.py).

With DATABASE_URL the bench works in a database of its own on that server (`<name>_bench_leaks`,
dropped afterwards unless --keep); without it, it starts an embedded PostgreSQL in a temporary
folder. Without REDIS_URL it starts an embedded Redis. It prints one JSON line of figures and
exits 1 if any leak was found or a table could not finish its hands (the frames it recorded
are checked all the same). ``--shapes`` plays the waves of tests/proof/test_shapes_hidden_info.py
instead (``leakdrill.shape_plans``: four tables of 6 and 8 seats, tractor and 找朋友, five
hands a wave).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proof import benchenv  # noqa: E402

HANDS_PER_TABLE = 5
TABLES = 4
SHAPE_HANDS = 5  # a wave of leakdrill.shape_plans


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200, help="hands to play (rounded up to 20)")
    parser.add_argument("--seed", type=int, default=9, help="seed of the players' choices")
    parser.add_argument("--keep", action="store_true", help="with DATABASE_URL: keep the database")
    parser.add_argument("--shown", type=int, default=10, help="leaks and failures to print")
    parser.add_argument(
        "--shapes", action="store_true", help="tables of 6 and 8 seats, tractor and 找朋友"
    )
    return parser.parse_args()


async def play(hands: int, seed: int, shapes: bool = False) -> dict[str, Any]:
    from proof.leakdrill import drill, shape_plans, standard_plans

    totals: dict[str, Any] = {}
    problems: list[str] = []
    per_wave = SHAPE_HANDS if shapes else TABLES * HANDS_PER_TABLE
    waves = -(-hands // per_wave)
    for wave in range(waves):
        wave_seed = seed + 10 * wave
        plans = shape_plans(wave_seed) if shapes else standard_plans(HANDS_PER_TABLE, wave_seed)
        result = await drill(plans)
        figures = result.figures()
        merge(totals, figures)
        print(f"wave {wave + 1} of {waves}: {json.dumps(figures)}", file=sys.stderr, flush=True)
        problems += [str(leak) for leak in result.report.leaks]
        problems += [f"table {r.table_id}: {r.failure}" for r in result.runs if r.failure]
    totals["problems"] = problems
    return totals


def merge(totals: dict[str, Any], figures: dict[str, Any]) -> None:
    """Add up numbers and counts of nested dicts."""
    for key, value in figures.items():
        if isinstance(value, dict):
            merged = Counter(totals.get(key, {}))
            merged.update(value)
            totals[key] = dict(sorted(merged.items()))
        else:
            totals[key] = round(totals.get(key, 0) + value, 1)


def run(hands: int, seed: int, shown: int, shapes: bool = False) -> int:
    from celery.contrib.testing.worker import start_worker

    from shengji_site.celery import app

    with start_worker(
        app, pool="threads", concurrency=2, perform_ping_check=False, shutdown_timeout=60
    ):
        figures = asyncio.run(play(hands, seed, shapes))
    problems = figures.pop("problems")
    figures["hands_per_second"] = round(figures["hands"] / max(figures["seconds"], 0.1), 2)
    print(json.dumps(figures, ensure_ascii=False))
    for problem in problems[:shown]:
        print(problem, file=sys.stderr)
    return 1 if figures["leaks"] or figures["tables_failed"] else 0


def main() -> None:
    args = parse_args()
    external = bool(os.environ.get("DATABASE_URL"))
    tmp = Path(tempfile.mkdtemp(prefix="shengji-bench-leaks-"))
    database_url, stop_database = benchenv.start_database(tmp, "bench_leaks")
    redis_url, stop_redis = benchenv.start_redis(tmp)
    status = 1
    try:
        os.environ.setdefault("LOG_LEVEL", "ERROR")
        tag = f"bench-leaks-{uuid.uuid4().hex[:8]}"
        benchenv.configure_django(
            database_url,
            tmp,
            redis_url=redis_url,
            tag=tag,
            SHENGJI_DISCONNECT_GRACE_S="1",
            SHENGJI_ARRIVAL_GRACE_S="60",  # the drill's players arrive, then drop and return
            SHENGJI_BOT_DELAY_MS="0",
        )
        logging.getLogger("django.request").setLevel(logging.ERROR)  # the 404s the drill asks for
        benchenv.migrate()
        status = run(args.hands, args.seed, args.shown, args.shapes)
    finally:
        from django.db import connections

        connections.close_all()
        stop_redis()
        if args.keep and external:
            print(f"kept the database at {database_url}", file=sys.stderr)
        else:
            stop_database()
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
