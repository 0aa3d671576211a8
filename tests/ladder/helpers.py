"""Building hands the way the games app stores them, for the ladder's tests."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.services import user_create
from games.models import Hand, HandPlayer, Match, Table

RULESETS: dict[str, dict[str, Any]] = {
    "ranked": {"preset": "ranked", "settlement": "ratio", "escape_penalty": "triple",
               "past_ace": "match_end"},
    "seed000": {"preset": "seed000", "settlement": "levels", "escape_penalty": "triple",
                "past_ace": "match_end"},
    "seed002": {"preset": "seed002", "settlement": "table", "escape_penalty": "fixed_40",
                "past_ace": "match_end"},
    "seed003": {"preset": "seed003", "settlement": "stake_steps",
                "escape_penalty": "nine_stakes", "past_ace": "match_end"},
    "seed004": {"preset": "seed004", "settlement": "ratio", "escape_penalty": "none",
                "past_ace": "wrap"},
}  # fmt: skip

_numbers = itertools.count(1)
PASSWORD = "tractor-pairs-88"


def make_user(name: str | None = None) -> User:
    return user_create(username=name or f"player{next(_numbers)}", password=PASSWORD)


def make_users(count: int = 4) -> list[User]:
    return [make_user() for _ in range(count)]


def make_hand(
    users: Sequence[User | None],
    *,
    preset: str = "ranked",
    stake: int = 100,
    ranked: bool = True,
    status: str = Hand.Status.FINISHED,
    result: dict[str, Any] | None = None,
    dealer: int = 0,
    levels: Sequence[str] = ("2", "2"),
    escaped: Sequence[int] = (),
    absent: Sequence[int] = (),
    auto_turns: dict[int, int] | None = None,
    match: Match | None = None,
) -> Hand:
    """A hand with its table, match and four HandPlayer rows (None: a bot seat)."""
    ruleset = RULESETS[preset]
    if match is None:
        table = Table.objects.create(
            name=f"table {next(_numbers)}", preset=preset, ranked=ranked, stake=stake
        )
        match = Match.objects.create(table=table, ruleset=ruleset, levels=list(levels))
    hand = Hand.objects.create(
        match=match,
        number=match.hands.count() + 1,
        ruleset=ruleset,
        seed=next(_numbers),
        dealer=dealer,
        levels=list(levels),
        status=status,
        result=result,
        finished_at=timezone.now(),
    )
    auto_turns = auto_turns or {}
    HandPlayer.objects.bulk_create(
        HandPlayer(
            hand=hand,
            seat=seat,
            user=user,
            turns=25,
            auto_turns=25 if user is None else auto_turns.get(seat, 0),
            escaped=seat in escaped,
            absent_at_end=seat in absent,
        )
        for seat, user in enumerate(users)
    )
    return hand
