"""Basic beats random on a fixed set of paired deals; the match command prints its figures.
Decision times are the benchmarks' (bench/bench_bots.py, bench/bench_bots_shapes.py; figures in
docs/BOTS.md), and the search's deadline is tested with an injected clock (test_search.py)."""

from __future__ import annotations

import json

import pytest

from shengji.bots.match import Setup, main, run, summary
from shengji.bots.search import SearchBudget
from tests.bots.helpers import RANKED


def test_basic_beats_random_by_a_wide_margin() -> None:
    setup = Setup("basic", "random", 2024, RANKED, SearchBudget())
    figures = summary(setup, run(setup, 16))
    assert figures["refused"] == 0
    assert figures["levels_per_hand"] > 1.0
    assert figures["ci95"][0] > 0.5
    assert figures["hands_won"]["a"] >= 0.8 * figures["hands"]


def test_match_command_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["basic", "random", "--deals", "2", "--seed", "4", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["deals"] == 2 and figures["hands"] == 4
    assert set(figures["decision_ms"]["a"]) == {"n", "p50", "p95"}
    assert main(["basic", "random", "--deals", "2", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "levels per hand for basic" in text and "95% CI" in text
