"""House options of points (RULES-SPEC.md §10.2 ``kitty_multiplier`` by unit, §10.3
``throw_penalty_per``, §10.4 level bands): their worked examples, refusals, records, settlement,
and 找朋友 and bigger tables."""

from __future__ import annotations

import pytest

from shengji.engine import (
    HOUSE_OPTIONS,
    HOUSE_RULE_OPTIONS,
    InvalidOptionError,
    Trump,
    kitty_multiplier,
    level_change,
    parse_cards,
    preset,
)
from shengji.engine.cards import format_cards
from shengji.engine.follow import legal_follow
from shengji.engine.hand import HandState
from shengji.engine.rules import RefusedOptionError, RuleSet
from shengji.engine.scoring import ScoreBands, unit_multiplier
from shengji.settlement import outcome_as_json
from tests.engine.house_helpers import casual_outcome, house_rules, last_trick, play_out
from tests.engine.shape_helpers import dealt

cards = parse_cards
PLAIN = Trump("2", "D")  # spades and hearts plain


# --- §10.2 kitty_multiplier: unit_size, unit_power ---------------------------------------


@pytest.mark.parametrize(
    ("lead", "size", "power", "lead_shape"),
    [
        ("5S", 2, 2, 2),
        ("5S5S", 4, 4, 4),
        ("AS KSKS", 4, 4, 4),
        ("7H7H8H8H", 8, 16, 8),
        ("QSQSKSKS AS", 8, 16, 8),
        ("7H7H8H8H9H9H", 12, 64, 16),
    ],
)
def test_the_multipliers_of_the_table(lead: str, size: int, power: int, lead_shape: int) -> None:
    played = cards(lead)
    assert unit_multiplier(played, PLAIN, "unit_size") == size
    assert unit_multiplier(played, PLAIN, "unit_power") == power
    assert kitty_multiplier(played, PLAIN, "lead_shape") == lead_shape


def test_a_triple_at_three_decks() -> None:
    assert unit_multiplier(cards("5S5S5S"), PLAIN, "unit_size") == 6
    assert unit_multiplier(cards("5S5S5S"), PLAIN, "unit_power") == 8


def test_the_unit_values_are_house_options_only() -> None:
    assert HOUSE_OPTIONS["kitty_multiplier"] == (
        "lead_shape",
        "winner_shape",
        "pairs",
        "unit_size",
        "unit_power",
    )
    assert HOUSE_RULE_OPTIONS["kitty_multiplier"] == ("lead_shape", "winner_shape", "pairs")
    rules = preset("ranked").with_options(kitty_multiplier="unit_power")
    assert RuleSet.from_json(rules.to_json()) == rules


def kitty_bonus(rules: RuleSet, last: tuple[str, ...], buried: str = "TD") -> tuple[int, int]:
    """(multiplier, bonus) when seat 1, an attacker, takes the last trick with ``last``."""
    state = last_trick(rules, last, levels=("2",) * (rules.players if rules.is_friends else 2))
    state.buried = list(cards(buried))
    if rules.is_friends:
        state.side = frozenset((0,))
    play_out(state, last)
    assert state.result is not None and state.result.winning_seats is not None
    return state.result.kitty_multiplier, state.result.kitty_bonus


TRACTOR_LAST = ("3S3S4S4S", "6S6S7S7S", "8S9STSJS", "QSKS3H4H")


@pytest.mark.parametrize(
    ("policy", "multiplier"),
    [("lead_shape", 8), ("winner_shape", 8), ("unit_size", 8), ("unit_power", 16)],
)
def test_a_tractor_led_in_the_last_trick(policy: str, multiplier: int) -> None:
    rules = house_rules(kitty_multiplier=policy)
    assert kitty_bonus(rules, TRACTOR_LAST) == (multiplier, 10 * multiplier)


def test_the_unit_values_are_read_at_three_decks_where_the_others_are_not() -> None:
    last = ("3S3S3S", "6S6S6S", "7S8S9S", "TSJSQS", "3H4H5H", "6H7H8H")
    for policy, multiplier in (("pairs", 6), ("unit_size", 6), ("unit_power", 8)):
        assert kitty_bonus(house_rules(6, kitty_multiplier=policy), last)[0] == multiplier


def test_unit_power_friends_at_eight_seats() -> None:
    rules = house_rules(8, "friends", kitty_multiplier="unit_power")
    plays = ("4S4S4S4S", "6S6S6S6S", "7S8S9STS", "JSQSKSAS", "3H4H5H6H")
    last = (*plays, "7H8H9HTH", "JHQHKHAH", "3C4C5C6C")
    assert kitty_bonus(rules, last) == (16, 160)


# --- §10.3 throw_penalty_per ------------------------------------------------------------


def thrown(rules: RuleSet) -> HandState:
    """The spec's example: seat 0, the dealer, throws 8H8H 7H 2H; seat 3 holds 3H, so 2H is
    played (level 5, no trump: hearts are plain)."""
    state = dealt(rules, {0: "8H8H 7H 2H", 3: "3H"}, levels=("5", "5"))
    keep = cards("8H8H 7H 2H")
    hand = [c for c in state.hands[0]]
    for card in keep:
        hand.remove(card)
    state.apply(f"bury 0 {format_cards(hand[: state.kitty_size])}")
    state.apply("play 0 8H8H 7H 2H")
    return state


