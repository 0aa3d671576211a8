"""Paired-deal evaluation: ``python -m shengji.bots.match A B --deals N --seed S
[--players P --decks D --mode M]``.

Each deal is played twice with the same seed (the same cards in the same seats): first with
bot A in the even seats and bot B in the odd seats, then swapped, so card luck cancels. Deal
``i`` has its own seed (from ``S`` and ``i``), dealer ``i mod players`` and one level for every
team (or, in 找朋友, every player) drawn from its seed; it is a later hand of a match (the
dealer is known, bidding picks the trump). Prints, for A against B: mean levels gained per
hand (the levels each of A's seats went up, on average, minus the same for B's seats; at four
seats in tractor mode, A's side's levels up minus the other side's) with a 95 % confidence
interval over the paired deals, hands won (a hand is A's when A's seats gained more on
average), and each bot's decision time (calling, burying and playing) p50 and p95. ``--jobs``
spreads the deals over processes; the figures do not depend on it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing import get_context
from random import Random
from typing import Any

from shengji.bots import BOTS, Bot, make_bot
from shengji.bots.play import HandStats, play_hand
from shengji.bots.search import SearchBudget
from shengji.engine.cards import RANKS
from shengji.engine.hand import HandState, new_hand
from shengji.engine.rules import PRESET_NAMES, RuleSet, preset

BOT_NAMES = BOTS
DEFAULT_BUDGET = SearchBudget()


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (stable across runs and processes)."""
    text = "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def deal_hand(rules: RuleSet, seed: int, index: int) -> HandState:
    """Deal ``index`` of a run: its own seed, dealer ``index % players``, one level for every
    team (找朋友: every player)."""
    hand_seed = derive_seed(seed, "deal", index)
    level = RANKS[Random(hand_seed).randrange(len(RANKS))]
    players = players_of_rules(rules)
    if players == 4 and mode_of_rules(rules) == "tractor":
        return new_hand(rules, hand_seed, levels=(level, level), dealer=index % 4)
    slots = players if mode_of_rules(rules) == "friends" else 2
    return new_hand(rules, hand_seed, levels=(level,) * slots, dealer=index % players)


def players_of_rules(rules: RuleSet) -> int:
    return int(getattr(rules, "players", 4))


def mode_of_rules(rules: RuleSet) -> str:
    return str(getattr(rules, "mode", "tractor"))


def seat_gains(result: Any, players: int) -> list[int]:
    """Levels each seat went up in a played hand (the small-side bonus included)."""
    winners = getattr(result, "winning_seats", None)
    if winners is None:
        winners = tuple(range(result.winning_team, players, 2))
    gained = result.levels_gained + int(getattr(result, "small_side_bonus", 0) or 0)
    return [gained if s in winners else 0 for s in range(players)]


@dataclass(slots=True)
class DealResult:
    """One paired deal: A's signed levels and whether A's side won, in each of the two hands,
    and the decision times of A's and B's seats."""

    index: int
    levels: list[float] = field(default_factory=list)
    won: list[bool] = field(default_factory=list)
    times_a: list[float] = field(default_factory=list)
    times_b: list[float] = field(default_factory=list)
    checked: int = 0
    refused: list[tuple[int, str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Setup:
    a: str
    b: str
    seed: int
    rules: RuleSet
    budget: SearchBudget


def play_deal(setup: Setup, index: int) -> DealResult:
    """Both hands of paired deal ``index``."""
    result = DealResult(index)
    players = players_of_rules(setup.rules)
    for swap in (0, 1):
        state = deal_hand(setup.rules, setup.seed, index)
        bots: list[Bot] = []
        for seat in range(players):
            name = setup.a if seat % 2 == swap else setup.b
            bots.append(make_bot(name, derive_seed(setup.seed, index, swap, seat), setup.budget))
        stats = HandStats()
        play_hand(state, bots, stats)
        hand_result = state.result
        assert hand_result is not None
        if players == 4 and mode_of_rules(setup.rules) == "tractor":
            team_a = swap
            gained = hand_result.levels_gained
            won = hand_result.winning_team == team_a
            result.levels.append(gained if won else -gained)
        else:
            gains = seat_gains(hand_result, players)
            mine = [g for s, g in enumerate(gains) if s % 2 == swap]
            theirs = [g for s, g in enumerate(gains) if s % 2 != swap]
            margin = sum(mine) / len(mine) - sum(theirs) / len(theirs)
            result.levels.append(margin)
            # Won: a larger share of A's seats than of B's on the winning side.
            winners = [g > 0 or s in (hand_result.winning_seats or ()) for s, g in enumerate(gains)]
            share_a = sum(w for s, w in enumerate(winners) if s % 2 == swap) / len(mine)
            share_b = sum(w for s, w in enumerate(winners) if s % 2 != swap) / len(theirs)
            won = share_a > share_b
        result.won.append(won)
        for seat in range(players):
            (result.times_a if seat % 2 == swap else result.times_b).extend(stats.times[seat])
        result.checked += stats.checked
        result.refused.extend(stats.refused)
    return result


def _play_chunk(args: tuple[Setup, list[int]]) -> list[DealResult]:
    setup, indexes = args
    return [play_deal(setup, i) for i in indexes]


def run(setup: Setup, deals: int, *, start: int = 0, jobs: int = 1) -> list[DealResult]:
    """Play ``deals`` paired deals from index ``start``, over ``jobs`` processes."""
    indexes = list(range(start, start + deals))
    if jobs <= 1:
        return _play_chunk((setup, indexes))
    chunks = [(setup, indexes[j::jobs]) for j in range(jobs)]
    with get_context("fork").Pool(jobs) as pool:
        parts = pool.map(_play_chunk, chunks)
    results = [r for part in parts for r in part]
    results.sort(key=lambda r: r.index)
    return results


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest rank, or NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def summary(setup: Setup, results: Sequence[DealResult]) -> dict[str, Any]:
    """The figures of a run (see the module doc)."""
    per_deal = [sum(r.levels) / len(r.levels) for r in results]
    n = len(per_deal)
    mean = sum(per_deal) / n if n else math.nan
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_deal) / (n - 1)) if n > 1 else math.nan
    half = 1.96 * sd / math.sqrt(n) if n > 1 else math.nan
    hands = sum(len(r.won) for r in results)
    won_a = sum(sum(r.won) for r in results)
    times_a = [t for r in results for t in r.times_a]
    times_b = [t for r in results for t in r.times_b]
    refused = [x for r in results for x in r.refused]
    return {
        "a": setup.a,
        "b": setup.b,
        "rules": setup.rules.name,
        "players": players_of_rules(setup.rules),
        "decks": int(getattr(setup.rules, "decks", 2)),
        "mode": mode_of_rules(setup.rules),
        "seed": setup.seed,
        "deals": n,
        "hands": hands,
        "levels_per_hand": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "hands_won": {"a": won_a, "b": hands - won_a},
        "decision_ms": {
            "a": decision_times(times_a),
            "b": decision_times(times_b),
        },
        "actions_checked": sum(r.checked for r in results),
        "refused": len(refused),
        "search_budget": {
            "max_samples": setup.budget.max_samples,
            "max_ms": setup.budget.max_ms,
            "candidates": setup.budget.candidates,
        },
    }


