"""Refusals in the page's language (issue 16): each refusal a player or the staff can meet on a
page (the lobby's actions, quick match, creating a table, sign-up, settings, relief, the
admin's bans, an unknown player) is shown in zh-hans and zh-hant with no English word of its
English message left, and in English as written; the stable code stays.

The English words are caught as tests/foundation/test_no_english.py catches them: any word of
the project's own catalogue (the msgids of locale/en) in the visible text of the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.test import Client
from django.utils import translation

from accounts.errors import ApplicationError
from accounts.models import User
from accounts.services import user_ban
from games import matchmaking, services
from games.models import Table
from ladder import errors as ladder_errors
from ladder.services import ladder_points_adjust
from shengji.engine import HOUSE_RULE_OPTIONS
from tests.foundation.test_no_english import english_vocabulary, leftovers, visible_runs
from tests.games.helpers import FAST, seat_all
from tests.https import HTTPS, JSON

Response = Any  # the test client's response
BROWSERS = {"en": "en-US,en;q=0.9", "zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9"}
CHINESE = ("zh-hans", "zh-hant")
PASSWORD = "tractor-pairs-88"
# Pinyin names, no English words (test_no_english.py's players).
PLAYERS = ("zhangsan", "lisi", "wangwu", "zhaoliu")
STAFF = "guanliyuan"
BANNED = "qianshiyi"

REFUSAL_LISTS = re.compile(r'<ul class="(?:messages|messagelist|errorlist)[^"]*">(.*?)</ul>', re.S)
WORD = re.compile(r"[A-Za-z]{2,}")
CODE = re.compile(r"\([a-z_]+\)")


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# --- the world ------------------------------------------------------------------------------


def _players(n: int = 1, *, bankroll: int = 100_000) -> list[User]:
    users = [User.objects.create_user(name, password=PASSWORD) for name in PLAYERS[:n]]
    for user in users:
        if bankroll:
            ladder_points_adjust(
                user=user, account="table", amount=bankroll, reason="测试", by=None
            )
    return users


def _table(creator: User, name: str = "老王", **options: Any) -> Table:
    return services.table_create(creator=creator, name=name, **{**FAST, **options})


def _staff() -> User:
    return User.objects.create_superuser(STAFF, "", PASSWORD)


def browser(language: str, user: User | None = None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=BROWSERS[language], **HTTPS)
    if user is not None:
        client.force_login(user)
    return client


# --- the refusals, each as a player meets it -------------------------------------------------


def sit_while_seated_elsewhere(language: str) -> Response:
    player, creator = _players(2)
    services.seat_take(table_id=_table(creator).pk, user=player, index=0)
    other = _table(creator, "小李")
    return browser(language, player).post(f"/tables/{other.pk}/sit/", {"seat": 1}, follow=True)


def sit_without_the_table_points(language: str) -> Response:
    (creator,) = _players(1)
    (poor,) = [User.objects.create_user(PLAYERS[1], password=PASSWORD)]
    table = _table(creator, stake=100_000)
    return browser(language, poor).post(f"/tables/{table.pk}/sit/", {"seat": 0}, follow=True)


def quick_match_while_in_a_hand(language: str) -> Response:
    players = _players(4)
    seat_all(_table(players[0]), players)
    return browser(language, players[0]).post("/tables/quick/join/", follow=True)


def leave_the_queue_when_not_queued(language: str) -> Response:
    (player,) = _players(1)
    return browser(language, player).post("/tables/quick/leave/", follow=True)


def _create(language: str, **fields: Any) -> Response:
    (player,) = _players(1)
    form = {"name": "新桌", "preset": "ranked", "stake": 100, "min_balance": 0, "play_seconds": 20}
    return browser(language, player).post("/tables/new/", {**form, **fields})


def create_with_a_bad_stake(language: str) -> Response:
    return _create(language, stake=100_001)


HOUSE_RULE = next(iter(HOUSE_RULE_OPTIONS))


def create_with_a_bad_house_rule(language: str) -> Response:
    return _create(language, **{f"rule_{HOUSE_RULE}": "qqq"})


def _signup(language: str, username: str, password: str = PASSWORD) -> Response:
    form = {"username": username, "password1": password, "password2": password}
    return browser(language).post("/accounts/signup/", form)


def sign_up_with_a_taken_name(language: str) -> Response:
    _players(1)
    return _signup(language, "ZhangSan")


def sign_up_with_a_mixed_script_name(language: str) -> Response:
    return _signup(language, "p\u0430vel")  # a Cyrillic а among Latin letters


def sign_up_with_a_common_password(language: str) -> Response:
    return _signup(language, "lisi", password="password123")  # Django's validator


def _settings(language: str, display_name: str) -> Response:
    player, _other = _players(2)
    form = {"display_name": display_name, "language": ""}
    return browser(language, player).post("/accounts/settings/", form)


def settings_with_a_taken_display_name(language: str) -> Response:
    return _settings(language, "LiSi")


def settings_with_an_invisible_character(language: str) -> Response:
    return _settings(language, "王\u200b五")


def relief_when_not_eligible(language: str) -> Response:
    (player,) = _players(1)
    return browser(language, player).post("/ladder/me/relief/", follow=True)


def _ban(language: str, staff: User, user: User) -> Response:
    form = {"action": "ban_users", ACTION_CHECKBOX_NAME: [user.pk], "apply": "1", "reason": "测试"}
    return browser(language, staff).post("/admin/accounts/user/", form, follow=True)


def admin_bans_themself(language: str) -> Response:
    staff = _staff()
    return _ban(language, staff, staff)


def admin_bans_a_banned_player(language: str) -> Response:
    staff = _staff()
    banned = User.objects.create_user(BANNED, password=PASSWORD)
    user_ban(user=banned, reason="测试", by=staff)
    return _ban(language, staff, banned)


def an_unknown_player(language: str) -> Response:
    return browser(language).get("/players/wuming/")


@dataclass(frozen=True)
class Refusal:
    meet: Callable[[str], Response]
    shown: dict[str, str]  # language → the words shown (the code after them in the lobby)
    status: int = 200


THRESHOLD = settings.LADDER_RELIEF_THRESHOLD
REFUSALS = [
    Refusal(
        sit_while_seated_elsewhere,
        {
            # The table named (its number varies) and linked, no code (issue 33).
            "en": "“老王”, first 老王",
            "zh-hans": "号桌「老王」的座位 老王",
            "zh-hant": "號桌「老王」的座位 老王",
        },
    ),
    Refusal(
        sit_without_the_table_points,
        {
            "en": "you hold 1,000 table points; every seat at this table needs at least 1,580,000",
            "zh-hans": "你的桌分 1,000，这张桌每个座位至少需要 1,580,000",
            "zh-hant": "你的桌分 1,000，這張桌每個座位至少需要 1,580,000",
        },
    ),
    Refusal(
        quick_match_while_in_a_hand,
        {
            "en": "you are seated at a table where a hand is in progress (in_game)",
            "zh-hans": "你坐的那张桌正在打牌 (in_game)",
            "zh-hant": "你坐的那張桌正在打牌 (in_game)",
        },
    ),
    Refusal(
        leave_the_queue_when_not_queued,
        {
            "en": "you are not waiting for a quick match (not_queued)",
            "zh-hans": "你没有在快速匹配的队列里 (not_queued)",
            "zh-hant": "你沒有在快速配對的隊列裡 (not_queued)",
        },
    ),
    Refusal(
        create_with_a_bad_stake,
        {
            "en": "Ensure this value is less than or equal to 100000.",
            "zh-hans": "确保该值小于或等于100000。",
            "zh-hant": "請確認此數值是否小於或等於 100000。",
        },
        status=400,
    ),
    Refusal(
        create_with_a_bad_house_rule,
        {
            "en": "Select a valid choice. qqq is not one of the available choices.",
            "zh-hans": "选择一个有效的选项。 qqq 不在可用的选项中。",
            "zh-hant": "請選擇有效的選項, qqq 不是一個可用的選項。",
        },
        status=400,
    ),
    Refusal(
        sign_up_with_a_taken_name,
        {
            "en": "the name 'ZhangSan' is taken",
            "zh-hans": "名字“ZhangSan”已被使用",
            "zh-hant": "名字「ZhangSan」已被使用",
        },
    ),
    Refusal(
        sign_up_with_a_mixed_script_name,
        {
            "en": "A name may not mix alphabets (Cyrillic, Latin): use one.",
            "zh-hans": "名字不能混用不同的字母表（西里尔字母、拉丁字母），请只用一种。",
            "zh-hant": "名字不能混用不同的字母系統（西里爾字母、拉丁字母），請只用一種。",
        },
    ),
    Refusal(
        sign_up_with_a_common_password,
        {
            "en": "This password is too common.",
            "zh-hans": "这个密码太常见了。",
            "zh-hant": "這個密碼太常見了。",
        },
    ),
    Refusal(
        settings_with_a_taken_display_name,
        {
            "en": "the name 'LiSi' is taken or looks too much like another player's",
            "zh-hans": "名字“LiSi”已被使用，或与其他玩家的名字太像",
            "zh-hant": "名字「LiSi」已被使用，或與其他玩家的名字太像",
        },
    ),
    Refusal(
        settings_with_an_invisible_character,
        {
            "en": "A name may not hold invisible or control characters (U+200B).",
            "zh-hans": "名字不能含有不可见字符或控制字符（U+200B）。",
            "zh-hant": "名字不能含有不可見字元或控制字元（U+200B）。",
        },
    ),
    Refusal(
        relief_when_not_eligible,
        {
            "en": f"relief is for balances below {THRESHOLD} table points (relief_not_needed)",
            "zh-hans": f"桌分低于 {THRESHOLD} 时才能领取救济 (relief_not_needed)",
            "zh-hant": f"桌分低於 {THRESHOLD} 時才能領取救濟 (relief_not_needed)",
        },
    ),
    Refusal(
        admin_bans_themself,
        {
            "en": f"{STAFF.title()}: you cannot ban yourself (ban_self)",
            "zh-hans": f"{STAFF.title()}：不能封禁你自己（ban_self）",
            "zh-hant": f"{STAFF.title()}：不能封禁你自己（ban_self）",
        },
    ),
    Refusal(
        admin_bans_a_banned_player,
        {
            "en": f"{BANNED.title()}: {BANNED} is already banned (already_banned)",
            "zh-hans": f"{BANNED.title()}：{BANNED} 已经被封禁了（already_banned）",
            "zh-hant": f"{BANNED.title()}：{BANNED} 已經被封禁了（already_banned）",
        },
    ),
    Refusal(
        an_unknown_player,
        {"en": "Page not found", "zh-hans": "页面不存在", "zh-hant": "頁面不存在"},
        status=404,
    ),
]


# --- what the page shows --------------------------------------------------------------------


def refusals_shown(html: str) -> str:
    """The texts of the page's messages and form errors (a page without any: all its text)."""
    lists = REFUSAL_LISTS.findall(html) or [html]
    return " | ".join(" ".join(visible_runs(block)) for block in lists)


