"""The first private table of two new players (issue 33, point 1): the create form's defaults
make a table two accounts fresh from the sign-up grant can sit at, the creator sits on making
it, the form shows the table points a seat needs as the code that enforces it computes them, and
a refusal to sit names the numbers, in 简体, 繁體 and English."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from accounts.errors import ApplicationError, error_details
from accounts.models import User
from accounts.services import user_create
from games import services
from games.forms import TableCreateForm
from games.models import Seat, Table
from games.services._common import points_needed
from ladder.selectors import player_balance
from ladder.services import ladder_points_adjust
from tests.https import HTTPS, JSON

NEEDED_URL = "/tables/new/needed/"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def new_player(name: str, language: str = "zh-hans") -> tuple[User, Client]:
    """An account as sign-up makes it (with the sign-up grant), logged in, in ``language``."""
    user = user_create(username=name, password="pw-long-enough-1")
    client = Client(**HTTPS, HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return user, client


def defaults() -> dict[str, Any]:
    data = TableCreateForm.defaults().data
    return {name: value for name, value in data.items() if value is not None}


@pytest.mark.django_db
def test_regression_the_forms_defaults_made_a_table_new_players_could_not_sit_at() -> None:
    """The form's defaults (stake 100: 1,580 a seat) were over the sign-up grant (1,000): the
    creator was not seated and could not sit. Now the creator sits on making it, a second new
    account sits too, and either could lose a hand at the worst and sit again."""
    host, host_browser = new_player("主人")
    friend, friend_browser = new_player("朋友")
    assert player_balance(user=host) == settings.LADDER_SIGNUP_GRANT

    made = host_browser.post("/tables/new/", {**defaults(), "name": "周五牌局", "unlisted": "on"})
    table = Table.objects.get(name="周五牌局")
    assert made.status_code == 302 and made["Location"] == f"/tables/{table.pk}/"
    assert Seat.objects.get(table=table, index=0).user == host
    needed = points_needed(table)
    assert 2 * needed <= settings.LADDER_SIGNUP_GRANT, needed

    invite = friend_browser.get(f"/t/{table.invite_code}/")
    assert invite.status_code in (200, 302)
    sat = friend_browser.post(f"/tables/{table.pk}/sit/", {"seat": 1}, **JSON)
    assert sat.json()["ok"] is True, sat.json()
    assert Seat.objects.get(table=table, index=1).user == friend
    page = host_browser.get(made["Location"]).content.decode()
    assert "周五牌局" in page and "牌桌 周五牌局 已开好：你已入座（东）。" in page


@pytest.mark.django_db
def test_a_creator_who_cannot_sit_still_gets_the_table_and_is_told_why() -> None:
    host, browser = new_player("穷主人", "zh-hans")
    made = browser.post("/tables/new/", {**defaults(), "name": "大桌", "stake": "1000"})
    table = Table.objects.get(name="大桌")
    assert made.status_code == 302
    assert not Seat.objects.filter(table=table, user=host).exists()
    page = browser.get(made["Location"]).content.decode()
    assert "你没有入座" in page and "你的桌分 1,000，这张桌每个座位至少需要 15,800" in page


FORMS = [
    {},
    {"stake": "100"},
    {"stake": "7", "preset": "seed000"},
    {"stake": "333", "preset": "seed003"},
    {"stake": "50", "preset": "seed002"},
    {"stake": "40", "preset": "seed004", "rule_escape_penalty": "nine_stakes"},
    {"stake": "60", "players": "6", "mode": "friends"},
    {"stake": "25", "players": "8", "mode": "tractor", "preset": "seed003"},
    {"stake": "10", "min_balance": "5000"},
]


@pytest.mark.django_db
@pytest.mark.parametrize("changes", FORMS)
def test_the_forms_preview_is_what_sitting_enforces(changes: dict[str, str]) -> None:
    """The preview's figure for a form is the balance sitting at the table that form makes
    asks: one point less is refused, that much sits."""
    _, browser = new_player("主人")
    form = {**defaults(), **changes}
    preview = browser.get(NEEDED_URL, form).json()
    assert preview["ok"] is True, preview
    needed = preview["needed"]

    browser.post("/tables/new/", {**form, "name": "量一量"})
    table = Table.objects.get(name="量一量")
    assert points_needed(table) == needed
    short, _ = new_player("差一分")
    change = needed - 1 - player_balance(user=short)
    if change:
        ladder_points_adjust(user=short, account="table", amount=change, reason="test", by=None)
    assert player_balance(user=short) == needed - 1
    with pytest.raises(ApplicationError) as refused:
        services.seat_take(table_id=table.pk, user=short, index=2)
    assert refused.value.code == "insufficient_balance"
    ladder_points_adjust(user=short, account="table", amount=1, reason="test", by=None)
    services.seat_take(table_id=table.pk, user=short, index=2)


@pytest.mark.django_db
def test_the_preview_says_the_figure_and_the_viewers_balance_in_their_language() -> None:
    _, hans = new_player("简体", "zh-hans")
    _, hant = new_player("繁體", "zh-hant")
    _, english = new_player("english", "en")
    form = {**defaults(), "stake": "100"}
    assert hans.get(NEEDED_URL, form).json()["text"] == (
        "每个座位至少需要 1,580 桌分。你有 1,000：降低底分才能自己坐下。"
    )
    assert hant.get(NEEDED_URL, form).json()["text"] == (
        "每個座位至少需要 1,580 桌分。你有 1,000：降低底分才能自己坐下。"
    )
    answer = english.get(NEEDED_URL, defaults()).json()
    assert answer["enough"] is True
    assert answer["text"] == "Every seat needs at least 316 table points. You hold 1,000."
    refused = english.get(NEEDED_URL, {**defaults(), "stake": "0"}).json()
    assert refused["ok"] is False and refused["code"] == "bad_message"
    # The page shows the defaults' figure before any script runs.
    assert "每个座位至少需要 316 桌分" in hans.get("/tables/new/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("zh-hans", "你的桌分 1,000，这张桌每个座位至少需要 1,580"),
        ("zh-hant", "你的桌分 1,000，這張桌每個座位至少需要 1,580"),
        ("en", "you hold 1,000 table points; every seat at this table needs at least 1,580"),
    ],
)
def test_regression_a_refusal_to_sit_named_no_numbers(language: str, words: str) -> None:
    """The refusal "你的桌分低于这张桌的最低要求" said nothing of how much: now the lobby's
    refusal and the table page's (its socket frame's fields in the page's words) name both
    numbers."""
    host, _ = new_player("主人")
    table = services.table_create(creator=host, name="高桌", stake=100)
    player, browser = new_player("新人", language)
    with pytest.raises(ApplicationError) as refused:
        services.seat_take(table_id=table.pk, user=player, index=1)
    frame = refused.value.as_message()
    assert frame["fields"] == {"needed": "1,580", "balance": "1,000"}
    with translation.override(language):
        template = error_details()["insufficient_balance"]
    filled = template.replace("{needed}", "1,580").replace("{balance}", "1,000")
    assert filled == words
    page = browser.post(f"/tables/{table.pk}/sit/", {"seat": 1}, follow=True).content.decode()
    assert words in page
