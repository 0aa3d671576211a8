"""The settlement arithmetic on worked examples (RULES-SPEC.md §6, §7), without a database."""

from __future__ import annotations

from typing import TypedDict, Unpack

import pytest

from shengji.settlement import (
    FeeSchedule,
    HandOutcome,
    Line,
    SeatState,
    SettlementError,
    defenders_win,
    outcome_from_record,
    percent_of,
    ratio_percent,
    service_fee,
    settle_hand,
    split_proportionally,
)

RICH = {seat: SeatState(human=True, balance=100_000, title_points=500) for seat in range(4)}


class OutcomeFields(TypedDict, total=False):
    """The `HandOutcome` fields the helpers below let a test set."""

    stake: int
    dealer_side: int | None
    attacker_points: int | None
    winner_side: int | None
    levels_gained: int | None
    levels_at_start: tuple[str, str]
    levels_after: tuple[str, str] | None
    wrapped: tuple[bool, bool]
    absent_seats: tuple[int, ...]
    past_ace: str
    fees: FeeSchedule


def normal(
    settlement: str = "ratio", escape_penalty: str = "triple", **kw: Unpack[OutcomeFields]
) -> HandOutcome:
    base: OutcomeFields = {"stake": 100, "dealer_side": 0, "levels_at_start": ("2", "2")}
    base.update(kw)
    return HandOutcome(kind="normal", settlement=settlement, escape_penalty=escape_penalty, **base)


def escape(
    settlement: str, escape_penalty: str, seat: int, **kw: Unpack[OutcomeFields]
) -> HandOutcome:
    base: OutcomeFields = {"stake": 100, "levels_at_start": ("2", "2")}
    base.update(kw)
    return HandOutcome(
        kind="escape",
        settlement=settlement,
        escape_penalty=escape_penalty,
        escaper_seat=seat,
        **base,
    )


def table(lines: list[Line]) -> dict[int | None, int]:
    """Net table points per seat (None: the house)."""
    nets: dict[int | None, int] = {}
    for line in lines:
        if not line.is_title:
            nets[line.seat] = nets.get(line.seat, 0) + line.amount
    return nets


def titles(lines: list[Line]) -> dict[int, int]:
    return {line.seat: line.amount for line in lines if line.is_title and line.seat is not None}


def kinds(lines: list[Line], seat: int | None) -> dict[str, int]:
    return {line.kind: line.amount for line in lines if line.seat == seat}


# ---------------------------------------------------------------------------------------------
# §5.6 levels and the ratio table


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        (0, (True, 3)), (5, (True, 2)), (35, (True, 2)), (40, (True, 1)), (75, (True, 1)),
        (80, (False, 0)), (115, (False, 0)), (120, (False, 1)), (155, (False, 1)),
        (160, (False, 2)), (200, (False, 3)), (240, (False, 4)), (280, (False, 5)),
    ],
)  # fmt: skip
def test_level_change_bands(points: int, expected: tuple[bool, int]) -> None:
    assert defenders_win(points, 2) == expected


@pytest.mark.parametrize(
    ("levels", "percent"),
    [
        (("2", "3"), 100), (("4", "2"), 120), (("2", "5"), 120), (("6", "2"), 140),
        (("7", "7"), 140), (("8", "2"), 160), (("2", "9"), 160), (("T", "2"), 180),
        (("J", "4"), 180), (("Q", "2"), 200), (("K", "Q"), 200), (("A", "2"), 220),
    ],
)  # fmt: skip
def test_ratio_by_highest_level_at_start(levels: tuple[str, str], percent: int) -> None:
    assert ratio_percent(levels, (False, False)) == percent


def test_a_side_past_ace_keeps_the_ace_ratio() -> None:
    assert ratio_percent(("3", "5"), (True, False)) == 220
    assert ratio_percent(("3", "5"), (False, False)) == 120


def test_percent_rounds_half_up() -> None:
    assert percent_of(15, 120) == 18
    assert percent_of(25, 140) == 35
    assert percent_of(5, 110) == 6  # 5.5 → 6
    assert percent_of(3, 120) == 4  # 3.6 → 4


