"""Bots only make legal moves: whole hands under every preset, each action checked by the
engine before it is applied (the long run is ``python -m games.bots.legality``)."""

from __future__ import annotations

import pytest

from games.bots import HandStats, SearchBudget, make_bot, play_hand
from games.bots.legality import run_part
from games.bots.match import deal_hand
from games.engine.rules import PRESET_NAMES, preset
from games.engine.selfplay import check_invariants


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
