"""The table page's 悔牌 button (RULES-SPEC.md §10.23): at a table whose house rules allow it,
shown while the player's own play is the hand's last and its trick open, and only then; pressed,
the cards come back to the hand. Chromium at 1280×800, in Chinese."""

from __future__ import annotations

import time
from typing import Any

import pytest

from games import services
from games.handstate import load_state
from games.models import Hand, Table
from shengji.engine import legal_actions
from tests.browser.test_moments import off_the_loop
from tests.browser.test_play_in_the_browser import (
    card_buttons,
    choose,
    create_casual_table,
    new_page,
    sign_up,
    state,
)
from tests.browser.test_table_client import labels
from tests.games.helpers import hand_act, make_users

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def my_turn(page: Any, phase: str, timeout_s: float = 60) -> dict[str, Any]:
    """The page's view once it is seat 0's turn in ``phase``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        hand = state(page)["hand"]
        view = hand["view"] if hand else None
        if view and view["phase"] == phase and view["to_act"] == 0:
            return view  # type: ignore[no-any-return]
        page.wait_for_timeout(100)
    raise AssertionError(f"not seat 0's turn to {phase}: {state(page)}")


def make_move(page: Any, view: dict[str, Any]) -> None:
    seq = state(page)["hand"]["seq"]
    for button in card_buttons(page, choose(view)):
        button.click(position={"x": 6, "y": 22})
    page.wait_for_selector("#primary-action:not([disabled])")
    page.click("#primary-action")
    page.wait_for_function(f"() => window.shengjiTable.state.hand.seq > {seq}")


def test_the_takeback_button_takes_back_my_lead_until_the_next_seat_plays(
    site: str, chromium: Any
) -> None:
    page = new_page(chromium, 1280, 800, "zh-CN")
    sign_up(page, site, "takebacker")
    table_id = create_casual_table(page, site, "takeback table")
    Table.objects.filter(pk=table_id).update(house_rules={"takeback": "on"})
    others = make_users(3, "tbpage")

    def sit_and_ready() -> None:
        for index, user in enumerate(others, 1):
            services.seat_take(table_id=table_id, user=user, index=index)
            services.seat_ready(table_id=table_id, user=user)

    off_the_loop(sit_and_ready)
    page.goto(f"{site}/tables/{table_id}/")
    page.click("[data-action=ready]")

    make_move(page, my_turn(page, "burying"))  # nobody bids: seat 0 deals the first hand
    view = my_turn(page, "playing")
    assert page.locator("[data-action=takeback]").count() == 0  # nothing to take back yet
    make_move(page, view)
    button = page.locator("[data-action=takeback]")
    button.wait_for()
    assert button.inner_text() == labels(page)["takeback"] == "悔牌"
    seq = state(page)["hand"]["seq"]
    button.click()
    page.wait_for_function(f"() => window.shengjiTable.state.hand.seq > {seq}")
    view = state(page)["hand"]["view"]
    assert view["to_act"] == 0 and view["trick"]["plays"] == []
    assert view["taken_back"]["seat"] == 0 and view["can_take_back"] is False
    page.wait_for_selector("[data-action=takeback]", state="detached")

    make_move(page, view)  # the lead again, then seat 1 follows: the lead is no longer the last
    page.locator("[data-action=takeback]").wait_for()
    hand = Hand.objects.filter(match__table_id=table_id).get()
    follow = str(legal_actions(load_state(hand), 1)[0])
    off_the_loop(lambda: hand_act(hand_id=hand.pk, user=others[0], text=follow, seq=hand.seq))
    page.wait_for_function(f"() => window.shengjiTable.state.hand.seq > {hand.seq}")
    page.wait_for_selector("[data-action=takeback]", state="detached")
    texts = list(hand.actions.order_by("seq").values_list("text", flat=True))
    assert [t for t in texts if t.startswith("takeback")] == ["takeback 0"]
    assert page.errors == []
