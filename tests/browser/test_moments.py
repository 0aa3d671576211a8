"""The table page's moments around a hand (issue 33), in Chromium at 1280×800 and 390×844, in
简体 and 繁體: the result is on the first screen (a sheet over the table on a phone) and the
next deal waits the pause after it; the big clock is blank during the deal and a bot's turn; a
turn that runs out says so on the page; a closed table says so at once and after a reload,
with no seat offered; the first screen of a phone shows the table and its switches."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any, TypeVar

import pytest
from django.conf import settings
from django.db import connection

from accounts.errors import ApplicationError
from accounts.models import User
from games import services
from games.handstate import load_state
from games.models import ChatLine, Hand, Match, Table
from games.services.start import _rules_for
from shengji.engine import legal_actions
from tests.browser.conftest import screenshot
from tests.browser.test_play_in_the_browser import new_page
from tests.games.helpers import hand_act, make_users

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
SIZES = [(1280, 800, "desktop", "zh-CN"), (390, 844, "phone", "zh-TW")]
HAND_TIMEOUT_S = 120
PASSWORD = "pw-long-enough-1"  # make_users' password
T = TypeVar("T")


def off_the_loop(call: Callable[[], T]) -> T:
    """Runs a service call in a thread of its own: a service sends to the channel layer
    (async_to_sync), which Playwright's event loop in this thread forbids."""

    def run() -> T:
        try:
            return call()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def logged_in_page(chromium: Any, site: str, user: User, size: tuple[int, int, str, str]) -> Any:
    """A page logged in as ``user`` through the log-in form, which returns to ``next``."""
    width, height, _, locale = size
    page = new_page(chromium, width, height, locale)
    page.goto(f"{site}/accounts/login/?next=/tables/")
    page.fill("[name=username]", user.username)
    page.fill("[name=password]", PASSWORD)
    page.click("form.form button[type=submit]")
    page.wait_for_url("**/tables/")
    return page


def table_with_bots(user: User, deal_interval_ms: int = 0) -> Table:
    return off_the_loop(lambda: _table_with_bots(user, deal_interval_ms))


def _table_with_bots(user: User, deal_interval_ms: int) -> Table:
    """A casual table: the user in seat 0, bots in 1–3, not yet ready."""
    table = services.table_create(
        creator=user,
        name=f"moments {user.username}",
        play_seconds=30,
        bury_seconds=30,
        bid_window_seconds=0,
        deal_interval_ms=deal_interval_ms,
    )
    services.seat_take(table_id=table.pk, user=user, index=0)
    for index in (1, 2, 3):
        services.seat_fill_bot(table_id=table.pk, user=user, index=index)
    return table


def visible_in_viewport(page: Any, selector: str) -> bool:
    return page.evaluate(  # type: ignore[no-any-return]
        """(selector) => { const node = document.querySelector(selector);
             if (!node || node.hidden) return false;
             const box = node.getBoundingClientRect();
             return box.height > 0 && box.top >= 0 && box.top < window.innerHeight; }""",
        selector,
    )


def words(page: Any) -> dict[str, Any]:
    return page.evaluate(  # type: ignore[no-any-return]
        "JSON.parse(document.getElementById('table-labels').textContent)"
    )


def clock_and_turn(page: Any) -> dict[str, Any]:
    """The clock's text and whose turn it is, read together after a render."""
    return page.evaluate(  # type: ignore[no-any-return]
        """() => { const h = window.shengjiTable.state.hand; const v = h && h.view;
             const seats = window.shengjiTable.state.seats;
             return { phase: v ? v.phase : null, status: h ? h.status : null,
                      toAct: v ? v.to_act : null,
                      bot: v && v.to_act !== null ? Boolean(seats[v.to_act].bot) : null,
                      clock: document.getElementById('clock').textContent,
                      urgent: document.getElementById('clock').classList.contains('urgent') }; }"""
    )


def play_for(user: User, hand: Hand, seat: int) -> None:
    """The user's seat moves now, through the services (the page watches)."""
    current = Hand.objects.get(pk=hand.pk)
    state_now = load_state(current)
    if state_now.to_act != seat or current.status != Hand.Status.PLAYING:
        return
    text = str(legal_actions(state_now, seat)[0])
    with contextlib.suppress(ApplicationError):  # a bot or the deadline moved first
        off_the_loop(lambda: hand_act(hand_id=current.pk, user=user, text=text, seq=current.seq))