@pytest.mark.parametrize(("per", "penalty"), [("card", 30), ("attempt", 10)])
def test_the_example_per_card_and_per_attempt(per: str, penalty: int) -> None:
    state = thrown(house_rules(throw_penalty=10, throw_penalty_per=per))
    assert format_cards(state.trick.plays[0]) == "2H"
    assert state.failed_throws[0].penalty == penalty
    assert state.penalty_points == penalty  # the dealer's side gives it to the attackers


@pytest.mark.parametrize(("per", "penalty"), [("card", 30), ("attempt", 10)])
def test_the_example_at_six_seats(per: str, penalty: int) -> None:
    state = thrown(house_rules(6, throw_penalty=10, throw_penalty_per=per))
    assert format_cards(state.trick.plays[0]) == "2H"
    assert state.penalty_points == penalty


def test_every_rejected_attempt_counts() -> None:
    rules = house_rules(throw_penalty=10, throw_penalty_per="attempt", failed_throw="reject")
    state = thrown(rules)
    assert state.trick.plays == []
    state.apply("play 0 8H8H 7H 2H")
    assert [f.penalty for f in state.failed_throws] == [10, 10]
    assert state.penalty_points == 20
    card_rules = rules.with_options(throw_penalty_per="card")
    assert thrown(card_rules).penalty_points == 40


def test_throw_penalty_is_a_house_option_and_per_card_the_default() -> None:
    assert "throw_penalty" in HOUSE_OPTIONS and HOUSE_OPTIONS["throw_penalty_per"] == (
        "card",
        "attempt",
    )
    assert "throw_penalty_per" not in preset("ranked").to_dict()["options"]
    assert preset("ranked").to_dict()["options"]["throw_penalty"] == 0
    with pytest.raises(InvalidOptionError):
        preset("ranked").with_options(throw_penalty_per="hand")


def test_friends_the_throwers_side_is_read_when_it_is_known() -> None:
    """A seat that throws as an attacker and is revealed as a friend later in the hand: the
    penalty is charged to the side it ends on (RULES-SPEC.md §10.3)."""
    rules = house_rules(5, "friends", throw_penalty=10, throw_penalty_per="attempt")
    hands = {0: "3D", 1: "4D", 2: "KD 8H8H 7H 2H", 3: "6D 3H", 4: "7D"}
    state = dealt(rules, hands, levels=("5",) * 5)
    state.apply("call 0 12H")
    hand = list(state.hands[0])
    hand.remove(cards("3D")[0])
    state.apply(f"bury 0 {format_cards(hand[: state.kitty_size])}")
    play_out(state, ("3D", "4D", "KD", "6D", "7D"))
    assert state.turn == 2
    state.apply("play 2 8H8H 7H 2H")
    assert state.penalty_points == -10  # seat 2 is an attacker as far as anyone knows
    while state.trick.plays:
        seat = state.turn
        assert state.trump is not None
        follow = legal_follow(state.hands[seat], state.trick.plays[0], state.trump)
        state.apply(f"play {seat} {format_cards(follow)}")
    assert 2 in state.side
    assert state.penalty_points == 10


# --- §10.4 level bands ------------------------------------------------------------------


@pytest.mark.parametrize("decks", [2, 3, 4])
def test_the_default_bands_are_the_rules_bands(decks: int) -> None:
    for x in range(0, 120 * decks):
        assert level_change(x, decks, ScoreBands()) == level_change(x, decks), x


@pytest.mark.parametrize(
    ("bands", "x", "change"),
    [
        (ScoreBands(deadzone_steps=0), 80, ("attackers", 1)),
        (ScoreBands(deadzone_steps=0), 120, ("attackers", 2)),
        (ScoreBands(deadzone_steps=0), 75, ("defenders", 1)),
        (ScoreBands(zero_bonus=False), 0, ("defenders", 2)),
        (ScoreBands(takeover_steps=3), 0, ("defenders", 4)),
        (ScoreBands(takeover_steps=3), 5, ("defenders", 3)),
        (ScoreBands(takeover_steps=3), 35, ("defenders", 3)),
        (ScoreBands(takeover_steps=3), 40, ("defenders", 2)),
        (ScoreBands(takeover_steps=3), 75, ("defenders", 2)),
        (ScoreBands(takeover_steps=3), 80, ("defenders", 1)),
        (ScoreBands(takeover_steps=3), 115, ("defenders", 1)),
        (ScoreBands(takeover_steps=3), 120, ("attackers", 0)),
        (ScoreBands(takeover_steps=3), 155, ("attackers", 0)),
        (ScoreBands(takeover_steps=3), 160, ("attackers", 1)),
        (ScoreBands(step_points=30), 25, ("defenders", 2)),
        (ScoreBands(step_points=30), 30, ("defenders", 1)),
        (ScoreBands(step_points=30), 60, ("attackers", 0)),
        (ScoreBands(step_points=30), 120, ("attackers", 2)),
        (ScoreBands(deadzone_steps=2), 155, ("attackers", 0)),
        (ScoreBands(deadzone_steps=2), 160, ("attackers", 1)),
        # Points that are not a multiple of 5 (a throw penalty of 3): only 0 is "no points".
        (ScoreBands(takeover_steps=3), 3, ("defenders", 3)),
    ],
)
def test_the_examples_of_the_bands(bands: ScoreBands, x: int, change: tuple[str, int]) -> None:
    assert level_change(x, 2, bands) == change


