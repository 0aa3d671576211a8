"""Random self-play (OpenSpiel's random_sim_test): 1,000 seeded hands with the invariants, and
the ``python -m shengji.engine.selfplay`` command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from shengji.engine import selfplay
from shengji.engine.random_play import RandomPolicy
from shengji.engine.rules import PRESET_NAMES, preset


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_two_hundred_random_hands_per_preset_keep_the_invariants(name: str) -> None:
    # 5 presets x 200 = 1,000 hands; each is checked (cards, points) and replayed from JSON.
    figures = selfplay.run(preset(name), 200, 1000, policy=RandomPolicy(escape_rate=0.02))
    assert figures["hands"] == 200
    played = 200 - figures["escapes"]
    assert sum(figures["results"].values()) == 200
    assert figures["tricks"] >= played * 12
    if name == "seed004":
        assert figures["failed_throws"].get("rejected", 0) > 0
    else:
        assert figures["failed_throws"].get("forced", 0) > 0


def test_the_command_prints_one_json_line() -> None:
    command = [sys.executable, "-m", "shengji.engine.selfplay", "--hands", "20", "--seed", "3"]
    done = subprocess.run(
        [*command, "--rules", "seed004"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert figures["hands"] == 20 and figures["rules"] == "seed004"
    for key in ("hands_per_second", "points", "kitty_bonuses", "failed_throws", "results"):
        assert key in figures


def test_selfplay_imports_no_django() -> None:
    code = (
        "import sys, shengji.engine.selfplay, shengji.engine.hand; print('django' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_broken_invariant_exits_non_zero(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(state: object) -> None:
        raise selfplay.InvariantError("cards not conserved")

    monkeypatch.setattr(selfplay, "check_invariants", broken)
    assert selfplay.main(["--hands", "1"]) == 1
    assert "cards not conserved" in json.loads(capsys.readouterr().out)["error"]