def finish_hand(page: Any, user: User, hand: Hand) -> None:
    """Plays the user's turns, checking the clock on the way: blank during the deal and on
    a bot's turn, the seconds of the player's own turn otherwise."""
    seen = {"bot": 0, "mine": 0, "dealing": 0}
    started = time.monotonic()
    while Hand.objects.get(pk=hand.pk).status == Hand.Status.PLAYING:
        assert time.monotonic() - started < HAND_TIMEOUT_S, "the hand did not finish"
        now = clock_and_turn(page)
        if now["status"] == "playing" and now["phase"] == "dealing":
            assert now["clock"] == "", now  # not a red "1s" during the deal (issue 33, 6)
            seen["dealing"] += 1
        elif now["status"] == "playing" and now["phase"] == "playing" and now["bot"]:
            assert now["clock"] == "", now  # a bot's short delay is nobody's clock
            seen["bot"] += 1
        elif now["status"] == "playing" and now["phase"] == "playing" and now["toAct"] == 0:
            assert now["clock"].endswith("s") and int(now["clock"][:-1]) > 5, now
            assert not now["urgent"]
            seen["mine"] += 1
        play_for(user, hand, 0)
        page.wait_for_timeout(40)
    assert seen["bot"] and seen["mine"], seen


@pytest.mark.parametrize("size", SIZES, ids=[s[2] for s in SIZES])
def test_the_result_is_seen_before_the_next_deal_and_the_clock_is_the_players(
    site: str, chromium: Any, size: tuple[int, int, str, str]
) -> None:
    tag = size[2]
    (user,) = make_users(1, prefix=f"moment{tag}")
    table = table_with_bots(user, deal_interval_ms=25)
    page = logged_in_page(chromium, site, user, size)
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_function("() => window.shengjiTable && window.shengjiTable.state.table")
    page.wait_for_selector("[data-action=ready]")
    screenshot(page, f"moments-{tag}-0-seated")
    # The first screen of a phone: the table, the seat's buttons and switches above the fold.
    assert visible_in_viewport(page, "#seat-bottom")
    assert visible_in_viewport(page, "[data-action=ready]")
    assert visible_in_viewport(page, "[data-action=auto-ready]")
    # Seat names ("电脑（南家）") on one line each, never one character a line.
    assert page.evaluate(
        """() => [...document.querySelectorAll('.seat-name')].every((node) => {
             const size = parseFloat(getComputedStyle(node).fontSize);
             return node.getBoundingClientRect().height <= size * 1.7; })"""
    )
    hand = off_the_loop(lambda: services.seat_ready(table_id=table.pk, user=user))
    assert hand is not None
    page.wait_for_function("() => window.shengjiTable.state.hand")
    page.wait_for_selector("[data-action=autopilot]")
    assert visible_in_viewport(page, "[data-action=autopilot]")  # 托管 without scrolling
    finish_hand(page, user, hand)
    ended = Hand.objects.get(pk=hand.pk)
    assert ended.finished_at is not None

    # The result: on the first screen at once. Auto-ready waits for its reader: while it is
    # open the seat is not ready, and the next deal waits for everyone to be.
    page.wait_for_selector("#result:not([hidden]) .next-hand")
    assert visible_in_viewport(page, "#result")
    labels = words(page)
    page.wait_for_selector("#result .ready-held")
    assert page.inner_text("#result .ready-held") == labels["auto_ready_waits"]
    page.wait_for_function(
        "(text) => document.querySelector('#result .next-hand').textContent === text",
        arg=labels["next_hand_waiting"],
    )
    page.wait_for_selector("#result .ledger-practice")
    screenshot(page, f"moments-{tag}-1-result")
    assert not Hand.objects.filter(match__table=table, number=2).exists()

    # Past the pause the result is still there, and no hand started under it; closing it
    # readies the seat (auto-ready) and the next hand is dealt (docs/PROTOCOL.md).
    time.sleep(settings.SHENGJI_NEXT_HAND_PAUSE_S + 1)
    assert page.locator("#result").is_visible()
    assert not Hand.objects.filter(match__table=table, number=2).exists()
    page.click("#result [data-action=close-result]")
    page.wait_for_function(
        f"() => {{ const h = window.shengjiTable.state.hand; return h && h.id !== {hand.pk}; }}",
        timeout=30_000,
    )
    second = Hand.objects.get(match__table=table, number=2)
    pause = timedelta(seconds=settings.SHENGJI_NEXT_HAND_PAUSE_S)
    assert second.started_at >= ended.finished_at + pause
    page.wait_for_selector("#result", state="hidden")
    assert not page.errors, page.errors
    the_replay_fits_the_screen(page, site, hand.pk, tag)
    page.context.close()


