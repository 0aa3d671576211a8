"""Forms of the lobby: they check the shape of a request; the services decide the rest.

The create form makes casual tables only: ranked tables come from quick match, so that nobody
picks their ranked opponents or partner (docs/LADDER.md)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games import rules_words
from games.engine import HOUSE_RULE_OPTIONS
from games.services import MAX_STAKE

HOUSE_RULE_PREFIX = "rule_"


class TableCreateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=60, required=False)
    preset = forms.ChoiceField(
        label=_("Rules"),
        choices=rules_words.preset_choices,
        initial="ranked",
        help_text=_("A casual table. Ranked tables come only from quick match."),
    )
    stake = forms.IntegerField(label=_("Stake"), min_value=1, max_value=MAX_STAKE, initial=100)
    min_balance = forms.IntegerField(
        label=_("Minimum balance"), min_value=0, max_value=10_000_000, initial=0
    )
    play_seconds = forms.IntegerField(
        label=_("Seconds per play"), min_value=5, max_value=120, initial=20
    )
    unlisted = forms.BooleanField(
        label=_("Private"),
        required=False,
        help_text=_("Not shown in the lobby: players join by the invite link."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields.update(house_rule_fields())

    def house_rule_fields_bound(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith(HOUSE_RULE_PREFIX)]

    def main_fields_bound(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if not name.startswith(HOUSE_RULE_PREFIX)]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.data.get("mode", "casual") != "casual":  # the old form's field, or a script's
            raise forms.ValidationError(
                _("Ranked tables come only from quick match."), code="ranked_quick_match_only"
            )
        return cleaned

    def service_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.table_create`` (besides the creator)."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "preset_name": data["preset"],
            "stake": data["stake"],
            "min_balance": data["min_balance"],
            "play_seconds": data["play_seconds"],
            "unlisted": data["unlisted"],
            "house_rules": {
                name.removeprefix(HOUSE_RULE_PREFIX): value
                for name, value in data.items()
                if name.startswith(HOUSE_RULE_PREFIX) and value
            },
        }


def house_rule_fields() -> dict[str, forms.Field]:
    """One choice per rule option of RULES.md §8 (house rules), empty = as the preset."""
    words = rules_words.option_words()
    labels = rules_words.option_labels()
    return {
        f"{HOUSE_RULE_PREFIX}{option}": forms.ChoiceField(
            label=labels[option],
            required=False,
            choices=[("", _("as the preset"))]
            + [(value, words[option][value]) for value in values],
        )
        for option, values in HOUSE_RULE_OPTIONS.items()
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
