"""Prove that every balance is what the ledger sums to: `manage.py ladder_check`.

Checks each user's table points and title points against the sums of their ledger entries, every
entry's `balance_after` against the running sum of its account, and that every hand's table-point
entries (the house's included) sum to zero. Exits with status 1 and lists what is wrong otherwise.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ladder.selectors import ledger_problems


class Command(BaseCommand):
    help = "Check that every user's balances equal the sums of their ledger entries."

    def handle(self, *args: Any, **options: Any) -> None:
        users, entries, problems = ledger_problems()
        for problem in problems:
            who = f"user {problem.user_id}" if problem.user_id is not None else "ledger"
            self.stderr.write(f"{who}: {problem.what}")
        if problems:
            raise CommandError(f"{len(problems)} problem(s) in {users} users, {entries} entries")
        self.stdout.write(
            self.style.SUCCESS(
                f"ok: {users} users, {entries} ledger entries; every balance and title total "
                "equals its ledger sum, every running balance and every hand balances"
            )
        )
