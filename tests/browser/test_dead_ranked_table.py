"""An escape at a ranked table as a player who stayed meets it (issue 33, points 3 and 4), in
Chromium on a phone (390×844, 简体): the escape warning quotes what this hand's escape costs
(300 at 打2, quick match's stake 50), and once another player escapes the page says why the
table is closed and its 快速匹配 button puts the player back in the queue."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import QueueEntry, Table
from tests.browser.conftest import screenshot
from tests.browser.test_moments import logged_in_page, off_the_loop
from tests.games.helpers import make_users, ranked_table, ready_all

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
PHONE = (390, 844, "phone", "zh-CN")


def test_after_an_escape_the_stayer_is_told_why_and_quick_matches_again(
    chromium: Any, site: str
) -> None:
    users = make_users(4, prefix="deadpage")
    page = logged_in_page(chromium, site, users[0], PHONE)
    table = off_the_loop(lambda: ranked_table(users))
    hand = off_the_loop(lambda: ready_all(table, users))
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_selector("[data-action=escape]")
    messages: list[str] = []

    def dismiss(dialog: Any) -> None:
        messages.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.click("[data-action=escape]")
    page.wait_for_timeout(300)
    assert messages and "300" in messages[0].splitlines()[0]  # this hand's cost, not 480
    off_the_loop(lambda: services.hand_leave(hand_id=hand.pk, user=users[1]))
    page.wait_for_selector("[data-action=quick-match]")
    assert "有玩家逃跑了" in page.inner_text("#status")
    assert page.inner_text("[data-action=quick-match]") == "快速匹配"
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
    screenshot(page, "dead-ranked-table-phone-hans")
    page.click("[data-action=quick-match]")
    page.wait_for_url("**/tables/**")
    assert QueueEntry.objects.filter(user=users[0]).exists()
    assert not page.errors
