"""Six friends play 找朋友 on their phones (390×844): four read 简体, two 繁體. The host signs
up, finds 找朋友 from the home page, makes a private six-seat table with the form (choosing six
players picks 找朋友), finds it again in the lobby, and sends the invite link; five friends sign
up from it and sit. The host deals: the calls the page offers name no card of the host's hand,
a call of a held card is warned about, the calls have their own clock, and the bury a fresh one.
Everyone plays every turn by tapping, while the test measures, on every phone, that the hand
never moves while a trick fills, that every card offers at least 22 px to tap, and that the hand
and the play button start on the first screen. The log names the players; the result stays
until each reader closes it. Screenshots in artifacts/browser/."""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from accounts.models import User
from games.models import Hand, Match, Table
from games.services.start import _rules_for
from shengji.engine import Trump, format_cards, legal_follow, parse_cards
from shengji.engine.views import sample_bury
from tests.browser.conftest import screenshot
from tests.browser.test_play_in_the_browser import PASSWORD, new_page
from tests.browser.test_table_phone_layout import NARROWEST_TAP

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
SEATS = 6
PHONE = (390, 844)
HAND_TIMEOUT_S = 420
MIN_TAP_PX = 22  # half the 44 px guideline for a touch target
# The six friends: their names and the language of each phone.
FRIENDS = [
    ("小明", "zh-CN"),
    ("小红", "zh-CN"),
    ("大伟", "zh-TW"),
    ("丽丽", "zh-CN"),
    ("阿强", "zh-TW"),
    ("晓东", "zh-CN"),
]
WORDS = {
    "zh-CN": {
        "shape": "6人 · 3副 · 找朋友",
        "call": "的人是朋友",
        "calls_clock": "叫朋友",
        "bury_clock": "扣底",
        "held": "你手里有",
    },
    "zh-TW": {
        "shape": "6人 · 3副 · 找朋友",
        "call": "的人是朋友",
        "calls_clock": "叫朋友",
        "bury_clock": "扣底",
        "held": "你手裡有",
    },
}


@dataclass
class Phone:
    """One friend's phone: the page, the seat, and what the test measured on it."""

    name: str
    locale: str
    page: Any
    seat: int = -1
    hand_tops: list[float] = field(default_factory=list)


def view_of(phone: Phone) -> dict[str, Any] | None:
    hand = phone.page.evaluate("window.shengjiTable && window.shengjiTable.state.hand")
    return hand["view"] if hand else None


def seq_of(phone: Phone) -> int:
    return int(phone.page.evaluate("window.shengjiTable.state.hand.seq"))


def header_overflow(page: Any) -> int:
    """How far the page reaches past the screen's right edge (0 when it fits)."""
    return int(
        page.evaluate(
            "() => Math.max(document.documentElement.scrollWidth,"
            " ...[...document.querySelectorAll('header *')].map((e) =>"
            " e.getBoundingClientRect().right)) - window.innerWidth"
        )
    )


def hand_top(page: Any) -> float:
    """Where the hand sits on the page (its top in page coordinates)."""
    return float(
        page.evaluate(
            "() => document.getElementById('hand').getBoundingClientRect().top + window.scrollY"
        )
    )


def narrowest_tap(page: Any) -> float:
    """The narrowest width a card of the hand offers to a finger (the part not covered)."""
    return float(page.evaluate(NARROWEST_TAP))


def sign_up_from_the_invite(page: Any, link: str, username: str, table_id: int) -> None:
    page.goto(link)
    page.wait_for_url(f"**/tables/{table_id}/**")
    page.click("a.small-link >> nth=0")  # "log in to sit"
    page.wait_for_url("**/accounts/login/**")
    page.click("p.form-links a[href*='signup']")
    page.wait_for_url("**/accounts/signup/**")
    page.fill("[name=username]", username)
    page.fill("[name=password1]", PASSWORD)
    page.fill("[name=password2]", PASSWORD)
    page.click("form.form button[type=submit]")
    page.wait_for_url(f"**/tables/{table_id}/")