def the_replay_fits_the_screen(page: Any, site: str, hand_id: int, tag: str) -> None:
    """Every hand of the replay stays inside the screen's width (a phone's too)."""
    page.goto(f"{site}/hands/{hand_id}/")
    page.wait_for_function("() => window.shengjiReplay && window.shengjiReplay.count > 30")
    page.click("#replay-next-trick")
    overflow = page.evaluate(
        """() => [...document.querySelectorAll('.hand-box, .hand-box .card')]
             .map((node) => node.getBoundingClientRect().right)
             .filter((right) => right > document.documentElement.clientWidth + 1).length"""
    )
    assert overflow == 0
    assert page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    screenshot(page, f"moments-{tag}-replay")


@pytest.mark.parametrize("size", SIZES, ids=[s[2] for s in SIZES])
def test_a_turn_that_runs_out_says_so_on_the_page(
    site: str, chromium: Any, size: tuple[int, int, str, str]
) -> None:
    tag = size[2]
    (user,) = make_users(1, prefix=f"late{tag}")
    table = table_with_bots(user)
    Table.objects.filter(pk=table.pk).update(play_seconds=3, bury_seconds=3)
    page = logged_in_page(chromium, site, user, size)
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_function("() => window.shengjiTable && window.shengjiTable.state.table")
    hand = off_the_loop(lambda: services.seat_ready(table_id=table.pk, user=user))
    assert hand is not None
    # Nobody plays seat 0: its time runs out and the server moves for it.
    line = None
    started = time.monotonic()
    while line is None:
        assert time.monotonic() - started < 60, "no turn ran out"
        line = ChatLine.objects.filter(
            table=table, code__in=["timeout_play", "timeout_bury"]
        ).first()
        time.sleep(0.2)
    labels = words(page)
    if line.code == "timeout_bury":
        note = labels["timeout_me_bury"]
    else:
        note = labels["timeout_me_play"].split("{cards}")[0]
    page.wait_for_function(
        "(note) => document.getElementById('status').textContent.includes(note)", arg=note
    )
    # The chat line names the player and the cards in words, not "0" and "7C".
    prefix = labels["system"][line.code].split("{")[0]
    chat = page.locator("#chat-lines li", has_text=prefix).first.inner_text()
    assert user.username in chat, chat
    if line.code == "timeout_play":
        assert str(line.params[1]) not in chat, chat
    screenshot(page, f"moments-{tag}-timeout")
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("size", SIZES, ids=[s[2] for s in SIZES])
def test_a_closed_table_says_so_at_once_and_offers_no_seat(
    site: str, chromium: Any, size: tuple[int, int, str, str]
) -> None:
    tag = size[2]
    user, admin = make_users(2, prefix=f"closed{tag}")
    table = table_with_bots(user)
    hand = off_the_loop(lambda: services.seat_ready(table_id=table.pk, user=user))
    assert hand is not None
    page = logged_in_page(chromium, site, user, size)
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_selector("[data-action=escape]")
    off_the_loop(lambda: services.table_close(table_id=table.pk, actor=admin, reason="test"))
    labels = words(page)

    def shows_closed() -> None:
        page.wait_for_selector("#table-closed:not([hidden])")
        assert visible_in_viewport(page, "#table-closed")
        assert labels["closed_title"] in page.inner_text("#table-closed")
        page.wait_for_function(
            """() => { const t = window.shengjiTable && window.shengjiTable.state.table;
                 return Boolean(t) && t.status === 'closed'; }"""
        )
        for action in ("sit", "bot", "ready", "escape", "autopilot"):
            assert page.locator(f"[data-action={action}]").count() == 0, action
        assert page.locator("#result").is_hidden()  # no result, as if the table went on
        assert page.locator("#table-notice").is_hidden()

    shows_closed()
    screenshot(page, f"moments-{tag}-closed")
    page.reload()
    shows_closed()
    screenshot(page, f"moments-{tag}-closed-reloaded")
    assert not page.errors, page.errors
    page.context.close()


