"""Matches (RULES-SPEC.md §5.6–§5.7): levels per team, the deal rotating, wrap and match end."""

from __future__ import annotations

from random import Random

import pytest

from shengji.engine.action_errors import MatchOverError
from shengji.engine.cards import RANKS
from shengji.engine.hand import HandResult
from shengji.engine.match import Match
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.rules import preset


def play_hand(match: Match, rng: Random, policy: RandomPolicy | None = None) -> HandResult:
    play_random(match.start_hand(), rng, policy or RandomPolicy())
    return match.finish_hand()


def test_dealer_and_levels_follow_each_result() -> None:
    match = Match(preset("ranked"), 5)
    rng = Random(5)
    first = play_hand(match, rng)
    assert first.dealer is not None and match.results == [first]
    for _ in range(12):
        if match.over:
            break
        levels, dealer = match.levels, match.dealer
        result = play_hand(match, rng)
        assert result.dealer == dealer and result.levels_at_start == levels
        team = result.winning_team
        assert team is not None
        gained = RANKS.index(result.levels_after[team]) - RANKS.index(levels[team])
        assert gained == result.levels_gained or result.passed_ace == team
        assert result.levels_after[1 - team] == levels[1 - team]
        step = 2 if result.winner == "defenders" else 1
        assert result.next_dealer in (None, (dealer + step) % 4)  # type: ignore[operator]
        if result.winner == "defenders":
            assert team == dealer % 2  # type: ignore[operator]
        else:
            assert team != dealer % 2  # type: ignore[operator]


def test_match_end_when_a_team_passes_a() -> None:
    match = Match(preset("seed000"), 1, levels=("A", "A"))
    rng = Random(1)
    while not match.over:
        result = play_hand(match, rng)
    assert result.passed_ace is not None and result.match_over
    assert match.winner == result.passed_ace == result.match_winner
    assert result.levels_after[match.winner] == "A"
    with pytest.raises(MatchOverError) as caught:
        match.start_hand()
    assert caught.value.code == "match_over"


def test_wrap_goes_on_and_keeps_the_ratio_at_a() -> None:
    match = Match(preset("seed004"), 2, levels=("K", "K"))
    rng = Random(2)
    wrapped_once = None
    for _ in range(40):
        result = play_hand(match, rng)
        assert not match.over
        if result.passed_ace is not None and wrapped_once is None:
            wrapped_once = result
    assert wrapped_once is not None
    team = wrapped_once.passed_ace
    assert team is not None and wrapped_once.wrapped_after[team]
    start = RANKS.index(wrapped_once.levels_at_start[team])
    assert RANKS.index(wrapped_once.levels_after[team]) == (
        start + wrapped_once.levels_gained
    ) % len(RANKS)
    later = match.results[match.results.index(wrapped_once) + 1 :]
    assert later and all(r.ratio_level == "A" for r in later)


def test_ratio_level_is_the_highest_level_at_the_start() -> None:
    match = Match(preset("ranked"), 3, levels=("9", "9"))
    rng = Random(3)
    result = play_hand(match, rng)
    assert result.highest_level_at_start == result.ratio_level == "9"
    if not match.over:
        nxt = play_hand(match, rng)
        assert nxt.ratio_level == max(nxt.levels_at_start, key=RANKS.index)


def test_an_escape_ends_the_match() -> None:
    match = Match(preset("seed002"), 4)
    rng = Random(4)
    result = play_hand(match, rng, RandomPolicy(escape_rate=1.0))
    assert result.outcome == "escape" and match.over and match.winner is None
    assert match.levels == ("2", "2")


def test_random_level_hands_still_score_team_levels() -> None:
    match = Match(preset("seed003"), 6)
    rng = Random(6)
    hand_levels = set()
    for _ in range(10):
        if match.over:
            break
        hand = match.start_hand()
        hand_levels.add(hand.level)
        play_random(hand, rng)
        result = match.finish_hand()
        assert result.level == hand.level
        if result.trump_suit is not None or result.outcome == "played":
            assert hand.trump is None or hand.trump.level == hand.level
    assert len(hand_levels) > 2
    assert match.levels != ("2", "2") or match.over


def test_match_hand_seeds_are_deterministic() -> None:
    one, two = Match(preset("ranked"), 77), Match(preset("ranked"), 77)
    assert one.start_hand().seed == two.start_hand().seed
    assert one.to_dict()["seed"] == 77
