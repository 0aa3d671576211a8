"""No English left in the Chinese pages (issue 16): every page of the site, and the admin's
main pages, walked in zh-hans and zh-hant as a player and as staff; any English word of the
project's own catalogue (the msgids of locale/en) in the visible text is a leftover.

Visible text: the text of the page outside <script>, <style> and <template>, and the attributes
a reader sees or hears (title, placeholder, aria-label, alt, and the value of an input button).
Not words: user names, card codes (AS, TD, BJ), numbers, identifiers mixing letters and digits
or underscores (codes such as ``seed000``), single letters (card ranks, "过 A"), a record's
stored JSON in the admin, and the few names in ``ALLOWED``, each with its reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.models import User
from accounts.services import user_ban
from games import services
from games.models import Hand, Seat, Table
from games.services.wrap_up import hand_settle
from ladder.models import HandSettlement, LadderProfile
from ladder.services import ladder_points_adjust
from shengji.engine import PRESETS
from shengji.engine.rules import _CHOICES
from tests.games.helpers import FAST, deal_and_close, play_out, ranked_table, ready_all, seat_all
from tests.games.test_i18n import po_entries
from tests.https import HTTPS

LANGUAGES = {"zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9"}
PASSWORD = "tractor-pairs-88"
# Chinese-reading players: their names are no English words.
PLAYERS = ("zhangsan", "lisi", "wangwu", "zhaoliu")
RANKED_PLAYERS = ("sunqi", "zhouba", "wujiu", "zhengshi")
STAFF = "guanliyuan"

# Words a Chinese page may show in Latin letters, each with the reason.
ALLOWED = {
    "API": "the API is called so in Chinese too (API 令牌)",
    "Django": "the admin's brand (Django 站点管理员)",
    "EN": "the language switch names English in English (简 繁 EN), for a reader looking for it",
    "ID": "a record's number is its ID in Chinese too (Django's own admin writes ID)",
    "JSON": "a file format's name (牌谱（JSON）)",
    "JavaScript": "a technology's name (牌桌需要 JavaScript)",
    # Keys, named as printed on the keyboard (按键：Esc 清空，Home/End 首尾).
    **dict.fromkeys(("Esc", "Enter", "Home", "End", "Page", "Up", "Down"), "a key's name"),
    # Django's own help for a multiple choice: 按住 Control 键或 Mac 上的 Command 键.
    **dict.fromkeys(("Control", "Command", "Mac"), "a key's or a computer's name"),
}

# URL patterns that are not pages: JSON, POST-only actions, the admin (walked apart), the API.
SKIPPED_PREFIXES = ("admin/", "api/", "i18n/", "healthz", "static/", "ws/")

CARD = re.compile(r"^(?:[2-9TJQKA][SHDC]|[SB]J)$")
TOKEN = re.compile(r"[A-Za-z0-9_]+(?:['’][A-Za-z]+)?")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}|%[sd]")


# --- what a reader sees ------------------------------------------------------------------------


class VisibleText(HTMLParser):
    """The text a reader sees or hears, one string per text run or attribute."""

    # <code>: option values and move notation, shown as written on purpose (``none``, ``play``).
    HIDDEN = frozenset({"script", "style", "template", "code"})
    SPOKEN = frozenset({"title", "placeholder", "aria-label", "alt"})
    BUTTON_INPUTS = frozenset({"submit", "button", "reset"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.runs: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self._hidden += 1
        values = dict(attrs)
        for name, value in attrs:
            if value and name in self.SPOKEN:
                self.runs.append(value)
        if tag == "input" and values.get("type") in self.BUTTON_INPUTS and values.get("value"):
            self.runs.append(values["value"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden and data.strip():
            self.runs.append(data.strip())


class AllVisibleText(VisibleText):
    """Visible text with <code> too: where a rule's code word would hide."""

    HIDDEN = VisibleText.HIDDEN - {"code"}


# The engine's names of the rule options, their values and the presets (``flip_kitty``,
# ``strength``, ``seed000``): a reader sees words for them, in <code> or not (issue 33).
RULE_CODE_WORDS = frozenset(
    {*_CHOICES, *(value for values in _CHOICES.values() for value in values), *PRESETS}
)


def rule_code_words(html: str) -> list[str]:
    """The visible runs (<code> included) naming a rule by its code word."""
    parser = AllVisibleText()
    parser.feed(html)
    parser.close()
    return [
        run
        for run in parser.runs
        if not is_stored_data(run) and any(t in RULE_CODE_WORDS for t in TOKEN.findall(run))
    ]


def visible_runs(html: str) -> list[str]:
    parser = VisibleText()
    parser.feed(html)
    parser.close()
    return parser.runs


