"""Basic beats random on a fixed set of paired deals; decisions are fast; the match command
prints its figures."""

from __future__ import annotations

import json
import statistics

import pytest

from games.bots import BasicBot, Bot, HandStats, SearchBot, play_hand
from games.bots.match import Setup, deal_hand, main, run, summary
from games.bots.search import SearchBudget
from tests.bots.helpers import RANKED


def test_basic_beats_random_by_a_wide_margin() -> None:
    setup = Setup("basic", "random", 2024, RANKED, SearchBudget())
    figures = summary(setup, run(setup, 16))
    assert figures["refused"] == 0
    assert figures["levels_per_hand"] > 1.0
    assert figures["ci95"][0] > 0.5
    assert figures["hands_won"]["a"] >= 0.8 * figures["hands"]


def test_basic_decides_in_well_under_5_ms() -> None:
    times: list[float] = []
    for index in range(8):
        stats = HandStats()
        play_hand(deal_hand(RANKED, 8, index), [BasicBot()] * 4, stats)
        times += [t for seat in stats.times for t in seat]
    assert len(times) > 400
    assert statistics.median(times) < 0.005
    assert sorted(times)[int(0.95 * len(times))] < 0.02


def _search_decision_times() -> list[float]:
    stats = HandStats()
    budget = SearchBudget(max_samples=1000, max_ms=40.0)
    bots: list[Bot] = [SearchBot(1, budget), BasicBot(), SearchBot(2, budget), BasicBot()]
    play_hand(deal_hand(RANKED, 9, 0), bots, stats)
    return stats.times[0] + stats.times[2]


def test_search_keeps_to_its_time_budget() -> None:
    # The budget is wall time: a process stalled by the shared machine (once, in CI, one
    # decision of 1.4 s among ~50 of 30-60 ms) runs over it without the bot being at fault.
    # The hand is the same deal and seeds each time: a bot that overruns does so in both.
    times = _search_decision_times()
    if max(times) >= 0.25:
        times = _search_decision_times()
    # The limit is checked between sampled deals: one deal's playouts may run over it.
    assert max(times) < 0.25
    assert statistics.median(times) < 0.08


def test_match_command_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["basic", "random", "--deals", "2", "--seed", "4", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["deals"] == 2 and figures["hands"] == 4
    assert set(figures["decision_ms"]["a"]) == {"n", "p50", "p95"}
    assert main(["basic", "random", "--deals", "2", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "levels per hand for basic" in text and "95% CI" in text
