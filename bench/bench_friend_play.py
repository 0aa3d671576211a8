"""What a friend's play is worth to its dealer in 找朋友: the same deals played twice, once by
the basic bot in every seat and once by its ablation ``friendblind`` in every seat (the basic
bot, except that no seat but the dealer ever plays as the dealer's friend, before its reveal or
after; docs/BOTS.md). The attackers and the dealer play alike in both runs, so the difference is
the friends' play alone.

Run: ``.venv/bin/python bench/bench_friend_play.py --players 6 --decks 3 --deals 300 --jobs 2``.
Prints one JSON line: per deal, the points the dealer's side took in tricks (its seats'
captured points at the end), the attackers' X (trick points, kitty bonus and penalties:
RULES-SPEC.md §5.6) and the dealer side's levels (levels gained when it keeps the deal, minus
when the attackers take it), each as the mean for ``basic``, for ``friendblind`` and their
paired difference with a 95 % confidence interval over the deals.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from multiprocessing import get_context
from typing import Any

from shengji.bots import HandStats, make_bot, play_hand
from shengji.bots.legality import shape_rules
from shengji.bots.match import deal_hand, derive_seed
from shengji.engine.rules import RuleSet

BOTS = ("basic", "friendblind")
FIGURES = ("dealer_side_points", "attacker_x", "dealer_side_levels")


def play_one(rules: RuleSet, seed: int, index: int, bot: str) -> dict[str, float]:
    """Deal ``index`` played by ``bot`` in every seat: the dealer side's figures."""
    state = deal_hand(rules, seed, index)
    players = len(state.hands)
    bots = [make_bot(bot, derive_seed(seed, index, seat)) for seat in range(players)]
    stats = HandStats()
    play_hand(state, bots, stats)
    result = state.result
    assert result is not None and not stats.refused, stats.refused
    kept = result.winner == "defenders"
    return {
        "dealer_side_points": float(result.defender_points),
        "attacker_x": float(result.attacker_points),
        "dealer_side_levels": float(result.levels_gained if kept else -result.levels_gained),
    }


def play_deals(args: tuple[RuleSet, int, list[int]]) -> list[dict[str, dict[str, float]]]:
    rules, seed, indexes = args
    return [{bot: play_one(rules, seed, i, bot) for bot in BOTS} for i in indexes]


def mean_ci(values: Sequence[float]) -> dict[str, Any]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1)) if n > 1 else math.nan
    half = 1.96 * sd / math.sqrt(n) if n > 1 else math.nan
    return {"mean": round(mean, 3), "ci95": [round(mean - half, 3), round(mean + half, 3)]}


def summary(deals: list[dict[str, dict[str, float]]]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name in FIGURES:
        aware = [d["basic"][name] for d in deals]
        blind = [d["friendblind"][name] for d in deals]
        figures[name] = {
            "basic": round(sum(aware) / len(aware), 3),
            "friendblind": round(sum(blind) / len(blind), 3),
            "difference": mean_ci([a - b for a, b in zip(aware, blind, strict=True)]),
        }
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--decks", type=int, default=3)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    rules = shape_rules("ranked", f"{args.players}/{args.decks}/friends")
    indexes = list(range(args.deals))
    chunks = [(rules, args.seed, indexes[j :: args.jobs]) for j in range(args.jobs)]
    with get_context("fork").Pool(args.jobs) as pool:
        deals = [d for part in pool.map(play_deals, chunks) for d in part]
    line = {
        "players": args.players,
        "decks": args.decks,
        "mode": "friends",
        "rules": "ranked",
        "seed": args.seed,
        "deals": len(deals),
        **summary(deals),
    }
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
