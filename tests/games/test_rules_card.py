"""The rules card (templates/games/_rules_card.html): the table page shows its preset's options
and the replay page the options its hand was played under, in words players read."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Hand
from tests.games.helpers import deal_and_close, make_table, make_users, play_out, seat_all
from tests.https import HTTPS

pytestmark = pytest.mark.django_db

LOWEST = {
    "en": "the failing part holding the lowest card",
    "zh-hans": "被管住的部分中含最小牌的那一手",
}
AS_BIDS = {
    "en": "the eight cards are read as bids: the strongest names trump",
    "zh-hans": "8 张底牌按亮主规则比，最大者定主",
}
BROWSERS = {"en": "en-US,en;q=0.9", "zh-hans": "zh-CN,zh;q=0.9"}
OPTIONS = (
    "bidding",
    "first_hand_dealer",
    "no_bid",
    "failed_throw",
    "forced_part",
    "flip_rule",
    "kitty_multiplier",
    "past_ace",
    "level_source",
    "settlement",
    "escape_penalty",
)


def card_rows(html: str) -> dict[str, tuple[str, str]]:
    """``option: (value, words)`` from the page's rules card."""
    rows = re.findall(
        r'<div class="rules-row" data-option="(\w+)" data-value="(\w+)">'
        r"<dt>[^<]*</dt><dd>([^<]*)</dd></div>",
        html,
    )
    return {option: (value, words) for option, value, words in rows}


def table_page(preset_name: str, language: str) -> str:
    table = make_table(make_users(1, preset_name)[0], ranked=False, preset_name=preset_name)
    client = Client(**HTTPS)
    response = client.get(f"/tables/{table.pk}/", HTTP_ACCEPT_LANGUAGE=BROWSERS[language])
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_seed003_table_shows_the_lowest_forced_part(language: str) -> None:
    rows = card_rows(table_page("seed003", language))
    assert tuple(rows) == OPTIONS
    assert rows["forced_part"] == ("lowest", LOWEST[language])
    assert rows["flip_rule"][0] == "first_card"
    assert rows["bidding"][0] == "reinforce" and rows["level_source"][0] == "random"


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_seed000_table_shows_the_kitty_read_as_bids(language: str) -> None:
    html = table_page("seed000", language)
    rows = card_rows(html)
    assert rows["flip_rule"] == ("as_bids", AS_BIDS[language])
    assert rows["forced_part"][0] == "by_kind"
    assert LOWEST[language] not in html
    # Seed 000 redeals in a match's first hand and turns the kitty over later.
    assert rows["no_bid"] == (
        "flip_kitty",
        {
            "en": "first hand: deal again; later hands: turn the kitty over",
            "zh-hans": "首局：重新发牌；之后：翻底牌定主",
        }[language],
    )


def test_the_replay_of_a_seed003_hand_shows_the_lowest_forced_part() -> None:
    users = make_users(4, "three")
    hand = seat_all(make_table(users[0], ranked=False, preset_name="seed003"), users)
    deal_and_close(hand)
    hand = play_out(hand, users)
    assert hand.status == Hand.Status.FINISHED
    client = Client(**HTTPS)
    url = reverse("games:replay", kwargs={"hand_id": hand.pk})
    html = client.get(url, HTTP_ACCEPT_LANGUAGE=BROWSERS["en"]).content.decode()
    rows = card_rows(html)
    assert tuple(rows) == OPTIONS
    assert rows["forced_part"] == ("lowest", LOWEST["en"])
    # The card reads the rules stored with the hand, not the table's preset today.
    assert hand.ruleset["options"]["forced_part"] == "lowest"
