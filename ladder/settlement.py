"""Settlement of one hand, as pure functions: a `HandOutcome` in, ledger lines out.

RULES.md §6 (ratio, levels, table, stake_steps; title points) and §7 (escapes, absent players).
Nothing here touches the database: `ladder.services.ladder_settle_hand` reads the hand, builds
the outcome with `outcome_from_record`, calls `settle_hand` and writes the lines it returns.

A line is `(seat, kind, amount)`; `seat` None is the house. Table-point lines of one hand always
sum to zero, and the house only ever receives (fees, and what an escaper pays beyond what the
others get): between the players a hand is a transfer, and the house never pays anyone (docs/
LADDER.md, "Invariants"). A hand with a bot seated at its start is practice and settles nothing.
`max_hand_loss` is the most one hand can take from a seat, for the check before every hand.
Title-point lines are not transfers: they only follow levels. See docs/LADDER.md for every
decision taken where RULES.md is silent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ladder.errors import ApplicationError

RANKS = "23456789TJQKA"
SEATS = (0, 1, 2, 3)
SETTLEMENTS = ("ratio", "levels", "table", "stake_steps")
ESCAPE_PENALTIES = ("triple", "fixed_40", "nine_stakes", "none")
PAST_ACE = ("match_end", "wrap")
# Who receives an escape penalty: as the preset says ("players": RULES.md §7), or the house
# alone ("house": at a casual table, whose four chose each other, so that no escape moves table
# points between accounts; docs/LADDER.md, "No faster than play").
COMPENSATIONS = ("players", "house")
OUTCOME_KINDS = ("normal", "escape", "void")

# Ledger kinds. The order is the order lines are written in (and balances run in).
TABLE_POINTS = "table_points"
BONUS = "bonus"
ESCAPE_COMPENSATION = "escape_compensation"
ESCAPE_PENALTY = "escape_penalty"
FEE = "fee"
SERVICE_FEE = "service_fee"
BOT_SEAT = "bot_seat"
WAIVED = "waived"
SHORTFALL = "shortfall"
TITLE_POINTS = "title_points"
# A player seated by quick match who never came pays this, to no one (docs/LADDER.md,
# "Quick-match no-shows"): a sink with no hand, like the grants are sources with none.
NO_SHOW = "no_show"
HAND_KINDS = (
    TABLE_POINTS,
    BONUS,
    ESCAPE_COMPENSATION,
    ESCAPE_PENALTY,
    FEE,
    SERVICE_FEE,
    BOT_SEAT,
    WAIVED,
    SHORTFALL,
    TITLE_POINTS,
)
TITLE_KINDS = frozenset({TITLE_POINTS})
# What moves between the players (the house is never a party to these).
TRANSFER_KINDS = frozenset({TABLE_POINTS, BONUS, WAIVED})
# The only kinds the house receives: fees, and the rest of an escape penalty. `BOT_SEAT` and
# `SHORTFALL` are no longer written to the house (kept for the rows written before).
HOUSE_KINDS = frozenset({FEE, SERVICE_FEE, ESCAPE_PENALTY})
# The levels one hand's table points count at most (title points count them all): without a
# cap a kitty bonus of 80 × 2 × 2^12 would have no bound, and nobody could hold enough to sit.
# Seed 004's worked example (+4 levels: 590) is the largest that any seed writes out.
LEVELS_SETTLED_MAX = 4

# Settlement ratio by the highest level held at the hand's start (RULES.md §6, seed 004).
RATIO_PERCENT = {
    "2": 100, "3": 100, "4": 120, "5": 120, "6": 140, "7": 140, "8": 160,
    "9": 160, "T": 180, "J": 180, "Q": 200, "K": 200, "A": 220,
}  # fmt: skip
# `table` (002): the first side to reach a level gets the first amount, the other side the second.
# Paid between the sides (the house pays nothing): the other side pays the difference, 10 (8) or
# 20 (A) a player, to the first side.
TABLE_BONUSES = (("8", 25, 15), ("A", 50, 30))


@dataclass(frozen=True)
class FeeSchedule:
    """The house's fees, captured with each settlement so later changes never rewrite history."""

    winner_fee: int = 10  # ratio: 基本扣點, taken from each winner's gain
    table_fee: int = 10  # stake_steps: 固定桌费, per player per hand
    service_percent: int = 10  # stake_steps: 游戏服务费, % of the stake per player per hand
    fixed_escape: int = 40  # fixed_40: what the escaper pays