# ---------------------------------------------------------------------------------------------
# ratio (ranked, 004)


def test_ratio_worked_example_590() -> None:
    """RULES-SPEC.md §6: S = 100, highest level K, +4 levels: 200 + 400 − 10 = 590."""
    outcome = normal(levels_at_start=("K", "5"), attacker_points=240)
    assert (outcome.winner_side, outcome.levels_gained) == (1, 4)
    lines = settle_hand(outcome, RICH)
    assert table(lines) == {0: -600, 1: 590, 2: -600, 3: 590, None: 20}
    assert kinds(lines, 1) == {"table_points": 600, "fee": -10, "title_points": 4}
    assert titles(lines) == {0: -4, 1: 4, 2: -4, 3: 4}


def test_ratio_defenders_up_three_at_level_two() -> None:
    lines = settle_hand(normal(attacker_points=0), RICH)
    assert table(lines) == {0: 390, 1: -400, 2: 390, 3: -400, None: 20}
    assert titles(lines) == {0: 3, 1: -3, 2: 3, 3: -3}


def test_ratio_attackers_taking_the_deal_win_the_ratio_alone_and_no_title_points() -> None:
    lines = settle_hand(normal(levels_at_start=("8", "3"), attacker_points=95), RICH)
    assert table(lines) == {0: -160, 1: 150, 2: -160, 3: 150, None: 20}
    assert titles(lines) == {}


def test_ratio_fee_never_exceeds_the_gain() -> None:
    """Decision: with a stake under 10 the fee is the whole gain, never more."""
    lines = settle_hand(normal(stake=5, attacker_points=100), RICH)
    assert table(lines) == {0: -5, 1: 0, 2: -5, 3: 0, None: 10}
    assert kinds(lines, 1) == {"table_points": 5, "fee": -5}


def test_ratio_losers_pay_no_fee() -> None:
    lines = settle_hand(normal(attacker_points=60), RICH)
    assert kinds(lines, 1) == {"table_points": -200, "title_points": -1}


# ---------------------------------------------------------------------------------------------
# levels (000)


@pytest.mark.parametrize(
    ("points", "defenders", "attackers"),
    [
        (0, 150, -150),  # defenders +3
        (35, 100, -100),  # defenders +2
        (45, 50, -50),  # defenders +1
        (80, -50, 50),  # attackers take the deal: seed 000 counts it as one step
        (120, -100, 100),  # attackers +1 → 2 steps (seed 000: 1 + TRUNC((X − 80) / 40))
        (200, -200, 200),  # attackers +3 → 4 steps
    ],
)
def test_levels_scheme(points: int, defenders: int, attackers: int) -> None:
    lines = settle_hand(normal("levels", stake=50, attacker_points=points), RICH)
    assert table(lines) == {0: defenders, 1: attackers, 2: defenders, 3: attackers}


# ---------------------------------------------------------------------------------------------
# table (002)


@pytest.mark.parametrize(
    ("points", "amount", "winner"),
    [
        (0, 20, 0), (5, 15, 0), (35, 15, 0), (40, 10, 0), (75, 10, 0), (80, 5, 1),
        (115, 5, 1), (120, 10, 1), (155, 10, 1), (160, 15, 1), (195, 15, 1), (200, 20, 1),
        (235, 20, 1), (240, 25, 1),
        # A hand's table points count at most LEVELS_SETTLED_MAX (4) levels (docs/LADDER.md):
        # 280 is +5 levels, settled as +4.
        (280, 25, 1),
    ],
)  # fmt: skip
def test_table_scheme_bands(points: int, amount: int, winner: int) -> None:
    lines = settle_hand(
        normal("table", "fixed_40", stake=500, attacker_points=points, levels_at_start=("8", "8")),
        RICH,
    )
    nets = table(lines)
    assert nets[winner] == nets[winner + 2] == amount
    assert nets[1 - winner] == nets[3 - winner] == -amount
    assert None not in nets  # no fee, no bonus: nothing for the house


