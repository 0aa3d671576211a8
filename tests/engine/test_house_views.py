"""House options of what players see (RULES-SPEC.md §10.8 ``hide_defender_points``, §10.9
``play_history``, §10.10 ``name_throw_blocker``): each seat's view, spectators, replays, records,
and 找朋友 and bigger tables."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from shengji.bots import SearchBudget, make_bot
from shengji.bots.play import HandStats, play_hand
from shengji.engine import (
    HOUSE_OPTIONS,
    InvalidOptionError,
    new_hand,
    parse_cards,
    preset,
    view_all,
    view_for,
    view_public,
)
from shengji.engine.cards import Card
from shengji.engine.friends import FriendCall
from shengji.engine.hand import HandState
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.record import record_of, replay_final
from shengji.engine.rules import RuleSet
from shengji.engine.throw import first_blocker
from shengji.engine.trump import Trump
from tests.engine.house_helpers import house_rules, last_trick, play_out

cards = parse_cards
VIEW_OPTIONS = ("hide_defender_points", "play_history", "name_throw_blocker")


def every_view(state: HandState) -> list[dict[str, Any]]:
    return [view_for(state, seat) for seat in range(state.players)] + [view_public(state)]


def test_the_view_options_are_house_options_off_in_every_preset() -> None:
    assert HOUSE_OPTIONS["hide_defender_points"] == (False, True)
    assert HOUSE_OPTIONS["play_history"] == ("last_trick", "full")
    assert HOUSE_OPTIONS["name_throw_blocker"] == (False, True)
    for name in ("ranked", "seed000", "seed002", "seed003", "seed004"):
        rules = preset(name)
        assert not set(VIEW_OPTIONS) & set(rules.to_dict()["options"])
        assert (rules.hide_defender_points, rules.play_history, rules.name_throw_blocker) == (
            False,
            "last_trick",
            False,
        )
    rules = preset("ranked").with_options(play_history="full", name_throw_blocker=True)
    assert RuleSet.from_json(rules.to_json()) == rules
    for option, value in (("play_history", "all"), ("hide_defender_points", "on")):
        with pytest.raises(InvalidOptionError):
            preset("ranked").with_options(**{option: value})


# --- §10.8 hide_defender_points --------------------------------------------------------

FOUR = ("KS 3S", "4S 6S", "5S 7S", "8S 9S")


def test_the_defenders_points_are_hidden_from_everyone_while_playing() -> None:
    state = last_trick(house_rules(hide_defender_points=True), FOUR, levels=("2", "2"))
    assert all(view["points"]["defenders"] is None for view in every_view(state))
    play_out(state, ("KS", "4S", "5S", "8S"))  # the dealer takes 15 points
    assert state.defender_points == 15
    for view in every_view(state):
        assert view["points"] == {"attackers": 0, "defenders": None}
        assert view["point_cards"]["defenders"] is None
        assert view["last_trick"]["winner"] == 0 and view["last_trick"]["points"] is None
    assert view_all(state)["points"]["defenders"] == 15  # replays show everything
    play_out(state, ("3S", "6S", "7S", "9S"))
    for view in every_view(state):
        assert view["points"]["defenders"] == 15 and view["point_cards"]["defenders"] == "KS 5S"
        assert view["result"]["defender_points"] == 15


def test_the_attackers_points_stay_shown() -> None:
    state = last_trick(house_rules(hide_defender_points=True), FOUR, levels=("2", "2"))
    play_out(state, ("3S", "4S", "5S", "8S"))  # seat 3, an attacker, takes the 5
    view = view_for(state, 0)
    assert view["points"] == {"attackers": 5, "defenders": None}
    assert view["last_trick"]["points"] == 5 and view["point_cards"]["attackers"] == "5S"


def test_by_default_the_defenders_points_are_shown() -> None:
    state = last_trick(house_rules(), FOUR, levels=("2", "2"))
    play_out(state, ("KS", "4S", "5S", "8S"))
    assert view_for(state, 1)["points"]["defenders"] == 15
    assert view_for(state, 1)["last_trick"]["points"] == 15


FRIENDS_HANDS = ("3S 6H QD", "4S TH 3C", "KS AH 8D", "6S 3H 9D", "7S 4H JD")


def test_friends_an_unrevealed_friends_points_show_as_an_attackers() -> None:
    rules = house_rules(5, "friends", hide_defender_points=True)
    state = last_trick(rules, FRIENDS_HANDS, levels=("2",) * 5, side=(0,))
    state.calls = [FriendCall(Card("AH"), 1)]
    play_out(state, ("3S", "4S", "KS", "6S", "7S"))  # seat 2 takes KS, not revealed yet
    view = view_for(state, 3)
    assert view["seat_points"] == [None, 0, 10, 0, 0]
    assert view["points"] == {"attackers": 10, "defenders": None}
    play_out(state, ("AH", "3H", "4H", "6H", "TH"))  # seat 2 plays the called AH: a friend
    assert state.side == frozenset((0, 2))
    for view in every_view(state):
        assert view["seat_points"] == [None, 0, None, 0, 0]
        assert view["points"] == {"attackers": 0, "defenders": None}
        assert view["last_trick"]["points"] is None
    play_out(state, ("8D", "9D", "JD", "QD", "3C"))
    assert view_for(state, 1)["seat_points"] == [0, 0, 20, 0, 0]


def test_six_seats_hide_the_defending_side() -> None:
    rules = house_rules(6, hide_defender_points=True)
    hands = ("3S 4S", "5S 6S", "KS 7S", "8S 9S", "TS JS", "QS AS")
    state = last_trick(rules, hands, levels=("2", "2"))
    play_out(state, ("3S", "5S", "KS", "8S", "TS", "QS"))  # seat 2, a defender, takes 25
    view = view_for(state, 1)
    assert view["seat_points"] == [None, 0, None, 0, None, 0]
    assert view["points"]["defenders"] is None and view["last_trick"]["points"] is None


# --- §10.9 play_history -----------------------------------------------------------------


def test_full_history_lists_every_completed_trick() -> None:
    state = last_trick(house_rules(play_history="full"), FOUR, levels=("2", "2"))
    assert all(view["tricks"] == [] for view in every_view(state))
    play_out(state, ("KS", "4S", "5S", "8S"))
    play_out(state, ("3S",))
    (first,) = view_public(state)["tricks"]
    assert first["leader"] == 0 and first["winner"] == 0
    assert [(p["seat"], p["cards"]) for p in first["plays"]] == [
        (0, "KS"),
        (1, "4S"),
        (2, "5S"),
        (3, "8S"),
    ]
    play_out(state, ("6S", "7S", "9S"))
    assert [t["leader"] for t in view_for(state, 2)["tricks"]] == [0, 0]


def test_the_last_trick_only_by_default() -> None:
    state = last_trick(house_rules(), FOUR, levels=("2", "2"))
    play_out(state, ("KS", "4S", "5S", "8S"))
    assert "tricks" not in view_for(state, 0) and "tricks" not in view_public(state)


def test_full_history_friends_with_hidden_points() -> None:
    rules = house_rules(5, "friends", play_history="full", hide_defender_points=True)
    state = last_trick(rules, FRIENDS_HANDS, levels=("2",) * 5, side=(0,))
    play_out(state, ("3S", "4S", "KS", "6S", "7S"))
    play_out(state, ("AH", "3H", "4H", "6H", "TH"))
    tricks = view_for(state, 4)["tricks"]
    assert [t["winner"] for t in tricks] == [2, 2] and [t["points"] for t in tricks] == [10, 10]
    state.side = frozenset((0, 2))
    assert [t["points"] for t in view_for(state, 4)["tricks"]] == [None, None]


def test_full_history_at_eight_seats() -> None:
    rules = house_rules(8, play_history="full")
    hands = ("3S 4S", "5S 6S", "7S 8S", "9S TS", "JS QS", "KS AS", "3H 4H", "5H 6H")
    state = last_trick(rules, hands, levels=("2", "2"))
    play_out(state, ("3S", "5S", "7S", "9S", "JS", "KS", "3H", "5H"))
    (trick,) = view_for(state, 7)["tricks"]
    assert trick["winner"] == 5 and [p["seat"] for p in trick["plays"]] == list(range(8))


# --- §10.10 name_throw_blocker ------------------------------------------------------------

THROW_HANDS = ("8H8H 7H 2H 3S", "2H 4S 5S 6S 7S", "8S 9S TS JS QS", "3H KS AS 3C 4C")


def throw_state(rules: RuleSet) -> HandState:
    """The spec's example: seat 0 throws 8H8H 7H 2H; seat 1 holds 2H, seat 3 holds 3H (level
    5, no trump: hearts are plain)."""
    return last_trick(rules, THROW_HANDS, levels=("5", "5"))


def test_the_example_names_seat_3() -> None:
    state = throw_state(house_rules(name_throw_blocker=True))
    state.apply("play 0 8H8H 7H 2H")
    assert state.failed_throws[0].blocker == 3
    for view in every_view(state):
        assert view["failed_throws"][0]["blocker"] == 3
        assert view["failed_throws"][0]["played"] == "2H"


def test_no_blocker_is_named_by_default() -> None:
    state = throw_state(house_rules())
    state.apply("play 0 8H8H 7H 2H")
    assert state.failed_throws[0].blocker is None
    assert "blocker" not in view_for(state, 1)["failed_throws"][0]


def test_a_rejected_throw_names_its_blocker_and_still_hides_its_cards() -> None:
    state = throw_state(house_rules(name_throw_blocker=True, failed_throw="reject"))
    state.apply("play 0 8H8H 7H 2H")
    shown = view_for(state, 2)["failed_throws"][0]
    assert shown["blocker"] == 3 and shown["attempted"] is None


def test_the_blocker_beats_the_forced_part_not_any_part() -> None:
    # KH 3H3H thrown: the next seat holds 4H4H, over the pair; the one after it AH, over the KH.
    # By kind the single KH is played, and the seat holding AH is named; under `lowest` the
    # pair is played, and the seat holding 4H4H is named.
    lead = cards("KH 3H3H")
    hands = [cards("4H4H 4S"), cards("4S"), cards("AH")]
    no_trump_5 = Trump("5", None)
    assert first_blocker(lead, hands, no_trump_5) == 2
    assert first_blocker(lead, hands, no_trump_5, "lowest") == 0
    assert first_blocker(lead, [cards("4S")] * 3, no_trump_5) is None


def test_friends_and_six_seats_name_a_blocker() -> None:
    friends = house_rules(5, "friends", name_throw_blocker=True)
    five = (*THROW_HANDS[:3], "KS AS 3C 4C 5C", "3H 6C 7C 8C 9C")
    state = last_trick(friends, five, levels=("5",) * 5)
    state.apply("play 0 8H8H 7H 2H")
    assert view_for(state, 2)["failed_throws"][0]["blocker"] == 4
    six = house_rules(6, name_throw_blocker=True)
    hands = (
        THROW_HANDS[0],
        "4S 5S 6S 7S 8S",
        "3H 9S TS JS QS",
        "KS AS 3C 4C 5C",
        "KS AS 6C 7C 8C",
        "4H 9C TC JC QC",
    )
    state = last_trick(six, hands, levels=("5", "5"))
    state.apply("play 0 8H8H 7H 2H")
    assert state.failed_throws[0].blocker == 2


@pytest.mark.parametrize(("players", "mode"), [(4, "tractor"), (5, "friends"), (8, "tractor")])
def test_hands_under_every_view_option_replay_from_their_records(players: int, mode: str) -> None:
    rules = house_rules(
        players,
        mode,
        hide_defender_points=True,
        play_history="full",
        name_throw_blocker=True,
    )
    slots = players if mode == "friends" else 2
    for seed in range(3):
        state = new_hand(rules, seed, levels=("2",) * slots, dealer=seed % players)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        replayed = replay_final(record_of(state))
        assert view_all(replayed) == view_all(state)
        assert every_view(replayed) == every_view(state)


@pytest.mark.parametrize(
    ("players", "mode"), [(4, "tractor"), (5, "friends"), (6, "tractor"), (8, "friends")]
)
def test_bots_play_every_house_option(players: int, mode: str) -> None:
    """The basic and the search bot play hands under the house options of RULES-SPEC.md §10
    together (a hand at NT, hidden points, every trick shown, a kitty of 7 with cards
    removed, a deck from 3 without jokers, tractors of three pairs, both protections of
    ``protected_tractors_only``, throws judged unit by unit, bombs at four decks, rainbows of
    four) with no refused move."""
    rules = house_rules(
        players,
        mode,
        top_level="NT",
        advancement="defend_points",
        jack_rule="single_jack",
        kitty_multiplier="unit_power",
        throw_penalty=10,
        throw_penalty_per="attempt",
        takeover_steps=3,
        deadzone_steps=0,
        hide_defender_points=True,
        play_history="full",
        name_throw_blocker=True,
        kitty_size=7,
        deck_min_rank="3",
        deck_jokers="none",
        tractor_min_length=3,
        draw_policy="protected_tractors_only",
        throw_beat="all_units",
        bombs="follow_suit" if players == 8 else "off",
        rainbow_min=4,
    )
    slots = players if mode == "friends" else 2
    for name, level in (("basic", "NT"), ("search", "J")):
        state = new_hand(rules, 11, levels=(level,) * slots, dealer=1)
        stats = HandStats()
        budget = SearchBudget(max_samples=4, max_ms=None)  # a few playouts: legality, not play
        bots = [make_bot(name, seed=seat, budget=budget) for seat in range(players)]
        play_hand(state, bots, stats)
        assert state.result is not None and stats.refused == []
