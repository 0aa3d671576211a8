"""The hint (提示) and 托管 under the house options (RULES-SPEC.md §10): both come from the basic
bot through ``games.autoplay`` (``bot_hint``, ``bot_move``), so every suggestion is a move the
engine accepts under the table's bombs, rainbows, tractor options and draw policies, and 托管
plays the bot's own move, not the fallback. Under ``hide_defender_points`` the bot's views
show no defender's points."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

import pytest

from games.autoplay import bot_hint, bot_move
from shengji.bots import BasicBot, HandStats, play_hand
from shengji.engine.actions import play
from shengji.engine.cards import parse_cards as cards
from shengji.engine.hand import BURYING, PLAYING, HandState
from shengji.engine.match import Match
from shengji.engine.random_play import random_action
from shengji.engine.rules import RuleSet, preset
from shengji.engine.selfplay import check_invariants, check_points_hidden
from shengji.engine.views import view_for
from tests.engine.house_helpers import house_rules, last_trick


def _table(players: int, mode: str, **options: object) -> RuleSet:
    return preset("ranked").with_options(name="house", players=players, mode=mode, **options)


TABLES = {
    "bombs any_suit": _table(8, "friends", bombs="any_suit"),
    "bombs follow_suit": _table(8, "tractor", bombs="follow_suit"),
    "rainbows": _table(4, "tractor", rainbow_min=4),
    "rainbows 3 decks": _table(6, "friends", rainbow_min=5),
    "tractors of 3": _table(4, "tractor", tractor_min_length=3),
    "triples only": _table(6, "tractor", tractor_min_tuple=3),
    "tractors_only_from_tractors": _table(8, "friends", draw_policy="tractors_only_from_tractors"),
    "protected_tractors_only": _table(6, "friends", draw_policy="protected_tractors_only"),
    "suit_only": _table(6, "tractor", draw_policy="suit_only"),
    "throw_beat all_units": _table(5, "friends", throw_beat="all_units"),
    "kitty of 12, short deck": _table(4, "tractor", kitty_size=12, deck_min_rank="4"),
}


@pytest.mark.parametrize("name", TABLES)
def test_every_hint_is_accepted_and_autopilot_plays_it(name: str) -> None:
    rules = TABLES[name]
    state = Match(rules, 9).start_hand()
    rng = Random(3)
    hints = 0
    while state.result is None:
        if state.phase not in (BURYING, PLAYING):
            action = random_action(state, rng)
            assert action is not None
            state.apply(action)
            continue
        seat = state.to_act
        assert seat is not None
        kind, shown = bot_hint(state, seat)
        assert kind in ("call", "bury", "play"), kind
        text = f"{kind} {seat} {shown}"
        state.check_action(seat, text)  # the hint is legal
        assert bot_move(state, seat) == text  # 托管 plays the bot's move, not a fallback
        state.apply(text, seat)
        hints += 1
    check_invariants(state)
    assert hints > 10


def test_the_hint_bombs_a_trick_with_points() -> None:
    rules = house_rules(8, "tractor", bombs="any_suit")
    hands = ["KSKSASAS", "2D2D2D2D3S7S6C9C", "3C4C5C6C7C8C", "3D4D5D6D7D8D"]
    hands += ["9C9CTCJC", "QCKC9D9D", "TDJDQDKD", "ADAD3H5H"]
    state = last_trick(rules, hands, levels=["4", "4"], suit="H")
    state.apply(play(0, cards("KSKSASAS")))
    assert bot_hint(state, 1) == ("play", "2D 2D 2D 2D")


def test_the_hint_answers_a_rainbow_with_the_rainbow_owed() -> None:
    rules = house_rules(4, "tractor", rainbow_min=4)
    hands = ["5C5D5H5S3C4D", "6C6D6H6S2C2D", "7C8C9CJCQDJD", "3S4STCKC8S9S"]
    state = last_trick(rules, hands, levels=["2", "2"], suit="H")
    state.apply(play(0, cards("5C5D5H5S")))
    kind, shown = bot_hint(state, 1)
    assert kind == "play" and sorted(cards(shown)) == sorted(cards("6C6D6H6S"))


class _Recording:
    """A basic bot that keeps every view it is given."""

    name = "recording"

    def __init__(self) -> None:
        self.bot = BasicBot()
        self.views: list[Mapping[str, Any]] = []

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        self.views.append(view)
        return self.bot.choose_action(view, rules, history)


@pytest.mark.parametrize(("players", "mode"), [(4, "tractor"), (6, "friends")])
def test_under_hidden_defender_points_the_bots_see_none(players: int, mode: str) -> None:
    rules = _table(players, mode, hide_defender_points=True, play_history="full")
    state = Match(rules, 12).start_hand()
    bots = [_Recording() for _ in range(players)]
    stats = HandStats()
    play_hand(state, bots, stats)
    assert stats.refused == []
    hidden = 0
    for bot in bots:
        for view in bot.views:
            if view["phase"] != PLAYING or not view["tricks_played"]:
                continue
            assert view["points"]["defenders"] is None
            assert view["point_cards"]["defenders"] is None
            hidden += 1
    assert hidden > players * 5


def test_the_views_check_passes_during_a_hand_with_hidden_points() -> None:
    rules = _table(6, "friends", hide_defender_points=True)
    state = Match(rules, 13).start_hand()
    checked = 0

    def check(current: HandState) -> None:
        nonlocal checked
        for seat in range(current.players):
            check_points_hidden(current, view_for(current, seat))
        checked += 1

    play_hand(state, [BasicBot()] * 6, HandStats(), check=check)
    assert checked > 10
