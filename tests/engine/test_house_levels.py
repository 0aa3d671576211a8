"""House options of levels (RULES-SPEC.md §10.5 ``top_level``, §10.6 ``advancement`` 必打,
§10.7 ``jack_rule`` 勾J): their worked examples, refusals, records, and 找朋友 and bigger tables."""

from __future__ import annotations

import pytest

from shengji.engine import (
    HOUSE_OPTIONS,
    InvalidOptionError,
    InvalidSetupError,
    Trump,
    is_tractor,
    legal_actions,
    new_hand,
    parse_cards,
    preset,
)
from shengji.engine.action_errors import IllegalActionError
from shengji.engine.errors import InvalidTrumpError
from shengji.engine.friends import friend_call_error
from shengji.engine.hand import BURYING, HandResult
from shengji.engine.levels import advance
from shengji.engine.rules import RefusedOptionError, RuleSet
from shengji.settlement import (
    HandOutcome,
    normal_lines,
    outcome_as_json,
    ratio_percent,
)
from tests.engine.house_helpers import casual_outcome, house_rules, last_trick, play_out

cards = parse_cards
# Last tricks of a four-seat table, the dealer (seat 0) leading: won by the dealer, or by seat 1
# (an attacker); no point cards in them.
DEFENDERS_TAKE_LAST = ("BJ", "3S", "4S", "6S")
ATTACKERS_TAKE_LAST = ("SJ", "BJ", "3S", "4S")


def result_of(
    rules: RuleSet,
    levels: tuple[str, ...],
    x: int,
    last: tuple[str, ...] = DEFENDERS_TAKE_LAST,
    **setup: object,
) -> HandResult:
    """The result of a hand whose attackers hold ``x`` points before a last trick without
    points or kitty points."""
    state = last_trick(rules, last, levels=levels, attacker_points=x, **setup)  # type: ignore[arg-type]
    play_out(state, last)
    assert state.result is not None and state.result.attacker_points == x
    return state.result


# --- options, records, refusals --------------------------------------------------------------


def test_presets_write_none_of_the_level_options_and_records_read_them_as_before() -> None:
    for rules in (preset(name) for name in ("ranked", "seed000", "seed002", "seed003", "seed004")):
        options = rules.to_dict()["options"]
        assert not {"top_level", "advancement", "jack_rule"} & set(options)
        assert (rules.top_level, rules.advancement, rules.jack_rule) == ("A", "free", "off")
        assert RuleSet.from_dict(rules.to_dict()) == rules


def test_a_level_option_set_is_written_and_read_back() -> None:
    rules = preset("ranked").with_options(top_level="NT", advancement="defend_points")
    options = rules.to_dict()["options"]
    assert (options["top_level"], options["advancement"]) == ("NT", "defend_points")
    assert "jack_rule" not in options
    assert RuleSet.from_json(rules.to_json()) == rules


@pytest.mark.parametrize(
    ("option", "value"),
    [("top_level", "K"), ("top_level", None), ("advancement", "defend"), ("jack_rule", "on")],
)
def test_unknown_values_are_refused(option: str, value: object) -> None:
    with pytest.raises(InvalidOptionError) as caught:
        preset("ranked").with_options(**{option: value})
    assert caught.value.code == "invalid_option"


@pytest.mark.parametrize(
    ("option", "value"),
    [("top_level", "NT"), ("advancement", "defend_top"), ("jack_rule", "single_jack")],
)
def test_a_level_drawn_at_random_refuses_the_level_options(option: str, value: str) -> None:
    with pytest.raises(RefusedOptionError) as caught:
        preset("seed003").with_options(**{option: value})
    assert (caught.value.code, caught.value.reason) == ("invalid_option", "needs_team_level")
    with pytest.raises(RefusedOptionError) as changed:
        preset("ranked").with_options(**{option: value}).with_options(level_source="random")
    assert changed.value.reason == "needs_team_level"


# --- §10.5 top_level: NT -------------------------------------------------------------------


def test_at_nt_the_trumps_are_the_jokers_and_every_suit_is_plain() -> None:
    nt = Trump("NT")
    assert [c for c in range(54) if nt.is_trump(c)] == cards("SJ BJ")
    assert is_tractor(cards("4S4S5S5S"), nt) and is_tractor(cards("SJSJBJBJ"), nt)
    assert not nt.is_trump(cards("AS")[0]) and nt.orders[cards("AS")[0]] == 12
    assert is_tractor(cards("KSKSASAS"), nt)
    with pytest.raises(InvalidTrumpError):
        Trump("NT", "S")