def test_table_first_to_reach_eight() -> None:
    """Seed 002's 25 / 15 is settled between the sides: the other side pays the first side the
    difference, 10 a player; the house pays nothing (docs/LADDER.md, "Invariants")."""
    lines = settle_hand(
        normal("table", "fixed_40", attacker_points=40, levels_at_start=("7", "5")), RICH
    )
    assert kinds(lines, 0)["bonus"] == 10
    assert kinds(lines, 1)["bonus"] == -10
    assert table(lines) == {0: 20, 1: -20, 2: 20, 3: -20}


def test_table_passing_eight_counts_as_reaching_it() -> None:
    lines = settle_hand(
        normal("table", "fixed_40", attacker_points=0, levels_at_start=("6", "2")), RICH
    )
    assert kinds(lines, 0)["bonus"] == 10


def test_table_no_eight_bonus_when_the_other_side_got_there_first() -> None:
    lines = settle_hand(
        normal("table", "fixed_40", attacker_points=40, levels_at_start=("7", "9")), RICH
    )
    assert "bonus" not in kinds(lines, 0)
    assert "bonus" not in kinds(lines, 1)


def test_table_no_bonus_without_reaching() -> None:
    lines = settle_hand(
        normal("table", "fixed_40", attacker_points=40, levels_at_start=("5", "2")), RICH
    )
    assert all(line.kind != "bonus" for line in lines)


def test_table_first_to_reach_ace_attackers() -> None:
    # side 1 attacks at Q with 160 points: +2 → A.
    lines = settle_hand(
        normal("table", "fixed_40", attacker_points=160, levels_at_start=("9", "Q")), RICH
    )
    assert kinds(lines, 1)["bonus"] == 20
    assert kinds(lines, 0)["bonus"] == -20
    assert table(lines) == {0: -35, 1: 35, 2: -35, 3: 35}


def test_table_reaching_eight_and_ace_in_one_hand_pays_both() -> None:
    lines = settle_hand(
        normal("table", "fixed_40", attacker_points=360, levels_at_start=("2", "7")), RICH
    )
    assert lines and kinds(lines, 1)["bonus"] == 30
    assert kinds(lines, 0)["bonus"] == -30


def test_table_a_wrapped_side_earns_no_bonus_again() -> None:
    lines = settle_hand(
        normal(
            "table", "none", attacker_points=40, levels_at_start=("7", "5"), wrapped=(True, False)
        ),
        RICH,
    )
    assert all(line.kind != "bonus" for line in lines)


# ---------------------------------------------------------------------------------------------
# stake_steps (003)


@pytest.mark.parametrize(
    ("points", "winner", "steps"),
    [(0, 0, 3), (20, 0, 2), (60, 0, 1), (80, 1, 1), (120, 1, 2), (160, 1, 3)],
)
def test_stake_steps(points: int, winner: int, steps: int) -> None:
    lines = settle_hand(normal("stake_steps", "nine_stakes", attacker_points=points), RICH)
    fees = 10 + 10  # fixed table fee + 10 % of 100
    nets = table(lines)
    assert nets[winner] == nets[winner + 2] == 100 * steps - fees
    assert nets[1 - winner] == nets[3 - winner] == -100 * steps - fees
    assert nets[None] == 4 * fees
    assert kinds(lines, 1 - winner)["service_fee"] == -10
    assert kinds(lines, 1 - winner)["fee"] == -10


@pytest.mark.parametrize(("stake", "fee"), [(100, 10), (105, 10), (25, 2), (9, 0), (0, 0)])
def test_service_fee_rounds_down(stake: int, fee: int) -> None:
    assert service_fee(stake, 10) == fee


def test_stake_steps_table_fee_comes_from_the_fee_schedule() -> None:
    outcome = normal(
        "stake_steps", "nine_stakes", attacker_points=60, fees=FeeSchedule(table_fee=3)
    )
    assert kinds(settle_hand(outcome, RICH), 0)["fee"] == -3


# ---------------------------------------------------------------------------------------------
# Escapes (§7)


def test_triple_under_ratio() -> None:
    """Escaper pays 3 × (S × 100 % + S × 1); opponents gain as one-level winners (fee paid)."""
    lines = settle_hand(escape("ratio", "triple", 2), RICH)
    assert table(lines) == {1: 190, 2: -600, 3: 190, None: 220}
    assert kinds(lines, 1) == {"escape_compensation": 200, "fee": -10}
    assert 0 not in table(lines)  # the partner pays nothing
    assert titles(lines) == {}


