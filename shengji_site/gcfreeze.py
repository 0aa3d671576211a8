"""Start-up objects left out of the garbage collector's scans (``gc.freeze``).

A server process holds some 150,000 objects from start-up (Django, the site's modules, the URL
patterns' views, the tasks) that live as long as it does. A full collection scanned them all:
85–90 ms with the process stopped (docs/proof/LOAD.md, *Garbage collection*). Frozen, they are
never scanned; objects made afterwards are collected as before. ``SHENGJI_GC_FREEZE=0`` keeps
them scanned (docs/OPERATIONS.md).
"""

from __future__ import annotations

import gc
import os


def freeze_start_up_objects() -> bool:
    """Collect once, then freeze what is left; False (nothing done) when the setting says no."""
    if os.environ.get("SHENGJI_GC_FREEZE", "1") == "0":
        return False
    gc.collect()
    gc.freeze()
    return True