@dataclass(frozen=True)
class HandOutcome:
    """What the settlement needs to know about a finished hand.

    Sides: side 0 = seats 0 & 2, side 1 = seats 1 & 3. For a normal hand give `dealer_side` and
    `attacker_points`; `winner_side` and `levels_gained` are derived from them (RULES.md §5.6) and,
    when given as well, must agree. `levels_gained` is the levels the winning side actually goes
    up (0 when the attackers only take the deal). `wrapped[side]` says that side has already gone
    past A in this match under `past_ace = wrap` (its ratio stays at A's, RULES.md §5.7).
    """

    kind: str
    settlement: str
    escape_penalty: str
    stake: int
    dealer_side: int | None = None
    attacker_points: int | None = None
    winner_side: int | None = None
    levels_gained: int | None = None
    levels_at_start: tuple[str, str] = ("2", "2")
    levels_after: tuple[str, str] | None = None
    wrapped: tuple[bool, bool] = (False, False)
    escaper_seat: int | None = None
    absent_seats: tuple[int, ...] = ()
    past_ace: str = "match_end"
    fees: FeeSchedule = field(default_factory=FeeSchedule)
    compensation: str = "players"

    def __post_init__(self) -> None:
        _check_choice("kind", self.kind, OUTCOME_KINDS)
        _check_choice("compensation", self.compensation, COMPENSATIONS)
        _check_choice("settlement", self.settlement, SETTLEMENTS)
        _check_choice("escape_penalty", self.escape_penalty, ESCAPE_PENALTIES)
        _check_choice("past_ace", self.past_ace, PAST_ACE)
        if not isinstance(self.stake, int) or isinstance(self.stake, bool) or self.stake < 0:
            raise _invalid("stake", f"stake {self.stake!r} is not a whole number ≥ 0")
        object.__setattr__(self, "levels_at_start", _levels_pair(self.levels_at_start))
        if self.levels_after is not None:
            object.__setattr__(self, "levels_after", _levels_pair(self.levels_after))
        wrapped = self.wrapped
        if not isinstance(wrapped, list | tuple) or len(wrapped) != 2:
            raise _invalid("wrapped", "wrapped needs one flag per side")
        object.__setattr__(self, "wrapped", (bool(wrapped[0]), bool(wrapped[1])))
        absent = tuple(sorted(set(self.absent_seats)))
        for seat in absent:
            _check_seat("absent_seats", seat)
        object.__setattr__(self, "absent_seats", absent)
        if self.kind == "normal":
            self._derive_result()
        elif self.kind == "escape":
            _check_seat("escaper_seat", self.escaper_seat)

    def _derive_result(self) -> None:
        if self.dealer_side not in (0, 1):
            raise _invalid("dealer_side", "a finished hand needs dealer_side 0 or 1")
        if self.attacker_points is None:
            if self.winner_side not in (0, 1) or self.levels_gained is None:
                raise _invalid(
                    "attacker_points",
                    "a finished hand needs attacker_points (or winner_side and levels_gained)",
                )
            if self.levels_gained < 0 or (
                self.winner_side == self.dealer_side and self.levels_gained < 1
            ):
                raise _invalid("levels_gained", "defenders go up at least 1 level (RULES.md §5.6)")
            return
        attacker_points = self.attacker_points
        if not isinstance(attacker_points, int) or attacker_points < 0 or attacker_points % 5:
            raise _invalid(
                "attacker_points", f"attacker points {attacker_points!r} are not a multiple of 5"
            )
        defenders_win, levels = level_change(attacker_points)
        winner = self.dealer_side if defenders_win else 1 - self.dealer_side
        if self.winner_side is not None and self.winner_side != winner:
            raise _invalid(
                "winner_side", f"{attacker_points} attacker points make side {winner} win"
            )
        if self.levels_gained is not None and self.levels_gained != levels:
            raise _invalid(
                "levels_gained", f"{attacker_points} attacker points give {levels} levels"
            )
        object.__setattr__(self, "winner_side", winner)
        object.__setattr__(self, "levels_gained", levels)

    @property
    def defenders_won(self) -> bool:
        return self.winner_side == self.dealer_side

    @property
    def levels(self) -> int:
        return self.levels_gained or 0


@dataclass(frozen=True)
class SeatState:
    """A seat as the settlement sees it: a human with balances, or a bot (no ledger rows).
    `bot_played`: the bot played most of the seat's turns (托管, timeouts, a takeover)."""

    human: bool
    balance: int = 0
    title_points: int = 0
    bot_played: bool = False


