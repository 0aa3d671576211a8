"""Client addresses the limits can trust (docs/proof/SECURITY.md, "Client addresses").

Finding 5: daphne ran with ``--proxy-headers``, which takes the left-most X-Forwarded-For
address from any peer, so a client that rotated the header escaped every per-address limit.
Now X-Forwarded-For is read only when the peer is one of ``settings.TRUSTED_PROXIES`` (none by
default), from the right; X-Forwarded-Proto likewise (shengji_site/asgi.py,
``accounts.client_address.client_ip`` / ``client_ip_from_scope``). Real PostgreSQL and Redis;
the HTTP path is tried through Django's test client, through the site's ASGI application and
through a daphne and a uvicorn started as ``manage.py serve`` starts them; the socket path
through the ASGI application.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client
from rest_framework.test import APIClient

from accounts import ratelimits
from accounts.client_address import client_address, client_ip_from_scope
from accounts.models import User
from games import services
from proof.fuzz import session_headers
from shengji_site.asgi import application
from shengji_site.embedded import free_port
from shengji_site.launcher import ASGI_SERVERS, ServeOptions, child_commands, child_environment
from shengji_site.middleware import trusted_scope
from tests.https import HTTPS

PASSWORD = "tractor-pairs-88"
PROXY = "10.0.0.5"


@pytest.fixture(autouse=True)
def no_counts(redis_url: str, settings: Any) -> Iterator[None]:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SHENGJI_LOGIN_FAILURES_PER_USER_IP = 3
    settings.SHENGJI_LOGIN_FAILURES_PER_IP = 6
    ratelimits.reset_all()
    yield
    ratelimits.reset_all()


def spoofed(i: int) -> str:
    return f"198.18.{i // 250}.{i % 250 + 1}"


# --- the rule --------------------------------------------------------------------------------


def test_with_no_proxy_configured_the_address_is_the_peers(settings: Any) -> None:
    assert django_settings.TRUSTED_PROXIES == []  # the default: no variable in the environment
    settings.TRUSTED_PROXIES = []
    assert client_address("192.0.2.1", "203.0.113.9") == "192.0.2.1"
    assert client_address("192.0.2.1", "203.0.113.9, 10.0.0.5") == "192.0.2.1"
    assert client_address("::ffff:192.0.2.1", None) == "192.0.2.1"  # one spelling
    assert client_address("2001:db8::1", "203.0.113.9") == "2001:db8::1"
    assert client_address(None, "203.0.113.9") == "unknown"
    assert client_address("not an address", "203.0.113.9") == "unknown"


def test_behind_trusted_proxies_the_address_is_read_from_the_right(settings: Any) -> None:
    settings.TRUSTED_PROXIES = [PROXY]
    # One proxy: it appended the address it saw; whatever stands left of it the client wrote.
    assert client_address(PROXY, "203.0.113.9") == "203.0.113.9"
    assert client_address(PROXY, "1.2.3.4, 5.6.7.8, 203.0.113.9") == "203.0.113.9"
    assert client_address(PROXY, "203.0.113.9:5555") == "203.0.113.9"
    assert client_address(PROXY, "[2001:db8::7]:443") == "2001:db8::7"
    assert client_address(PROXY, None) == PROXY
    # Garbage where the proxy should have written an address: the proxy is what we know.
    assert client_address(PROXY, "203.0.113.9, garbage") == PROXY
    # A peer that is not the proxy gets nothing read from its headers.
    assert client_address("192.0.2.1", "203.0.113.9") == "192.0.2.1"
    # Two proxies (by network): N hops from the right, never the left-most.
    settings.TRUSTED_PROXIES = ["10.0.0.0/24", "2001:db8:ffff::/48"]
    assert client_address("10.0.0.5", "6.6.6.6, 203.0.113.9, 10.0.0.7") == "203.0.113.9"
    assert client_address("2001:db8:ffff::1", "6.6.6.6, 203.0.113.9") == "203.0.113.9"
    assert client_address("10.0.0.5", "10.0.0.9, 10.0.0.7") == "10.0.0.9"  # all of them proxies


def test_a_scope_reads_the_same_and_the_middleware_keeps_only_a_proxys_headers(
    settings: Any,
) -> None:
    headers = [
        (b"host", b"localhost"),
        (b"x-forwarded-for", b"6.6.6.6"),
        (b"x-forwarded-for", b"203.0.113.9"),
        (b"x-forwarded-proto", b"https"),
        (b"x-real-ip", b"7.7.7.7"),
    ]
    scope = {"type": "websocket", "client": [PROXY, 40000], "headers": headers}
    settings.TRUSTED_PROXIES = []
    assert client_ip_from_scope(scope) == PROXY
    plain = trusted_scope(scope)
    assert plain["client"] == [PROXY, 40000] and plain["headers"] == [(b"host", b"localhost")]
    settings.TRUSTED_PROXIES = [PROXY]
    assert client_ip_from_scope(scope) == "203.0.113.9"  # headers joined in order
    proxied = trusted_scope(scope)
    assert proxied["client"][0] == "203.0.113.9"
    assert (b"x-forwarded-proto", b"https") in proxied["headers"]
    assert not any(name == b"x-forwarded-for" for name, _ in proxied["headers"])
    assert client_ip_from_scope(proxied) == "203.0.113.9"  # reading it again changes nothing
    assert scope["client"] == [PROXY, 40000] and len(headers) == 5  # the original is untouched


def test_serve_starts_daphne_and_uvicorn_without_proxy_headers() -> None:
    for host in ("127.0.0.1", "0.0.0.0"):
        options = ServeOptions(host=host)
        assert "--proxy-headers" not in child_commands(options)["daphne"]
        # uvicorn reads them unless told not to (from 127.0.0.1 and ::1, by default)
        uvicorn = child_commands(ServeOptions(host=host, server="uvicorn"))["uvicorn"]
        assert "--no-proxy-headers" in uvicorn and "--proxy-headers" not in uvicorn
        assert not any(arg.startswith("--forwarded-allow-ips") for arg in uvicorn)
        # serve trusts no proxy of its own accord: only the operator's TRUSTED_PROXIES passes.
        assert child_environment(options).get("TRUSTED_PROXIES") == os.environ.get(
            "TRUSTED_PROXIES"
        )


# --- HTTP ------------------------------------------------------------------------------------


def log_in(peer: str, forwarded_for: str, username: str, password: str) -> tuple[int, bool]:
    client = Client(REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=forwarded_for, **HTTPS)
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return response.status_code, "_auth_user_id" in client.session


@pytest.mark.django_db
def test_regression_x_forwarded_for_from_any_client_was_trusted(settings: Any) -> None:
    """No proxy configured: rotating X-Forwarded-For no longer makes each try a new address,
    for log-ins, password resets and the API's token throttle."""
    settings.TRUSTED_PROXIES = []
    User.objects.create_user("lin", password=PASSWORD, email="lin@example.com")
    peer = "192.0.2.77"
    for i in range(3):
        assert log_in(peer, spoofed(i), "lin", "nope") == (200, False)
    assert log_in(peer, spoofed(99), "lin", PASSWORD) == (429, False)  # the pair is locked
    for i in range(3):
        log_in(peer, spoofed(10 + i), f"ghost{i}", "nope")
    assert log_in(peer, spoofed(98), "someone", "nope")[0] == 429  # and the address (6)
    assert log_in("192.0.2.78", spoofed(0), "lin", PASSWORD) == (302, True)  # elsewhere: fine

    settings.SHENGJI_PASSWORD_RESETS_PER_IP = 2
    reset = [
        Client(REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=spoofed(i), **HTTPS)
        .post("/accounts/password_reset/", {"email": f"x{i}@example.com"})
        .status_code
        for i in range(3)
    ]
    assert reset == [302, 302, 429]

    # DRF's throttle read X-Forwarded-For whole (its NUM_PROXIES unset): now REMOTE_ADDR.
    codes = [
        APIClient(REMOTE_ADDR="192.0.2.79", HTTP_X_FORWARDED_FOR=spoofed(i), **HTTPS)
        .post("/api/auth/token/", {})
        .status_code
        for i in range(21)
    ]
    assert codes == [400] * 20 + [429]


