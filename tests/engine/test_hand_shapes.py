"""Hands of every table shape (RULES-SPEC.md §9.1–§4): deal sizes, sides, calls, reveals, views,
results, and the classic game's records unchanged."""

from __future__ import annotations

import json
from random import Random

import pytest

from shengji.engine.action_errors import IllegalActionError, InvalidSetupError
from shengji.engine.actions import parse_action
from shengji.engine.cards import format_cards, parse_cards
from shengji.engine.deal import deal_sizes
from shengji.engine.errors import InvalidOptionError
from shengji.engine.follow import legal_follow
from shengji.engine.hand import FINISHED, PLAYING, HandState, new_hand
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.record import HandRecord, record_of, replay_final
from shengji.engine.rules import RuleSet, preset
from shengji.engine.views import legal_actions, view_all, view_for, view_public
from tests.engine.shape_helpers import dealt, shape_rules

CLASSIC_RESULT_KEYS = [
    "outcome", "dealer", "defenders", "attackers", "level", "trump_suit", "levels_at_start",
    "wrapped_at_start", "highest_level_at_start", "ratio_level", "winner", "winning_team",
    "winning_seats", "levels_gained", "attacker_points", "trick_points", "defender_points",
    "kitty_points", "kitty_multiplier", "kitty_bonus", "penalty_points", "failed_throws",
    "escaper", "levels_after", "wrapped_after", "passed_ace", "match_over", "match_winner",
    "next_dealer", "tricks", "redeals", "flipped",
]  # fmt: skip


@pytest.mark.parametrize(
    ("players", "decks", "expected"),
    [
        (4, 2, (25, 8)),
        (5, 2, (20, 8)),
        (6, 3, (26, 6)),
        (7, 3, (22, 8)),
        (8, 4, (26, 8)),
        (6, 2, (17, 6)),
        (8, 3, (19, 10)),
    ],
)
def test_deal_sizes_are_the_examples_of_the_rules(
    players: int, decks: int, expected: tuple[int, int]
) -> None:
    assert deal_sizes(players, decks) == expected


def test_a_hand_of_each_shape_deals_every_card_of_its_decks() -> None:
    for players, decks, mode in [(5, 2, "friends"), (6, 3, "friends"), (8, 4, "tractor")]:
        state = new_hand(shape_rules(players, mode, decks), 3)
        while state.phase == "dealing":
            state.apply("draw")
        each, kitty = deal_sizes(players, decks)
        assert [len(h) for h in state.hands] == [each] * players
        assert len(state.kitty) == kitty
        held = sorted([c for h in state.hands for c in h] + state.kitty)
        assert held == [c for c in range(54) for _ in range(decks)]


# --- options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"players": 3}, "players_out_of_range"),
        ({"players": 9}, "players_out_of_range"),
        ({"players": 5}, "tractor_needs_even_players"),
        ({"players": 4, "mode": "friends"}, "friends_needs_5_to_8_players"),
        ({"players": 6, "mode": "friends", "friends": 3}, "friends_out_of_range"),
        ({"players": 6, "mode": "tractor", "friends": 1}, "friends_out_of_range"),
        ({"players": 6, "decks": 5}, "decks_out_of_range"),
        ({"players": 6, "decks": 1}, "decks_out_of_range"),
    ],
)
def test_impossible_shapes_are_refused_with_a_stable_reason(
    options: dict[str, object], reason: str
) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        preset("ranked").with_options(**options)
    assert raised.value.code == "invalid_option"
    assert getattr(raised.value, "reason", None) == reason


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("mode", "teams"),
        ("friend_cards", "anything"),
        ("join_policy", "twice"),
        ("draw_policy", "protect_all"),
        ("small_side_bonus", "yes"),
    ],
)
def test_unknown_values_of_the_new_options_are_refused(option: str, value: object) -> None:
    with pytest.raises(InvalidOptionError):
        preset("ranked").with_options(**{"players": 6, "mode": "friends", option: value})


