"""Settlement of one hand, as pure functions: a `HandOutcome` in, ledger lines out.

RULES-SPEC.md §6 (ratio, levels, table, stake_steps; title points) and §7 (escapes, absent players).
Nothing here touches the database: `ladder.services.ladder_settle_hand` takes the ended hand's
plain record (`FinishedHand`, built by the games' wrap-up), builds the outcome with
`outcome_from_record`, calls `settle_hand` and writes the lines it returns.
The levels and ranks are the engine's (`shengji.engine.level_change`, `RANKS`); a refused outcome
is a `SettlementError`, which the ladder gives the site as its ApplicationError
(`ladder.errors.settlement_refusals`).

A line is `(seat, kind, amount)`; `seat` None is the house. Table-point lines of one hand always
sum to zero, and the house only ever receives (fees, and what an escaper pays beyond what the
others get): between the players a hand is a transfer, and the house never pays anyone (docs/
LADDER.md, "Invariants"). A hand with a bot seated at its start is practice and settles nothing.
`max_hand_loss` is the most one hand can take from a seat, for the check before every hand.
Title-point lines are not transfers: they only follow levels, and only at a ranked table of four.
Tables of 5–8 players and 找朋友 (RULES-SPEC.md §9.5): a scheme's 2-against-2 amount G is paid
as `2G / P` between every winner and every loser (`spread`, with the rounding rule of docs/
LADDER.md, "Bigger tables"). See docs/LADDER.md for every decision taken where RULES-SPEC.md
is silent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from shengji.engine.cards import RANKS
from shengji.engine.levels import LEVELS, NT
from shengji.engine.scoring import DEFENDERS, ScoreBands, level_change

SEATS = (0, 1, 2, 3)  # a classic hand's (and every ranked hand's) seats
# Table shapes (RULES-SPEC.md §9.1): 4–8 players, 2–4 decks; tractor with fixed sides (even
# players), or 找朋友 (5–8 players) whose sides are the dealer with their friends and the rest.
MODES = ("tractor", "friends")
MIN_PLAYERS, MAX_PLAYERS = 4, 8
MIN_DECKS, MAX_DECKS = 2, 4
SETTLEMENTS = ("ratio", "levels", "table", "stake_steps")
ESCAPE_PENALTIES = ("triple", "fixed_40", "nine_stakes", "none")
PAST_ACE = ("match_end", "wrap")
# Who receives an escape penalty: as the preset says ("players": RULES-SPEC.md §7), or the house
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

# Settlement ratio by the highest level held at the hand's start (RULES-SPEC.md §6, seed 004).
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

    Sides (tractor): side 0 = the even seats, side 1 = the odd. For a normal hand give
    `dealer_side` and `attacker_points`; `winner_side` and `levels_gained` are derived from them
    (RULES-SPEC.md §5.6, with the step of `decks`: RULES-SPEC.md §9.2) and, when given as well, must
    agree. `levels_gained` is the levels the winning side actually goes up (0 when the attackers
    only take the deal). `wrapped[side]` says that side has already gone past A in this match
    under `past_ace = wrap` (its ratio stays at A's, RULES-SPEC.md §5.7).

    Shape: `players` (4–8), `decks` (2–4), `mode`. In 找朋友 give `dealer`, the final
    `defenders` (the dealer and the friends revealed) and `attacker_points`; levels and wrapped
    flags are per seat, `winner_side` is None, and `small_side_bonus` is the extra level a small
    winning side of defenders goes up (RULES-SPEC.md §9.3.6). `winning_seats`, when given, must
    be the side the points make win. `winners` and `losers` are derived, for every mode.

    `score_bands`: the table's level bands (RULES-SPEC.md §10.4), None for §9.2.9's.
    `house_level_rules`: the table's levels move by `advancement` or `jack_rule` (RULES-SPEC.md
    §10.6, §10.7), not by the gain alone, so the `table` bonuses read where each level went:
    `levels_after`, and `wrapped_after` for a level that passed the top.
    """

    kind: str
    settlement: str
    escape_penalty: str
    stake: int
    dealer_side: int | None = None
    attacker_points: int | None = None
    winner_side: int | None = None
    levels_gained: int | None = None
    levels_at_start: tuple[str, ...] = ("2", "2")
    levels_after: tuple[str, ...] | None = None
    wrapped: tuple[bool, ...] = (False, False)
    escaper_seat: int | None = None
    absent_seats: tuple[int, ...] = ()
    past_ace: str = "match_end"
    fees: FeeSchedule = field(default_factory=FeeSchedule)
    compensation: str = "players"
    players: int = 4
    decks: int = 2
    mode: str = "tractor"
    dealer: int | None = None
    defenders: tuple[int, ...] | None = None
    winning_seats: tuple[int, ...] | None = None
    small_side_bonus: int = 0
    house_level_rules: bool = False
    wrapped_after: tuple[bool, ...] | None = None
    score_bands: ScoreBands | None = None

    def __post_init__(self) -> None:
        _check_choice("kind", self.kind, OUTCOME_KINDS)
        _check_choice("compensation", self.compensation, COMPENSATIONS)
        _check_choice("settlement", self.settlement, SETTLEMENTS)
        _check_choice("escape_penalty", self.escape_penalty, ESCAPE_PENALTIES)
        _check_choice("past_ace", self.past_ace, PAST_ACE)
        if not _whole(self.stake) or self.stake < 0:
            raise _invalid("stake", f"stake {self.stake!r} is not a whole number ≥ 0")
        self._check_shape()
        slots = self.level_slots
        object.__setattr__(self, "levels_at_start", _levels_tuple(self.levels_at_start, slots))
        if self.levels_after is not None:
            object.__setattr__(self, "levels_after", _levels_tuple(self.levels_after, slots))
        wrapped = self.wrapped
        if not isinstance(wrapped, list | tuple) or len(wrapped) != slots:
            raise _invalid("wrapped", "wrapped needs one flag per side (per player in 找朋友)")
        object.__setattr__(self, "wrapped", tuple(bool(flag) for flag in wrapped))
        absent = tuple(sorted(set(self.absent_seats)))
        for seat in absent:
            _check_seat("absent_seats", seat, self.players)
        object.__setattr__(self, "absent_seats", absent)
        if self.dealer is not None:
            _check_seat("dealer", self.dealer, self.players)
        if self.kind == "normal":
            if self.mode == "friends":
                self._derive_friends_result()
            else:
                self._derive_result()
        elif self.kind == "escape":
            _check_seat("escaper_seat", self.escaper_seat, self.players)

    def _check_shape(self) -> None:
        """RULES-SPEC.md §9.1: 4–8 players, 2–4 decks; tractor at an even number of players,
        找朋友 at 5–8. Escape penalties reach players only at a ranked table, which is four
        players, two decks, tractor (docs/LADDER.md, "Bigger tables")."""
        _check_choice("mode", self.mode, MODES)
        players, decks = self.players, self.decks
        if not _whole(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise _invalid("players", f"players {players!r} is not 4 to 8")
        if not _whole(decks) or not MIN_DECKS <= decks <= MAX_DECKS:
            raise _invalid("decks", f"decks {decks!r} is not 2 to 4")
        if self.mode == "tractor" and players % 2:
            raise _invalid(
                "players", f"a tractor table has an even number of players, not {players}"
            )
        if self.mode == "friends" and players < 5:
            raise _invalid("players", f"找朋友 is played by 5 to 8 players, not {players}")
        if self.compensation == "players" and not self.is_classic:
            raise _invalid(
                "compensation", "escape penalties go to players only at a table of four, two decks"
            )
        bonus = self.small_side_bonus
        if not _whole(bonus) or bonus < 0 or (bonus and self.mode != "friends"):
            raise _invalid(
                "small_side_bonus", f"small-side bonus {bonus!r} is not 0 or more in 找朋友"
            )

    def _derive_friends_result(self) -> None:
        """找朋友: the sides are the final defenders (the dealer and the friends revealed) and
        everyone else; the points decide which side wins (RULES-SPEC.md §9.2 Scoring, §3)."""
        if self.dealer is None:
            raise _invalid("dealer", "a finished 找朋友 hand needs its dealer")
        if self.winner_side is not None:
            raise _invalid("winner_side", "找朋友 has no fixed sides: give defenders instead")
        defenders = self.defenders
        if defenders is None or isinstance(defenders, str) or not isinstance(defenders, Iterable):
            raise _invalid("defenders", "a finished 找朋友 hand needs its defending side")
        side = tuple(sorted(set(defenders)))
        for seat in side:
            _check_seat("defenders", seat, self.players)
        if (
            len(side) != len(tuple(defenders))
            or self.dealer not in side
            or len(side) >= self.players
        ):
            raise _invalid(
                "defenders", "the defenders are the dealer and their friends, each once, not all"
            )
        object.__setattr__(self, "defenders", side)
        attacker_points = _checked_points(self.attacker_points)
        defenders_won, levels = defenders_win(attacker_points, self.decks, self.score_bands)
        if self.levels_gained is not None and self.levels_gained != levels:
            raise _invalid(
                "levels_gained", f"{attacker_points} attacker points give {levels} levels"
            )
        if self.small_side_bonus and not defenders_won:
            raise _invalid("small_side_bonus", "only defenders who win get the small-side bonus")
        object.__setattr__(self, "levels_gained", levels)
        self._check_winning_seats()

    def _check_winning_seats(self) -> None:
        winners = self.winners
        if self.winning_seats is not None:
            if tuple(sorted(self.winning_seats)) != winners:
                raise _invalid(
                    "winning_seats",
                    f"the points make seats {list(winners)} win, not {self.winning_seats}",
                )
            object.__setattr__(self, "winning_seats", winners)

    def _derive_result(self) -> None:
        self._derive_tractor_result()
        self._check_winning_seats()

    def _derive_tractor_result(self) -> None:
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
                raise _invalid(
                    "levels_gained", "defenders go up at least 1 level (RULES-SPEC.md §5.6)"
                )
            return
        attacker_points = _checked_points(self.attacker_points)
        defenders_won, levels = defenders_win(attacker_points, self.decks, self.score_bands)
        winner = self.dealer_side if defenders_won else 1 - self.dealer_side
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
        if self.mode == "friends":
            return self.dealer in self.winners
        return self.winner_side == self.dealer_side

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats that won a normal hand, in seat order (none on an escape or void)."""
        return self._sides()[0]

    @property
    def losers(self) -> tuple[int, ...]:
        return self._sides()[1]

    def _sides(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        if self.kind != "normal":
            return (), ()
        seats = range(self.players)
        if self.mode == "friends":
            side = self.defenders or ()
            attackers = tuple(seat for seat in seats if seat not in side)
            defenders_won = defenders_win(self.attacker_points or 0, self.decks, self.score_bands)[
                0
            ]
            return (side, attackers) if defenders_won else (attackers, side)
        winner = self.winner_side
        return (
            tuple(seat for seat in seats if seat % 2 == winner),
            tuple(seat for seat in seats if seat % 2 != winner),
        )

    @property
    def levels(self) -> int:
        """The levels the winners go up: those gained, and in 找朋友 the small-side bonus."""
        return (self.levels_gained or 0) + self.small_side_bonus

    @property
    def is_classic(self) -> bool:
        """Four players, two decks, tractor: the only shape of a ranked table."""
        return self.players == 4 and self.decks == 2 and self.mode == "tractor"

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(range(self.players))

    @property
    def level_slots(self) -> int:
        """Levels are kept per side (2) in tractor mode and per player in 找朋友."""
        return self.players if self.mode == "friends" else 2

    def level_of(self, seat: int) -> str:
        """The level ``seat`` held at the hand's start (its side's, or its own in 找朋友)."""
        return self.levels_at_start[seat if self.mode == "friends" else seat % 2]

    def wrapped_of(self, seat: int) -> bool:
        return self.wrapped[seat if self.mode == "friends" else seat % 2]


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


class SettlementError(ValueError):
    """A refused outcome or ruleset: ``code`` is stable (``outcome_invalid``, ``ruleset_invalid``,
    ``hand_not_finished``), the message is English for people, ``fields`` name what is wrong."""

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields


def defenders_win(
    attacker_points: int, decks: int, bands: ScoreBands | None = None
) -> tuple[bool, int]:
    """(defenders win?, levels the winner goes up): the engine's `level_change` (RULES-SPEC.md
    §5.6, §9.2 Scoring; the table's level bands, §10.4) read as the settlement needs it."""
    winner, levels = level_change(attacker_points, decks, bands)
    return winner == DEFENDERS, levels


