"""Security review (issue 9, item 6; docs/proof/SECURITY.md): every URL's answer to visitors,
players and staff, CSRF on every form, the sockets' origin and session checks, cookies and
headers, open redirects, and no secret in the repository.

Already proven elsewhere and not repeated here: `check --deploy` is clean with production
settings and DEBUG is off by default (tests/foundation/test_settings.py); the admin never shows
a live hand's seed or move log (tests/games/test_admin_tables.py,
tests/games/test_review_regressions.py); hands in progress have no replay
(tests/games/test_replay_pages.py); a banned user's session and token stop working
(tests/accounts/test_accounts.py).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token

from accounts.models import User
from games import services
from games.models import AdminLog, QueueEntry, QuickMatch, Seat, Table
from ladder.models import LadderProfile
from shengji_site.asgi import application
from tests.games.helpers import (
    deal_and_close,
    make_table,
    make_users,
    play_out,
    ranked_table,
    ready_all,
    seat_all,
)

ROOT = Path(__file__).resolve().parents[2]
HTTPS: dict[str, Any] = {"HTTP_X_FORWARDED_PROTO": "https"}  # as the TLS proxy passes it on
PASSWORD = "pw-long-enough-1"
EVIL = "https://evil.example/steal"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# --- every URL of the site --------------------------------------------------------------------


def routes(patterns: list[Any] | None = None, prefix: str = "", ns: str = "") -> Iterator[Any]:
    """(route, name) of every URL pattern, the route as written (converters, regexes)."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            inner = f"{ns}:{entry.namespace}".strip(":") if entry.namespace else ns
            yield from routes(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            name = f"{ns}:{entry.name}".strip(":") if entry.name else None
            yield prefix + str(entry.pattern), name


# What a visitor (anonymous) and a plain logged-in player get on GET. Every URL of the site
# must be listed here or under the admin's models below: a new endpoint fails the walk until
# someone decides who may see it.
OK, LOGIN, ADMIN_LOGIN, REDIRECT, POST_ONLY, API_REFUSED, NOT_FOUND, HEALTH = (
    "200",
    "302 to the log-in page",
    "302 to the admin's log-in page",
    "302 elsewhere",
    "405",
    "401 or 403",
    "404",
    "200 or 503",
)
PUBLIC = (OK, OK)
EXPECTED: dict[str, tuple[str, str]] = {
    "home": PUBLIC,
    "rules": PUBLIC,  # the rules for players, in the page's language
    "healthz": (HEALTH, HEALTH),  # public by design: reachability only, no detail
    "favicon": (REDIRECT, REDIRECT),  # /favicon.ico: to the SVG icon
    "set_language": (REDIRECT, REDIRECT),
    "api-schema": PUBLIC,
    "api-docs": PUBLIC,
    "api-ladder:token": (POST_ONLY, POST_ONLY),  # POST with a password; DELETE your own
    "api-ladder:me": (API_REFUSED, OK),
    "api-ladder:my-ledger": (API_REFUSED, OK),
    "api-ladder:relief": (API_REFUSED, OK),  # your own relief status; POST claims it
    "api-ladder:player": PUBLIC,
    "api-ladder:player-hands": PUBLIC,
    "api-ladder:leaderboard": PUBLIC,
    "api-ladder:hand": PUBLIC,  # seats and settlement; a live hand holds no card there
    "login": (OK, REDIRECT),
    "logout": (POST_ONLY, POST_ONLY),
    "password_change": (LOGIN, OK),
    "password_change_done": (LOGIN, OK),
    "password_reset": PUBLIC,
    "password_reset_done": PUBLIC,
    "password_reset_confirm": PUBLIC,  # a bad link says so
    "password_reset_complete": PUBLIC,
    "accounts:signup": (OK, REDIRECT),
    "accounts:me": (LOGIN, REDIRECT),
    "accounts:settings": (LOGIN, OK),
    "accounts:token": (LOGIN, OK),
    "ladder:leaderboard": PUBLIC,
    "ladder:board": PUBLIC,
    "ladder:player": PUBLIC,
    "ladder:relief": (POST_ONLY, POST_ONLY),
    "games:lobby": PUBLIC,
    "games:lobby_status": PUBLIC,  # the viewer's own queue place and seats only
    "games:table_new": (LOGIN, OK),
    "games:table_needed": PUBLIC,  # the create form's preview: the viewer's own balance only
    "games:quick_join": (POST_ONLY, POST_ONLY),
    "games:quick_leave": (POST_ONLY, POST_ONLY),
    "games:practice": (POST_ONLY, POST_ONLY),
    "games:invite": (NOT_FOUND, NOT_FOUND),  # a private table's link; a wrong code is 404
    "games:table": PUBLIC,  # the page; the cards come over the socket
    "games:seat_take": (POST_ONLY, POST_ONLY),
    "games:seat_leave": (POST_ONLY, POST_ONLY),
    "games:seat_ready": (POST_ONLY, POST_ONLY),
    "games:seat_bot": (POST_ONLY, POST_ONLY),
    "games:replay": PUBLIC,  # a finished hand; a live one is 404 (test_live_hands_...)
    "games:replay_record": PUBLIC,
    "games:hand_ledger": PUBLIC,
    "admin:index": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:login": (OK, OK),
    "admin:logout": (REDIRECT, REDIRECT),
    "admin:password_change": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:password_change_done": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:autocomplete": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:jsi18n": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:app_list": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:auth_user_password_change": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:games_table_seat_remove": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:ladder_ladderprofile_adjust": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin:view_on_site": (ADMIN_LOGIN, ADMIN_LOGIN),
    "admin/(?P<url>.*)$": (ADMIN_LOGIN, ADMIN_LOGIN),  # the admin's catch-all
}
ADMIN_VIEWS = ("changelist", "add", "history", "delete", "change")


def admin_models() -> list[tuple[str, str, type]]:
    return [(m._meta.app_label, m._meta.model_name, m) for m in admin.site._registry]  # type: ignore[misc]


def expected_for(route: str, name: str | None) -> tuple[str, str] | None:
    for app, model, _ in admin_models():
        if name in {f"admin:{app}_{model}_{view}" for view in ADMIN_VIEWS}:
            return ADMIN_LOGIN, ADMIN_LOGIN
        if route == f"admin/{app}/{model}/<path:object_id>/":
            return ADMIN_LOGIN, ADMIN_LOGIN  # the short link to …/change/
    return EXPECTED.get(name or route)


@pytest.fixture
def site() -> dict[str, Any]:
    """A finished hand, a live one, and one object of every model the admin shows."""
    players = make_users(4, prefix="done")
    table = ranked_table(players)  # a ranked hand: rating changes too
    finished = play_out(deal_and_close(ready_all(table, players)), players)
    others = make_users(4, prefix="live")
    live_table = make_table(others[0])
    live = deal_and_close(seat_all(live_table, others))
    boss = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    AdminLog.objects.create(actor=boss, table=table, action="note", detail={})
    from django.utils import timezone

    now = timezone.now()
    QueueEntry.objects.create(user=players[1], rating=0, joined_at=now, last_seen=now)
    Group.objects.create(name="moderators")
    QuickMatch.objects.create(table=table, players=[], ratings=[], waits=[], gap=0.0)
    Token.objects.create(user=players[2])
    return {
        "player": players[0],
        "others": players,
        "table": table,
        "finished": finished,
        "live": live,
        "live_table": live_table,
        "boss": boss,
    }


def object_id(model: type) -> str:
    first = model.objects.order_by("pk").first()  # type: ignore[attr-defined]
    if first is None:
        return "999999"
    return str(getattr(first, "user_id", None) if model.__name__ == "TokenProxy" else first.pk)


def url_for(route: str, site: dict[str, Any]) -> str:
    """The route with real values in its parameters."""
    if route.startswith("admin/^"):
        return "/admin/games/"
    if route.endswith("(?P<url>.*)$"):
        return "/admin/no-such-page/"
    model = None
    for app, name, candidate in admin_models():
        if route.startswith(f"admin/{app}/{name}/"):
            model = candidate
    table_type = ContentType.objects.get_for_model(Table)
    values = {
        "table_id": site["table"].pk,
        "hand_id": site["finished"].pk,
        "username": site["player"].username,
        "board": "title",
        "invite_code": "no-such-code",
        "uidb64": "MQ",
        "token": "set-password",
        "index": 0,
        "id": site["player"].pk,
        "content_type_id": table_type.pk,
        "object_id": object_id(model) if model else site["table"].pk,
    }
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m[1]]), route)


