"""Every write of accounts: sign-up, the player's settings, bans."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.models import Token

from accounts import names
from accounts.errors import ApplicationError, validation_message
from accounts.events import account_listed, account_opened
from accounts.models import BanRecord, User, name_taken

LANGUAGE_CODES = tuple(code for code, _name in settings.LANGUAGES)


def _name_checked(name: str, *, field: str, exclude_pk: int | None = None) -> None:
    """The rules of accounts/names.py: no invisible character, one alphabet, and no collision
    with another account's user name or display name."""
    try:
        names.validate_name_text(name)
    except ValidationError as error:
        raise ApplicationError(
            f"{field}_invalid", validation_message(error), field=field, reason=error.code
        ) from error
    if name_taken(name, exclude_pk=exclude_pk):
        raise ApplicationError(
            f"{field}_taken",
            _("the name '%(name)s' is taken or looks too much like another player's"),
            field=field,
            name=name,
        )


@transaction.atomic
def user_create(*, username: str, password: str, email: str = "") -> User:
    """A new account with its ladder profile and its sign-up grant of table points."""
    username = User.normalize_username(username.strip())
    email = User.objects.normalize_email(email.strip())
    if not username:
        raise ApplicationError("username_required", field="username")
    try:
        User.username_validator(username)
    except ValidationError as error:
        raise ApplicationError(
            "username_invalid", validation_message(error), field="username"
        ) from error
    if User.objects.filter(username__iexact=username).exists():
        raise ApplicationError(
            "username_taken", _("the name '%(name)s' is taken"), field="username", name=username
        )
    _name_checked(username, field="username")
    if email:
        try:
            validate_email(email)
        except ValidationError as error:
            raise ApplicationError(
                "email_invalid", validation_message(error), field="email"
            ) from error
    user = User(username=username, email=email)
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise ApplicationError(
            "password_invalid", validation_message(error), field="password"
        ) from error
    user.set_password(password)
    user.save()
    account_opened.send(sender=User, user=user)
    return user


@transaction.atomic
def user_update_settings(*, user: User, display_name: str, language: str) -> User:
    """The player's display name and interface language (empty: follow the browser)."""
    display_name = names.normalize(display_name)
    if len(display_name) > 40:
        raise ApplicationError("display_name_too_long", field="display_name")
    if language and language not in LANGUAGE_CODES:
        raise ApplicationError(
            "language_invalid", _("no language '%(language)s'"), field="language", language=language
        )
    if display_name and display_name != user.display_name:  # a name kept is not checked again
        _name_checked(display_name, field="display_name", exclude_pk=user.pk)
    user.display_name = display_name
    user.language = language
    user.save(update_fields=["display_name", "language"])
    return user


@transaction.atomic
def user_ban(*, user: User, reason: str, by: User | None) -> User:
    """Ban: the user can no longer log in (sessions and tokens stop working) and leaves the
    leaderboards; the reason is kept in the user's ban history."""
    reason = reason.strip()
    if not reason:
        raise ApplicationError("reason_required", _("a ban needs a reason"), field="reason")
    user = User.objects.select_for_update().get(pk=user.pk)
    if user.is_banned:
        raise ApplicationError(
            "already_banned", _("%(username)s is already banned"), username=user.username
        )
    if by is not None and by.pk == user.pk:
        raise ApplicationError("ban_self")
    user.banned_at = timezone.now()
    user.ban_reason = reason
    user.is_active = False
    user.save(update_fields=["banned_at", "ban_reason", "is_active"])
    BanRecord.objects.create(user=user, banned=True, reason=reason, by=by)
    account_listed.send(sender=User, user=user, listed=False)
    return user


@transaction.atomic
def user_unban(*, user: User, reason: str, by: User | None) -> User:
    """Lift a ban: the user can log in again and is listed again."""
    reason = reason.strip()
    if not reason:
        raise ApplicationError("reason_required", _("an unban needs a reason"), field="reason")
    user = User.objects.select_for_update().get(pk=user.pk)
    if not user.is_banned:
        raise ApplicationError(
            "not_banned", _("%(username)s is not banned"), username=user.username
        )
    user.banned_at = None
    user.ban_reason = ""
    user.is_active = True
    user.save(update_fields=["banned_at", "ban_reason", "is_active"])
    BanRecord.objects.create(user=user, banned=False, reason=reason, by=by)
    account_listed.send(sender=User, user=user, listed=True)
    return user


def api_token_revoke(*, user_id: int) -> None:
    """The user's API token stops working: it goes with the sessions when the password is set
    (changed, reset) or the account is made inactive (docs/LADDER.md, REST API). A script gets
    a new one with the new password."""
    Token.objects.filter(user_id=user_id).delete()
