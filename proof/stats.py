"""Summary statistics of the benches' samples: nearest-rank percentiles, in milliseconds."""

from __future__ import annotations

import math
from typing import Any


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def rounded(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def summary_ms(seconds: list[float]) -> dict[str, Any]:
    """n, p50, p95, p99 and max of samples in seconds, in milliseconds (None for no samples)."""
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50": rounded(percentile(ms, 50)),
        "p95": rounded(percentile(ms, 95)),
        "p99": rounded(percentile(ms, 99)),
        "max": rounded(max(ms) if ms else None),
    }


def ratio(game: dict[str, Any], floor: dict[str, Any]) -> float | None:
    """p99 of one ``summary_ms`` over another's (None when either has none)."""
    if not game["p99"] or not floor["p99"]:
        return None
    return round(float(game["p99"]) / float(floor["p99"]), 2)
