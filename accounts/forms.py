from __future__ import annotations

import math
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.password_validation import (
    MinimumLengthValidator,
    get_default_password_validators,
)
from django.http import HttpRequest
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.errors import ApplicationError
from accounts.suspension import TellsWhenSuspended


class ServiceErrorsMixin:
    """Shows a service's `ApplicationError` on the field it names (or on the form)."""

    def add_service_error(self, error: ApplicationError) -> None:
        field = error.fields.get("field")
        self.add_error(field if field in self.fields else None, error.message)  # type: ignore[attr-defined]


def password_min_length() -> int:
    """The shortest password AUTH_PASSWORD_VALIDATORS accept (8, Django's default)."""
    for validator in get_default_password_validators():
        if isinstance(validator, MinimumLengthValidator):
            return validator.min_length
    return 1


def password_rules() -> str:
    """What a new password must be, said before the first try (AUTH_PASSWORD_VALIDATORS)."""
    return gettext(
        "At least %(min_length)s characters, not only digits, not a common password and not "
        "like your user name."
    ) % {"min_length": password_min_length()}


class SignupForm(ServiceErrorsMixin, forms.Form):
    username = forms.CharField(
        label=_("User name"),
        max_length=150,
        help_text=_(
            "Chinese characters, letters and digits, and @ . + - _ (no spaces): 小明, 李雷 and"
            " lily_88 are all fine."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(
        label=_("E-mail (optional, for resetting your password)"),
        required=False,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        help_text=lazy(password_rules, str)(),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("password1") and data.get("password1") != data.get("password2"):
            self.add_error("password2", _("The two passwords differ."))
        return data


class SettingsForm(ServiceErrorsMixin, forms.Form):
    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False)
    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        choices=[("", _("Follow the browser")), *settings.LANGUAGES],
    )


class ReasonForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=300)


def too_many_attempts(wait_s: int) -> forms.ValidationError:
    """Refused by a rate limit (accounts/ratelimits.py): say when to try again."""
    return forms.ValidationError(
        _("Too many attempts: try again in %(minutes)s min."),
        code="too_many_attempts",
        params={"minutes": max(1, math.ceil(wait_s / 60))},
    )


class SaysWhenLockedOut:
    """A log-in form whose refusal for too many failed tries says so, not "wrong password"
    (the check itself is in the authentication backend, accounts/logins.py)."""

    request: HttpRequest | None

    def clean(self) -> dict[str, Any]:
        try:
            cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]
            return cleaned
        except forms.ValidationError:
            wait = getattr(self.request, "login_retry_after", None)
            if wait:
                raise too_many_attempts(wait) from None
            raise


class LoginForm(TellsWhenSuspended, SaysWhenLockedOut, AuthenticationForm):
    """Django's log-in form, saying when it is locked out, or the account suspended."""


class AdminLoginForm(TellsWhenSuspended, SaysWhenLockedOut, AdminAuthenticationForm):
    """The admin's log-in form, saying when it is locked out, or the account suspended."""
