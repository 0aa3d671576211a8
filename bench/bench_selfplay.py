"""Self-play speed of the engine, per preset: whole random hands per second on one core.

Run: ``.venv/bin/python bench/bench_selfplay.py [--hands N]``. Prints one JSON line per preset
with hands per second including the replay check of every hand, and for the play alone.
"""

from __future__ import annotations

import argparse
import json

from shengji.engine.rules import PRESET_NAMES, preset
from shengji.engine.selfplay import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name in PRESET_NAMES:
        figures = run(preset(name), args.hands, args.seed)
        keep = ("rules", "hands", "seconds", "hands_per_second", "play_hands_per_second")
        print(json.dumps({k: figures[k] for k in keep}), flush=True)


if __name__ == "__main__":
    main()
