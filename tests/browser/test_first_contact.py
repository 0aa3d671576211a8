"""A new player's first visit (issue 16), in Chromium at 1280×800 and 390×844: the home page →
practice against three bots in one click → a whole hand, using the hint once and picking
adjacent cards → the rules card says the table's preset → leave the next hand with the cost the
dialog announced (nothing, at a practice table: no point moves). And a private table, joined by
its invite link from a second browser, which a stranger cannot open."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Hand, Table
from ladder.models import HandSettlement
from ladder.selectors import player_balance
from shengji.engine import PRESETS
from tests.browser.conftest import screenshot
from tests.browser.test_play_in_the_browser import new_page, sign_up, state
from tests.browser.test_table_client import labels, play_with_checks

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
SIZES = [(1280, 800, "desktop"), (390, 844, "phone")]
NEXT_HAND_TIMEOUT_MS = 30_000


def config(page: Any) -> dict[str, Any]:
    return page.evaluate(  # type: ignore[no-any-return]
        "JSON.parse(document.getElementById('table-config').textContent)"
    )


def practice_in_one_click(page: Any, site: str, tag: str) -> Table:
    page.goto(f"{site}/")
    screenshot(page, f"first-{tag}-0-home")
    page.click("#home-practice button[type=submit]")
    page.wait_for_url("**/tables/*/")
    table = Table.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert table.unlisted and not table.ranked
    page.wait_for_function("() => window.shengjiTable && window.shengjiTable.state.hand")
    seats = state(page)["seats"]
    assert [bool(s["bot"]) for s in seats] == [False, True, True, True]
    return table


def check_rules_card(page: Any, table: Table, tag: str) -> None:
    """Every row of the card is the preset's value; its name is the preset's name in words."""
    page.click("#rules-card summary")
    rows = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#rules-card .rules-row')]
             .map((row) => [row.dataset.option, row.dataset.value]))"""
    )
    options = PRESETS[table.preset].to_dict()["options"]
    for option, value in rows.items():
        if option != "fees":
            assert options[option] == value, option
    assert {"bidding", "no_bid", "kitty_multiplier", "settlement", "escape_penalty"} <= set(rows)
    assert "fees" in rows
    assert table.preset not in page.inner_text("#rules-card summary")  # a name, not a code
    screenshot(page, f"first-{tag}-3-rules-card")


def autopilot_on_and_off(page: Any, tag: str) -> None:
    """托管 on: the seat shows the 托管 mark alone (the player keeps the seat, it is not a bot's);
    off again: the mark goes and the seat is the player's own."""
    page.click("[data-action=autopilot]")
    page.wait_for_selector("#seat-bottom .badge.autopilot")
    assert page.locator("#seat-bottom .badge.bot").count() == 0
    screenshot(page, f"first-{tag}-autopilot")
    page.click("[data-action=autopilot]")
    page.wait_for_selector("#seat-bottom .badge.autopilot", state="detached")
    assert page.locator("#seat-bottom .badge.bot").count() == 0


def leave_the_next_hand(page: Any, table: Table, tag: str) -> str:
    """Closing the result readies the seat (auto-ready waits for it) and the next hand is
    dealt; leave it, accepting the dialog; returns its words."""
    first = Hand.objects.get(match__table=table)
    page.click("#result [data-action=close-result]")
    page.wait_for_function(
        f"() => {{ const h = window.shengjiTable.state.hand; return h && h.id !== {first.pk}; }}",
        timeout=NEXT_HAND_TIMEOUT_MS,
    )
    page.wait_for_selector("[data-action=escape]")
    autopilot_on_and_off(page, tag)
    shown: list[str] = []

    def accept(dialog: Any) -> None:
        shown.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.click("[data-action=escape]")
    page.wait_for_function(
        "() => { const h = window.shengjiTable.state.hand; return !h || h.status !== 'playing'; }"
    )
    screenshot(page, f"first-{tag}-4-left")
    assert len(shown) == 1
    return shown[0]


