"""找朋友 one tap from the home page (Chromium at 390×844, 简体): the home page's 找朋友 button
opens the create form at six players with 找朋友 chosen; choosing 5–8 players picks 找朋友,
four picks 拖拉机, and 拖拉机 stays when chosen at six. The summary says the preset's rules
with nothing changed, then the one house rule chosen, and gives a three-deck table's own
kitty bonus (RULES-SPEC.md §9.2.10). Screenshots in artifacts/browser/."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from tests.browser.conftest import screenshot
from tests.browser.test_play_in_the_browser import PASSWORD, new_page

pytestmark = pytest.mark.django_db(transaction=True)
USERNAME = "周五的主人"


def summary(page: Any) -> dict[str, str]:
    return page.evaluate(  # type: ignore[no-any-return]
        """() => ({
          name: document.getElementById('rules-summary-name').textContent,
          shape: document.getElementById('shape-summary').textContent,
          preset: document.getElementById('preset-description').textContent,
          changed: [...document.querySelectorAll('#rules-summary .rules-row.changed dt')]
            .map((n) => n.textContent).join(','),
          rows: [...document.querySelectorAll('#rules-summary .rules-row')]
            .map((n) => n.textContent).join('\\n'),
        })"""
    )


def test_friends_in_one_tap_and_the_form_picks_it_from_five_players(
    site: str, chromium: Any
) -> None:
    User.objects.create_user(USERNAME, password=PASSWORD)
    page = new_page(chromium, 390, 844, "zh-CN")
    page.goto(f"{site}/")
    page.click("#home-friends a.home-button")  # a visitor logs in first, then the form opens
    page.wait_for_url("**/accounts/login/**")
    page.fill("[name=username]", USERNAME)
    page.fill("[name=password]", PASSWORD)
    page.click("form.form button[type=submit]")
    page.wait_for_url("**/tables/new/?players=6&mode=friends")
    page.wait_for_function("() => document.getElementById('shape-summary').textContent")
    assert page.input_value("#table-form [name=players]") == "6"
    assert page.input_value("#table-form [name=mode]") == "friends"
    shown = summary(page)
    assert shown["shape"] == "6人 · 3副 · 找朋友"
    assert shown["name"] == "标准" and shown["changed"] == ""  # nothing changed: no 自定规则
    assert "三张 6" in shown["rows"] and "2^长度" not in shown["rows"]
    screenshot(page, "friends-home-form")

    page.select_option("#table-form [name=players]", "4")
    assert page.input_value("#table-form [name=mode]") == "tractor"
    assert "2^长度" in summary(page)["rows"]  # two decks: the preset's kitty bonus
    page.select_option("#table-form [name=players]", "8")
    assert page.input_value("#table-form [name=mode]") == "friends"
    page.select_option("#table-form [name=mode]", "tractor")
    assert summary(page)["shape"] == "8人 · 4副 · 拖拉机"

    page.click("#house-rules summary")
    page.select_option("#table-form [name=rule_settlement]", "levels")
    shown = summary(page)
    assert shown["name"] == "标准 · 自定规则" and shown["changed"] == "结算"
    assert "在预设规则上改了：结算。" in shown["preset"]
    assert page.errors == []
