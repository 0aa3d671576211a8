"""The table on a phone (390×844) at 找朋友 tables of 4, 5, 6 and 8 seats, in 简体 and 繁體: the
hand never moves under the finger while a trick fills (its place measured on every animation
frame of the tricks played), every card offers at least 22 px to tap even in the dealer's hand
with the kitty, the hand and 出牌 are on the first screen once the game starts (the invite and
the "table made" banner folded, the table's shape shown in short), the result stays until its
reader closes it (auto-ready waits for it), a failed-throw note goes with its hand, and after
an escape the result never covers 坐这里. Screenshots in artifacts/browser/."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from games.models import Hand, Match
from games.services import seat_fill_bot, table_create_seated
from games.services.start import _rules_for
from shengji.engine import Trump, format_cards, parse_cards
from shengji.engine.views import sample_bury
from tests.browser.conftest import assert_fits_across, screenshot
from tests.browser.test_play_in_the_browser import card_buttons, new_page, sign_up, state
from tests.browser.test_shapes_friends import choose_calls, choose_play

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
PHONE = (390, 844)
MIN_TAP_PX = 22  # half the 44 px guideline for a touch target
PHASE_TIMEOUT_S = 120
SHAPE_WORDS = {4: "", 5: "5人 · 2副 · 找朋友", 6: "6人 · 3副 · 找朋友", 8: "8人 · 4副 · 找朋友"}

# Every animation frame while a hand is played: where the hand's top is on the page, and the
# bounding box of its cards (page coordinates, rounded to the pixel), and the heights of what
# stands above it (to name what grew when the hand moved).
SAMPLER = """() => {
  const ABOVE_THE_HAND = ['body > header', 'main > .messages', '.tbl-head', '#table-closed',
    '.tbl-folds', '.felt', '.felt .trick', '.seats-top', '.seats-left', '.seats-right',
    '.seats-bottom', '#strip'];
  window.__handSamples = [];
  const sample = () => {
    const s = window.shengjiTable && window.shengjiTable.state;
    const v = s && s.hand && s.hand.view;
    const hand = document.getElementById('hand');
    if (v && v.phase === 'playing' && !hand.hidden) {
      const box = hand.getBoundingClientRect();
      const cards = [...hand.querySelectorAll('button.card')].map((b) => b.getBoundingClientRect());
      const cardsTop = Math.min(...cards.map((r) => r.top));
      window.__handSamples.push({
        trick: v.tricks_played, plays: v.trick ? v.trick.plays.length : 0,
        top: Math.round(box.top + window.scrollY), left: Math.round(box.left),
        toAct: v.to_act, viewH: window.innerHeight,
        cardsTop: Math.round(cardsTop + window.scrollY),
        above: ABOVE_THE_HAND.map((q) => {
          const node = document.querySelector(q);
          return node ? `${q} ${Math.round(node.getBoundingClientRect().height)}` : q;
        }).join(', '),
      });
    }
    window.__handSampler = requestAnimationFrame(sample);
  };
  sample();
}"""

NARROWEST_TAP = """() => {
  const cards = [...document.querySelectorAll('#hand button.card')]
    .map((b) => b.getBoundingClientRect());
  let least = Infinity;
  cards.forEach((r, i) => {
    const next = cards[i + 1];
    const shown = next && Math.abs(next.top - r.top) < 2 ? next.left - r.left : r.width;
    least = Math.min(least, shown);
  });
  return least;
}"""


def page_bottom(page: Any, selector: str) -> float:
    return float(
        page.evaluate(
            f"() => document.querySelector('{selector}').getBoundingClientRect().bottom"
            " + window.scrollY"
        )
    )


def friends_table(username: str, seats: int) -> int:
    """A casual 找朋友 table of ``seats`` (a classic 拖拉机 table at four): the player at seat 0,
    fast timings for the test; a match under way whose next dealer is the player."""
    user = User.objects.get(username=username)
    friends = seats > 4
    table, refusal = table_create_seated(
        creator=user,
        name=f"{username} table",
        players=seats,
        stake=10,
        house_rules={"mode": "friends"} if friends else {},
        play_seconds=60,
        bury_seconds=120,
        bid_window_seconds=2,
        deal_interval_ms=20,
        unlisted=True,
    )
    assert refusal is None
    Match.objects.create(
        table=table,
        ruleset=_rules_for(table),
        levels=["2"] * (seats if friends else 2),
        wrapped=[False] * (seats if friends else 2),
        players=[user.pk] + [None] * (seats - 1),
        next_dealer=0,
    )
    return table.pk


def seat_bots(table_id: int, username: str, seats: int) -> None:
    user = User.objects.get(username=username)
    for index in range(1, seats):
        seat_fill_bot(table_id=table_id, user=user, index=index)


def in_a_thread(function: Any, *args: Any) -> Any:
    try:
        return function(*args)
    finally:
        connection.close()


def wait_phase(page: Any, phases: tuple[str, ...]) -> dict[str, Any]:
    started = time.monotonic()
    while time.monotonic() - started < PHASE_TIMEOUT_S:
        hand = state(page)["hand"]
        if hand and hand["view"] and hand["view"]["phase"] in phases:
            return hand["view"]  # type: ignore[no-any-return]
        page.wait_for_timeout(80)
    raise AssertionError(f"no phase {phases} in {PHASE_TIMEOUT_S} s: {state(page)}")


def tap(page: Any, cards: list[str]) -> None:
    for node in card_buttons(page, cards):
        node.click(position={"x": 6, "y": 22})  # the part an overlapped card shows


def assert_first_screen(page: Any, seats: int) -> None:
    """The hand and 出牌 start on the first screen; the invite and the banner are folded, the
    shape shown in short; nothing reaches past the screen's right edge."""
    assert_fits_across(page)
    assert page_bottom(page, "#actions") <= PHONE[1], page_bottom(page, "#actions")
    assert page_bottom(page, "#primary-action") <= PHONE[1]
    assert page.locator("#invite-url").is_hidden()
    assert page.locator("[data-action=invite]").is_visible()
    assert page.locator("main > .messages").is_hidden()
    if SHAPE_WORDS[seats]:
        assert page.locator("#table-shape").inner_text() == SHAPE_WORDS[seats]
        assert page.locator("#table-shape").is_visible()
    else:  # a classic table: nothing to say
        assert page.locator("#table-shape").is_hidden()