def test_defaults_by_players_for_decks_and_friends() -> None:
    by_players = {
        players: preset("ranked").with_options(players=players, mode="friends")
        for players in (5, 6, 7, 8)
    }
    assert {p: r.decks for p, r in by_players.items()} == {5: 2, 6: 3, 7: 3, 8: 4}
    assert {p: r.friends for p, r in by_players.items()} == {5: 1, 6: 2, 7: 2, 8: 3}


def test_a_classic_rule_set_writes_no_shape_option_and_old_ones_read_as_classic() -> None:
    ranked = preset("ranked")
    options = ranked.to_dict()["options"]
    assert not {"players", "decks", "mode", "friends", "draw_policy"} & set(options)
    old = RuleSet.from_dict({"version": 1, "name": "ranked", "options": options})
    assert (old.players, old.decks, old.mode, old.friends) == (4, 2, "tractor", 0)
    six = ranked.with_options(players=6, mode="friends", join_policy="no_double_join")
    assert RuleSet.from_json(six.to_json()) == six
    assert six.to_dict()["options"]["players"] == 6


def test_a_classic_hand_records_and_results_exactly_the_old_keys() -> None:
    state = play_random(new_hand(preset("ranked"), 11), Random(11))
    assert state.result is not None
    assert list(state.result.to_dict()) == CLASSIC_RESULT_KEYS
    record = json.loads(record_of(state).to_json())
    assert "players" not in record["rules"]["options"]
    assert "players" not in view_public(state)


# --- tractor mode with six and eight -------------------------------------------------------


def test_six_player_tractor_sides_alternate_and_a_trick_takes_six_plays() -> None:
    state = dealt(shape_rules(6, "tractor", 2), {}, dealer=1)
    assert state.defenders == (1, 3, 5)
    assert state.attackers == (2, 4, 0)
    state.apply(legal_actions(state, 1)[0])
    for _ in range(6):
        seat = state.turn
        state.apply(legal_actions(state, seat)[0])
    assert len(state.tricks) == 1
    assert len(state.tricks[0].plays) == 6


@pytest.mark.parametrize("players", [6, 8])
def test_tractor_results_raise_the_winning_team_and_pass_the_deal(players: int) -> None:
    rules = shape_rules(players, "tractor", 2)
    for seed in range(12):
        state = play_random(new_hand(rules, seed, dealer=seed % players), Random(seed))
        result = state.result
        assert result is not None and result.winning_team is not None
        team = result.winning_team
        assert result.winning_seats == tuple(range(team, players, 2))
        assert result.dealer is not None
        expected = (result.dealer + (2 if result.winner == "defenders" else 1)) % players
        assert result.next_dealer in (expected, None)


# --- 找朋友: calls -------------------------------------------------------------------------


def friends_hand() -> HandState:
    """Five players, two decks, no-trump at 2; seat 2 holds the first AS, seat 4 the second."""
    rules = shape_rules(5, "friends")
    return dealt(rules, {0: "KS 3S", 2: "AS", 4: "AS"}, dealer=0, levels=("2",) * 5)


def test_the_dealer_must_call_before_burying() -> None:
    state = friends_hand()
    bury = legal_actions(state, 0)[-1]
    with pytest.raises(IllegalActionError) as raised:
        state.apply(bury)
    assert raised.value.code == "calls_missing"
    assert len(bury.cards) == state.kitty_size


@pytest.mark.parametrize(
    ("text", "seat", "code"),
    [
        ("call 0 1SJ", 0, "friend_joker"),
        ("call 0 12H", 0, "friend_level_card"),
        ("call 0 3AS", 0, "friend_bad_ordinal"),
        ("call 0 1AS 1AH", 0, "friend_wrong_count"),
        ("call 1 1AS", 1, "not_your_turn"),
    ],
)
def test_bad_calls_are_refused_and_change_nothing(text: str, seat: int, code: str) -> None:
    state = friends_hand()
    before = len(state.actions)
    with pytest.raises(IllegalActionError) as raised:
        state.apply(text, seat)
    assert raised.value.code == code
    assert len(state.actions) == before and state.calls == []