@dataclass(frozen=True, order=True)
class Line:
    seat: int | None  # None: the house
    kind: str
    amount: int

    @property
    def is_title(self) -> bool:
        return self.kind in TITLE_KINDS


# ---------------------------------------------------------------------------------------------
# Small rules


def level_change(attacker_points: int) -> tuple[bool, int]:
    """(defenders win?, levels the winner goes up) from the attackers' points (RULES.md §5.6)."""
    if attacker_points == 0:
        return True, 3
    if attacker_points < 40:
        return True, 2
    if attacker_points < 80:
        return True, 1
    return False, (attacker_points - 80) // 40


def rank_index(rank: str) -> int:
    return RANKS.index(rank)


def side_of(seat: int) -> int:
    return seat % 2


def side_seats(side: int) -> tuple[int, int]:
    return (side, side + 2)


def percent_of(amount: int, percent: int) -> int:
    """`amount × percent %`, rounded half up to whole points (only ever used on amounts ≥ 0)."""
    return (amount * percent + 50) // 100


def ratio_percent(levels_at_start: tuple[str, str], wrapped: tuple[bool, bool]) -> int:
    """The ratio of the highest level either side holds; a side past A keeps A's 220 %."""
    effective = ["A" if wrapped[side] else levels_at_start[side] for side in (0, 1)]
    return max(RATIO_PERCENT[rank] for rank in effective)


def service_fee(stake: int, percent: int) -> int:
    """stake_steps' service fee: `percent` % of the stake, rounded down (never more than that)."""
    return stake * percent // 100


def settled_levels(outcome: HandOutcome) -> int:
    """The levels the hand's table points count: those gained, at most `LEVELS_SETTLED_MAX`."""
    return min(outcome.levels, LEVELS_SETTLED_MAX)


def steps(outcome: HandOutcome) -> int:
    """Stake multiples of `levels` and `stake_steps`: defenders up N → N; attackers → N + 1
    (N counted up to `LEVELS_SETTLED_MAX`)."""
    levels = settled_levels(outcome)
    return levels if outcome.defenders_won else levels + 1


def one_level(outcome: HandOutcome) -> tuple[int, int, int]:
    """(each winner's gross gain, each winner's fee, each loser's loss) of a one-level result.

    The unit of the `triple` escape penalty: a defenders-up-1 hand under the table's scheme.
    """
    stake = outcome.stake
    if outcome.settlement == "ratio":
        gross = percent_of(stake, ratio_percent(outcome.levels_at_start, outcome.wrapped)) + stake
        return gross, min(outcome.fees.winner_fee, gross), gross
    if outcome.settlement == "table":
        return 10, 0, 10
    return stake, 0, stake  # levels, stake_steps: S × 1


# ---------------------------------------------------------------------------------------------
# Normal hands


def normal_lines(outcome: HandOutcome) -> list[Line]:
    """Every seat's lines for a hand played to its end, before absences, the `ratio` winner fee
    (`ratio_fee_lines`, taken from what each winner finally gains) and balances."""
    winners = side_seats(outcome.winner_side or 0)
    losers = side_seats(1 - (outcome.winner_side or 0))
    lines: list[Line] = []
    scheme = outcome.settlement
    if scheme == "ratio":
        lines += _transfer(winners, losers, ratio_gross(outcome))
    elif scheme == "levels":
        lines += _transfer(winners, losers, outcome.stake * steps(outcome))
    elif scheme == "table":
        lines += _transfer(winners, losers, 5 * (settled_levels(outcome) + 1))
        lines += table_bonus_lines(outcome)
    else:
        lines += _transfer(winners, losers, outcome.stake * steps(outcome))
        lines += _per_player_fees(outcome)
    if outcome.levels:
        lines += [Line(seat, TITLE_POINTS, outcome.levels) for seat in winners]
        lines += [Line(seat, TITLE_POINTS, -outcome.levels) for seat in losers]
    return lines


def _transfer(winners: Iterable[int], losers: Iterable[int], amount: int) -> list[Line]:
    return [Line(seat, TABLE_POINTS, amount) for seat in winners] + [
        Line(seat, TABLE_POINTS, -amount) for seat in losers
    ]


