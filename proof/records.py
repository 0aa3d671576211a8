"""Stored records replay byte for byte: a file of hand records, each with a digest of every
view its replay shows (each seat's and the public one, at every step) and of its result.

``--write FILE`` plays hands of every preset and every table shape with random play and
writes them; ``--check FILE`` replays each record with the engine of this checkout and exits 1
on the first record whose views or result differ in one byte. tests/engine/data/records.jsonl
was written by the engine as it was when it lived in the games app (games/engine/, before the
core became the package ``shengji``); tests/engine/test_records_unchanged.py checks it.

    python proof/records.py --check tests/engine/data/records.jsonl

The script imports the engine from ``games.engine`` when that exists (an older checkout) and
from ``shengji.engine`` otherwise, so the same file writes with either.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator, Sequence
from random import Random
from typing import Any

try:  # an older checkout: the engine inside the games app
    from games.engine.hand import new_hand  # type: ignore[import-not-found, unused-ignore]
    from games.engine.random_play import (  # type: ignore[import-not-found, unused-ignore]
        RandomPolicy,
        play_random,
    )
    from games.engine.record import (  # type: ignore[import-not-found, unused-ignore]
        HandRecord,
        record_of,
        replay,
    )
    from games.engine.rules import PRESET_NAMES, preset  # type: ignore[import-not-found, unused-ignore]
    from games.engine.views import view_for, view_public  # type: ignore[import-not-found, unused-ignore]
except ImportError:
    from shengji.engine.hand import new_hand
    from shengji.engine.random_play import RandomPolicy, play_random
    from shengji.engine.record import HandRecord, record_of, replay
    from shengji.engine.rules import PRESET_NAMES, preset
    from shengji.engine.views import view_for, view_public

# (players, decks, mode) beyond the four-player presets: RULES-SPEC.md §9.1.
SHAPES = [
    (5, 2, "friends"),
    (6, 3, "friends"),
    (6, 3, "tractor"),
    (7, 3, "friends"),
    (8, 4, "friends"),
    (8, 4, "tractor"),
]
HANDS_EACH = 3
RANKS = "23456789TJQKA"


def _rules_to_play() -> Iterator[tuple[str, Any]]:
    for name in PRESET_NAMES:
        yield name, preset(name)
    for players, decks, mode in SHAPES:
        rules = preset("ranked").with_options(players=players, decks=decks, mode=mode)
        yield f"ranked-{players}p{decks}d-{mode}", rules


def _levels(rules: Any, seed: int) -> tuple[str, ...]:
    """Levels of every side (each player's in 找朋友), a different rank for each hand."""
    slots = rules.players if rules.is_friends else 2
    spread = 0 if seed == 0 else 3  # a first hand: everyone at one level
    return tuple(RANKS[(seed * 5 + slot * spread) % len(RANKS)] for slot in range(slots))


def _dealer(rules: Any, seed: int) -> int | None:
    """No dealer for the first hand (the bid decides it), then a seat by the seed."""
    return None if seed == 0 else seed % rules.players


def digest_of(record: Any) -> str:
    """sha256 of every view of every step of the record's replay, and of its result."""
    digest = hashlib.sha256()
    for state in replay(record):
        for seat in range(state.players):
            digest.update(json.dumps(view_for(state, seat), sort_keys=True).encode())
        digest.update(json.dumps(view_public(state), sort_keys=True).encode())
        last = state
    digest.update(repr(last.result).encode())
    return digest.hexdigest()


def write(path: str) -> int:
    rows = []
    for name, rules in _rules_to_play():
        for seed in range(HANDS_EACH):
            state = new_hand(rules, seed, levels=_levels(rules, seed), dealer=_dealer(rules, seed))
            state = play_random(state, Random(seed), RandomPolicy(throw_rate=0.2))
            record = record_of(state)
            rows.append({"name": name, "record": record.to_json(), "digest": digest_of(record)})
    with open(path, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, sort_keys=True) + "\n")
    print(f"{len(rows)} records written to {path}")
    return 0


def check(path: str) -> int:
    with open(path, encoding="utf-8") as stored:
        rows = [json.loads(line) for line in stored]
    for row in rows:
        record = HandRecord.from_json(row["record"])
        if record.to_json() != row["record"]:
            print(f"{row['name']}: the record does not read back as written")
            return 1
        if digest_of(record) != row["digest"]:
            print(f"{row['name']}: its replay's views or result differ")
            return 1
    print(f"{len(rows)} records replay byte for byte")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="FILE")
    action.add_argument("--check", metavar="FILE")
    args = parser.parse_args(argv)
    return write(args.write) if args.write else check(args.check)


if __name__ == "__main__":
    sys.exit(main())