def test_a_tractor_table_takes_no_calls() -> None:
    state = dealt(shape_rules(6, "tractor", 2), {}, dealer=0)
    with pytest.raises(IllegalActionError) as raised:
        state.apply("call 0 1AS", 0)
    assert raised.value.code == "calls_not_allowed"


def test_calls_are_hidden_from_all_but_the_dealer_until_the_first_lead() -> None:
    state = friends_hand()
    state.apply("call 0 1AS", 0)
    bury_keeping(state, "KS 3S")
    assert state.phase == PLAYING
    assert view_for(state, 0)["calls"] == [{"card": "AS", "ordinal": 1, "seen": 0, "seat": None}]
    assert view_for(state, 1)["calls"] is None
    assert view_public(state)["calls"] is None
    assert view_for(state, 1)["calls_made"] is True
    state.apply("play 0 3S", 0)
    assert view_for(state, 1)["calls"] == view_for(state, 0)["calls"]
    assert view_public(state)["calls"] == view_for(state, 0)["calls"]


def test_the_called_card_reveals_its_player_at_the_tricks_end_with_their_points() -> None:
    state = friends_hand()
    state.apply("call 0 1AS", 0)
    bury_keeping(state, "KS 3S")
    state.apply("play 0 KS", 0)
    state.apply(legal_actions(state, 1)[0], 1)
    state.apply("play 2 AS", 2)
    assert state.side == frozenset({0})  # revealed only when the trick is complete
    assert view_for(state, 3)["side"] == [0]
    for seat in (3, 4):
        hand, lead = state.hands[seat], state.trick.plays[0]
        state.apply(f"play {seat} {format_cards(_follow(hand, lead, state))}")
    trick = state.tricks[0]
    assert trick.winner == 2
    assert state.side == frozenset({0, 2})
    assert state.calls[0].seat == 2 and state.calls[0].seen >= 1
    assert state.seat_points[2] == trick.points >= 10
    assert state.defender_points == trick.points and state.attacker_points == 0
    assert view_for(state, 1)["side"] == [0, 2]
    assert view_for(state, 1)["calls"][0]["seat"] == 2


def bury_keeping(state: HandState, keep: str) -> None:
    """The dealer buries the kitty's size of cards, none of ``keep``."""
    kept = parse_cards(keep)
    hand = list(state.hands[0])
    for card in kept:
        hand.remove(card)
    state.apply(parse_action(f"bury 0 {format_cards(hand[: state.kitty_size])}"), 0)


def _follow(hand: list[int], lead: tuple[int, ...], state: HandState) -> list[int]:
    assert state.trump is not None
    return [int(c) for c in legal_follow(hand, lead, state.trump)]


def test_no_view_tells_who_holds_an_unplayed_called_card() -> None:
    state = friends_hand()
    state.apply("call 0 2AS", 0)
    bury_keeping(state, "KS 3S")
    state.apply("play 0 3S", 0)
    for seat in range(5):
        assert view_for(state, seat)["calls"] == [
            {"card": "AS", "ordinal": 2, "seen": 0, "seat": None}
        ]
        assert "hands" not in view_for(state, seat)


def test_calls_may_be_changed_until_the_bury_and_the_record_replays_them() -> None:
    state = friends_hand()
    state.apply("call 0 1AH", 0)
    state.apply("call 0 1AS", 0)
    bury_keeping(state, "KS 3S")
    play_random(state, Random(5))
    assert state.result is not None
    assert [c.card for c in state.result.calls] == parse_cards("AS")
    replayed = replay_final(HandRecord.from_json(record_of(state).to_json()))
    assert replayed.result == state.result and replayed.side == state.side
    assert view_all(state)["calls"][0]["card"] == "AS"


# --- 找朋友: results, over many hands -----------------------------------------------------


