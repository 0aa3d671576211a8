"""`serve --lan`: a group at home plays from their phones. The site listens on every address,
answers the machine's network addresses over plain HTTP (no redirect to an https:// nothing
serves, no Secure-only cookies a browser would not send back over http), and a phone logs in.

No test here sends anything to a non-loopback address: the machine's addresses are passed in
as a list (192.168.1.23, a phone-facing address of a home router's network), and the requests
go through Django's test client with that address as their Host header."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings

from accounts.models import User
from shengji_site import launcher
from shengji_site.launcher import ServeOptions, child_environment, lan_addresses, lan_words
from shengji_site.management.commands import serve as serve_command

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = "192.168.1.23"
PORT = 8611
HOST = f"{ADDRESS}:{PORT}"
ORIGIN = f"http://{HOST}"
PASSWORD = "tractor-pairs-88"

PRINT_SETTINGS = (
    "import json; from django.conf import settings as s; print(json.dumps({"
    "'ALLOWED_HOSTS': s.ALLOWED_HOSTS, 'CSRF_TRUSTED_ORIGINS': s.CSRF_TRUSTED_ORIGINS, "
    "'SECURE_SSL_REDIRECT': s.SECURE_SSL_REDIRECT, 'SESSION_COOKIE_SECURE': "
    "s.SESSION_COOKIE_SECURE, 'CSRF_COOKIE_SECURE': s.CSRF_COOKIE_SECURE, "
    "'SECURE_HSTS_SECONDS': s.SECURE_HSTS_SECONDS}))"
)


def lan_options(**fields: Any) -> ServeOptions:
    chosen: dict[str, Any] = {"lan_addresses": [ADDRESS], **fields}
    return ServeOptions(host="0.0.0.0", port=PORT, lan=True, **chosen)


def settings_of(env: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    """The settings a child of serve reads from ``env`` (DEBUG off, as a home machine runs)."""
    env = {k: v for k, v in env.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG"}}
    env.update({"SHENGJI_VAR_DIR": str(tmp_path), "SECRET_KEY": "k" * 60})
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PRINT_SETTINGS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return printed


@pytest.fixture(scope="module")
def lan_settings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    environment = {k: v for k, v in os.environ.items() if k not in {"HTTPS", "ALLOWED_HOSTS"}}
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(environment)
    try:
        env = child_environment(lan_options())
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return settings_of(env, tmp_path_factory.mktemp("lan"))


def test_lan_settings_answer_the_address_over_plain_http(lan_settings: dict[str, Any]) -> None:
    assert ADDRESS in lan_settings["ALLOWED_HOSTS"]
    assert "127.0.0.1" in lan_settings["ALLOWED_HOSTS"]  # the machine's own browser still
    assert ORIGIN in lan_settings["CSRF_TRUSTED_ORIGINS"]
    assert lan_settings["SECURE_SSL_REDIRECT"] is False
    assert lan_settings["SESSION_COOKIE_SECURE"] is False
    assert lan_settings["CSRF_COOKIE_SECURE"] is False
    assert lan_settings["SECURE_HSTS_SECONDS"] == 0


def test_without_lan_a_phones_request_is_refused(tmp_path: Path) -> None:
    """What the group met with `serve --host 0.0.0.0`: the address is no allowed host, and
    plain HTTP is sent to https."""
    env = child_environment(ServeOptions(host="0.0.0.0", port=PORT))
    env.pop("HTTPS", None)
    env.pop("ALLOWED_HOSTS", None)
    plain = settings_of(env, tmp_path)
    assert ADDRESS not in plain["ALLOWED_HOSTS"]
    assert plain["SECURE_SSL_REDIRECT"] is True


@pytest.mark.django_db
def test_a_phone_opens_the_home_page_at_the_lan_address(lan_settings: dict[str, Any]) -> None:
    with override_settings(**lan_settings):
        response = Client(HTTP_HOST=HOST).get("/")
    assert response.status_code == 200
    assert "升级" in response.content.decode() or "Shengji" in response.content.decode()


@pytest.mark.django_db
def test_the_same_request_under_the_default_settings_is_refused() -> None:
    """The regression: the default hosts refuse the phone's Host header (DisallowedHost)."""
    response = Client(HTTP_HOST=HOST).get("/")
    assert response.status_code == 400