def bury(page: Any, view: dict[str, Any]) -> None:
    """The dealer's step: the calls (找朋友), then the bury, by tapping."""
    if view.get("mode") == "friends":
        page.wait_for_selector("#calls-pick .call-picker")
        choose_calls(page, view)
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    kitty = sample_bury(list(parse_cards(view["hand"])), trump, view.get("kitty_size", 8))
    tap(page, format_cards(kitty).split())
    if view.get("mode") == "friends":
        page.wait_for_selector("#calls-pick .calls-status.ok")
    page.wait_for_selector("#primary-action:not([disabled])")
    page.click("#primary-action")
    wait_phase(page, ("playing",))


def a_failing_throw(view: dict[str, Any]) -> list[str]:
    """The two lowest cards of different ranks in the plain suit the player holds the lowest
    card of: another seat holds a higher one of that suit (three decks), so the throw fails."""
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    plain = [c for c in parse_cards(view["hand"]) if not trump.is_trump(c)]
    by_suit: dict[int, list[Any]] = {}
    for card in sorted(plain, key=lambda c: trump.strengths[c]):
        ranks = by_suit.setdefault(trump.groups[card], [])
        if all(trump.strengths[c] != trump.strengths[card] for c in ranks):
            ranks.append(card)
    suits = [cards for cards in by_suit.values() if len(cards) >= 2]
    lowest = min(suits, key=lambda cards: trump.strengths[cards[0]])
    return [str(c) for c in lowest[:2]]


def undo_a_mis_tap(page: Any) -> None:
    """A card tapped by mistake: tapped again it is put back; the clear button (清空) by the
    hand puts back every card picked."""
    first = page.locator("#hand button.card").first
    first.click(position={"x": 6, "y": 22})
    assert first.get_attribute("aria-pressed") == "true"
    first.click(position={"x": 6, "y": 22})
    assert first.get_attribute("aria-pressed") == "false"
    first.click(position={"x": 6, "y": 22})
    page.click("[data-action=clear]")
    assert page.locator("#hand button.card[aria-pressed=true]").count() == 0


