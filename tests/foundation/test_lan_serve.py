"""`manage.py serve --lan` as a group at home runs it: the whole site, and a phone's requests
with the LAN address as their Host (192.168.1.23, named with --lan-address so that nothing is
looked up) answered over plain HTTP: the home page, then a log-in that passes CSRF and keeps its
session. Every request goes to 127.0.0.1; only its Host header names the LAN address."""

from __future__ import annotations

import http.client
import re
import signal
import time
from collections.abc import Iterator
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.foundation.test_serve import Site

pytestmark = pytest.mark.site  # starts the whole site's processes (README, "The fast lane")

ADDRESS = "192.168.1.23"
PASSWORD = "tractor-pairs-88"


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    site = Site(tmp_path / "var")
    site.start("--lan", "--lan-address", ADDRESS)
    yield site
    assert site.stop(signal.SIGTERM) == 0


class Phone:
    """A browser on a phone: requests to the site with Host ``ADDRESS:port``, cookies kept."""

    def __init__(self, site: Site) -> None:
        self.port = site.http_port
        self.host = f"{ADDRESS}:{self.port}"
        self.cookies: dict[str, str] = {}
        self.set_cookie_lines: list[str] = []

    def request(
        self, method: str, path: str, body: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Host": self.host, "Accept-Language": "zh-CN"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if body is not None:
            data = urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"http://{self.host}"
            headers["Referer"] = f"http://{self.host}{path}"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        text = response.read().decode(errors="replace")
        for line in response.headers.get_all("Set-Cookie") or []:
            self.set_cookie_lines.append(line)
            for name, morsel in SimpleCookie(line).items():
                self.cookies[name] = morsel.value
        connection.close()
        # One spelling of each name: haproxy (in front of several processes) sends lower case.
        names = {name.title(): value for name, value in response.headers.items()}
        return response.status, names, text


def test_a_phone_on_the_home_network_opens_the_site_and_logs_in(site: Site) -> None:
    printed = ""
    for _ in range(40):  # the address line follows the health check by a moment
        printed = site.log(tail=None)  # the worker's lines may follow it by many
        if f"http://{ADDRESS}:{site.http_port}/" in printed:
            break
        time.sleep(0.25)
    assert f"open http://{ADDRESS}:{site.http_port}/" in printed, printed[-4000:]
    site.manage(
        "shell",
        "-c",
        "from accounts.services import user_create; "
        f"user_create(username='小明', password={PASSWORD!r})",
    )
    phone = Phone(site)
    status, headers, home = phone.request("GET", "/")
    assert status == 200, (status, headers)  # not 400 (DisallowedHost), not 301 to https
    assert "找朋友" in home
    status, _, form = phone.request("GET", "/accounts/login/")
    assert status == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token is not None
    status, headers, _ = phone.request(
        "POST",
        "/accounts/login/",
        {"username": "小明", "password": PASSWORD, "csrfmiddlewaretoken": token[1]},
    )
    assert status == 302, status  # logged in (a refused CSRF check is 403)
    assert not headers["Location"].startswith("https://")
    assert "sessionid" in phone.cookies
    assert not any("secure" in line.lower() for line in phone.set_cookie_lines)
    status, headers, _ = phone.request("GET", "/accounts/me/")  # the session is kept
    assert status == 302 and headers["Location"].startswith("/players/"), headers
