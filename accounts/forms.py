from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from ladder.errors import ApplicationError


class ServiceErrorsMixin:
    """Shows a service's `ApplicationError` on the field it names (or on the form)."""

    def add_service_error(self, error: ApplicationError) -> None:
        field = error.fields.get("field")
        self.add_error(field if field in self.fields else None, error.message)  # type: ignore[attr-defined]


class SignupForm(ServiceErrorsMixin, forms.Form):
    username = forms.CharField(
        label=_("User name"),
        max_length=150,
        help_text=_("Letters, digits and @ . + - _ only."),
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
