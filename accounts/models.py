from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A player. Custom from the first migration so the ladder can hang off it freely."""

    display_name = models.CharField(max_length=40, blank=True)
    language = models.CharField(
        max_length=10,
        blank=True,
        help_text="Preferred interface language (zh-hans, zh-hant, en); empty follows the browser.",
    )

    def __str__(self) -> str:
        return self.display_name or self.username
