"""`manage.py serve` starts the whole site from nothing and Ctrl-C leaves nothing behind."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import websockets
from websockets.typing import Origin

from shengji_site.embedded import free_port, port_is_open

pytestmark = pytest.mark.site  # starts the whole site's processes (README, "The fast lane")

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 120
STOP_SECONDS = 60


class Site:
    def __init__(self, var_dir: Path) -> None:
        self.var_dir = var_dir
        self.http_port = free_port()
        self.pg_port = free_port()
        self.redis_port = free_port()
        self.env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        self.env.update(
            SHENGJI_VAR_DIR=str(var_dir),
            EMBEDDED_PG_PORT=str(self.pg_port),
            EMBEDDED_REDIS_PORT=str(self.redis_port),
            CELERY_QUEUE="celery",
            CHANNELS_PREFIX="shengji",
            SHENGJI_ECHO_SOCKET="1",  # the benchmark's echo socket, which these tests talk to
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, *options: str) -> None:
        log = open(self.var_dir.parent / "serve.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(self.http_port), *options],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log()
            if self.health()[0] == 200:
                return
            time.sleep(0.5)
        raise AssertionError(f"the site did not become healthy:\n{self.log()}")

    def stop(self, sig: int) -> int:
        assert self.process is not None
        self.process.send_signal(sig)
        return self.process.wait(STOP_SECONDS)

    def health(self) -> tuple[int, dict[str, object]]:
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)
        except OSError:
            return 0, {}

    def log(self, tail: int | None = 4000) -> str:
        """serve's output, its last ``tail`` characters (None: all of it)."""
        path = self.var_dir.parent / "serve.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return text[-tail:] if tail else text

    def leftover_processes(self) -> list[str]:
        marks = (
            str(self.var_dir),
            f"-p {self.http_port}",
            f"--port {self.http_port}",
            f"shengji-{self.http_port}@",
        )
        found = []
        for proc in psutil.process_iter(["cmdline"]):
            cmdline = " ".join(proc.info["cmdline"] or [])
            if any(mark in cmdline for mark in marks):
                found.append(f"{proc.pid}: {cmdline}")
        return found

    def open_ports(self) -> list[int]:
        return [p for p in (self.http_port, self.pg_port, self.redis_port) if port_is_open(p)]


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    site = Site(tmp_path / "var")
    yield site
    if site.process is not None and site.process.poll() is None:
        site.process.kill()
        site.process.wait()
    for proc in psutil.process_iter(["cmdline"]):
        if str(site.var_dir) in " ".join(proc.info["cmdline"] or []):
            proc.kill()


async def echo_over_websocket(site: Site) -> object:
    return (await echo_and_extensions(site))[0]


async def echo_and_extensions(site: Site) -> tuple[object, str | None]:
    """The echo of one message over a socket, and the extensions the server accepted (the
    client offers permessage-deflate, as browsers do)."""
    uri = f"ws://127.0.0.1:{site.http_port}/ws/echo/"
    async with websockets.connect(uri, origin=Origin(site.url), open_timeout=10) as socket:
        await socket.send(json.dumps({"type": "ping", "text": "升级"}))
        echoed = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert socket.response is not None
        return echoed, socket.response.headers.get("Sec-WebSocket-Extensions")


def test_serve_starts_everything_and_stops_cleanly_keeping_data(site: Site) -> None:
    site.start()
    status, body = site.health()
    assert (status, body["database"], body["redis"], body["celery"]) == (200, True, True, True)
    home = urllib.request.Request(site.url + "/", headers={"Accept-Language": "zh-CN"})
    with urllib.request.urlopen(home, timeout=5) as response:
        assert response.status == 200
        assert "升级" in response.read().decode()
    assert asyncio.run(echo_over_websocket(site)) == {"type": "ping", "text": "升级"}
    site.manage(
        "shell", "-c", "from accounts.models import User; User.objects.create_user('keeper')"
    )

    assert site.stop(signal.SIGINT) == 0, site.log()
    assert site.leftover_processes() == []
    assert site.open_ports() == []

    site.start()
    found = site.manage(
        "shell",
        "-c",
        "from accounts.models import User; print(User.objects.filter(username='keeper').count())",
    )
    assert found.strip().splitlines()[-1] == "1"
    assert site.stop(signal.SIGTERM) == 0, site.log()
    assert site.leftover_processes() == []
    assert site.open_ports() == []


def serve_child(site: Site, name: str) -> psutil.Process:
    assert site.process is not None
    for child in psutil.Process(site.process.pid).children():
        if name in " ".join(child.cmdline()):
            return child
    raise AssertionError(f"serve has no {name} child")


def test_serve_starts_a_killed_daphne_again(site: Site) -> None:
    site.start("--processes", "1")  # one daphne, no proxy (test_serve_processes.py: several)
    killed = serve_child(site, "daphne")
    killed.kill()  # kill -9
    killed.wait(10)
    deadline = time.monotonic() + START_SECONDS
    while site.health()[0] != 200 and time.monotonic() < deadline:
        assert site.process is not None and site.process.poll() is None, site.log()
        time.sleep(0.5)
    assert site.health()[0] == 200, site.log()
    assert serve_child(site, "daphne").pid != killed.pid
    assert "daphne exited with code -9; starting it again" in site.log()
    assert site.stop(signal.SIGTERM) == 0, site.log()
    assert site.leftover_processes() == []