def test_triple_under_levels() -> None:
    lines = settle_hand(escape("levels", "triple", 1, stake=50), RICH)
    assert table(lines) == {0: 50, 1: -150, 2: 50, None: 50}


def test_triple_under_table() -> None:
    lines = settle_hand(escape("table", "triple", 0), RICH)
    assert table(lines) == {0: -30, 1: 10, 3: 10, None: 10}


def test_triple_under_stake_steps_charges_no_per_hand_fees() -> None:
    lines = settle_hand(escape("stake_steps", "triple", 3), RICH)
    assert table(lines) == {0: 100, 2: 100, 3: -300, None: 100}


def test_fixed_40() -> None:
    lines = settle_hand(escape("table", "fixed_40", 1, stake=1000), RICH)
    assert table(lines) == {1: -40, None: 40}


def test_nine_stakes_shared_by_the_other_three() -> None:
    lines = settle_hand(escape("stake_steps", "nine_stakes", 0, stake=30), RICH)
    assert table(lines) == {0: -270, 1: 90, 2: 90, 3: 90}


def test_escape_penalty_none() -> None:
    assert settle_hand(escape("ratio", "none", 0), RICH) == []


def test_void_hand_settles_nothing() -> None:
    outcome = HandOutcome(kind="void", settlement="ratio", escape_penalty="triple", stake=100)
    assert settle_hand(outcome, RICH) == []


# ---------------------------------------------------------------------------------------------
# Absent at the end, bots, balances


def test_absent_player_is_settled_normally_and_charged_as_an_escaper() -> None:
    lines = settle_hand(normal(attacker_points=60, absent_seats=(1,)), RICH)
    # normal: side 0 +1 level at level 2: 200 − 10 / −200; then triple on seat 1.
    assert kinds(lines, 1) == {"table_points": -200, "escape_penalty": -600, "title_points": -1}
    assert kinds(lines, 0) == {
        "table_points": 200,
        "escape_compensation": 200,
        "fee": -20,
        "title_points": 1,
    }
    assert kinds(lines, 3) == {"table_points": -200, "title_points": -1}  # partner: no penalty


def test_absent_player_under_004_has_their_settlement_waived() -> None:
    """The absent player's settlement is waived and the house does not stand in: the other
    side is settled against the players still in the hand (docs/LADDER.md)."""
    outcome = normal("ratio", "none", attacker_points=240, absent_seats=(3,))
    lines = settle_hand(outcome, RICH)
    assert kinds(lines, 3) == {}
    assert kinds(lines, 1) == {"table_points": 100 + 400, "fee": -10, "title_points": 4}
    # The losers owed the absent winner 500 between them: 250 each is not taken.
    assert kinds(lines, 0) == {"table_points": -500, "waived": 250, "title_points": -4}
    assert kinds(lines, None) == {"fee": 10}
    absent_loser = settle_hand(
        normal("ratio", "none", attacker_points=240, absent_seats=(0,)), RICH
    )
    assert kinds(absent_loser, 0) == {}
    assert kinds(absent_loser, None) == {"fee": 20}
    # The winners share what the loser still in the hand pays: 250 each, less the fee.
    assert kinds(absent_loser, 1) == {
        "table_points": 500, "waived": -250, "fee": -10, "title_points": 4,
    }  # fmt: skip
    assert table(absent_loser) == {1: 240, 2: -500, 3: 240, None: 20}


def test_a_hand_with_a_bot_seat_is_practice_and_settles_nothing() -> None:
    """A bot seated at the hand's start: practice, nothing for anyone (the house used to stand
    in for the bot and pay the humans: finding 1 of the audit)."""
    seats = {**RICH, 2: SeatState(human=False)}
    assert settle_hand(normal(attacker_points=240, levels_at_start=("K", "5")), seats) == []
    escape = HandOutcome(
        kind="escape", settlement="ratio", escape_penalty="triple", stake=100, escaper_seat=1
    )
    assert settle_hand(escape, seats) == []


