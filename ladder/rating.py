"""Skill rating: OpenSkill's Plackett-Luce model on 2v2 hand results, as pure functions.

A rating is (mu, sigma); it is shown as its ordinal mu − 3·sigma and is provisional while sigma is
above `LADDER_RATING_PROVISIONAL_SIGMA`. Ratings are applied in the order hands are settled,
which is the order they finish (settlement runs in the transaction that finishes the hand).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()  # mu 25, sigma 25/3, beta 25/6, tau 25/300


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)


@dataclass(frozen=True)
class RatedSeat:
    """A seat for the rating: its player's current rating (None for a bot seat) and whether a
    bot played it for more than half its turns (which earns no title points for a win, but
    moves the rating as if played: docs/LADDER.md, "Seats the bot played")."""

    rating: Rating | None
    bot_played: bool = False


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3.0 * sigma


def default_rating() -> Rating:
    return Rating(MODEL.mu, MODEL.sigma)


def is_provisional(sigma: float, threshold: float) -> bool:
    return sigma >= threshold


def bot_played(turns: int, auto_turns: int) -> bool:
    """More than half of the seat's turns were played by the bot (timeouts included)."""
    return auto_turns * 2 > turns


def rate_hand(seats: Mapping[int, RatedSeat], winner_side: int) -> dict[int, Rating]:
    """New ratings after a hand won by `winner_side`: every human seat moves.

    A seat the bot played for most of its turns (托管, timeouts, a takeover while away) is
    rated as if its human had played it: handing the seat to the bot never shields a rating,
    and the partner who played is rated as usual (docs/LADDER.md, "Seats the bot played").
    A bot seat (no human; only a practice hand has one) counts with a fresh default rating.
    """
    teams = [[_rating_of(seats[seat]) for seat in (side, side + 2)] for side in (0, 1)]
    ranks: list[float] = [0.0 if side == winner_side else 1.0 for side in (0, 1)]
    new = _rate(teams, ranks)
    moved: dict[int, Rating] = {}
    for side in (0, 1):
        for member, seat in enumerate((side, side + 2)):
            if seats[seat].rating is not None:
                moved[seat] = new[side][member]
    return moved


def rate_escape(seats: Mapping[int, RatedSeat], escaper: int) -> dict[int, Rating]:
    """An escape: the escaper's side is rated as losing, and only the escaper's rating moves."""
    side = escaper % 2
    if seats[escaper].rating is None:
        return {}
    teams = [[_rating_of(seats[seat]) for seat in (s, s + 2)] for s in (0, 1)]
    ranks: list[float] = [1.0 if s == side else 0.0 for s in (0, 1)]
    new = _rate(teams, ranks)
    return {escaper: new[side][0 if escaper == side else 1]}


def _rating_of(seat: RatedSeat) -> Rating:
    return seat.rating if seat.rating is not None else default_rating()


def _rate(teams: list[list[Rating]], ranks: list[float]) -> list[list[Rating]]:
    model_teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in team] for team in teams]
    rated = MODEL.rate(model_teams, ranks=ranks)
    return [[Rating(p.mu, p.sigma) for p in team] for team in rated]