@pytest.mark.parametrize(("width", "height", "tag"), SIZES)
def test_home_practice_hint_rules_card_and_leave(
    site: str, chromium: Any, width: int, height: int, tag: str
) -> None:
    page = new_page(chromium, width, height, "zh-CN")
    sign_up(page, site, f"first{tag}")
    table = practice_in_one_click(page, site, tag)
    me = table.creator
    assert me is not None
    balance = player_balance(user=me)
    screenshot(page, f"first-{tag}-1-practice")

    words = labels(page)
    final = play_with_checks(page, f"first-{tag}", words)
    hand = Hand.objects.get(match__table=table)
    assert final["result"] == hand.result
    screenshot(page, f"first-{tag}-2-result")
    check_rules_card(page, table, tag)

    announced = leave_the_next_hand(page, table, tag)
    rules = config(page)["rules"]
    assert announced == rules["practice_text"]  # a bot is seated: leaving costs nothing
    escaped = Hand.objects.filter(match__table=table).exclude(pk=hand.pk).get()
    assert escaped.status == Hand.Status.ESCAPED
    assert player_balance(user=me) == balance  # nothing moved, as announced
    assert all(s.practice for s in HandSettlement.objects.filter(hand__match__table=table))
    assert page.errors == []


def choose_a_house_rule(page: Any, tag: str) -> None:
    """Open the house rules, change one: the summary marks it and names the rules so."""
    words = page.evaluate("JSON.parse(document.getElementById('rules-data').textContent)")
    page.click("#house-rules summary")
    page.select_option("#table-form [name=rule_escape_penalty]", "none")
    changed = page.locator("#rules-summary .rules-row.changed")
    assert changed.count() == 1
    assert changed.locator("dd").inner_text() == words["options"]["escape_penalty"]["words"]["none"]
    assert words["house_label"] in page.inner_text("#rules-summary-name")
    screenshot(page, f"private-{tag}-form")


@pytest.mark.parametrize(("width", "height", "tag"), SIZES)
def test_a_private_table_joined_by_its_link(
    site: str, chromium: Any, width: int, height: int, tag: str
) -> None:
    host = new_page(chromium, width, height, "zh-CN")
    sign_up(host, site, f"host{tag}")
    host.goto(f"{site}/tables/new/")
    host.fill("#table-form [name=name]", f"friends {tag}")
    host.fill("#table-form [name=stake]", "10")  # a new player's points cover this stake
    host.check("#table-form [name=unlisted]")
    choose_a_house_rule(host, tag)
    host.click("#table-form button[type=submit]")
    host.wait_for_url("**/tables/*/")
    table = Table.objects.get(name=f"friends {tag}")
    assert table.unlisted and table.house_rules == {"escape_penalty": "none"}
    assert (
        host.locator("#rules-card [data-option=escape_penalty]").get_attribute("data-value")
        == "none"
    )
    link = host.input_value("#invite-url")
    assert table.invite_code in link
    screenshot(host, f"private-{tag}-0-host")

    stranger = new_page(chromium, width, height, "zh-CN")
    sign_up(stranger, site, f"stranger{tag}")
    response = stranger.goto(f"{site}/tables/{table.pk}/")
    assert response is not None and response.status == 404
    lobby = stranger.goto(f"{site}/tables/")
    assert lobby is not None and f"friends {tag}" not in stranger.content()

    friend = new_page(chromium, width, height, "zh-CN")
    sign_up(friend, site, f"friend{tag}")
    friend.goto(link)
    friend.wait_for_url(f"**/tables/{table.pk}/")
    friend.click("[data-action=sit][data-seat='1']")
    host.wait_for_function(f"() => window.shengjiTable.state.seats[1].username === 'friend{tag}'")
    screenshot(friend, f"private-{tag}-1-friend")
    assert host.errors == [] and friend.errors == []

    friend.context.close()  # the friend's phone drops: the host sees them away, counting down
    countdown = host.locator("#seat-right .badge.away .away-left")
    countdown.wait_for()
    first = countdown.inner_text()
    assert any(ch.isdigit() for ch in first)
    host.wait_for_function(
        "(before) => document.querySelector('#seat-right .away-left').textContent !== before",
        arg=first,
    )
    screenshot(host, f"private-{tag}-2-friend-away")