def decision_times(times: Sequence[float]) -> dict[str, float | int]:
    """How many decisions, and their p50 and p95 in milliseconds."""
    return {
        "n": len(times),
        "p50": round(percentile(times, 0.5) * 1000, 3),
        "p95": round(percentile(times, 0.95) * 1000, 3),
    }


def report(figures: dict[str, Any]) -> str:
    a, b = figures["a"], figures["b"]
    low, high = figures["ci95"]
    won = figures["hands_won"]
    times = figures["decision_ms"]
    lines = [
        f"{a} (A) against {b} (B): {figures['deals']} paired deals, {figures['hands']} hands, "
        f"rules {figures['rules']}, {figures['players']} players, {figures['decks']} decks, "
        f"{figures['mode']}, seed {figures['seed']}",
        f"levels per hand for {a}: {figures['levels_per_hand']:+.3f} "
        f"(95% CI {low:+.3f} .. {high:+.3f})",
        f"hands won: {a} {won['a']}, {b} {won['b']} "
        f"({100.0 * won['a'] / max(1, figures['hands']):.1f}% for {a})",
    ]
    for key, name in (("a", a), ("b", b)):
        t = times[key]
        lines.append(
            f"decision time {name} ({key.upper()}): p50 {t['p50']:.2f} ms, p95 {t['p95']:.2f} ms "
            f"over {t['n']} decisions"
        )
    lines.append(f"actions checked: {figures['actions_checked']}, refused: {figures['refused']}")
    return "\n".join(lines)


def table_rules(name: str, args: argparse.Namespace) -> RuleSet:
    """The preset with the table shape of the command line (a classic table: the preset)."""
    rules = preset(name)
    if args.players == 4 and args.decks in (0, 2) and args.mode == "tractor":
        return rules
    return shaped(rules, args.players, args.decks, args.mode)


def shaped(rules: RuleSet, players: int, decks: int, mode: str) -> RuleSet:
    """``rules`` at a table of ``players`` seats, ``decks`` decks (0: the default) in ``mode``."""
    return rules.with_options(players=players, decks=decks, mode=mode, name=rules.name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shengji.bots.match", description=__doc__)
    parser.add_argument("a", choices=BOT_NAMES)
    parser.add_argument("b", choices=BOT_NAMES)
    parser.add_argument("--deals", type=int, default=100, help="paired deals (2 hands each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="index of the first deal")
    parser.add_argument("--rules", default="ranked", choices=PRESET_NAMES)
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--search-samples", type=int, default=DEFAULT_BUDGET.max_samples)
    parser.add_argument(
        "--search-ms", type=float, default=DEFAULT_BUDGET.max_ms, help="0: no time limit"
    )
    parser.add_argument("--search-candidates", type=int, default=DEFAULT_BUDGET.candidates)
    parser.add_argument("--players", type=int, default=4, help="4..8")
    parser.add_argument("--decks", type=int, default=0, help="2..4; 0: the default for players")
    parser.add_argument("--mode", default="tractor", choices=("tractor", "friends"))
    parser.add_argument("--json", action="store_true", help="print one JSON line instead")
    args = parser.parse_args(argv)
    budget = SearchBudget(
        max_samples=args.search_samples,
        max_ms=args.search_ms or None,
        candidates=args.search_candidates,
    )
    setup = Setup(args.a, args.b, args.seed, table_rules(args.rules, args), budget)
    results = run(setup, args.deals, start=args.start, jobs=args.jobs)
    figures = summary(setup, results)
    print(json.dumps(figures) if args.json else report(figures), flush=True)
    return 1 if figures["refused"] else 0


if __name__ == "__main__":
    sys.exit(main())
