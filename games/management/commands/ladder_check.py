"""Prove the ladder's invariants (docs/LADDER.md, "Invariants"): `manage.py ladder_check`.

Checks each user's table points and title points against the sums of their ledger entries (and
that none is negative), every entry's `balance_after` against the running sum of its account,
that every hand's table-point entries (the house's included) sum to zero, whatever its number
of seats, that the house never pays (its rows are positive fees and escape penalties only),
that no `shortfall` row was ever written, that no practice hand (a bot seated at its start)
moved points or ratings, that every row of a hand is the house's or one of its players', that
no hand of 5–8 players, more decks or 找朋友 moved title points, ratings or escape
compensation (ranked play is four players, two decks), that
nobody had the relief grant more often than the daily limit nor past its top-up to the
threshold, that every relief grant has its claim and no network address had more than its
daily limit of them (docs/LADDER.md, "Relief per address"), and that every quick-match
no-show row is a charge of at most the quick-match stake. Exits with status 1 and lists what
is wrong otherwise. `--since-hand N` limits the per-hand checks to hands after N (history
already reviewed); balances are always checked in full.

It also lists, for review and without failing, the groups of four accounts quick match seated
together at least `--foursome-min` times (3) in the last `--foursome-days` days (7): docs/
LADDER.md, "Repeated foursomes".
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from games.history import ledger_problems
from games.matchmaking import FOURSOME_REPEAT_MIN, FOURSOME_WINDOW_DAYS, foursomes_repeated
from ladder.models import LedgerEntry
from ladder.selectors import LedgerProblem


def _no_show_problems() -> list[LedgerProblem]:
    """A `no_show` row is a charge of a player, with no hand, of at most the quick-match stake
    (docs/LADDER.md, "Quick-match no-shows"); the database's constraint says the first two."""
    most = settings.SHENGJI_QUICK_MATCH_STAKE
    rows = (
        LedgerEntry.objects.filter(kind=LedgerEntry.Kind.NO_SHOW)
        .filter(Q(amount__gte=0) | Q(amount__lt=-most) | Q(hand__isnull=False) | Q(user=None))
        .order_by("id")
        .values_list("user_id", "id", "amount")[:1000]
    )
    return [
        LedgerProblem(user_id, f"entry {entry_id}: no-show charge {amount:+d}")
        for user_id, entry_id, amount in rows
    ]


class Command(BaseCommand):
    help = "Check the ladder's invariants: balances, hands that balance, a house that never pays."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--since-hand",
            type=int,
            default=0,
            help="check per-hand invariants only for hands with a higher id",
        )
        parser.add_argument(
            "--foursome-days",
            type=int,
            default=FOURSOME_WINDOW_DAYS,
            help="review window for groups of four seated together by quick match",
        )
        parser.add_argument(
            "--foursome-min",
            type=int,
            default=FOURSOME_REPEAT_MIN,
            help="list a group of four seated together at least this many times",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        users, entries, problems = ledger_problems(since_hand=options["since_hand"])
        problems += _no_show_problems()
        for problem in problems:
            who = f"user {problem.user_id}" if problem.user_id is not None else "ledger"
            self.stderr.write(f"{who}: {problem.what}")
        if problems:
            self._review_foursomes(days=options["foursome_days"], at_least=options["foursome_min"])
            raise CommandError(f"{len(problems)} problem(s) in {users} users, {entries} entries")
        self.stdout.write(
            self.style.SUCCESS(
                f"ok: {users} users, {entries} ledger entries; every balance and title total "
                "equals its ledger sum and none is negative, every running balance and every "
                "hand balances, the house only receives fees, no shortfall, no practice hand "
                "moved points, no hand paid an outsider, no bigger table's hand moved title "
                "points or ratings, relief within its limits per account and per address"
            )
        )
        self._review_foursomes(days=options["foursome_days"], at_least=options["foursome_min"])

    def _review_foursomes(self, *, days: int, at_least: int) -> None:
        """Groups of four quick match seated together again and again: listed, not a failure
        (an admin looks at their hands; docs/LADDER.md, "Repeated foursomes")."""
        found = foursomes_repeated(days=days, at_least=at_least)
        self.stdout.write(
            f"review: {len(found)} group(s) of four seated together by quick match "
            f"at least {at_least} times in {days} days"
        )
        for group in found:
            users = ", ".join(str(pk) for pk in group.user_ids)
            tables = ", ".join("—" if t is None else str(t) for t in group.tables)
            self.stdout.write(
                f"  users {users}: {group.seatings} times, last {group.last_at:%Y-%m-%d %H:%M}, "
                f"tables {tables}"
            )