def english_vocabulary() -> frozenset[str]:
    """Every English word (two letters or more) of the project's msgids and their English."""
    path = Path(settings.BASE_DIR) / "locale" / "en" / "LC_MESSAGES" / "django.po"
    words: set[str] = set()
    for entry in po_entries(path):
        for text in (entry.get("msgid", ""), entry.get("msgstr", "")):
            for token in TOKEN.findall(PLACEHOLDER.sub(" ", text)):
                if token.isalpha() and len(token) > 1:
                    words.add(token.lower())
    return frozenset(words)


def is_stored_data(run: str) -> bool:
    """A JSON record as stored (the admin's read-only view of a JSON field): data, not words."""
    if not run.startswith(("{", "[")):
        return False
    try:
        json.loads(run)
    except ValueError:
        return False
    return True


def leftovers(html: str, vocabulary: frozenset[str], names: frozenset[str]) -> list[str]:
    """The visible runs holding an English word of the catalogue (each run once)."""
    found = []
    for run in visible_runs(html):
        if is_stored_data(run):
            continue
        for token in TOKEN.findall(run):
            word = re.sub(r"['’].*", "", token)
            if not word.isalpha() or len(word) < 2 or word in ALLOWED or word.lower() in names:
                continue  # an identifier, a letter, or an allowed name
            if CARD.match(token):
                continue
            if word.lower() in vocabulary:
                found.append(run)
                break
    return found


# --- the site to walk -----------------------------------------------------------------------


@dataclass
class World:
    player: User
    staff: User
    table: Table
    ranked: Table
    private: Table
    hand: Hand
    seat: Seat

    @property
    def names(self) -> frozenset[str]:
        users = User.objects.all()
        return frozenset(n.lower() for u in users for n in (u.username, u.display_name) if n)


def _user(name: str, **fields: object) -> User:
    user = User.objects.create_user(name, password=PASSWORD, **fields)  # type: ignore[arg-type]
    ladder_points_adjust(user=user, account="table", amount=100_000, reason="测试", by=None)
    return user


def _table(creator: User, name: str, *, unlisted: bool = False) -> Table:
    return services.table_create(
        creator=creator,
        name=name,
        unlisted=unlisted,
        play_seconds=FAST["play_seconds"],
        bury_seconds=FAST["bury_seconds"],
        bid_window_seconds=FAST["bid_window_seconds"],
        deal_interval_ms=FAST["deal_interval_ms"],
    )


def _finished(hand: Hand, users: list[User]) -> Hand:
    deal_and_close(hand)
    hand = play_out(hand, users)
    if not HandSettlement.objects.filter(hand=hand).exists():
        hand_settle(hand_id=hand.pk)
    return hand


def build_world() -> World:
    """Tables casual, ranked (a quick match's) and private; a finished hand of each of the first
    two; a ban; a closed table (an admin log line); a chat line."""
    players = [_user(name) for name in PLAYERS]
    staff = User.objects.create_superuser(STAFF, "", PASSWORD)
    LadderProfile.objects.get_or_create(user=staff)
    table = _table(players[0], "张三的桌")
    hand = _finished(seat_all(table, players), players)
    ranked_players = [_user(name) for name in RANKED_PLAYERS]
    ranked = ranked_table(ranked_players)
    Table.objects.filter(pk=ranked.pk).update(name=RANKED_PLAYERS[0])  # as quick match names it
    _finished(ready_all(ranked, ranked_players), ranked_players)
    private = _table(staff, "私人桌", unlisted=True)
    closed = _table(staff, "关掉的桌")
    services.table_close(table_id=closed.pk, actor=staff, reason="测试")
    services.chat_post(table_id=table.pk, user=players[1], text="你好")
    banned = _user("qianshiyi")
    user_ban(user=banned, reason="测试", by=staff)
    seat = Seat.objects.get(table=table, index=1)
    return World(players[0], staff, table, ranked, private, hand, seat)


def _patterns(
    resolvers: list[URLPattern | URLResolver], prefix: str = ""
) -> Iterator[tuple[str, URLPattern]]:
    for entry in resolvers:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _patterns(list(entry.url_patterns), route)
        else:
            yield route, entry


def sample_arguments(world: World) -> dict[str, str]:
    uid = urlsafe_base64_encode(force_bytes(world.player.pk))
    return {
        "table_id": str(world.table.pk),
        "hand_id": str(world.hand.pk),
        "username": world.player.username,
        "board": "title",
        "invite_code": world.private.invite_code,
        "uidb64": uid,
        "token": default_token_generator.make_token(world.player),
    }


