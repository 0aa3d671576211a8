"""The WebSocket load benchmark (bench/bench_ws_load.py, docs/proof/LOAD.md) at its smallest:
a whole site in separate processes, two tables of four bot-driven sockets, one hand each, on
daphne and on uvicorn (``--server``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_ws_load import run_bench
from proof.load.options import Options

pytestmark = [pytest.mark.slow, pytest.mark.site]


@pytest.mark.parametrize("server", ["daphne", "uvicorn"])
def test_two_tables_play_a_hand_each_with_no_errors(tmp_path: Path, server: str) -> None:
    options = Options(
        server=server,
        tables=2,
        hands=1,
        think=0.02,
        echo_seconds=1.0,
        procs=0,  # the clients in this process
        ramp=0.5,
        hand_budget=120.0,
        base=str(tmp_path / "site"),
        keep_samples=True,
        trace=True,
    )
    result = run_bench(options, log=lambda line: None)

    assert result["errors"] == 0, result["error_samples"]
    assert result["server"] == server
    # The CPU of the ASGI process, and of its event loop apart, is found whatever the server.
    cpu = result["cpu_game"]["server_percent_of_one_core"]
    assert cpu[f"{server}0"] > 0 and f"{server}0 loop" in cpu
    assert result["hands_finished"] == 2
    samples = result["samples_s"]
    # A hand is a bury and at least one trick per card led (25 at most, fewer with pairs and
    # throws): each of these actions timed to all four seats' views.
    assert len(samples["game"]) == result["actions"] >= 2 * (1 + 4 * 5)
    assert all(latency > 0 for latency in samples["game"])
    assert samples["echo_alone"] and all(latency > 0 for latency in samples["echo_alone"])
    assert samples["echo_concurrent"] and all(x > 0 for x in samples["echo_concurrent"])
    assert result["game_ms"]["p50"] <= result["game_ms"]["p99"] <= result["game_ms"]["max"]
    assert result["ratio_vs_concurrent"] is not None
    # --trace: the plays by the one statement, each timed by part; the parts add up.
    parts = result["move_parts"]
    assert 0 < parts["moves"] <= result["actions"]
    p50 = {name: figures["p50"] for name, figures in parts["parts_ms"].items()}
    assert all(value >= 0 for value in p50.values())
    assert p50["whole"] <= result["game_ms"]["max"]
    assert "moves" not in result
    # Each process's CPU as sampled through the game: in time order, never going back.
    timeline = samples["cpu_timeline"]
    assert len(timeline) >= 2 and [t for t, _ in timeline] == sorted(t for t, _ in timeline)
    first, last = timeline[0][1], timeline[-1][1]
    assert all(last[name] >= first[name] for name in first) and f"{server}0" in first
    # Each table's hand start: from its last ready to the last seat seeing the hand, and to
    # the last seeing it dealt (with the deal and the bid window at 0, the worker's deadline).
    starts, dealt = result["hand_start_ms"], result["hand_dealt_ms"]
    assert starts["n"] == dealt["n"] == 2
    assert 0 < starts["p50"] <= starts["max"] <= dealt["max"]
