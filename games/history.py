"""The ledger's history of hands: a player's settled hands and what each did to their points,
their record by shape, one hand's ledger lines, and the ledger checks that read hands and seats.

These read `Hand` and `HandPlayer` beside the ladder's tables, so they stand on the games floor,
above the ladder (docs/ARCHITECTURE.md, "Floors"); what they need of the ladder alone
(`seat_won`, `hand_replay_url`, the checks of the ladder's own tables) they import from it. Who
may see a hand is `games.selectors.hands_visible_to`, as everywhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum
from django.db.models.fields.json import KeyTextTransform
from django.utils.translation import gettext_lazy as _

from accounts.errors import ApplicationError
from accounts.models import User
from games.models import Hand, HandPlayer
from games.selectors import hands_visible_to
from ladder.models import LedgerEntry
from ladder.selectors import LedgerProblem, hand_replay_url, ledger_problems_in_ladder, seat_won
from shengji.settlement import ESCAPE_COMPENSATION, ruleset_name

# ---------------------------------------------------------------------------------------------
# A player's hands


@dataclass(frozen=True)
class HandRow:
    hand_id: int
    table_name: str
    preset: str
    seat: int
    status: str
    finished_at: datetime | None
    won: bool | None
    table_points: int
    title_points: int
    escaped: bool
    replay_url: str


def _settled_seats_seen(user: User, viewer: User | AnonymousUser) -> QuerySet[HandPlayer]:
    """The user's seats in settled hands that ``viewer`` may see (``hands_visible_to``: a hand
    of a private table or of practice only to its players and staff)."""
    seen = hands_visible_to(viewer)  # type: ignore[arg-type]
    return HandPlayer.objects.filter(user=user, hand__settlement__isnull=False, hand__in=seen)


def player_hands(
    *, user: User, viewer: User | AnonymousUser, limit: int = 20, offset: int = 0
) -> list[HandRow]:
    """The user's settled hands that ``viewer`` may see, latest first, with what each did to
    their points."""
    seats = list(
        _settled_seats_seen(user, viewer)
        .select_related("hand__match__table", "hand__settlement")
        .order_by("-hand__finished_at", "-hand_id")[offset : offset + limit]
    )
    hand_ids = [seat.hand_id for seat in seats]
    sums: dict[tuple[int, str], int] = {}
    for row in (
        LedgerEntry.objects.filter(user=user, hand_id__in=hand_ids)
        .values("hand_id", "account")
        .annotate(total=Sum("amount"))
    ):
        sums[(row["hand_id"], row["account"])] = row["total"]
    rows = []
    for seat in seats:
        hand = seat.hand
        outcome = hand.settlement.outcome
        rows.append(
            HandRow(
                hand_id=hand.pk,
                table_name=hand.match.table.display_name,
                preset=ruleset_name(hand.ruleset or {}, hand.match.table.preset),
                seat=seat.seat,
                status=hand.status,
                finished_at=hand.finished_at,
                won=seat_won(outcome, seat.seat),
                table_points=sums.get((hand.pk, LedgerEntry.Account.TABLE), 0),
                title_points=sums.get((hand.pk, LedgerEntry.Account.TITLE), 0),
                escaped=seat.escaped or seat.absent_at_end,
                replay_url=hand_replay_url(hand.pk),
            )
        )
    return rows


def player_hand_count(*, user: User, viewer: User | AnonymousUser) -> int:
    return _settled_seats_seen(user, viewer).count()


@dataclass(frozen=True)
class ShapeStat:
    """Hands played to their end and won, of one mode or one table size."""

    key: str  # "tractor" / "friends", or the number of players
    players: int | None
    played: int
    won: int

    @property
    def win_percent(self) -> int:
        return round(100 * self.won / self.played) if self.played else 0


@dataclass(frozen=True)
class ShapeStats:
    by_mode: list[ShapeStat]
    by_size: list[ShapeStat]


def player_shape_stats(*, user: User) -> ShapeStats:
    """The user's hands played to their end and won, by mode (拖拉机, 找朋友) and by number of
    players: the hands `hands_played` and `hands_won` count (settled, not practice, not
    escaped), read from the settlements. A classic hand's stored outcome names no shape: 4
    players, tractor. One grouped query: the rows are (shape, seat, who won) groups."""
    outcome = "hand__settlement__outcome"
    groups = (
        HandPlayer.objects.filter(
            user=user, hand__settlement__practice=False, hand__status=Hand.Status.FINISHED
        )
        .filter(**{f"{outcome}__kind": "normal"})
        .values_list(
            KeyTextTransform("players", outcome),
            KeyTextTransform("mode", outcome),
            "seat",
            KeyTextTransform("winner_side", outcome),
            KeyTextTransform("winning_seats", outcome),
        )
        .annotate(hands=Count("pk"))
        .order_by()
    )
    by_mode: dict[str, list[int]] = {}
    by_size: dict[int, list[int]] = {}
    for players, mode, seat, winner_side, winning_seats, hands in groups:
        stored = {
            "winner_side": None if winner_side is None else int(winner_side),
            "winning_seats": None if winning_seats is None else json.loads(winning_seats),
        }
        won = hands if seat_won(stored, seat) else 0
        for counts in (
            by_mode.setdefault(mode or "tractor", [0, 0]),
            by_size.setdefault(int(players or 4), [0, 0]),
        ):
            counts[0] += hands
            counts[1] += won
    return ShapeStats(
        by_mode=[
            ShapeStat(mode, None, *by_mode[mode])
            for mode in ("tractor", "friends")
            if mode in by_mode
        ],
        by_size=[ShapeStat(str(size), size, *by_size[size]) for size in sorted(by_size)],
    )


# ---------------------------------------------------------------------------------------------
# One hand's ledger lines


def hand_settlement_lines(
    *, hand_id: int, viewer: User | AnonymousUser
) -> tuple[Hand, list[LedgerEntry]]:
    """A hand that is over and its ledger lines; a live hand, or one ``viewer`` may not see
    (``hands_visible_to``), is answered exactly as a missing one."""
    seen = hands_visible_to(viewer)  # type: ignore[arg-type]
    hand = seen.select_related("match__table", "settlement").filter(pk=hand_id).first()
    if hand is None:
        raise ApplicationError("hand_not_found", _("no hand %(hand_id)s"), hand_id=hand_id)
    entries = list(
        LedgerEntry.objects.filter(hand_id=hand_id).select_related("user").order_by("id")
    )
    return hand, entries


# ---------------------------------------------------------------------------------------------
# The proof that balances are what the ledger sums to


def ledger_problems(*, since_hand: int = 0) -> tuple[int, int, list[LedgerProblem]]:
    """(users checked, entries checked, problems): every invariant of docs/LADDER.md. Those
    of the ladder's own tables (`ladder.selectors.ledger_problems_in_ladder`), and those that
    read the hands and their seats:

    - a practice hand (a bot seated at its start) has no ledger row and no rating change;
    - every row of a hand is the house's or a player's of that hand, at any number of seats;
    - a hand of another shape than four players, two decks, tractor moved no title points and
      no rating, paid no escape compensation and was not settled as ranked.

    The per-hand checks look at hands with an id above `since_hand` (history already reviewed).
    """
    users, entries, problems = ledger_problems_in_ladder(since_hand=since_hand)
    problems += _practice_hands_that_moved(since_hand)
    problems += _rows_of_others(since_hand)
    problems += _ranked_moves_at_bigger_tables(since_hand)
    return users, entries, problems


def _practice_hands_that_moved(since_hand: int) -> list[LedgerProblem]:
    """Hands with a bot seated at their start (or settled as practice) that moved anything."""
    practice = Q(players__user__isnull=True) | Q(settlement__practice=True)
    hands = Hand.objects.filter(practice, pk__gt=since_hand)
    moved = hands.filter(
        Q(ledger_entries__isnull=False) | Q(rating_changes__isnull=False)
    ).values_list("pk", flat=True)
    return [
        LedgerProblem(None, f"hand {hand_id}: a practice hand (a bot at its start) moved points")
        for hand_id in sorted(set(moved))[:1000]
    ]


def _rows_of_others(since_hand: int) -> list[LedgerProblem]:
    """Rows of a hand for a user who did not play in it (whatever its number of seats)."""
    seated = HandPlayer.objects.filter(hand_id=OuterRef("hand_id"), user_id=OuterRef("user_id"))
    rows = (
        LedgerEntry.objects.filter(hand_id__gt=since_hand, user__isnull=False)
        .exclude(Exists(seated))
        .order_by("id")
        .values_list("hand_id", "user_id", "kind", "amount")[:1000]
    )
    return [
        LedgerProblem(user_id, f"hand {hand_id}: {kind} {amount:+d} to a user not in the hand")
        for hand_id, user_id, kind, amount in rows
    ]


def _bigger_shape() -> Q:
    """Settlements of a hand of another shape than four players, two decks, tractor (a classic
    hand's stored outcome names no shape)."""
    outcome = "settlement__outcome"
    return (
        Q(**{f"{outcome}__players__gt": 4})
        | Q(**{f"{outcome}__decks__gt": 2})
        | Q(**{f"{outcome}__mode": "friends"})
    )


def _ranked_moves_at_bigger_tables(since_hand: int) -> list[LedgerProblem]:
    """Title points, ratings, escape compensation or a ranked settlement at a bigger table:
    ranked play is four players, two decks (RULES-SPEC.md §9.5; docs/LADDER.md)."""
    ranked_only = (
        Q(ledger_entries__kind__in=[LedgerEntry.Kind.TITLE_POINTS, ESCAPE_COMPENSATION])
        | Q(rating_changes__isnull=False)
        | Q(settlement__ranked=True)
    )
    hands = (
        Hand.objects.filter(_bigger_shape(), pk__gt=since_hand)
        .filter(ranked_only)
        .values_list("pk", flat=True)
    )
    return [
        LedgerProblem(None, f"hand {hand_id}: a bigger table's hand moved what only ranked moves")
        for hand_id in sorted(set(hands))[:1000]
    ]