def make_the_table(host: Phone, site: str) -> int:
    """From the home page to the form, six players: 找朋友 chosen by itself; private."""
    page = host.page
    page.goto(f"{site}/")
    assert header_overflow(page) <= 0
    page.goto(f"{site}/tables/new/")
    page.fill("#table-form [name=name]", "周五找朋友")
    page.select_option("#table-form [name=players]", str(SEATS))
    assert page.input_value("#table-form [name=mode]") == "friends"
    assert page.inner_text("#shape-summary") == WORDS[host.locale]["shape"]
    page.check("#table-form [name=unlisted]")
    screenshot(page, "group-0-form")
    page.click("#table-form button[type=submit]")
    page.wait_for_url("**/tables/*/")
    table = Table.objects.get(name="周五找朋友")
    assert table.unlisted and table.players == SEATS and table.rules().is_friends
    Table.objects.filter(pk=table.pk).update(deal_interval_ms=20, bid_window_seconds=2)
    return table.pk


def host_deals_next(table_id: int, host: str) -> None:
    """A match of the six under way whose next dealer is the host (seat 0)."""
    table = Table.objects.get(pk=table_id)
    Match.objects.create(
        table=table,
        ruleset=_rules_for(table),
        levels=["2"] * SEATS,
        wrapped=[False] * SEATS,
        players=[User.objects.get(username=host).pk] + [None] * (SEATS - 1),
        next_dealer=0,
    )


def tap(page: Any, cards: list[str]) -> None:
    used: dict[str, int] = {}
    for card in cards:
        n = used.get(card, 0)
        used[card] = n + 1
        button = page.locator(f"#hand button.card[data-card='{card}']").nth(n)
        button.click(position={"x": 6, "y": 22})  # the part an overlapped card shows


def offered_calls(page: Any) -> list[str]:
    """The calls the pickers hold, as "1AS" (copy, rank, suit)."""
    rows = page.locator("#calls-pick .call-picker")
    calls = []
    for i in range(rows.count()):
        row = rows.nth(i)
        calls.append(
            row.locator("select.call-ordinal").input_value()
            + row.locator("select.call-rank").input_value()
            + row.locator("select.call-suit").input_value()
        )
    return calls


def the_dealers_step(dealer: Phone, view: dict[str, Any]) -> None:
    """The calls the page offers name no card of the dealer's hand; one that does is warned
    about; the calls sent on their own start the bury's own clock."""
    page = dealer.page
    words = WORDS[dealer.locale]
    page.wait_for_selector("#calls-pick .calls-status.ok")
    held = set(view["hand"].split())
    calls = offered_calls(page)
    assert calls == view["call_defaults"].split()
    assert len(calls) == view["friends"]
    assert not {call[1:] for call in calls} & held, (calls, sorted(held))
    assert page.inner_text("#clock").startswith(words["calls_clock"])
    screenshot(page, "group-2-calls")
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    plain = [c for c in parse_cards(view["hand"]) if not trump.is_trump(c)]
    set_call(page, 0, f"1{format_cards([max(plain, key=lambda c: trump.orders[c])])}")
    page.wait_for_selector("#calls-pick .calls-status.ok.warn")
    assert words["held"] in page.inner_text("#calls-pick .calls-status")
    set_call(page, 0, calls[0])
    page.wait_for_selector("#calls-pick .calls-status.ok:not(.warn)")
    page.locator("#calls-pick [data-action=call]").scroll_into_view_if_needed()
    page.click("#calls-pick [data-action=call]")
    page.wait_for_function("() => window.shengjiTable.state.hand.view.calls_made")
    page.wait_for_function(
        f"() => document.getElementById('clock').textContent.startsWith({words['bury_clock']!r})"
    )
    bury = format_cards(sample_bury(list(parse_cards(view["hand"])), trump, view["kitty_size"]))
    tap(page, bury.split())
    page.wait_for_selector("#primary-action:not([disabled])")
    page.click("#primary-action")
    page.wait_for_function("() => window.shengjiTable.state.hand.view.phase === 'playing'")
    made = page.evaluate("window.shengjiTable.state.hand.view.calls")
    assert [f"{c['ordinal']}{c['card']}" for c in made] == calls


def set_call(page: Any, index: int, call: str) -> None:
    row = page.locator(f"#calls-pick .call-picker[data-call='{index}']")
    row.locator("select.call-ordinal").select_option(call[0])
    row.locator("select.call-suit").select_option(call[-1])
    row.locator("select.call-rank").select_option(call[1:-1])