def play_turns(page: Any, tricks: int, *, throw: bool = False) -> None:
    """Play every turn of the player's until ``tricks`` tricks are done, tapping; every turn's
    cards offer at least MIN_TAP_PX."""
    started = time.monotonic()
    while time.monotonic() - started < PHASE_TIMEOUT_S * 2:
        hand = state(page)["hand"]
        view = hand["view"]
        if view["phase"] != "playing" or view["tricks_played"] >= tricks:
            return
        if view["to_act"] != 0:
            page.wait_for_timeout(60)
            continue
        assert page.evaluate(NARROWEST_TAP) >= MIN_TAP_PX
        leading = not (view["trick"] and view["trick"]["plays"])
        cards = a_failing_throw(view) if throw and leading else choose_play(view)
        tap(page, cards)
        page.wait_for_selector("#primary-action:not([disabled])")
        page.click("#primary-action")
        page.wait_for_function(f"() => window.shengjiTable.state.hand.seq > {hand['seq']}")
        if throw and leading:
            return
    raise AssertionError(f"{tricks} tricks not played in time: {state(page)}")


def hand_samples(page: Any) -> list[dict[str, int]]:
    return page.evaluate("window.__handSamples")  # type: ignore[no-any-return]


def assert_hand_still(page: Any) -> None:
    """One place for the hand on every frame sampled, while plays arrived; else, for each place
    it took, how many frames, the first and the last (with the heights above the hand)."""
    samples = hand_samples(page)
    assert len({s["plays"] for s in samples}) > 2, samples[:5]  # plays arrived while sampled
    places: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    for s in samples:
        places.setdefault((s["top"], s["left"], s["cardsTop"]), []).append(s)
    moved = {place: (len(at), at[0], at[-1]) for place, at in places.items()}
    assert len(places) == 1, moved


def sheet_leaves_sit_buttons_free(page: Any) -> None:
    """No 坐这里 (nor 加电脑) button is under the result: each is what its centre hits."""
    hidden = page.evaluate(
        """() => [...document.querySelectorAll('[data-action=sit], [data-action=bot]')]
          .filter((b) => {
            b.scrollIntoView({ block: 'center' });
            const r = b.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return !(hit && b.contains(hit));
          }).length"""
    )
    assert hidden == 0


def start(
    chromium: Any, site: str, seats: int, locale: str, tag: str, size: tuple[int, int] = PHONE
) -> tuple[Any, int]:
    page = new_page(chromium, *size, locale)
    username = f"phone{tag}"
    sign_up(page, site, username)
    # The services tell the sockets through async_to_sync: not in Playwright's thread.
    with ThreadPoolExecutor(1) as pool:
        table_id = pool.submit(in_a_thread, friends_table, username, seats).result()
    page.goto(f"{site}/tables/{table_id}/")
    page.wait_for_selector("[data-action=ready]")
    assert page.locator("#invite-url").is_visible()  # before the game: the invite link open
    with ThreadPoolExecutor(1) as pool:
        pool.submit(in_a_thread, seat_bots, table_id, username, seats).result()
    page.wait_for_function(
        f"() => window.shengjiTable.state.seats.filter((s) => s.bot).length === {seats - 1}"
    )
    page.click("[data-action=ready]")
    view = wait_phase(page, ("burying",))
    if view.get("mode") == "friends":
        page.wait_for_selector("#calls-pick .call-picker")
    assert page.evaluate(NARROWEST_TAP) >= MIN_TAP_PX  # the dealer's hand with the kitty
    if size == PHONE:
        assert page_bottom(page, "#actions") <= PHONE[1]  # the calls, the bury button: in view
        assert_fits_across(page)
    screenshot(page, f"phone-{tag}-1-bury")
    page.wait_for_function("() => window.shengjiTable.state.hand.view.to_act === 0")
    return page, table_id


@pytest.mark.parametrize(("seats", "locale"), [(5, "zh-CN"), (8, "zh-TW")])
def test_the_hand_stays_put_and_an_escape_leaves_the_seats_in_reach(
    site: str, chromium: Any, seats: int, locale: str
) -> None:
    tag = f"{seats}-{locale.lower()}"
    page, _ = start(chromium, site, seats, locale, tag)
    undo_a_mis_tap(page)
    bury(page, state(page)["hand"]["view"])
    page.evaluate(SAMPLER)
    play_turns(page, 2)
    page.wait_for_function("() => window.shengjiTable.state.hand.view.to_act === 0")
    assert_first_screen(page, seats)
    screenshot(page, f"phone-{tag}-2-play")
    play_turns(page, 4)
    assert_hand_still(page)

    # An escape: the result shows, and the freed seat's 坐这里 stays in reach.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=escape]")
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_selector("[data-action=sit]")
    screenshot(page, f"phone-{tag}-3-escaped")
    sheet_leaves_sit_buttons_free(page)
    assert page.errors == []


