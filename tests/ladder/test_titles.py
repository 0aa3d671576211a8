"""Title thresholds of RULES-SPEC.md §6, each at its edges."""

from __future__ import annotations

import pytest

from ladder.titles import TITLES, next_title, title_for

THRESHOLDS = [
    ("菜鳥", 0), ("平凡", 40), ("努力", 80), ("拼命", 130), ("幸運", 180), ("勇士", 230),
    ("高手", 290), ("強者", 360), ("王牌", 440), ("超人", 540), ("高級", 660), ("頂級", 820),
    ("超級", 1000),
]  # fmt: skip


def test_the_table_is_the_rules_table() -> None:
    assert [(t.name, t.min_points) for t in TITLES] == THRESHOLDS


@pytest.mark.parametrize(("name", "points"), THRESHOLDS)
def test_a_threshold_is_reached_at_equality(name: str, points: int) -> None:
    assert title_for(points).name == name
    assert title_for(points + 1).name == name


@pytest.mark.parametrize(
    ("below", "points"), [(THRESHOLDS[i - 1][0], THRESHOLDS[i][1]) for i in range(1, 13)]
)
def test_one_point_short_keeps_the_title_below(below: str, points: int) -> None:
    assert title_for(points - 1).name == below


def test_top_title_has_no_ceiling_and_no_next() -> None:
    assert title_for(10**6).name == "超級"
    assert next_title(1000) is None
    assert next_title(999).name == "超級"  # type: ignore[union-attr]
    assert next_title(0).name == "平凡"  # type: ignore[union-attr]
