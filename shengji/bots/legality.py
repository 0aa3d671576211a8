"""Legality run: ``python -m shengji.bots.legality --bot basic --hands 10000 --jobs 2
[--shape 6/3/friends]``.

Plays whole matches with the same bot in every seat, the presets taken in turn (hand ``i``
under ``PRESET_NAMES[i % 5]``, each preset in its own succession of matches, so first hands
with bidding for the dealer and later hands at every level occur), at the table shape
``players/decks/mode`` (default ``4/2/tractor``, the classic table). Every bid, call, bury
and play a bot returns is checked with the engine's ``check_action`` before it is applied;
after each hand the engine's self-play invariants (cards and points conserved) and the
replay of the hand's record are checked. Prints one JSON line; exits 1 when any action was
refused. ``--max-seconds S`` starts no hand after S seconds (the line then gives the hands
completed and ``"stopped": true``); ``--progress N`` prints the counts so far to stderr every
N hands of each process (under ``--house-options random`` too). ``--first F`` plays only the
hands numbered ``F`` to ``hands - 1``, so a long run can be made in parts that together are the
run of ``--hands`` alone (hands are numbered, seeded and given presets alike; a part starts its
matches afresh).

``--house-options random`` plays under random house options instead of the presets
(RULES-SPEC.md §10, ``shengji.engine.random_options``): the hands go in blocks of
``--hands-per-rules``; block ``b`` draws its own valid rule set at shape ``b`` of
``random_options.SHAPES`` (or at ``--shape`` when one is given) and plays its hands in one
match started at random levels and dealer. A block depends only on the seed and its number,
so parts and processes play the same hands as one run. Every seat's view is checked at the
first lead and after every trick (only its own cards, the kitty, the hidden points of
RULES-SPEC.md §10.8).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from multiprocessing import get_context
from random import Random
from typing import Any

from shengji.bots import BOTS, make_bot
from shengji.bots.match import derive_seed, shaped
from shengji.bots.play import HandStats, play_hand
from shengji.bots.search import SearchBudget
from shengji.engine.hand import HandState
from shengji.engine.match import Match
from shengji.engine.random_options import SHAPES as RANDOM_SHAPES
from shengji.engine.random_options import changed_options, random_house_rules, random_start
from shengji.engine.rules import PRESET_NAMES, RuleSet, preset
from shengji.engine.selfplay import check_invariants, check_replay, check_views

CLASSIC = "4/2/tractor"
SHAPES = (
    "5/2/friends",
    "6/3/friends",
    "6/3/tractor",
    "7/3/friends",
    "8/4/friends",
    "8/4/tractor",
)
"""The table shapes of issue 31's legality figures."""


def shape_rules(name: str, shape: str) -> RuleSet:
    """Preset ``name`` at the table ``shape`` (``players/decks/mode``)."""
    if shape == CLASSIC:
        return preset(name)
    players, decks, mode = shape.split("/")
    return shaped(preset(name), int(players), int(decks), mode)


def new_counts() -> dict[str, Any]:
    return {"hands": 0, "actions_checked": 0, "decisions": 0, "refused": [], "stopped": False}


def play_counted(
    match: Match,
    bot: str,
    seed: int,
    number: int,
    budget: SearchBudget,
    counts: dict[str, Any],
    label: str,
    check: Callable[[HandState], None] | None = None,
) -> HandState:
    """Hand ``number`` of ``match``, ``bot`` in every seat, every action checked; then the
    self-play invariants and the replay. Adds it to ``counts``; a refusal is kept with
    ``label`` (the preset's name, or the rule set) and the hand's number."""
    state = match.start_hand()
    bots = [make_bot(bot, derive_seed(seed, number, s), budget) for s in range(state.players)]
    stats = HandStats()
    play_hand(state, bots, stats, check=check)
    match.finish_hand()
    check_invariants(state)
    check_replay(state)
    counts["hands"] += 1
    counts["actions_checked"] += stats.checked
    counts["decisions"] += sum(len(t) for t in stats.times)
    counts["refused"] += [(label, number, *r) for r in stats.refused]
    return state