def answer(response: Any) -> str:
    status = response.status_code
    if status == 302:
        target = response["Location"]
        if target.startswith("/accounts/login/?next="):
            return LOGIN
        if target.startswith("/admin/login/?next="):
            return ADMIN_LOGIN
        return REDIRECT
    if status in (401, 403):
        return API_REFUSED
    return {200: OK, 405: POST_ONLY, 404: NOT_FOUND}.get(status, str(status))


def test_every_url_of_the_site_is_in_the_table_of_who_may_see_it() -> None:
    walked = list(routes())
    missing = [(route, name) for route, name in walked if expected_for(route, name) is None]
    assert missing == [], "decide who may see these new URLs and add them to EXPECTED"
    names = {name or route for route, name in walked}
    assert set(EXPECTED) - names == set(), "EXPECTED lists URLs the site no longer has"
    assert len(walked) > 100  # the admin's models included


@pytest.mark.django_db
def test_a_visitor_and_a_plain_player_get_the_right_answer_everywhere(
    site: dict[str, Any],
) -> None:
    visitor = Client(**HTTPS)
    player = Client(**HTTPS)
    player.force_login(site["player"])
    wrong = []
    for route, name in routes():
        expected = expected_for(route, name)
        assert expected is not None
        url = url_for(route, site)
        got = (answer(visitor.get(url)), answer(player.get(url)))
        if HEALTH in expected:
            got = tuple(HEALTH if g in {OK, "503"} else g for g in got)  # type: ignore[assignment]
        if got != expected:
            wrong.append(f"{url} ({name}): {got}, expected {expected}")
    assert wrong == [], "\n".join(wrong)


