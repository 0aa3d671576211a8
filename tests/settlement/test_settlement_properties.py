"""Properties of the settlement over random results: it balances, the partner of an escaper is
never charged, no balance or title goes below 0."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.engine.cards import RANKS
from shengji.settlement import (
    ESCAPE_PENALTIES,
    FEE,
    SERVICE_FEE,
    SETTLEMENTS,
    HandOutcome,
    Line,
    SeatState,
    settle_hand,
)

ranks = st.sampled_from(RANKS)
points = st.integers(min_value=0, max_value=80).map(lambda n: 5 * n)


@st.composite
def outcomes(draw: st.DrawFn, kind: str | None = None) -> HandOutcome:
    kind = kind or draw(st.sampled_from(["normal", "escape", "void"]))
    return HandOutcome(
        kind=kind,
        settlement=draw(st.sampled_from(SETTLEMENTS)),
        escape_penalty=draw(st.sampled_from(ESCAPE_PENALTIES)),
        stake=draw(st.integers(min_value=0, max_value=1000)),
        dealer_side=draw(st.sampled_from([0, 1])),
        attacker_points=draw(points),
        levels_at_start=(draw(ranks), draw(ranks)),
        wrapped=(draw(st.booleans()), draw(st.booleans())),
        escaper_seat=draw(st.integers(min_value=0, max_value=3)),
        absent_seats=tuple(draw(st.sets(st.integers(min_value=0, max_value=3), max_size=2))),
    )


@st.composite
def seat_states(draw: st.DrawFn, bots: bool = True) -> dict[int, SeatState]:
    return {
        seat: SeatState(
            human=not (bots and draw(st.booleans()) and draw(st.booleans())),
            balance=draw(st.integers(min_value=0, max_value=5000)),
            title_points=draw(st.integers(min_value=0, max_value=20)),
        )
        for seat in range(4)
    }


def nets(lines: list[Line]) -> dict[int | None, int]:
    result: dict[int | None, int] = {}
    for line in lines:
        if not line.is_title:
            result[line.seat] = result.get(line.seat, 0) + line.amount
    return result


@settings(max_examples=400, deadline=None)
@given(outcomes(), seat_states())
def test_every_settlement_balances(outcome: HandOutcome, seats: dict[int, SeatState]) -> None:
    lines = settle_hand(outcome, seats)
    assert sum(line.amount for line in lines if not line.is_title) == 0
    for seat, state in seats.items():
        if not state.human:
            assert all(line.seat != seat for line in lines)
            continue
        assert state.balance + nets(lines).get(seat, 0) >= 0
        title = sum(line.amount for line in lines if line.seat == seat and line.is_title)
        assert state.title_points + title >= 0
    assert len({(line.seat, line.kind) for line in lines}) == len(lines)


@settings(max_examples=300, deadline=None)
@given(outcomes(kind="normal"), st.integers(min_value=0, max_value=20))
def test_winners_gains_plus_fees_equal_losers_losses(outcome: HandOutcome, title: int) -> None:
    """A hand played to the end by four humans who can pay: what the winners gain plus the fees
    the house takes equals what the losers lose (plus, under `table`, the house's bonuses)."""
    outcome = HandOutcome(**{**outcome.__dict__, "absent_seats": ()})
    seats = {seat: SeatState(human=True, balance=10**7, title_points=title) for seat in range(4)}
    lines = settle_hand(outcome, seats)
    winner = outcome.winner_side
    gains = sum(
        amount for seat, amount in nets(lines).items() if seat is not None and seat % 2 == winner
    )
    losses = -sum(
        amount for seat, amount in nets(lines).items() if seat is not None and seat % 2 != winner
    )
    fees = sum(
        line.amount for line in lines if line.seat is None and line.kind in (FEE, SERVICE_FEE)
    )
    bonuses = -sum(line.amount for line in lines if line.seat is None and line.kind == "bonus")
    assert gains + fees == losses + bonuses
    if outcome.settlement != "table":
        assert bonuses == 0
    if outcome.settlement == "ratio":
        won = [
            amount
            for seat, amount in nets(lines).items()
            if seat is not None and seat % 2 == winner
        ]
        assert min(won, default=0) >= 0  # a winner never loses on a won hand


@settings(max_examples=300, deadline=None)
@given(outcomes(kind="escape"), seat_states(bots=False))
def test_the_partner_of_an_escaper_is_never_charged(
    outcome: HandOutcome, seats: dict[int, SeatState]
) -> None:
    partner = ((outcome.escaper_seat or 0) + 2) % 4
    lines = settle_hand(outcome, seats)
    # The partner only ever receives (a share of an unpaid penalty may be missing from that).
    assert all(
        line.amount >= 0 for line in lines if line.seat == partner and line.kind != "shortfall"
    )
    assert sum(line.amount for line in lines if line.seat == partner) >= 0
    assert all(not line.is_title for line in lines)  # an escape moves no levels


@settings(max_examples=300, deadline=None)
@given(outcomes(kind="normal"), seat_states(bots=False))
def test_absent_players_partner_pays_nothing_extra(
    outcome: HandOutcome, seats: dict[int, SeatState]
) -> None:
    """Charging an absent player never charges the partner more than the hand itself did.

    Under seed 004 a waived opponent pays nothing and the house no longer makes that up: what
    the partner does not receive because of that (a negative `waived` line) is, like a
    shortfall, not a charge."""
    lines = settle_hand(outcome, seats)
    present = HandOutcome(**{**outcome.__dict__, "absent_seats": ()})
    plain = settle_hand(present, seats)
    for seat in range(4):
        if seat in outcome.absent_seats or (seat + 2) % 4 not in outcome.absent_seats:
            continue
        not_received = sum(
            line.amount for line in lines if line.seat == seat and line.kind == "waived"
        )
        assert charged(lines, seat) - min(not_received, 0) >= charged(plain, seat)


def charged(lines: list[Line], seat: int) -> int:
    """A seat's table points before shortfalls (receiving less because someone else cannot pay
    is not a charge)."""
    return sum(
        line.amount
        for line in lines
        if line.seat == seat and not line.is_title and line.kind != "shortfall"
    )
