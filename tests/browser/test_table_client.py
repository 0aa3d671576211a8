"""The table page as a player meets it (issue 16): seats named 东南西北 and 下家/对家/上家, the
levels as 打N, the hint button picking a play, adjacent cards picked by their visible corners at
desktop and phone sizes, the strip above the hand on a phone, the leave dialog's cost, the
sound switch. Chromium at 1280×800 and 390×844, in Chinese."""

from __future__ import annotations

import time
from typing import Any

import pytest

from games.models import Hand
from tests.browser.conftest import screenshot
from tests.browser.test_play_in_the_browser import (
    HAND_TIMEOUT_S,
    card_buttons,
    choose,
    create_casual_table,
    new_page,
    sign_up,
    state,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
POSITIONS = ["bottom", "right", "top", "left"]


def labels(page: Any) -> dict[str, Any]:
    return page.evaluate(  # type: ignore[no-any-return]
        "JSON.parse(document.getElementById('table-labels').textContent)"
    )


def picked(page: Any) -> list[int]:
    """The raised cards, by their place in the hand."""
    return page.evaluate(  # type: ignore[no-any-return]
        """() => [...document.querySelectorAll("#hand button.card[aria-pressed='true']")]
                 .map((node) => Number(node.dataset.index))"""
    )


def click_corner(page: Any, index: int) -> None:
    """Click a card where it shows under its right neighbour: its top-left corner."""
    page.locator(f"#hand button.card[data-index='{index}']").click(position={"x": 6, "y": 22})


def check_adjacent_picking(page: Any) -> None:
    """Pick two neighbours, each by its visible corner, the left one raised first; then drop
    them: the card clicked is the one that rises or falls, even of two copies of one card
    (first pair, last pair, and around the middle, where a phone's hand breaks its rows)."""
    n = page.locator("#hand button.card").count()
    for left in sorted({0, n - 2, n // 2 - 1, n // 2}):
        right = left + 1
        click_corner(page, left)
        assert picked(page) == [left]
        click_corner(page, right)
        assert picked(page) == [left, right]
        click_corner(page, left)
        assert picked(page) == [right]
        click_corner(page, right)
        assert picked(page) == []


def check_seat_names(page: Any, words: dict[str, Any]) -> None:
    """Seat 0 (you) East at the bottom; 下家 South on the right, 对家 West, 上家 North."""
    for seat, position in enumerate(POSITIONS):
        box = page.locator(f"#seat-{position}")
        assert box.locator(".wind").inner_text() == words["compass"][seat]
        assert box.locator(".relative").inner_text() == words["relative"][seat]
    felt = page.inner_text(".felt")
    assert "号位" not in felt and "Seat 0" not in felt


def check_strip_above_the_hand(page: Any) -> None:
    """On a phone, with the hand in view, the strip (trump, levels, points, clock) is in view
    too, right above the hand."""
    page.locator("#hand").scroll_into_view_if_needed()
    strip = page.locator("#strip").bounding_box()
    hand = page.locator("#hand").bounding_box()
    viewport = page.viewport_size
    assert strip is not None and hand is not None
    assert strip["y"] >= 0 and strip["y"] + strip["height"] <= viewport["height"]
    assert strip["y"] + strip["height"] <= hand["y"] + 1
    assert page.locator("#strip [data-clock]").count() == 1


def check_escape_dialog(page: Any, words: dict[str, Any]) -> None:
    """The leave dialog says what leaving costs here; dismissed, nothing happens."""
    config = page.evaluate("JSON.parse(document.getElementById('table-config').textContent)")
    messages: list[str] = []

    def dismiss(dialog: Any) -> None:
        messages.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.click("[data-action=escape]")
    page.wait_for_timeout(200)
    assert len(messages) == 1
    rules = config.get("rules")
    practice = any(seat["bot"] and not seat["user"] for seat in state(page)["seats"])
    if practice:  # a bot of its own in a seat: the hand is practice, leaving costs nothing
        assert messages[0] == rules["practice_text"]
    elif rules and isinstance(rules.get("escape_cost"), int):
        now = state(page)["table"].get("escape_cost")  # this hand's, by the settlement's code
        cost = now if isinstance(now, int) else rules["escape_cost"]
        if cost > 0:
            assert str(cost) in messages[0]
        else:
            assert messages[0].startswith(words["escape_confirm_free"])
    else:
        assert messages[0] == words["escape_confirm"]


def check_sound_switch(page: Any) -> None:
    page.click("[data-action=sound]")
    assert page.evaluate("localStorage.getItem('shengji.sound')") == "1"
    assert page.get_attribute("[data-action=sound]", "aria-pressed") == "true"
    page.click("[data-action=sound]")
    assert page.evaluate("localStorage.getItem('shengji.sound')") == "0"


def play_with_checks(page: Any, tag: str, words: dict[str, Any]) -> dict[str, Any]:
    """Play the hand; on the first turns check picking, the hint, the strip and the dialogs."""
    done: set[str] = set()
    started = time.monotonic()
    while time.monotonic() - started < HAND_TIMEOUT_S:
        current = state(page)
        hand = current["hand"]
        view: dict[str, Any] | None = hand["view"] if hand else None
        if view is None or view["phase"] in ("dealing", "bidding"):
            page.wait_for_timeout(100)
            continue
        if view["phase"] == "finished":
            return view
        if view["to_act"] != current["you"]["seat"]:
            page.wait_for_timeout(80)
            continue
        seq = hand["seq"]
        page.wait_for_selector("#primary-action")
        if view["phase"] == "playing" and "pick" not in done:
            check_adjacent_picking(page)
            done.add("pick")
        if view["phase"] == "playing" and view["tricks_played"] >= 2 and "hint" not in done:
            screenshot(page, f"client-{tag}-mid-hand")
            if tag == "phone":
                check_strip_above_the_hand(page)
            else:
                check_escape_dialog(page, words)
            page.click("[data-action=hint]")
            page.wait_for_function(
                "() => document.querySelectorAll(\"#hand button.card[aria-pressed='true']\").length"
            )
            page.wait_for_selector("#primary-action:not([disabled])")
            screenshot(page, f"client-{tag}-hint")
            page.click("#primary-action")
            done.add("hint")
        else:
            for button in card_buttons(page, choose(view)):
                button.click(position={"x": 6, "y": 22})
            page.wait_for_selector("#primary-action:not([disabled])")
            page.click("#primary-action")
        page.wait_for_function(f"() => window.shengjiTable.state.hand.seq > {seq}")
    raise AssertionError(f"the hand did not finish in {HAND_TIMEOUT_S} s: {state(page)}")


@pytest.mark.parametrize(("width", "height", "tag"), [(1280, 800, "desktop"), (390, 844, "phone")])
def test_a_hand_with_seat_names_hint_and_adjacent_picks(
    site: str, chromium: Any, width: int, height: int, tag: str
) -> None:
    page = new_page(chromium, width, height, "zh-CN")
    sign_up(page, site, f"client{tag}")
    table_id = create_casual_table(page, site, f"client {tag}")
    page.goto(f"{site}/tables/{table_id}/")
    page.wait_for_selector("[data-action=ready]")  # its creator sits on making it (issue 33)
    for seat in (1, 2, 3):
        page.click(f"[data-action=bot][data-seat='{seat}']")
        page.wait_for_selector(f"#seat-{POSITIONS[seat]} .badge.bot")
    words = labels(page)
    check_seat_names(page, words)
    check_sound_switch(page)
    page.click("[data-action=ready]")

    final = play_with_checks(page, tag, words)

    hand = Hand.objects.filter(match__table_id=table_id).get()
    assert final["result"] == hand.result
    screenshot(page, f"client-{tag}-result")
    # Levels read as players say them (打2), never "级 2"; the table counts its own hands.
    info = page.inner_text("#info")
    assert words["plays_level"].replace("{rank}", "2") in info
    assert (
        page.inner_text("#table-number").strip() != ""
        or state(page)["table"].get("match_number") is None
    )
    chat = page.inner_text("#chat-lines")
    bot_line = words["system"]["bot_sits"].replace(
        "{0}", words["seat_called"].replace("{compass}", words["compass"][1])
    )
    assert bot_line in chat
    assert "号位" not in chat and "+" not in chat
    assert page.errors == []
