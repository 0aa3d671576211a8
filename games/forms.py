"""Forms of the lobby: they check the shape of a request; the services decide the rest.

The create form makes casual tables only: ranked tables come from quick match, so that nobody
picks their ranked opponents or partner (docs/LADDER.md)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games import house_options, rules_words
from games.services import MAX_STAKE
from shengji.engine import HOUSE_OPTIONS

HOUSE_RULE_PREFIX = house_options.PREFIX
# The create form's stake: under the default rules a seat then needs 316 table points
# (docs/LADDER.md, "Who may sit"), so two accounts fresh from the sign-up grant (1,000) can
# sit, lose a hand at the worst and sit again (tests/games/test_first_table.py).
DEFAULT_STAKE = 20
# The dealer's time to bury (and in 找朋友, before it, to call the friends): the table model's
# default.
DEFAULT_BURY_SECONDS = 30
# The old form's ``mode`` said casual or ranked; ``casual`` reads as the default mode now, and
# ``ranked`` is refused as before: ranked tables come only from quick match
# (docs/PROTOCOL.md, Tables of every shape).
_OLD_CASUAL = "casual"
_OLD_RANKED = "ranked"
FRIENDS_FROM_PLAYERS = 5


class ShapeForm(forms.Form):
    """A table's shape (RULES-SPEC.md §9.1, §3): players, mode, decks, friends and the 找朋友
    options. Only read here; the service checks every combination with stable codes
    (``services.shape_checked``)."""

    players = forms.IntegerField(label=_("Players"), required=False, initial=4)
    mode = forms.CharField(label=_("Mode"), required=False, max_length=20)
    decks = forms.IntegerField(
        label=_("Decks"), required=False, help_text=_("empty: by the number of players")
    )
    friends = forms.IntegerField(
        label=_("Number of friends called"),
        required=False,
        help_text=_("找朋友: empty means half the players less one"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields.update(shape_rule_fields())
        self.fields.update(house_rule_fields())

    def clean_mode(self) -> str:
        mode = str(self.cleaned_data.get("mode") or "").strip()
        if mode == _OLD_RANKED:
            raise forms.ValidationError(
                _("Ranked tables come only from quick match."), code="ranked_quick_match_only"
            )
        if mode == _OLD_CASUAL:
            return "tractor"
        return mode or default_mode(self.cleaned_data.get("players"))

    def shape_arguments(self) -> dict[str, Any]:
        """``players`` and the shape's house rules, as the services take them."""
        data = self.cleaned_data
        shape: dict[str, Any] = {"mode": data["mode"]}
        for name in ("decks", "friends"):
            if data.get(name) is not None:
                shape[name] = data[name]
        for option in rules_words.SHAPE_FORM_OPTIONS:
            value = data.get(option)
            if value:
                shape[option] = value
        players = data.get("players")
        house = self.house_rules()
        return {"players": 4 if players is None else players, "house_rules": {**house, **shape}}

    def house_rules(self) -> dict[str, Any]:
        """The house options chosen (an empty field is the preset's), as the engine takes
        them: a flag True / False, a number an int (games/house_options.py)."""
        data = self.cleaned_data
        chosen: dict[str, Any] = {}
        for name in self.fields:
            value = data.get(name)
            if not name.startswith(HOUSE_RULE_PREFIX) or value is None or value == "":
                continue
            option = name.removeprefix(HOUSE_RULE_PREFIX)
            entry = house_options.BY_NAME.get(option)
            if entry is not None and entry.is_flag:
                value = value == house_options.FLAG_ON
            chosen[option] = value
        return chosen

    def house_groups_bound(self) -> list[dict[str, Any]]:
        """The house options' fields in their groups (the create form's template)."""
        return [
            {
                "key": group.key,
                "label": group.label,
                "fields": [
                    self[house_options.field_name(o.name)]
                    for o in options
                    if house_options.field_name(o.name) in self.fields
                ],
            }
            for group, options in house_options.grouped()
        ]


def default_mode(players: int | None) -> str:
    """The mode of a table whose form names none: 找朋友 from five players (the only mode at
    5 and 7, and what a group of 6 or 8 most often plays), 拖拉机 at four (RULES-SPEC.md
    §9.1.2). static/games/table_form.js picks the same when the players change."""
    return "friends" if players is not None and players >= FRIENDS_FROM_PLAYERS else "tractor"


def shape_rule_fields() -> dict[str, forms.Field]:
    """One choice per 找朋友 and bigger-table option (RULES-SPEC.md §9.2–§3), named as the
    option (``friend_cards`` …), empty = the default."""
    words = rules_words.shape_option_words()
    labels = rules_words.shape_option_labels()
    return {
        option: forms.ChoiceField(
            label=labels[option],
            help_text=_shape_help(option),
            required=False,
            choices=[("", _("as the default"))]
            + [(value, words[option][value]) for value in values],
        )
        for option, values in rules_words.SHAPE_FORM_OPTIONS.items()
    }


def _shape_help(option: str) -> str:
    entry = house_options.BY_NAME.get(option)
    return "" if entry is None else str(entry.explanation)


