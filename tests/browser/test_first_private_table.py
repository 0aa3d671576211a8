"""The first private table of two brand-new accounts (issue 33, point 1), in Chromium at
1280×800 and 390×844, in 简体 and 繁體: the host signs up and lands on the home page, makes a
private table with the form's defaults while the form says what a seat needs (and says it again
as the stake changes), sits on making it; the friend opens the invite link, signs up from the
table's "log in to sit", comes back to the table, is refused at a table above their points with
both numbers, and sits at the host's table."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from accounts.models import User
from games import services
from games.models import Seat, Table
from tests.browser.conftest import screenshot
from tests.browser.test_play_in_the_browser import PASSWORD, new_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

CASES = [
    (1280, 800, "zh-CN", "desktop-hans"),
    (390, 844, "zh-TW", "phone-hant"),
    (390, 844, "zh-CN", "phone-hans"),
    (1280, 800, "zh-TW", "desktop-hant"),
]
WORDS = {
    "zh-CN": {
        "defaults": "每个座位至少需要 316 桌分。你有 1,000。",
        "stake_100": "每个座位至少需要 1,580 桌分。你有 1,000：降低底分才能自己坐下。",
        "created": "你已入座（东）",
        "refused": "你的桌分 1,000，这张桌每个座位至少需要 1,580",
        "sign_up": "注册",
    },
    "zh-TW": {
        "defaults": "每個座位至少需要 316 桌分。你有 1,000。",
        "stake_100": "每個座位至少需要 1,580 桌分。你有 1,000：降低底分才能自己坐下。",
        "created": "你已入座（東）",
        "refused": "你的桌分 1,000，這張桌每個座位至少需要 1,580",
        "sign_up": "註冊",
    },
}


def sign_up_here(page: Any, username: str) -> None:
    """Fill the sign-up form the page shows (its ``next`` kept)."""
    page.fill("[name=username]", username)
    page.fill("[name=password1]", PASSWORD)
    page.fill("[name=password2]", PASSWORD)
    page.click("form.form button[type=submit]")


def needed_text(page: Any) -> str:
    return page.inner_text("#seat-needed").strip()  # type: ignore[no-any-return]


@pytest.mark.parametrize(("width", "height", "locale", "tag"), CASES)
def test_two_new_accounts_make_and_sit_at_a_private_table_with_the_forms_defaults(
    site: str, chromium: Any, width: int, height: int, locale: str, tag: str
) -> None:
    words = WORDS[locale]
    host_name, friend_name = f"主人{tag.split('-')[0]}{locale[-2:]}", f"朋友{tag}"
    host = new_page(chromium, width, height, locale)
    host.goto(f"{site}/accounts/signup/")
    sign_up_here(host, host_name)
    host.wait_for_url(f"{site}/")  # home: quick match and practice, one click away
    assert host.locator("#home-quick button[type=submit]").count() == 1
    screenshot(host, f"first-table-{tag}-0-home")

    host.goto(f"{site}/tables/new/")
    host.wait_for_function(
        "(text) => document.getElementById('seat-needed').textContent.trim() === text",
        arg=words["defaults"],
    )
    assert "short" not in (host.get_attribute("#seat-needed", "class") or "")
    host.fill("#table-form [name=stake]", "100")
    host.wait_for_function(
        "(text) => document.getElementById('seat-needed').textContent.trim() === text",
        arg=words["stake_100"],
    )
    assert "short" in (host.get_attribute("#seat-needed", "class") or "")
    screenshot(host, f"first-table-{tag}-1-form-stake-100")
    host.fill("#table-form [name=stake]", "20")  # back to the default
    host.wait_for_function(
        "(text) => document.getElementById('seat-needed').textContent.trim() === text",
        arg=words["defaults"],
    )
    host.fill("#table-form [name=name]", f"周五 {tag}")
    host.check("#table-form [name=unlisted]")
    screenshot(host, f"first-table-{tag}-2-form-defaults")
    host.click("#table-form button[type=submit]")
    host.wait_for_url("**/tables/*/")
    table = Table.objects.get(name=f"周五 {tag}")
    assert table.unlisted and table.stake == 20 and table.preset == "ranked"
    assert words["created"] in host.content()
    host.wait_for_function(
        "(name) => ((window.shengjiTable?.state.seats || [])[0] || {}).username === name",
        arg=host_name,
    )
    link = host.input_value("#invite-url")
    screenshot(host, f"first-table-{tag}-3-host-seated")

    # A table above a new player's points: its refusal names both numbers.
    creator = User.objects.get(username=host_name)
    with ThreadPoolExecutor(1) as thread:  # out of Playwright's event loop (the lobby's send)
        dear = thread.submit(
            services.table_create, creator=creator, name=f"高桌 {tag}", stake=100
        ).result()

    friend = new_page(chromium, width, height, locale)
    friend.goto(link)
    friend.wait_for_url(f"**/tables/{table.pk}/")
    friend.click("a.small-link >> nth=0")  # "log in to sit"
    friend.wait_for_url("**/accounts/login/**")
    friend.click(f"p.form-links a:has-text('{words['sign_up']}')")
    friend.wait_for_url("**/accounts/signup/**")
    sign_up_here(friend, friend_name)
    friend.wait_for_url(f"**/tables/{table.pk}/")  # back at the table it came to join

    friend.goto(f"{site}/tables/{dear.pk}/")
    friend.click("[data-action=sit][data-seat='1']")
    friend.wait_for_function(
        "(text) => document.body.innerText.includes(text)", arg=words["refused"]
    )
    screenshot(friend, f"first-table-{tag}-4-friend-refused-with-numbers")
    assert not Seat.objects.filter(table=dear, user__username=friend_name).exists()

    friend.goto(f"{site}/tables/{table.pk}/")
    friend.click("[data-action=sit][data-seat='1']")
    host.wait_for_function(
        "(name) => ((window.shengjiTable?.state.seats || [])[1] || {}).username === name",
        arg=friend_name,
    )
    screenshot(friend, f"first-table-{tag}-5-friend-seated")
    screenshot(host, f"first-table-{tag}-6-host-sees-friend")
    assert Seat.objects.get(table=table, index=0).user.username == host_name  # type: ignore[union-attr]
    assert Seat.objects.get(table=table, index=1).user.username == friend_name  # type: ignore[union-attr]
    assert host.errors == [] and friend.errors == []