def report_progress(counts: dict[str, Any], every: int, started: float, **about: Any) -> None:
    """Every ``every`` hands of a process, its counts so far to stderr (``--progress``)."""
    if every and counts["hands"] % every == 0:
        so_far = {**counts, "refused": len(counts["refused"])}
        so_far["seconds"] = round(time.perf_counter() - started, 1)
        print(json.dumps({**about, **so_far}), file=sys.stderr, flush=True)


def run_part(
    bot: str,
    hands: Sequence[int],
    seed: int,
    budget: SearchBudget,
    shape: str = CLASSIC,
    stop_at: float | None = None,
    progress: int = 0,
) -> dict[str, Any]:
    """Play the hands numbered ``hands`` (see the module doc); the counts of this part. No
    hand is started after ``stop_at`` (``time.time()``)."""
    matches: dict[str, Match] = {}
    counts = new_counts()
    started = time.perf_counter()
    for number in hands:
        if stop_at is not None and time.time() >= stop_at:
            counts["stopped"] = True
            break
        name = PRESET_NAMES[number % len(PRESET_NAMES)]
        match = matches.get(name)
        if match is None or match.over:
            rules = shape_rules(name, shape)
            match_seed = (
                derive_seed(seed, name, number)
                if shape == CLASSIC
                else derive_seed(seed, name, shape, number)
            )
            match = Match(rules, match_seed)
            matches[name] = match
        play_counted(match, bot, seed, number, budget, counts, name)
        report_progress(counts, progress, started, bot=bot, shape=shape)
    counts["seconds"] = time.perf_counter() - started
    return counts


def block_rules(seed: int, block: int, shape: str | None) -> tuple[RuleSet, Match]:
    """Block ``block``'s random rule set and the match its hands start in."""
    rng = Random(derive_seed(seed, "house", block))
    if shape is None or shape == "any":
        players, decks, mode = RANDOM_SHAPES[block % len(RANDOM_SHAPES)]
    else:
        words = shape.split("/")
        players, decks, mode = int(words[0]), int(words[1]), words[2]
    rules = random_house_rules(rng, players, decks, mode)
    levels, dealer = random_start(rng, rules)
    return rules, Match(rules, rng.getrandbits(63), levels=levels, dealer=dealer)


def run_random_part(
    bot: str,
    blocks: Sequence[int],
    seed: int,
    budget: SearchBudget,
    hands_per_rules: int = 4,
    shape: str | None = None,
    stop_at: float | None = None,
    progress: int = 0,
) -> dict[str, Any]:
    """Play the hands of the numbered ``blocks`` under random house options (see the module
    doc); the counts of this part, with how often each option was changed."""
    counts = new_counts()
    options: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    started = time.perf_counter()
    for block in blocks:
        rules, match = block_rules(seed, block, shape)
        label = rules.to_json()  # a refusal names its rule set
        options.update(changed_options(rules).keys())
        for offset in range(hands_per_rules):
            if stop_at is not None and time.time() >= stop_at:
                counts["stopped"] = True
                break
            number = block * hands_per_rules + offset
            if match.over:
                match = Match(rules, derive_seed(seed, "again", number))
            state = play_counted(match, bot, seed, number, budget, counts, label, check_views)
            failed.update(f.result for f in state.failed_throws)
            report_progress(counts, progress, started, bot=bot, house_options="random")
    counts["options_changed"] = dict(options)
    counts["failed_throws"] = dict(failed)
    counts["seconds"] = time.perf_counter() - started
    return counts


Part = tuple[str, list[int], int, SearchBudget, str, float | None, int]
RandomPart = tuple[str, list[int], int, SearchBudget, int, str | None, float | None, int]


def _part(args: Part) -> dict[str, Any]:
    return run_part(*args)


def _random_part(args: RandomPart) -> dict[str, Any]:
    return run_random_part(*args)