@pytest.mark.parametrize(
    "options",
    [
        {"step_points": 7},
        {"step_points": -5},
        {"step_points": 205},
        {"takeover_steps": 0},
        {"takeover_steps": 6},
        {"step_points": 50, "takeover_steps": 5},
        {"deadzone_steps": -1},
    ],
)
def test_bands_out_of_range_are_refused(options: dict[str, int]) -> None:
    with pytest.raises(RefusedOptionError) as caught:
        preset("ranked").with_options(**options)
    assert (caught.value.code, caught.value.reason) == (
        "invalid_option",
        "score_bands_out_of_range",
    )


def test_bands_that_fit_the_decks_until_the_decks_change() -> None:
    rules = house_rules(6, step_points=150)  # takeover at 300, all three decks' points
    assert rules.decks == 3 and rules.score_bands == ScoreBands(150, 2, 1, True)
    with pytest.raises(RefusedOptionError) as fewer:
        rules.with_options(decks=2)
    assert fewer.value.reason == "score_bands_out_of_range"
    with pytest.raises(RefusedOptionError) as seats:
        rules.with_options(players=4)  # two decks by default
    assert seats.value.reason == "score_bands_out_of_range"


@pytest.mark.parametrize(
    "options",
    [{"step_points": 30}, {"takeover_steps": 3}, {"deadzone_steps": 0}, {"zero_bonus": False}],
)
def test_table_settlement_refuses_other_bands(options: dict[str, object]) -> None:
    with pytest.raises(RefusedOptionError) as caught:
        preset("seed002").with_options(**options)
    assert caught.value.reason == "score_bands_with_table_settlement"
    with pytest.raises(RefusedOptionError) as changed:
        preset("ranked").with_options(**options).with_options(settlement="table")
    assert changed.value.reason == "score_bands_with_table_settlement"


def test_presets_have_no_bands_and_write_none() -> None:
    for name in ("ranked", "seed000", "seed002", "seed003", "seed004"):
        rules = preset(name)
        assert rules.score_bands is None and not rules.has_score_bands
        assert not {"step_points", "takeover_steps", "deadzone_steps", "zero_bonus"} & set(
            rules.to_dict()["options"]
        )
    rules = preset("ranked").with_options(zero_bonus=False, takeover_steps=3)
    options = rules.to_dict()["options"]
    assert (options["zero_bonus"], options["takeover_steps"]) == (False, 3)
    assert RuleSet.from_json(rules.to_json()) == rules
    with pytest.raises(InvalidOptionError):
        preset("ranked").with_options(zero_bonus=0)


DEFENDERS_TAKE_LAST = ("BJ", "3S", "4S", "6S")


def test_a_hand_is_scored_by_its_bands_and_settled_by_them() -> None:
    rules = house_rules(deadzone_steps=0, settlement="levels")
    state = last_trick(rules, DEFENDERS_TAKE_LAST, levels=("5", "5"), attacker_points=80)
    result = play_out(state, DEFENDERS_TAKE_LAST).result
    assert result is not None
    assert (result.winner, result.levels_gained, result.levels_after) == (
        "attackers",
        1,
        ("5", "6"),
    )
    outcome = casual_outcome(result.to_dict(), rules.to_dict(), ["5", "5"])
    assert (outcome.levels_gained, outcome.winner_side) == (1, 1)
    assert outcome_as_json(outcome)["score_bands"] == {
        "step_points": 0,
        "takeover_steps": 2,
        "deadzone_steps": 0,
        "zero_bonus": True,
    }
    plain = casual_outcome(
        result.to_dict() | {"levels_gained": None}, preset("seed000").to_dict(), ["5", "5"]
    )
    assert plain.levels_gained == 0 and "score_bands" not in outcome_as_json(plain)


def test_bands_at_six_seats_and_in_friends() -> None:
    six = house_rules(6, takeover_steps=3)  # 3 decks: a step of 60
    last = (*DEFENDERS_TAKE_LAST, "7S", "8S")
    state = last_trick(six, last, levels=("5", "5"), attacker_points=150)
    result = play_out(state, last).result
    assert result is not None and (result.winner, result.levels_gained) == ("defenders", 1)
    friends = house_rules(5, "friends", zero_bonus=False)
    five = (*DEFENDERS_TAKE_LAST, "7S")
    state = last_trick(friends, five, levels=("5",) * 5, side=(0, 2))
    result = play_out(state, five).result
    assert result is not None and (result.winner, result.levels_gained) == ("defenders", 2)
    assert result.levels_after == ("7", "5", "7", "5", "5")