def test_title_points_never_go_below_zero() -> None:
    seats = {seat: SeatState(human=True, balance=10_000, title_points=2) for seat in range(4)}
    lines = settle_hand(normal(attacker_points=240), seats)
    assert titles(lines) == {0: -2, 1: 4, 2: -2, 3: 4}
    broke = {seat: SeatState(human=True, balance=10_000, title_points=0) for seat in range(4)}
    assert titles(settle_hand(normal(attacker_points=240), broke)) == {1: 4, 3: 4}


def test_a_loser_never_pays_more_than_their_balance() -> None:
    """Decision: the shortfall is missing from what the others receive, in proportion."""
    seats = {**RICH, 0: SeatState(human=True, balance=100, title_points=0)}
    lines = settle_hand(normal(attacker_points=240, levels_at_start=("K", "5")), seats)
    assert kinds(lines, 0)["shortfall"] == 500
    assert table(lines)[0] == -100
    # 500 short, taken from 590 + 590 + 20 (house fees): 246, 246, 8.
    assert kinds(lines, 1)["shortfall"] == -246
    assert kinds(lines, 3)["shortfall"] == -246
    assert kinds(lines, None)["shortfall"] == -8
    assert sum(table(lines).values()) == 0


def test_split_proportionally() -> None:
    assert split_proportionally(500, [590, 590, 20]) == [246, 246, 8]
    assert split_proportionally(3, [1, 1, 1, 1]) == [1, 1, 1, 0]
    assert split_proportionally(0, [5]) == [0]
    with pytest.raises(ValueError):
        split_proportionally(10, [3, 3])


# ---------------------------------------------------------------------------------------------
# Outcomes: validation and reading a stored hand


def test_outcome_refuses_a_winner_that_contradicts_the_points() -> None:
    with pytest.raises(SettlementError) as error:
        normal(attacker_points=60, winner_side=1)
    assert error.value.code == "outcome_invalid"
    assert error.value.fields["field"] == "winner_side"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"attacker_points": 63}, "attacker_points"),
        ({"attacker_points": 120, "levels_gained": 2}, "levels_gained"),
        ({"settlement": "poker"}, "settlement"),
        ({"escape_penalty": "double"}, "escape_penalty"),
        ({"stake": -1}, "stake"),
        ({"levels_at_start": ("2", "1")}, "levels"),
        ({"absent_seats": (4,)}, "absent_seats"),
        ({"dealer_side": None}, "dealer_side"),
        ({"attacker_points": None}, "attacker_points"),
        ({"attacker_points": None, "winner_side": 0, "levels_gained": 0}, "levels_gained"),
    ],
)
def test_outcome_validation(changes: dict[str, object], field: str) -> None:
    base: dict[str, object] = {
        "kind": "normal",
        "settlement": "ratio",
        "escape_penalty": "triple",
        "stake": 100,
        "dealer_side": 0,
        "attacker_points": 60,
    }
    base.update(changes)
    with pytest.raises(SettlementError) as error:
        HandOutcome(**base)  # type: ignore[arg-type]
    assert error.value.code == "outcome_invalid"
    assert error.value.fields["field"] == field


def test_outcome_without_points_takes_the_given_winner() -> None:
    outcome = normal(attacker_points=None, winner_side=1, levels_gained=0)
    assert table(settle_hand(outcome, RICH))[1] == 90


def test_outcome_from_record_reads_defaults_from_the_hand() -> None:
    outcome = outcome_from_record(
        status="finished",
        result={"attacker_points": 240},
        ruleset={"preset": "ranked", "settlement": "ratio", "escape_penalty": "triple"},
        stake=100,
        dealer=2,
        hand_levels=["K", 5],
        escaped_seats=[],
        absent_seats=[3],
        fees=FeeSchedule(),
    )
    assert outcome.dealer_side == 0
    assert outcome.levels_at_start == ("K", "5")
    assert outcome.winner_side == 1
    assert outcome.absent_seats == (3,)
    assert outcome.past_ace == "match_end"


