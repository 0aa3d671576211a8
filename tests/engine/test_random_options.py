"""Random house options (RULES-SPEC.md §10, ``shengji.engine.random_options``): every draw is a
valid rule set for its table shape, the same seed gives the same draws, and random self-play
under them keeps every invariant (cards and points conserved, views hiding what they must,
every hand replayed). The long run: ``python -m shengji.engine.selfplay --house-options random
--shape any --hands 2000``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from random import Random

import pytest

from shengji.engine import selfplay
from shengji.engine.actions import play
from shengji.engine.cards import parse_cards as cards
from shengji.engine.hand import PLAYING, HandState
from shengji.engine.levels import level_ladder
from shengji.engine.match import Match
from shengji.engine.rainbow import is_rainbow
from shengji.engine.random_options import (
    RANDOM_OPTIONS,
    SHAPES,
    changed_options,
    random_house_rules,
    random_start,
)
from shengji.engine.random_play import RandomPolicy, play_random, random_action, random_play_for
from shengji.engine.rules import RuleSet
from shengji.engine.trump import Trump
from shengji.engine.views import view_for
from tests.engine.house_helpers import house_rules, last_trick


def _draws(seed: int, count: int) -> list[RuleSet]:
    rng = Random(seed)
    return [random_house_rules(rng, *SHAPES[i % len(SHAPES)]) for i in range(count)]


def test_the_same_seed_draws_the_same_rule_sets() -> None:
    first = [rules.to_json() for rules in _draws(4, 30)]
    assert first == [rules.to_json() for rules in _draws(4, 30)]
    assert first != [rules.to_json() for rules in _draws(5, 30)]


def test_every_draw_is_a_valid_rule_set_of_its_shape() -> None:
    for index, rules in enumerate(_draws(7, 220)):
        players, decks, mode = SHAPES[index % len(SHAPES)]
        assert (rules.players, rules.decks, rules.mode) == (players, decks, mode)
        # Valid: the record's strict reading builds it again, unchanged.
        assert RuleSet.from_json(rules.to_json()) == rules
        if decks != 4:
            assert rules.bombs == "off"
        if rules.level_source == "random":
            assert (rules.top_level, rules.advancement, rules.jack_rule) == ("A", "free", "off")


def test_every_option_is_changed_in_some_draw() -> None:
    changed: Counter[str] = Counter()
    for rules in _draws(8, 220):
        changed.update(changed_options(rules).keys())
    assert set(changed) == set(RANDOM_OPTIONS)
    assert min(changed.values()) >= 5


def test_refused_combinations_are_drawn_again() -> None:
    # seed003 draws its level at random: the level rules are refused with it every time.
    rng = Random(2)
    for _ in range(40):
        rules = random_house_rules(rng, 6, 3, "friends", base="seed003", change_rate=0.9)
        assert rules.level_source == "random"
        assert (rules.top_level, rules.advancement, rules.jack_rule) == ("A", "free", "off")


def test_an_impossible_shape_is_an_error() -> None:
    with pytest.raises(ValueError, match="no table"):
        random_house_rules(Random(1), 9, 2, "friends")


def test_a_match_starts_on_the_tables_ladder() -> None:
    rng = Random(3)
    first_hands = 0
    for rules in _draws(9, 120):
        levels, dealer = random_start(rng, rules)
        ladder = level_ladder(rules.top_level, rules.deck_min_rank)
        assert all(level in ladder for level in levels)
        if dealer is None:
            first_hands += 1
            assert set(levels) == {ladder[0]}
        Match(rules, 1, levels=levels, dealer=dealer).start_hand()
    assert 10 <= first_hands <= 80


def test_random_self_play_keeps_every_invariant_at_every_shape() -> None:
    figures = selfplay.run_random_options(len(SHAPES) * 12, 11, hands_per_rules=3)
    assert figures["hands"] == len(SHAPES) * 12
    assert figures["matches"] >= len(SHAPES) * 4
    assert set(figures["options_changed"]) == set(RANDOM_OPTIONS)
    assert figures["tricks"] > 0
    assert sum(figures["results"].values()) == figures["hands"]


def test_rainbows_are_led_in_random_self_play() -> None:
    rules = RuleSet(players=8, decks=4, mode="friends", bombs="any_suit", rainbow_min=4)
    rainbows = 0
    rng = Random(5)
    for hand in range(4):
        state = play_random(Match(rules, hand).start_hand(), rng)
        selfplay.check_invariants(state)
        for trick in state.tricks:
            rainbows += is_rainbow(trick.plays[0], trick_trump(state), 4)
    assert rainbows > 0


def trick_trump(state: HandState) -> Trump:
    assert state.trump is not None
    return state.trump


@pytest.mark.parametrize("bombs", ["any_suit", "follow_suit"])
def test_a_random_follower_plays_the_bombs_it_may(bombs: str) -> None:
    # RULES-SPEC.md §10.16's example: trump H, lead 8S8S9S9S, s1 holds 2D2D2D2D and a spade.
    rules = house_rules(8, "friends", bombs=bombs)
    state = last_trick(
        rules,
        ["8S8S9S9S", "2D2D2D2D3S", "4C4C5C6C", "4C5C6C7C", "7C8C9CTC", "JCQCKCAC", "3H", "4H"],
        levels=["4"] * 8,
        suit="H",
    )
    state.hands = [list(cards(text)) for text in ("8S8S9S9S", "2D2D2D2D3S", *["4C5C6C7C"] * 6)]
    state.apply(play(0, cards("8S8S9S9S")))
    always = RandomPolicy(bomb_rate=1.0)
    chosen = random_play_for(state, 1, Random(1), always)
    if bombs == "any_suit":
        assert chosen == tuple(cards("2D2D2D2D"))
    else:
        assert chosen != tuple(cards("2D2D2D2D"))  # s1 holds a spade: no off-suit bomb
    state.apply(play(1, chosen))


def test_the_views_check_finds_shown_defender_points() -> None:
    rules = RuleSet(hide_defender_points=True, no_bid_first_hand="no_trump")
    rng = Random(2)
    state = Match(rules, 4).start_hand()
    while not (state.phase == PLAYING and len(state.tricks) == 3 and not state.trick.plays):
        action = random_action(state, rng)
        assert action is not None
        state.apply(action)
    assert any(trick.winner in state.side for trick in state.tricks)
    view = view_for(state, 0)
    selfplay.check_points_hidden(state, view)
    assert view["points"]["defenders"] is None
    view["points"]["defenders"] = state.defender_points
    with pytest.raises(selfplay.InvariantError, match="defenders' points"):
        selfplay.check_points_hidden(state, view)


def test_the_command_plays_random_options_at_one_shape() -> None:
    command = [sys.executable, "-m", "shengji.engine.selfplay", "--house-options", "random"]
    command += ["--hands", "9", "--players", "6", "--mode", "friends", "--seed", "2"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout)
    assert figures["hands"] == 9 and figures["shapes"] == ["6/3/friends"]
    assert figures["options_changed"]
