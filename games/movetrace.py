"""Marks along a one-statement move's path through its ASGI process, for the load bench's
``--trace`` to time (docs/proof/LOAD.md, *A move's time by part*): for the move made at
``seq``, ``planned`` (checked against the kept state), ``written`` (the statement answered;
the views are encoded meanwhile) and ``views`` (the group's message ready: the deadline added,
the state and facts kept); and ``sent`` with the view's own seq (``seq`` + 1) for each view
frame a socket writes.

Nothing by default. The bench serves the site through its own ASGI application
(proof/load/traced_asgi.py), which sets ``mark`` to one that writes the marks down; the site
imports nothing of the bench.
"""

from __future__ import annotations

from collections.abc import Callable


def _unmarked(kind: str, hand: int, seq: int) -> None:
    return None


mark: Callable[[str, int, int], None] = _unmarked
