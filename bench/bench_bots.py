"""Bot decision times: basic bots in all seats, then search bots against basic, on whole hands.

Run: ``.venv/bin/python bench/bench_bots.py [--hands N] [--search-hands M]``. Prints one JSON
line per bot with the number of decisions (burying and playing) and their p50, p95 and max in
milliseconds, and for the search bot its budget.
"""

from __future__ import annotations

import argparse
import json

from shengji.bots import BasicBot, HandStats, SearchBot, SearchBudget, play_hand
from shengji.bots.base import Bot
from shengji.bots.match import deal_hand, percentile
from shengji.engine.rules import preset


def figures(name: str, times: list[float], **extra: object) -> dict[str, object]:
    return {
        "bot": name,
        "decisions": len(times),
        "p50_ms": round(percentile(times, 0.5) * 1000, 3),
        "p95_ms": round(percentile(times, 0.95) * 1000, 3),
        "max_ms": round(max(times) * 1000, 3),
        **extra,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=50)
    parser.add_argument("--search-hands", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = preset("ranked")
    times: list[float] = []
    for index in range(args.hands):
        stats = HandStats()
        play_hand(deal_hand(rules, args.seed, index), [BasicBot()] * 4, stats)
        times += [t for seat in stats.times for t in seat]
    print(json.dumps(figures("basic", times)), flush=True)
    budget = SearchBudget()
    times = []
    for index in range(args.search_hands):
        stats = HandStats()
        bots: list[Bot] = [SearchBot(1, budget), BasicBot(), SearchBot(2, budget), BasicBot()]
        play_hand(deal_hand(rules, args.seed, index), bots, stats)
        times += stats.times[0] + stats.times[2]
    budget_text = {"max_samples": budget.max_samples, "max_ms": budget.max_ms}
    print(json.dumps(figures("search", times, budget=budget_text)), flush=True)


if __name__ == "__main__":
    main()