def test_a_hand_at_nt_has_no_bids_and_turns_nothing_over() -> None:
    # seed 000 turns the kitty over when nobody bids in a later hand: not at NT.
    rules = preset("seed000").with_options(top_level="NT")
    state = new_hand(rules, 3, levels=("NT", "5"), dealer=2)
    while state.phase == "dealing":
        state.apply("draw")
        for seat in range(4):
            assert legal_actions(state, seat) == []
    joker = "BJ" if state.hands[0].count(cards("BJ")[0]) == 2 else "SJ"
    state.hands[0] += cards(f"{joker} {joker}")
    with pytest.raises(IllegalActionError) as refused:
        state.apply(f"bid 0 {joker} {joker}")
    assert refused.value.code == "bid_not_showable"
    state.apply("close")
    assert state.phase == BURYING and state.dealer == 2
    assert state.trump == Trump("NT") and state.flipped == [] and state.deal_number == 0


def test_a_first_hand_at_nt_is_dealt_by_seat_0() -> None:
    rules = preset("seed000").with_options(top_level="NT")  # redeals a first hand without bids
    state = new_hand(rules, 4, levels=("NT", "NT"))
    while state.phase == "dealing":
        state.apply("draw")
    state.apply("close")
    assert (state.phase, state.dealer, state.deal_number) == (BURYING, 0, 0)


def test_nt_is_no_level_of_a_table_that_stops_at_a() -> None:
    with pytest.raises(InvalidSetupError):
        new_hand(preset("ranked"), 1, levels=("NT", "2"), dealer=0)


def test_past_a_comes_nt_then_past_ace_decides() -> None:
    rules = house_rules(top_level="NT")
    assert result_of(rules, ("K", "5"), 20).levels_after == ("NT", "5")  # K → A → NT
    over = result_of(rules, ("NT", "5"), 40, suit=None)
    assert (over.levels_after, over.match_over, over.match_winner) == (("NT", "5"), True, 0)
    wrapped = result_of(rules.with_options(past_ace="wrap"), ("A", "5"), 0)
    # +3 from A: NT, past NT back to 2, then 3.
    assert (wrapped.levels_after, wrapped.wrapped_after) == (("3", "5"), (True, False))


def test_a_table_stopping_at_a_passes_a_as_before() -> None:
    assert result_of(house_rules(), ("K", "5"), 20).match_over
    wrapped = result_of(house_rules(past_ace="wrap"), ("K", "5"), 0)
    assert (wrapped.levels_after, wrapped.wrapped_after) == (("3", "5"), (True, False))


def test_nt_settles_at_the_ratio_of_a() -> None:
    result = result_of(house_rules(top_level="NT"), ("NT", "5"), 40)
    assert (result.highest_level_at_start, result.ratio_level) == ("NT", "A")
    assert ratio_percent(("NT", "5"), (False, False)) == ratio_percent(("A", "5"), (False, False))
    outcome = HandOutcome(
        kind="normal",
        settlement="ratio",
        escape_penalty="triple",
        stake=100,
        dealer_side=0,
        attacker_points=40,
        levels_at_start=("NT", "5"),
    )
    assert sorted(line.amount for line in normal_lines(outcome))[-1] == 220 + 100


@pytest.mark.parametrize(
    ("card", "policy", "code"),
    [
        ("AS", "unrestricted", None),
        ("2H", "unrestricted", None),
        ("SJ", "unrestricted", "friend_joker"),
        ("AS", "no_highest", "friend_highest"),
        ("KS", "no_highest", None),
        ("KS", "no_points", "friend_points"),
        ("5D", "no_points", "friend_points"),
    ],
)
def test_friend_calls_at_nt(card: str, policy: str, code: str | None) -> None:
    assert friend_call_error(cards(card)[0], 1, Trump("NT"), 2, policy) == code


def test_a_friends_hand_is_at_nt_when_its_dealer_is() -> None:
    rules = house_rules(6, "friends", top_level="NT")
    state = new_hand(rules, 5, levels=("2", "NT", "5", "2", "2", "2"), dealer=1)
    while state.phase == "dealing":
        state.apply("draw")
    state.apply("close")
    assert state.trump == Trump("NT")


# --- §10.6 advancement (必打) --------------------------------------------------------------


