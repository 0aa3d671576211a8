"""Issue 34, finding 6: alts could feed a main account by escaping. At a private casual table
with house rules `levels` + `nine_stakes` each escape moved 9 × S from the escaper, 3 × S of it
to the main; with the sign-up grant, daily relief and ten sign-ups a day per address, about
250,000 table points a day per address. The bound (docs/LADDER.md, "No faster than play"): an
escape at a casual table moves nothing between accounts (the penalty goes to the house), and at
a ranked table what one escape gives any player is less than what one played hand can."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.core.management import call_command

from accounts.models import User
from games import services
from games.models import Hand, Seat
from ladder.models import LedgerEntry
from ladder.selectors import player_balance
from shengji.engine.cards import RANKS
from shengji.settlement import (
    ESCAPE_PENALTIES,
    SETTLEMENTS,
    HandOutcome,
    SeatState,
    settle_hand,
    table_net,
)
from tests.games.helpers import make_table, make_users

STAKE = 100
ROUNDS = 6
HUMANS = {seat: SeatState(human=True, balance=10**9) for seat in range(4)}
SOME_RANKS = ("2", "6", "7", "9", "K", "A")


@pytest.fixture(autouse=True)
def fast_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def seat_and_start(table_id: int, users: list[User]) -> Hand:
    for index, user in enumerate(users):
        if not Seat.objects.filter(table_id=table_id, user=user).exists():
            services.seat_take(table_id=table_id, user=user, index=index)
    hand = None
    for user in users:
        hand = services.seat_ready(table_id=table_id, user=user) or hand
    assert hand is not None
    return hand


@pytest.mark.django_db
def test_finding6_alts_escaping_at_a_private_table_cannot_feed_a_main() -> None:
    """The audit's table: private, casual, `levels` + `nine_stakes`, a main in seat 0 and three
    alts. Each alt escapes in turn as soon as a hand is dealt: the main gains nothing, each
    escaper pays 9 × S, all of it to the house."""
    main, *alts = make_users(4, prefix="feed")
    table = make_table(
        main,
        preset_name="seed000",
        stake=STAKE,
        unlisted=True,
        house_rules={"settlement": "levels", "escape_penalty": "nine_stakes"},
    )
    four = [main, *alts]
    start = {u.pk: player_balance(user=u) for u in four}
    for round_number in range(ROUNDS):
        hand = seat_and_start(table.pk, four)
        escaper = alts[round_number % 3]
        services.hand_leave(hand_id=hand.pk, user=escaper)
        rows = {(e.user_id, e.kind): e.amount for e in LedgerEntry.objects.filter(hand=hand)}
        assert rows == {
            (escaper.pk, "escape_penalty"): -9 * STAKE,
            (None, "escape_penalty"): 9 * STAKE,
        }
    assert player_balance(user=main) == start[main.pk]  # nothing reached the main
    for alt in alts:
        assert player_balance(user=alt) == start[alt.pk] - 2 * 9 * STAKE
    call_command("ladder_check")


def played_outcomes(settlement: str, penalty: str, stake: int) -> list[HandOutcome]:
    return [
        HandOutcome(
            kind="normal",
            settlement=settlement,
            escape_penalty=penalty,
            stake=stake,
            dealer_side=dealer_side,
            attacker_points=points,
            levels_at_start=levels,
        )
        for dealer_side in (0, 1)
        for points in range(0, 400, 5)
        for levels in itertools.product(SOME_RANKS, repeat=2)
    ]


def escape_outcomes(settlement: str, penalty: str, stake: int, ranked: bool) -> list[HandOutcome]:
    return [
        HandOutcome(
            kind="escape",
            settlement=settlement,
            escape_penalty=penalty,
            stake=stake,
            escaper_seat=escaper,
            levels_at_start=(rank, rank),
            compensation="players" if ranked else "house",
        )
        for escaper in range(4)
        for rank in RANKS
    ]


def most_gained(outcomes: list[HandOutcome]) -> int:
    """The most table points any one seat gains from one of these hands."""
    return max(
        max(table_net(settle_hand(outcome, HUMANS), seat) for seat in range(4))
        for outcome in outcomes
    )


@pytest.mark.parametrize("stake", [1, 50, 100, 1000])
@pytest.mark.parametrize("settlement", SETTLEMENTS)
@pytest.mark.parametrize("penalty", ESCAPE_PENALTIES)
def test_finding6_no_escape_at_a_casual_table_moves_points_to_anyone(
    settlement: str, penalty: str, stake: int
) -> None:
    """Every scheme and penalty a casual table can combine by house rules: whoever escapes, at
    whatever level, no seat gains a point; only the house receives."""
    for outcome in escape_outcomes(settlement, penalty, stake, ranked=False):
        lines = settle_hand(outcome, HUMANS)
        assert all(line.amount < 0 for line in lines if line.seat is not None)
        assert all(line.kind == "escape_penalty" for line in lines)


@pytest.mark.parametrize("stake", [1, 50, 100, 1000])
def test_finding6_a_ranked_escape_gives_less_than_a_played_hand(stake: int) -> None:
    """At a ranked table (quick match's rules, `ratio` + `triple`; no house rules) an escape
    compensates the opponents; what one of them gains is less than what one played hand can
    give a winner at the same stake: 3.2 S − 10 at most against 6.2 S − 10."""
    escape = most_gained(escape_outcomes("ratio", "triple", stake, ranked=True))
    played = most_gained(played_outcomes("ratio", "triple", stake))
    assert escape < played or escape == played == 0
    assert played == 62 * stake // 10 - min(10, 62 * stake // 10)