def a_legal_play(view: dict[str, Any]) -> list[str]:
    hand = parse_cards(view["hand"])
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    trick = view["trick"]
    if not trick or not trick["plays"]:
        return [str(min(hand, key=lambda c: trump.strengths[c]))]
    return format_cards(legal_follow(hand, parse_cards(trick["plays"][0]["cards"]), trump)).split()


def play_a_turn(phone: Phone, view: dict[str, Any], phones: list[Phone]) -> None:
    """The seat to play taps its cards and 出牌; every phone's hand stays where it was."""
    page = phone.page
    assert narrowest_tap(page) >= MIN_TAP_PX
    seq = seq_of(phone)
    tops = [hand_top(other.page) for other in phones]
    tap(page, a_legal_play(view))
    page.wait_for_selector("#primary-action:not([disabled])")
    page.click("#primary-action")
    for other in phones:
        other.page.wait_for_function(f"() => window.shengjiTable.state.hand.seq > {seq}")
    # A hand played out (its last card gone) has nothing left to tap: it is not measured.
    holding = [i for i, other in enumerate(phones) if cards_held(other.page)]
    assert [hand_top(phones[i].page) for i in holding] == [tops[i] for i in holding]
    assert clipped_seat_lines(page) == []  # the points grow: each seat's line still fits


def clipped_seat_lines(page: Any) -> list[str]:
    """The seats' lines (cards held, points taken, level) cut off by their box."""
    return list(
        page.evaluate(
            "() => [...document.querySelectorAll('.felt .seat-line')]"
            ".filter((e) => e.scrollWidth > e.clientWidth + 1)"
            ".map((e) => `${e.closest('.seats').className}: ${e.innerText}"
            " (${e.scrollWidth} > ${e.clientWidth})`)"
        )
    )


def cards_held(page: Any) -> int:
    return int(page.locator("#hand button.card").count())


def play_the_hand(phones: list[Phone]) -> dict[str, Any]:
    by_seat = {phone.seat: phone for phone in phones}
    dealer = by_seat[0]
    started = time.monotonic()
    shots: set[str] = set()
    while time.monotonic() - started < HAND_TIMEOUT_S:
        view = view_of(dealer)
        if view is None or view["phase"] in ("dealing", "bidding"):
            if view is not None and not view["bids"]:
                bids = dealer.page.locator("[data-action=bid]")
                if bids.count():
                    with contextlib.suppress(Exception):  # the deal moved on under the pointer
                        bids.first.click(timeout=1000)
            dealer.page.wait_for_timeout(80)
            continue
        if view["phase"] == "finished":
            return view
        if view["phase"] == "burying":
            if view["to_act"] == 0 and "bury" not in shots:
                if "start" not in shots:
                    for phone in phones:
                        bottom = phone.page.evaluate(
                            "() => document.getElementById('actions').getBoundingClientRect()"
                            ".bottom + window.scrollY"
                        )
                        assert bottom <= PHONE[1], (phone.name, bottom)
                    shots.add("start")
                the_dealers_step(dealer, view)
                shots.add("bury")
            dealer.page.wait_for_timeout(80)
            continue
        actor = by_seat[view["to_act"]]
        acting_view = view_of(actor)
        assert acting_view is not None
        if view["tricks_played"] == 1 and "first-trick" not in shots:
            for phone in phones:
                assert WORDS[phone.locale]["call"] in phone.page.inner_text("#info")
                assert clipped_seat_lines(phone.page) == [], phone.name
                screenshot(phone.page, f"group-3-{phone.seat}-first-trick")
            shots.add("first-trick")
        play_a_turn(actor, acting_view, phones)
    raise AssertionError(f"the hand did not finish in {HAND_TIMEOUT_S} s")