def run_random(
    bot: str,
    hands: int,
    seed: int,
    jobs: int,
    budget: SearchBudget,
    hands_per_rules: int = 4,
    shape: str | None = None,
    max_seconds: float | None = None,
    progress: int = 0,
) -> dict[str, Any]:
    """``--house-options random``: ``hands`` hands in blocks (see the module doc)."""
    blocks = list(range(-(-hands // hands_per_rules)))
    stop_at = None if max_seconds is None else time.time() + max_seconds
    parts: list[RandomPart] = [
        (bot, blocks[j::jobs], seed, budget, hands_per_rules, shape, stop_at, progress)
        for j in range(jobs)
    ]
    started = time.perf_counter()
    if jobs <= 1:
        results = [_random_part(parts[0])]
    else:
        with get_context("fork").Pool(jobs) as pool:
            results = pool.map(_random_part, parts)
    refused = [r for part in results for r in part["refused"]]
    options: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for part in results:
        options.update(part["options_changed"])
        failed.update(part["failed_throws"])
    return {
        "bot": bot,
        "house_options": "random",
        "shape": shape or "any",
        "seed": seed,
        "hands": sum(p["hands"] for p in results),
        "hands_per_rules": hands_per_rules,
        "rule_sets": len(blocks),
        "stopped": any(p["stopped"] for p in results),
        "actions_checked": sum(p["actions_checked"] for p in results),
        "decisions": sum(p["decisions"] for p in results),
        "refused": len(refused),
        "first_refused": refused[:10],
        "failed_throws": dict(sorted(failed.items())),
        "options_changed": dict(sorted(options.items())),
        "seconds": round(time.perf_counter() - started, 1),
    }


def run(
    bot: str,
    hands: int,
    seed: int,
    jobs: int,
    budget: SearchBudget,
    shape: str = CLASSIC,
    max_seconds: float | None = None,
    progress: int = 0,
    first: int = 0,
) -> dict[str, Any]:
    numbers = list(range(first, hands))
    stop_at = None if max_seconds is None else time.time() + max_seconds
    # Each process keeps whole matches: hand numbers are dealt out by preset blocks.
    parts: list[Part] = [
        (bot, numbers[j::jobs], seed, budget, shape, stop_at, progress) for j in range(jobs)
    ]
    started = time.perf_counter()
    if jobs <= 1:
        results = [_part(parts[0])]
    else:
        with get_context("fork").Pool(jobs) as pool:
            results = pool.map(_part, parts)
    refused = [r for part in results for r in part["refused"]]
    return {
        "bot": bot,
        "shape": shape,
        "seed": seed,
        "hands": sum(p["hands"] for p in results),
        "hands_asked": len(numbers),
        "first": first,
        "stopped": any(p["stopped"] for p in results),
        "presets": list(PRESET_NAMES),
        "actions_checked": sum(p["actions_checked"] for p in results),
        "decisions": sum(p["decisions"] for p in results),
        "refused": len(refused),
        "first_refused": refused[:10],
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shengji.bots.legality", description=__doc__)
    parser.add_argument("--bot", default="basic", choices=BOTS)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--search-samples", type=int, default=8)
    parser.add_argument("--search-ms", type=float, default=0.0, help="0: no time limit")
    parser.add_argument("--search-candidates", type=int, default=SearchBudget().candidates)
    parser.add_argument(
        "--shape", default=None, help="players/decks/mode, e.g. 6/3/friends (default 4/2/tractor)"
    )
    parser.add_argument("--max-seconds", type=float, default=None, help="start no hand after")
    parser.add_argument("--progress", type=int, default=0, help="counts to stderr every N hands")
    parser.add_argument("--first", type=int, default=0, help="first hand number to play")
    parser.add_argument(
        "--house-options",
        default="preset",
        choices=("preset", "random"),
        help="random: random house options (RULES-SPEC.md §10), shapes in turn unless --shape",
    )
    parser.add_argument("--hands-per-rules", type=int, default=4)
    args = parser.parse_args(argv)
    budget = SearchBudget(
        max_samples=args.search_samples,
        max_ms=args.search_ms or None,
        candidates=args.search_candidates,
    )
    if args.house_options == "random":
        figures = run_random(
            args.bot,
            args.hands,
            args.seed,
            args.jobs,
            budget,
            args.hands_per_rules,
            args.shape,
            args.max_seconds,
            args.progress,
        )
        print(json.dumps(figures), flush=True)
        return 1 if figures["refused"] else 0
    figures = run(
        args.bot,
        args.hands,
        args.seed,
        args.jobs,
        budget,
        args.shape or CLASSIC,
        args.max_seconds,
        args.progress,
        args.first,
    )
    print(json.dumps(figures), flush=True)
    return 1 if figures["refused"] else 0


if __name__ == "__main__":
    sys.exit(main())
