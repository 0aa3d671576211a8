"""找朋友's calls step in Chromium (docs/ENGINE-PART2-DECISIONS.md F13–F14): the table made with
the create form and its time to bury; the dealer's pickers start from calls of cards the dealer
lacks; a call of a held card is accepted with a warning in words; the clock names the step
("叫朋友", then "扣底") and the calls, sent on their own, start the bury's own clock. At phone
size in 简体 and 繁體, at desktop size in English; screenshots in artifacts/browser/."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest

from accounts.models import User
from games.models import Match, Table
from games.services.start import _rules_for
from shengji.engine import Trump, format_cards, parse_cards
from shengji.engine.views import sample_bury
from tests.browser.conftest import screenshot
from tests.browser.test_play_in_the_browser import card_buttons, new_page, sign_up, state

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
SEATS = 6
BURY_S = 90
WORDS = {
    "zh-CN": {"calls": "叫朋友", "bury": "扣底", "held": "你手里有"},
    "zh-TW": {"calls": "叫朋友", "bury": "扣底", "held": "你手裡有"},
    "en-US": {"calls": "Calls", "bury": "Bury", "held": "You hold"},
}


def make_the_table(page: Any, site: str, name: str) -> int:
    """The create form at six players (找朋友), its time to bury set."""
    page.goto(f"{site}/tables/new/")
    page.fill("#table-form [name=name]", name)
    page.select_option("#table-form [name=players]", str(SEATS))
    page.select_option("#table-form [name=mode]", "friends")
    page.fill("#table-form [name=stake]", "10")
    page.fill("#table-form [name=bury_seconds]", str(BURY_S))
    page.click("#table-form button[type=submit]")
    page.wait_for_url("**/tables/*/")
    table = Table.objects.get(name=name)
    assert table.bury_seconds == BURY_S and table.rules().is_friends
    Table.objects.filter(pk=table.pk).update(deal_interval_ms=20, bid_window_seconds=2)
    return table.pk


def seat_bots_and_deal(page: Any, table_id: int, username: str) -> None:
    """Five bots, and a match under way whose next dealer is the player (seat 0)."""
    page.wait_for_selector("[data-action=ready]")
    for seat in range(1, SEATS):
        page.click(f"[data-action=bot][data-seat='{seat}']")
        page.wait_for_function(
            f"() => window.shengjiTable.state.seats.find((s) => s.seat === {seat}).bot"
        )
    Match.objects.create(
        table=Table.objects.get(pk=table_id),
        ruleset=_rules_for(Table.objects.get(pk=table_id)),
        levels=["2"] * SEATS,
        wrapped=[False] * SEATS,
        players=[User.objects.get(username=username).pk] + [None] * (SEATS - 1),
        next_dealer=0,
    )
    page.click("[data-action=ready]")


def until_the_calls_step(page: Any) -> dict[str, Any]:
    started = time.monotonic()
    while time.monotonic() - started < 120:
        hand = state(page)["hand"]
        view: dict[str, Any] | None = hand["view"] if hand else None
        if view and view["phase"] == "burying" and view["to_act"] == 0:
            return view
        bids = page.locator("[data-action=bid]")
        if view and view["phase"] in ("dealing", "bidding") and not view["bids"] and bids.count():
            with contextlib.suppress(Exception):  # the deal may move on under the pointer
                bids.first.click(timeout=1000)
        page.wait_for_timeout(80)
    raise AssertionError("the dealer never reached the calls step")


def picked(page: Any) -> list[str]:
    rows = page.locator("#calls-pick .call-picker")
    return [
        rows.nth(i).locator("select.call-ordinal").input_value()
        + rows.nth(i).locator("select.call-rank").input_value()
        + rows.nth(i).locator("select.call-suit").input_value()
        for i in range(rows.count())
    ]


def set_call(page: Any, index: int, call: str) -> None:
    row = page.locator(f"#calls-pick .call-picker[data-call='{index}']")
    row.locator("select.call-ordinal").select_option(call[0])
    row.locator("select.call-suit").select_option(call[-1])
    row.locator("select.call-rank").select_option(call[1:-1])


def seconds_left(page: Any) -> float:
    return float(
        page.evaluate(
            "() => (Date.parse(window.shengjiTable.state.hand.deadline) - Date.now()) / 1000"
        )
    )


@pytest.mark.parametrize(
    ("width", "height", "locale", "tag"),
    [
        (390, 844, "zh-CN", "phone-hans"),
        (390, 844, "zh-TW", "phone-hant"),
        (1280, 800, "en-US", "desktop-en"),
    ],
)
def test_the_dealer_calls_in_a_step_of_their_own_from_calls_they_lack(
    site: str, chromium: Any, width: int, height: int, locale: str, tag: str
) -> None:
    words = WORDS[locale]
    page = new_page(chromium, width, height, locale)
    username = f"caller{tag.replace('-', '')}"
    sign_up(page, site, username)
    table_id = make_the_table(page, site, f"calls {tag}")
    seat_bots_and_deal(page, table_id, username)
    view = until_the_calls_step(page)

    page.wait_for_selector("#calls-pick .calls-status.ok")
    offered = picked(page)
    assert offered == view["call_defaults"].split()
    held = view["hand"].split()
    assert not [c for c in offered if c[1:] in held], (offered, held)
    assert page.inner_text("#clock").startswith(words["calls"])
    screenshot(page, f"calls-{tag}-1-offered")

    # A card of the dealer's hand: accepted, with what it means.
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    plain = [c for c in parse_cards(view["hand"]) if not trump.is_trump(c)]
    mine = format_cards([max(plain, key=lambda c: trump.orders[c])])
    set_call(page, 0, f"1{mine}")
    page.wait_for_selector("#calls-pick .calls-status.ok.warn")
    assert words["held"] in page.inner_text("#calls-pick .calls-status")
    screenshot(page, f"calls-{tag}-2-held-warning")
    set_call(page, 0, offered[0])
    page.wait_for_selector("#calls-pick .calls-status.ok:not(.warn)")

    # The calls alone: the bury's own clock, whole.
    page.locator("#calls-pick [data-action=call]").scroll_into_view_if_needed()
    page.click("#calls-pick [data-action=call]")
    page.wait_for_function("() => window.shengjiTable.state.hand.view.calls_made")
    page.wait_for_function(
        f"() => document.getElementById('clock').textContent.startsWith({words['bury']!r})"
    )
    assert seconds_left(page) > BURY_S - 10
    screenshot(page, f"calls-{tag}-3-bury-clock")

    view = state(page)["hand"]["view"]
    bury = format_cards(sample_bury(list(parse_cards(view["hand"])), trump, view["kitty_size"]))
    for button in card_buttons(page, bury.split()):
        button.click(position={"x": 6, "y": 22})
    page.wait_for_selector("#primary-action:not([disabled])")
    page.click("#primary-action")
    page.wait_for_function("() => window.shengjiTable.state.hand.view.phase === 'playing'")
    calls = state(page)["hand"]["view"]["calls"]
    assert [f"{c['ordinal']}{c['card']}" for c in calls] == offered
    assert page.errors == []


def test_picks_not_sent_go_before_each_step_runs_out(site: str, chromium: Any) -> None:
    """The dealer picks calls of their own, then a bury, and never presses a button: the page
    sends each just before its step ends, so the system's moves never replace a legal choice."""
    page = new_page(chromium, 390, 844, "zh-CN")
    username = "callerlate"
    sign_up(page, site, username)
    table_id = make_the_table(page, site, "calls late")
    Table.objects.filter(pk=table_id).update(bury_seconds=10)
    seat_bots_and_deal(page, table_id, username)
    until_the_calls_step(page)
    offered = picked(page)
    mine = [offered[0], f"2{offered[1][1:]}"]  # the second copy of the card offered second
    set_call(page, 1, mine[1])
    page.wait_for_selector("#calls-pick .calls-status.ok:not(.warn)")
    page.wait_for_function("() => window.shengjiTable.state.hand.view.calls_made", timeout=20_000)
    view = state(page)["hand"]["view"]
    assert [f"{c['ordinal']}{c['card']}" for c in view["calls"]] == mine
    assert view["phase"] == "burying"
    assert "时间到" not in page.inner_text("#chat-lines")  # no timeout: the dealer's own calls
    assert page.inner_text("#clock").startswith(WORDS["zh-CN"]["bury"])
    assert seconds_left(page) > 5
    # The bury, picked and checked but not pressed, goes before its own time runs out too.
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    bury = format_cards(sample_bury(list(parse_cards(view["hand"])), trump, view["kitty_size"]))
    for button in card_buttons(page, bury.split()):
        button.click(position={"x": 6, "y": 22})
    page.wait_for_selector("#primary-action:not([disabled])")
    page.wait_for_function(
        "() => window.shengjiTable.state.hand.view.phase === 'playing'", timeout=20_000
    )
    assert sorted(state(page)["hand"]["view"]["kitty"].split()) == sorted(bury.split())
    assert "时间到" not in page.inner_text("#chat-lines")
    assert page.errors == []