@pytest.mark.parametrize(("seats", "locale"), [(4, "zh-TW"), (6, "zh-CN")])
def test_a_whole_hand_and_the_result_waits_for_its_reader(
    site: str, chromium: Any, settings: Any, seats: int, locale: str
) -> None:
    """Every trick of a hand played by tapping, the hand measured throughout; the result
    stays past the pause (auto-ready waits while it is open), scrolls with its buttons in
    view (at six seats it has a row a player and more than a phone's screen), and closing it
    starts the next hand."""
    settings.SHENGJI_NEXT_HAND_PAUSE_S = 2  # this process's worker starts the next hand
    tag = f"{seats}-{locale.lower()}"
    page, table_id = start(chromium, site, seats, locale, tag)
    bury(page, state(page)["hand"]["view"])
    assert_first_screen(page, seats)
    page.evaluate(SAMPLER)
    play_turns(page, 99)
    assert_hand_still(page)
    wait_phase(page, ("finished",))
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_selector("#result .ledger-practice", timeout=30_000)
    page.wait_for_selector("#result .ready-held")  # auto-ready took back while it is open
    time.sleep(settings.SHENGJI_NEXT_HAND_PAUSE_S + 3)
    assert Hand.objects.filter(match__table_id=table_id).count() == 1
    assert page.locator("#result").is_visible()
    assert page_bottom(page, "#result") <= PHONE[1]
    if seats == 6:
        assert page.evaluate(
            "() => { const r = document.getElementById('result');"
            " return r.scrollHeight > r.clientHeight; }"
        )
    page.evaluate("() => { const r = document.getElementById('result'); r.scrollTop = 1e6; }")
    assert page.locator("#result [data-action=close-result]").is_visible()
    assert page.locator("#result [data-action=result-ready]").is_visible()
    screenshot(page, f"phone-{tag}-3-result")

    # A reload keeps it so: the result again, auto-ready still waiting for the reader.
    page.reload()
    page.wait_for_selector("#result:not([hidden]) .ready-held")
    assert Hand.objects.filter(match__table_id=table_id).count() == 1

    page.click("#result [data-action=close-result]")
    page.wait_for_function("() => window.shengjiTable.state.hand.number === 2", timeout=30_000)
    assert page.locator("#result").is_hidden()
    screenshot(page, f"phone-{tag}-4-next-hand")
    assert page.errors == []


def test_six_seats_a_failed_throws_note_goes_with_its_hand(
    site: str, chromium: Any, settings: Any
) -> None:
    """At six seats in 简体: the dealer's 32 cards, the first trick measured as it fills, the
    dealer's failed throw noted; 托管 plays on (its auto-ready stands: the next hand starts
    after the pause), and the next hand shows no note of the last."""
    settings.SHENGJI_NEXT_HAND_PAUSE_S = 2
    page, _ = start(chromium, site, 6, "zh-CN", "6-zh-cn")
    bury(page, state(page)["hand"]["view"])
    assert_first_screen(page, 6)
    page.evaluate(SAMPLER)
    play_turns(page, 1, throw=True)  # the dealer leads the first trick
    page.wait_for_selector("#status .note.warn")
    page.wait_for_function("() => window.shengjiTable.state.hand.view.tricks_played >= 1")
    assert_hand_still(page)
    screenshot(page, "phone-6-zh-cn-2-throw")

    page.click("[data-action=autopilot]")
    page.wait_for_function("() => window.shengjiTable.state.hand.number === 2", timeout=120_000)
    assert page.locator("#status .note").count() == 0
    screenshot(page, "phone-6-zh-cn-3-next-hand")
    assert page.errors == []


def test_a_desktop_in_english_keeps_the_hand_still_too(site: str, chromium: Any) -> None:
    """At 1280×800 in English, six seats: the same fixed trick area, the invite folded to its
    button once the game is on, the result beside the table with its buttons, and after an
    escape the seats' buttons in reach."""
    page, _ = start(chromium, site, 6, "en-US", "desktop-en", (1280, 800))
    bury(page, state(page)["hand"]["view"])
    assert page.locator("#invite-url").is_hidden()
    assert page.inner_text("[data-action=invite]") == "Invite"
    assert "6 players · 3 decks" in page.inner_text("#table-meta")
    page.evaluate(SAMPLER)
    play_turns(page, 3)
    assert_hand_still(page)
    screenshot(page, "desktop-en-2-play")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=escape]")
    page.wait_for_selector("#result:not([hidden]) [data-action=close-result]")
    page.wait_for_selector("[data-action=sit]")
    sheet_leaves_sit_buttons_free(page)
    screenshot(page, "desktop-en-3-escaped")
    assert page.errors == []
