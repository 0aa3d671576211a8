"""Rate-limit cost: µs per check of the site's Redis limits against the ``limits`` package's.

    .venv/bin/pip install --target /tmp/limits-site 'limits[redis]==5.8.0'
    PYTHONPATH=/tmp/limits-site .venv/bin/python bench/ratelimit_cost.py [--checks 2000] [--runs 7]

Every Redis limit of the site (chat, ``SHENGJI_ACTION_LIMITS``, password resets, sign-ups) is
two windows checked by one script (``accounts.ratelimits._windows``): a request is counted in
both or, refused, in neither. The bench times ``ratelimits.action_wait`` on the ``hint`` windows
as the site calls it, beside the same check built on ``limits``' moving window (RedisStorage,
``MovingWindowRateLimiter``, the site's Redis connection pool), in the two ways it can be built:
each window hit in turn (a refusal by the second window leaves the first counted), or each
window tested and then each hit (not atomic: checks sent together can all pass). Also our script
sent by its digest (EVALSHA) rather than its text. "allowed": each check by a new user (nothing
counted yet); "refused": each check by a user already over the limit (a refusal also reads
how long to wait). Runs alternate between the ways; the figures are the median run, with the
fastest and slowest. With REDIS_URL it uses that Redis (under a prefix of its own, emptied
afterwards), else it starts an embedded Redis.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proof import benchenv  # noqa: E402

ACTION = "hint"
Check = Callable[[int], int]  # a user's id -> the seconds to wait (0: allowed, and counted)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=2000, help="checks in one run")
    parser.add_argument("--runs", type=int, default=7, help="runs of each way")
    return parser.parse_args()


def ours() -> Check:
    from accounts import ratelimits

    return lambda user_id: ratelimits.action_wait(action=ACTION, user_id=user_id)


def ours_by_digest() -> Check:
    """``ratelimits._windows`` with the script sent by EVALSHA (redis-py's ``Script``)."""
    import secrets

    from accounts import ratelimits, shared_redis

    script = shared_redis.client().register_script(ratelimits._WINDOWS_SCRIPT)

    def check(user_id: int) -> int:
        limits = ratelimits._action_limits(ACTION, user_id)
        now = shared_redis.now_ms()
        args: list[str | int] = [now, f"{now}-{secrets.token_hex(4)}", "hit"]
        for _, limit, seconds in limits:
            args += [limit, max(1, int(seconds * 1000))]
        wait_ms = int(script(keys=[key for key, _, _ in limits], args=args))
        return math.ceil(wait_ms / 1000)

    return check


def _limits_items() -> tuple[Any, list[Any]]:
    """``limits``' moving window on the site's Redis pool, and one item per window."""
    from django.conf import settings

    from accounts import shared_redis

    try:
        limits: Any = importlib.import_module("limits")
    except ModuleNotFoundError:
        raise SystemExit("limits is not installed: see this script's docstring") from None
    storage = limits.storage.RedisStorage(
        settings.REDIS_URL,
        connection_pool=shared_redis.client().connection_pool,
        key_prefix=settings.SHENGJI_RATELIMIT_PREFIX,
    )
    windows = settings.SHENGJI_ACTION_LIMITS[ACTION]
    items = [limits.RateLimitItemPerSecond(count, int(seconds)) for count, seconds in windows]
    return limits.strategies.MovingWindowRateLimiter(storage), items


def _wait(limiter: Any, items: list[Any], user_id: int) -> int:
    now = time.time()
    stats = [
        limiter.get_window_stats(item, ACTION, str(i), str(user_id)) for i, item in enumerate(items)
    ]
    waits = [math.ceil(float(s.reset_time) - now) for s in stats if s.remaining <= 0]
    return max([1, *waits])


def limits_hit_in_turn() -> Check:
    limiter, items = _limits_items()

    def check(user_id: int) -> int:
        for i, item in enumerate(items):
            if not limiter.hit(item, ACTION, str(i), str(user_id)):
                return _wait(limiter, items, user_id)
        return 0

    return check


def limits_test_then_hit() -> Check:
    limiter, items = _limits_items()

    def check(user_id: int) -> int:
        for i, item in enumerate(items):
            if not limiter.test(item, ACTION, str(i), str(user_id)):
                return _wait(limiter, items, user_id)
        for i, item in enumerate(items):
            limiter.hit(item, ACTION, str(i), str(user_id))
        return 0

    return check


WAYS: dict[str, Callable[[], Check]] = {
    "ours: one script over both windows (EVAL)": ours,
    "ours: the same script by its digest (EVALSHA)": ours_by_digest,
    "limits: moving window, each window hit in turn": limits_hit_in_turn,
    "limits: moving window, each tested, then each hit": limits_test_then_hit,
}


def answers(checks: list[Check], first_user: int) -> list[list[bool]]:
    """Which of six checks in a row by one user each way refuses (the same for every way)."""
    return [[check(first_user + n) > 0 for _ in range(6)] for n, check in enumerate(checks)]


def timed_run(check: Check, users: Sequence[int]) -> float:
    started = time.perf_counter()
    for user_id in users:
        check(user_id)
    return (time.perf_counter() - started) / len(users) * 1e6


def measure(
    checks: list[Check], count: int, runs: int
) -> tuple[list[list[float]], list[list[float]]]:
    """µs per check of each way, allowed and refused, over ``runs`` runs in alternating order."""
    allowed: list[list[float]] = [[] for _ in checks]
    refused: list[list[float]] = [[] for _ in checks]
    next_user = 1_000_000
    full = [next_user + n for n in range(len(checks))]  # one user per way, over its limit
    next_user += len(checks)
    for way, check in enumerate(checks):
        while check(full[way]) == 0:
            pass
    for run in range(runs):
        order = list(range(len(checks)))
        if run % 2:
            order.reverse()
        for way in order:
            allowed[way].append(timed_run(checks[way], range(next_user, next_user + count)))
            next_user += count
            refused[way].append(timed_run(checks[way], [full[way]] * count))
    return allowed, refused


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):7.1f} [{min(values):.1f}–{max(values):.1f}]"


def main() -> None:
    args = parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="shengji-bench-"))
    redis_url, stop = benchenv.start_redis(tmp)
    try:
        tag = f"ratelimit_cost_{os.getpid()}"
        benchenv.configure_django(
            "postgres://unused@127.0.0.1:1/unused", tmp, redis_url=redis_url, tag=tag
        )
        from django.conf import settings

        from accounts import ratelimits

        checks = [make() for make in WAYS.values()]
        refusals = answers(checks, 1)
        assert all(row == refusals[0] for row in refusals), refusals
        allowed, refused = measure(checks, args.checks, args.runs)
        windows = settings.SHENGJI_ACTION_LIMITS[ACTION]
        print(
            f"SHENGJI_ACTION_LIMITS[{ACTION!r}] = {windows}; {args.checks} checks a run, "
            f"{args.runs} runs of each way, alternating; Redis at {redis_url}"
        )
        print(f"{'way':52} {'allowed µs/check':>24} {'refused µs/check':>24}")
        for name, fast, slow in zip(WAYS, allowed, refused, strict=True):
            print(f"{name:52} {spread(fast):>24} {spread(slow):>24}")
        ratelimits.reset_all()
    finally:
        stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
