"""`manage.py serve --processes N`: N ASGI processes behind HAProxy, which serve starts and
supervises, every socket of a table on one process (shengji_site/haproxy.py; docs/OPERATIONS.md,
"Routing a table to one process"). The site test starts what the README's several-machine setup
runs, on one machine: the proxy, two ASGI processes, a worker and beat, and plays a whole hand
through the proxy."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import http.client
import http.server
import itertools
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlencode

import psutil
import pytest

from proof.botclient import SeatClient
from proof.livesite import SiteShell
from shengji_site import launcher
from shengji_site.embedded import free_port, port_is_open
from shengji_site.haproxy import ProxyConfig, haproxy_binary, haproxy_config
from tests.foundation.test_serve import ROOT, START_SECONDS, Site, serve_child

HAPROXY = haproxy_binary()
needs_haproxy = pytest.mark.skipif(
    HAPROXY is None, reason="haproxy is not installed (Debian: apt-get install haproxy; CI does)"
)
PASSWORD = "tractor-pairs-88"
LOG_LINE = re.compile(r" shengji (?P<backend>\w+)/(?P<server>asgi\d+) .*\"GET (?P<path>\S+) HTTP")


# --- how many processes, their commands and environment ----------------------------------


def test_one_process_per_core_by_default_and_one_without_haproxy() -> None:
    assert launcher.processes_to_run(None, True, 4) == (4, [])
    assert launcher.processes_to_run(None, True, None) == (1, [])
    assert launcher.processes_to_run(3, True, 8) == (3, [])
    assert launcher.processes_to_run(1, False, 8) == (1, [])
    count, notes = launcher.processes_to_run(None, False, 4)
    assert count == 1
    assert notes == [
        "haproxy is not installed: one ASGI process instead of one per core (4). "
        "Install it (Debian: apt-get install haproxy) to use every core."
    ]


def test_several_processes_asked_for_without_haproxy_are_refused() -> None:
    with pytest.raises(launcher.ServeRefused, match="--processes 2 needs haproxy"):
        launcher.processes_to_run(2, False, 8)
    with pytest.raises(launcher.ServeRefused, match="1 or more, not 0"):
        launcher.processes_to_run(0, True, 8)


def test_the_command_runs_one_process_per_core_and_refuses_what_it_cannot_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.core.management import CommandError, call_command

    from shengji_site.management.commands import serve as serve_command

    ran: list[launcher.ServeOptions] = []

    def serve_recorded(options: launcher.ServeOptions) -> int:
        ran.append(options)
        return 0

    monkeypatch.setattr(serve_command, "serve", serve_recorded)
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    monkeypatch.setattr(serve_command, "haproxy_binary", lambda: "/usr/sbin/haproxy")
    call_command("serve")
    call_command("serve", "--processes", "1")
    monkeypatch.setattr(serve_command, "haproxy_binary", lambda: None)
    call_command("serve")
    assert [(o.processes, o.haproxy) for o in ran] == [
        (6, "/usr/sbin/haproxy"),
        (1, "/usr/sbin/haproxy"),
        (1, None),
    ]
    with pytest.raises(CommandError, match="--processes 3 needs haproxy"):
        call_command("serve", "--processes", "3")
    with pytest.raises(CommandError, match="--tls-cert is haproxy's"):
        call_command("serve", "--processes", "1", "--tls-cert", "site.pem")
    assert len(ran) == 3


def test_several_processes_listen_on_loopback_behind_the_proxy_on_the_sites_address() -> None:
    options = launcher.ServeOptions(
        host="0.0.0.0", port=8123, processes=2, haproxy="/usr/sbin/haproxy"
    )
    commands = launcher.child_commands(options, {"daphne0": 40001, "daphne1": 40002})
    assert list(commands) == ["daphne0", "daphne1", "haproxy", "celery worker", "celery beat"]
    for name, port in (("daphne0", "40001"), ("daphne1", "40002")):
        pairs = dict(itertools.pairwise(commands[name]))
        assert (pairs["-b"], pairs["-p"]) == ("127.0.0.1", port)
    config = str(launcher.proxy_config_path(options))
    assert commands["haproxy"] == ["/usr/sbin/haproxy", "-f", config, "-db"]
    uvicorn = launcher.ServeOptions(processes=3, server="uvicorn", haproxy="haproxy")
    assert launcher.asgi_names(uvicorn) == ["uvicorn0", "uvicorn1", "uvicorn2"]
    assert launcher.asgi_names(launcher.ServeOptions()) == ["daphne"]
    assert "haproxy" not in launcher.child_commands(launcher.ServeOptions(port=8123))


def test_the_proxied_processes_believe_forwarding_headers_from_the_proxy_only(
    settings: object,
) -> None:
    alone = launcher.child_environment(launcher.ServeOptions())
    assert alone.get("TRUSTED_PROXIES", "") == ""
    proxied = launcher.child_environment(launcher.ServeOptions(processes=2, haproxy="haproxy"))
    assert proxied["TRUSTED_PROXIES"] == "127.0.0.1"
    settings.TRUSTED_PROXIES = ["10.0.0.5"]  # type: ignore[attr-defined]  # in front of serve
    behind = launcher.child_environment(launcher.ServeOptions(processes=2, haproxy="haproxy"))
    assert behind["TRUSTED_PROXIES"] == "127.0.0.1,10.0.0.5"


# --- the proxy's configuration -----------------------------------------------------------


def test_the_config_hashes_table_sockets_and_spreads_the_rest() -> None:
    text = haproxy_config(ProxyConfig("127.0.0.1", 8000, ("127.0.0.1:9001", "127.0.0.1:9002")))
    tables = text.split("\nbackend tables")[1].split("\nbackend site")[0]
    assert "balance uri path-only" in tables and "hash-type consistent" in tables
    assert "hash-balance-factor" not in text  # it would move a table's sockets by load
    assert "use_backend tables if { path_beg /ws/table/ }" in text
    assert "balance leastconn" in text.split("\nbackend site")[1]
    assert "timeout tunnel 120s" in text
    # What a client says of itself is dropped before the proxy says where it came from.
    assert text.index("del-header X-Forwarded-For") < text.index("add-header X-Forwarded-For")
    assert "from_upstream" not in text and "X-Forwarded-Proto https" not in text


def test_the_config_keeps_only_an_upstream_proxys_headers_and_says_https_with_tls() -> None:
    text = haproxy_config(
        ProxyConfig(
            "::", 443, ("10.0.0.11:8000", "[2001:db8::5]:8000"), ("10.0.0.5",), "/etc/s.pem"
        )
    )
    assert "    bind :::443 v4v6 ssl crt /etc/s.pem" in text
    assert "    acl from_upstream src 10.0.0.5" in text
    assert "    http-request del-header X-Forwarded-For unless from_upstream" in text
    assert "    http-request set-header X-Forwarded-Proto https" in text
    assert "    server asgi1 2001:db8::5:8000 check" in text


@needs_haproxy
@pytest.mark.parametrize(
    ("host", "upstream", "tls"),
    [("127.0.0.1", (), False), ("0.0.0.0", ("10.0.0.5", "10.1.0.0/16"), False), ("::", (), True)],
)
def test_haproxy_accepts_the_config(
    tmp_path: Path, host: str, upstream: tuple[str, ...], tls: bool
) -> None:
    assert HAPROXY is not None
    cert = tmp_path / "site.pem"
    if tls:
        if shutil.which("openssl") is None:
            pytest.skip("openssl is not installed: no certificate to check the TLS config with")
        make_certificate(cert)
    config = ProxyConfig(
        host, 8443, ("127.0.0.1:9001", "[::1]:9002"), upstream, str(cert) if tls else None
    )
    path = tmp_path / "haproxy.cfg"
    path.write_text(haproxy_config(config))
    checked = subprocess.run(
        [HAPROXY, "-c", "-f", str(path)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "WARNING" not in checked.stdout + checked.stderr


class Named(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the name of its server (an ASGI process's stand-in)."""

    def do_GET(self) -> None:
        name = self.server.name.encode()  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", str(len(name)))
        self.end_headers()
        self.wfile.write(name)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def named_servers(count: int) -> Iterator[list[int]]:
    """``count`` HTTP servers on free loopback ports, ``asgi0``… answering their names."""
    servers = []
    for index in range(count):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Named)
        server.name = f"asgi{index}"  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    try:
        yield [server.server_address[1] for server in servers]
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


