"""The /rules/ page and docs/RULES.md (issue 16): in each language, every rule option and preset
anchored, and the numbers it states are the engine's and the ladder's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from games.rules_page import BODIES
from ladder.titles import TITLES
from shengji.engine import PRESETS, Trump, deal_sizes, kitty_multiplier, level_change, parse_cards
from shengji.engine.rules import _CHOICES, default_decks
from shengji.settlement import RATIO_PERCENT
from tests.https import HTTPS

ROOT = Path(__file__).resolve().parents[2]
BROWSERS = {"zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9", "en": "en-US,en;q=0.9"}
WORDS = {
    "zh-hans": ("拖拉机", "甩牌", "抠底", "盖毙", "级牌"),
    "zh-hant": ("拖拉機", "甩牌", "摳底", "蓋斃", "級牌"),
    "en": ("tractor", "throw", "ruff", "kitty", "level card"),
}
# Words of the other languages: a zh-hans page shows no 拖拉機, a zh-hant page no 拖拉机, an
# English page not the Chinese heading.
FOREIGN = {
    "zh-hans": ("拖拉機", "級牌"),
    "zh-hant": ("拖拉机", "级牌"),
    "en": ("升级（拖拉机）规则",),
}
DEFENDERS = {"zh-hans": "庄家方", "zh-hant": "莊家方", "en": "defenders"}
# no_bid_first_hand is described with no_bid, under one anchor.
ANCHORED = [option for option in _CHOICES if option != "no_bid_first_hand"]
TAG = re.compile(r"<[^>]+>")


def rules_page(language: str) -> str:
    response = Client(**HTTPS).get("/rules/", HTTP_ACCEPT_LANGUAGE=BROWSERS[language])
    assert response.status_code == 200
    return response.content.decode()


def element(page: str, element_id: str, tag: str) -> str:
    match = re.search(rf'<{tag}[^>]*\bid="{element_id}"[^>]*>(.*?)</{tag}>', page, re.S)
    assert match, element_id
    return match.group(1)


def rows(table: str) -> list[tuple[str, list[str]]]:
    """(the row's attributes, its cells as text) of every body row."""
    found = []
    for attributes, row in re.findall(r"<tr([^>]*)>(.*?)</tr>", table, re.S):
        cells = [TAG.sub("", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
        if cells:
            found.append((attributes, cells))
    return found


def text_of(page: str) -> str:
    return re.sub(r"\s+", "", TAG.sub("", page))


@pytest.mark.parametrize("language", BROWSERS)
def test_the_page_answers_in_each_language(language: str) -> None:
    page = rules_page(language)
    assert f'<div class="rules-page" lang="{language}">' in page
    for word in WORDS[language]:
        assert word in page, word
    for word in FOREIGN[language]:
        assert word not in page, word
    # No card left as notation: every [[…]] became pictures.
    assert "[[" not in page


def test_the_switch_in_the_header_changes_the_page() -> None:
    client = Client(**HTTPS)
    for language, word in (("zh-hant", "拖拉機"), ("en", "tractor"), ("zh-hans", "拖拉机")):
        client.post("/i18n/setlang/", {"language": language, "next": "/rules/"})
        assert word in client.get("/rules/").content.decode()


@pytest.mark.parametrize("language", BROWSERS)
def test_every_option_and_preset_has_its_anchor(language: str) -> None:
    page = rules_page(language)
    for option in ANCHORED:
        assert f'id="opt-{option}"' in page, option
        assert f'href="#opt-{option}"' in page, option  # the presets link to it
    for name in PRESETS:
        assert f'id="preset-{name}"' in page, name
    assert page.count('class="preset"') == len(PRESETS)


@pytest.mark.parametrize("language", BROWSERS)
def test_each_preset_lists_its_own_values(language: str) -> None:
    page = rules_page(language)
    for name, rules in PRESETS.items():
        block = element(page, f"preset-{name}", "section")
        shown = dict(re.findall(r'data-option="(\w+)" data-value="(\w+)"', block))
        assert shown == {option: getattr(rules, option) for option in _CHOICES}, name
        # Each value in words (issue 33): the words of the option's own section.
        for option, value, words in re.findall(
            r'data-option="(\w+)" data-value="(\w+)"><dt>.*?</dt><dd>(.*?)</dd>', block
        ):
            anchor = "no_bid" if option == "no_bid_first_hand" else option
            section = page.split(f'id="opt-{anchor}"', 1)[1].split("<h3", 1)[0]
            assert words and words != value, (name, option)
            assert f'data-value="{value}">{words}</strong>' in section, (option, value, words)


@pytest.mark.parametrize("language", BROWSERS)
def test_every_option_value_is_explained(language: str) -> None:
    page = rules_page(language)
    for option in ANCHORED:
        section = page.split(f'id="opt-{option}"', 1)[1].split("<h3", 1)[0]
        for value in _CHOICES[option]:
            assert f'<strong class="opt-value" data-value="{value}">' in section, (option, value)


@pytest.mark.parametrize("language", BROWSERS)
def test_the_kitty_multipliers_are_the_engines(language: str) -> None:
    table = element(rules_page(language), "multipliers", "table")
    found = rows(table)
    assert len(found) >= 6
    trump = Trump("T", "H")
    for attributes, cells in found:
        play = re.search(r'data-play="([^"]+)"', attributes)
        assert play
        expected = [
            f"× {kitty_multiplier(parse_cards(play.group(1)), trump, policy)}"
            for policy in ("lead_shape", "winner_shape", "pairs")
        ]
        assert cells[1:] == expected, play.group(1)


@pytest.mark.parametrize("language", BROWSERS)
def test_the_titles_are_the_ladders(language: str) -> None:
    table = element(rules_page(language), "title-table", "table")
    thresholds = [int(cells[1]) for _, cells in rows(table)]
    assert thresholds == [title.min_points for title in TITLES]


@pytest.mark.parametrize("language", BROWSERS)
def test_the_result_table_is_the_engines(language: str) -> None:
    """Each band "a – b" of attackers' points gives what level_change gives at both ends."""
    table = element(rules_page(language), "result-table", "table")
    bands = 0
    for _, (points, result) in rows(table):
        if not re.fullmatch(r"\d+( – \d+)?", points):
            continue  # "every 40 more"
        ends = [int(number) for number in re.findall(r"\d+", points)]
        side, levels = level_change(ends[0])
        assert all(level_change(end) == (side, levels) for end in ends), points
        assert (DEFENDERS[language] in result) == (side == "defenders"), points
        assert [int(n) for n in re.findall(r"\d+", result)] == ([levels] if levels else []), points
        bands += 1
    assert bands == 7


@pytest.mark.parametrize("language", BROWSERS)
def test_the_settlement_ratios_and_amounts_are_the_ladders(language: str) -> None:
    text = text_of(rules_page(language))
    by_percent: dict[int, list[str]] = {}
    for rank, percent in RATIO_PERCENT.items():
        by_percent.setdefault(percent, []).append("10" if rank == "T" else rank)
    for percent, ranks in by_percent.items():
        band = ranks[0] if len(ranks) == 1 else f"{ranks[0]}–{ranks[-1]}"
        assert f"{band}{percent}%" in text, band
    assert "200+400−10=590" in text  # seed 004's worked example, as the ladder pays it
    assert "3×200=600" in text  # triple at S = 100, levels 2: 3 × (100 % × S + S)


# The engine's names of the options, their values and the presets: none is shown to a reader.
CODE_WORDS = sorted(
    {*_CHOICES, *(v for values in _CHOICES.values() for v in values), *PRESETS, "throw_penalty"}
)
JOKERS = {
    "zh-hans": ("大<i>王</i>", "小<i>王</i>"),
    "zh-hant": ("大<i>王</i>", "小<i>王</i>"),
    "en": ("Big<i>Joker</i>", "Small<i>Joker</i>"),
}


def visible_text(page: str) -> str:
    """The page's text as read: no tags, and no attribute values (anchors keep the codes)."""
    body = page.split('<div class="rules-page"', 1)[1]
    return TAG.sub(" ", body)


@pytest.mark.parametrize("language", BROWSERS)
def test_regression_options_were_named_by_english_code_words(language: str) -> None:
    """The page showed strength, count, reinforce, first_hand_dealer, bidder, flip_kitty,
    no_trump … and drew jokers as "JKR": now every option and value is in the reader's words
    and a joker card says 大王 / 小王 (Big / Small Joker)."""
    page = rules_page(language)
    assert "<code>" not in page.split('<div class="rules-page"', 1)[1]
    text = visible_text(page)
    assert re.findall(r"\b[a-z]+_[a-z_0-9]+\b", text) == []  # no identifier
    if language != "en":  # English prose may say "count" or "table" as words
        found = [word for word in CODE_WORDS if re.search(rf"\b{word}\b", text)]
        assert found == []
    else:
        for word in ("reinforce", "seed000", "seed004"):
            assert not re.search(rf"\b{word}\b", text), word
    assert "JKR" not in page
    big, small = JOKERS[language]
    assert f'<span class="pc joker red">{big}</span>' in page
    assert f'<span class="pc joker">{small}</span>' in page


def test_docs_rules_names_every_option_in_each_language() -> None:
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    sections = re.split(r'<a id="(?:zh-hans|zh-hant|en)"></a>', text)[1:]
    assert len(sections) == 3
    for section in sections:
        for option in _CHOICES:
            assert f"`{option}`" in section, option
        for name in PRESETS:
            assert f"`{name}`" in section, name


def test_docs_rules_pictures_exist() -> None:
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    pictures = set(re.findall(r"\]\((img/[^)]+\.svg)\)", text))
    assert {"img/BJ.svg", "img/SJ.svg", "img/AS.svg", "img/TH.svg"} <= pictures
    assert [picture for picture in pictures if not (ROOT / "docs" / picture).exists()] == []


def test_each_language_has_a_body() -> None:
    assert set(BODIES) == set(BROWSERS)
    for body in BODIES.values():
        assert (ROOT / "templates" / body).exists()


@pytest.mark.parametrize("language", BROWSERS)
def test_the_bigger_tables_deal_sizes_are_the_engines(language: str) -> None:
    """找朋友与多人桌: each row (players, decks, cards each, kitty, points) is deal_sizes at the
    default decks for those players, with 100 points a deck (RULES-SPEC.md §9.1)."""
    table = element(rules_page(language), "friends-decks-table", "table")
    found = [[int(cell) for cell in cells] for _, cells in rows(table)]
    assert [row[0] for row in found] == [4, 5, 6, 7, 8]
    for players, decks, each, kitty, points in found:
        assert decks == default_decks(players)
        assert deal_sizes(players, decks) == (each, kitty)
        assert points == 100 * decks


@pytest.mark.parametrize("language", BROWSERS)
def test_the_result_by_decks_table_is_the_engines(language: str) -> None:
    """Each band of 2, 3 and 4 decks gives what level_change(points, decks) gives at both ends,
    the side and the levels its row names (RULES-SPEC.md §9.2.9)."""
    table = element(rules_page(language), "friends-result-table", "table")
    bands = 0
    for _, (result, *by_decks) in rows(table):
        for decks, points in zip((2, 3, 4), by_decks, strict=True):
            if not re.fullmatch(r"\d+( – \d+)?", points):
                continue  # "every 40 more"
            ends = [int(number) for number in re.findall(r"\d+", points)]
            side, levels = level_change(ends[0], decks)
            assert all(level_change(end, decks) == (side, levels) for end in ends), points
            assert (DEFENDERS[language] in result) == (side == "defenders"), result
            assert [int(n) for n in re.findall(r"\d+", result)] == ([levels] if levels else [])
            bands += 1
    assert bands == 7 * 3


def test_docs_rules_spec_deal_sizes_are_the_engines() -> None:
    """RULES-SPEC.md §9.1's table of every shape: "cards each + kitty" is deal_sizes."""
    text = (ROOT / "docs" / "RULES-SPEC.md").read_text(encoding="utf-8")
    part = text.split("### 9.1", 1)[1].split("### 9.2", 1)[0]
    shapes = re.findall(r"^\s*\| (\d) \| (.+) \|$", part, re.M)
    assert [int(players) for players, _ in shapes] == [4, 5, 6, 7, 8]
    for players, cells in shapes:
        sizes = [tuple(map(int, re.findall(r"\d+", cell))) for cell in cells.split("|")]
        assert sizes == [deal_sizes(int(players), decks) for decks in (2, 3, 4)], players
