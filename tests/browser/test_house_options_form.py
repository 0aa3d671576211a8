"""The create form's house options in Chromium (RULES-SPEC.md §10; games/house_options.py), in
简体: the options sit in their groups, each explained; choosing some makes the summary list
exactly those as changed and name the rules "标准 · 自定规则"; a combination the engine refuses
(bombs at two decks) is shown in Chinese and makes nothing; the table made carries the options
and its rules card says only what changed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from accounts.models import User
from games import services
from games.models import Match, Table
from games.services.start import _rules_for
from tests.browser.conftest import ARTIFACTS, assert_fits_across, screenshot
from tests.browser.test_play_in_the_browser import new_page, sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def open_house_rules(page: Any) -> None:
    if page.locator("details#house-rules").get_attribute("open") is None:
        page.click("details#house-rules summary")


def open_the_form(page: Any, site: str, username: str) -> list[str]:
    """A new player opens the create form with its house rules: the groups' names."""
    sign_up(page, site, username)
    page.goto(f"{site}/tables/new/")
    open_house_rules(page)
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        "#house-rules fieldset legend", "(nodes) => nodes.map((n) => n.textContent)"
    )


def summary_changed(page: Any) -> list[str]:
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        "#rules-summary .rules-row.changed dt", "(nodes) => nodes.map((n) => n.textContent)"
    )


def test_house_options_are_chosen_summarised_refused_and_carried_to_the_table(
    site: str, chromium: Any
) -> None:
    page = new_page(chromium, 1280, 900, "zh-CN")
    legends = open_the_form(page, site, "家规玩家")
    assert legends[:2] == ["级别", "叫主"] and "显示" in legends
    assert "打到 A 为止" in page.inner_text("#house-group-levels")
    assert page.get_attribute("[name=rule_step_points]", "type") == "number"
    assert summary_changed(page) == []

    page.select_option("[name=rule_top_level]", "NT")
    page.select_option("[name=rule_hide_defender_points]", "on")
    page.fill("[name=rule_throw_penalty]", "10")
    page.wait_for_function(
        "() => document.querySelectorAll('#rules-summary .rules-row.changed').length === 3"
    )
    assert summary_changed(page) == ["最高级", "甩牌罚分", "庄家方得分"]
    assert "10 分" in page.inner_text("#rules-summary")
    assert page.inner_text("#rules-summary-name") == "标准 · 自定规则"

    # Bombs need four decks: the engine's reason, in Chinese, and no table.
    page.select_option("[name=rule_bombs]", "any_suit")
    page.fill("#table-form [name=name]", "家规桌")
    page.click("#table-form button[type=submit]")
    page.wait_for_selector(".lobby-error")
    assert "炸弹只能在 4 副牌的牌桌上用" in page.inner_text(".lobby-error")
    assert not Table.objects.filter(name="家规桌").exists()
    screenshot(page, "house-options-refused-hans")

    open_house_rules(page)
    page.select_option("[name=rule_bombs]", "")
    page.click("#table-form button[type=submit]")
    page.wait_for_url("**/tables/*/")
    table = Table.objects.get(name="家规桌")
    assert table.house_rules == {
        "top_level": "NT",
        "hide_defender_points": True,
        "throw_penalty": 10,
    }
    rows = page.eval_on_selector_all(
        "#rules-card .rules-row.changed", "(nodes) => nodes.map((n) => n.dataset.option)"
    )
    assert rows == ["top_level", "throw_penalty", "hide_defender_points"]
    assert "A 之后再打无主" in (page.text_content("#rules-card") or "")
    screenshot(page, "house-options-table-hans")
    assert page.errors == []


