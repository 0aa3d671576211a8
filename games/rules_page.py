"""The /rules/ page: the game, every rule option and the presets, for players (docs/RULES.md).

One body per language (templates/rules/rules_<language>.html), chosen by the active language:
the text is long prose with card pictures, kept in step with docs/RULES.md rather than cut
into gettext strings."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language

BODIES = {
    "zh-hans": "rules/rules_zh_hans.html",
    "zh-hant": "rules/rules_zh_hant.html",
    "en": "rules/rules_en.html",
}
TITLES = {"zh-hans": "升级规则", "zh-hant": "升級規則", "en": "Rules"}


def rules_language(language: str | None) -> str:
    """The page's language: the active one if the page has it, else English."""
    return language if language in BODIES else "en"


def rules(request: HttpRequest) -> HttpResponse:
    language = rules_language(get_language())
    context = {"body": BODIES[language], "page_title": TITLES[language]}
    return render(request, "rules/rules.html", context)