def rank_index(rank: str) -> int:
    """A level's place, 2 → 0 … A → 12, NT → 13 (RULES-SPEC.md §10.5)."""
    return LEVELS.index(rank)


def percent_of(amount: int, percent: int) -> int:
    """`amount × percent %`, rounded half up to whole points (only ever used on amounts ≥ 0)."""
    return (amount * percent + 50) // 100


def ratio_percent(levels_at_start: tuple[str, ...], wrapped: tuple[bool, ...]) -> int:
    """The ratio of the highest level held (by either side, or by anyone in 找朋友); a side or
    player past A keeps A's 220 %, and NT pays as A (RULES-SPEC.md §10.5)."""
    effective = [
        "A" if past or rank == NT else rank
        for rank, past in zip(levels_at_start, wrapped, strict=True)
    ]
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
    (`ratio_fee_lines`, taken from what each winner finally gains) and balances. Each scheme's
    amount is its 2-against-2 amount G, spread between the sides (`spread`); title points only
    at four players, two decks (ranked tables are never another shape)."""
    lines: list[Line] = []
    scheme = outcome.settlement
    if scheme == "ratio":
        lines += spread(outcome, ratio_gross(outcome))
    elif scheme == "levels":
        lines += spread(outcome, outcome.stake * steps(outcome))
    elif scheme == "table":
        lines += spread(outcome, 5 * (settled_levels(outcome) + 1))
        lines += table_bonus_lines(outcome)
    else:
        lines += spread(outcome, outcome.stake * steps(outcome))
        lines += _per_player_fees(outcome)
    if outcome.levels and outcome.is_classic:
        lines += [Line(seat, TITLE_POINTS, outcome.levels) for seat in outcome.winners]
        lines += [Line(seat, TITLE_POINTS, -outcome.levels) for seat in outcome.losers]
    return lines


def spread(
    outcome: HandOutcome,
    amount: int,
    winners: tuple[int, ...] | None = None,
    losers: tuple[int, ...] | None = None,
    kind: str = TABLE_POINTS,
) -> list[Line]:
    """A 2-against-2 amount G between the winners and the losers at P players (RULES-SPEC.md §9
    §5): `2G / P` between every winner and every loser, so a winner gains `losers × 2G / P` and
    a loser pays `winners × 2G / P`; at four players, two against two, exactly G.

    In whole points (docs/LADDER.md, "Bigger tables"): the hand moves `T = ⌊2G × W × L / P⌋`
    in all; each side shares T equally, and the points left over when T does not divide go one
    each to the side's seats nearest after the dealer in play order. Every seat is then within
    one point of its exact share, and the lines sum to 0. When the sides are equal (every
    tractor table) T = G × W and every share is exactly G."""
    winners = outcome.winners if winners is None else winners
    losers = outcome.losers if losers is None else losers
    if not winners or not losers or not amount:
        return []
    total = 2 * amount * len(winners) * len(losers) // outcome.players
    gains = equal_shares(total, play_order(outcome, winners))
    losses = equal_shares(total, play_order(outcome, losers))
    return [Line(seat, kind, share) for seat, share in gains if share] + [
        Line(seat, kind, -share) for seat, share in losses if share
    ]


def equal_shares(total: int, seats: list[int]) -> list[tuple[int, int]]:
    """`total` shared equally by `seats`; the points left over go one each to the first."""
    base, left = divmod(total, len(seats))
    return [(seat, base + (1 if index < left else 0)) for index, seat in enumerate(seats)]


def play_order(outcome: HandOutcome, seats: Iterable[int]) -> list[int]:
    """`seats` in play order from the seat after the dealer (from seat 0 if none is known)."""
    start = 0 if outcome.dealer is None else outcome.dealer + 1
    return sorted(seats, key=lambda seat: (seat - start) % outcome.players)


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
    for seat in outcome.winners:
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
            lines += [Line(seat, kind, -amount) for seat in outcome.seats]
            lines.append(Line(None, kind, amount * outcome.players))
    return lines


def table_bonus_lines(outcome: HandOutcome) -> list[Line]:
    """`table` (002): the first side to reach 8 (A) gets 25 (50) each, the other side 15 (30),
    settled between the sides: the other side pays each player of the first the difference, 10
    (20). The house pays nothing (docs/LADDER.md, "Invariants").

    Read from the levels at the hand's start and the levels the winner goes up: the winner
    reaches R in this hand when it held less than R and goes up to R or past it; it is first when
    the other side also held less than R. A side that has wrapped past A earns no bonus again.

    Read seat by seat (levels are per player in 找朋友): the difference is a 2-against-2 amount
    `spread` between the winners who reach R in this hand and the losers who held less than R,
    so at four players it is exactly the rule above.
    """
    lines: list[Line] = []
    for rank, first_amount, other_amount in TABLE_BONUSES:
        target = rank_index(rank)
        reached = tuple(seat for seat in outcome.winners if reaches(outcome, seat, target))
        behind = tuple(
            seat
            for seat in outcome.losers
            if rank_index(outcome.level_of(seat)) < target and not outcome.wrapped_of(seat)
        )
        lines += spread(outcome, first_amount - other_amount, reached, behind, BONUS)
    return lines


def reaches(outcome: HandOutcome, seat: int, target: int) -> bool:
    """Whether ``seat``'s level reaches the level of index ``target`` in this hand: it held
    less, had not wrapped past A, and goes up to it or past it (by the gain; under a house
    rule of levels, by where its level went)."""
    start = rank_index(outcome.level_of(seat))
    if start >= target or outcome.wrapped_of(seat):
        return False
    after = outcome.levels_after
    if not outcome.house_level_rules or after is None:
        return target <= start + outcome.levels
    index = seat if outcome.mode == "friends" else seat % 2
    passed_top = outcome.wrapped_after is not None and outcome.wrapped_after[index]
    return passed_top or rank_index(after[index]) >= target


# ---------------------------------------------------------------------------------------------
# Escapes


def escape_lines(outcome: HandOutcome, escaper: int) -> list[Line]:
    """What an escaper is charged under `escape_penalty`, and who gets it (RULES-SPEC.md §7).

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
        gain, fee, _loss = one_level(outcome)
        charge = escape_paid(outcome)
        lines = [Line(escaper, ESCAPE_PENALTY, -charge)]
        lines += [Line(seat, ESCAPE_COMPENSATION, gain) for seat in opponents]
        lines.append(Line(None, ESCAPE_PENALTY, charge - 2 * gain))
        if fee:
            lines += [Line(seat, FEE, -fee) for seat in opponents]
            lines.append(Line(None, FEE, 2 * fee))
        return lines
    if penalty == "fixed_40":
        amount = escape_paid(outcome)
        return [Line(escaper, ESCAPE_PENALTY, -amount), Line(None, ESCAPE_PENALTY, amount)]
    if penalty == "nine_stakes":
        others = (*opponents, partner)
        return [Line(escaper, ESCAPE_PENALTY, -escape_paid(outcome))] + [
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


def relief_grant(balance: int, floor: int, most: int) -> int:
    """The daily relief grant (救济) to a balance below ``floor``: it tops the balance up to
    ``floor``, never more than ``most`` (docs/LADDER.md, "Relief never rewards an escape").
    Balance after relief, ``balance + relief_grant(balance, …)``, never decreases as the
    balance before it grows: whoever holds less before relief never holds more after it, so an
    escape that costs more than staying and losing stays costlier, relief included."""
    return max(0, min(most, floor - balance))


def no_show_fee(stake: int, balance: int) -> int:
    """What a quick-match no-show pays: one stake of the table (S; 50 at quick match's stake),
    never more than the player holds."""
    return max(0, min(stake, balance))


# ---------------------------------------------------------------------------------------------
# The most one hand can take


def most_played_loss(
    settlement: str, stake: int, fees: FeeSchedule, players: int = 4, mode: str = "tractor"
) -> int:
    """The most a hand played to its end takes from one seat (a loser's): the scheme's amount
    at the highest ratio and `LEVELS_SETTLED_MAX` levels, with the attackers' extra step, the
    `table` bonuses (8 and A in one hand) and the per-player fees. At a bigger table each 2-
    against-2 amount is what one loser pays of it at most (`most_paid_by_a_loser`: in 找朋友 a
    lone dealer beaten by the other P − 1 pays `(P − 1) × 2G / P`)."""
    levels = LEVELS_SETTLED_MAX
    if settlement == "ratio":
        amounts = [percent_of(stake, max(RATIO_PERCENT.values())) + stake * levels]
    elif settlement == "levels":
        amounts = [stake * (levels + 1)]
    elif settlement == "table":
        amounts = [5 * (levels + 1), *(first - other for _, first, other in TABLE_BONUSES)]
    else:
        amounts = [stake * (levels + 1)]
    played = sum(most_paid_by_a_loser(amount, players, mode) for amount in amounts)
    if settlement == "stake_steps":
        played += fees.table_fee + service_fee(stake, fees.service_percent)
    return played


def most_paid_by_a_loser(amount: int, players: int = 4, mode: str = "tractor") -> int:
    """The most one loser pays of a 2-against-2 amount `amount` spread at this shape (`spread`,
    its rounding included): tractor sides are equal (exactly `amount`); in 找朋友 every split of
    winners and losers is tried, parts of the table included (the `table` bonuses)."""
    if mode == "tractor":
        return amount
    splits = [(w, lost) for w in range(1, players) for lost in range(1, players - w + 1)]
    return max(-(-(2 * amount * w * lost // players) // lost) for w, lost in splits)


def escaper_charge(outcome: HandOutcome) -> int:
    """The table points the settlement of this escaped hand takes from its escaper, every line
    of theirs counted (`settle_hand` itself, for a seat holding what the table needs). What a
    player is told an escape costs, on the table page's warning and its rules card, is this
    function's answer (docs/LADDER.md, "What an escape costs"): the quote and the charge are
    one computation. It does not depend on which seat escapes, nor on the others' balances."""
    if outcome.kind != "escape" or outcome.escaper_seat is None:
        raise _invalid("kind", "only an escaped hand has an escaper to charge")
    rich = SeatState(human=True, balance=10**15)
    lines = settle_hand(outcome, {seat: rich for seat in outcome.seats})
    return -table_net(lines, outcome.escaper_seat)


def escape_outcome(
    *,
    settlement: str,
    escape_penalty: str,
    stake: int,
    fees: FeeSchedule,
    levels: tuple[str, ...] = ("2", "2"),
    wrapped: tuple[bool, ...] | None = None,
    players: int = 4,
    decks: int = 2,
    mode: str = "tractor",
    ranked: bool = False,
) -> HandOutcome:
    """An escape by seat 0 at a table of these rules, with these levels held at the hand's
    start (one per side, or one per player in 找朋友; a single level is held by all)."""
    slots = players if mode == "friends" else 2
    held = tuple(levels) * slots if len(levels) == 1 else tuple(levels)
    classic = (players, decks, mode) == (4, 2, "tractor")
    return HandOutcome(
        kind="escape",
        settlement=settlement,
        escape_penalty=escape_penalty,
        stake=stake,
        levels_at_start=held,
        wrapped=wrapped if wrapped is not None else (False,) * slots,
        escaper_seat=0,
        fees=fees,
        compensation="players" if ranked and classic else "house",
        players=players,
        decks=decks,
        mode=mode,
    )


def escape_charge(settlement: str, escape_penalty: str, stake: int, fees: FeeSchedule) -> int:
    """What an escaper (or a player absent at the end) pays under `escape_penalty` at most:
    `escaper_charge` with A held (the highest ratio)."""
    return escape_charge_range(settlement, escape_penalty, stake, fees)[1]


def escape_charge_range(
    settlement: str, escape_penalty: str, stake: int, fees: FeeSchedule
) -> tuple[int, int]:
    """(least, most) an escaper pays under `escape_penalty` at this stake, `escaper_charge` at
    levels 2 and A: `triple` under `ratio` depends on the levels held (ratio 100 % at 2–3 up to
    220 % at A); the others are fixed."""
    _check_choice("settlement", settlement, SETTLEMENTS)
    _check_choice("escape_penalty", escape_penalty, ESCAPE_PENALTIES)
    least, most = (
        escaper_charge(
            escape_outcome(
                settlement=settlement,
                escape_penalty=escape_penalty,
                stake=stake,
                fees=fees,
                levels=(level,),
            )
        )
        for level in ("2", "A")
    )
    return least, most


def max_hand_loss(
    *,
    settlement: str,
    escape_penalty: str,
    stake: int,
    fees: FeeSchedule | None = None,
    players: int = 4,
    mode: str = "tractor",
) -> int:
    """The most one hand, played out or escaped, can take from a seat's table points: a loss
    played to the end and then the escape penalty as a player absent at the end (RULES-SPEC.md §7).
    A player may sit, and a hand may start, only when every human holds at least this (docs/
    LADDER.md); `tests/settlement/test_trust_max_loss.py` and `test_shapes_settlement.py` check
    that no outcome takes more."""
    _check_choice("settlement", settlement, SETTLEMENTS)
    _check_choice("escape_penalty", escape_penalty, ESCAPE_PENALTIES)
    _check_choice("mode", mode, MODES)
    fees = fees or FeeSchedule()
    played = most_played_loss(settlement, stake, fees, players, mode)
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
    if sorted(seats) != list(outcome.seats):
        raise _invalid("seats", f"the hand has seats 0–{outcome.players - 1}, not {sorted(seats)}")
    if outcome.kind == "void" or not all(seats[seat].human for seat in outcome.seats):
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
    present = sorted({line.seat for line in kept if line.seat is not None})
    nets = {seat: transfer_net(kept, seat) for seat in present}
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
    return (MAX_PLAYERS if line.seat is None else line.seat, HAND_KINDS.index(line.kind))


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
    """A loss of title points stops at 0 (RULES-SPEC.md §6)."""
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
    for seat in sorted(seats):
        if seats[seat].human:
            owed = -table_net(lines, seat)
            if owed > seats[seat].balance:
                shortfalls[seat] = owed - max(seats[seat].balance, 0)
    total = sum(shortfalls.values())
    if not total:
        return []
    receivers: list[tuple[int | None, int]] = [
        (seat, table_net(lines, seat))
        for seat in (*sorted(seats), None)
        if table_net(lines, seat) > 0
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
    ``ranked`` False (a casual table): escape penalties go to the house alone; so they do at
    any table of another shape than four players, two decks, tractor (ranked tables are only
    that shape; docs/LADDER.md, "Bigger tables")."""
    if status == "playing":
        raise SettlementError("hand_not_finished", "the hand is still being played")
    result = dict(result or {})
    ruleset = rule_options(ruleset)
    players, decks, mode = record_shape(result, ruleset)
    friends = mode == "friends"
    classic = (players, decks, mode) == (4, 2, "tractor")
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
        result, "dealer_side", None if dealer_seat is None or friends else dealer_seat % 2
    )
    slots = players if friends else 2
    wrapped = hand_wrapped if hand_wrapped and len(hand_wrapped) == slots else (False,) * slots
    played = kind == "normal"
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
        levels_at_start=result.get("levels_at_start") or hand_levels or ("2",) * slots,
        levels_after=result.get("levels_after"),
        wrapped=_result_value(result, "wrapped", wrapped),
        escaper_seat=escaper,
        absent_seats=tuple(sorted({*result.get("absent_seats", ()), *absent_seats})),
        fees=replace(fees, table_fee=int(ruleset.get("table_fee", fees.table_fee))),
        compensation="players" if ranked and classic else "house",
        players=players,
        decks=decks,
        mode=mode,
        dealer=dealer_seat,
        defenders=_seats_or_none(result.get("defenders")) if played and friends else None,
        winning_seats=_seats_or_none(result.get("winning_seats")) if played and friends else None,
        small_side_bonus=result.get("small_side_bonus") or 0 if played and friends else 0,
        house_level_rules=house_level_rules(ruleset),
        wrapped_after=_flags_or_none(result.get("wrapped_after")),
        score_bands=score_bands_of(ruleset),
    )


BAND_DEFAULTS = ScoreBands()


def score_bands_of(options: Mapping[str, Any]) -> ScoreBands | None:
    """A stored ruleset's level bands (RULES-SPEC.md §10.4), None when it has §9.2.9's (a
    ruleset writes the band options only when they differ from those)."""
    bands = ScoreBands(
        step_points=int(options.get("step_points", BAND_DEFAULTS.step_points)),
        takeover_steps=int(options.get("takeover_steps", BAND_DEFAULTS.takeover_steps)),
        deadzone_steps=int(options.get("deadzone_steps", BAND_DEFAULTS.deadzone_steps)),
        zero_bonus=bool(options.get("zero_bonus", BAND_DEFAULTS.zero_bonus)),
    )
    return None if bands == BAND_DEFAULTS else bands


def house_level_rules(options: Mapping[str, Any]) -> bool:
    """Whether a stored ruleset moves levels otherwise than by the gain (RULES-SPEC.md §10.6,
    §10.7)."""
    return bool(
        options.get("advancement", "free") != "free" or options.get("jack_rule", "off") != "off"
    )


def _flags_or_none(value: Any) -> tuple[bool, ...] | None:
    if value is None or isinstance(value, str) or not isinstance(value, Iterable):
        return None
    return tuple(bool(flag) for flag in value)


def _seats_or_none(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise _invalid("defenders", f"{value!r} is not a list of seats")
    return tuple(value)


SHAPE_DEFAULTS: dict[str, Any] = {"players": 4, "decks": 2, "mode": "tractor"}


def record_shape(result: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[int, int, str]:
    """(players, decks, mode) of a stored hand: its result's, else its rules' (a classic hand
    names neither: 4, 2, tractor). The result and the rules must agree where both say."""
    shape = []
    for key, default in SHAPE_DEFAULTS.items():
        in_result, in_rules = result.get(key), options.get(key)
        if in_result is not None and in_rules is not None and in_result != in_rules:
            raise _invalid(key, f"the result says {key} {in_result!r}, the rules {in_rules!r}")
        shape.append(
            in_result if in_result is not None else in_rules if in_rules is not None else default
        )
    players, decks, mode = shape
    if not _whole(players) or not _whole(decks) or mode not in MODES:
        raise _invalid("players", f"shape {players!r} players, {decks!r} decks, {mode!r}")
    return players, decks, mode


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
        # A classic hand's outcome is stored as before; another shape's with its shape, its
        # sides and who won (`winner_side` is None in 找朋友).
        **({} if outcome.is_classic else shape_as_json(outcome)),
        **house_as_json(outcome),
    }


def house_as_json(outcome: HandOutcome) -> dict[str, Any]:
    """The house rules' inputs (RULES-SPEC.md §10), only where a table sets them."""
    data: dict[str, Any] = {}
    bands = outcome.score_bands
    if bands is not None:
        data["score_bands"] = {
            "step_points": bands.step_points,
            "takeover_steps": bands.takeover_steps,
            "deadzone_steps": bands.deadzone_steps,
            "zero_bonus": bands.zero_bonus,
        }
    if outcome.house_level_rules:
        wrapped_after = outcome.wrapped_after
        data["house_level_rules"] = True
        data["wrapped_after"] = None if wrapped_after is None else list(wrapped_after)
    return data


def shape_as_json(outcome: HandOutcome) -> dict[str, Any]:
    return {
        "players": outcome.players,
        "decks": outcome.decks,
        "mode": outcome.mode,
        "dealer": outcome.dealer,
        "defenders": None if outcome.defenders is None else list(outcome.defenders),
        "winning_seats": list(outcome.winners),
        "small_side_bonus": outcome.small_side_bonus,
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
        raise SettlementError("ruleset_invalid", f"the hand's ruleset has no {key!r}", field=key)
    return str(value)


def normalise_rank(value: Any) -> str:
    """A level as a rank letter: accepts "2".."9", "T"/"10", "J", "Q", "K", "A" and 2..14, and
    "NT" (RULES-SPEC.md §10.5)."""
    if isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 14:
        return RANKS[value - 2]
    text = str(value).strip().upper()
    text = "T" if text == "10" else text
    if text not in LEVELS:
        raise _invalid("levels", f"{value!r} is not a level (2 … A, NT)")
    return text


def _levels_tuple(value: Any, count: int) -> tuple[str, ...]:
    if isinstance(value, str) or len(value) != count:
        raise _invalid("levels", f"{value!r} is not one level per side (per player in 找朋友)")
    return tuple(normalise_rank(rank) for rank in value)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _checked_points(attacker_points: object) -> int:
    if (
        not isinstance(attacker_points, int)
        or isinstance(attacker_points, bool)
        or attacker_points < 0
        or attacker_points % 5
    ):
        raise _invalid(
            "attacker_points", f"attacker points {attacker_points!r} are not a multiple of 5"
        )
    return attacker_points


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise _invalid(name, f"{name} {value!r} is not one of {', '.join(choices)}")


def _check_seat(name: str, value: object, players: int = 4) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise _invalid(name, f"{name} {value!r} is not a seat 0–{players - 1}")


def _invalid(name: str, message: str) -> SettlementError:
    return SettlementError("outcome_invalid", message, field=name)