def ratio_gross(outcome: HandOutcome) -> int:
    """`ratio`: what each loser pays and each winner gains before the fee,
    `S × ratio + S × levels` (levels counted up to `LEVELS_SETTLED_MAX`)."""
    ratio = ratio_percent(outcome.levels_at_start, outcome.wrapped)
    return percent_of(outcome.stake, ratio) + outcome.stake * settled_levels(outcome)


def ratio_fee_lines(outcome: HandOutcome, lines: list[Line]) -> list[Line]:
    """`ratio`: the winner fee, from each seat of the winning side that gains from the hand,
    never more than it gains (a winner never loses on a won hand); to the house."""
    if outcome.settlement != "ratio" or outcome.kind != "normal":
        return []
    fees: list[Line] = []
    for seat in side_seats(outcome.winner_side or 0):
        fee = min(outcome.fees.winner_fee, max(transfer_net(lines, seat), 0))
        if fee:
            fees += [Line(seat, FEE, -fee), Line(None, FEE, fee)]
    return fees


def _per_player_fees(outcome: HandOutcome) -> list[Line]:
    """stake_steps: the fixed table fee and the service fee, from every seat, to the house."""
    lines: list[Line] = []
    for kind, amount in (
        (FEE, outcome.fees.table_fee),
        (SERVICE_FEE, service_fee(outcome.stake, outcome.fees.service_percent)),
    ):
        if amount:
            lines += [Line(seat, kind, -amount) for seat in SEATS]
            lines.append(Line(None, kind, amount * len(SEATS)))
    return lines


def table_bonus_lines(outcome: HandOutcome) -> list[Line]:
    """`table` (002): the first side to reach 8 (A) gets 25 (50) each, the other side 15 (30),
    settled between the sides: the other side pays each player of the first the difference, 10
    (20). The house pays nothing (docs/LADDER.md, "Invariants").

    Read from the levels at the hand's start and the levels the winner goes up: the winner
    reaches R in this hand when it held less than R and goes up to R or past it; it is first when
    the other side also held less than R. A side that has wrapped past A earns no bonus again.
    """
    winner = outcome.winner_side or 0
    other = 1 - winner
    start = rank_index(outcome.levels_at_start[winner])
    lines: list[Line] = []
    for rank, first_amount, other_amount in TABLE_BONUSES:
        target = rank_index(rank)
        reached = start < target <= start + outcome.levels and not outcome.wrapped[winner]
        first = rank_index(outcome.levels_at_start[other]) < target and not outcome.wrapped[other]
        if not (reached and first):
            continue
        difference = first_amount - other_amount
        lines += [Line(seat, BONUS, difference) for seat in side_seats(winner)]
        lines += [Line(seat, BONUS, -difference) for seat in side_seats(other)]
    return lines


# ---------------------------------------------------------------------------------------------
# Escapes


def escape_lines(outcome: HandOutcome, escaper: int) -> list[Line]:
    """What an escaper is charged under `escape_penalty`, and who gets it (RULES.md §7).

    The escaper's partner never pays. `triple`: the escaper pays 3 × a one-level loss, each
    opponent gains as a one-level winner (paying that winner's fee), the house keeps the rest.
    `fixed_40`: the escaper pays 40 to the house. `nine_stakes`: the escaper pays 9 × S, 3 × S
    to each of the other three. `none`: nothing.
    """
    penalty = outcome.escape_penalty
    partner = (escaper + 2) % 4
    opponents = ((escaper + 1) % 4, (escaper + 3) % 4)
    if outcome.compensation == "house":
        return escape_lines_to_house(outcome, escaper)
    if penalty == "triple":
        gain, fee, loss = one_level(outcome)
        lines = [Line(escaper, ESCAPE_PENALTY, -3 * loss)]
        lines += [Line(seat, ESCAPE_COMPENSATION, gain) for seat in opponents]
        lines.append(Line(None, ESCAPE_PENALTY, 3 * loss - 2 * gain))
        if fee:
            lines += [Line(seat, FEE, -fee) for seat in opponents]
            lines.append(Line(None, FEE, 2 * fee))
        return lines
    if penalty == "fixed_40":
        amount = outcome.fees.fixed_escape
        return [Line(escaper, ESCAPE_PENALTY, -amount), Line(None, ESCAPE_PENALTY, amount)]
    if penalty == "nine_stakes":
        others = (*opponents, partner)
        return [Line(escaper, ESCAPE_PENALTY, -9 * outcome.stake)] + [
            Line(seat, ESCAPE_COMPENSATION, 3 * outcome.stake) for seat in others
        ]
    return []


