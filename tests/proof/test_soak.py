"""The soak's short version (proof/soak.py; the method and the hour's figures are in
docs/proof/SOAK.md, the bench is bench/soak.py): 4 tables for 75 s with one kill of each kind
(a daphne, the worker, Redis) and one bad client of each kind (a flooder, a garbage sender, a
reconnect storm), checked as the bench checks the hour, except the memory: 75 s has no minute
10 to compare the end with, so the memory is sampled and not judged here."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proof import drills, soak
from proof.livesite import LiveSite

pytestmark = [pytest.mark.slow, pytest.mark.site]

SHORT = soak.SoakOptions(
    tables=4,
    minutes=1.25,
    kills_each=1,
    bad_clients=3,
    seed=3,
    think=0.05,
    sample_every_s=10,
    ramp_s=2,
    worker_down_s=(soak.DEADLINE_S + 3, soak.DEADLINE_S + 5),
    stall_every_s=8,
    bad_period_s=15,
    bad_burst_s=3,
    judge_growth=False,
    linger_s=3,
    settle_s=30,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSite]:
    base: Path = tmp_path_factory.mktemp("soak")
    live = LiveSite(base, daphnes=2, env=drills.DRILL_ENV, supervise=True, worker_loglevel="INFO")
    try:
        live.start()
        yield live
    finally:
        live.stop()


@pytest.fixture(scope="module")
def figures(site: LiveSite) -> dict[str, Any]:
    found = asyncio.run(soak.run_soak(site, SHORT))
    found["ladder_check"] = site.manage("ladder_check").strip()
    print(json.dumps(found))
    return found


def test_the_short_soak_keeps_every_invariant(figures: dict[str, Any]) -> None:
    failures = soak.broken(figures, SHORT.kills_each)
    # The channel layer's keys are judged apart (below).
    assert [f for f in failures if not f.startswith("counts above their base")] == []


def test_every_fault_and_every_bad_client_happened(figures: dict[str, Any]) -> None:
    assert figures["fault_counts"] == {"daphne": 1, "worker": 1, "redis": 1}
    # The sockets on the killed daphne broke (1006); Redis losing its groups closed the
    # others (4012, games/groupwatch.py) or broke their consumer (1011).
    assert figures["close_codes"].get(1006, figures["close_codes"].get("1006", 0)) >= 8
    bad = figures["bad_clients"]
    assert bad["flood0"]["frames"] > 0 and bad["flood0"]["bursts"] >= 2
    assert bad["garbage1"]["frames"] > 50
    assert bad["storm2"]["opened"] > 50


def test_play_went_on_through_the_faults(figures: dict[str, Any]) -> None:
    actions = figures["actions"]
    assert actions["lost"] == 0, actions["lost_samples"]
    assert actions["acknowledged"] > 500
    # More hands than tables: the tables went on to new hands after the faults.
    assert figures["hands_played"] > SHORT.tables
    assert figures["hands_settled_once"] == figures["hands_played"]
    # Deadlines fired throughout, each stalled turn's exactly once.
    assert figures["stalled_turns"] >= 3
    assert figures["fires_per_stalled_turn"] == {1: figures["stalled_turns"]}
    assert figures["early_auto_moves"] == [] and figures["takeovers"] == 0


def test_queues_and_sockets_came_back(figures: dict[str, Any]) -> None:
    end, allowed = figures["end_counts"], figures["allowed_counts"]
    assert end["sockets_daphne0"] == 0 == end["sockets_daphne1"]
    assert figures["sockets_left_open"] == 0
    assert end["celery_unacked"] == 0 and end["celery_queue"] <= allowed["celery_queue"]
    assert end["canaries"] <= allowed["canaries"]
    assert figures["ladder_check"].startswith("ok")


def test_no_channel_is_left_in_a_group(figures: dict[str, Any]) -> None:
    assert figures["end_counts"]["channel_keys"] == 0, figures["channel_keys_left"]
