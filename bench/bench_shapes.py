"""Self-play speed of every table shape (RULES-SPEC.md §9.1), with every check on.

Run: ``.venv/bin/python bench/bench_shapes.py [--hands N] [--rounds R] [--seed S]``. For each
shape it plays N random hands through ``shengji.engine.selfplay.run`` (cards and points
conserved, every seat's view checked at the first lead and at the end, every hand replayed
from its JSON record), R rounds in turn so a noisy machine slows every shape alike, and prints
one JSON line per shape: the median over rounds of hands per CPU second of this process (the
figure to compare) and of hands per wall second.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shengji.engine.rules import preset
from shengji.engine.selfplay import run

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
    args = parser.parse_args()
    cpu: dict[tuple[int, int, str], list[float]] = {shape: [] for shape in SHAPES}
    wall: dict[tuple[int, int, str], list[float]] = {shape: [] for shape in SHAPES}
    for _ in range(args.rounds):
        for shape in SHAPES:
            players, decks, mode = shape
            rules = preset("ranked")
            if shape != (4, 2, "tractor"):
                rules = rules.with_options(name="ranked", players=players, decks=decks, mode=mode)
            started_cpu, started = time.process_time(), time.perf_counter()
            run(rules, args.hands, args.seed)
            cpu[shape].append(args.hands / (time.process_time() - started_cpu))
            wall[shape].append(args.hands / (time.perf_counter() - started))
    for shape in SHAPES:
        players, decks, mode = shape
        line = {
            "players": players,
            "decks": decks,
            "mode": mode,
            "hands": args.hands,
            "rounds": args.rounds,
            "hands_per_cpu_second": round(statistics.median(cpu[shape]), 1),
            "hands_per_second": round(statistics.median(wall[shape]), 1),
        }
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
