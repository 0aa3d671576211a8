"""A person's path through the site, in Chromium: sign up, create a casual table, seat three
bots, play a whole hand by clicking (and by keyboard), read its result, step through its replay;
the same on a phone's screen; switch the language."""

from __future__ import annotations

import random
import re
import time
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from games.models import Hand, Table
from ladder.models import HandSettlement
from shengji.engine import (
    RANKS,
    SUITS,
    HandRecord,
    Trump,
    format_cards,
    full_deck,
    legal_follow,
    parse_cards,
    replay_final,
    sort_cards,
)
from shengji.engine.views import sample_bury
from tests.browser.conftest import assert_fits_across, screenshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
PASSWORD = "a-long-enough-password-1"
HAND_TIMEOUT_S = 90


def new_page(chromium: Any, width: int, height: int, locale: str) -> Any:
    context = chromium.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The Content-Security-Policy (shengji_site/middleware.py): Chromium reports what it refused.
    page.on(
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.errors = errors
    return page


def sign_up(page: Any, site: str, username: str) -> None:
    page.goto(f"{site}/accounts/signup/")
    page.fill("[name=username]", username)
    page.fill("[name=password1]", PASSWORD)
    page.fill("[name=password2]", PASSWORD)
    page.click("form.form button[type=submit]")
    page.wait_for_url(f"{site}/")  # a new player lands on quick match and practice (issue 33)


def create_casual_table(page: Any, site: str, name: str) -> int:
    page.goto(f"{site}/tables/")
    details = page.locator("details#create")
    if details.get_attribute("open") is None:
        page.click("details#create summary")
    page.fill("#table-form [name=name]", name)
    page.select_option("#table-form [name=preset]", "ranked")
    page.fill("#table-form [name=stake]", "10")
    page.click("#table-form button[type=submit]")
    page.wait_for_url("**/tables/**")
    table = Table.objects.get(name=name)
    # Fast for the test: the deal, the bid window and the bots (the worker reads the table).
    Table.objects.filter(pk=table.pk).update(
        deal_interval_ms=20, bid_window_seconds=2, bury_seconds=60, play_seconds=30
    )
    return table.pk


def state(page: Any) -> dict[str, Any]:
    return page.evaluate("window.shengjiTable.state")  # type: ignore[no-any-return]


def choose(view: dict[str, Any]) -> list[str]:
    """What a careful player picks from its own view: 8 to bury, a low single to lead, a legal
    follow (the test reads the page's view; the page never shows more than the seat's)."""
    hand = parse_cards(view["hand"])
    trump = Trump(view["trump"]["level"], view["trump"]["suit"])
    if view["phase"] == "burying":
        return format_cards(sample_bury(list(hand), trump)).split()
    trick = view["trick"]
    if not trick or not trick["plays"]:
        return [str(min(hand, key=lambda c: trump.strengths[c]))]
    lead = parse_cards(trick["plays"][0]["cards"])
    return format_cards(legal_follow(hand, lead, trump)).split()


def card_buttons(page: Any, cards: list[str]) -> list[Any]:
    used: dict[str, int] = {}
    buttons = []
    for card in cards:
        n = used.get(card, 0)
        buttons.append(page.locator(f"#hand button.card[data-card='{card}']").nth(n))
        used[card] = n + 1
    return buttons


def play_by_clicking(page: Any, cards: list[str]) -> None:
    for button in card_buttons(page, cards):
        button.click(position={"x": 6, "y": 22})  # the corner that shows on an overlapped card
    page.wait_for_selector("#primary-action:not([disabled])")
    page.click("#primary-action")


def play_by_keyboard(page: Any, card: str) -> None:
    """Arrow keys to the card, Space to pick it, Enter to play (issue 8, item 6)."""
    target = int(card_buttons(page, [card])[0].get_attribute("data-index"))
    page.focus("#hand button.card[tabindex='0']")
    current = int(page.evaluate("document.activeElement.dataset.index"))
    key = "ArrowRight" if target > current else "ArrowLeft"
    for _ in range(abs(target - current)):
        page.keyboard.press(key)
    assert page.evaluate("document.activeElement.dataset.card") == card
    page.keyboard.press(" ")
    page.wait_for_selector("#primary-action:not([disabled])")
    page.keyboard.press("Enter")


def play_the_hand(page: Any, tag: str) -> dict[str, Any]:
    """Bid when a bid is offered, bury if dealer, play every turn; returns the last view."""
    shots: set[str] = set()
    bid_made = False
    keyboard_plays = 0
    started = time.monotonic()
    while time.monotonic() - started < HAND_TIMEOUT_S:
        current = state(page)
        hand = current["hand"]
        view: dict[str, Any] | None = hand["view"] if hand else None
        if view is None:
            page.wait_for_timeout(100)
            continue
        if view["phase"] in ("dealing", "bidding"):
            if view["drawn"] >= 60 and "deal" not in shots:
                screenshot(page, f"{tag}-2-deal")
                shots.add("deal")
            bids = page.locator("[data-action=bid]")
            if not bid_made and bids.count():
                label = bids.first.get_attribute("aria-label")
                assert label  # e.g. "亮 红桃2" / "Bid with 2 of hearts"
                screenshot(page, f"{tag}-3-bid")
                try:
                    bids.first.click(timeout=2000)
                    bid_made = True
                except Exception:  # the window closed or another bid overtook it
                    pass
            page.wait_for_timeout(100)
            continue
        if view["phase"] == "finished":
            return view
        if view["to_act"] != current["you"]["seat"]:
            page.wait_for_timeout(80)
            continue
        cards = choose(view)
        seq = hand["seq"]
        body = page.inner_text("body")
        found = re.search(r"\b1 (cards|points)\b", body)
        assert not found, repr(body[max(0, found.start() - 80) : found.end() + 40])  # "1 card"
        if "names" not in shots:
            named = page.locator("#hand button.card").first
            card = named.get_attribute("data-card")
            spoken = page.evaluate("(card) => window.shengjiTable.cardName(card)", card)
            assert named.get_attribute("aria-label") == spoken and card not in spoken
            shots.add("names")
        key = "bury" if view["phase"] == "burying" else "play"
        if key not in shots and view["phase"] == "playing" and view["tricks_played"] >= 3:
            screenshot(page, f"{tag}-4-play")
            if tag == "phone":
                assert_fits_across(page)
            shots.add(key)
        if len(cards) == 1 and keyboard_plays < 3:
            play_by_keyboard(page, cards[0])
            keyboard_plays += 1
        else:
            play_by_clicking(page, cards)
        if key == "bury":
            screenshot(page, f"{tag}-4-buried")
        page.wait_for_function(f"() => window.shengjiTable.state.hand.seq > {seq}")
    raise AssertionError(f"the hand did not finish in {HAND_TIMEOUT_S} s: {state(page)}")


def step_through_the_replay(page: Any, site: str, hand_id: int, tag: str) -> None:
    page.wait_for_function("() => window.shengjiReplay && window.shengjiReplay.count > 30")
    assert page.evaluate("window.shengjiReplay.index") == 0
    screenshot(page, f"{tag}-7-replay-start")
    # Seats by compass and the level as players say it (打2 / level 2), as on the table.
    words = page.evaluate("JSON.parse(document.getElementById('replay-labels').textContent)")
    assert page.inner_text("#seat-bottom .wind") == words["compass"][0]
    listed = page.locator(".wind-list").all_inner_texts()
    assert listed == words["compass"]
    level = page.evaluate("window.shengjiReplay.step.view.level")
    shown = words["plays_level"].replace("{rank}", "10" if level == "T" else level)
    assert shown in page.inner_text("#replay-info")
    text = page.inner_text("#replay-step")
    for _ in range(5):
        page.click("#replay-next")
    assert page.evaluate("window.shengjiReplay.index") == 5
    assert page.inner_text("#replay-step") != text
    page.click("#replay-prev")
    assert page.evaluate("window.shengjiReplay.index") == 4
    page.click("#replay-next-trick")
    assert page.evaluate("window.shengjiReplay.step.trick") == 1
    page.click("#replay-next-trick")
    assert page.evaluate("window.shengjiReplay.step.trick") == 2
    page.select_option("#replay-trick", "5")
    step = page.evaluate("window.shengjiReplay.step")
    assert step["trick"] == 5 and step["kind"] == "play"
    # All four hands are shown, face up.
    assert page.locator("#seat-top .hand-cards .card").count() > 0
    assert page.locator("#seat-left .hand-cards .card").count() > 0
    screenshot(page, f"{tag}-8-replay-trick5")
    before = page.evaluate("window.shengjiReplay.index")
    page.select_option("#replay-speed", "fast")
    page.click("#replay-play")
    page.wait_for_function(f"() => window.shengjiReplay.index >= {before + 2}")
    page.click("#replay-play")
    paused = page.evaluate("window.shengjiReplay.index")
    page.wait_for_timeout(500)
    assert page.evaluate("window.shengjiReplay.index") == paused
    # A link to this move opens the replay at this move.
    link = page.get_attribute("#replay-link", "href")
    move = int(parse_qs(urlparse(link).query)["move"][0])
    assert move == page.evaluate("window.shengjiReplay.step.move")
    page.goto(f"{site}{link}")
    page.wait_for_function("() => window.shengjiReplay")
    assert page.evaluate("window.shengjiReplay.index") == paused
    page.keyboard.press("End")
    assert page.evaluate("window.shengjiReplay.step.view.phase") == "finished"
    screenshot(page, f"{tag}-9-replay-end")
    # The record as JSON: it reads back and replays to the hand's result.
    response = page.request.get(f"{site}/hands/{hand_id}/record.json")
    assert response.ok
    record = HandRecord.from_json(response.text())
    assert replay_final(record).result.to_dict() == Hand.objects.get(pk=hand_id).result  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("width", "height", "locale", "tag"),
    [(1280, 800, "zh-CN", "desktop"), (390, 844, "en-US", "phone")],
)
def test_sign_up_play_a_hand_with_three_bots_and_watch_its_replay(
    site: str, chromium: Any, width: int, height: int, locale: str, tag: str
) -> None:
    page = new_page(chromium, width, height, locale)
    username = f"{tag}player"
    sign_up(page, site, username)
    table_id = create_casual_table(page, site, f"{tag} table")

    # "Watch" from the lobby opens the table page; sitting, bots and ready work from there.
    page.goto(f"{site}/tables/")
    page.wait_for_selector(f"#tables[data-live='1'] #table-{table_id}.mine")
    page.click(f"#table-{table_id} a.table-name")
    page.wait_for_url(f"**/tables/{table_id}/")
    page.wait_for_selector("[data-action=ready]")  # its creator sits on making it (issue 33)
    screenshot(page, f"{tag}-0-table-seated")
    for seat in (1, 2, 3):
        page.click(f"[data-action=bot][data-seat='{seat}']")
        page.wait_for_selector(f"#seat-{['bottom', 'right', 'top', 'left'][seat]} .badge.bot")
    screenshot(page, f"{tag}-1-seated")
    page.click("[data-action=ready]")

    final = play_the_hand(page, tag)

    hand = Hand.objects.filter(match__table_id=table_id).get()
    assert hand.status == Hand.Status.FINISHED and final["result"] == hand.result
    # The settlement follows the last move in a transaction of its own (the hand's wrap-up);
    # the page shows it once it is committed: with three bots seated, a practice hand.
    page.wait_for_selector("#result:not([hidden]) .ledger-practice")
    assert HandSettlement.objects.filter(hand=hand, practice=True).exists()
    result = page.inner_text("#result")
    assert str(hand.result["attacker_points"]) in result
    screenshot(page, f"{tag}-5-result")
    if tag == "phone":
        assert_fits_across(page)
    page.click("[data-action=last-trick]")
    assert page.locator("#trick.showing-last .trick-cards").count() >= 1
    screenshot(page, f"{tag}-6-last-trick")
    chat = page.inner_text("#chat-lines")
    # System lines in the page's language (zh-CN) or as the server writes them (en).
    assert ("电脑坐到南家" if locale == "zh-CN" else "a bot sits at South") in chat

    page.click("#result .replay-link")
    page.wait_for_url(f"**/hands/{hand.pk}/**")
    step_through_the_replay(page, site, hand.pk, tag)
    assert page.errors == []