def test_defend_top_the_examples() -> None:
    rules = house_rules(advancement="defend_top")
    # Attackers at K win +2: they stop on A (under `free` they would pass it and win).
    stopped = result_of(rules, ("5", "K"), 160, ATTACKERS_TAKE_LAST)
    assert (stopped.levels_after, stopped.match_over) == (("5", "A"), False)
    # Defenders at Q win +2 → A; at A they win +1 and pass it.
    assert result_of(rules, ("Q", "5"), 20).levels_after == ("A", "5")
    won = result_of(rules, ("A", "5"), 40)
    assert (won.levels_after, won.match_over, won.match_winner) == (("A", "5"), True, 0)
    wrapped = result_of(rules.with_options(past_ace="wrap"), ("A", "5"), 40)
    assert (wrapped.levels_after, wrapped.wrapped_after) == (("2", "5"), (True, False))
    # Passing A takes the first level of the gain: the rest goes on from 2.
    assert result_of(rules.with_options(past_ace="wrap"), ("A", "5"), 0).levels_after == (
        "4",
        "5",
    )


def test_defend_points_the_examples() -> None:
    rules = house_rules(advancement="defend_points")
    assert result_of(rules, ("9", "4"), 160, ATTACKERS_TAKE_LAST).levels_after == ("9", "5")
    # Still attacking, they stay on 5 however much they win.
    assert result_of(rules, ("9", "5"), 200, ATTACKERS_TAKE_LAST).levels_after == ("9", "5")
    assert result_of(rules, ("5", "4"), 20).levels_after == ("7", "4")
    assert result_of(rules, ("9", "4"), 0).levels_after == ("T", "4")
    assert result_of(rules, ("K", "4"), 20).levels_after == ("A", "4")  # K defended, A stops


def test_defend_top_below_nt_gates_a_and_nt() -> None:
    rules = house_rules(top_level="NT", advancement="defend_top")
    assert result_of(rules, ("5", "Q"), 200, ATTACKERS_TAKE_LAST).levels_after == ("5", "A")
    assert result_of(rules, ("A", "5"), 20).levels_after == ("NT", "5")
    won = result_of(rules, ("NT", "5"), 40, suit=None)
    assert (won.levels_after, won.match_over) == (("NT", "5"), True)


def test_defend_top_friends_a_friend_at_nt_stays_when_the_hand_is_not_at_nt() -> None:
    rules = house_rules(5, "friends", top_level="NT", advancement="defend_top")
    levels = ("2", "5", "NT", "5", "5")
    last = ("BJ", "3S", "4S", "6S", "7S")
    result = result_of(rules, levels, 20, last, side=(0, 2))
    assert result.winning_seats == (0, 2)
    assert result.levels_after == ("4", "5", "NT", "5", "5")


def test_advancement_at_eight_seats() -> None:
    rules = house_rules(8, advancement="defend_points")
    last = ("SJ", "BJ", "3S", "4S", "6S", "7S", "8S", "9S")
    assert result_of(rules, ("9", "4"), 240, last).levels_after == ("9", "5")


def test_advance_one_level_at_a_time() -> None:
    free = advance("Q", 5, wrap=True)
    assert (free.level, free.passed_top) == ("4", True)  # Q K A | 2 3 4
    assert advance("Q", 5).level == "A"
    gated = advance("4", 3, advancement="defend_points", defended=True)
    assert (gated.level, gated.passed_top) == ("5", False)


# --- §10.7 jack_rule (勾J) -------------------------------------------------------------------

JACK_LAST = ("2S", "JS", "2S", "3S")  # the spec's example: s1 takes the last trick with JS


def test_single_jack_the_example() -> None:
    rules = house_rules(jack_rule="single_jack")
    lost = result_of(rules, ("J", "7"), 120, JACK_LAST, suit="S")
    assert lost.winner == "attackers" and lost.levels_after == ("2", "8")
    state = last_trick(rules, JACK_LAST, levels=("J", "7"), suit="S", buried="5D")
    won = play_out(state, JACK_LAST).result
    assert won is not None and (won.attacker_points, won.winner) == (10, "defenders")
    assert won.levels_after == ("4", "7")  # J → 2, then +2


@pytest.mark.parametrize(
    ("rules", "levels", "last", "after"),
    [
        (house_rules(), ("J", "7"), JACK_LAST, ("J", "8")),  # off by default
        (house_rules(jack_rule="single_jack"), ("Q", "7"), JACK_LAST, ("Q", "8")),  # level Q
        # a pair of Js
        (
            house_rules(jack_rule="single_jack"),
            ("J", "7"),
            ("2S2S", "JSJS", "3S3S", "4S4S"),
            ("J", "8"),
        ),
        # a defender's J
        (house_rules(jack_rule="single_jack"), ("J", "7"), ("JS", "2S", "3S", "4S"), ("J", "8")),
    ],
)
def test_single_jack_does_nothing_else(
    rules: RuleSet, levels: tuple[str, str], last: tuple[str, ...], after: tuple[str, str]
) -> None:
    assert result_of(rules, levels, 120, last, suit="S").levels_after == after


