"""Settlement of hands of 4–8 players and 找朋友 (RULES-SPEC.md §9.5), as pure arithmetic.

A scheme's 2-against-2 amount G is paid as 2G/P between every winner and every loser, in whole
points by the rule of docs/LADDER.md, "Bigger tables". Tried the way a cheater would: unequal
sides (1 vs 4, 2 vs 3, 3 vs 5, 1 vs 7), a lone dealer (the card they called was buried), an
escaping friend, and the most a big table can pass to one account in a hand.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from random import Random
from typing import Any

import pytest

from shengji.engine.hand import new_hand
from shengji.engine.random_play import play_random
from shengji.engine.rules import preset
from shengji.settlement import (
    ESCAPE_PENALTIES,
    HOUSE_KINDS,
    SETTLEMENTS,
    FeeSchedule,
    HandOutcome,
    Line,
    SeatState,
    SettlementError,
    max_hand_loss,
    outcome_from_record,
    ratio_gross,
    settle_hand,
    steps,
)

FEES = FeeSchedule()
RICH = 10**9


def friends_outcome(
    players: int,
    defenders: tuple[int, ...],
    attacker_points: int,
    *,
    settlement: str = "ratio",
    escape_penalty: str = "triple",
    stake: int = 100,
    decks: int = 2,
    levels: tuple[str, ...] | None = None,
    absent: tuple[int, ...] = (),
    bonus: int = 0,
) -> HandOutcome:
    return HandOutcome(
        kind="normal",
        settlement=settlement,
        escape_penalty=escape_penalty,
        stake=stake,
        compensation="house",
        players=players,
        decks=decks,
        mode="friends",
        dealer=defenders[0],
        defenders=defenders,
        attacker_points=attacker_points,
        levels_at_start=levels or ("2",) * players,
        wrapped=(False,) * players,
        absent_seats=absent,
        small_side_bonus=bonus,
    )


def humans(players: int, balance: int = RICH) -> dict[int, SeatState]:
    return {seat: SeatState(human=True, balance=balance) for seat in range(players)}


def net(lines: list[Line], seat: int | None, kinds: frozenset[str] | None = None) -> int:
    return sum(
        line.amount
        for line in lines
        if line.seat == seat and not line.is_title and (kinds is None or line.kind in kinds)
    )


def two_against_two(outcome: HandOutcome) -> int:
    """G, the scheme's amount for a 2-against-2 hand of the same result (bonuses aside)."""
    if outcome.settlement == "ratio":
        return ratio_gross(outcome)
    if outcome.settlement == "table":
        return 5 * (min(outcome.levels, 4) + 1)
    return outcome.stake * steps(outcome)


# --- RULES-SPEC.md §9.5 as written ----------------------------------------------------------------


@pytest.mark.parametrize("settlement", SETTLEMENTS)
def test_five_players_two_against_three_defenders_win_12_and_08_of_g(settlement: str) -> None:
    """§5's example: five players, 2 against 3, the defenders win: each defender +1.2 G, each
    attacker −0.8 G (fees aside: per player as at four)."""
    outcome = friends_outcome(5, (0, 3), 40, settlement=settlement)  # defenders +1
    g = two_against_two(outcome)
    lines = settle_hand(outcome, humans(5))
    transfers = frozenset({"table_points"})
    assert [net(lines, seat, transfers) for seat in range(5)] == [
        g * 6 // 5, -(g * 4 // 5), -(g * 4 // 5), g * 6 // 5, -(g * 4 // 5)
    ]  # fmt: skip
    assert sum(line.amount for line in lines if not line.is_title) == 0
    assert not any(line.is_title for line in lines)
    fees = {line.kind for line in lines if line.seat is None}
    assert fees <= HOUSE_KINDS
    if settlement == "ratio":  # the winner fee, from each winner
        assert [net(lines, seat, frozenset({"fee"})) for seat in (0, 3)] == [-10, -10]
    if settlement == "stake_steps":  # the table and service fees, from every player
        assert all(net(lines, seat, frozenset({"fee", "service_fee"})) == -20 for seat in range(5))
        assert net(lines, None) == 5 * 20