def escape_lines_to_house(outcome: HandOutcome, escaper: int) -> list[Line]:
    """At a casual table the escaper pays the whole penalty, as the preset sets it, to the
    house, and nobody at the table receives any of it: four accounts of one person cannot feed
    one of them by escaping (docs/LADDER.md, "No faster than play")."""
    charge = escape_paid(outcome)
    if not charge:
        return []
    return [Line(escaper, ESCAPE_PENALTY, -charge), Line(None, ESCAPE_PENALTY, charge)]


def escape_paid(outcome: HandOutcome) -> int:
    """What the escaper pays under the table's penalty: `triple` 3 × a one-level loss,
    `fixed_40` the fixed amount, `nine_stakes` 9 × S, `none` nothing."""
    penalty = outcome.escape_penalty
    if penalty == "triple":
        return 3 * one_level(outcome)[2]
    if penalty == "fixed_40":
        return outcome.fees.fixed_escape
    if penalty == "nine_stakes":
        return 9 * outcome.stake
    return 0


def no_show_fee(stake: int, balance: int) -> int:
    """What a quick-match no-show pays: one stake of the table (S; 50 at quick match's stake),
    never more than the player holds."""
    return max(0, min(stake, balance))


# ---------------------------------------------------------------------------------------------
# The most one hand can take


def most_played_loss(settlement: str, stake: int, fees: FeeSchedule) -> int:
    """The most a hand played to its end takes from one seat (a loser's): the scheme's amount
    at the highest ratio and `LEVELS_SETTLED_MAX` levels, with the attackers' extra step, the
    `table` bonuses (8 and A in one hand) and the per-player fees."""
    levels = LEVELS_SETTLED_MAX
    if settlement == "ratio":
        return percent_of(stake, max(RATIO_PERCENT.values())) + stake * levels
    if settlement == "levels":
        return stake * (levels + 1)
    if settlement == "table":
        return 5 * (levels + 1) + sum(first - other for _, first, other in TABLE_BONUSES)
    return stake * (levels + 1) + fees.table_fee + service_fee(stake, fees.service_percent)


def escape_charge(settlement: str, escape_penalty: str, stake: int, fees: FeeSchedule) -> int:
    """What an escaper (or a player absent at the end) pays under `escape_penalty` at most."""
    if escape_penalty == "triple":
        if settlement == "ratio":
            return 3 * (percent_of(stake, max(RATIO_PERCENT.values())) + stake)
        return 3 * (10 if settlement == "table" else stake)
    if escape_penalty == "fixed_40":
        return fees.fixed_escape
    if escape_penalty == "nine_stakes":
        return 9 * stake
    return 0


def escape_charge_range(
    settlement: str, escape_penalty: str, stake: int, fees: FeeSchedule
) -> tuple[int, int]:
    """(least, most) an escaper pays under `escape_penalty` at this stake: `triple` under `ratio`
    depends on the levels held (ratio 100 % at 2–3 up to 220 % at A); the others are fixed."""
    if escape_penalty == "triple" and settlement == "ratio":
        least = 3 * (percent_of(stake, min(RATIO_PERCENT.values())) + stake)
        return least, escape_charge(settlement, escape_penalty, stake, fees)
    charge = escape_charge(settlement, escape_penalty, stake, fees)
    return charge, charge


def max_hand_loss(
    *, settlement: str, escape_penalty: str, stake: int, fees: FeeSchedule | None = None
) -> int:
    """The most one hand, played out or escaped, can take from a seat's table points: a loss
    played to the end and then the escape penalty as a player absent at the end (RULES.md §7).
    A player may sit, and a hand may start, only when every human holds at least this (docs/
    LADDER.md); `tests/ladder/test_trust_max_loss.py` checks that no outcome takes more."""
    _check_choice("settlement", settlement, SETTLEMENTS)
    _check_choice("escape_penalty", escape_penalty, ESCAPE_PENALTIES)
    fees = fees or FeeSchedule()
    played = most_played_loss(settlement, stake, fees)
    return played + escape_charge(settlement, escape_penalty, stake, fees)


# ---------------------------------------------------------------------------------------------
# The whole settlement