def test_six_friends_play_a_friends_hand_on_their_phones(
    site: str, chromium: Any, settings: Any
) -> None:
    phones = [Phone(name, locale, new_page(chromium, *PHONE, locale)) for name, locale in FRIENDS]
    host = phones[0]
    host.page.goto(f"{site}/accounts/signup/")
    host.page.fill("[name=username]", host.name)
    host.page.fill("[name=password1]", PASSWORD)
    host.page.fill("[name=password2]", PASSWORD)
    host.page.click("form.form button[type=submit]")
    host.page.wait_for_url(f"{site}/")
    table_id = make_the_table(host, site)
    host.seat = 0
    link = host.page.input_value("#invite-url")

    host.page.goto(f"{site}/tables/")
    assert host.page.locator(f"a[href='/tables/{table_id}/']").count() >= 1
    screenshot(host.page, "group-1-lobby-own-table")

    for seat, phone in enumerate(phones[1:], start=1):
        sign_up_from_the_invite(phone.page, link, phone.name, table_id)
        assert header_overflow(phone.page) <= 0
        phone.page.click(f"[data-action=sit][data-seat='{seat}']")
        phone.page.wait_for_selector("[data-action=ready]")
        phone.seat = seat
    host.page.goto(f"{site}/tables/{table_id}/")
    host_deals_next(table_id, host.name)
    for phone in phones:
        phone.page.click("[data-action=ready]")

    final = play_the_hand(phones)

    hand = Hand.objects.filter(match__table_id=table_id).get()
    assert hand.status == Hand.Status.FINISHED and final["result"] == hand.result
    for phone in phones:
        phone.page.wait_for_selector("#result:not([hidden])")
    # The result stays while anyone reads it: past the pause, no next hand.
    time.sleep(settings.SHENGJI_NEXT_HAND_PAUSE_S + 2)
    for phone in phones:
        assert phone.page.locator("#result").is_visible(), phone.name
        screenshot(phone.page, f"group-5-{phone.seat}-result")
    assert Hand.objects.filter(match__table_id=table_id).count() == 1
    log = host.page.inner_text("#chat-lines")
    # A line of what a seat did names its player ("小红打出第1张黑桃A"), not "2号位打出…".
    assert not re.search(r"\d[号號]位(打出|出了|扣了|叫朋友)", log), log
    revealed = [c["seat"] for c in final["calls"] if c["seat"] not in (None, final["dealer"])]
    for seat in revealed:
        assert phones[seat].name in log, (phones[seat].name, log)
    for phone in phones[1:5]:
        phone.page.click("#result [data-action=close-result]")
    # 晓东 locks his phone with the result still open: a page nobody reads holds nobody up.
    locked = phones[5]
    locked.page.evaluate(
        "() => { Object.defineProperty(document, 'visibilityState', {value: 'hidden',"
        " configurable: true}); document.dispatchEvent(new Event('visibilitychange')); }"
    )
    host.page.wait_for_function(
        f"() => window.shengjiTable.state.seats.find((s) => s.seat === {locked.seat}).ready"
    )
    assert locked.page.locator("#result").is_visible()
    assert Hand.objects.filter(match__table_id=table_id).count() == 1
    host.page.click("#result [data-action=close-result]")
    host.page.wait_for_function("() => window.shengjiTable.state.hand.number === 2")

    a_friend_leaves(phones, table_id)
    for phone in phones:
        assert phone.page.errors == [], (phone.name, phone.page.errors)


def a_friend_leaves(phones: list[Phone], table_id: int) -> None:
    """阿强 leaves hand 2: the warning speaks of 找朋友 (no partner), the result names him, the
    others keep their levels in the same match, and his seat takes a bot from the host's phone."""
    leaver = phones[4]
    match = Match.objects.get(table_id=table_id)
    levels = list(match.levels)
    warnings: list[str] = []

    def accept(dialog: Any) -> None:
        warnings.append(dialog.message)
        dialog.accept()

    leaver.page.on("dialog", accept)
    leaver.page.click("[data-action=escape]")
    started = time.monotonic()
    while (
        Hand.objects.filter(match__table_id=table_id, number=2, status=Hand.Status.ESCAPED).count()
        == 0
    ):
        assert time.monotonic() - started < 30, "the escape did not end hand 2"
        time.sleep(0.2)
    assert warnings and not any(word in warnings[0] for word in ("对家", "對家")), warnings
    host = phones[0]
    host.page.wait_for_selector("#result:not([hidden])")
    assert leaver.name in host.page.inner_text("#result")
    screenshot(host.page, "group-6-escape-result")
    match.refresh_from_db()
    assert Match.objects.filter(table_id=table_id).count() == 1
    assert [level for seat, level in enumerate(match.levels) if seat != leaver.seat] == [
        level for seat, level in enumerate(levels) if seat != leaver.seat
    ]
    bot = host.page.locator(f"[data-action=bot][data-seat='{leaver.seat}']")
    bot.click()
    host.page.wait_for_function(
        f"() => window.shengjiTable.state.seats.find((s) => s.seat === {leaver.seat}).bot"
    )
    screenshot(host.page, "group-7-bot-takes-the-seat")
