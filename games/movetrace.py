"""A one-statement move's path through its ASGI process, timed: the load bench's ``--trace``
(docs/proof/LOAD.md, *A move's time by part*).

Off unless ``SHENGJI_MOVE_TRACE`` names a folder when the process starts. Then each process
appends a line per mark to a file of its own there, ``<mark> <hand> <seq> <time>``, the time by
``time.monotonic()`` (CLOCK_MONOTONIC: one clock for every process of the machine, so the
bench's clients' times compare). For the move made at ``seq``: ``planned`` (checked against
the kept state), ``written`` (the statement answered; the views are encoded meanwhile),
``views`` (the group's message ready: the deadline added, the state and facts kept); and
``sent`` with the view's own seq (``seq`` + 1) for each view frame a socket
writes. Each mark is a small write of its own.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TextIO

FOLDER = os.environ.get("SHENGJI_MOVE_TRACE") or None
_file: TextIO | None = None


def mark(kind: str, hand: int, seq: int) -> None:
    global _file
    if FOLDER is None:
        return
    if _file is None:
        _file = (Path(FOLDER) / f"server-{os.getpid()}.txt").open("a", buffering=1)
    _file.write(f"{kind} {hand} {seq} {time.monotonic():.6f}\n")
