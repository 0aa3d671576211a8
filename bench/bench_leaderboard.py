"""Leaderboard benchmark: fill a database with 100,000 players and time the leaderboard queries.

    .venv/bin/python bench/bench_leaderboard.py                 # embedded PostgreSQL, 100,000
    .venv/bin/python bench/bench_leaderboard.py --users 20000 --repeat 100
    DATABASE_URL=postgres://user:pw@host:5432/shengji .venv/bin/python bench/bench_leaderboard.py

With DATABASE_URL the benchmark works in a database of its own on that server,
`<name>_bench_leaderboard` (created, migrated, filled, then dropped unless --keep). Without it,
it starts an embedded PostgreSQL (shengji_site.embedded) in a temporary folder on a free port and
removes it afterwards. Nothing touches the site's own database or var/.

It prints p50 / p95 in milliseconds for: a page of each board (first, 10 %, middle and last page,
the selector `leaderboard_page` as the site calls it, with the total count), the viewer's own
rank and page (`leaderboard_viewer`), and a whole page for a logged-in viewer; then the query
plans of the first page and the rank count, to show they use the boards' partial indexes.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proof import benchenv  # noqa: E402


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000, help="players to insert")
    parser.add_argument("--repeat", type=int, default=50, help="timed runs of each query")
    parser.add_argument("--seed", type=int, default=6, help="random seed of the data")
    parser.add_argument(
        "--keep", action="store_true", help="with DATABASE_URL: keep the bench database"
    )
    return parser.parse_args()


def fill(users: int, seed: int) -> None:
    """`users` players with ladder profiles spread like a live site's (bulk_create)."""
    from django.db import connection
    from django.utils import timezone

    from accounts.models import User
    from ladder.models import LadderProfile

    rng = random.Random(seed)
    now = timezone.now()
    batch = 5000
    started = time.perf_counter()
    for first in range(0, users, batch):
        count = min(batch, users - first)
        created = User.objects.bulk_create(
            [
                User(username=f"bench{first + i}", password="!", display_name=f"玩家{first + i}")
                for i in range(count)
            ],
            batch_size=batch,
        )
        profiles = []
        for user in created:
            sigma = rng.uniform(2.0, 8.4)
            mu = rng.gauss(25.0, 4.0)
            profiles.append(
                LadderProfile(
                    user_id=user.pk,
                    balance=max(0, int(rng.lognormvariate(7.0, 0.8))),
                    title_points=min(1500, int(rng.expovariate(1 / 120))),
                    rating_mu=mu,
                    rating_sigma=sigma,
                    rating_ordinal=mu - 3 * sigma,
                    rating_provisional=sigma >= 6.0,
                    rated_hands=rng.randint(0, 400),
                    hands_played=rng.randint(0, 500),
                    last_played_at=now - timedelta(days=rng.uniform(0, 90)),
                    listed=rng.random() > 0.01,
                )
            )
        LadderProfile.objects.bulk_create(profiles, batch_size=batch)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE ladder_ladderprofile")
        cursor.execute("VACUUM ANALYZE accounts_user")
    print(f"inserted {users:,} users and profiles in {time.perf_counter() - started:.1f} s")


def timed(runs: int, call: Callable[[], object]) -> tuple[float, float]:
    call()  # warm the cache and the connection
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return statistics.median(samples), p95


def run(repeat: int, seed: int) -> None:
    from django.conf import settings
    from django.db import connection

    from accounts.models import User
    from ladder.selectors import (
        BOARDS,
        Board,
        leaderboard_page,
        leaderboard_queryset,
        leaderboard_viewer,
    )

    rng = random.Random(seed + 1)
    user_ids = list(User.objects.values_list("pk", flat=True))
    viewers = {pk: User(pk=pk) for pk in rng.sample(user_ids, min(200, len(user_ids)))}
    print(f"\npage size {settings.LADDER_PAGE_SIZE}; {repeat} runs each; milliseconds")
    print(f"{'query':<44}{'rows':>8}{'p50':>9}{'p95':>9}")
    for code, spec in BOARDS.items():
        total = leaderboard_queryset(board=spec).count()
        pages = max(1, -(-total // settings.LADDER_PAGE_SIZE))
        for label, page in (
            ("first page", 1),
            ("page at 10 %", max(1, pages // 10)),
            ("middle page", max(1, pages // 2)),
            ("last page", pages),
        ):
            p50, p95 = timed(repeat, partial(leaderboard_page, board=code, page=page))
            print(f"{code + ': ' + label + f' ({page})':<44}{total:>8}{p50:>9.2f}{p95:>9.2f}")

        def total_count(spec: Board = spec) -> int:
            return leaderboard_queryset(board=spec).count()

        p50, p95 = timed(repeat, total_count)
        print(f"{code + ': total count (part of every page)':<44}{total:>8}{p50:>9.2f}{p95:>9.2f}")
        ids = list(viewers)

        def own_rank(code: str = code, ids: list[int] = ids) -> object:
            return leaderboard_viewer(board=code, user=viewers[rng.choice(ids)])

        p50, p95 = timed(repeat, own_rank)
        print(f"{code + ': own rank and page':<44}{total:>8}{p50:>9.2f}{p95:>9.2f}")

        def first_page_seen_by(code: str = code, ids: list[int] = ids) -> object:
            return leaderboard_page(board=code, page=1, viewer=viewers[rng.choice(ids)])

        p50, p95 = timed(repeat, first_page_seen_by)
        print(f"{code + ': first page with the viewer':<44}{total:>8}{p50:>9.2f}{p95:>9.2f}")
    print("\nquery plans (the scans of each):")
    for code, spec in BOARDS.items():
        listed = leaderboard_queryset(board=spec)
        # The page query as leaderboard_page runs it (its first step; the second fetches the
        # page's profiles and users by primary key).
        ordered = listed.order_by(f"-{spec.field}", "user_id").values_list("user_id", spec.field)
        total = listed.count()
        median = ordered[total // 2][1]
        queries = (
            ("first page", ordered[:50]),
            ("middle page", ordered[total // 2 : total // 2 + 50]),
            ("rank count, median", listed.filter(**{f"{spec.field}__gt": median}).values("pk")),
        )
        for label, queryset in queries:
            sql, params = queryset.query.sql_with_params()
            if label.startswith("rank"):
                sql = f"SELECT count(*) FROM ({sql}) AS better"
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN {sql}", params)
                plan = [row[0].strip(" ->") for row in cursor.fetchall()]
            scans = [line.split("  (")[0] for line in plan if "Scan" in line]
            print(f"  {code} {label}: {'; '.join(scans)}")


def main() -> None:
    args = parse_args()
    external = bool(os.environ.get("DATABASE_URL"))
    tmp = Path(tempfile.mkdtemp(prefix="shengji-bench-"))
    database_url, stop = benchenv.start_database(tmp, "bench_leaderboard")
    try:
        benchenv.configure_django(database_url, tmp)
        benchenv.migrate()
        fill(args.users, args.seed)
        run(args.repeat, args.seed)
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep and external:
            print(f"kept the database at {database_url}")
        else:
            stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
