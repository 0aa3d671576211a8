"""Bots only make legal moves: whole hands under every preset, each action checked by the
engine before it is applied (the long run is ``python -m shengji.bots.legality``)."""

from __future__ import annotations

import json

import pytest

from shengji.bots import HandStats, SearchBudget, make_bot, play_hand
from shengji.bots.legality import main, run, run_part
from shengji.bots.match import deal_hand
from shengji.engine.rules import PRESET_NAMES, preset
from shengji.engine.selfplay import check_invariants


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_basic_bots_play_legal_hands_under_every_preset(name: str) -> None:
    # run_part plays hand number i under PRESET_NAMES[i % 5].
    numbers = [5 * i + PRESET_NAMES.index(name) for i in range(12)]
    figures = run_part("basic", numbers, 3, SearchBudget())
    assert figures["hands"] == 12
    assert figures["refused"] == []


def test_legality_run_covers_matches_of_every_preset() -> None:
    figures = run_part("basic", range(40), 5, SearchBudget())
    assert figures["hands"] == 40
    assert figures["actions_checked"] > 40 * 40
    assert figures["refused"] == []


def test_random_bots_are_legal_too() -> None:
    figures = run_part("random", range(20), 7, SearchBudget())
    assert figures["refused"] == []


# seed003 plays failed throws by forced_part = lowest, which the search's playouts resolve too.
@pytest.mark.parametrize("name", ["ranked", "seed003", "seed004"])
def test_search_bots_play_legal_hands(name: str) -> None:
    budget = SearchBudget(max_samples=3, max_ms=None)
    for index in range(2):
        state = deal_hand(preset(name), 21, index)
        bots = [make_bot("search", seat, budget) for seat in range(4)]
        stats = HandStats()
        play_hand(state, bots, stats)
        check_invariants(state)
        assert stats.refused == []
        assert state.result is not None and state.result.outcome == "played"


def test_a_run_in_parts_plays_the_hands_of_the_whole_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--first``: the two parts play hands 0–2 and 3–5 of the six-hand run, no hand twice."""
    whole = run("random", 6, 11, 1, SearchBudget())
    first = run("random", 3, 11, 1, SearchBudget())
    rest = run("random", 6, 11, 1, SearchBudget(), first=3)
    assert (first["hands"], rest["hands"], rest["first"], rest["hands_asked"]) == (3, 3, 3, 3)
    # The first part is the whole run's start exactly; the rest starts its matches afresh.
    assert (
        first["actions_checked"]
        == run_part("random", range(3), 11, SearchBudget())["actions_checked"]
    )
    assert whole["hands"] == first["hands"] + rest["hands"]
    assert main(["--bot", "random", "--hands", "4", "--first", "2", "--seed", "11"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert (line["hands"], line["first"], line["refused"]) == (2, 2, 0)
