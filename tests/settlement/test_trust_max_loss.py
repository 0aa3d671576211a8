"""Nobody can lose more than they hold: `max_hand_loss` (the table points a player needs to sit
and before every hand) against the settlement code, for every preset: no possible outcome of
a hand, played out or escaped, with any players absent at the end, takes more from a seat; and
some outcome takes exactly that much (the bound is not loose). Also: the house never pays.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.engine import PRESET_NAMES, preset
from shengji.engine.cards import RANKS
from shengji.settlement import (
    ESCAPE_PENALTIES,
    HOUSE_KINDS,
    LEVELS_SETTLED_MAX,
    SETTLEMENTS,
    FeeSchedule,
    HandOutcome,
    Line,
    SeatState,
    max_hand_loss,
    settle_hand,
)

RICH = {seat: SeatState(human=True, balance=10**12, title_points=0) for seat in range(4)}
# Every band of RULES-SPEC.md §5.6 (and past the settled-levels cap, and absurdly past it).
POINTS = [0, 5, 40, 80, 120, 160, 200, 240, 280, 320, 360, 400, 480, 1000, 655_360]
# Levels at the start that reach every ratio, and 8 and A under `table` (first or not).
LEVELS = [
    ("2", "2"), ("7", "2"), ("2", "7"), ("7", "7"), ("Q", "7"), ("7", "Q"), ("K", "5"),
    ("A", "2"), ("2", "A"), ("A", "A"), ("6", "9"), ("9", "6"), ("J", "Q"),
]  # fmt: skip
ABSENT = [tuple(c) for n in range(5) for c in itertools.combinations(range(4), n)]
PRESETS = sorted(PRESET_NAMES)
STAKES = [1, 7, 15, 50, 100, 100_000]


def rules_of(name: str) -> tuple[str, str, str]:
    options = preset(name).to_dict()["options"]
    return options["settlement"], options["escape_penalty"], options["past_ace"]


def taken(lines: list[Line], seat: int) -> int:
    """What the hand takes from the seat's table points (0 when it gains)."""
    return max(0, -sum(line.amount for line in lines if line.seat == seat and not line.is_title))


def every_outcome(name: str, stake: int, fees: FeeSchedule) -> list[HandOutcome]:
    settlement, penalty, past_ace = rules_of(name)

    def outcome(kind: str, **given: Any) -> HandOutcome:
        return HandOutcome(
            kind=kind,
            settlement=settlement,
            escape_penalty=penalty,
            stake=stake,
            fees=fees,
            past_ace=past_ace,
            **given,
        )

    outcomes = []
    flags = (
        [(False, False), (True, False), (False, True)] if past_ace == "wrap" else [(False, False)]
    )
    for levels, wrapped in itertools.product(LEVELS, flags):
        for escaper in range(4):
            outcomes.append(
                outcome("escape", escaper_seat=escaper, levels_at_start=levels, wrapped=wrapped)
            )
        for points, dealer_side, absent in itertools.product(POINTS, (0, 1), ABSENT):
            outcomes.append(
                outcome(
                    "normal",
                    dealer_side=dealer_side,
                    attacker_points=points,
                    levels_at_start=levels,
                    wrapped=wrapped,
                    absent_seats=absent,
                )
            )
    return outcomes


@pytest.mark.slow  # a sweep of every preset (README, "The fast lane")
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("stake", [7, 100])
def test_no_outcome_takes_more_than_max_hand_loss_and_some_takes_exactly_that(
    name: str, stake: int
) -> None:
    settlement, penalty, _ = rules_of(name)
    fees = FeeSchedule()
    bound = max_hand_loss(settlement=settlement, escape_penalty=penalty, stake=stake, fees=fees)
    most = 0
    for outcome in every_outcome(name, stake, fees):
        lines = settle_hand(outcome, RICH)
        for seat in range(4):
            loss = taken(lines, seat)
            assert loss <= bound, (outcome, seat, loss, bound)
            most = max(most, loss)
    assert most == bound, f"{name} at {stake}: the bound {bound} is loose (most taken {most})"