def test_serve_gives_up_and_stops_when_a_child_keeps_crashing() -> None:
    from shengji_site import launcher

    lines: list[str] = []
    served = launcher.Site(
        launcher.ServeOptions(log=lines.append),
        commands={"crasher": [sys.executable, "-c", "raise SystemExit(3)"]},
        policy=launcher.RestartPolicy(limit=5, window_s=60, first_delay_s=0.01),
    )
    launcher.start_children(served)
    assert launcher.supervise(served) == 1
    restarts = [line for line in lines if line == "crasher started again"]
    assert len(restarts) == 4
    assert lines[-1] == "crasher exited with code 3, 5 times in 60 s: giving up; stopping"


def test_serve_with_uvicorn_serves_pages_and_sockets_and_stops_cleanly(site: Site) -> None:
    site.start("--server", "uvicorn")
    status, body = site.health()
    assert (status, body["database"], body["redis"], body["celery"]) == (200, True, True, True)
    server = serve_child(site, "-m uvicorn")  # (the test's folder holds "uvicorn" too)
    flags = " ".join(server.cmdline())
    for flag in ("--loop uvloop", "--http httptools", "--ws-per-message-deflate false"):
        assert flag in flags
    daphne = "-m shengji_site.daphne_uvloop"
    assert not any(daphne in " ".join(c.cmdline()) for c in server.parent().children())
    home = urllib.request.Request(site.url + "/", headers={"Accept-Language": "zh-CN"})
    with urllib.request.urlopen(home, timeout=5) as response:
        assert response.status == 200
        assert response.headers["Server"] == "uvicorn"
        assert "升级" in response.read().decode()
    echoed, extensions = asyncio.run(echo_and_extensions(site))
    assert echoed == {"type": "ping", "text": "升级"}
    assert extensions is None  # permessage-deflate offered and declined

    assert site.stop(signal.SIGTERM) == 0, site.log()
    assert "uvicorn exited" not in site.log()  # it ran from start to stop, never restarted
    assert site.leftover_processes() == []
    assert site.open_ports() == []


def test_serve_commands_name_the_asgi_process_after_its_server() -> None:
    from shengji_site import launcher

    daphne = launcher.child_commands(launcher.ServeOptions(port=8123))
    uvicorn = launcher.child_commands(launcher.ServeOptions(port=8123, server="uvicorn"))
    assert list(daphne) == ["daphne", "celery worker", "celery beat"]
    assert list(uvicorn) == ["uvicorn", "celery worker", "celery beat"]
    assert daphne["daphne"][1:3] == ["-m", "shengji_site.daphne_uvloop"]
    command = uvicorn["uvicorn"]
    assert command[1:3] == ["-m", "uvicorn"] and command[-1] == "shengji_site.asgi:application"
    pairs = dict(itertools.pairwise(command))
    assert pairs["--host"] == "127.0.0.1" and pairs["--port"] == "8123"
    assert pairs["--loop"] == "uvloop" and pairs["--http"] == "httptools"
    assert pairs["--ws-per-message-deflate"] == "false" and pairs["--lifespan"] == "off"
    assert launcher.asgi_command("uvicorn", "[::1]", 9)[3:5] == ["--host", "::1"]
    with pytest.raises(ValueError, match="no ASGI server 'gunicorn'"):
        launcher.asgi_command("gunicorn", "127.0.0.1", 8000)


DAPHNE_LOOP_PROBE = """
from shengji_site import daphne_uvloop
daphne_uvloop.use_loop(daphne_uvloop.chosen_loop())
import daphne.server  # makes the reactor's loop, as daphne's command line does
from twisted.internet import reactor
print(type(reactor).__name__, type(reactor._asyncioEventloop).__module__)
"""


def python_with(
    name: str, setting: str | None, *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """This interpreter run with ``args``, the environment variable ``name`` set to
    ``setting`` (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != name}
    if setting is not None:
        env[name] = setting
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=60, check=check
    )


@pytest.mark.parametrize(("setting", "loop_module"), [(None, "uvloop"), ("asyncio", "asyncio")])
def test_daphne_runs_its_reactor_on_uvloop_unless_told_otherwise(
    setting: str | None, loop_module: str
) -> None:
    probe = python_with("SHENGJI_DAPHNE_LOOP", setting, "-c", DAPHNE_LOOP_PROBE)
    reactor, module = probe.stdout.split()
    assert reactor == "AsyncioSelectorReactor"
    assert module.split(".")[0] == loop_module


def test_an_unknown_daphne_loop_is_refused_by_name() -> None:
    probe = python_with(
        "SHENGJI_DAPHNE_LOOP", "tokio", "-m", "shengji_site.daphne_uvloop", "--help", check=False
    )
    assert probe.returncode != 0
    assert "SHENGJI_DAPHNE_LOOP must be one of uvloop, asyncio, not 'tokio'" in probe.stderr
