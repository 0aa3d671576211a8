"""Basic beats random on a fixed set of paired deals; basic's decisions are cheap in CPU time;
the match command prints its figures. Wall-clock figures are the benchmarks' (bench/), and the
search's deadline is tested with an injected clock (test_search.py)."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from games.bots import BasicBot, play_hand
from games.bots.base import BURYING, PLAYING, acts_now
from games.bots.match import Setup, deal_hand, main, run, summary
from games.bots.search import SearchBudget
from games.engine.rules import RuleSet
from tests.bots.helpers import RANKED


def test_basic_beats_random_by_a_wide_margin() -> None:
    setup = Setup("basic", "random", 2024, RANKED, SearchBudget())
    figures = summary(setup, run(setup, 16))
    assert figures["refused"] == 0
    assert figures["levels_per_hand"] > 1.0
    assert figures["ci95"][0] > 0.5
    assert figures["hands_won"]["a"] >= 0.8 * figures["hands"]


class CpuTimedBasic(BasicBot):
    """The basic bot, noting the CPU time (``time.process_time``) of each decision it acts
    on: time spent waiting for a core on a busy machine is not counted."""

    def __init__(self, cpu: list[float]) -> None:
        super().__init__()
        self.cpu = cpu

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        started = time.process_time()
        action = super().choose_action(view, rules, history)
        if view.get("phase") in (BURYING, PLAYING) and acts_now(view):
            self.cpu.append(time.process_time() - started)
        return action


def test_basic_decides_in_well_under_5_ms_of_cpu() -> None:
    times: list[float] = []
    for index in range(8):
        play_hand(deal_hand(RANKED, 8, index), [CpuTimedBasic(times) for _ in range(4)])
    assert len(times) > 400
    assert statistics.median(times) < 0.005
    assert sorted(times)[int(0.95 * len(times))] < 0.02


def test_match_command_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["basic", "random", "--deals", "2", "--seed", "4", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["deals"] == 2 and figures["hands"] == 4
    assert set(figures["decision_ms"]["a"]) == {"n", "p50", "p95"}
    assert main(["basic", "random", "--deals", "2", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "levels per hand for basic" in text and "95% CI" in text