def names() -> frozenset[str]:
    return frozenset(u.username.lower() for u in User.objects.all())


def words(text: str) -> set[str]:
    """The words in Latin letters of a text, its codes (``(seated_elsewhere)``) left out."""
    return {w.lower() for w in WORD.findall(CODE.sub(" ", text))}


@pytest.fixture(scope="module")
def vocabulary() -> frozenset[str]:
    return english_vocabulary()


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(BROWSERS))
@pytest.mark.parametrize("refusal", REFUSALS, ids=lambda r: r.meet.__name__)
def test_a_refusal_is_shown_in_the_pages_language(
    refusal: Refusal, language: str, vocabulary: frozenset[str]
) -> None:
    response = refusal.meet(language)
    assert response.status_code == refusal.status
    html = response.content.decode()
    shown = refusals_shown(html)
    assert refusal.shown[language] in shown, shown
    if language in CHINESE:
        # The English message's words, but for what the Chinese one shows too (a name typed).
        english = words(refusal.shown["en"]) - words(refusal.shown[language])
        assert not words(shown) & english, shown
        assert leftovers(html, vocabulary, names()) == []


@pytest.mark.django_db
@pytest.mark.parametrize("language", CHINESE)
def test_the_lobby_scripts_refusal_carries_the_code_and_the_pages_language(language: str) -> None:
    """The lobby's script shows the JSON's message: in the page's language, beside the code."""
    (player,) = _players(1)
    response = browser(language, player).post("/tables/quick/leave/", **JSON)
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "not_queued" and body["ok"] is False
    expected = {"zh-hans": "你没有在快速匹配的队列里", "zh-hant": "你沒有在快速配對的隊列裡"}
    assert body["message"] == expected[language]


