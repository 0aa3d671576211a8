"""Socket fuzzer: thousands of malformed and hostile messages at a live table (issue 9).

    .venv/bin/python bench/fuzz_sockets.py --messages 5000 --seed 1
    DATABASE_URL=postgres://user@host:5432/shengji REDIS_URL=redis://host:6379/3 \\
        .venv/bin/python bench/fuzz_sockets.py --messages 20000 --seed 7
    .venv/bin/python bench/fuzz_sockets.py --messages 2000 --players 8 --mode friends

Four players sit at a ranked table (``--players N --mode M``: N players at a casual table of
that shape, tractor or 找朋友) with a hand in progress, with a logged-in spectator and an
anonymous one, each on a socket of the in-process ASGI application (Channels over Redis and
PostgreSQL, a Celery worker in this process dealing the cards). The messages and the checks are
proof/fuzz.py: each message must get its error code (or its documented answer),
no socket may die, and the hands' logs, the seats, the chat and the ledger may change only by
the legal moves sent in between and their settlement.

With DATABASE_URL the run works in a database of its own on that server, `<name>_bench_fuzz`
(created, migrated, dropped unless --keep); without it, in an embedded PostgreSQL in a
temporary folder. With REDIS_URL it uses that Redis under names of its own (channel layer
prefix, Celery queue, rate-limit keys), else an embedded Redis. The site's own data and var/
are never touched.

The last line printed is the figures as JSON; the exit status is 1 on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proof import benchenv  # noqa: E402


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=5000, help="hostile messages to send")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the messages")
    parser.add_argument(
        "--players",
        type=int,
        choices=range(4, 9),
        help="a casual table of this many seats (default: the ranked table of four)",
    )
    parser.add_argument(
        "--mode", choices=("tractor", "friends"), default="tractor", help="with --players"
    )
    parser.add_argument(
        "--keep", action="store_true", help="with DATABASE_URL: keep the bench database"
    )
    return parser.parse_args()


async def fuzz(messages: int, seed: int, shape: Any = None) -> dict[str, object]:
    from proof.fuzz import run_fuzz
    from shengji_site.asgi import application

    fuzzer = await run_fuzz(application, messages=messages, seed=seed, shape=shape)
    return fuzzer.report.figures()


def run(messages: int, seed: int, shape: Any = None) -> dict[str, object]:
    from celery.contrib.testing.worker import start_worker

    from shengji_site.celery import app

    with start_worker(app, pool="threads", concurrency=2, perform_ping_check=False,
                      loglevel="WARNING", shutdown_timeout=10):  # fmt: skip
        figures = asyncio.run(fuzz(messages, seed, shape))
    forget_redis_keys()
    return figures


def forget_redis_keys() -> None:
    """A shared Redis keeps nothing of the run: its queue (the deadline tasks still waiting),
    the channel layer's and the rate limits' keys all carry the run's own prefix."""
    import redis
    from django.conf import settings

    tag = os.environ["CHANNELS_PREFIX"]
    client = redis.Redis.from_url(settings.REDIS_URL)
    keys = [*client.scan_iter(match=f"{tag}*"), *client.scan_iter(match=f"_kombu.*.{tag}")]
    if keys:
        client.delete(*keys)


def main() -> None:
    args = parse_args()
    keep = args.keep and bool(os.environ.get("DATABASE_URL"))
    tmp = Path(tempfile.mkdtemp(prefix="shengji-fuzz-"))
    database_url, stop_database = benchenv.start_database(tmp, "bench_fuzz")
    redis_url, stop_redis = benchenv.start_redis(tmp)
    try:
        tag = f"shengji-fuzz-{secrets.token_hex(5)}"
        benchenv.configure_django(database_url, tmp, redis_url=redis_url, tag=tag)
        benchenv.migrate()
        shape = None
        if args.players is not None:
            from proof.fuzz_messages import Shape

            shape = Shape(players=args.players, mode=args.mode, ranked=False)
        figures = run(args.messages, args.seed, shape)
    finally:
        from django.db import connections

        connections.close_all()
        if not keep:
            stop_database()
        stop_redis()
        shutil.rmtree(tmp, ignore_errors=True)
    details = figures.pop("details")
    if not figures["ok"]:
        print(json.dumps(details, ensure_ascii=False, indent=1), file=sys.stderr)
    print(json.dumps(figures, ensure_ascii=False))
    sys.exit(0 if figures["ok"] else 1)


if __name__ == "__main__":
    main()