def test_a_hand_at_nt_shows_the_level_in_words_and_no_level_card_trump(
    site: str, chromium: Any
) -> None:
    """A match whose levels reached NT (top_level NT, RULES-SPEC.md §10.5): the table page
    says 打无主, never "NT", "null" or "undefined"."""
    page = new_page(chromium, 1280, 900, "zh-CN")
    sign_up(page, site, "无主玩家")
    host = User.objects.get(username="无主玩家")
    with ThreadPoolExecutor(1) as thread:  # out of Playwright's event loop (the lobby's send)
        table = thread.submit(
            services.table_create,
            creator=host,
            name="无主桌",
            stake=1,
            bid_window_seconds=3,
            deal_interval_ms=100,  # ten seconds of dealing: time to read the page
            house_rules={"top_level": "NT", "hide_defender_points": True},
        ).result()
        thread.submit(services.seat_take, table_id=table.pk, user=host, index=0).result()
        for index in (1, 2, 3):
            thread.submit(
                services.seat_fill_bot, table_id=table.pk, user=host, index=index
            ).result()
    # The same players' match, its levels at NT: the next hand is played there.
    Match.objects.create(
        table=table,
        ruleset=_rules_for(table),
        levels=["NT", "NT"],
        wrapped=[False, False],
        players=[host.pk, None, None, None],
    )
    page.goto(f"{site}/tables/{table.pk}/")
    with ThreadPoolExecutor(1) as thread:
        thread.submit(services.seat_ready, table_id=table.pk, user=host).result()
    page.wait_for_function("() => (window.shengjiTable?.state.hand?.view || {}).level === 'NT'")
    page.wait_for_function("() => document.getElementById('info').innerText.includes('打无主')")
    assert "本局打无主：不亮主" in page.inner_text("body")
    info = page.inner_text("#info")
    for word in ("NT", "null", "undefined"):
        assert word not in info, info
    assert "A 之后再打无主" in (page.text_content("#rules-card") or "")
    screenshot(page, "house-options-nt-hans")
    assert page.errors == []


def test_hidden_defender_points_show_as_a_question_mark(site: str, chromium: Any) -> None:
    """hide_defender_points (RULES-SPEC.md §10.8) at a 找朋友 table of five: while the hand is
    played the dealer's points are "?", never "null" (the view sends null)."""
    page = new_page(chromium, 1280, 900, "zh-CN")
    sign_up(page, site, "藏分玩家")
    host = User.objects.get(username="藏分玩家")
    with ThreadPoolExecutor(1) as thread:
        table = thread.submit(
            services.table_create,
            creator=host,
            name="藏分桌",
            stake=1,
            players=5,
            bid_window_seconds=1,
            deal_interval_ms=10,
            bury_seconds=10,
            house_rules={"mode": "friends", "hide_defender_points": True},
        ).result()
        thread.submit(services.seat_take, table_id=table.pk, user=host, index=0).result()
        for index in (1, 2, 3, 4):
            thread.submit(
                services.seat_fill_bot, table_id=table.pk, user=host, index=index
            ).result()
    page.goto(f"{site}/tables/{table.pk}/")
    with ThreadPoolExecutor(1) as thread:
        thread.submit(services.seat_ready, table_id=table.pk, user=host).result()
    page.wait_for_function(
        "() => (window.shengjiTable?.state.hand?.view || {}).phase === 'playing'", timeout=90_000
    )
    view = page.evaluate("window.shengjiTable.state.hand.view")
    assert view["seat_points"][view["dealer"]] is None and view["points"]["defenders"] is None
    page.wait_for_function(
        "() => [...document.querySelectorAll('.seat-points')].some((n) => n.textContent === '?分')"
    )
    body = page.inner_text("body")
    assert "null" not in body and "undefined" not in body
    screenshot(page, "house-options-hidden-points-hans")
    assert page.errors == []


def test_on_a_phone_in_traditional_chinese_every_house_option_fits_and_reads(
    site: str, chromium: Any
) -> None:
    """A group coming from another site opens every house option on a phone, in 繁體: the seven
    groups and their one-line explanations are in the page's language, and nothing reaches past
    the screen's right edge; choosing 炒地皮 and 悔牌 lists exactly those as changed."""
    page = new_page(chromium, 390, 844, "zh-TW")
    legends = open_the_form(page, site, "家規手機")
    assert len(legends) == 7 and legends[:2] == ["級別", "叫主"]
    text = page.inner_text("#house-rules")
    assert "级别" not in text and "Levels" not in text  # not 简体, not English
    assert_fits_across(page)
    page.select_option("[name=rule_kitty_theft]", "on")
    page.select_option("[name=rule_takeback]", "on")
    page.wait_for_function(
        "() => document.querySelectorAll('#rules-summary .rules-row.changed').length === 2"
    )
    assert len(summary_changed(page)) == 2
    assert_fits_across(page)
    screenshot(page, "house-options-phone-hant")
    group = page.locator("#house-group-bidding")
    group.screenshot(path=str(ARTIFACTS / "house-options-phone-hant-bidding.png"))
    assert page.errors == []
