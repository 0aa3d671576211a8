"""Bot decision times at bigger tables: the same bot in every seat, whole hands.

Run: ``.venv/bin/python bench/bench_bots_shapes.py --bot basic --players 8 --decks 4 --mode
friends --hands 20``. Prints one JSON line: the number of decisions (calling, burying and
playing; bids are not counted, as in ``shengji.bots.match``), their wall-clock p50, p95 and max
and their CPU-time (``time.process_time``) p50 and p95, in milliseconds, and for the search
bot the sampled deals and playouts of its searched decisions (p50). On a machine shared with
other work the wall-clock figures include the waits for a core; the CPU figures do not.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from shengji.bots import HandStats, SearchBudget, make_bot, play_hand
from shengji.bots.base import Bot, acts_now
from shengji.bots.legality import shape_rules
from shengji.bots.match import deal_hand, percentile
from shengji.engine.rules import RuleSet


class CpuTimed:
    """A bot whose acting decisions' CPU times are kept."""

    def __init__(self, bot: Bot, cpu: list[float], work: list[tuple[int, int]]) -> None:
        self.bot = bot
        self.name = bot.name
        self.cpu = cpu
        self.work = work

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        started = time.process_time()
        action = self.bot.choose_action(view, rules, history)
        if acts_now(view):
            self.cpu.append(time.process_time() - started)
            playouts = int(getattr(self.bot, "last_playouts", 0))
            if playouts:
                self.work.append((int(getattr(self.bot, "last_samples", 0)), playouts))
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bot", default="basic")
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--decks", type=int, default=4)
    parser.add_argument("--mode", default="friends")
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--search-samples", type=int, default=SearchBudget().max_samples)
    parser.add_argument("--search-ms", type=float, default=SearchBudget().max_ms)
    args = parser.parse_args()
    shape = f"{args.players}/{args.decks}/{args.mode}"
    rules = shape_rules("ranked", shape)
    budget = SearchBudget(max_samples=args.search_samples, max_ms=args.search_ms or None)
    wall: list[float] = []
    cpu: list[float] = []
    work: list[tuple[int, int]] = []
    for index in range(args.hands):
        bots: list[Bot] = [
            CpuTimed(make_bot(args.bot, seat, budget), cpu, work) for seat in range(args.players)
        ]
        stats = HandStats()
        play_hand(deal_hand(rules, args.seed, index), bots, stats)
        wall += [t for seat in stats.times for t in seat]
    print(
        json.dumps(
            {
                "bot": args.bot,
                "shape": shape,
                "hands": args.hands,
                "decisions": len(wall),
                "wall_p50_ms": round(percentile(wall, 0.5) * 1000, 3),
                "wall_p95_ms": round(percentile(wall, 0.95) * 1000, 3),
                "wall_max_ms": round(max(wall) * 1000, 3),
                "cpu_p50_ms": round(percentile(cpu, 0.5) * 1000, 3),
                "cpu_p95_ms": round(percentile(cpu, 0.95) * 1000, 3),
                "budget": {
                    "max_samples": budget.max_samples,
                    "max_ms": budget.max_ms,
                    "tricks_ahead": budget.tricks_ahead,
                },
                "searched": len(work),
                "deals_p50": percentile([w[0] for w in work], 0.5) if work else None,
                "playouts_p50": percentile([w[1] for w in work], 0.5) if work else None,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