def site_urls(world: World) -> list[str]:
    """Every page's URL, the path arguments filled in with the world's (a new argument fails
    the test until it has a sample here)."""
    samples = sample_arguments(world)
    urls = []
    for route, _pattern in _patterns(get_resolver().url_patterns):
        if route.startswith(SKIPPED_PREFIXES) or route.endswith(".json"):
            continue
        arguments = re.findall(r"<(?:\w+:)?(\w+)>", route)
        missing = [a for a in arguments if a not in samples]
        assert not missing, f"no sample argument for {missing} in {route!r}: add one"
        url = "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: samples[m.group(1)], route)
        urls.append(url)
    urls.append(f"/tables/{world.ranked.pk}/")  # a quick match's table
    urls.append("/ladder/rating/")
    urls.append("/ladder/points/")
    urls.append("/no-such-page/")  # the 404 page
    return sorted(set(urls))


def admin_urls(world: World) -> list[str]:
    """The index, and of every registered model its app, its list and its first record's page."""
    urls = [reverse("admin:index")]
    for model in admin.site._registry:
        meta = model._meta
        urls.append(reverse("admin:app_list", kwargs={"app_label": meta.app_label}))
        urls.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            change = f"admin:{meta.app_label}_{meta.model_name}_change"
            urls.append(reverse(change, args=[first.pk]))
    urls.append(reverse("admin:games_table_seat_remove", args=[world.table.pk, 1]))
    urls.append(reverse("admin:ladder_ladderprofile_adjust", args=[world.player.pk]))
    return sorted(set(urls))


# The admin's actions that ask for a reason first: (changelist, action, object).
ACTIONS = (
    ("admin:games_table_changelist", "close_tables", "table"),
    ("admin:games_seat_changelist", "remove_players", "seat"),
    ("admin:accounts_user_changelist", "ban_users", "player"),
    ("admin:accounts_user_changelist", "unban_users", "player"),
)


def logged_in(user: User | None, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=LANGUAGES[language], **HTTPS)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    if user is not None:
        client.force_login(user)
    return client


def page_leftovers(
    client: Client, url: str, world: World, vocabulary: frozenset[str], *, codes: bool = False
) -> dict[str, list[str]]:
    """{url: runs left in English}: empty for a clean page, or one that is not a page (JSON,
    POST only)."""
    response = client.get(url, follow=True)
    if response.status_code == 405 or "html" not in response.get("Content-Type", ""):
        return {}
    assert response.status_code in (200, 404), (url, response.status_code)
    found = leftovers(response.content.decode(), vocabulary, world.names)
    if codes:  # a player's page names no rule by its code word (the admin's may: its columns)
        found += rule_code_words(response.content.decode())
    return {url: found} if found else {}


def report(problems: dict[str, list[str]]) -> str:
    lines = [f"{url}: {' | '.join(dict.fromkeys(runs))}" for url, runs in sorted(problems.items())]
    return "English left:\n" + "\n".join(lines)


# --- the tests ------------------------------------------------------------------------------


@pytest.fixture
def world(db: None) -> World:
    return build_world()


@pytest.fixture(scope="module")
def vocabulary() -> frozenset[str]:
    return english_vocabulary()


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_page_is_in_chinese(world: World, vocabulary: frozenset[str], language: str) -> None:
    urls = site_urls(world)
    assert {"/", "/tables/", f"/tables/{world.table.pk}/", f"/hands/{world.hand.pk}/"} <= set(urls)
    problems: dict[str, list[str]] = {}
    for user in (None, world.player, world.staff):
        client = logged_in(user, language)
        for url in urls:
            for key, runs in page_leftovers(client, url, world, vocabulary, codes=True).items():
                problems.setdefault(key, []).extend(runs)
    assert not problems, report(problems)


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_admins_pages_are_in_chinese(
    world: World, vocabulary: frozenset[str], language: str
) -> None:
    client = logged_in(world.staff, language)
    problems: dict[str, list[str]] = {}
    for url in admin_urls(world):
        problems.update(page_leftovers(client, url, world, vocabulary))
    objects = {"table": world.table.pk, "seat": world.seat.pk, "player": world.player.pk}
    for changelist, action, target in ACTIONS:
        url = reverse(changelist)
        response = client.post(url, {"action": action, "_selected_action": [objects[target]]})
        assert response.status_code == 200, (action, response.status_code)
        assert b'name="apply"' in response.content  # the page asking for a reason
        found = leftovers(response.content.decode(), vocabulary, world.names)
        if found:
            problems[f"{url} ({action})"] = found
    assert not problems, report(problems)


# --- the walker itself ---------------------------------------------------------------------