def test_the_rounding_rule_seven_players_a_lone_dealer_beaten() -> None:
    """docs/LADDER.md, "Bigger tables": T = ⌊2G × W × L / P⌋ = ⌊200 × 6 / 7⌋ = 171 moves; the
    lone dealer (seat 2) pays all of it; the six winners share it, 28 each and the 3 points
    left over one each to the seats after the dealer (3, 4, 5)."""
    outcome = friends_outcome(7, (2,), 150, settlement="levels", decks=3)  # attackers, +0
    assert outcome.winners == (0, 1, 3, 4, 5, 6) and steps(outcome) == 1
    lines = settle_hand(outcome, humans(7))
    assert [net(lines, seat) for seat in range(7)] == [28, 28, -171, 29, 29, 29, 28]
    assert net(lines, None) == 0


# --- Every shape, scheme, penalty and stake: balanced, exact to a point, within the bound --------

SHAPES: list[tuple[str, int, tuple[int, ...]]] = [
    ("friends", 5, (0,)),  # 1 vs 4: the dealer called a card they had buried
    ("friends", 5, (1, 4)),  # 2 vs 3
    ("friends", 6, (5, 0, 2)),  # 3 vs 3
    ("friends", 7, (3, 6)),  # 2 vs 5
    ("friends", 8, (0, 3, 6)),  # 3 vs 5
    ("friends", 8, (7,)),  # 1 vs 7
    ("tractor", 6, (1, 3, 5)),
    ("tractor", 8, (0, 2, 4, 6)),
]
POINTS = (0, 5, 55, 100, 155, 240, 300, 405)


def outcome_of(
    mode: str, players: int, side: tuple[int, ...], points: int, settlement: str, penalty: str,
    stake: int, levels: str = "2", absent: tuple[int, ...] = (),
) -> HandOutcome:  # fmt: skip
    decks = 3 if players > 5 else 2
    if mode == "friends":
        return friends_outcome(
            players, side, points, settlement=settlement, escape_penalty=penalty, stake=stake,
            decks=decks, levels=(levels,) * players, absent=absent,
        )  # fmt: skip
    return HandOutcome(
        kind="normal", settlement=settlement, escape_penalty=penalty, stake=stake,
        compensation="house", players=players, decks=decks, mode="tractor", dealer=side[0],
        dealer_side=side[0] % 2, attacker_points=points, levels_at_start=(levels, levels),
        absent_seats=absent,
    )  # fmt: skip


@pytest.mark.parametrize(("mode", "players", "side"), SHAPES)
def test_every_scheme_balances_is_exact_to_a_point_and_stays_within_the_bound(
    mode: str, players: int, side: tuple[int, ...]
) -> None:
    """Every scheme × escape penalty × stake × band of points × level (2, 7, K, and A for the
    `table` bonuses) × nobody or the dealer away: the lines sum to 0, the house only takes
    fees and penalties, no title points move, every seat's transfer is within one point of
    §5's exact `losers × 2G / P` or `winners × 2G / P` (same sign), and no seat loses more
    than `max_hand_loss` at this shape."""
    for settlement, penalty, stake, points, level in product(
        SETTLEMENTS, ESCAPE_PENALTIES, (1, 7, 50, 100), POINTS, ("2", "7", "K", "A")
    ):
        for absent in ((), (side[0],)):
            outcome = outcome_of(
                mode, players, side, points, settlement, penalty, stake, level, absent
            )
            lines = settle_hand(outcome, humans(players))
            assert sum(line.amount for line in lines if not line.is_title) == 0
            assert not any(line.is_title for line in lines)
            assert all(line.amount > 0 and line.kind in HOUSE_KINDS for line in lines
                       if line.seat is None)  # fmt: skip
            bound = max_hand_loss(settlement=settlement, escape_penalty=penalty, stake=stake,
                                  players=players, mode=mode)  # fmt: skip
            assert all(net(lines, seat) >= -bound for seat in range(players))
            if absent:
                continue
            exact = Fraction(2 * two_against_two(outcome), players)
            won, lost = len(outcome.winners), len(outcome.losers)
            for seat in range(players):
                share = net(lines, seat, frozenset({"table_points"}))
                owed = exact * lost if seat in outcome.winners else -exact * won
                assert abs(share - owed) < 1, (settlement, stake, points, seat, share, owed)
                assert share * owed >= 0