def test_outcome_from_record_takes_the_escaper_from_the_seats() -> None:
    outcome = outcome_from_record(
        status="escaped",
        result=None,
        ruleset={"settlement": "levels", "escape_penalty": "triple", "table_fee": 4},
        stake=100,
        dealer=0,
        hand_levels=["2", "10"],
        escaped_seats=[1],
        absent_seats=[],
        fees=FeeSchedule(),
    )
    assert (outcome.kind, outcome.escaper_seat) == ("escape", 1)
    assert outcome.levels_at_start == ("2", "T")
    assert outcome.fees.table_fee == 4


@pytest.mark.parametrize(
    ("status", "result", "ruleset", "code"),
    [
        ("playing", None, {"settlement": "ratio", "escape_penalty": "triple"}, "hand_not_finished"),
        ("finished", {"kind": "escape"}, {"settlement": "ratio"}, "outcome_invalid"),
        ("finished", {"attacker_points": 0}, {"escape_penalty": "triple"}, "ruleset_invalid"),
        ("escaped", {}, {"settlement": "ratio", "escape_penalty": "triple"}, "outcome_invalid"),
    ],
)
def test_outcome_from_record_errors(
    status: str, result: dict[str, object] | None, ruleset: dict[str, str], code: str
) -> None:
    with pytest.raises(SettlementError) as error:
        outcome_from_record(
            status=status,
            result=result,
            ruleset=ruleset,
            stake=100,
            dealer=0,
            hand_levels=["2", "2"],
            escaped_seats=[],
            absent_seats=[],
            fees=FeeSchedule(),
        )
    assert error.value.code == code


ENGINE_RULESET = {
    "version": 1,
    "name": "ranked",
    "options": {"settlement": "ratio", "escape_penalty": "triple", "past_ace": "match_end"},
}


def test_outcome_from_the_engines_result_and_ruleset_shapes() -> None:
    """The engine's `HandResult.to_dict()` names: dealer, winning_team, wrapped_at_start,
    escaper, outcome "played"; its ruleset keeps the options under "options"."""
    outcome = outcome_from_record(
        status="finished",
        result={
            "outcome": "played",
            "dealer": 3,
            "winner": "attackers",
            "winning_team": 0,
            "levels_gained": 1,
            "attacker_points": 130,
            "levels_at_start": ["Q", "4"],
            "wrapped_at_start": [False, True],
            "escaper": None,
            "levels_after": ["K", "4"],
        },
        ruleset=ENGINE_RULESET,
        stake=100,
        dealer=None,  # the first hand: bidding chose the dealer
        hand_levels=["2", "2"],
        escaped_seats=[],
        absent_seats=[],
        fees=FeeSchedule(),
    )
    assert (outcome.dealer_side, outcome.winner_side, outcome.levels_gained) == (1, 0, 1)
    assert outcome.levels_at_start == ("Q", "4")
    assert outcome.wrapped == (False, True)
    assert table(settle_hand(outcome, RICH))[0] == 220 + 100 - 10  # ratio of A (wrapped)


def test_outcome_from_the_engines_escape_result() -> None:
    outcome = outcome_from_record(
        status="escaped",
        result={"outcome": "escape", "escaper": 1, "winning_team": None, "levels_gained": 0,
                "attacker_points": 35, "dealer": 0, "levels_at_start": ["5", "2"]},
        ruleset=ENGINE_RULESET,
        stake=100,
        dealer=0,
        hand_levels=["5", "2"],
        hand_wrapped=[False, False],
        escaped_seats=[1],
        absent_seats=[],
        fees=FeeSchedule(),
    )  # fmt: skip
    assert (outcome.kind, outcome.escaper_seat) == ("escape", 1)
    assert table(settle_hand(outcome, RICH)) == {0: 210, 1: -660, 2: 210, None: 240}


def test_outcome_reads_the_hands_wrapped_column() -> None:
    outcome = outcome_from_record(
        status="finished",
        result={"attacker_points": 0},
        ruleset=ENGINE_RULESET,
        stake=100,
        dealer=0,
        hand_levels=["3", "2"],
        hand_wrapped=[True, False],
        escaped_seats=[],
        absent_seats=[],
        fees=FeeSchedule(),
    )
    assert outcome.wrapped == (True, False)
