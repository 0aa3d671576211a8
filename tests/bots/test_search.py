"""The search bot: deterministic without a time limit, keeps the basic bot's choice unless
another candidate is clearly better, and drops candidates that cannot win."""

from __future__ import annotations

from random import Random

from games.bots import SearchBot, SearchBudget, knowledge_from_view
from games.bots.basic import play_options
from games.engine.views import view_for
from tests.bots.helpers import RANKED, states_at_plays

BUDGET = SearchBudget(max_samples=6, max_ms=None)


def test_same_inputs_same_choice() -> None:
    for state, history in states_at_plays(1, (1, 5, 22, 40)):
        seat = state.to_act
        assert seat is not None
        view = view_for(state, seat)
        first = SearchBot(3, BUDGET).choose_action(view, RANKED, history)
        assert first == SearchBot(3, BUDGET).choose_action(view, RANKED, history)
        state.check_action(seat, str(first))


def test_the_basic_choice_stands_unless_another_is_clearly_better() -> None:
    bot = SearchBot(0, BUDGET)
    noisy = [[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]]
    assert bot._pick(noisy) == 0
    better = [[0.0, 0.0, -1.0, 0.0], [1.0, 1.0, 0.0, 1.0], [0.5, 0.5, 0.0, 0.5]]
    assert bot._pick(better) == 1
    assert bot._hopeless([[1.0, 2.0, 0.0, 1.0], [1.0, 2.0, 0.0, 1.0]], 1)
    assert bot._hopeless([[1.0, 2.0, 1.0, 1.0], [-1.0, -1.0, -2.0, -1.0]], 1)
    assert not bot._hopeless([[0.0, 0.0, 0.0, 0.0], [1.0, -1.0, 1.0, 0.0]], 1)


def test_search_only_picks_among_the_basic_candidates() -> None:
    for state, history in states_at_plays(2, (3, 14, 30)):
        seat = state.to_act
        assert seat is not None
        k = knowledge_from_view(view_for(state, seat), RANKED, history)
        bot = SearchBot(1, BUDGET)
        play = bot.search(k, Random(1))
        options = [p for _, p in play_options(k)[: BUDGET.candidates]]
        assert play in options
        assert bot.last_samples <= BUDGET.max_samples