@pytest.mark.parametrize(("mode", "players"), [("friends", p) for p in range(5, 9)] +
                         [("tractor", 6), ("tractor", 8)])  # fmt: skip
def test_some_outcome_takes_exactly_the_bound(mode: str, players: int) -> None:
    """The bound is reached: a lone 找朋友 dealer beaten by all the others at the highest ratio
    and four levels (tractor: a side of P/2 against P/2), and then charged as absent (`table`,
    whose bound counts both bonuses of one hand, is covered by the test above)."""
    side = (0,) if mode == "friends" else (0, 2, 4, 6)[: players // 2]
    for settlement, penalty in product(("ratio", "levels", "stake_steps"), ESCAPE_PENALTIES):
        absent = () if penalty == "none" else (0,)  # under `none` an absentee's hand is waived
        bound = max_hand_loss(settlement=settlement, escape_penalty=penalty, stake=100,
                              players=players, mode=mode)  # fmt: skip
        worst = min(
            net(settle_hand(outcome_of(mode, players, side, points, settlement, penalty, 100,
                                       "A", absent), humans(players)), 0)
            for points in range(0, 601, 5)
        )  # fmt: skip
        assert worst == -bound, (settlement, penalty)


# --- Escapes, lone dealers, alts ---------------------------------------------------------------


@pytest.mark.parametrize("penalty", ESCAPE_PENALTIES)
@pytest.mark.parametrize("settlement", SETTLEMENTS)
def test_a_friend_who_escapes_pays_the_house_and_nobody_at_the_table_gains(
    settlement: str, penalty: str
) -> None:
    """An escape at a table of 5–8 is settled as at any casual table: the escaper (here a
    friend of the dealer) pays the preset's penalty, as at four, to the house alone."""
    outcome = HandOutcome(
        kind="escape", settlement=settlement, escape_penalty=penalty, stake=100,
        compensation="house", players=6, decks=3, mode="friends", dealer=0, escaper_seat=4,
        levels_at_start=("2",) * 6, wrapped=(False,) * 6,
    )  # fmt: skip
    four = HandOutcome(
        kind="escape", settlement=settlement, escape_penalty=penalty, stake=100,
        compensation="house", escaper_seat=0,
    )  # fmt: skip
    lines = settle_hand(outcome, humans(6))
    assert all(net(lines, seat) == 0 for seat in (0, 1, 2, 3, 5))
    assert net(lines, 4) == net(settle_hand(four, humans(4)), 0) == -net(lines, None)
    assert all(line.kind == "escape_penalty" for line in lines)


def test_escape_compensation_to_players_is_refused_at_a_bigger_table() -> None:
    """Only a ranked table (four players, two decks) pays an escape penalty to players."""
    with pytest.raises(SettlementError) as error:
        HandOutcome(
            kind="escape", settlement="ratio", escape_penalty="nine_stakes", stake=100,
            compensation="players", players=6, decks=3, escaper_seat=1,
        )  # fmt: skip
    assert error.value.code == "outcome_invalid" and error.value.fields["field"] == "compensation"


def test_a_lone_dealer_wins_with_the_small_side_bonus_counted_in_its_levels() -> None:
    """A dealer who called a card they buried plays alone (1 vs 4); holding the attackers to 0
    goes up 3 levels and 1 more for the small side (RULES-SPEC.md §9.3.6): G counts 4."""
    outcome = friends_outcome(5, (2,), 0, settlement="levels", bonus=1)
    assert outcome.levels == 4 and outcome.winners == (2,)
    lines = settle_hand(outcome, humans(5))
    # G = 4 × 100; the dealer gains 4 × 2G/5 = 640, each of the four pays 2G/5 = 160.
    assert [net(lines, seat) for seat in range(5)] == [-160, -160, 640, -160, -160]


# The most the main (one account) gains in one hand at an 8-seat table, stake 100: dealing
# alone (defenders are at most 4 of 8, so a lone winner is always a lone defender), the seven
# alts losing on purpose (0 points: up 3, and 1 more for the small side, 4 levels), at the
# highest ratio: ⌊7 × 2G / 8⌋ (and the `table` bonus for reaching 8) less the main's own fees.
MAIN_GAIN_BOUND_8 = {
    "ratio": 7 * 2 * (220 + 4 * 100) // 8 - 10,  # G = 620: 1085 − the winner fee = 1075
    "levels": 7 * 2 * (4 * 100) // 8,  # G = 400: 700
    "stake_steps": 7 * 2 * (4 * 100) // 8 - 10 - 10,  # 700 − table and service fees = 680
    "table": 7 * 2 * 25 // 8 + 7 * 2 * 10 // 8,  # G = 25: 43, and 17 for reaching 8 = 60
}


@pytest.mark.parametrize("settlement", SETTLEMENTS)
def test_seven_alts_and_a_main_at_an_eight_seat_table_the_bound_per_hand(settlement: str) -> None:
    """Seven alts and a main (seat 0) at an 8-seat private table. Escapes: whatever seat
    escapes, the main gains 0. Played hands: over every side the main can be on (alone as a
    lone dealer, or with friends), every band of points and every level, the main gains at
    most `MAIN_GAIN_BOUND_8` in one hand, reached when it deals alone, the seven alts lose on
    purpose (0 points) at the highest ratio, and the small side goes up 4; each alt then pays
    ⌈2G / 8⌉ at most, a quarter of what one lost hand costs at four."""
    for escaper in range(1, 8):
        escape = HandOutcome(
            kind="escape", settlement=settlement, escape_penalty="nine_stakes", stake=100,
            compensation="house", players=8, decks=4, mode="friends", dealer=0,
            escaper_seat=escaper, levels_at_start=("2",) * 8, wrapped=(False,) * 8,
        )  # fmt: skip
        assert net(settle_hand(escape, humans(8)), 0) == 0
    sides = [(0,), (0, 1), (0, 5, 7), (0, 1, 2, 3), (3,), (3, 0), (4, 0, 6)]
    best = 0
    for side, points, level in product(sides, range(0, 801, 5), ("2", "7", "A")):
        outcome = friends_outcome(
            8, side, points, settlement=settlement, decks=4, levels=(level,) * 8,
            bonus=1 if points < 160 and len(side) < 4 else 0,
        )  # fmt: skip
        lines = settle_hand(outcome, humans(8))
        best = max(best, net(lines, 0))
        if 0 in outcome.winners and len(outcome.winners) == 1:
            g = two_against_two(outcome)
            assert all(-net(lines, alt, frozenset({"table_points"})) <= -(-2 * g // 8)
                       for alt in range(1, 8))  # fmt: skip
    assert best == MAIN_GAIN_BOUND_8[settlement]


# --- From what the engine plays and the games app stores --------------------------------------


@pytest.mark.parametrize(("mode", "players"), [("friends", p) for p in range(5, 9)] +
                         [("tractor", 6), ("tractor", 8)])  # fmt: skip
def test_hands_the_engine_plays_settle_as_its_result_says(mode: str, players: int) -> None:
    """Ten hands of each shape played by the engine, read as the ladder reads a stored hand:
    the winners are the result's `winning_seats`, the lines sum to 0, nobody gains who lost."""
    rules = preset("ranked").with_options(players=players, mode=mode)
    for seed in range(10):
        state = play_random(new_hand(rules, seed), Random(seed))
        assert state.result is not None
        result: dict[str, Any] = state.result.to_dict()
        outcome = outcome_from_record(
            status="finished", result=result, ruleset=rules.to_dict(), stake=100,
            dealer=None, hand_levels=None, escaped_seats=(), absent_seats=(), fees=FEES,
            ranked=True,
        )  # fmt: skip
        assert outcome.compensation == "house"  # never ranked at this shape
        assert list(outcome.winners) == sorted(result["winning_seats"])
        lines = settle_hand(outcome, humans(players))
        assert sum(line.amount for line in lines) == 0
        for seat in range(players):
            assert (net(lines, seat, frozenset({"table_points"})) > 0) == (seat in outcome.winners)


def test_regression_a_three_deck_hand_is_scored_with_its_own_step() -> None:
    """A four-player, three-deck table: 100 attacker points are 60 ≤ X < 120 with the step of
    three decks, so the defenders go up 1 (RULES-SPEC.md §9.2). Read with the two-deck step
    (80 ≤ X) the attackers would take the deal and the other side would be paid."""
    ruleset = preset("ranked").with_options(decks=3).to_dict()
    outcome = outcome_from_record(
        status="finished", result={"attacker_points": 100, "dealer": 0}, ruleset=ruleset,
        stake=100, dealer=0, hand_levels=["2", "2"], escaped_seats=(), absent_seats=(),
        fees=FEES, ranked=False,
    )  # fmt: skip
    assert outcome.defenders_won and outcome.levels == 1 and outcome.winners == (0, 2)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"defenders": (1, 2)}, "defenders"),  # the dealer (0) is not a defender
        ({"defenders": (0, 0, 1)}, "defenders"),  # a seat twice
        ({"defenders": (0, 1, 2, 3, 4)}, "defenders"),  # the whole table
        ({"defenders": (0, 5)}, "defenders"),  # no seat 5 at five players
        ({"winner_side": 0}, "winner_side"),  # 找朋友 has no fixed sides
        ({"winning_seats": (1, 2, 3)}, "winning_seats"),  # 0 points: the defenders won
        ({"small_side_bonus": 1, "attacker_points": 200}, "small_side_bonus"),  # attackers won
        ({"levels_at_start": ("2", "2")}, "levels"),  # one level per player in 找朋友
        ({"mode": "tractor"}, "players"),  # tractor needs an even number
        ({"players": 9}, "players"),
        ({"decks": 5}, "decks"),
    ],
)
def test_a_bad_outcome_is_refused_with_its_field(changes: dict[str, Any], field: str) -> None:
    fields: dict[str, Any] = dict(
        kind="normal", settlement="ratio", escape_penalty="triple", stake=100,
        compensation="house", players=5, mode="friends", dealer=0, defenders=(0, 3),
        attacker_points=0, levels_at_start=("2",) * 5, wrapped=(False,) * 5,
    )  # fmt: skip
    with pytest.raises(SettlementError) as error:
        HandOutcome(**{**fields, **changes})
    assert error.value.code == "outcome_invalid" and error.value.fields["field"] == field


def test_a_result_and_rules_of_different_shapes_are_refused() -> None:
    with pytest.raises(SettlementError) as error:
        outcome_from_record(
            status="finished", result={"attacker_points": 0, "players": 6}, ruleset={
                "settlement": "ratio", "escape_penalty": "triple", "players": 8},
            stake=100, dealer=0, hand_levels=None, escaped_seats=(), absent_seats=(), fees=FEES,
        )  # fmt: skip
    assert error.value.code == "outcome_invalid" and error.value.fields["field"] == "players"
