"""找朋友 as a group meets it: one tap from the home page; the create form picks 找朋友 for
5–8 players when no mode is sent; the rules card (and the lobby's label) says only what was
changed from the preset, nothing when nothing was; and a table of three or four decks states
its own kitty bonus (RULES-SPEC.md §9.2.10), not the two-deck option's."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games import rules_words
from games.lobby import _lobby_tables
from games.models import Table
from shengji.engine import PRESETS
from tests.games.helpers import logged_in, make_users
from tests.https import HTTPS

pytestmark = pytest.mark.django_db
NEW = "/tables/new/"
TWO_DECK_KITTY = "2 × 2^length"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def create_form(**fields: str) -> dict[str, str]:
    base = {"name": "周五", "preset": "ranked", "stake": "10", "min_balance": "0"}
    return {**base, "play_seconds": "20", **fields}


def made(players: str, **fields: str) -> Table:
    (user,) = make_users(1, f"maker{players}{len(fields)}")
    response = logged_in(user).post(NEW, create_form(players=players, **fields))
    assert response.status_code == 302, response.content.decode()[:400]
    return Table.objects.get(creator=user)


@pytest.mark.parametrize(
    ("players", "fields", "mode"),
    [
        ("4", {}, "tractor"),
        ("5", {}, "friends"),
        ("6", {}, "friends"),
        ("8", {}, "friends"),
        ("6", {"mode": "tractor"}, "tractor"),
        ("4", {"mode": "casual"}, "tractor"),
    ],
)
def test_the_form_picks_friends_from_five_players_unless_told(
    players: str, fields: dict[str, str], mode: str
) -> None:
    assert made(players, **fields).rules().mode == mode


def test_the_home_page_offers_friends_in_one_tap() -> None:
    html = Client(HTTP_ACCEPT_LANGUAGE="zh-CN", **HTTPS).get("/").content.decode()
    card = html[html.index('id="home-friends"') :]
    assert 'href="/tables/new/?players=6&amp;mode=friends"' in card[:1200]
    assert "找朋友" in card[:1200]
    assert "四人两副牌" not in html  # the old tagline named the four-player game alone


def card_of(table: Table, stake: int = 10) -> dict[str, Any]:
    return rules_words.rules_card(table.rules().to_dict(), stake=stake)


def test_a_friends_table_with_no_rule_changed_says_no_house_rules() -> None:
    table = made("6")
    assert table.rules().name.endswith(rules_words.HOUSE_SUFFIX)  # its shape is stored
    card = card_of(table)
    preset_label, preset_description = rules_words.PRESET_WORDS["ranked"]
    assert card["name"] == str(preset_label)
    assert card["description"] == str(preset_description)
    assert not any(row["changed"] for row in card["rows"])
    user = table.creator
    assert user is not None
    page = logged_in(user).get(f"/tables/{table.pk}/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    text = page.content.decode()
    assert "自定规则" not in text and "rules-row changed" not in text
    lobby = logged_in(user).get("/tables/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "自定规则" not in lobby[lobby.index('id="tables"') :]


def test_a_changed_rule_is_named_and_marked() -> None:
    table = made("6", rule_settlement="levels")
    card = card_of(table)
    assert card["name"].endswith("house rules")
    assert card["description"] == "Changed from the preset: Settlement."
    assert [row["option"] for row in card["rows"] if row["changed"]] == ["settlement"]
    assert table.creator is not None
    lobby = logged_in(table.creator).get("/tables/").content.decode()
    assert "house rules" in lobby[lobby.index('id="tables"') :]


def test_three_decks_give_the_kitty_bonus_by_the_largest_unit() -> None:
    table = made("6")
    assert table.rules().decks == 3
    row = next(r for r in card_of(table)["rows"] if r["option"] == "kitty_multiplier")
    assert TWO_DECK_KITTY not in row["text"]
    assert row["text"] == rules_words.kitty_many_decks_words()
    assert "a triple 6" in row["text"] and "a quad 8" in row["text"]
    four = rules_words.rules_card(PRESETS["ranked"].to_dict(), stake=10)
    two_deck = next(r for r in four["rows"] if r["option"] == "kitty_multiplier")
    assert TWO_DECK_KITTY in two_deck["text"]


def test_a_kitty_rule_a_three_deck_table_does_not_read_is_no_change() -> None:
    table = made("6", rule_kitty_multiplier="winner_shape")
    card = card_of(table)
    assert card["description"] == str(rules_words.PRESET_WORDS["ranked"][1])
    assert not any(row["changed"] for row in card["rows"])
    four = made("4", rule_kitty_multiplier="winner_shape")
    assert card_of(four)["description"] == "Changed from the preset: Kitty multiplier."


def test_the_create_forms_data_carries_the_many_deck_kitty_words() -> None:
    data = rules_words.form_rules_data()
    assert data["kitty_many_decks"] == rules_words.kitty_many_decks_words()
    assert "%(rules)s" in data["changes_label"]


def test_the_lobby_feed_says_house_rules_only_for_a_changed_rule() -> None:
    """The feed's ``rules_changed`` (static/games/lobby.js adds "· house rules" by it): a
    找朋友 table's shape is no change of its preset's rules, a chosen settlement is."""
    plain, changed = made("6"), made("6", rule_settlement="levels")
    feed = {table["id"]: table for table in _lobby_tables()}
    assert plain.house_rules and feed[plain.pk]["rules_changed"] is False
    assert feed[changed.pk]["rules_changed"] is True