def test_the_page_sorts_and_names_cards_as_the_rules_say(site: str, chromium: Any) -> None:
    """cards.js orders a hand as RULES-SPEC.md §2 and the engine do, for any trump, and names each
    card for screen readers in the page's language."""
    rng = random.Random(8)
    deck = [str(card) for card in full_deck()]
    cases = []
    for _ in range(60):
        level = rng.choice(RANKS)
        suit = rng.choice([*SUITS, None])
        cards = rng.sample(deck, 25)
        expected = format_cards(sort_cards(parse_cards(" ".join(cards)), Trump(level, suit)))
        cases.append({"cards": cards, "level": level, "suit": suit, "expected": expected})
    page = new_page(chromium, 390, 844, "zh-CN")
    page.goto(f"{site}/tables/")
    results = page.evaluate(
        """async (cases) => {
            const cards = await import("/static/games/cards.js");
            const sorted = (c) => cards.sortCards(c.cards, {level: c.level, suit: c.suit});
            return cases.map((c) => sorted(c).join(" "));
        }""",
        cases,
    )
    assert results == [case["expected"] for case in cases]
    names = page.evaluate(
        """async () => {
            const cards = await import("/static/games/cards.js");
            const zh = {card_format: "{suit}{rank}", suit_names: {S: "黑桃", H: "红桃"},
                        rank_names: {T: "10"}, big_joker: "大王"};
            const en = {card_format: "{rank} of {suit}", suit_names: {S: "spades", H: "hearts"},
                        rank_names: {T: "10"}};
            return [cards.cardName("AS", zh), cards.cardName("TH", zh), cards.cardName("BJ", zh),
                    cards.cardName("AS", en), cards.cardName("TH", en)];
        }"""
    )
    assert names == ["黑桃A", "红桃10", "大王", "A of spades", "10 of hearts"]


def test_switch_the_language(site: str, chromium: Any) -> None:
    page = new_page(chromium, 390, 844, "en-US")
    page.goto(f"{site}/tables/")
    assert page.get_attribute("html", "lang") == "en"
    assert "Quick match (ranked)" in page.inner_text("main")
    page.click(".lang-switch button[value='zh-hant']")
    page.wait_for_load_state()
    assert page.get_attribute("html", "lang") == "zh-hant"
    assert "快速配對（排位）" in page.inner_text("main")
    screenshot(page, "language-zh-hant-lobby")
    page.click(".lang-switch button[value='zh-hans']")
    page.wait_for_load_state()
    assert page.get_attribute("html", "lang") == "zh-hans"
    assert "快速匹配（排位）" in page.inner_text("main")
    page.goto(f"{site}/ladder/")
    assert "排行榜" in page.inner_text("main h1")
    screenshot(page, "language-zh-hans-ladder")
    page.click(".lang-switch button[value='en']")
    page.wait_for_load_state()
    assert page.get_attribute("html", "lang") == "en"
    assert "Ladder" in page.inner_text("main h1")
    assert page.errors == []
