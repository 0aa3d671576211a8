"""Fault drills on a whole site in separate processes (``proof.livesite``).

Run ``python bench/fault_drills.py [--tables 10 --kills 3 --redis-restarts 2 ...]``. It starts
its own embedded PostgreSQL and Redis, two daphne processes, a Celery worker and beat, then:

- ``two``: one table played across the two daphnes (seats 0, 2 and a spectator on one,
  seats 1, 3 and a spectator on the other);
- ``kill``: ``--tables`` tables of bot players over real WebSockets; ``--kills`` times a
  daphne is killed (kill -9) mid-hand and started again; one seat of ``--away`` tables never
  comes back (the bot must take it over);
- ``worker``: a seat lets its turn pass at each table, the Celery worker is killed before the
  deadline and started again after it, then again before it;
- ``redis``: ``--redis-restarts`` times Redis is killed and started again empty mid-hand, with
  a seat's deadline pending at each table.

Prints one JSON line: every drill's figures. Exits 1 when an invariant is broken (an
acknowledged action lost, a pending deadline not fired exactly once, a client not back, a
hand not finished or not settled exactly once) or when `manage.py ladder_check`, run on the
site's database after the drills, finds a ledger problem.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proof import drills
from proof.livesite import LiveSite

DRILLS = ("two", "kill", "worker", "redis")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--drills", default=",".join(DRILLS), help="comma-separated: " + ", ".join(DRILLS)
    )
    parser.add_argument("--tables", type=int, default=10, help="tables in the kill drill")
    parser.add_argument("--kills", type=int, default=3, help="daphne kills")
    parser.add_argument("--hands", type=int, default=0, help="hands per table (kills + 1)")
    parser.add_argument("--away", type=int, default=1, help="tables where a seat stays away")
    parser.add_argument("--worker-tables", type=int, default=3)
    parser.add_argument("--redis-tables", type=int, default=4)
    parser.add_argument("--redis-restarts", type=int, default=2)
    parser.add_argument("--think", type=float, default=0.05, help="seconds before each move")
    parser.add_argument("--keep", action="store_true", help="keep the site's folder (logs)")
    return parser.parse_args()


async def run(site: LiveSite, options: argparse.Namespace) -> dict[str, Any]:
    """Each chosen drill in turn; one that fails is reported and the next still runs."""
    chosen = options.drills.split(",")
    drills_to_run = {
        "two": lambda: drills.two_daphne_drill(site, think=options.think),
        "kill": lambda: drills.daphne_kill_drill(
            site,
            tables=options.tables,
            kills=options.kills,
            hands=options.hands or options.kills + 1,
            think=options.think,
            away_tables=options.away,
        ),
        "worker": lambda: drills.worker_kill_drill(
            site, tables=options.worker_tables, think=options.think
        ),
        "redis": lambda: drills.redis_restart_drill(
            site,
            tables=options.redis_tables,
            restarts=options.redis_restarts,
            hands=options.redis_restarts,
            think=options.think,
        ),
    }
    figures: dict[str, Any] = {}
    for name in DRILLS:
        if name not in chosen:
            continue
        started = time.monotonic()
        try:
            result = await drills_to_run[name]()
        except Exception as error:  # the report says which drill broke and how
            result = {"error": f"{type(error).__name__}: {error}"}
        result = {k: v for k, v in result.items() if not k.startswith("_")}
        result["seconds"] = round(time.monotonic() - started, 1)
        figures[result.get("drill", name)] = result
    return figures


def ladder_check(site: LiveSite) -> str:
    """`manage.py ladder_check` on the site's database once the drills are over: "ok: …", or
    the problems it found (docs/LADDER.md, "Invariants")."""
    try:
        return site.manage("ladder_check").strip()
    except RuntimeError as error:
        return f"failed: {error}"


def broken(figures: dict[str, Any]) -> list[str]:
    """The invariants every drill must keep, as readable failures."""
    failures = []
    check = figures.pop("ladder_check", "ok")
    if not check.startswith("ok"):
        failures.append(f"ladder_check: {check}")
    figures["ladder_check"] = check
    for name, drill in figures.items():
        if not isinstance(drill, dict):
            continue
        if "error" in drill:
            failures.append(f"{name}: {drill['error']}")
        if drill.get("actions", {}).get("lost", 0):
            failures.append(f"{name}: acknowledged actions lost")
        if drill.get("hands_settled_once") != drill.get("hands_played"):
            failures.append(f"{name}: a hand not settled exactly once")
        if drill.get("hands_unfinished"):
            failures.append(f"{name}: a hand left unfinished")
        if any(count != 1 for count in drill.get("fires_per_pending_deadline", [])):
            failures.append(f"{name}: a pending deadline fired other than once")
        if drill.get("extra_auto_moves"):
            failures.append(f"{name}: automatic moves no deadline explains")
    kill = figures.get("daphne_kill")
    if kill and kill["resumes"] != kill["drops"] - kill["stayed_away"]:
        failures.append("daphne_kill: a seat did not come back")
    if kill and kill["takeovers_of_returning_seats"]:
        failures.append("daphne_kill: the bot took a seat whose player came back")
    worker = figures.get("worker_kill")
    if worker and worker.get("takeovers"):
        failures.append("worker_kill: the bot took a seat whose player was there")
    redis = figures.get("redis_restart")
    if redis and redis["clients_resynced"] != redis["clients"]:
        failures.append("redis_restart: a client was not resynced")
    return failures


def main() -> int:
    options = arguments()
    base = Path(tempfile.mkdtemp(prefix="fault-drills-"))
    started = time.monotonic()
    site = LiveSite(base, daphnes=2, env=drills.DRILL_ENV, supervise=True, worker_loglevel="INFO")
    try:
        site.start()
        figures = asyncio.run(run(site, options))
        figures["ladder_check"] = ladder_check(site)
    finally:
        site.stop()
    failures = broken(figures)
    figures["seconds"] = round(time.monotonic() - started, 1)
    figures["failures"] = failures
    figures["site_folder"] = str(base) if options.keep else None
    print(json.dumps(figures, ensure_ascii=False))
    if not options.keep:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
