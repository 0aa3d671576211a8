"""Self-play speed of every table shape (RULES-SPEC.md §9.1), with every check on.

Run: ``.venv/bin/python bench/bench_shapes.py [--hands N] [--rounds R] [--seed S]``
``[--house-options random] [--shape P/D/M]``. For each shape it plays N random hands through
``shengji.engine.selfplay.run`` (cards and points conserved, every seat's view checked at the
first lead and at the end, every hand replayed from its JSON record), R rounds in turn so a
noisy machine slows every shape alike, and prints one JSON line per shape: the median over
rounds of hands per CPU second of this process (the figure to compare) and of hands per wall
second.

``--house-options random`` plays through ``selfplay.run_random_options`` instead: random valid
house options (RULES-SPEC.md §10) drawn every three hands, each in a match started at random
levels, the views also checked after the third trick. ``--shape`` keeps one shape.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shengji.engine.rules import RuleSet, preset
from shengji.engine.selfplay import run, run_random_options

SHAPES = (
    (4, 2, "tractor"),
    (5, 2, "friends"),
    (6, 3, "friends"),
    (6, 3, "tractor"),
    (7, 3, "friends"),
    (8, 4, "friends"),
    (8, 4, "tractor"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--house-options", default="preset", choices=("preset", "random"))
    parser.add_argument("--shape", default="", help="players/decks/mode: this shape alone")
    args = parser.parse_args()
    shapes: tuple[tuple[int, int, str], ...] = SHAPES
    if args.shape:
        players, decks, mode = args.shape.split("/")
        shapes = ((int(players), int(decks), mode),)
    cpu: dict[tuple[int, int, str], list[float]] = {shape: [] for shape in shapes}
    wall: dict[tuple[int, int, str], list[float]] = {shape: [] for shape in shapes}
    for _ in range(args.rounds):
        for shape in shapes:
            started_cpu, started = time.process_time(), time.perf_counter()
            if args.house_options == "random":
                run_random_options(args.hands, args.seed, shapes=(shape,))
            else:
                run(_ranked(shape), args.hands, args.seed)
            cpu[shape].append(args.hands / (time.process_time() - started_cpu))
            wall[shape].append(args.hands / (time.perf_counter() - started))
    for shape in shapes:
        players, decks, mode = shape
        line = {
            "players": players,
            "decks": decks,
            "mode": mode,
            "house_options": args.house_options,
            "hands": args.hands,
            "rounds": args.rounds,
            "hands_per_cpu_second": round(statistics.median(cpu[shape]), 1),
            "hands_per_second": round(statistics.median(wall[shape]), 1),
        }
        print(json.dumps(line), flush=True)


def _ranked(shape: tuple[int, int, str]) -> RuleSet:
    rules = preset("ranked")
    if shape == (4, 2, "tractor"):
        return rules
    players, decks, mode = shape
    return rules.with_options(name="ranked", players=players, decks=decks, mode=mode)


if __name__ == "__main__":
    main()