@pytest.mark.slow  # a sweep of every preset (README, "The fast lane")
@pytest.mark.parametrize("name", PRESETS)
def test_the_bound_grows_with_the_stake_and_fees(name: str) -> None:
    settlement, penalty, _ = rules_of(name)
    fees = FeeSchedule(winner_fee=10, table_fee=25, service_percent=20, fixed_escape=40)
    bounds = [
        max_hand_loss(settlement=settlement, escape_penalty=penalty, stake=s, fees=fees)
        for s in STAKES
    ]
    assert bounds == sorted(bounds) and bounds[0] > 0
    for stake, bound in zip(STAKES[:4], bounds[:4], strict=True):  # fees in force count too
        for outcome in every_outcome(name, stake, fees)[::7]:
            lines = settle_hand(outcome, RICH)
            assert all(taken(lines, seat) <= bound for seat in range(4))


def test_the_numbers_of_the_presets() -> None:
    """What a player needs per preset at stake 100 (docs/LADDER.md gives the same table)."""
    needed = {
        name: max_hand_loss(settlement=rules_of(name)[0], escape_penalty=rules_of(name)[1],
                            stake=100)
        for name in PRESETS
    }  # fmt: skip
    assert needed == {
        "ranked": 220 + 400 + 3 * 320,  # ratio at A, +4 levels; then triple as absent
        "seed000": 500 + 300,  # levels: attackers +4 → 5 stakes; triple 3 stakes
        "seed002": 25 + 30 + 40,  # table: ±25 at +4, both bonus differences; fixed 40
        "seed003": 500 + 10 + 10 + 900,  # stake_steps 5 stakes + fees; nine stakes
        "seed004": 220 + 400,  # ratio, and an absent player's settlement is waived
    }
    assert LEVELS_SETTLED_MAX == 4


outcomes = st.builds(
    HandOutcome,
    kind=st.sampled_from(["normal", "escape"]),
    settlement=st.sampled_from(SETTLEMENTS),
    escape_penalty=st.sampled_from(ESCAPE_PENALTIES),
    stake=st.integers(min_value=0, max_value=100_000),
    dealer_side=st.sampled_from([0, 1]),
    attacker_points=st.integers(min_value=0, max_value=20_000).map(lambda n: 5 * n),
    levels_at_start=st.tuples(st.sampled_from(RANKS), st.sampled_from(RANKS)),
    wrapped=st.tuples(st.booleans(), st.booleans()),
    escaper_seat=st.integers(min_value=0, max_value=3),
    absent_seats=st.sets(st.integers(min_value=0, max_value=3)).map(lambda s: tuple(sorted(s))),
)


@settings(max_examples=500, deadline=None)
@given(outcomes)
def test_any_scheme_and_penalty_stays_within_the_bound_and_the_house_never_pays(
    outcome: HandOutcome,
) -> None:
    """Every combination of scheme and penalty, not only the presets' (a table may mix them
    one day): nothing takes more than the bound, the hand balances, and every house line is
    a positive fee or escape penalty."""
    lines = settle_hand(outcome, RICH)
    bound = max_hand_loss(
        settlement=outcome.settlement,
        escape_penalty=outcome.escape_penalty,
        stake=outcome.stake,
        fees=outcome.fees,
    )
    assert all(taken(lines, seat) <= bound for seat in range(4))
    assert sum(line.amount for line in lines if not line.is_title) == 0
    house = [line for line in lines if line.seat is None]
    assert all(line.amount > 0 and line.kind in HOUSE_KINDS for line in house), house


def test_unknown_rules_are_refused() -> None:
    from shengji.settlement import SettlementError

    with pytest.raises(SettlementError):
        max_hand_loss(settlement="poker", escape_penalty="none", stake=10)