@pytest.mark.django_db
def test_quick_match_names_the_other_table_in_the_readers_language() -> None:
    """Raised with the table's name in English, read in Chinese: the message follows the reader,
    the name is put in its place."""
    player, creator = _players(2)
    table = _table(creator, "老王")
    services.seat_take(table_id=table.pk, user=player, index=0)
    with translation.override("en"), pytest.raises(ApplicationError) as raised:
        matchmaking.queue_join(user=player)
    error = raised.value
    assert error.code == "seated_elsewhere"
    assert error.fields == {
        "table_id": table.pk,
        "table_name": "老王",
        "table_url": f"/tables/{table.pk}/",
    }
    with translation.override("en"):
        assert error.message == f"leave your seat at table {table.pk}, “老王”, first"
    with translation.override("zh-hans"):
        assert error.message == f"请先离开你在 {table.pk} 号桌「老王」的座位"
        assert str(error) == error.message
    with translation.override("zh-hant"):
        assert error.message == f"請先離開你在 {table.pk} 號桌「老王」的座位"


def test_one_error_class_keeps_code_fields_and_plain_messages() -> None:
    """accounts and the ladder raise the same class; a plain ``str`` message is shown as given
    (the socket's and the API's details); ``as_dict`` keeps the fields."""
    assert ladder_errors.ApplicationError is ApplicationError
    error = ApplicationError("relief_limit", field="x", limit=2)
    with translation.override("zh-hant"):
        assert error.message == "今天的救濟已經領完了，明天再來吧"
        assert error.as_dict() == {
            "code": "relief_limit",
            "message": error.message,
            "field": "x",
            "limit": 2,
        }
        assert ApplicationError("outcome_invalid", "levels 'Z' is not a level").message == (
            "levels 'Z' is not a level"
        )
    with translation.override("en"):
        expected = "ApplicationError('ban_self', 'you cannot ban yourself')"
        assert repr(ApplicationError("ban_self")) == expected