@pytest.mark.parametrize(("players", "decks"), [(5, 2), (6, 2), (7, 2), (8, 2)])
def test_friends_results_follow_the_rules_over_many_hands(players: int, decks: int) -> None:
    rules = shape_rules(players, "friends", decks)
    for seed in range(40):
        dealer = seed % players
        levels = tuple("23456789"[(seed + s) % 8] for s in range(players))
        state = new_hand(rules, seed, levels=levels, dealer=dealer)
        state = play_random(state, Random(seed), RandomPolicy())
        result = state.result
        assert result is not None and state.phase == FINISHED
        side = set(result.defenders or ())
        assert dealer in side and len(side) <= rules.friends + 1
        assert sum(result.seat_points) == result.trick_points + result.defender_points
        assert result.trick_points == sum(
            result.seat_points[s] for s in range(players) if s not in side
        )
        winners = side if result.winner == "defenders" else set(range(players)) - side
        assert set(result.winning_seats or ()) == winners
        small = result.winner == "defenders" and len(side) < rules.friends + 1
        assert result.small_side_bonus == (1 if small else 0)
        up = result.levels_gained + result.small_side_bonus
        for seat in range(players):
            start = "23456789TJQKA".index(levels[seat])
            after = "23456789TJQKA".index(result.levels_after[seat])
            assert after == (min(start + up, 12) if seat in winners else start)
        if result.next_dealer is not None:
            order = [(dealer + i) % players for i in range(1, players + 1)]
            assert result.next_dealer == next(s for s in order if s in winners)


def test_a_small_defending_side_that_wins_goes_up_one_more_level() -> None:
    rules = shape_rules(8, "friends", 2)
    bonuses = []
    for seed in range(200):
        state = play_random(new_hand(rules, seed, levels=("2",) * 8, dealer=0), Random(seed))
        result = state.result
        assert result is not None
        if result.small_side_bonus:
            bonuses.append(result)
    assert bonuses, "no hand of 300 had a lone dealer win"
    for result in bonuses:
        assert result.defenders is not None and len(result.defenders) < rules.friends + 1
        assert result.winner == "defenders"
        for seat in result.defenders:
            assert result.levels_after[seat] == "23456789TJQKA"[result.levels_gained + 1]


def test_small_side_bonus_can_be_turned_off() -> None:
    rules = shape_rules(6, "friends", 2, small_side_bonus=False)
    for seed in range(30):
        state = play_random(new_hand(rules, seed, levels=("2",) * 6, dealer=0), Random(seed))
        assert state.result is not None and state.result.small_side_bonus == 0


def test_an_escape_ends_a_friends_hand_and_the_match() -> None:
    state = friends_hand()
    state.apply("leave 3", 3)
    assert state.result is not None
    assert state.result.outcome == "escape" and state.result.escaper == 3
    assert state.result.match_over and state.result.levels_after == ("2",) * 5


def test_levels_are_per_player_in_friends_and_checked() -> None:
    rules = shape_rules(5, "friends")
    state = new_hand(rules, 1, levels=("2", "3", "4", "5", "6"), dealer=3)
    assert state.level == "5"
    with pytest.raises(InvalidSetupError):
        new_hand(rules, 1, levels=("2", "2"), dealer=0)
    with pytest.raises(InvalidSetupError):
        new_hand(rules, 1, levels=("2", "3", "2", "2", "2"))  # a first hand: all at one level


def test_a_record_from_before_the_redeal_bound_replays_unbounded() -> None:
    rules = preset("seed000").with_options(name="seed000", no_bid_first_hand="redeal")
    old = rules.to_dict()
    del old["options"]["max_redeals"]
    assert RuleSet.from_dict(old).max_redeals == 0
    assert preset("seed000").max_redeals == 3
    state = new_hand(RuleSet.from_dict(old), 1)
    for _ in range(5):
        while state.phase == "dealing":
            state.apply("draw")
        state.apply("close")
    assert state.deal_number == 5 and state.phase == "dealing"
