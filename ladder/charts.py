"""Server-rendered line charts: an SVG polyline's points from a history (no JavaScript)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ladder.selectors import HistoryPoint


@dataclass(frozen=True)
class LineChart:
    points: str  # "x,y x,y …" for <polyline points="…">
    width: int
    height: int
    low: float
    high: float
    first_at: datetime
    last_at: datetime
    last_value: float
    count: int
    last_x: float  # the last point, marked with a dot (a history of one point draws no line)
    last_y: float


def line_chart(
    history: list[HistoryPoint], *, width: int = 320, height: int = 120, pad: int = 6
) -> LineChart | None:
    """Points evenly spaced in the order of the history (one per change), scaled to the box;
    the highest value at the top. None for an empty history."""
    if not history:
        return None
    values = [point.value for point in history]
    low, high = min(values), max(values)
    span = high - low or 1.0
    inner_w, inner_h = width - 2 * pad, height - 2 * pad
    last = len(values) - 1
    coords = []
    x = y = 0.0
    for index, value in enumerate(values):
        x = pad + (inner_w * index / last if last else inner_w / 2)
        y = pad + inner_h * (1 - (value - low) / span) if high > low else height / 2
        coords.append(f"{x:.1f},{y:.1f}")
    return LineChart(
        points=" ".join(coords),
        width=width,
        height=height,
        low=low,
        high=high,
        first_at=history[0].at,
        last_at=history[-1].at,
        last_value=values[-1],
        count=len(values),
        last_x=round(x, 1),
        last_y=round(y, 1),
    )