def test_the_walker_catches_an_untranslated_msgid(vocabulary: frozenset[str]) -> None:
    """A page showing a msgid untranslated fails; the same words hidden in a script, a style or
    an attribute nobody reads do not; a user name, card codes and allowed names do not."""
    assert "trick" in vocabulary and "ready" in vocabulary
    names = frozenset({"zhangsan"})
    leftover = "<main><h2>上一轮</h2><p>Last trick</p></main>"
    assert leftovers(leftover, vocabulary, names) == ["Last trick"]
    assert leftovers('<button title="Ready">准备</button>', vocabulary, names) == ["Ready"]
    assert leftovers('<input type="submit" value="Confirm">', vocabulary, names) == ["Confirm"]
    assert leftovers("<p>Quick match · 张三</p>", vocabulary, names) == ["Quick match · 张三"]
    clean = (
        '<main data-label="Last trick" class="ready"><script>const s = "Last trick";</script>'
        "<style>.ready { color: red }</style><template><p>Ready</p></template>"
        '<p lang="en">zhangsan 出 AS AS KS · 10 · seed000 · 过 A · API 令牌</p>'
        "<p>选项 <code>none</code></p>"
        '<div class="readonly">{"name": "ranked", "options": {"bidding": "strength"}}</div></main>'
    )
    assert leftovers(clean, vocabulary, names) == []
    not_json = '<div class="readonly">{the bot is playing this seat}</div>'
    assert leftovers(not_json, vocabulary, names) == ["{the bot is playing this seat}"]


def test_the_walker_catches_a_rule_named_by_its_code_word() -> None:
    """/rules/ showed flip_kitty, no_trump, strength … in <code>, which the walker skipped."""
    assert rule_code_words("<p>无人亮主 — <code>flip_kitty</code></p>") == ["flip_kitty"]
    assert rule_code_words("<li><code>strength</code> —— 比大小</li>") == ["strength"]
    assert rule_code_words("<p>标准 <code>ranked</code></p>") == ["ranked"]
    assert rule_code_words('<li><strong data-value="flip_kitty">翻底</strong></li>') == []


@pytest.mark.django_db
def test_the_walker_fails_on_a_page_rendering_a_leftover(vocabulary: frozenset[str]) -> None:
    """Through the real stack: a page in English (the 404 page for an English reader) is
    caught."""
    response = Client(HTTP_ACCEPT_LANGUAGE="en", **HTTPS).get("/no-such-page/")
    assert response.status_code == 404
    assert leftovers(response.content.decode(), vocabulary, frozenset())


# --- the forms' errors ------------------------------------------------------------------------

