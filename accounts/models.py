from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone


class User(AbstractUser):
    """A player. Custom from the first migration so the ladder can hang off it freely."""

    display_name = models.CharField(max_length=40, blank=True)
    language = models.CharField(
        max_length=10,
        blank=True,
        help_text="Preferred interface language (zh-hans, zh-hant, en); empty follows the browser.",
    )
    banned_at = models.DateTimeField(null=True, blank=True)
    ban_reason = models.CharField(max_length=300, blank=True)

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def is_banned(self) -> bool:
        return self.banned_at is not None


class BanRecord(models.Model):
    """One ban or unban, with who did it and why: the history behind `User.banned_at`."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ban_records"
    )
    banned = models.BooleanField(help_text="on: a ban; off: an unban")
    reason = models.CharField(max_length=300)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason=""), name="ban_has_reason")
        ]

    def __str__(self) -> str:
        return f"{'ban' if self.banned else 'unban'} of {self.user_id}: {self.reason}"
