"""How long a thread of a server process may hold the interpreter lock while another waits
for it (``sys.setswitchinterval``).

A server process runs its sockets on one event loop thread and the database work of the
locking paths (a ready, a hand's start, a state read) in a pool of threads. While a pool
thread runs Python it holds the interpreter lock; the loop, wanting it back for a frame,
waits until the holder is asked to drop it: Python's switch interval, 5 ms, each time, and
again whenever another pool thread takes the lock first. ``SHENGJI_SWITCH_INTERVAL_MS``
sets that interval (docs/OPERATIONS.md); empty keeps Python's.
"""

from __future__ import annotations

import os
import sys


def set_switch_interval() -> float | None:
    """Apply ``SHENGJI_SWITCH_INTERVAL_MS``; the interval set, in seconds (None: unchanged)."""
    text = os.environ.get("SHENGJI_SWITCH_INTERVAL_MS", "").strip()
    if not text:
        return None
    try:
        seconds = float(text) / 1000
    except ValueError:
        raise SystemExit(f"SHENGJI_SWITCH_INTERVAL_MS must be milliseconds, not {text!r}") from None
    if not 0 < seconds <= 1:
        raise SystemExit("SHENGJI_SWITCH_INTERVAL_MS must be more than 0 and at most 1000")
    sys.setswitchinterval(seconds)
    return seconds
