"""Where an account's events end its sessions: Django's own views and the admin change the
account, so their signals are the hooks, listened to here by the games (accounts, a floor
below, never calls them: docs/ARCHITECTURE.md, "Floors"); each receiver only calls the services
(games/services/connections.py; docs/PROTOCOL.md, "Sessions end with the account").

- log-out (``user_logged_out``): that session's sockets close;
- a password set (the password change and reset views, the admin's form; any save after
  ``set_password``): every session's sockets close, as the password's hash ends the sessions,
  and the API token is revoked (``accounts.services.api_token_revoke``);
- the account made inactive (a ban, ``accounts.services.user_ban``, or the admin unticking
  "active"): the account leaves its seats (an absentee in a hand in progress) and the queue,
  its sockets are told why and close, and its API token is revoked;
- the account removed: likewise, and its sockets close.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import post_delete, post_save, pre_delete
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.models import User
from accounts.services import api_token_revoke
from games import services


@receiver(user_logged_out, dispatch_uid="games.sessions_end.logged_out")
def logged_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    key = None if request is None else request.session.session_key
    if user is not None and key:
        services.sessions_end(user_id=user.pk, code=services.SESSION_ENDED, session_key=key)


@receiver(post_save, sender=User, dispatch_uid="games.sessions_end.saved")
def user_saved(
    sender: Any, instance: User, created: bool, update_fields: Any = None, **kwargs: Any
) -> None:
    if created:
        return
    if not instance.is_active and (update_fields is None or "is_active" in update_fields):
        services.user_seats_vacate(user_id=instance.pk)
        api_token_revoke(user_id=instance.pk)
        services.sessions_end(
            user_id=instance.pk, code=services.ACCOUNT_SUSPENDED, reason=instance.ban_reason
        )
    elif getattr(instance, "_password", None) is not None:  # set_password(), not a hash upgrade
        api_token_revoke(user_id=instance.pk)
        services.sessions_end(user_id=instance.pk, code=services.SESSION_ENDED)


@receiver(pre_delete, sender=User, dispatch_uid="games.sessions_end.deleting")
def user_deleting(sender: Any, instance: User, **kwargs: Any) -> None:
    services.user_seats_vacate(user_id=instance.pk)


@receiver(post_delete, sender=User, dispatch_uid="games.sessions_end.deleted")
def user_deleted(sender: Any, instance: User, **kwargs: Any) -> None:
    services.sessions_end(user_id=instance.pk, code=services.SESSION_ENDED)