def settle_hand(outcome: HandOutcome, seats: Mapping[int, SeatState]) -> list[Line]:
    """Every ledger line of one hand: seat lines and house lines, merged per (seat, kind).

    1. `void`, or a bot seated at the hand's start (a seat with no human): nothing. A hand with
       a bot is practice: no table points, title points or rating move for anyone.
    2. `escape`: the escape penalty alone (no levels, no title points).
    3. `normal`: the scheme's lines and title points; then each seat absent at the end is also
       charged as an escaper, except under `escape_penalty = none` (seed 004), where the absent
       seat's own settlement is waived instead and the other side is settled against what the
       players still in it pay or receive (`waive`): the house never stands in.
    4. Title points are gained only by a seat its human played (`title_gains_played_only`);
       a seat the bot played loses them as if played. They never go below 0. A balance
       below what the hand takes is a `shortfall` (`cover_shortfalls`): a guard only, which
       the check before every hand (`max_hand_loss`) keeps from ever being written, and
       which `ladder_check` reports.
    """
    if outcome.kind == "void" or not all(seats[seat].human for seat in SEATS):
        return []
    if outcome.kind == "escape":
        lines = escape_lines(outcome, outcome.escaper_seat or 0)
    else:
        lines = normal_lines(outcome)
        if outcome.escape_penalty == "none":
            lines = waive(lines, outcome.absent_seats)
        lines += ratio_fee_lines(outcome, lines)
        if outcome.escape_penalty != "none":
            for seat in outcome.absent_seats:
                lines += escape_lines(outcome, seat)
    lines = merge_lines(lines)
    lines = title_gains_played_only(lines, seats)
    lines = clamp_title_points(lines, seats)
    return merge_lines(lines + cover_shortfalls(lines, seats))


def waive(lines: list[Line], absent: Iterable[int]) -> list[Line]:
    """Drop the absent seats' settlement (seed 004: 此局不扣點) without the house standing in.

    Their fees are not taken (the house's fee lines shrink by them). Between the players still
    in the hand, what is paid and what is received must match: the side owed more than the
    other side's players still in the hand pay receives only what those pay, shared in
    proportion to what each was owed; the side owing more than the other side's players still
    in the hand receive pays only that, shared in proportion to what each owed (largest
    remainder, ties to the lower seat). The difference is written as `waived` lines.
    """
    gone = set(absent)
    if not gone:
        return lines
    dropped = [line for line in lines if line.seat in gone]
    kept = [line for line in lines if line.seat not in gone]
    kept += [Line(None, line.kind, line.amount) for line in dropped if line.kind in HOUSE_KINDS]
    nets = {seat: transfer_net(kept, seat) for seat in SEATS if seat not in gone}
    received = sum(net for net in nets.values() if net > 0)
    paid = -sum(net for net in nets.values() if net < 0)
    if received == paid:
        return kept
    sign = 1 if received > paid else -1  # 1: the receivers get less; -1: the payers pay less
    parties = [(seat, sign * net) for seat, net in nets.items() if sign * net > 0]
    settled = split_proportionally(min(received, paid), [owed for _, owed in parties])
    kept += [
        Line(seat, WAIVED, sign * (share - owed))
        for (seat, owed), share in zip(parties, settled, strict=True)
        if share != owed
    ]
    return kept


def transfer_net(lines: Iterable[Line], seat: int | None) -> int:
    return sum(line.amount for line in lines if line.seat == seat and line.kind in TRANSFER_KINDS)


def merge_lines(lines: Iterable[Line]) -> list[Line]:
    """One line per (seat, kind), zero lines dropped, seats in order, the house last."""
    totals: dict[tuple[int | None, str], int] = {}
    for line in lines:
        key = (line.seat, line.kind)
        totals[key] = totals.get(key, 0) + line.amount
    return sorted(
        (Line(seat, kind, amount) for (seat, kind), amount in totals.items() if amount),
        key=_line_order,
    )


def _line_order(line: Line) -> tuple[int, int]:
    return (4 if line.seat is None else line.seat, HAND_KINDS.index(line.kind))


def title_gains_played_only(lines: list[Line], seats: Mapping[int, SeatState]) -> list[Line]:
    """Title points for a win go only to a seat its human played for most of the hand: a seat
    the bot played (托管 or away) gains none, while its losses stand (docs/LADDER.md, "Seats
    the bot played"). Table points are untouched: the seat is settled as if played."""
    return [
        line
        for line in lines
        if not (
            line.is_title
            and line.seat is not None
            and line.amount > 0
            and seats[line.seat].bot_played
        )
    ]