@pytest.mark.django_db
def test_live_hands_have_no_replay_record_or_ledger_and_the_api_shows_no_card(
    site: dict[str, Any],
) -> None:
    """A live hand is in no page and no API (issue 34, finding 1: docs/LADDER.md, "Who sees a
    hand"); its API answer is a missing hand's, with no card in it."""
    client = Client(**HTTPS)
    hand = site["live"].pk
    for url in (f"/hands/{hand}/", f"/hands/{hand}/record.json", f"/hands/{hand}/ledger.json"):
        assert client.get(url).status_code == 404, url
    detail = client.get(f"/api/hands/{hand}/")
    assert detail.status_code == 404 and detail.json()["code"] == "hand_not_found"
    assert not re.search(r"\b(?:[2-9TJQKA][SHCD]|SJ|BJ)\b", detail.content.decode())


# --- the admin: staff, and the right permission ----------------------------------------------


def staff_with(*codenames: str) -> User:
    user = User.objects.create_user(f"staff{User.objects.count()}", password=PASSWORD)
    user.is_staff = True
    user.save()
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return User.objects.get(pk=user.pk)  # the permission cache is per object


def admin_urls(site: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(model, view, url) for every view of every model in the admin."""
    for app, model, cls in admin_models():
        base = f"/admin/{app}/{model}/"
        pk = object_id(cls)
        views = {
            "changelist": base,
            "add": f"{base}add/",
            "change": f"{base}{pk}/change/",
            "history": f"{base}{pk}/history/",
            "delete": f"{base}{pk}/delete/",
        }
        for view, url in views.items():
            yield f"{app}.{model}", view, url


CUSTOM_ADMIN_URLS = {
    "games.change_table": "/admin/games/table/{table}/seats/0/remove/",
    "ladder.add_ledgerentry": "/admin/ladder/ladderprofile/{profile}/adjust/",
    "accounts.change_user": "/admin/accounts/user/{user}/password/",
}


def custom_urls(site: dict[str, Any]) -> dict[str, str]:
    profile = LadderProfile.objects.get(user=site["player"])
    ids = {"table": site["table"].pk, "profile": profile.pk, "user": site["player"].pk}
    return {perm: url.format(**ids) for perm, url in CUSTOM_ADMIN_URLS.items()}


@pytest.mark.django_db
def test_staff_without_permissions_are_refused_every_model_and_custom_page(
    site: dict[str, Any],
) -> None:
    client = Client(**HTTPS)
    client.force_login(staff_with())
    assert client.get("/admin/").status_code == 200  # the index, with nothing on it
    refused = {url: client.get(url).status_code for _, _, url in admin_urls(site)}
    refused |= {url: client.get(url).status_code for url in custom_urls(site).values()}
    assert set(refused.values()) == {403}, {u: s for u, s in refused.items() if s != 403}


@pytest.mark.django_db
def test_staff_who_may_only_view_can_look_but_not_add_change_delete_or_act(
    site: dict[str, Any],
) -> None:
    views = [p.codename for p in Permission.objects.filter(codename__startswith="view_")]
    looker = staff_with(*views)
    client = Client(**HTTPS)
    client.force_login(looker)
    got = {(model, view): client.get(url).status_code for model, view, url in admin_urls(site)}
    for (model, view), status in got.items():
        allowed = view in {"changelist", "change", "history"}
        assert status == (200 if allowed else 403), (model, view, status)
    for url in custom_urls(site).values():
        assert client.get(url).status_code == 403, url
    request = type("Request", (), {"user": looker, "GET": {}, "POST": {}})()
    for registered, model_admin in admin.site._registry.items():
        actions = model_admin.get_actions(request)
        assert actions == {}, f"{registered.__name__}: {sorted(actions)} with view rights only"


def post_action(client: Client, url: str, action: str, pk: Any) -> Any:
    data = {"action": action, ACTION_CHECKBOX_NAME: [pk], "apply": "1", "reason": "test"}
    return client.post(url, data)


@pytest.mark.django_db
def test_regression_staff_who_may_only_view_users_could_ban_them(site: dict[str, Any]) -> None:
    """The ban and unban actions had no permission of their own: any staff member who could
    see the user list could ban (accounts/admin.py; now they need accounts.change_user)."""
    victim = site["others"][1]
    client = Client(**HTTPS)
    client.force_login(staff_with("view_user"))
    post_action(client, "/admin/accounts/user/", "ban_users", victim.pk)
    victim.refresh_from_db()
    assert not victim.is_banned and victim.is_active

    client.force_login(staff_with("view_user", "change_user"))
    post_action(client, "/admin/accounts/user/", "ban_users", victim.pk)
    victim.refresh_from_db()
    assert victim.is_banned


@pytest.mark.django_db
def test_table_actions_need_the_table_change_permission(site: dict[str, Any]) -> None:
    live_table = site["live_table"]
    seat = Seat.objects.get(table=live_table, index=0)
    client = Client(**HTTPS)
    client.force_login(staff_with("view_table", "view_seat"))
    post_action(client, "/admin/games/table/", "close_tables", live_table.pk)
    post_action(client, "/admin/games/seat/", "remove_players", seat.pk)
    client.post(f"/admin/games/table/{live_table.pk}/seats/0/remove/", {"reason": "test"})
    live_table.refresh_from_db()
    seat.refresh_from_db()
    assert live_table.status == Table.Status.PLAYING and seat.user_id is not None

    client.force_login(staff_with("view_table", "change_table"))
    post_action(client, "/admin/games/table/", "close_tables", live_table.pk)
    live_table.refresh_from_db()
    assert live_table.status == Table.Status.CLOSED


@pytest.mark.django_db
def test_regression_the_admin_listed_every_api_token_key(site: dict[str, Any]) -> None:
    """A token is a password: DRF's token admin listed every key to any staff member allowed to
    view tokens, and named each token by its key (accounts/admin.py unregisters it)."""
    key = Token.objects.get(user=site["others"][2]).key
    client = Client(**HTTPS)
    client.force_login(site["boss"])
    assert client.get("/admin/authtoken/tokenproxy/").status_code == 404
    for url in ("/admin/", f"/admin/accounts/user/{site['others'][2].pk}/change/"):
        page = client.get(url)
        assert page.status_code == 200 and key not in page.content.decode(), url


# --- CSRF on every form -----------------------------------------------------------------------


def csrf_client(user: User | None = None) -> Client:
    client = Client(enforce_csrf_checks=True, **HTTPS)
    if user is not None:
        client.force_login(user)
    return client


VISITOR_FORMS = {
    "/accounts/signup/": {"username": "mallory", "password1": PASSWORD, "password2": PASSWORD},
    "/accounts/login/": {"username": "done0", "password": PASSWORD},
    "/accounts/password_reset/": {"email": "done0@example.com"},
    "/accounts/reset/MQ/set-password/": {"new_password1": PASSWORD, "new_password2": PASSWORD},
    "/i18n/setlang/": {"language": "zh-hans"},
    "/admin/login/": {"username": "boss", "password": PASSWORD},
}


def player_forms(site: dict[str, Any]) -> dict[str, dict[str, Any]]:
    table = site["table"].pk
    return {
        "/accounts/logout/": {},
        "/accounts/password_change/": {
            "old_password": PASSWORD,
            "new_password1": PASSWORD + "x",
            "new_password2": PASSWORD + "x",
        },
        "/accounts/settings/": {"display_name": "Mallory", "language": "en"},
        "/accounts/token/": {},
        "/tables/new/": {"name": "csrf", "mode": "casual", "preset": "ranked", "stake": 5},
        f"/tables/{table}/sit/": {"seat": 0},
        f"/tables/{table}/leave/": {},
        f"/tables/{table}/ready/": {"ready": "1"},
        f"/tables/{table}/bot/": {"seat": 1},
        "/tables/quick/join/": {},
        "/tables/quick/leave/": {},
        "/i18n/setlang/": {"language": "zh-hans"},
    }


def staff_forms(site: dict[str, Any]) -> dict[str, dict[str, Any]]:
    victim = site["others"][1]
    profile = LadderProfile.objects.get(user=victim)
    live = site["live_table"].pk
    return {
        "/admin/accounts/user/": {
            "action": "ban_users",
            ACTION_CHECKBOX_NAME: [victim.pk],
            "apply": "1",
            "reason": "csrf",
        },
        f"/admin/games/table/{live}/seats/0/remove/": {"reason": "csrf"},
        f"/admin/ladder/ladderprofile/{profile.pk}/adjust/": {
            "account": "table",
            "amount": 500,
            "reason": "csrf",
        },
        f"/admin/accounts/user/{victim.pk}/password/": {
            "password1": PASSWORD + "y",
            "password2": PASSWORD + "y",
        },
        "/admin/logout/": {},
    }


def snapshot() -> tuple[Any, ...]:
    """Everything the forms above would change."""
    return (
        list(User.objects.order_by("pk").values_list("username", "display_name", "is_active")),
        list(User.objects.order_by("pk").values_list("password", flat=True)),
        list(Token.objects.order_by("key").values_list("key", flat=True)),
        list(Table.objects.order_by("pk").values_list("pk", "status")),
        list(Seat.objects.order_by("pk").values_list("user_id", "ready", "bot")),
        list(LadderProfile.objects.order_by("pk").values_list("balance", flat=True)),
        list(QueueEntry.objects.values_list("user_id", flat=True)),
    )


@pytest.mark.django_db
def test_every_form_refuses_a_post_without_the_csrf_token_and_changes_nothing(
    site: dict[str, Any],
) -> None:
    Seat.objects.filter(table=site["table"], index=0).update(user=None)  # a free seat to take
    before = snapshot()
    refused = {}
    for who, forms in (
        (None, VISITOR_FORMS),
        (site["player"], player_forms(site)),
        (site["boss"], staff_forms(site)),
    ):
        for url, data in forms.items():
            response = csrf_client(who).post(url, data)
            csrf = response.status_code == 403 and b"CSRF verification failed" in response.content
            refused[f"{who or 'visitor'} {url}"] = "CSRF" if csrf else response.status_code
    assert set(refused.values()) == {"CSRF"}, {k: v for k, v in refused.items() if v != "CSRF"}
    assert snapshot() == before


@pytest.mark.django_db
def test_the_same_form_with_its_csrf_token_goes_through(site: dict[str, Any]) -> None:
    """The refusals above are CSRF's, not the forms': with the token the post works."""
    client = csrf_client(site["player"])
    client.get("/accounts/settings/")
    token = client.cookies["csrftoken"].value
    data = {"display_name": "Mallory", "language": "en", "csrfmiddlewaretoken": token}
    referer = "https://testserver/accounts/settings/"  # over HTTPS Django checks it too
    done = client.post("/accounts/settings/", data, secure=True, HTTP_REFERER=referer)
    assert done.status_code == 302
    site["player"].refresh_from_db()
    assert site["player"].display_name == "Mallory"


@pytest.mark.django_db
def test_the_api_refuses_a_session_write_without_csrf_and_acts_only_for_its_user(
    site: dict[str, Any],
) -> None:
    mine = Token.objects.create(user=site["player"])
    theirs = Token.objects.get(user=site["others"][2])
    client = csrf_client(site["player"])
    assert client.delete("/api/auth/token/").status_code == 403  # a session needs the token
    assert Token.objects.filter(pk=mine.pk).exists()

    api = Client(**HTTPS)
    deleted = api.delete("/api/auth/token/", HTTP_AUTHORIZATION=f"Token {mine.key}")
    assert deleted.status_code == 204  # only its own token
    assert not Token.objects.filter(pk=mine.pk).exists()
    assert Token.objects.filter(pk=theirs.pk).exists()
    me = api.get("/api/me/", HTTP_AUTHORIZATION=f"Token {theirs.key}")
    assert me.json()["username"] == site["others"][2].username
    wrong = api.post("/api/auth/token/", {"username": site["others"][2].username, "password": "x"})
    assert wrong.status_code == 400 and wrong.json()["code"] == "credentials_invalid"


@pytest.mark.django_db
def test_a_player_changes_only_their_own_settings_and_token(site: dict[str, Any]) -> None:
    other = site["others"][2]
    theirs = Token.objects.get(user=other).key
    client = Client(**HTTPS)
    client.force_login(site["player"])
    client.post("/accounts/settings/", {"display_name": "Me", "language": "en", "user": other.pk})
    client.post("/accounts/token/", {"user": other.pk})
    other.refresh_from_db()
    assert other.display_name != "Me" and Token.objects.get(user=other).key == theirs
    assert Token.objects.filter(user=site["player"]).exists()


# --- redirects ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "target", [EVIL, "//evil.example/", "https:evil.example", "/\\evil.example"]
)
def test_no_open_redirect_after_log_in_log_out_or_a_language_change(
    target: str, site: dict[str, Any]
) -> None:
    client = Client(**HTTPS)
    login = client.post(
        f"/accounts/login/?next={target}", {"username": "done0", "password": PASSWORD}
    )
    logout = client.post("/accounts/logout/", {"next": target})
    language = client.post("/i18n/setlang/", {"language": "en", "next": target})
    for response in (login, logout, language):
        assert response.status_code == 302
        assert "evil" not in response["Location"], response["Location"]
    assert login["Location"] == "/accounts/me/"


# --- the sockets --------------------------------------------------------------------------------


async def socket(path: str, origin: bytes | None, cookie: str | None = None) -> Any:
    headers = [(b"host", b"localhost")]
    if origin is not None:
        headers.append((b"origin", origin))
    if cookie is not None:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=10)
    return communicator, connected


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        (b"http://localhost", True),
        (b"https://localhost:8443", True),  # the host is what ALLOWED_HOSTS names
        (b"https://evil.example", False),
        (b"http://localhost.evil.example", False),
        (b"null", False),  # a sandboxed page or a file
        (None, False),  # no Origin: refused (docs/proof/SECURITY.md)
    ],
)
async def test_a_socket_from_another_origin_or_none_is_refused(
    origin: bytes | None, accepted: bool, redis_url: str
) -> None:
    table = await database_sync_to_async(lambda: make_table(make_users(1, prefix="o")[0]))()
    for path in (f"/ws/table/{table.pk}/", "/ws/lobby/"):
        communicator, connected = await socket(path, origin)
        assert connected is accepted, path
        if connected:
            await communicator.disconnect()


def session_of(user: User) -> str:
    client = Client(**HTTPS)
    client.force_login(user)
    return str(client.cookies["sessionid"].value)


def logged_out_session(user: User) -> str:
    client = Client(**HTTPS)
    client.force_login(user)
    cookie = str(client.cookies["sessionid"].value)
    client.post("/accounts/logout/")
    return cookie


async def refused_codes(communicator: Any, messages: list[dict[str, Any]]) -> list[str]:
    codes = []
    for message in messages:
        await communicator.send_json_to(message)
        while True:
            frame = await communicator.receive_json_from(timeout=10)
            if frame["type"] == "error":
                codes.append(frame["code"])
                break
    return codes


@pytest.mark.django_db(transaction=True)
async def test_without_a_live_session_a_socket_may_watch_but_not_act(redis_url: str) -> None:
    def setup() -> tuple[int, str]:
        users = make_users(1, prefix="gone")
        return make_table(users[0], ranked=False).pk, logged_out_session(users[0])

    table_id, stale = await database_sync_to_async(setup)()
    acts: list[dict[str, Any]] = [
        {"type": "sit", "seat": 0},
        {"type": "chat", "text": "hello"},
        {"type": "bot", "seat": 1},
        {"type": "show_hand", "allow": True},
        {"type": "leave"},
    ]
    for cookie in (None, stale, "not-a-session"):
        communicator, connected = await socket(
            f"/ws/table/{table_id}/", b"http://localhost", cookie
        )
        assert connected
        state = await communicator.receive_json_from(timeout=10)
        assert state["type"] == "state" and state["you"] == {"seat": None, "watching": None}
        assert await refused_codes(communicator, acts) == ["login_required"] * len(acts)
        await communicator.disconnect()
    seats = await database_sync_to_async(
        lambda: list(Seat.objects.filter(table_id=table_id).values_list("user_id", "bot"))
    )()
    assert seats == [(None, False)] * 4


@pytest.mark.django_db(transaction=True)
async def test_a_live_session_acts_only_for_its_own_seat(redis_url: str) -> None:
    def setup() -> tuple[int, str, int]:
        users = make_users(2, prefix="own")
        table = make_table(users[0], ranked=False)
        services.seat_take(table_id=table.pk, user=users[1], index=1)
        return table.pk, session_of(users[0]), users[1].pk

    table_id, cookie, other = await database_sync_to_async(setup)()
    communicator, connected = await socket(f"/ws/table/{table_id}/", b"http://localhost", cookie)
    assert connected
    await communicator.receive_json_from(timeout=10)
    codes = await refused_codes(
        communicator,
        [{"type": "sit", "seat": 1}, {"type": "ready"}, {"type": "play", "seq": 0, "cards": "AS"}],
    )
    assert codes == ["seat_taken", "not_seated", "not_seated"]
    await communicator.disconnect()
    seat = await database_sync_to_async(lambda: Seat.objects.get(table_id=table_id, index=1))()
    assert seat.user_id == other and not seat.ready


# --- headers, cookies, passwords, errors ----------------------------------------------------------


@pytest.mark.django_db
def test_pages_forbid_framing_and_sniffing_and_keep_to_https(site: dict[str, Any]) -> None:
    client = Client(**HTTPS)
    for url in ("/", "/tables/", "/admin/login/", "/api/me/"):
        response = client.get(url)
        assert response["X-Frame-Options"] == "DENY", url
        assert response["X-Content-Type-Options"] == "nosniff", url
        assert response["Referrer-Policy"] == "same-origin", url
        assert response["Cross-Origin-Opener-Policy"] == "same-origin", url
        assert response["Strict-Transport-Security"].startswith("max-age=31536000"), url
    plain = Client().get("/tables/")
    assert plain.status_code == 301 and plain["Location"].startswith("https://")


INLINE_CODE = re.compile(
    r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>|<style\b|\sstyle=\"|\son[a-z]+=\"",
    re.IGNORECASE,
)


@pytest.mark.django_db
def test_pages_have_a_content_security_policy_they_keep_to(site: dict[str, Any]) -> None:
    """Scripts, styles and sockets only from the site: so no page may carry an inline script,
    style or event handler (the browser would refuse it), which this checks in the HTML."""
    client = Client(**HTTPS)
    client.force_login(site["player"])
    pages = [
        "/",
        "/tables/",
        "/tables/new/",
        f"/tables/{site['table'].pk}/",
        f"/hands/{site['finished'].pk}/",
        "/ladder/",
        "/accounts/me/",
        "/admin/login/",
    ]
    for url in pages:
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        policy = response["Content-Security-Policy"]
        assert "script-src 'self';" in policy and "style-src 'self';" in policy, url
        assert "'unsafe-inline'" not in policy and "frame-ancestors 'none'" in policy, url
        assert INLINE_CODE.findall(response.content.decode()) == [], url
    # The API's Swagger page, served by the site, runs no inline script: only its inline style
    # is allowed, on that page alone, and nothing comes from another host.
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    policy = docs["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "http" not in policy
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+=\"", docs.content.decode()) == []
    assert "'unsafe-inline'" not in client.get("/api/me/")["Content-Security-Policy"]


@pytest.mark.django_db
def test_cookies_are_secure_http_only_and_same_site(site: dict[str, Any]) -> None:
    site["player"].language = "zh-hans"
    site["player"].save()
    client = Client(**HTTPS)
    client.get("/accounts/login/")
    response = client.post("/accounts/login/", {"username": "done0", "password": PASSWORD})
    assert response.status_code == 302
    cookies = {**client.cookies, **response.cookies}
    session, csrf, language = cookies["sessionid"], cookies["csrftoken"], cookies["django_language"]
    assert session["httponly"] and session["secure"] and session["samesite"] == "Lax"
    assert csrf["secure"] and csrf["samesite"] == "Lax"
    assert language["secure"] and language["samesite"] == "Lax"


def test_passwords_are_checked_by_every_django_validator() -> None:
    from django.conf import settings
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    names = {v["NAME"].rsplit(".", 1)[1] for v in settings.AUTH_PASSWORD_VALIDATORS}
    assert names == {
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    }
    for weak in ("password", "12345678901", "short"):
        with pytest.raises(ValidationError):
            validate_password(weak)


@pytest.mark.django_db
def test_errors_show_no_debug_page(site: dict[str, Any]) -> None:
    from django.conf import settings

    assert settings.DEBUG is False
    response = Client(**HTTPS).get("/no/such/page/")
    assert response.status_code == 404
    body = response.content.decode()
    assert "Traceback" not in body and "URLconf" not in body and "SECRET" not in body


# --- no secret in the repository ----------------------------------------------------------------

SECRET_PATTERNS = {
    "a private key": re.compile(r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----"),
    "an AWS access key": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "an AWS secret": re.compile(r"aws_secret_access_key\s*[=:]", re.IGNORECASE),
    # Spelled in two parts so that this file does not match it.
    "a Django key made by startproject": re.compile("django-" + "insecure-"),
    "a Slack or GitHub token": re.compile(r"\b(?:xox[baprs]-[0-9A-Za-z-]{10,}|gh[pousr]_\w{30,})"),
    "a hard-coded SECRET_KEY": re.compile(r"\bSECRET_KEY\s*=\s*['\"]"),
}
# Credentials in a URL (scheme://user:password@host) in code, but for the usage examples'
# placeholder ``user:pw``.
CREDENTIAL_URL = re.compile(r"\b[a-z][a-z0-9+]*://(?!user:pw@)[^/\s:@'\"]+:[^@\s'\"/]+@")
PASSWORD_SETTING = re.compile(r"(PASSWORD|PASSWD|API_KEY|TOKEN)\w*\s*=\s*['\"][^'\"]+['\"]")


def tracked_files() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    return [ROOT / name for name in names if name]


def text_of(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:  # listed but deleted in this working tree
        return None
    return None if b"\0" in data[:4096] else data.decode("utf-8", errors="replace")


def git_ignored(path: str) -> bool:
    done = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT, check=False)
    return done.returncode == 0


def test_no_secret_is_committed() -> None:
    found = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        relative = path.relative_to(ROOT).as_posix()
        for what, pattern in SECRET_PATTERNS.items():
            if pattern.search(text):
                found.append(f"{relative}: {what}")
        code = relative.endswith(".py") and not relative.startswith("tests/")
        if code and CREDENTIAL_URL.search(text):
            found.append(f"{relative}: credentials in a URL")
    settings_text = (ROOT / "shengji_site" / "settings.py").read_text()
    found += [f"settings.py: {m[0]}" for m in PASSWORD_SETTING.finditer(settings_text)]
    assert found == []


def test_no_env_or_key_file_is_committed_and_the_kept_key_is_ignored() -> None:
    names = [path.relative_to(ROOT).as_posix() for path in tracked_files()]
    risky = re.compile(r"(^|/)(\.env(\..*)?|.*\.(pem|key|p12|pfx)|id_(rsa|ed25519|ecdsa))$")
    assert [name for name in names if risky.search(name)] == []
    assert not any(name.startswith("var/") for name in names)
    for path in ("var/", "var/secret_key", ".env", "deploy/.env"):
        assert git_ignored(path), path


def test_the_only_secret_key_in_the_settings_is_the_debug_one() -> None:
    """Without SECRET_KEY the settings use a random key kept under var/ (ignored by git); the
    one literal is for DEBUG on a developer's machine (tests/foundation/test_settings.py)."""
    text = (ROOT / "shengji_site" / "settings.py").read_text()
    literals = re.findall(r"return \"([^\"]{20,})\"", text)
    assert literals == ["dev-only-secret-key-not-for-production-use-0123456789abcdef"]
    assert "if DEBUG:" in text.split(literals[0])[0].rsplit("def _secret_key", 1)[1]