SHORT, COMMON, DIGITS = "abc12", "password", "8361927450"
FORM_POSTS: tuple[tuple[str, str, dict[str, str]], ...] = (
    # (who posts: "anonymous" or "player", the form's URL, what is sent)
    (
        "anonymous",
        "/accounts/signup/",
        {"username": "新玩家", "password1": SHORT, "password2": SHORT},
    ),
    (
        "anonymous",
        "/accounts/signup/",
        {"username": "新玩家", "password1": COMMON, "password2": COMMON},
    ),
    (
        "anonymous",
        "/accounts/signup/",
        {"username": "新玩家", "password1": DIGITS, "password2": DIGITS},
    ),
    (
        "anonymous",
        "/accounts/signup/",
        {"username": "xinwanjia", "password1": "xinwanjia1", "password2": "xinwanjia1"},
    ),
    (
        "anonymous",
        "/accounts/signup/",
        {"username": "新玩家", "password1": PASSWORD, "password2": "other-pass-99"},
    ),
    (
        "anonymous",
        "/accounts/signup/",
        {"username": "新 玩家!", "password1": PASSWORD, "password2": PASSWORD},
    ),
    (
        "anonymous",
        "/accounts/signup/",
        {"username": PLAYERS[0], "password1": PASSWORD, "password2": PASSWORD},
    ),
    (
        "anonymous",
        "/accounts/signup/",
        {
            "username": "新玩家",
            "email": "not-an-address",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    ),
    ("anonymous", "/accounts/signup/", {"username": "", "password1": "", "password2": ""}),
    ("anonymous", "/accounts/login/", {"username": PLAYERS[0], "password": "wrong-password-1"}),
    ("anonymous", "/accounts/login/", {}),
    ("anonymous", "/accounts/password_reset/", {"email": "not-an-address"}),
    (
        "player",
        "/accounts/password_change/",
        {"old_password": "wrong-1", "new_password1": SHORT, "new_password2": SHORT},
    ),
    (
        "player",
        "/accounts/password_change/",
        {"old_password": PASSWORD, "new_password1": SHORT, "new_password2": SHORT},
    ),
    (
        "player",
        "/accounts/password_change/",
        {"old_password": PASSWORD, "new_password1": DIGITS, "new_password2": "x"},
    ),
    ("player", "/accounts/settings/", {"display_name": "名" * 41, "language": "klingon"}),
    (
        "player",
        "/tables/new/",
        {
            "name": "桌" * 61,
            "preset": "nope",
            "stake": "0",
            "min_balance": "-1",
            "play_seconds": "999",
        },
    ),
    (
        "player",
        "/tables/new/",
        {
            "name": "桌",
            "preset": "ranked",
            "stake": "x",
            "min_balance": "y",
            "play_seconds": "z",
            "players": "q",
        },
    ),
    (
        "player",
        "/tables/new/",
        {
            "name": "桌",
            "preset": "ranked",
            "stake": "10",
            "min_balance": "0",
            "play_seconds": "20",
            "players": "5",
            "mode": "tractor",
        },
    ),
)


def form_error_pages(world: World, language: str) -> Iterator[tuple[str, str]]:
    """(what was posted, the page answering it) for every form of FORM_POSTS, and the set-password
    form a reset link opens."""
    clients = {"anonymous": logged_in(None, language), "player": logged_in(world.player, language)}
    for who, url, data in FORM_POSTS:
        response = clients[who].post(url, data, follow=True)
        assert response.status_code in (200, 400, 409), (url, data, response.status_code)
        yield f"{url} {sorted(data.items())}", response.content.decode()
    player = clients["player"]
    for url, data in (
        (f"/tables/{world.private.pk}/sit/", {"seat": "99"}),
        (f"/tables/{world.private.pk}/ready/", {"ready": "maybe"}),
        ("/ladder/me/relief/", {}),
        ("/tables/practice/", {"shape": "9-solo"}),
    ):
        response = player.post(url, data, follow=True)
        assert response.status_code in (200, 400, 403, 404, 409), (url, response.status_code)
        yield f"{url} {sorted(data.items())}", response.content.decode()
    staff = logged_in(world.staff, language)
    close = {"action": "close_tables", "_selected_action": [world.table.pk], "apply": "1"}
    response = staff.post(reverse("admin:games_table_changelist"), {**close, "reason": ""})
    yield "admin close_tables without a reason", response.content.decode()
    if language:  # the set-password form a reset link opens (it redirects to its own URL)
        uid = urlsafe_base64_encode(force_bytes(world.player.pk))
        token = default_token_generator.make_token(world.player)
        visitor = logged_in(None, language)
        opened = visitor.get(f"/accounts/reset/{uid}/{token}/", follow=True)
        assert opened.status_code == 200 and opened.redirect_chain
        url = opened.redirect_chain[-1][0]
        for first, second in ((SHORT, SHORT), (PASSWORD, "other-pass-99")):
            answer = visitor.post(url, {"new_password1": first, "new_password2": second})
            yield f"{url} {first}/{second}", answer.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_forms_errors_are_in_chinese(
    world: World, vocabulary: frozenset[str], language: str
) -> None:
    """Each form posted wrong (a too-short, common, all-digit or name-like password, passwords
    that differ, a bad user name or e-mail, a taken name, nothing at all, a wrong password, a
    bad table): the page with its errors has no English (Django's own validators included)."""
    problems: dict[str, list[str]] = {}
    pages = 0
    for posted, html in form_error_pages(world, language):
        pages += 1
        shown = ('class="errorlist', 'role="alert"', '<ul class="messages">', 'class="errornote')
        assert any(mark in html for mark in shown), f"no error shown: {posted}"
        found = leftovers(html, vocabulary, world.names)
        if found:
            problems[posted] = found
    assert pages == len(FORM_POSTS) + 7
    assert not problems, report(problems)


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "words"), [("zh-hans", "密码太短"), ("zh-hant", "密碼太短")])
def test_a_too_short_password_is_refused_in_chinese_and_the_rule_is_said_before(
    language: str, words: str
) -> None:
    """The sign-up page says the password rules before the first try, and a too-short password
    is refused in the reader's Chinese (Django's zh_Hans catalogue lacked that message)."""
    client = logged_in(None, language)
    form = client.get("/accounts/signup/").content.decode()
    assert "8" in form[form.index('name="password1"') - 600 : form.index('name="password2"')]
    data = {"username": "新玩家", "password1": SHORT, "password2": SHORT}
    refused = client.post("/accounts/signup/", data).content.decode()
    assert words in refused
    assert "too short" not in refused
    assert not User.objects.filter(username="新玩家").exists()
