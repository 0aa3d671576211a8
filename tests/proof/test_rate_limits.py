"""Rate limits (accounts/ratelimits.py, docs/proof/BAD-INPUT.md): messages per socket, sockets per
user, chat lines per user, failed log-ins per (user name, address) and per address, password
resets. tests/accounts/test_trust_logins.py and tests/proof/test_trust_addresses.py have more on
log-ins, sign-ups and client addresses.

The counters live in real Redis under this test run's prefix; each test starts with none.
Limits are shrunk through settings so the tests run in seconds.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.core import mail
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts import ratelimits
from accounts.errors import ApplicationError
from accounts.models import User
from games import services
from games.models import ChatLine
from proof.fuzz import session_headers
from shengji_site.asgi import application
from tests.https import HTTPS

PASSWORD = "tractor-pairs-88"


@pytest.fixture(autouse=True)
def no_counts(redis_url: str, settings: Any) -> Iterator[None]:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    ratelimits.reset_all()
    yield
    ratelimits.reset_all()


def make_user(name: str, **extra: Any) -> User:
    return User.objects.create_user(name, password=PASSWORD, **extra)


def make_table(creator: User) -> int:
    return services.table_create(creator=creator, name="limits", ranked=False).pk


# --- messages on one socket ------------------------------------------------------------------


async def open_socket(table_id: int, user: User | None, address: str = "192.0.2.10") -> Any:
    headers = await database_sync_to_async(session_headers)(user)
    socket = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    socket.scope["client"] = [address, 50000]
    connected, _ = await socket.connect(timeout=10)
    assert connected
    return socket


async def next_of(socket: Any, *kinds: str) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = await socket.receive_json_from(timeout=10)
        if frame["type"] in kinds:
            return frame


async def flood(socket: Any, count: int) -> Counter[str]:
    """The answers to ``count`` pings sent at once, until the socket is quiet for a second:
    past the bucket the first refused is answered `rate_limited` and the rest are dropped
    unanswered (docs/PROTOCOL.md, "Limits")."""
    for _ in range(count):
        await socket.send_json_to({"type": "ping"})
    answers: Counter[str] = Counter()
    # The first answer may take longer than a second on a loaded machine; then quiet ends it.
    frame = await next_of(socket, "pong", "error")
    answers[frame.get("code", "pong")] += 1
    while not await socket.receive_nothing(timeout=1):
        frame = await next_of(socket, "pong", "error")
        answers[frame.get("code", "pong")] += 1
    return answers


@pytest.mark.django_db(transaction=True)
async def test_a_flood_is_rate_limited_and_the_socket_stays_open_and_recovers() -> None:
    user = await database_sync_to_async(make_user)("flooder")
    table_id = await database_sync_to_async(make_table)(user)
    socket = await open_socket(table_id, user)
    await next_of(socket, "state")
    started = time.monotonic()
    answers = await flood(socket, 60)  # fewer refused than the overflow (50): not closed
    elapsed = time.monotonic() - started
    burst, rate = django_settings.SHENGJI_SOCKET_BURST, django_settings.SHENGJI_SOCKET_RATE_PER_S
    assert (burst, rate) == (20, 8)
    assert burst <= answers["pong"] <= burst + rate * elapsed + 1
    # The first refused of each run (a token back ends one) answered, the others dropped.
    assert 1 <= answers["rate_limited"] <= answers["pong"] - burst + 1
    await asyncio.sleep(2 / rate)  # two tokens back
    await socket.send_json_to({"type": "ping"})
    assert (await next_of(socket, "pong", "error"))["type"] == "pong"
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_socket_bucket_takes_its_numbers_from_settings(settings: Any) -> None:
    settings.SHENGJI_SOCKET_BURST = 3
    settings.SHENGJI_SOCKET_RATE_PER_S = 0.1  # no token back during the test
    user = await database_sync_to_async(make_user)("slow")
    table_id = await database_sync_to_async(make_table)(user)
    socket = await open_socket(table_id, user)
    await next_of(socket, "state")
    answers = await flood(socket, 10)
    assert answers == {"pong": 3, "rate_limited": 1}
    await socket.disconnect()


# --- sockets per user ------------------------------------------------------------------------


async def refused(table_id: int, user: User | None, address: str = "192.0.2.10") -> int:
    """Open a socket that must be turned away; the close code."""
    socket = await open_socket(table_id, user, address)
    frame = await next_of(socket, "error")
    assert frame["code"] == "too_many_sockets"
    closed = await socket.receive_output(timeout=10)
    assert closed["type"] == "websocket.close"
    await socket.disconnect()
    return int(closed["code"])


@pytest.mark.django_db(transaction=True)
async def test_a_user_may_open_only_so_many_sockets_at_a_table(settings: Any) -> None:
    settings.SHENGJI_SOCKETS_PER_USER = 2
    user, other = await database_sync_to_async(lambda: [make_user("many"), make_user("one")])()
    table_id = await database_sync_to_async(make_table)(user)
    first, second = [await open_socket(table_id, user) for _ in range(2)]
    assert await refused(table_id, user) == 4429
    others = await open_socket(table_id, other)  # someone else is not counted with them
    await next_of(others, "state")
    other_table = await database_sync_to_async(make_table)(other)
    elsewhere = await open_socket(other_table, user)  # nor another table
    await next_of(elsewhere, "state")
    await first.disconnect()
    again = await open_socket(table_id, user)  # a closed socket no longer counts
    await next_of(again, "state")
    await second.send_json_to({"type": "ping"})
    assert (await next_of(second, "pong", "error"))["type"] == "pong"
    for socket in (second, others, elsewhere, again):
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_anonymous_sockets_are_counted_per_address_and_silent_ones_expire(
    settings: Any,
) -> None:
    settings.SHENGJI_SOCKETS_PER_IP = 1
    settings.SHENGJI_CONNECTION_TIMEOUT_S = 1
    user = await database_sync_to_async(make_user)("host")
    table_id = await database_sync_to_async(make_table)(user)
    first = await open_socket(table_id, None, "198.51.100.1")
    assert await refused(table_id, None, "198.51.100.1") == 4429
    neighbour = await open_socket(table_id, None, "198.51.100.2")
    await next_of(neighbour, "state")
    # A socket unheard of (no ping) for the connection timeout stops counting: a server that
    # died without closing its sockets does not lock their owners out.
    await asyncio.sleep(1.2)
    later = await open_socket(table_id, None, "198.51.100.1")
    await next_of(later, "state")
    for socket in (first, neighbour, later):
        await socket.disconnect()


# --- chat ------------------------------------------------------------------------------------


@pytest.fixture
def chat_limits(settings: Any) -> None:
    settings.SHENGJI_CHAT_BURST_LINES = 2
    settings.SHENGJI_CHAT_BURST_S = 1
    settings.SHENGJI_CHAT_LINES = 3
    settings.SHENGJI_CHAT_WINDOW_S = 600


def chat(table_id: int, user: User, text: str = "加油") -> str:
    try:
        services.chat_post(table_id=table_id, user=user, text=text)
    except ApplicationError as error:
        return error.code
    return "ok"


@pytest.mark.django_db
def test_chat_is_limited_per_user_over_all_tables(chat_limits: None) -> None:
    talker, other = make_user("talker"), make_user("other")
    table, second = make_table(talker), make_table(other)
    assert [chat(table, talker), chat(second, talker)] == ["ok", "ok"]
    assert chat(table, talker) == "chat_rate_limited"
    assert chat(second, talker) == "chat_rate_limited"  # the same user at another table
    assert chat(table, other) == "ok"  # another user is not held back
    assert chat(table, talker, "x" * 201) == "chat_too_long"  # refused lines are not counted
    assert ChatLine.objects.filter(user=talker).count() == 2
    time.sleep(1.05)
    assert chat(table, talker) == "ok"  # the burst window has passed
    time.sleep(1.05)
    assert chat(table, talker) == "chat_rate_limited"  # 3 lines in 600 s
    assert ChatLine.objects.filter(user=talker).count() == 3


@pytest.mark.django_db(transaction=True)
async def test_a_limited_chat_line_gets_its_code_on_the_socket(chat_limits: None) -> None:
    user = await database_sync_to_async(make_user)("chatty")
    table_id = await database_sync_to_async(make_table)(user)
    socket = await open_socket(table_id, user)
    codes = []
    for i in range(3):
        await socket.send_json_to({"type": "chat", "text": f"line {i}"})
        await socket.send_json_to({"type": "ping"})
        frame = await next_of(socket, "error", "pong")
        codes.append(frame.get("code", "ok"))
    assert codes == ["ok", "ok", "chat_rate_limited"]
    await socket.send_json_to({"type": "ping"})
    assert (await next_of(socket, "pong", "error"))["type"] == "pong"
    await socket.disconnect()


def test_the_chat_count_is_shared_between_processes(settings: Any) -> None:
    settings.SHENGJI_CHAT_BURST_LINES = 2
    assert ratelimits.chat_wait(user_id=999_001) == 0
    assert ratelimits.chat_wait(user_id=999_001) == 0
    script = (
        "import django; django.setup(); from accounts import ratelimits; "
        "print(ratelimits.chat_wait(user_id=999_001), ratelimits.chat_wait(user_id=999_002))"
    )
    env = {
        **os.environ,
        "REDIS_URL": django_settings.REDIS_URL,
        "SHENGJI_CHAT_BURST_LINES": "2",
        "DJANGO_SETTINGS_MODULE": "shengji_site.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    waits = done.stdout.split()
    assert int(waits[0]) > 0 and waits[1] == "0", done.stderr  # held back there as well


# --- log-in ----------------------------------------------------------------------------------


@pytest.fixture
def login_limits(settings: Any) -> None:
    settings.SHENGJI_LOGIN_FAILURES_PER_USER_IP = 3
    settings.SHENGJI_LOGIN_FAILURES_PER_IP = 5
    settings.SHENGJI_LOGIN_WINDOW_S = 2


class Attempt(NamedTuple):
    response: Any
    logged_in: bool

    @property
    def status_code(self) -> int:
        return int(self.response.status_code)


def log_in(address: str, username: str, password: str, **headers: str) -> Attempt:
    client = Client(REMOTE_ADDR=address, **HTTPS)
    client.defaults.update(headers)  # extra WSGI environ, as keyword arguments to Client would be
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return Attempt(response, "_auth_user_id" in client.session)


@pytest.mark.django_db
def test_failed_log_ins_lock_the_user_name_from_that_address_until_the_window_passes(
    login_limits: None,
) -> None:
    make_user("lin")
    for _ in range(3):
        wrong = log_in("192.0.2.1", "lin", "nope")
        assert wrong.status_code == 200 and not wrong.logged_in
    locked = log_in("192.0.2.1", "lin", PASSWORD)  # the right password, from that address
    assert locked.status_code == 429 and not locked.logged_in
    assert int(locked.response["Retry-After"]) in (1, 2)
    assert "Too many attempts: try again in 1 min." in locked.response.content.decode()
    assert locked.response.context["form"].has_error("__all__", "too_many_attempts")
    assert log_in("192.0.2.1", "LIN", PASSWORD).status_code == 429  # user names by case
    elsewhere = log_in("192.0.2.2", "lin", PASSWORD)  # the owner, from their own address
    assert elsewhere.status_code == 302 and elsewhere.logged_in
    time.sleep(2.05)
    ok = log_in("192.0.2.1", "lin", PASSWORD)
    assert ok.status_code == 302 and ok.logged_in


@pytest.mark.django_db
def test_a_log_in_forgives_its_name_from_its_address_not_the_address_under_others(
    login_limits: None,
) -> None:
    make_user("wu")
    make_user("ma")
    for _ in range(2):
        log_in("192.0.2.7", "wu", "nope")
        log_in("192.0.2.7", "ghost", "nope")
    assert log_in("192.0.2.7", "wu", PASSWORD).logged_in  # forgives wu's 2 from here
    for _ in range(2):  # 2 + 2 failures, but the success in between reset the pair's count
        log_in("192.0.2.7", "wu", "nope")
    assert log_in("192.0.2.7", "wu", PASSWORD).logged_in
    # The address keeps ghost's 2 failures: 3 more under any names and it is shut out.
    for name in ("ghost", "x1", "x2"):
        log_in("192.0.2.7", name, "nope")
    shut = log_in("192.0.2.7", "ma", PASSWORD)
    assert shut.status_code == 429 and not shut.logged_in
    assert log_in("192.0.2.9", "ma", PASSWORD).logged_in  # from elsewhere "ma" is welcome


@pytest.mark.django_db
def test_the_lockout_message_is_translated(login_limits: None) -> None:
    for _ in range(3):
        log_in("192.0.2.20", "zhang", "nope")
    locked = log_in("192.0.2.20", "zhang", "nope", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert locked.status_code == 429
    assert "尝试次数太多，请 1 分钟后再试。" in locked.response.content.decode()


@pytest.mark.django_db
def test_the_admin_log_in_is_limited_too(login_limits: None) -> None:
    make_user("boss", is_staff=True, is_superuser=True)
    client = Client(REMOTE_ADDR="192.0.2.30", **HTTPS)
    for _ in range(3):
        client.post("/admin/login/", {"username": "boss", "password": "nope"})
    locked = client.post("/admin/login/", {"username": "boss", "password": PASSWORD})
    assert "_auth_user_id" not in client.session
    assert "Too many attempts: try again in 1 min." in locked.content.decode()


@pytest.mark.django_db
def test_the_api_token_view_answers_429_with_a_code(login_limits: None) -> None:
    make_user("script")
    api = APIClient(REMOTE_ADDR="192.0.2.40", **HTTPS)
    for _ in range(3):
        bad = api.post("/api/auth/token/", {"username": "script", "password": "nope"})
        assert bad.status_code == 400 and bad.json()["code"] == "credentials_invalid"
    locked = api.post("/api/auth/token/", {"username": "script", "password": PASSWORD})
    assert locked.status_code == 429
    body = locked.json()
    assert body["code"] == "too_many_attempts" and body["retry_after"] in (1, 2)
    assert locked["Retry-After"] == str(body["retry_after"])
    assert "token" not in body


@pytest.mark.django_db
def test_the_api_token_route_counts_its_requests_per_address_in_redis() -> None:
    """Twenty token requests a minute from one address, however many server processes answer
    them: the count is in Redis, so a process that never saw the address (here: the process's
    own cache emptied) refuses the 21st as well; another address is not held back."""
    from django.core.cache import cache

    api = APIClient(REMOTE_ADDR="192.0.2.41", **HTTPS)
    for _ in range(ratelimits.TOKEN_REQUESTS_PER_MINUTE):
        answer = api.post("/api/auth/token/", {"username": "nobody"})
        assert answer.status_code == 400 and answer.json()["code"] == "credentials_missing"
    cache.clear()
    refused = api.post("/api/auth/token/", {"username": "nobody"})
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert 1 <= int(refused["Retry-After"]) <= 60
    elsewhere = APIClient(REMOTE_ADDR="192.0.2.42", **HTTPS)
    other = elsewhere.post("/api/auth/token/", {"username": "nobody"})
    assert other.status_code == 400


# --- password reset --------------------------------------------------------------------------


@pytest.mark.django_db
def test_password_reset_requests_are_limited_per_address_and_per_email(settings: Any) -> None:
    settings.SHENGJI_PASSWORD_RESETS_PER_EMAIL = 2
    settings.SHENGJI_PASSWORD_RESETS_PER_IP = 3
    make_user("zhao", email="zhao@example.com")
    client = Client(REMOTE_ADDR="192.0.2.50", **HTTPS)
    sent = [client.post("/accounts/password_reset/", {"email": "zhao@example.com"})
            for _ in range(2)]  # fmt: skip
    assert [r.status_code for r in sent] == [302, 302]
    again = Client(REMOTE_ADDR="192.0.2.51", **HTTPS).post(
        "/accounts/password_reset/", {"email": "ZHAO@example.com"}
    )
    assert again.status_code == 429 and len(mail.outbox) == 2
    assert again.context["form"].has_error("__all__", "too_many_attempts")
    # An unknown address counts like a known one (the limit tells nothing of who exists).
    assert client.post("/accounts/password_reset/", {"email": "a@example.com"}).status_code == 302
    shut = client.post("/accounts/password_reset/", {"email": "b@example.com"})
    assert shut.status_code == 429 and len(mail.outbox) == 2


@pytest.mark.django_db
def test_without_redis_the_limits_let_people_through_and_say_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    make_user("calm")
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):  # nothing listens there
        assert ratelimits.chat_wait(user_id=1) == 0
        assert log_in("192.0.2.60", "calm", PASSWORD).logged_in
    assert "Redis unreachable" in caplog.text