def clamp_title_points(lines: list[Line], seats: Mapping[int, SeatState]) -> list[Line]:
    """A loss of title points stops at 0 (RULES.md §6)."""
    clamped = []
    for line in lines:
        if line.is_title and line.seat is not None:
            floor = -seats[line.seat].title_points
            line = replace(line, amount=max(line.amount, floor))
        clamped.append(line)
    return clamped


def table_net(lines: Iterable[Line], seat: int | None) -> int:
    return sum(line.amount for line in lines if line.seat == seat and not line.is_title)


def cover_shortfalls(lines: list[Line], seats: Mapping[int, SeatState]) -> list[Line]:
    """Lines that stop any balance going below 0, keeping the hand balanced.

    A seat never pays more than its balance. What it cannot pay (its shortfall, a `shortfall`
    line in its favour) is missing from what the others receive: the total shortfall is shared by
    the receiving seats and the house in proportion to what each receives (largest remainder,
    ties to the lower seat, the house last), as negative `shortfall` lines.
    """
    shortfalls = {}
    for seat in SEATS:
        if seats[seat].human:
            owed = -table_net(lines, seat)
            if owed > seats[seat].balance:
                shortfalls[seat] = owed - max(seats[seat].balance, 0)
    total = sum(shortfalls.values())
    if not total:
        return []
    receivers: list[tuple[int | None, int]] = [
        (seat, table_net(lines, seat)) for seat in (*SEATS, None) if table_net(lines, seat) > 0
    ]
    shares = split_proportionally(total, [amount for _, amount in receivers])
    extra = [Line(seat, SHORTFALL, amount) for seat, amount in shortfalls.items()]
    extra += [
        Line(seat, SHORTFALL, -share) for (seat, _), share in zip(receivers, shares, strict=True)
    ]
    return extra


def split_proportionally(total: int, weights: list[int]) -> list[int]:
    """`total` split in proportion to `weights` (largest remainder; ties to the earlier weight)."""
    weight_sum = sum(weights)
    if total > weight_sum:
        raise ValueError(f"cannot take {total} from receivers of {weight_sum}")
    exact = [total * weight for weight in weights]
    shares = [value // weight_sum for value in exact]
    left = total - sum(shares)
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] % weight_sum), i))
    for index in order[:left]:
        shares[index] += 1
    return shares


# ---------------------------------------------------------------------------------------------
# From what the games app stores


# Keys of `Hand.result` and the other names they may come under (the engine's
# `HandResult.to_dict()` writes the second ones).
RESULT_ALIASES = {
    "kind": ("kind", "outcome"),
    "dealer": ("dealer",),
    "dealer_side": ("dealer_side",),
    "winner_side": ("winner_side", "winning_team"),
    "wrapped": ("wrapped", "wrapped_at_start"),
    "escaper_seat": ("escaper_seat", "escaper"),
}
KIND_NAMES = {"normal": "normal", "played": "normal", "escape": "escape", "void": "void"}
STATUS_KINDS = {"finished": "normal", "escaped": "escape", "void": "void"}


def _result_value(result: Mapping[str, Any], key: str, default: Any = None) -> Any:
    for name in RESULT_ALIASES.get(key, (key,)):
        if result.get(name) is not None:
            return result[name]
    return default