@pytest.mark.django_db
def test_behind_one_trusted_proxy_the_forwarded_address_counts_and_spoofed_ones_do_not(
    settings: Any,
) -> None:
    settings.TRUSTED_PROXIES = [PROXY]
    User.objects.create_user("wu", password=PASSWORD)
    for i in range(3):  # the client puts a new address in front each time; the proxy appends
        assert log_in(PROXY, f"{spoofed(i)}, 203.0.113.9", "wu", "nope") == (200, False)
    assert log_in(PROXY, f"{spoofed(50)}, 203.0.113.9", "wu", PASSWORD) == (429, False)
    # Another client behind the same proxy is another address.
    assert log_in(PROXY, "203.0.113.9, 203.0.113.10", "wu", PASSWORD) == (302, True)
    # A peer that is not the proxy cannot claim to be one of its clients.
    assert log_in("192.0.2.90", "203.0.113.10", "wu", PASSWORD) == (302, True)
    assert log_in("192.0.2.90", "203.0.113.9", "wu", PASSWORD) == (302, True)


def asgi_token(peer: str, headers: list[tuple[bytes, bytes]], password: str) -> Any:
    body = json.dumps({"username": "zhao", "password": password}).encode()
    communicator = HttpCommunicator(
        application,
        "POST",
        "/api/auth/token/",
        body=body,
        headers=[
            (b"host", b"localhost"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *headers,
        ],
    )
    communicator.scope["client"] = [peer, 50000]
    communicator.scope["scheme"] = "https"  # TLS to daphne itself: no redirect either way
    return communicator.get_response(timeout=20)


def asgi_get(peer: str, path: str, headers: list[tuple[bytes, bytes]]) -> Any:
    communicator = HttpCommunicator(
        application, "GET", path, headers=[(b"host", b"localhost"), *headers]
    )
    communicator.scope["client"] = [peer, 50000]
    return communicator.get_response(timeout=20)


@pytest.mark.django_db(transaction=True)
async def test_through_the_asgi_application_only_a_proxy_is_believed(settings: Any) -> None:
    """The site's ASGI application (what daphne serves): the token view's lock-out by address
    and X-Forwarded-Proto, which decides whether a request is HTTPS."""
    await database_sync_to_async(User.objects.create_user)("zhao", password=PASSWORD)
    settings.TRUSTED_PROXIES = []
    peer = "192.0.2.120"
    for i in range(3):
        wrong = await asgi_token(peer, [(b"x-forwarded-for", spoofed(i).encode())], "nope")
        assert wrong["status"] == 400
    locked = await asgi_token(peer, [(b"x-forwarded-for", spoofed(9).encode())], PASSWORD)
    assert locked["status"] == 429
    assert json.loads(locked["body"])["code"] == "too_many_attempts"

    settings.TRUSTED_PROXIES = [PROXY]
    real = [(b"x-forwarded-for", b"6.6.6.6, 192.0.2.120")]  # the same client, via the proxy
    assert (await asgi_token(PROXY, real, PASSWORD))["status"] == 429
    other = [(b"x-forwarded-for", b"192.0.2.120, 192.0.2.121")]  # spoofed: 192.0.2.121 it is
    assert (await asgi_token(PROXY, other, PASSWORD))["status"] == 200

    # X-Forwarded-Proto: from the proxy it makes the request HTTPS; from anyone else it is
    # dropped and the plain-HTTP request is sent to HTTPS.
    proto = [(b"x-forwarded-proto", b"https")]
    assert (await asgi_get(PROXY, "/accounts/login/", proto))["status"] == 200
    assert (await asgi_get("192.0.2.121", "/accounts/login/", proto))["status"] == 301


# --- sockets ---------------------------------------------------------------------------------


async def spectator(table_id: int, peer: str, forwarded_for: str) -> tuple[Any, str]:
    """An anonymous socket at the table: it and its first frame's type or error code."""
    headers = [*session_headers(None), (b"x-forwarded-for", forwarded_for.encode())]
    socket = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    socket.scope["client"] = [peer, 50000]
    connected, _ = await socket.connect(timeout=10)
    assert connected
    while True:
        frame = await socket.receive_json_from(timeout=10)
        if frame["type"] in ("state", "error"):
            return socket, frame.get("code", frame["type"])


@pytest.mark.django_db(transaction=True)
async def test_sockets_per_address_count_the_peer_or_the_proxys_client(settings: Any) -> None:
    settings.SHENGJI_SOCKETS_PER_IP = 1
    host = await database_sync_to_async(User.objects.create_user)("host", password=PASSWORD)
    table = await database_sync_to_async(services.table_create)(
        creator=host, name="addresses", ranked=False
    )
    settings.TRUSTED_PROXIES = []
    first, state = await spectator(table.pk, "192.0.2.140", spoofed(1))
    assert state == "state"
    second, refused = await spectator(table.pk, "192.0.2.140", spoofed(2))
    assert refused == "too_many_sockets"  # a new X-Forwarded-For is not a new address
    await second.disconnect()
    await first.disconnect()

    settings.TRUSTED_PROXIES = [PROXY]
    via, state = await spectator(table.pk, PROXY, f"{spoofed(3)}, 203.0.113.50")
    assert state == "state"
    again, refused = await spectator(table.pk, PROXY, f"{spoofed(4)}, 203.0.113.50")
    assert refused == "too_many_sockets"
    other, state = await spectator(table.pk, PROXY, "203.0.113.50, 203.0.113.51")
    assert state == "state"  # another client of the proxy
    for socket in (again, via, other):
        await socket.disconnect()


# --- daphne and uvicorn as `serve` runs them -------------------------------------------------


def _database_url() -> str:
    db = django_settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def _post_token(url: str, forwarded_for: str, password: str) -> int:
    request = urllib.request.Request(
        f"{url}/api/auth/token/",
        data=json.dumps({"username": "ma", "password": password}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


@pytest.fixture(params=ASGI_SERVERS)
def daphne(
    request: pytest.FixtureRequest, transactional_db: None, redis_url: str, tmp_path: Path
) -> Iterator[str]:
    """daphne, then uvicorn, with the command line of `manage.py serve`, on this test run's
    database."""
    port = free_port()
    server = request.param
    command = child_commands(ServeOptions(port=port, server=server))[server]
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": redis_url,
        "HTTPS": "0",
        "LOG_LEVEL": "WARNING",
        "SHENGJI_LOGIN_FAILURES_PER_USER_IP": "3",
        "SHENGJI_LOGIN_FAILURES_PER_IP": "6",
    }
    env.pop("TRUSTED_PROXIES", None)
    log = tmp_path / f"{server}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=django_settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, log.read_text()
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=2)
                    break
                except OSError:
                    assert time.monotonic() < deadline, log.read_text()
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.mark.site
def test_the_asgi_server_as_serve_runs_it_ignores_a_spoofed_x_forwarded_for(daphne: str) -> None:
    User.objects.create_user("ma", password=PASSWORD)
    codes = [_post_token(daphne, spoofed(i), "nope") for i in range(3)]
    assert codes == [400, 400, 400]
    assert _post_token(daphne, spoofed(77), PASSWORD) == 429  # all from 127.0.0.1