@pytest.mark.django_db
def test_a_phone_logs_in_over_plain_http(lan_settings: dict[str, Any]) -> None:
    User.objects.create_user("zhangsan", password=PASSWORD)
    with override_settings(**lan_settings):
        phone = Client(enforce_csrf_checks=True, HTTP_HOST=HOST)
        form = phone.get("/accounts/login/")
        assert form.status_code == 200
        token = phone.cookies[settings.CSRF_COOKIE_NAME]
        assert not token["secure"]
        response = phone.post(
            "/accounts/login/",
            {
                "username": "zhangsan",
                "password": PASSWORD,
                "csrfmiddlewaretoken": form.context["csrf_token"],
            },
            HTTP_ORIGIN=ORIGIN,
            HTTP_REFERER=f"{ORIGIN}/accounts/login/",
        )
        assert response.status_code == 302, response.content.decode()[:500]
        assert not response["Location"].startswith("https://")
        session = phone.cookies[settings.SESSION_COOKIE_NAME]
        assert session.value and not session["secure"]
        me = phone.get(response["Location"], follow=True)
    assert me.status_code == 200
    assert "zhangsan" in me.content.decode()


def test_lan_addresses_keep_the_network_ones_once_each() -> None:
    found = ["127.0.0.1", ADDRESS, "::1", "0.0.0.0", "169.254.3.4", "not-an-address", ADDRESS]
    assert lan_addresses([*found, "10.0.0.7"]) == [ADDRESS, "10.0.0.7"]
    assert lan_addresses(["127.0.1.1"]) == []  # Debian's host name line in /etc/hosts


def test_serve_lan_prints_the_address_to_open() -> None:
    lines = lan_words(lan_options())
    assert f"http://{ADDRESS}:{PORT}/" in lines[0]
    assert "No network address" in lan_words(lan_options(lan_addresses=[]))[0]


def test_serve_lan_listens_on_every_address_with_the_machines_addresses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command line: --lan listens on 0.0.0.0 and hands the addresses found to serve."""
    ran: list[ServeOptions] = []

    def serve_recorded(options: ServeOptions) -> int:
        ran.append(options)
        return 0

    monkeypatch.setattr(serve_command, "lan_addresses", lambda: [ADDRESS])
    monkeypatch.setattr(serve_command, "serve", serve_recorded)
    call_command("serve", "--lan", "--port", str(PORT))
    call_command("serve")
    call_command("serve", "--lan-address", "10.0.0.7", "--lan-address", "10.0.0.8")
    lan, plain, named = ran
    assert (named.host, named.lan) == ("0.0.0.0", True)
    assert named.lan_addresses == ["10.0.0.7", "10.0.0.8"]
    assert (lan.host, lan.lan, lan.lan_addresses, lan.port) == ("0.0.0.0", True, [ADDRESS], PORT)
    assert (plain.host, plain.lan, plain.lan_addresses) == ("127.0.0.1", False, [])
    env = child_environment(lan)
    assert env["HTTPS"] == "0" and ADDRESS in env["ALLOWED_HOSTS"].split(",")
    assert f"http://{ADDRESS}:{PORT}" in env["CSRF_TRUSTED_ORIGINS"].split(",")


def test_the_address_probe_names_no_other_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's addresses are read from its host name and a route lookup (a UDP socket's
    connect, which sends nothing); here the host name resolves to a fake list and the probe's
    socket is a loopback one, so the test sends nothing off the machine either."""
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda *a, **k: [(socket.AF_INET, 0, 0, "", (ADDRESS, 0))],
    )
    monkeypatch.setattr(launcher, "_ROUTE_PROBE", ("127.0.0.1", 9))
    assert lan_addresses() == [ADDRESS]
