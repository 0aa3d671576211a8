from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.core.exceptions import ValidationError
from django.db import connection, models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import names

# pg_advisory_xact_lock key: name checks and the writes after them run one at a time, so two
# sign-ups with look-alike names cannot both pass (held until the transaction ends).
NAMES_LOCK = 0x4E414D45


class User(AbstractUser):
    """A player. Custom from the first migration so the ladder can hang off it freely.

    Names follow accounts/names.py: the field validators refuse invisible characters and mixed
    alphabets, ``validate_unique`` refuses a name that collides with another account's (so the
    admin's forms keep the rules too), and ``name_keys`` holds the skeletons that a new name is
    compared with."""

    username = models.CharField(
        _("username"),
        max_length=150,
        unique=True,
        help_text=_("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
        validators=[AbstractUser.username_validator, names.validate_name_text],
        error_messages={"unique": _("A user with that username already exists.")},
    )
    display_name = models.CharField(
        max_length=40,
        blank=True,
        validators=[names.validate_name_text],
        verbose_name=_("display name"),
    )
    # The confusable skeletons of the user name and display name (accounts/names.keys), kept
    # by save(): what another account's new name must not collide with.
    name_keys = ArrayField(models.TextField(), default=list, blank=True, editable=False)
    language = models.CharField(
        max_length=10,
        blank=True,
        help_text=_("Preferred interface language; empty follows the browser."),
        verbose_name=_("language"),
    )
    banned_at = models.DateTimeField(null=True, blank=True, verbose_name=_("banned at"))
    ban_reason = models.CharField(max_length=300, blank=True, verbose_name=_("ban reason"))

    class Meta(AbstractUser.Meta):
        indexes = [GinIndex(fields=["name_keys"], name="user_name_keys")]

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def is_banned(self) -> bool:
        return self.banned_at is not None

    def clean(self) -> None:
        super().clean()  # the user name NFKC-normalised
        self.display_name = names.normalize(self.display_name)

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.name_keys = names.keys_of([self.username, self.display_name])
        fields = kwargs.get("update_fields")
        if fields is not None and {"username", "display_name"} & set(fields):
            kwargs["update_fields"] = {*fields, "name_keys"}
        super().save(*args, **kwargs)

    def validate_unique(self, exclude: Any = None) -> None:
        """Django's checks, and no user name or display name that collides with another
        account's; a name that did not change is not checked again (accounts that held such
        names before the rule keep them)."""
        errors: dict[str, Any] = {}
        try:
            super().validate_unique(exclude=exclude)
        except ValidationError as error:
            errors = error.update_error_dict(errors)
        stored = (
            User.objects.filter(pk=self.pk).values("username", "display_name").first()
            if self.pk
            else None
        )
        for field in ("username", "display_name"):
            value = getattr(self, field)
            if (exclude and field in exclude) or (stored and stored[field] == value):
                continue
            if name_taken(value, exclude_pk=self.pk):
                errors.setdefault(field, []).append(name_taken_error())
        if errors:
            raise ValidationError(errors)


def name_taken(name: str, *, exclude_pk: int | None = None) -> bool:
    """Whether ``name`` collides with a user name or display name of another account. Takes
    the names lock for the rest of the transaction: the caller's write comes before anyone
    else's check."""
    keys = names.keys(name)
    if not keys:
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [NAMES_LOCK])
    others = User.objects.filter(name_keys__overlap=sorted(keys))
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    return others.exists()


def name_taken_error() -> ValidationError:
    return ValidationError(
        _("That name is taken, or looks too much like another player's name."),
        code="name_taken",
    )


class BanRecord(models.Model):
    """One ban or unban, with who did it and why: the history behind `User.banned_at`."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="ban_records",
        verbose_name=_("player"),
    )
    banned = models.BooleanField(help_text=_("on: a ban; off: an unban"), verbose_name=_("ban"))
    reason = models.CharField(max_length=300, verbose_name=_("reason"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("staff member"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("ban record")
        verbose_name_plural = _("ban records")
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason=""), name="ban_has_reason")
        ]

    def __str__(self) -> str:
        template = (
            _("ban of %(user)s: %(reason)s") if self.banned else _("unban of %(user)s: %(reason)s")
        )
        return template % {"user": self.user_id, "reason": self.reason}
