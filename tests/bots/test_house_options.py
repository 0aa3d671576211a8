"""The bots under the house options (RULES-SPEC.md §10): only legal moves under random
combinations of them at every table shape, and a sensible use of bombs, rainbows and the
kitty. The long run (2,000 hands, 0 refused, docs/BOTS.md):
``python -m shengji.bots.legality --house-options random --hands 2000 --seed 45``."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from shengji.bots import SearchBudget, act_for_seat
from shengji.bots.basic import Ctx, lead_options, table_multiplier
from shengji.bots.knowledge import knowledge_from_view
from shengji.bots.legality import block_rules, run_random, run_random_part
from shengji.bots.memory import new_memory, public_history
from shengji.engine.actions import play
from shengji.engine.cards import parse_cards as cards
from shengji.engine.hand import HandState
from shengji.engine.random_options import RANDOM_OPTIONS, SHAPES
from shengji.engine.rules import RuleSet
from shengji.engine.trump import Trump
from shengji.engine.views import view_for
from tests.engine.house_helpers import house_rules, last_trick

BLOCKS = 64
"""Rule sets of the fast run: 64 × 4 = 256 hands, a quarter in each of four tests."""


@pytest.mark.parametrize("part", range(4))
def test_basic_bots_play_legal_hands_under_random_house_options(part: int) -> None:
    figures = run_random_part("basic", range(part, BLOCKS, 4), 45, SearchBudget(), 4)
    assert figures["hands"] == BLOCKS
    assert figures["refused"] == []
    assert figures["actions_checked"] > BLOCKS * 30
    # The bots throw only what cannot fail: nothing is ever taken back.
    assert figures["failed_throws"] == {}


def test_the_fast_run_changes_every_option() -> None:
    changed: set[str] = set()
    shapes = set()
    for block in range(BLOCKS):
        rules, _ = block_rules(45, block, None)
        shapes.add((rules.players, rules.decks, rules.mode))
        changed.update(
            option
            for option in RANDOM_OPTIONS
            if getattr(rules, option) != getattr(RuleSet(), option)
        )
    assert changed == set(RANDOM_OPTIONS)
    assert shapes == set(SHAPES)


def test_search_bots_play_legal_hands_under_random_house_options() -> None:
    budget = SearchBudget(max_samples=2, max_ms=None, candidates=2)
    figures = run_random("search", len(SHAPES), 46, 1, budget, hands_per_rules=1)
    assert figures["hands"] == len(SHAPES)
    assert figures["refused"] == 0


def test_random_and_baseline_bots_are_legal_under_random_house_options() -> None:
    for bot in ("random", "baseline"):
        figures = run_random_part(bot, range(len(SHAPES)), 47, SearchBudget(), 1)
        assert figures["refused"] == []


def test_the_command_runs_random_house_options_at_one_shape() -> None:
    from shengji.bots.legality import main

    assert main(["--house-options", "random", "--hands", "2", "--shape", "6/3/friends"]) == 0


def test_progress_is_reported_under_random_house_options_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from shengji.bots.legality import main

    args = ["--house-options", "random", "--hands", "4", "--shape", "5/2/friends"]
    assert main([*args, "--progress", "2", "--hands-per-rules", "2"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [line["hands"] for line in lines] == [2, 4]
    assert all(line["house_options"] == "random" and line["refused"] == 0 for line in lines)


# --- bombs (RULES-SPEC.md §10.16) ---------------------------------------------------------

OTHERS = ("3C4C5C6C7C8C", "3D4D5D6D7D8D", "9C9CTCJC", "QCKC9D9D", "TDJDQDKD", "ADAD3H5H")
"""Seats 2–7 of the bomb positions: no bomb among them."""


def _led(bombs: str, lead: str, seat1: str) -> HandState:
    """8 seats, 4 decks, tractor mode, level 4, trump H: seat 0 has led ``lead``; seat 1 (an
    opponent) holds ``seat1``."""
    rules = house_rules(8, "tractor", bombs=bombs)
    state = last_trick(rules, [lead, seat1, *OTHERS], levels=["4", "4"], suit="H")
    state.apply(play(0, cards(lead)))
    return state


def _bot_play(state: HandState, seat: int) -> str:
    text = act_for_seat(state, seat)
    assert text is not None and text.startswith(f"play {seat} ")
    state.check_action(seat, text)  # legal
    return text.split(None, 2)[2]


@pytest.mark.parametrize("bombs", ["any_suit", "follow_suit"])
def test_a_bomb_takes_a_trick_with_points(bombs: str) -> None:
    # KSKS ASAS carries 20 points: the void seat bombs it under either rule, the seat still
    # holding spades only under any_suit.
    assert _bot_play(_led(bombs, "KSKSASAS", "2D2D2D2D6C9CTCJC"), 1) == "2D 2D 2D 2D"
    holding = _bot_play(_led(bombs, "KSKSASAS", "2D2D2D2D3S7S6C9C"), 1)
    assert (holding == "2D 2D 2D 2D") == (bombs == "any_suit")


@pytest.mark.parametrize("bombs", ["any_suit", "follow_suit"])
def test_no_bomb_is_wasted_on_a_trick_without_points(bombs: str) -> None:
    played = _bot_play(_led(bombs, "7S7S8S8S", "2D2D2D2D3S7S6C9C"), 1)
    assert sorted(cards(played)) == sorted(cards("3S7S6C9C"))
    assert "2D" not in _bot_play(_led(bombs, "7S7S8S8S", "2D2D2D2D6C9CTCJC"), 1)


def test_no_bomb_is_played_on_a_trick_the_partner_has_won() -> None:
    # 4 seats, 4 decks: seat 1's KSKS ASAS beats seat 0's lead; seat 3, last, plays with seat 1.
    rules = house_rules(4, "tractor", decks=4, bombs="any_suit")
    hands = ["3S3S4S4S", "KSKSASAS", "6S7S8S9S", "2D2D2D2D6C7C8C9C"]
    state = last_trick(rules, hands, levels=["J", "J"], suit="H")
    for seat, text in enumerate(hands[:3]):
        state.apply(play(seat, cards(text)))
    assert _bot_play(state, 3) == "9C 8C 7C 6C"


def test_a_bomb_under_any_suit_shows_no_void() -> None:
    trump = Trump("4", "H")
    for bombs, void in (("any_suit", False), ("follow_suit", True)):
        memory = new_memory(8, rules=house_rules(8, "tractor", bombs=bombs))
        memory.note_play(0, cards("8S8S9S9S"), None, trump)
        memory.note_play(1, cards("2D2D2D2D"), cards("8S8S9S9S"), trump)
        spades = 1 << trump.groups[cards("8S")[0]]
        assert bool(memory.voids[1] & spades) is void
        # A bomb of the led suit shows no lack of pairs either.
        memory.note_play(2, cards("3S3S3S3S"), cards("8S8S9S9S"), trump)
        assert not memory.no_pairs[2] & spades


def test_a_follow_under_suit_only_shows_no_lack_of_pairs() -> None:
    trump = Trump("4", "H")
    spades = 1 << trump.groups[cards("8S")[0]]
    for policy, shown in (("no_protections", True), ("suit_only", False)):
        memory = new_memory(4, rules=house_rules(4, draw_policy=policy))
        memory.note_play(0, cards("8S8S"), None, trump)
        memory.note_play(1, cards("3S5S"), cards("8S8S"), trump)
        assert bool(memory.no_pairs[1] & spades) is shown


# --- rainbows (RULES-SPEC.md §10.17) ------------------------------------------------------


def _rainbow_table(hands: Sequence[str]) -> HandState:
    rules = house_rules(4, "tractor", rainbow_min=4)
    return last_trick(rules, hands, levels=["2", "2"], suit="H")


def test_a_rainbow_no_unseen_cards_can_beat_is_led() -> None:
    # Seat 0 holds two of the eight aces: the six others span three suit groups only, so no
    # rainbow of aces can answer the kings.
    state = _rainbow_table(["KCKDKHKS3C4DACAC", "5C6C7C8C9CTC", "5D6D7D8D9DTD", "3D4C6S7S8S9S"])
    assert _bot_play(state, 0) == "KS KH KC KD"


def test_a_rainbow_higher_ones_can_beat_is_not_led() -> None:
    state = _rainbow_table(["5C5D5H5S3C4D", "5C6C7C8C9CTC", "5D6D7D8D9DTD", "3D4C6S7S8S9S"])
    assert len(cards(_bot_play(state, 0))) == 1


def test_rainbows_are_answered_and_points_go_to_the_winning_side() -> None:
    state = _rainbow_table(["5C5D5H5S3C4D", "6C6D6H6S2C2D", "7C8C9CJCQDJD", "3S4STCKC8S9S"])
    state.apply(play(0, cards("5C5D5H5S")))
    assert sorted(cards(_bot_play(state, 1))) == sorted(cards("6C6D6H6S"))  # owed, and wins
    state.apply(play(1, cards("6C6D6H6S")))
    assert not {"TC", "KC"} & set(_bot_play(state, 2).split())  # seat 2 gives no points
    state.apply(play(2, cards("7C8C9CJC")))
    assert {"TC", "KC"} <= set(_bot_play(state, 3).split())  # seat 3's partner wins: points


# --- the kitty (RULES-SPEC.md §5.5, §10.2, §10.17) ----------------------------------------


@pytest.mark.parametrize(
    ("options", "lead", "multiplier"),
    [
        ({"kitty_multiplier": "unit_power"}, "7H7H8H8H", 16),
        ({"kitty_multiplier": "unit_size"}, "7H7H8H8H", 8),
        ({}, "7H7H8H8H", 8),
        ({"kitty_multiplier": "unit_power"}, "5S", 2),
        ({"rainbow_min": 4}, "5C5D5H5S", 8),
    ],
)
def test_the_kitty_stake_reads_the_tables_multiplier(
    options: dict[str, object], lead: str, multiplier: int
) -> None:
    rules = house_rules(4, "tractor", **options)
    led = cards(lead)
    assert table_multiplier(led, led, Trump("2", "H"), rules, 2) == multiplier


# --- tractor options (RULES-SPEC.md §10.13) ------------------------------------------------


def test_a_run_too_short_for_the_tables_tractors_is_not_offered_as_a_lead() -> None:
    # Under tractor_min_length 3, 5S5S 6S6S is two pairs thrown: unseen spade pairs beat it.
    rules = house_rules(4, "tractor", tractor_min_length=3)
    hands = ["5S5S6S6S3C4C", "9S9S7C8C9CTC", "5D6D7D8D9DTD", "3D4D6C7S8S2C"]
    state = last_trick(rules, hands, levels=["2", "2"], suit="H")
    view = view_for(state, 0)
    k = knowledge_from_view(view, rules, public_history(state.actions, view))
    offered = {play for _, play in lead_options(Ctx(k))}
    assert tuple(cards("5S5S")) in offered
    assert tuple(sorted(cards("5S5S6S6S"))) not in offered
    assert _bot_play(state, 0) != "5S 5S 6S 6S"