def the_player_deals_next(table: Table, user: User) -> None:
    """A match of this table under way, its next dealer the player at seat 0."""
    Match.objects.create(
        table=table,
        ruleset=_rules_for(table),
        levels=["2", "2"],
        wrapped=[False, False],
        players=[user.pk, None, None, None],
        next_dealer=0,
    )


@pytest.mark.parametrize("size", SIZES, ids=[s[2] for s in SIZES])
def test_a_bury_of_the_wrong_number_says_how_many_and_trumps_stand_apart(
    site: str, chromium: Any, size: tuple[int, int, str, str]
) -> None:
    tag = size[2]
    (user,) = make_users(1, prefix=f"bury{tag}")
    table = table_with_bots(user)
    the_player_deals_next(table, user)
    page = logged_in_page(chromium, site, user, size)
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_function("() => window.shengjiTable && window.shengjiTable.state.table")
    hand = off_the_loop(lambda: services.seat_ready(table_id=table.pk, user=user))
    assert hand is not None and hand.dealer == 0
    page.wait_for_function(
        """() => { const h = window.shengjiTable.state.hand;
             return h && h.view && h.view.phase === 'burying'; }"""
    )
    page.wait_for_selector("[data-action=bury]")
    # Trumps first, marked, and the first plain card set apart from them.
    marks = page.evaluate(
        """() => [...document.querySelectorAll('#hand button.card')].map((node) =>
             node.classList.contains('trump') ? 't' : node.classList.contains('after-trumps')
             ? 'a' : 'p').join('')"""
    )
    # (the gap is within a row: a first plain card that starts a row of its own needs none)
    assert re.fullmatch(r"t+[ap]p*", marks), marks
    cards = page.locator("#hand button.card")
    for index in range(9):
        cards.nth(index).click(position={"x": 6, "y": 22})
    labels = words(page)
    said = labels["bury_too_many"].format(n=9, k=8, extra=1)
    page.wait_for_function(
        "(said) => document.querySelector('#status .reason')?.textContent === said", arg=said
    )
    assert page.locator("#primary-action").is_disabled()
    screenshot(page, f"moments-{tag}-bury-nine")
    cards.nth(8).click(position={"x": 6, "y": 22})
    page.wait_for_selector("#primary-action:not([disabled])")
    assert page.locator("#status .reason").count() == 0
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("skew_s", [-600, 600])
def test_the_clock_counts_by_the_servers_time_on_a_device_whose_clock_is_off(
    site: str, chromium: Any, skew_s: int
) -> None:
    """A phone whose clock is ten minutes off (behind, then ahead) shows the turn's own 30 s,
    not 630 s or nothing: the page counts by the server's clock, which each pong carries
    (docs/PROTOCOL.md, "pong"); the 找朋友 dealer's picks sent before time runs out use it too."""
    (user,) = make_users(1, prefix=f"skew{'behind' if skew_s < 0 else 'ahead'}")
    table = table_with_bots(user)
    page = logged_in_page(chromium, site, user, SIZES[1])
    page.add_init_script(
        "(() => { const real = Date.now.bind(Date);"
        f" Date.now = () => real() + {skew_s * 1000}; }})()"
    )
    page.goto(f"{site}/tables/{table.pk}/")
    page.wait_for_function("() => window.shengjiTable && window.shengjiTable.state.table")
    hand = off_the_loop(lambda: services.seat_ready(table_id=table.pk, user=user))
    assert hand is not None
    started = time.monotonic()
    while True:
        assert time.monotonic() - started < 60, "no turn of the player's with its clock"
        now = clock_and_turn(page)
        mine = now["status"] == "playing" and now["phase"] in ("burying", "playing")
        if mine and now["toAct"] == 0 and now["clock"]:
            break
        page.wait_for_timeout(100)
    seconds = int("".join(ch for ch in now["clock"] if ch.isdigit()))
    assert 20 <= seconds <= 30, now
    assert not now["urgent"]
    page.context.close()