class PracticeForm(ShapeForm):
    """和电脑练习 at any shape (bots fill every other seat), and any house options
    (``rule_<option>``, as the create form sends them). The home page's one choice ``shape``
    ("6-friends") stands for ``players`` and ``mode``."""

    shape = forms.ChoiceField(label=_("Table"), required=False, choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["shape"].choices = [  # type: ignore[attr-defined]
            (shape["value"], shape["words"]) for shape in rules_words.practice_shapes()
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        shape = data.get("shape")
        if shape:
            players, mode = str(shape).split("-")
            data["players"], data["mode"] = int(players), mode
        return data


class TableCreateForm(ShapeForm):
    field_order = [
        "name", "preset", "players", "mode", "decks", "friends",
        "friend_cards", "join_policy", "small_side_bonus", "draw_policy",
        "stake", "min_balance", "play_seconds", "bury_seconds", "unlisted",
    ]  # fmt: skip
    name = forms.CharField(label=_("Name"), max_length=60, required=False)
    preset = forms.ChoiceField(
        label=_("Rules"),
        choices=rules_words.preset_choices,
        initial="ranked",
        help_text=_("A casual table. Ranked tables come only from quick match."),
    )
    stake = forms.IntegerField(
        label=_("Stake"), min_value=1, max_value=MAX_STAKE, initial=DEFAULT_STAKE
    )
    min_balance = forms.IntegerField(
        label=_("Minimum balance"), min_value=0, max_value=10_000_000, initial=0
    )
    play_seconds = forms.IntegerField(
        label=_("Seconds per play"), min_value=5, max_value=120, initial=20
    )
    bury_seconds = forms.IntegerField(
        label=_("Seconds to bury"),
        min_value=10,
        max_value=180,
        initial=DEFAULT_BURY_SECONDS,
        required=False,
        help_text=_(
            "找朋友: the dealer has this long to call the friends, then this long again to bury."
        ),
    )
    unlisted = forms.BooleanField(
        label=_("Private"),
        required=False,
        help_text=_("Not shown in the lobby: players join by the invite link."),
    )

    def main_fields_bound(self) -> list[forms.BoundField]:
        """The fields above the house options (each house option is in its group)."""
        house = {house_options.field_name(name) for name in house_options.BY_NAME}
        return [self[name] for name in self.fields if name not in house]

    @classmethod
    def defaults(cls) -> TableCreateForm:
        """The form bound to its own defaults (what a table made without changing a field is)."""
        data = {
            name: field.initial
            for name, field in cls().fields.items()
            if field.initial is not None and field.initial is not False
        }
        return cls(data)

    def needed_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.points_needed_to_create``: what a seat at the
        table this form makes will need."""
        arguments = self.service_arguments()
        names = ("preset_name", "stake", "min_balance", "house_rules", "players")
        return {name: arguments[name] for name in names}

    def service_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.table_create`` (besides the creator)."""
        data = self.cleaned_data
        shape = self.shape_arguments()
        return {
            "players": shape["players"],
            "name": data["name"],
            "preset_name": data["preset"],
            "stake": data["stake"],
            "min_balance": data["min_balance"],
            "play_seconds": data["play_seconds"],
            "bury_seconds": _or_default(data.get("bury_seconds"), DEFAULT_BURY_SECONDS),
            "unlisted": data["unlisted"],
            "house_rules": shape["house_rules"],
        }


def _or_default(value: int | None, default: int) -> int:
    """A number field left empty (a form posted without it): the default."""
    return default if value is None else value


def house_rule_fields() -> dict[str, forms.Field]:
    """One field per house option the engine has (RULES-SPEC.md §8, §10), named
    ``rule_<option>``, in the registry's order (games/house_options.py): a choice, or a number
    input with its range; empty = as the preset. An option that is also a shape field
    (``draw_policy``) is the shape's field (``shape_rule_fields``)."""
    fields: dict[str, forms.Field] = {}
    for entry in house_options.OPTIONS:
        if entry.name not in HOUSE_OPTIONS or entry.shape_values:
            continue
        fields[house_options.field_name(entry.name)] = _house_field(entry)
    return fields


def _house_field(entry: house_options.HouseOption) -> forms.Field:
    if entry.number is not None:
        number = entry.number
        return forms.IntegerField(
            label=str(entry.label),
            help_text=str(entry.explanation),
            required=False,
            min_value=number.least,
            max_value=number.most,
            widget=forms.NumberInput(
                attrs={
                    "min": number.least,
                    "max": number.most,
                    "step": number.step,
                    "placeholder": house_options.default_of(entry.name),
                }
            ),
        )
    return forms.ChoiceField(
        label=str(entry.label),
        help_text=str(entry.explanation),
        required=False,
        choices=[("", _("as the preset"))]
        + [(entry.form_value(value), words) for value, words in entry.values.items()],
    )


class SeatForm(forms.Form):
    """Which seat (and, for the first to sit, the stake); ranges are the service's to check."""

    seat = forms.IntegerField()
    stake = forms.IntegerField(required=False)


class ReadyForm(forms.Form):
    """``ready=1`` (the default) or ``ready=0``."""

    ready = forms.ChoiceField(choices=[("1", _("ready")), ("0", _("not ready"))], required=False)

    def is_ready(self) -> bool:
        return bool(self.cleaned_data["ready"] != "0")
