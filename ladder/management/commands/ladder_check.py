"""Prove the ladder's invariants (docs/LADDER.md, "Invariants"): `manage.py ladder_check`.

Checks each user's table points and title points against the sums of their ledger entries (and
that none is negative), every entry's `balance_after` against the running sum of its account,
that every hand's table-point entries (the house's included) sum to zero, that the house never
pays (its rows are positive fees and escape penalties only), that no `shortfall` row was ever
written, that no practice hand (a bot seated at its start) moved points or ratings, and that
nobody had the relief grant more often than the daily limit. Exits with status 1 and lists what
is wrong otherwise. `--since-hand N` limits the per-hand checks to hands after N (history
already reviewed); balances are always checked in full.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ladder.selectors import ledger_problems


class Command(BaseCommand):
    help = "Check the ladder's invariants: balances, hands that balance, a house that never pays."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--since-hand",
            type=int,
            default=0,
            help="check per-hand invariants only for hands with a higher id",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        users, entries, problems = ledger_problems(since_hand=options["since_hand"])
        for problem in problems:
            who = f"user {problem.user_id}" if problem.user_id is not None else "ledger"
            self.stderr.write(f"{who}: {problem.what}")
        if problems:
            raise CommandError(f"{len(problems)} problem(s) in {users} users, {entries} entries")
        self.stdout.write(
            self.style.SUCCESS(
                f"ok: {users} users, {entries} ledger entries; every balance and title total "
                "equals its ledger sum and none is negative, every running balance and every "
                "hand balances, the house only receives fees, no shortfall, no practice hand "
                "moved points"
            )
        )