@needs_haproxy
@pytest.mark.parametrize("processes", [2, 4])
def test_the_proxy_spreads_tables_evenly_and_keeps_each_on_one_process(
    tmp_path: Path, processes: int
) -> None:
    """1,000 tables' sockets, each opened twice, through the configuration serve writes."""
    assert HAPROXY is not None
    port = free_port()
    with named_servers(processes) as ports:
        servers = tuple(f"127.0.0.1:{p}" for p in ports)
        path = tmp_path / "haproxy.cfg"
        path.write_text(haproxy_config(ProxyConfig("127.0.0.1", port, servers)))
        proxy = subprocess.Popen(
            [HAPROXY, "-f", str(path), "-db"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            wait_for(lambda: port_is_open(port), 10)
            time.sleep(1.5)  # every server seen up by a check
            first = [served_by(port, f"/ws/table/{table}/") for table in range(1, 1001)]
            again = [served_by(port, f"/ws/table/{table}/?again") for table in range(1, 1001)]
        finally:
            proxy.terminate()
            proxy.wait(10)
    assert first == again  # every socket of a table on the process of its first
    shares = sorted(collections.Counter(first).values())
    print(f"{processes} processes, 1,000 tables: {shares}")
    assert len(shares) == processes
    assert shares[0] > 1000 / processes * 0.85 and shares[-1] < 1000 / processes * 1.2


def served_by(port: int, path: str) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    name = connection.getresponse().read().decode()
    connection.close()
    return name


def wait_for(test: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not test():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def make_certificate(path: Path) -> None:
    """A self-signed certificate and its key in one PEM file, as haproxy's ``crt`` takes it."""
    key, crt = path.with_suffix(".key"), path.with_suffix(".crt")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=shengji.test", "-keyout", str(key), "-out", str(crt)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    path.write_text(crt.read_text() + key.read_text())


def printed_proxy_config(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", "serve", "--print-proxy-config", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_serve_prints_the_proxy_config_of_several_machines() -> None:
    printed = printed_proxy_config(
        "--host", "0.0.0.0", "--port", "443", "--tls-cert", "/etc/haproxy/shengji.pem",
        "--backend", "10.0.0.11:8000", "--backend", "10.0.0.12:8000",
    )  # fmt: skip
    expected = haproxy_config(
        ProxyConfig(
            "0.0.0.0", 443, ("10.0.0.11:8000", "10.0.0.12:8000"), (), "/etc/haproxy/shengji.pem"
        )
    )
    assert printed == expected


def test_the_operations_guide_shows_the_config_serve_prints() -> None:
    """docs/OPERATIONS.md shows the several-machine config as the command it names prints it,
    the command of the README's several-machine setup."""
    guide = (ROOT / "docs" / "OPERATIONS.md").read_text()
    readme = (ROOT / "README.md").read_text()
    in_readme = re.search(r"manage\.py serve --print-proxy-config(.*?)\n *```", readme, re.DOTALL)
    assert in_readme is not None
    found = re.search(
        r"```sh\n\.venv/bin/python manage\.py serve --print-proxy-config(.*?)\n```\n+"
        r"prints\n+```haproxy\n(.*?)```",
        guide,
        re.DOTALL,
    )
    assert found is not None
    args, shown = found[1].replace("\\\n", " ").split(), found[2]
    assert in_readme[1].replace("\\\n", " ").split() == args
    assert printed_proxy_config(*args) == shown


# --- the whole site: serve --processes 2 ---------------------------------------------------


class ServeShell(SiteShell):
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env


@pytest.fixture(scope="module")
def proxied_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    if HAPROXY is None:
        pytest.skip("haproxy is not installed (Debian: apt-get install haproxy; CI does)")
    site = Site(tmp_path_factory.mktemp("serve-processes") / "var")
    site.env["SHENGJI_SIGNUPS_PER_IP_PER_HOUR"] = "1"
    started = time.monotonic()
    site.start("--processes", "2")
    print(f"serve --processes 2 healthy through the proxy in {time.monotonic() - started:.1f} s")
    yield site
    try:
        assert site.stop(signal.SIGTERM) == 0, site.log()
        assert site.leftover_processes() == []
        assert site.open_ports() == []
    finally:
        if site.process is not None and site.process.poll() is None:
            site.process.kill()
        for proc in psutil.process_iter(["cmdline"]):
            if str(site.var_dir) in " ".join(proc.info["cmdline"] or []):
                proc.kill()


def proxy_log(site: Site) -> list[dict[str, str]]:
    """haproxy's log lines in serve's output: which backend and process served which path."""
    text = (site.var_dir.parent / "serve.log").read_text(errors="replace")
    return [match.groupdict() for match in LOG_LINE.finditer(text)]


def request(
    site: Site, method: str, path: str, *, source: str = "127.0.0.1", **headers: str
) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection(
        "127.0.0.1", site.http_port, timeout=30, source_address=(source, 0)
    )
    connection.request(method, path, headers=headers)
    response = connection.getresponse()
    response.read()
    return response


@pytest.mark.slow
@pytest.mark.site  # the whole site's processes (README, "The fast lane")
def test_serve_runs_two_asgi_processes_haproxy_a_worker_and_beat(proxied_site: Site) -> None:
    site = proxied_site
    assert site.process is not None
    children = [" ".join(c.cmdline()) for c in psutil.Process(site.process.pid).children()]
    assert sum("-m shengji_site.daphne_uvloop -b 127.0.0.1" in c for c in children) == 2
    assert sum(c.startswith(f"{HAPROXY} -f ") for c in children) == 1
    assert sum(" worker " in c for c in children) == sum(" beat " in c for c in children) == 1
    status, body = site.health()
    assert (status, body["database"], body["redis"], body["celery"]) == (200, True, True, True)
    for _ in range(4):
        home = request(site, "GET", "/", **{"Accept-Language": "zh-CN"})
        assert home.status == 200
    served = {line["server"] for line in proxy_log(site) if line["path"] == "/"}
    assert served == {"asgi0", "asgi1"}  # the pages go to both processes


@pytest.mark.slow
@pytest.mark.site  # the whole site's processes (README, "The fast lane")
def test_a_whole_hand_through_the_proxy_keeps_every_socket_of_the_table_on_one_process(
    proxied_site: Site,
) -> None:
    shell = ServeShell(proxied_site.env)
    (table,) = shell.call(
        "proof.livesetup.tables",
        count=1,
        prefix="proxied",
        auto_ready=False,
        play_seconds=60,
        bury_seconds=60,
        bid_window_seconds=1,
        deal_interval_ms=0,
    )
    path = f"/ws/table/{table['id']}/"
    finished = asyncio.run(play_a_hand(proxied_site, table, path))
    assert finished == 5  # four seats and a spectator saw the hand end
    log = shell.call("proof.livesetup.hand_log", table_id=table["id"])
    assert log["status"] == "finished" and len(log["actions"]) > 20

    deadline = time.monotonic() + 15  # haproxy logs a socket when it closes
    sockets = [line for line in proxy_log(proxied_site) if line["path"] == path]
    while len(sockets) < 5 and time.monotonic() < deadline:
        time.sleep(0.2)
        sockets = [line for line in proxy_log(proxied_site) if line["path"] == path]
    assert len(sockets) == 5, proxied_site.log()
    assert {line["backend"] for line in sockets} == {"tables"}
    assert len({line["server"] for line in sockets}) == 1  # one process for the whole table


async def play_a_hand(site: Site, table: dict[str, object], path: str) -> int:
    """The table's four players and a spectator over sockets through the proxy, until the
    hand is over; how many of the five saw it end."""
    url = f"ws://127.0.0.1:{site.http_port}{path}"
    players: list[dict[str, str]] = table["players"]  # type: ignore[assignment]
    seats = [
        SeatClient(url, p["session"], site.url, name=p["username"], bids=False) for p in players
    ]
    spectator = SeatClient(url, None, site.url, name="spectator", auto_ready=False)
    everyone = [*seats, spectator]
    for client in everyone:
        await client.connect()
    try:
        watching = spectator.until(lambda f: is_finished(f), timeout=180)
        await asyncio.gather(*(seat.play(1, timeout=120) for seat in seats), watching)
    finally:
        for client in everyone:
            await client.close()
    return sum(
        client.view is not None and client.view["phase"] == "finished" for client in everyone
    )


def is_finished(frame: dict[str, object]) -> bool:
    view = frame.get("view") if frame.get("type") == "view" else None
    return isinstance(view, dict) and view.get("phase") == "finished"


@pytest.mark.slow
@pytest.mark.site  # the whole site's processes (README, "The fast lane")
def test_behind_the_proxy_limits_count_the_real_client_and_never_its_own_words(
    proxied_site: Site,
) -> None:
    """One sign-up per address an hour (SHENGJI_SIGNUPS_PER_IP_PER_HOUR=1 for this site): the
    processes see each client's own address through the proxy (127.0.0.2 and 127.0.0.3 are
    two clients, not the proxy's 127.0.0.1), and no X-Forwarded-For a client sends, even one
    on the proxy's own address, makes it another."""
    spoofed = iter(f"198.51.100.{n}" for n in range(1, 10))

    def sign_up(source: str) -> int:
        return signup(proxied_site, source, next(spoofed))

    assert sign_up("127.0.0.2") == 302
    assert sign_up("127.0.0.2") == 429  # another X-Forwarded-For, the same client
    assert sign_up("127.0.0.3") == 302  # another client
    assert sign_up("127.0.0.1") == 302
    assert sign_up("127.0.0.1") == 429  # a client on the proxy's address, spoofing


def signup(site: Site, source: str, forwarded_for: str) -> int:
    """Sign up a new account from ``source`` saying it is ``forwarded_for``; the status."""
    page = request(site, "GET", "/accounts/signup/", source=source)
    cookie = next(
        c.split(";")[0] for c in page.headers.get_all("Set-Cookie") or [] if "csrftoken=" in c
    )
    token = cookie.split("=", 1)[1]
    name = f"p{source.replace('.', '')}{forwarded_for.replace('.', '')}"
    body = urlencode(
        {"csrfmiddlewaretoken": token, "username": name, "email": "",
         "password1": PASSWORD, "password2": PASSWORD}
    )  # fmt: skip
    connection = http.client.HTTPConnection(
        "127.0.0.1", site.http_port, timeout=30, source_address=(source, 0)
    )
    connection.request(
        "POST",
        "/accounts/signup/",
        body=body,
        headers={
            "Cookie": cookie,
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Forwarded-For": forwarded_for,
        },
    )
    response = connection.getresponse()
    response.read()
    return response.status


@pytest.mark.slow
@pytest.mark.site  # the whole site's processes (README, "The fast lane")
def test_serve_starts_a_killed_asgi_process_and_a_killed_proxy_again(
    proxied_site: Site,
) -> None:
    for marker, name in (("daphne_uvloop", r"daphne[01]"), (f"{HAPROXY} -f", "haproxy")):
        before = children_like(proxied_site, marker)
        killed = serve_child(proxied_site, marker)
        killed.kill()  # kill -9
        killed.wait(10)
        deadline = time.monotonic() + START_SECONDS
        while True:
            now = children_like(proxied_site, marker)
            back = len(now) == len(before) and killed.pid not in now
            if back and proxied_site.health()[0] == 200:
                break
            assert proxied_site.process is not None and proxied_site.process.poll() is None
            assert time.monotonic() < deadline, proxied_site.log()
            time.sleep(0.5)
        said = re.search(f"{name} exited with code -9; starting it again", proxied_site.log())
        assert said, proxied_site.log()


def children_like(site: Site, marker: str) -> list[int]:
    """The pids of serve's children whose command line holds ``marker``."""
    assert site.process is not None
    children = psutil.Process(site.process.pid).children()
    return [child.pid for child in children if marker in " ".join(child.cmdline())]
