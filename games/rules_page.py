"""The /rules/ page: the game, every rule option and the presets, for players (docs/RULES.md),
then every house option a table may set (games/house_options.py).

One body per language (templates/rules/rules_<language>.html), chosen by the active language:
the text is long prose with card pictures, kept in step with docs/RULES.md rather than cut
into gettext strings. The house options' list after it is the registry's words, in the
active language: each option's explanation and values, the Standard preset's value marked."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games import house_options

BODIES = {
    "zh-hans": "rules/rules_zh_hans.html",
    "zh-hant": "rules/rules_zh_hant.html",
    "en": "rules/rules_en.html",
}
TITLES = {"zh-hans": "升级规则", "zh-hant": "升級規則", "en": "Rules"}
# An option of RULES-SPEC.md §8 is told at length in the body, under ``opt-<option>``
# (``no_bid_first_hand`` with ``no_bid``); the list links there.
_TOLD_UNDER = {"no_bid_first_hand": "no_bid"}


def rules_language(language: str | None) -> str:
    """The page's language: the active one if the page has it, else English."""
    return language if language in BODIES else "en"


def house_option_groups() -> list[dict[str, Any]]:
    """The house options in their groups, each with its words and values (the Standard
    preset's value marked ``default``); an option of §8 links to the body's longer text."""
    groups = []
    for group, options in house_options.grouped():
        groups.append(
            {
                "key": group.key,
                "label": str(group.label),
                "options": [_option_told(entry) for entry in options],
            }
        )
    return groups


def _option_told(entry: house_options.HouseOption) -> dict[str, Any]:
    standard = house_options.default_of(entry.name)
    told: dict[str, Any] = {
        "name": entry.name,
        "label": str(entry.label),
        "explanation": str(entry.explanation),
        "section": entry.section,
        "more": f"opt-{_TOLD_UNDER.get(entry.name, entry.name)}" if entry.in_rules_of_8 else "",
    }
    if entry.number is not None:
        number = entry.number
        span = _("from %(least)s to %(most)s") % {"least": number.least, "most": number.most}
        told["values"] = [
            {"words": span, "default": False},
            {"words": entry.words(standard), "default": True},
        ]
    else:
        told["values"] = [
            {"words": str(words), "default": value == standard}
            for value, words in entry.values.items()
        ]
    return told


def rules(request: HttpRequest) -> HttpResponse:
    language = rules_language(get_language())
    context = {
        "body": BODIES[language],
        "page_title": TITLES[language],
        "language": language,
        "house_groups": house_option_groups(),
    }
    return render(request, "rules/rules.html", context)
