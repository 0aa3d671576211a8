"""Languages (issue 8): zh-hans, zh-hant and en, chosen from the browser and switchable; every
string translated; socket errors translated by code."""

from __future__ import annotations

import gettext
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from accounts.errors import ApplicationError, error_messages
from shengji.engine import MUST_FOLLOW_PAIR, IllegalPlayError
from tests.games.helpers import make_table, make_users
from tests.https import HTTPS

LOCALES = {"zh_Hans": "zh-hans", "zh_Hant": "zh-hant", "en": "en"}
BROWSERS = {"zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9", "en": "en-US,en;q=0.9"}
# A few words per language, as players read them.
WORDS = {
    "zh-hans": {"lobby": "快速匹配（排位）", "brand": "升级 · 拖拉机", "last": "上一轮"},
    "zh-hant": {"lobby": "快速配對（排位）", "brand": "升級 · 拖拉機", "last": "上一輪"},
    "en": {"lobby": "Quick match (ranked)", "brand": "Shengji · Tractor", "last": "Last trick"},
}
PLAY = {"zh-hans": "出牌", "zh-hant": "出牌", "en": "Play"}
PLACEHOLDER = re.compile(r"\{\w+\}|%\(\w+\)s")


def po_entries(path: Path) -> list[dict[str, Any]]:
    """The entries of a .po file: msgctxt, msgid, msgstr (plural forms included)."""
    entries: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    field = None
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (".*")$', line)
        if match:
            if match.group(1) in ("msgctxt", "msgid") and "msgstr" in "".join(current):
                entries.append(current)
                current = {}
            field = match.group(1)
            current[field] = json.loads(match.group(2))
        elif line.startswith('"') and field:
            current[field] += json.loads(line)
    if current:
        entries.append(current)
    return entries


def page(client: Client, url: str, language: str) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=BROWSERS[language])
    assert response.status_code == 200, url
    return response.content.decode()


def labels(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="table-labels" type="application/json">(.*?)</script>', html)
    assert found
    return json.loads(found.group(1))  # type: ignore[no-any-return]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["zh-hans", "zh-hant", "en"])
def test_each_language_renders_the_lobby_and_the_table_page(language: str) -> None:
    users = make_users(1)
    table = make_table(users[0], ranked=False, preset_name="ranked")
    client = Client(**HTTPS)

    lobby = page(client, "/tables/", language)
    assert f'<html lang="{language}">' in lobby
    assert WORDS[language]["lobby"] in lobby and WORDS[language]["brand"] in lobby

    html = page(client, f"/tables/{table.pk}/", language)
    assert f'<html lang="{language}">' in html
    words = labels(html)
    assert words["last_trick"] == WORDS[language]["last"]
    assert words["play"] == PLAY[language]
    # Socket errors carry a code: the page holds every code's message in its language.
    assert set(words["errors"]) >= {"must_follow_pair", "not_your_turn", "stale_seq", "seat_taken"}
    with translation.override(language):
        assert words["errors"] == error_messages()
    # Card names for screen readers: 黑桃A / A of spades.
    ace = words["card_format"].replace("{rank}", "A").replace("{suit}", words["suit_names"]["S"])
    assert ace == {"zh-hans": "黑桃A", "zh-hant": "黑桃A", "en": "A of spades"}[language]
    assert page(client, "/ladder/", language).count(f'<html lang="{language}">') == 1


@pytest.mark.django_db
def test_the_switcher_sets_the_language_over_the_browsers() -> None:
    client = Client(**HTTPS)
    assert "Quick match (ranked)" in page(client, "/tables/", "en")
    switcher = page(client, "/tables/", "en")
    assert 'action="/i18n/setlang/"' in switcher
    assert all(f'value="{code}"' in switcher for code, _ in settings.LANGUAGES)

    response = client.post("/i18n/setlang/", {"language": "zh-hant", "next": "/tables/"})

    assert response.status_code == 302 and response["Location"] == "/tables/"
    html = page(client, "/tables/", "en")  # the choice wins over the browser's
    assert '<html lang="zh-hant">' in html and "快速配對（排位）" in html
    assert 'value="zh-hant" lang="zh-hant" aria-pressed="true"' in html
    client.post("/i18n/setlang/", {"language": "en", "next": "/tables/"})
    assert "Quick match (ranked)" in page(client, "/tables/", "zh-hans")


def test_errors_are_translated_by_code_and_keep_their_code() -> None:
    with translation.override("zh-hans"):
        error = ApplicationError("seat_taken")
        assert (error.code, error.message) == ("seat_taken", "这个座位已经有人了")
        engine = ApplicationError.from_engine(IllegalPlayError(MUST_FOLLOW_PAIR, "5S 5S"))
        assert engine.code == MUST_FOLLOW_PAIR
        assert engine.message == "你有这门花色的对子，必须跟对: 5S 5S"
        assert ApplicationError("bad_message", "explicit").message == "explicit"
    with translation.override("zh-hant"):
        assert ApplicationError("not_your_turn").message == "還沒輪到你"
    with translation.override("en"):
        engine = ApplicationError.from_engine(IllegalPlayError(MUST_FOLLOW_PAIR, "5S 5S"))
        assert engine.message == str(IllegalPlayError(MUST_FOLLOW_PAIR, "5S 5S"))
        assert ApplicationError("seat_taken").as_message() == {
            "type": "error",
            "code": "seat_taken",
            "message": "that seat is taken",
        }


@pytest.mark.parametrize("locale", sorted(LOCALES))
def test_every_msgid_is_translated_and_the_compiled_catalogue_is_current(locale: str) -> None:
    directory = Path(settings.BASE_DIR) / "locale" / locale / "LC_MESSAGES"
    text = (directory / "django.po").read_text(encoding="utf-8")
    lines = [*text.splitlines(), ""]
    empty = [i for i, line in enumerate(lines[:-1]) if line == 'msgstr ""']
    untranslated = [i for i in empty if not lines[i + 1].startswith('"')]
    assert len(empty) - len(untranslated) >= 1 and untranslated == []  # only the header's
    assert "#, fuzzy" not in text
    entries = po_entries(directory / "django.po")
    assert len(entries) > 300
    with (directory / "django.mo").open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)
    for entry in entries[1:]:
        msgid, msgstr = entry["msgid"], entry.get("msgstr", entry.get("msgstr[0]"))
        assert msgstr, msgid
        assert sorted(PLACEHOLDER.findall(msgstr)) == sorted(PLACEHOLDER.findall(msgid)), msgid
        if "msgid_plural" in entry:  # Django's own words our catalogue completes (admin_words)
            assert catalogue.ngettext(msgid, entry["msgid_plural"], 1) == msgstr, msgid
        elif "msgctxt" in entry:
            assert catalogue.pgettext(entry["msgctxt"], msgid) == msgstr
        else:
            assert catalogue.gettext(msgid) == msgstr, f"django.mo is older than django.po: {msgid}"
