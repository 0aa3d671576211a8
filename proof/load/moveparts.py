"""A one-statement move's time by part (``bench/bench_ws_load.py --trace``): the site's marks
(proof/load/traced_asgi.py) joined, by hand and seq, with each move's send and the moment its last
seat saw it (``latency.table_figures``' ``moves``). All on ``time.monotonic()``.

The marks are written down in the site's ASGI processes by ``marks_written_to``, which the
bench's site installs (it serves ``TRACED_APPLICATION``, proof/load/traced_asgi.py, with
``SHENGJI_MOVE_TRACE`` naming a folder): each process appends a line per mark to a file of its
own there, ``<mark> <hand> <seq> <time>``, the time by ``time.monotonic()`` (CLOCK_MONOTONIC:
one clock for every process of the machine, so the bench's clients' times compare). Each mark is
a small write of its own, so a traced run costs a little more than an untraced one.

Parts, each from one mark to the next: *in* (the client's send → the move checked against the
kept state: the frame read, the consumer, the engine), *statement* (its round trip to
PostgreSQL, while the views are encoded), *views* (→ the group's message ready: any encoding
the answer came before, the deadline added, the state and facts kept), *frames* (→ the last
of the move's view frames written to its socket), *to the last seat* (→ the last seat's client
has it: the network and the client process), and *whole* (the latency the bench reports). A
move that took the locking path, or whose marks are missing, is left out.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from statistics import mean
from typing import Any, TextIO

from proof.stats import percentile, rounded

FOLDER_ENV = "SHENGJI_MOVE_TRACE"
TRACED_APPLICATION = "proof.load.traced_asgi:application"
MARKS = ("planned", "written", "views")
PARTS = (
    ("in", "sent", "planned"),
    ("statement", "planned", "written"),
    ("views", "written", "views"),
    ("frames", "views", "last_frame"),
    ("to the last seat", "last_frame", "last_seen"),
    ("whole", "sent", "last_seen"),
)


def marks_written_to(folder: Path) -> Callable[[str, int, int], None]:
    """The mark ``traced_asgi.trace_moves`` is given: it appends each mark to
    ``server-<pid>.txt`` in ``folder`` (opened at the first mark, by the process that makes
    it)."""
    opened: list[TextIO] = []

    def mark(kind: str, hand: int, seq: int) -> None:
        if not opened:
            opened.append((folder / f"server-{os.getpid()}.txt").open("a", buffering=1))
        opened[0].write(f"{kind} {hand} {seq} {time.monotonic():.6f}\n")

    return mark


def read_marks(folder: Path) -> dict[tuple[int, int], dict[str, float]]:
    """Each move's marks by (hand, seq before the move); ``last_frame``: the last ``sent``."""
    marks: dict[tuple[int, int], dict[str, float]] = {}
    for path in sorted(folder.glob("server-*.txt")):
        for line in path.read_text().splitlines():
            kind, hand, seq, at = line.split()
            if kind == "sent":
                move = marks.setdefault((int(hand), int(seq) - 1), {})
                move["last_frame"] = max(move.get("last_frame", 0.0), float(at))
            else:
                marks.setdefault((int(hand), int(seq)), {})[kind] = float(at)
    return marks


def move_parts(
    moves: list[list[Any]], marks: dict[tuple[int, int], dict[str, float]]
) -> dict[str, Any]:
    """p50, p90 and p99 of each part (ms), and each part's mean over the slowest 1 % of moves.
    ``moves``: [hand, seq, sent, last seen] for each action sent."""
    rows = []
    for hand, seq, sent, last in moves:
        marked = marks.get((hand, seq), {})
        if not all(kind in marked for kind in (*MARKS, "last_frame")):
            continue
        times = {**marked, "sent": sent, "last_seen": last}
        rows.append({name: (times[end] - times[start]) * 1000 for name, start, end in PARTS})
    if not rows:
        return {"moves": 0}
    slowest = sorted(rows, key=lambda row: row["whole"])[-max(1, len(rows) // 100) :]
    return {
        "moves": len(rows),
        "parts_ms": {
            name: {f"p{p}": rounded(percentile([r[name] for r in rows], p)) for p in (50, 90, 99)}
            for name, _, _ in PARTS
        },
        "slowest_1pct_mean_ms": {
            name: rounded(mean(r[name] for r in slowest)) for name, _, _ in PARTS
        },
    }


def format_parts(parts: dict[str, Any]) -> str:
    if not parts.get("moves"):
        return "move parts: no one-statement move was traced"
    lines = [f"a one-statement move by part (ms), {parts['moves']} moves traced:"]
    lines.append(f"  {'part':<18}{'p50':>8}{'p90':>8}{'p99':>8}{'slowest 1 %':>13}")
    for name, figures in parts["parts_ms"].items():
        slow = parts["slowest_1pct_mean_ms"][name]
        row = "".join(f"{figures[p]:>8}" for p in ("p50", "p90", "p99"))
        lines.append(f"  {name:<18}{row}{slow:>13}")
    return "\n".join(lines)