def test_single_jack_an_off_suit_j_is_a_j_too() -> None:
    rules = house_rules(jack_rule="single_jack")
    result = result_of(rules, ("J", "7"), 120, ("2S", "JH", "2S", "3S"), suit="S")
    assert result.levels_after == ("2", "8")


def test_single_jack_friends_the_final_side_goes_back_to_2() -> None:
    rules = house_rules(5, "friends", jack_rule="single_jack")
    levels = ("J", "7", "7", "9", "7")
    last = ("2S", "JS", "2S", "3S", "4S")
    result = result_of(rules, levels, 120, last, suit="S", side=(0, 3))
    assert result.winning_seats == (1, 2, 4)
    assert result.levels_after == ("2", "8", "8", "2", "8")


def test_single_jack_at_six_seats() -> None:
    rules = house_rules(6, jack_rule="single_jack")
    last = ("2S", "JS", "2S", "3S", "4S", "6S")
    result = result_of(rules, ("J", "7"), 180, last, suit="S")
    assert result.levels_after == ("2", "8")


# --- settlement with the level options --------------------------------------------------


def table_outcome(levels_after: tuple[str, str], house: bool) -> HandOutcome:
    return HandOutcome(
        kind="normal",
        settlement="table",
        escape_penalty="fixed_40",
        stake=100,
        dealer_side=0,
        attacker_points=20,
        levels_at_start=("Q", "5"),
        levels_after=levels_after,
        house_level_rules=house,
        wrapped_after=(False, False),
    )


def test_the_table_bonus_for_a_reads_where_a_gated_level_stopped() -> None:
    # Defenders at Q win +2: by the gain they reach A; under defend_points they stop on K.
    assert any(line.kind == "bonus" for line in normal_lines(table_outcome(("A", "5"), False)))
    assert not any(line.kind == "bonus" for line in normal_lines(table_outcome(("K", "5"), True)))
    assert any(line.kind == "bonus" for line in normal_lines(table_outcome(("A", "5"), True)))


def test_a_stored_hand_under_a_level_option_settles_by_where_its_levels_went() -> None:
    rules = house_rules(advancement="defend_points", settlement="table")
    result = result_of(rules, ("Q", "5"), 20)
    assert result.levels_after == ("K", "5")
    outcome = casual_outcome(result.to_dict(), rules.to_dict(), ["Q", "5"])
    assert outcome.house_level_rules and outcome.levels_gained == 2
    assert not any(line.kind == "bonus" for line in normal_lines(outcome))
    assert outcome_as_json(outcome)["house_level_rules"] is True


def test_the_small_side_bonus_is_part_of_the_gain() -> None:
    rules = house_rules(6, "friends", advancement="defend_points")
    last = ("BJ", "3S", "4S", "6S", "7S", "8S")
    result = result_of(rules, ("4",) * 6, 60, last, side=(0,))
    assert (result.levels_gained, result.small_side_bonus) == (1, 1)
    assert result.levels_after == ("5", "4", "4", "4", "4", "4")


def test_single_jack_keeps_the_wrapped_flag() -> None:
    rules = house_rules(jack_rule="single_jack", past_ace="wrap")
    result = result_of(rules, ("J", "7"), 120, JACK_LAST, suit="S", wrapped=(True, False))
    assert (result.levels_after, result.wrapped_after) == (("2", "8"), (True, False))
    assert result.ratio_level == "A"


def test_the_level_options_are_house_options() -> None:
    assert HOUSE_OPTIONS["top_level"] == ("A", "NT")
    assert HOUSE_OPTIONS["advancement"] == ("free", "defend_top", "defend_points")
    assert HOUSE_OPTIONS["jack_rule"] == ("off", "single_jack")


def test_nt_at_eight_seats() -> None:
    rules = house_rules(8, top_level="NT")
    last = ("BJ", "3S", "4S", "6S", "7S", "8S", "9S", "TS")
    assert result_of(rules, ("A", "5"), 100, last).levels_after == ("NT", "5")  # 4 decks: +1
    state = new_hand(rules, 2, levels=("NT", "5"), dealer=2)
    while state.phase == "dealing":
        state.apply("draw")
    state.apply("close")
    assert state.trump == Trump("NT") and state.dealer == 2
