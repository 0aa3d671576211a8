"""`manage.py serve` starts the whole site from nothing and Ctrl-C leaves nothing behind."""

from __future__ import annotations

import asyncio
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

    def start(self) -> None:
        log = open(self.var_dir.parent / "serve.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(self.http_port)],
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

    def log(self) -> str:
        path = self.var_dir.parent / "serve.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def leftover_processes(self) -> list[str]:
        marks = (str(self.var_dir), f"-p {self.http_port}", f"shengji-{self.http_port}@")
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
    uri = f"ws://127.0.0.1:{site.http_port}/ws/echo/"
    async with websockets.connect(uri, origin=Origin(site.url), open_timeout=10) as socket:
        await socket.send(json.dumps({"type": "ping", "text": "升级"}))
        return json.loads(await asyncio.wait_for(socket.recv(), 10))


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
    site.start()
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
