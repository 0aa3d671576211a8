"""The soak: tables of bot players for an hour, with faults and bad clients throughout.

    .venv/bin/python bench/soak.py --tables 100 --minutes 60 --kills-each 3 --bad-clients 3

It starts a whole site in separate processes (``proof.livesite``: embedded PostgreSQL and
Redis, two daphnes, a Celery worker and beat, supervised), then for ``--minutes``:

- ``--tables`` tables of four bot players (``proof.soak.SoakSeat``, real WebSockets, seats 0
  and 2 on daphne0, 1 and 3 on daphne1) play hand after hand; every 20 s on average a random
  seat lets its turn pass, so deadlines fire all along;
- at seeded random times, spread over the run (``proof.soak.fault_window``), a daphne is
  killed (kill -9) and started again, the worker is killed and started again 13–22 s later,
  Redis is killed and started again empty, ``--kills-each`` times each;
- ``--bad-clients`` bad clients in a process of their own, taking the kinds in turn: a
  flooder (one-byte frames as fast as the kernel takes them, 5 s a minute), a garbage sender
  (the fuzzer's malformed frames, 5 a second), a reconnect storm (anonymous sockets opened and
  closed as fast as they are served, 5 s a minute);
- the memory (PSS) of each long-lived process, the queues and the connections are sampled
  every ``--sample-every`` seconds.

Then the seats finish their hands and stop, and it checks: no acknowledged action lost, every
stalled turn's deadline fired once and no automatic move before its deadline, every finished
hand settled once, no bot takeover, ``manage.py ladder_check`` clean, each process's memory at
the end within 10 % of its level at minute 10 (or 10 minutes after its last restart), the
queues and connections back to their level before the clients came. Prints one JSON line;
exits 1 on any broken invariant. The method: docs/proof/SOAK.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proof import drills, soak
from proof.livesite import LiveSite


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--kills-each", type=int, default=3, help="faults of each kind")
    parser.add_argument("--bad-clients", type=int, default=3, help="flood, garbage, storm, …")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think", type=float, default=2.0, help="seconds before each move")
    parser.add_argument("--sample-every", type=float, default=60.0, help="seconds")
    parser.add_argument("--keep", action="store_true", help="keep the site's folder (logs)")
    return parser.parse_args()


def options_from(arguments: argparse.Namespace) -> soak.SoakOptions:
    return soak.SoakOptions(
        tables=arguments.tables,
        minutes=arguments.minutes,
        kills_each=arguments.kills_each,
        bad_clients=arguments.bad_clients,
        seed=arguments.seed,
        think=arguments.think,
        sample_every_s=arguments.sample_every,
        judge_growth=arguments.minutes >= 20,
    )


def soak_site(base: Path) -> LiveSite:
    return LiveSite(base, daphnes=2, env=drills.DRILL_ENV, supervise=True, worker_loglevel="INFO")


def ladder_check(site: LiveSite) -> str:
    try:
        return site.manage("ladder_check").strip()
    except RuntimeError as error:
        return f"failed: {error}"


def main() -> int:
    given = arguments()
    base = Path(tempfile.mkdtemp(prefix="soak-"))
    started = time.monotonic()
    site = soak_site(base)
    try:
        site.start()
        figures = asyncio.run(soak.run_soak(site, options_from(given)))
        figures["ladder_check"] = ladder_check(site)
    finally:
        site.stop()
    failures = soak.broken(figures, given.kills_each)
    figures["seconds"] = round(time.monotonic() - started, 1)
    figures["failures"] = failures
    figures["verdict"] = "ok" if not failures else "broken"
    figures["site_folder"] = str(base) if given.keep else None
    print(json.dumps(figures, ensure_ascii=False))
    if not given.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
