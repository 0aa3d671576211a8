"""The ladder's side of an account's events (accounts/events.py): a new account gets its ladder
profile, a ban hides it from the leaderboards and an unban lists it again, in the transaction
of the account's change."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.events import account_listed, account_opened
from accounts.models import User
from ladder.services import ladder_profile_open, ladder_profile_set_listed


@receiver(account_opened, dispatch_uid="ladder.profile_open")
def profile_open(sender: Any, user: User, **kwargs: Any) -> None:
    ladder_profile_open(user=user)


@receiver(account_listed, dispatch_uid="ladder.profile_listed")
def profile_listed(sender: Any, user: User, listed: bool, **kwargs: Any) -> None:
    ladder_profile_set_listed(user=user, listed=listed)
