"""No 500 from bad input (docs/proof/BAD-INPUT.md): every URL pattern of the site, each of its
parameters in turn replaced by hostile text (NUL, a number past any integer column, negative
numbers, ``..`` plain and encoded, Unicode, a very long string, the wrong type), and hostile
query strings (huge, negative and non-numeric pages, limits and offsets, the admin's ordering,
search and filters), fetched with GET and POST by a visitor, a plain player and a superuser;
then every socket route with hostile paths. None may answer 500 or show a traceback.

Regression tests for the 500s this walk found are at the end, named after each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import User
from games.models import Table
from shengji_site import health
from shengji_site.asgi import application
from shengji_site.routing import websocket_urlpatterns
from tests.games.helpers import make_table, make_users
from tests.https import HTTPS

PASSWORD = "pw-long-enough-1"
HUGE = "99999999999999999999"

# Text put in place of each URL parameter.
HOSTILE_VALUES = [
    "%00",
    "a%00b",
    HUGE,
    "9" * 5000,  # past Python's 4,300-digit int() limit
    "-1",
    "-" + HUGE,
    "0",
    "..",
    "%2e%2e",
    "..%2f..%2fetc%2fpasswd",
    "%2F",
    "%E6%9D%8E%E9%9B%B7",  # 李雷
    "%E2%80%AE%E2%80%8B",  # U+202E U+200B
    "%ff%fe",  # not UTF-8
    "x" * 3000,
    "abc",
    "1.5",
    "1e9",
    "%27%20OR%201%3D1--",
    "%3Cscript%3E",
]
# Query strings added to each URL (its parameters real).
HOSTILE_QUERIES = [
    f"page={HUGE}",
    "page=-1",
    "page=abc",
    "page=%00",
    f"page={'9' * 5000}",
    f"limit={HUGE}&offset={HUGE}",
    f"limit=-1&offset=-{HUGE}",
    "limit=abc&offset=%00",
    "me=1&page=0",
    f"p={HUGE}",
    "p=-1&o=abc",
    "o=99.-99",
    "q=%00",
    "q=" + "%E2%80%AE" * 50,
    "all=&e=1",
    "_changelist_filters=%00",
    "is_active__exact=abc&banned_at__isnull=%00",
    "password__startswith=a",
    "next=%00&language=%00",
    "format=%00",
]
# A form body with the fields the site's forms read, every one hostile.
HOSTILE_BODY = {
    "seat": HUGE,
    "index": "-1",
    "stake": "9" * 5000,
    "min_balance": "-" + HUGE,
    "ready": "\x00",
    "name": "\x00" * 3,
    "mode": "\u202e",
    "preset": "../../etc",
    "display_name": "a\u200bb",
    "language": "\x00",
    "username": "\x00",
    "password": "\x00",
    "password1": "x",
    "password2": "y",
    "email": "\x00@example.com",
    "reason": "\x00",
    "amount": HUGE,
    "account": "\x00",
    "action": "\x00",
    "_selected_action": HUGE,
    "next": "\x00",
    "old_password": "\x00",
    "new_password1": "\x00",
    "new_password2": "\x00",
}


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def short_worker_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """No Celery worker runs here, so /healthz waits out its ping of the workers on each of the
    walk's hundreds of fetches (a second each) and answers 503, which the walk allows."""
    monkeypatch.setattr(health, "CELERY_PING_TIMEOUT_SECONDS", 0.05)


