"""Engine benchmark: follow_error, throw_check and trick_winner on tricks from seeded deals.

Run ``python3 bench/bench_engine.py [--tricks N] [--seed S]``. Prints, per function, the median
and 90th-percentile time of one call (each call timed alone; the timer's own cost, measured on
an empty call, is subtracted) and calls per second over the whole batch (timed as one loop).
Hands hold 25 cards; leads are singles, pairs, tractors and throws of 1-8 cards of one suit
group; each follower offers a legal follow (built by ``legal_follow``) and a random play of the
right size (usually illegal), so both answers are measured.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shengji.engine import (
    RANKS,
    SUITS,
    Card,
    Trump,
    follow_error,
    full_deck,
    is_tractor,
    legal_follow,
    throw_check,
    trick_winner,
)

Hand = list[Card]


def _deal(rng: random.Random) -> list[Hand]:
    deck = full_deck()
    rng.shuffle(deck)
    return [deck[i * 25 : (i + 1) * 25] for i in range(4)]


def _lead(hand: Hand, trump: Trump, rng: random.Random) -> Hand:
    group = rng.choice(sorted({trump.groups[c] for c in hand}))
    suit = [c for c in hand if trump.groups[c] == group]
    pairs = sorted({c for c in suit if suit.count(c) == 2})
    roll = rng.random()
    if roll < 0.4 or len(suit) == 1:
        return [rng.choice(suit)]
    if roll < 0.65 and pairs:
        pair = rng.choice(pairs)
        return [pair, pair]
    if roll < 0.75:
        tractors = [[a, a, b, b] for a in pairs for b in pairs if a < b]
        tractors = [t for t in tractors if is_tractor(t, trump)]
        if tractors:
            return rng.choice(tractors)
    return rng.sample(suit, rng.randint(2, min(8, len(suit))))


def _tricks(count: int, seed: int) -> list[tuple[Trump, list[Hand], Hand]]:
    rng = random.Random(seed)
    tricks = []
    for _ in range(count):
        trump = Trump(rng.choice(RANKS), rng.choice([*SUITS, None]))
        hands = _deal(rng)
        tricks.append((trump, hands, _lead(hands[0], trump, rng)))
    return tricks


def _cases(count: int, seed: int) -> dict[str, list[tuple[Any, ...]]]:
    rng = random.Random(seed + 1)
    follows: list[tuple[Any, ...]] = []
    throws: list[tuple[Any, ...]] = []
    winners: list[tuple[Any, ...]] = []
    for trump, hands, lead in _tricks(count, seed):
        plays = [lead]
        for hand in hands[1:]:
            legal = legal_follow(hand, lead, trump, rng)
            plays.append(legal)
            follows.append((hand, lead, legal, trump))
            follows.append((hand, lead, rng.sample(hand, len(lead)), trump))
        throws.append((lead, hands[1:], trump))
        winners.append((plays, trump))
    return {
        "follow_error": follows,
        "follow_error (legal plays)": follows[::2],
        "follow_error (2+ card leads)": [c for c in follows if len(c[1]) > 1],
        "throw_check": throws,
        "throw_check (throws only)": [c for c in throws if _is_throw(c[0], c[2])],
        "trick_winner": winners,
    }


def _is_throw(lead: Hand, trump: Trump) -> bool:
    if len(lead) == 2:
        return lead[0] != lead[1]
    return len(lead) > 2 and not is_tractor(lead, trump)


def _timer_overhead() -> float:
    clock = time.perf_counter_ns
    samples = []
    for _ in range(20000):
        start = clock()
        samples.append(clock() - start)
    return statistics.median(samples)


def _measure(
    function: Callable[..., Any], cases: Sequence[tuple[Any, ...]], overhead: float
) -> tuple[float, float, float]:
    clock = time.perf_counter_ns
    for case in cases[:2000]:  # warm the caches the engine keeps per Trump
        function(*case)
    samples = []
    for case in cases:
        start = clock()
        function(*case)
        samples.append(clock() - start - overhead)
    samples.sort()
    median = samples[len(samples) // 2] / 1000
    p90 = samples[len(samples) * 9 // 10] / 1000
    start = clock()
    for case in cases:
        function(*case)
    per_second = len(cases) / ((clock() - start) / 1e9)
    return median, p90, per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tricks", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    cases = _cases(args.tricks, args.seed)
    overhead = _timer_overhead()
    print(f"python {sys.version.split()[0]}, {args.tricks} tricks, seed {args.seed}")
    print(f"timer overhead {overhead:.0f} ns per call (subtracted)")
    for title, wrap in (
        ("lead analysis cached (warm)", _warm),
        ("lead cache cleared (cold)", _cold),
    ):
        print(f"\n{title}")
        print(f"{'function':<32}{'calls':>8}{'median µs':>11}{'p90 µs':>9}{'calls/s':>12}")
        for name, function_cases in cases.items():
            function = wrap(_FUNCTIONS[name.split()[0]])
            median, p90, per_second = _measure(function, function_cases, overhead)
            line = f"{name:<32}{len(function_cases):>8}{median:>11.2f}{p90:>9.2f}"
            print(f"{line}{per_second:>12,.0f}")


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "follow_error": follow_error,
    "throw_check": throw_check,
    "trick_winner": trick_winner,
}


def _warm(function: Callable[..., Any]) -> Callable[..., Any]:
    return function


def _cold(function: Callable[..., Any]) -> Callable[..., Any]:
    """The function with the Trump's lead cache emptied first (a lead seen for the first time)."""

    def cold(*args: Any) -> Any:
        args[-1].lead_cache.clear()
        return function(*args)

    return cold


if __name__ == "__main__":
    main()