def outcome_from_record(
    *,
    status: str,
    result: Mapping[str, Any] | None,
    ruleset: Mapping[str, Any],
    stake: int,
    dealer: int | None,
    hand_levels: Any,
    hand_wrapped: Any = None,
    escaped_seats: Iterable[int],
    absent_seats: Iterable[int],
    fees: FeeSchedule,
    ranked: bool = True,
) -> HandOutcome:
    """The outcome of a stored hand: `Hand.result`, `Hand.ruleset`, the table's stake, the hand's
    dealer, levels and wrapped flags, and the `HandPlayer` flags. The keys of `Hand.result` are
    listed in docs/LADDER.md; the result wins over the hand's columns where both say something.
    ``ranked`` False (a casual table): escape penalties go to the house alone."""
    if status == "playing":
        raise ApplicationError("hand_not_finished", "the hand is still being played")
    result = dict(result or {})
    ruleset = rule_options(ruleset)
    default_kind = STATUS_KINDS.get(status)
    named = _result_value(result, "kind", default_kind)
    kind = KIND_NAMES.get(str(named), str(named))
    if kind != default_kind:
        raise _invalid("kind", f"result kind {named!r} does not match hand status {status!r}")
    escaped = sorted(set(escaped_seats))
    escaper = _result_value(result, "escaper_seat", escaped[0] if len(escaped) == 1 else None)
    if kind == "escape" and escaped and escaped != [escaper]:
        raise _invalid("escaper_seat", f"escaper_seat {escaper!r} but seats {escaped} escaped")
    dealer_seat = _result_value(result, "dealer", dealer)
    dealer_side = _result_value(
        result, "dealer_side", None if dealer_seat is None else dealer_seat % 2
    )
    wrapped = hand_wrapped if hand_wrapped and len(hand_wrapped) == 2 else (False, False)
    return HandOutcome(
        kind=kind,
        settlement=_rule(ruleset, "settlement"),
        escape_penalty=_rule(ruleset, "escape_penalty"),
        past_ace=ruleset.get("past_ace", "match_end"),
        stake=stake,
        dealer_side=dealer_side,
        attacker_points=result.get("attacker_points"),
        winner_side=_result_value(result, "winner_side") if kind == "normal" else None,
        levels_gained=result.get("levels_gained") if kind == "normal" else None,
        levels_at_start=result.get("levels_at_start") or hand_levels or ("2", "2"),
        levels_after=result.get("levels_after"),
        wrapped=_result_value(result, "wrapped", wrapped),
        escaper_seat=escaper,
        absent_seats=tuple(sorted({*result.get("absent_seats", ()), *absent_seats})),
        fees=replace(fees, table_fee=int(ruleset.get("table_fee", fees.table_fee))),
        compensation="players" if ranked else "house",
    )


def outcome_as_json(outcome: HandOutcome) -> dict[str, Any]:
    """The outcome as stored with its settlement (every input of the arithmetic, fees included)."""
    return {
        "kind": outcome.kind,
        "settlement": outcome.settlement,
        "escape_penalty": outcome.escape_penalty,
        "past_ace": outcome.past_ace,
        "stake": outcome.stake,
        "dealer_side": outcome.dealer_side,
        "attacker_points": outcome.attacker_points,
        "winner_side": outcome.winner_side,
        "levels_gained": outcome.levels_gained,
        "levels_at_start": list(outcome.levels_at_start),
        "levels_after": None if outcome.levels_after is None else list(outcome.levels_after),
        "wrapped": list(outcome.wrapped),
        "escaper_seat": outcome.escaper_seat,
        "absent_seats": list(outcome.absent_seats),
        "compensation": outcome.compensation,
        "fees": {
            "winner_fee": outcome.fees.winner_fee,
            "table_fee": outcome.fees.table_fee,
            "service_percent": outcome.fees.service_percent,
            "fixed_escape": outcome.fees.fixed_escape,
        },
    }


def rule_options(ruleset: Mapping[str, Any]) -> Mapping[str, Any]:
    """The option values of a stored ruleset: the engine's `RuleSet.to_dict()` keeps them under
    "options" (`{"version": 1, "name": …, "options": {…}}`); a flat mapping is read as is."""
    options = ruleset.get("options")
    return options if isinstance(options, Mapping) else ruleset


def ruleset_name(ruleset: Mapping[str, Any], default: str = "") -> str:
    return str(ruleset.get("name") or ruleset.get("preset") or default)


def _rule(ruleset: Mapping[str, Any], key: str) -> str:
    value = ruleset.get(key)
    if value is None:
        raise ApplicationError("ruleset_invalid", f"the hand's ruleset has no {key!r}", field=key)
    return str(value)


def normalise_rank(value: Any) -> str:
    """A level as a rank letter: accepts "2".."9", "T"/"10", "J", "Q", "K", "A" and 2..14."""
    if isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 14:
        return RANKS[value - 2]
    text = str(value).strip().upper()
    text = "T" if text == "10" else text
    if len(text) != 1 or text not in RANKS:
        raise _invalid("levels", f"{value!r} is not a level (2 … A)")
    return text


def _levels_pair(value: Any) -> tuple[str, str]:
    if isinstance(value, str) or len(value) != 2:
        raise _invalid("levels", f"{value!r} is not one level per side")
    return (normalise_rank(value[0]), normalise_rank(value[1]))


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise _invalid(name, f"{name} {value!r} is not one of {', '.join(choices)}")


def _check_seat(name: str, value: object) -> None:
    if value not in SEATS or isinstance(value, bool):
        raise _invalid(name, f"{name} {value!r} is not a seat 0–3")


def _invalid(name: str, message: str) -> ApplicationError:
    return ApplicationError("outcome_invalid", message, field=name)
