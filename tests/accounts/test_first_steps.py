"""A new player's first steps (issue 33, point 11): the sign-up help says what is accepted, a
new account lands on a game (or the table it came to join), a play button pressed before
logging in is carried out by the log-in, and the queue and the player page speak plainly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from accounts import ratelimits
from accounts.models import User
from accounts.services import user_create
from games import matchmaking, services
from games.models import QueueEntry, Seat, Table
from tests.https import HTTPS

pytestmark = pytest.mark.django_db
PASSWORD = "tractor-pairs-88"


@pytest.fixture(autouse=True)
def counts(redis_url: str, settings: Any) -> Iterator[None]:
    settings.SHENGJI_QUICK_MATCH_STAKE = 50
    ratelimits.reset_all()
    yield
    ratelimits.reset_all()


def browser(language: str = "zh-hans") -> Client:
    return Client(**HTTPS, HTTP_ACCEPT_LANGUAGE=language)


def sign_up(client: Client, username: str, next_page: str = "") -> Any:
    data = {"username": username, "email": "", "password1": PASSWORD, "password2": PASSWORD}
    url = f"/accounts/signup/?next={next_page}" if next_page else "/accounts/signup/"
    return client.post(url, data)


@pytest.mark.parametrize(
    ("language", "help_words"),
    [
        (
            "zh-hans",
            "可以用汉字、字母、数字和 @ . + - _（不能有空格）：小明、李雷、lily_88 都可以。",
        ),
        (
            "zh-hant",
            "可以用漢字、字母、數字和 @ . + - _（不能有空格）：小明、李雷、lily_88 都可以。",
        ),
        ("en", "Chinese characters, letters and digits, and @ . + - _ (no spaces): 小明"),
    ],
)
def test_regression_the_sign_up_help_named_letters_only_yet_took_chinese(
    language: str, help_words: str
) -> None:
    """The help said "letters, digits and @ . + - _ only", yet 小明 was accepted: it now says
    what is accepted, and each name it gives as an example is."""
    page = browser(language).get("/accounts/signup/").content.decode()
    assert help_words in page
    assert "只能" not in page and "only." not in page
    for name in (f"小明{language}", f"李雷{language}", f"lily_88{language}"):
        assert sign_up(browser(language), name).status_code == 302, name
    refused = sign_up(browser(language), "lily 88")
    assert refused.status_code == 200 and not User.objects.filter(username="lily 88").exists()


def test_regression_a_new_account_landed_on_its_profile_not_a_game() -> None:
    client = browser()
    made = sign_up(client, "新玩家")
    assert made.status_code == 302 and made["Location"] == "/"
    home = client.get("/").content.decode()
    assert 'action="/tables/quick/join/"' in home and 'action="/tables/practice/"' in home


def test_a_new_account_that_came_by_an_invite_lands_at_that_table() -> None:
    host = user_create(username="主人", password=PASSWORD)
    table = services.table_create(creator=host, name="朋友局", stake=10, unlisted=True)
    client = browser()
    invite = client.get(f"/t/{table.invite_code}/")
    assert invite.status_code == 302
    table_url = invite["Location"]
    assert client.get(table_url).status_code == 200  # this session may see the private table
    login_page = client.get(f"/accounts/login/?next={table_url}").content.decode()
    assert f'href="/accounts/signup/?next={table_url}"' in login_page
    made = sign_up(client, "被邀请的人", table_url)
    assert made["Location"] == table_url
    assert client.get(table_url).status_code == 200


def test_regression_an_anonymous_quick_match_click_came_back_home_after_log_in() -> None:
    """快速匹配 before logging in led to the log-in and then back to the home page: the player
    had to find the button again. Now the log-in puts them in the queue."""
    user_create(username="老玩家", password=PASSWORD)
    client = browser()
    home = client.get("/").content.decode()
    link = "/accounts/login/?next=/tables/quick/join/"
    assert f'href="{link}"' in home
    logged_in = client.post(link, {"username": "老玩家", "password": PASSWORD})
    user = User.objects.get(username="老玩家")
    assert QueueEntry.objects.filter(user=user).exists()
    assert matchmaking.queue_status_get(user=user)["queued"] is True
    assert logged_in.status_code == 302 and logged_in["Location"].startswith("/tables/")


def test_a_practice_click_before_signing_up_seats_the_new_player_with_bots() -> None:
    client = browser()
    home = client.get("/").content.decode()
    assert 'href="/accounts/login/?next=/tables/practice/"' in home
    made = sign_up(client, "练习生", "/tables/practice/")
    user = User.objects.get(username="练习生")
    seat = Seat.objects.get(user=user)
    assert made["Location"] == f"/tables/{seat.table_id}/"
    assert Table.objects.get(pk=seat.table_id).unlisted


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant", "en"])
def test_regression_the_queue_and_the_player_page_spoke_jargon(language: str) -> None:
    """The queue said "可接受的分差 3.1" and the player page "实力评分 -1.5 (暂定)": now
    the queue says in words what it looks for, and a rating not yet known says so."""
    client = browser(language)
    sign_up(client, f"排队{language}")
    user = User.objects.get(username=f"排队{language}")
    matchmaking.queue_join(user=user)
    lobby = client.get("/tables/").content.decode()
    words = {
        "zh-hans": ("正在找水平相近的玩家：等得越久，范围越宽", "还在定级：再打几局排位就会显示"),
        "zh-hant": ("正在找水平相近的玩家：等得越久，範圍越寬", "還在定級：再打幾局排位就會顯示"),
        "en": (
            "looking for players near your level: the longer you wait, the wider the range",
            "not yet known: it shows after a few more ranked hands",
        ),
    }[language]
    assert words[0] in lobby
    assert "分差" not in lobby and "rating gap" not in lobby and "accepted gap" not in lobby
    player = client.get(f"/players/{user.username}/").content.decode()
    assert words[1] in player
    assert "暂定" not in player and "暫定" not in player and "provisional" not in player