def routes(patterns: list[Any] | None = None, prefix: str = "") -> Iterator[str]:
    """Every URL pattern, its route as written (converters and regexes)."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            yield from routes(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern)


PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>(?:[^()]|\([^()]*\))*\)")


def fill(route: str, values: dict[str, str], hostile: tuple[str, str] | None = None) -> str:
    """The route as a URL: each parameter its real value, or ``hostile`` = (name, text)."""

    def value(match: re.Match[str]) -> str:
        name = match[1] or match[2]
        if hostile is not None and hostile[0] == name:
            return hostile[1]
        return values.get(name, "1")

    url = PARAMETER.sub(value, route)
    return "/" + url.replace("^", "").replace("$", "").replace("\\", "")


def parameters(route: str) -> list[str]:
    return [m[1] or m[2] for m in PARAMETER.finditer(route)]


def people(tag: int) -> dict[str, Any]:
    """A player with a table, and a superuser: new for each route, since the hostile posts
    may delete them (the admin's delete page deletes on any post)."""
    player = make_users(1, prefix=f"walker{tag}x")[0]
    boss = User.objects.create_superuser(f"walkboss{tag}", f"boss{tag}@example.com", PASSWORD)
    table = make_table(player)
    return {"player": player, "boss": boss, "table": table}


def real_values(people: dict[str, Any]) -> dict[str, str]:
    return {
        "table_id": str(people["table"].pk),
        "hand_id": "1",
        "username": people["player"].username,
        "board": "points",
        "uidb64": "MQ",
        "token": "set-password",
        "index": "0",
        "id": str(people["player"].pk),
        "content_type_id": str(ContentType.objects.get_for_model(Table).pk),
        "object_id": str(people["table"].pk),
        "app_label": "games",
        "url": "games/",
    }


def clients(people: dict[str, Any]) -> dict[str, Client]:
    visitor = Client(raise_request_exception=False, **HTTPS)
    player = Client(raise_request_exception=False, **HTTPS)
    player.force_login(people["player"])
    boss = Client(raise_request_exception=False, **HTTPS)
    boss.force_login(people["boss"])
    return {"visitor": visitor, "player": player, "staff": boss}


def failures(client: Client, who: str, url: str, post: bool) -> list[str]:
    found = []
    for method in ("GET", "POST") if post else ("GET",):
        response = client.post(url, HOSTILE_BODY) if method == "POST" else client.get(url)
        body = response.content
        status = response.status_code
        health = status == 503 and url.startswith("/healthz")  # a server it needs is down
        if (status >= 500 and not health) or b"Traceback" in body:
            found.append(f"{who} {method} {url[:120]}: {status}")
    return found


def walked_routes(part: str) -> list[str]:
    """The routes of the site (``part`` "site") or of the admin ("admin")."""
    return [route for route in routes() if route.startswith("admin/") == (part == "admin")]


def walk(route: str) -> list[str]:
    """Every hostile URL of the route, fetched by each of the three people."""
    site = people(1)
    values = real_values(site)
    urls = [fill(route, values, (name, text)) for name in parameters(route)
            for text in HOSTILE_VALUES]  # fmt: skip
    base = fill(route, values)
    urls += [f"{base}?{query}" for query in HOSTILE_QUERIES]
    wrong: list[str] = []
    for who, client in clients(site).items():
        wrong += failures(client, who, base, post=True)
        for url in urls:
            wrong += failures(client, who, url, post=who != "visitor" or "?" not in url)
    return wrong


def test_the_walk_takes_every_route_of_the_site_and_the_admin() -> None:
    assert len(walked_routes("site")) > 40
    assert len(walked_routes("admin")) > 100
    assert len(walked_routes("site")) + len(walked_routes("admin")) == len(list(routes()))


# One test a route, so that the walk spreads over the suite's workers.
@pytest.mark.django_db
@pytest.mark.parametrize("route", walked_routes("site"))
def test_no_page_or_api_answers_500_to_hostile_paths_queries_or_forms(route: str) -> None:
    wrong = walk(route)
    assert wrong == [], "\n".join(wrong)


@pytest.mark.django_db
@pytest.mark.parametrize("route", walked_routes("admin"))
def test_no_admin_page_answers_500_to_hostile_paths_queries_or_forms(route: str) -> None:
    wrong = walk(route)
    assert wrong == [], "\n".join(wrong)


# --- sockets -------------------------------------------------------------------------------------

HOSTILE_SOCKET_PATHS = [
    "/ws/lobby/../table/1/",
    "/ws/lobby/%2e%2e/table/1/",
    "/ws/table/%00/",
    "/ws/table/1%00/",
    f"/ws/table/{HUGE}/",
    f"/ws/table/{'9' * 5000}/",
    "/ws/table/-1/",
    "/ws/table/0/",
    "/ws/table/abc/",
    "/ws/table/1/../../lobby/",
    "/ws/table/%E6%9D%8E/",
    "/ws/lobby/extra/",
    "/ws/lobby",
    "/ws/",
    "/ws/no-such/",
    "/",
    "/" + "x" * 5000,
]


def socket_routes() -> list[str]:
    return [str(entry.pattern) for entry in websocket_urlpatterns]


async def open_socket(path: str) -> tuple[bool, Any]:
    headers = [(b"host", b"localhost"), (b"origin", b"http://localhost")]
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await communicator.connect(timeout=10)
    if connected:
        await communicator.disconnect()
    return connected, code


@pytest.mark.django_db(transaction=True)
async def test_no_socket_route_fails_on_a_hostile_path(redis_url: str) -> None:
    """Every socket route with hostile text in its parameters, and paths no route matches:
    refused (4404) or accepted, never an exception in the server."""
    paths = list(HOSTILE_SOCKET_PATHS)
    for route in socket_routes():
        for text in HOSTILE_VALUES:
            paths.append("/" + PARAMETER.sub(text.replace("\\", "\\\\"), route).replace("^", ""))
    wrong = []
    for path in paths:
        try:
            connected, code = await open_socket(path)
        except Exception as error:  # what the router raised: the server's 500
            wrong.append(f"{path[:80]}: {type(error).__name__}: {str(error)[:80]}")
            continue
        if not connected and code not in (4404, None):
            wrong.append(f"{path[:80]}: closed with {code}")
    assert wrong == [], "\n".join(wrong)


# --- regressions ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_regression_players_nul_path_gave_500() -> None:
    """A NUL in a user name in the URL reached PostgreSQL, which refuses NUL in text: 500. Now
    the page is 404 and the API's answer says ``player_not_found``."""
    client = Client(raise_request_exception=False, **HTTPS)
    assert client.get("/players/%00/").status_code == 404
    for url in ("/api/players/%00/", "/api/players/a%00b/hands/"):
        response = client.get(url)
        assert response.status_code == 404
        assert response.json()["code"] == "player_not_found"


@pytest.mark.django_db
def test_regression_ladder_huge_page_gave_500() -> None:
    """A page number past PostgreSQL's bigint made an OFFSET it refused: 500. Now 404."""
    client = Client(raise_request_exception=False, **HTTPS)
    assert client.get(f"/ladder/points/?page={HUGE}").status_code == 404
    assert client.get("/ladder/points/?page=abc").status_code == 200  # the first page
    api = client.get(f"/api/leaderboards/points/?page={HUGE}")
    assert api.status_code == 200 and api.json()["results"] == []


@pytest.mark.django_db
def test_regression_api_unknown_path_answers_json_with_a_code() -> None:
    """A URL under /api/ that no route takes (a hand id that is not a number) answers 404 in
    the API's error shape, not the site's HTML page."""
    client = Client(raise_request_exception=False, **HTTPS)
    for url in ("/api/hands/abc/", f"/api/hands/{HUGE}/", "/api/nothing/"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response.json()["code"] in {"not_found", "hand_not_found"}, url


@pytest.mark.django_db(transaction=True)
async def test_regression_socket_path_with_dot_dot_gave_500(redis_url: str) -> None:
    """``/ws/lobby/../table/1/`` matched no route and the router raised: an error in the
    server for every such path. Now refused with 4404, as a table that does not exist."""
    table = await database_sync_to_async(lambda: make_table(make_users(1, prefix="dd")[0]))()
    for path in ("/ws/lobby/../table/1/", f"/ws/lobby/../table/{table.pk}/", "/ws/table/%00/"):
        assert await open_socket(path) == (False, 4404), path
    assert (await open_socket(f"/ws/table/{HUGE}/")) == (False, 4404)


@pytest.mark.django_db
def test_regression_admin_points_adjust_with_a_non_number_gave_500() -> None:
    """The ladder admin's adjust page looked its profile up by whatever the URL held: a
    non-number was a 500 from the lookup. Now the route takes numbers only: 404."""
    boss = User.objects.create_superuser("adjboss", "adjboss@example.com", PASSWORD)
    client = Client(raise_request_exception=False, **HTTPS)
    client.force_login(boss)
    for value in ("abc", "%00", "1.5"):
        url = f"/admin/ladder/ladderprofile/{value}/adjust/"
        assert client.get(url).status_code in (302, 404), url  # the admin's own not-found
