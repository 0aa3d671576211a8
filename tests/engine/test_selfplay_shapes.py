"""Self-play of every table shape (RULES-SPEC.md §9.1): the invariants of ``selfplay`` hold on
every hand (cards of all decks conserved, 100 × decks points, each seat's view holding only its
own hidden cards, the calls hidden until the first lead, the replay reaching the live end
state), and the command prints its JSON line for every shape."""

from __future__ import annotations

import json
import subprocess
import sys
from random import Random

import pytest

from shengji.engine.hand import new_hand
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.rules import preset
from shengji.engine.selfplay import run

SHAPES = [
    (5, 2, "friends"),
    (6, 3, "friends"),
    (6, 3, "tractor"),
    (7, 3, "friends"),
    (8, 4, "friends"),
    (8, 4, "tractor"),
    (6, 2, "tractor"),
    (8, 3, "friends"),
    (6, 4, "friends"),
]


@pytest.mark.parametrize(("players", "decks", "mode"), SHAPES)
def test_every_shape_keeps_the_invariants_over_random_hands(
    players: int, decks: int, mode: str
) -> None:
    rules = preset("ranked").with_options(players=players, decks=decks, mode=mode)
    figures = run(rules, 40, seed=players * 10 + decks, policy=RandomPolicy(throw_rate=0.2))
    assert figures["hands"] == 40 and figures["players"] == players
    played = sum(n for k, n in figures["results"].items() if k != "escape")
    points = figures["points"]["attackers"] + figures["points"]["defenders"]
    assert played == 40 and points > 0
    assert any(k.startswith("defenders") for k in figures["results"])
    assert any(k.startswith("attackers") for k in figures["results"])


@pytest.mark.parametrize("draw_policy", ["no_protections", "longer_tuples_protected"])
@pytest.mark.parametrize("join_policy", ["unrestricted", "no_double_join"])
def test_both_draw_and_join_policies_play_whole_hands(draw_policy: str, join_policy: str) -> None:
    rules = preset("seed002").with_options(
        players=7,
        mode="friends",
        draw_policy=draw_policy,
        join_policy=join_policy,
        friend_cards="trumps_included",
    )
    figures = run(rules, 20, seed=7, policy=RandomPolicy(escape_rate=0.2))
    assert figures["hands"] == 20


def test_friends_sides_grow_only_by_revealed_calls() -> None:
    rules = preset("ranked").with_options(players=8, mode="friends")
    revealed = 0
    for seed in range(30):
        state = play_random(new_hand(rules, seed, levels=("2",) * 8, dealer=seed % 8), Random(seed))
        result = state.result
        assert result is not None and result.defenders is not None
        joined = {c.seat for c in result.calls if c.seat is not None} - {result.dealer}
        assert set(result.defenders) - {result.dealer} <= joined
        revealed += len(set(result.defenders)) - 1
    assert revealed > 0


@pytest.mark.parametrize(("players", "decks", "mode"), [(6, 3, "friends"), (8, 4, "tractor")])
def test_the_command_prints_one_json_line_for_a_shape(players: int, decks: int, mode: str) -> None:
    command = [sys.executable, "-m", "shengji.engine.selfplay", "--hands", "10", "--seed", "3"]
    command += ["--players", str(players), "--decks", str(decks), "--mode", mode]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert (figures["players"], figures["decks"], figures["mode"]) == (players, decks, mode)
    assert figures["replay_checked"] is True


def test_the_command_refuses_an_impossible_shape() -> None:
    command = [sys.executable, "-m", "shengji.engine.selfplay", "--hands", "1"]
    command += ["--players", "5", "--mode", "tractor"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert "tractor_needs_even_players" in done.stdout
