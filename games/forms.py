"""Forms of the lobby: they check the shape of a request; the services decide the rest."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.engine import PRESET_NAMES
from games.services import MAX_STAKE

MODES = [("ranked", _("ranked")), ("casual", _("casual"))]


class TableCreateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=60, required=False)
    mode = forms.ChoiceField(label=_("Ranked or casual"), choices=MODES, initial="ranked")
    preset = forms.ChoiceField(
        label=_("Rules (casual tables)"),
        choices=[(name, name) for name in PRESET_NAMES],
        initial="ranked",
        help_text=_("Ranked tables always play the ranked rules."),
    )
    stake = forms.IntegerField(label=_("Stake"), min_value=1, max_value=MAX_STAKE, initial=100)
    min_balance = forms.IntegerField(
        label=_("Minimum balance"), min_value=0, max_value=10_000_000, initial=0
    )
    play_seconds = forms.IntegerField(
        label=_("Seconds per play"), min_value=5, max_value=120, initial=20
    )

    def service_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.table_create`` (besides the creator)."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "ranked": data["mode"] == "ranked",
            "preset_name": data["preset"],
            "stake": data["stake"],
            "min_balance": data["min_balance"],
            "play_seconds": data["play_seconds"],
        }


class SeatForm(forms.Form):
    """Which seat (and, for the first to sit, the stake); ranges are the service's to check."""

    seat = forms.IntegerField()
    stake = forms.IntegerField(required=False)


class ReadyForm(forms.Form):
    """``ready=1`` (the default) or ``ready=0``."""

    ready = forms.ChoiceField(choices=[("1", _("ready")), ("0", _("not ready"))], required=False)

    def is_ready(self) -> bool:
        return bool(self.cleaned_data["ready"] != "0")
