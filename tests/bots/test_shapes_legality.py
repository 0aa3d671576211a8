"""Bots play every table shape of issue 31 legally: whole matches at 5–8 seats, 2–4 decks,
tractor mode and 找朋友, every call, bury and play checked by the engine before it is applied
(the long run is ``python -m shengji.bots.legality --shape P/D/M``)."""

from __future__ import annotations

import pytest

from shengji.bots import HandStats, SearchBudget, make_bot, play_hand
from shengji.bots.legality import SHAPES, run_part, shape_rules
from shengji.bots.match import deal_hand
from shengji.engine.selfplay import check_invariants


@pytest.mark.parametrize("shape", SHAPES)
def test_basic_bots_play_legal_matches_at_every_shape(shape: str) -> None:
    figures = run_part("basic", range(25), 3, SearchBudget(), shape)
    assert figures["hands"] == 25
    assert figures["refused"] == []
    assert figures["actions_checked"] > 25 * 60


@pytest.mark.parametrize("shape", SHAPES)
def test_random_and_baseline_bots_are_legal_at_every_shape(shape: str) -> None:
    for bot in ("random", "baseline"):
        figures = run_part(bot, range(10), 4, SearchBudget(), shape)
        assert figures["refused"] == []


@pytest.mark.parametrize("shape", SHAPES)
def test_search_bots_play_legal_hands_at_every_shape(shape: str) -> None:
    budget = SearchBudget(max_samples=2, max_ms=None, candidates=2)
    state = deal_hand(shape_rules("ranked", shape), 21, 1)
    bots = [make_bot("search", seat, budget) for seat in range(state.players)]
    stats = HandStats()
    play_hand(state, bots, stats)
    check_invariants(state)
    assert stats.refused == []
    assert state.result is not None and state.result.outcome == "played"


def test_friends_hands_are_called_by_the_bot_and_friends_join() -> None:
    joined = 0
    for index in range(6):
        state = deal_hand(shape_rules("ranked", "6/3/friends"), 8, index)
        play_hand(state, [make_bot("basic", s) for s in range(6)], HandStats())
        calls = [str(a) for a in state.actions if str(a).startswith("call")]
        assert len(calls) == 1
        joined += len(state.side) - 1
    assert joined >= 6
