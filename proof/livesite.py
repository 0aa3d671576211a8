"""A whole site in separate processes, for load benchmarks and fault drills.

``LiveSite`` starts its own embedded PostgreSQL and Redis on free loopback ports, migrates, and
runs any number of ASGI processes (daphne, or uvicorn with ``server="uvicorn"``, each started as
``manage.py serve`` starts it: ``shengji_site.launcher.asgi_command``), a Celery worker and
Celery beat as children, each of which can be killed (``kill -9`` included) and started again
on its own. An ASGI process is named after its server and its index: ``daphne0``,
``uvicorn1``. With ``proxy`` the site is what ``manage.py serve --processes N`` runs: haproxy
(the child ``haproxy``) in front of the ASGI processes with serve's own configuration
(``shengji_site.haproxy``: every socket of a table on one process), reached at ``proxy_url``.
With ``supervise`` a child
that exits by itself (not through ``kill`` or ``stop_process``) is started again, as
``manage.py serve`` does (``shengji_site.launcher.RestartPolicy``). ``RunningSite`` is a site
already running elsewhere, reached by its URL. Code runs inside either through this checkout's
``manage.py`` with the site's environment (``SiteShell.call``). Nothing here is used by the
site itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from shengji_site.embedded import EmbeddedPostgres, EmbeddedRedis, free_port, port_is_open
from shengji_site.haproxy import ProxyConfig, haproxy_binary, haproxy_command, haproxy_config
from shengji_site.launcher import (
    ASGI_SERVERS,
    INTERNAL_HOST,
    POLL_SECONDS,
    PROXY,
    RestartPolicy,
    asgi_command,
)

ROOT = Path(__file__).resolve().parents[1]
START_SECONDS = 60.0
SECRET = "live-site-drill-key-not-for-production-" + "x" * 24


class SiteShell:
    """Code run inside a site: this checkout's ``manage.py`` with the site's environment
    (``env``: its database, Redis and secret)."""

    env: dict[str, str]

    def manage(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stderr[-4000:]}")
        return done.stdout

    def call(self, function: str, **kwargs: Any) -> Any:
        """Call ``module.function(**kwargs)`` inside the site (a ``manage.py shell``) and return
        its JSON result, e.g. ``call("proof.livesetup.tables", count=3)``."""
        module, name = function.rsplit(".", 1)
        code = (
            "import json, sys\n"
            f"from {module} import {name} as f\n"
            f"result = f(**json.loads({json.dumps(json.dumps(kwargs))}))\n"
            "sys.stdout.write('\\n@@RESULT@@' + json.dumps(result))\n"
        )
        out = self.manage("shell", "-c", code)
        return json.loads(out.rsplit("@@RESULT@@", 1)[1])


class LiveSite(SiteShell):
    """One site on this machine: ``daphnes`` HTTP/WebSocket processes of ``server`` (daphne or
    uvicorn) sharing one database and one Redis, a worker and beat. ``env`` adds settings for
    every child (e.g. timings)."""

    def __init__(
        self,
        base: Path,
        *,
        daphnes: int = 1,
        server: str = ASGI_SERVERS[0],
        env: dict[str, str] | None = None,
        redis_persistent: bool = False,
        worker_concurrency: int = 2,
        supervise: bool = False,
        worker_loglevel: str = "WARNING",
        proxy: bool = False,
    ) -> None:
        if server not in ASGI_SERVERS:
            raise ValueError(f"no ASGI server {server!r} (one of {', '.join(ASGI_SERVERS)})")
        self.haproxy = haproxy_binary() if proxy else None
        if proxy and self.haproxy is None:
            raise RuntimeError("a proxied site needs haproxy (Debian: apt-get install haproxy)")
        self.proxy_port = free_port() if proxy else None
        self.server = server
        self.base = base
        self.base.mkdir(parents=True, exist_ok=True)
        self.http_ports = [free_port() for _ in range(daphnes)]
        self.postgres = EmbeddedPostgres(base / "postgres", free_port(), "shengji")
        self.redis = EmbeddedRedis(base / "redis", free_port(), persistent=redis_persistent)
        self.worker_concurrency = worker_concurrency
        self.worker_loglevel = worker_loglevel
        proxied = {"TRUSTED_PROXIES": INTERNAL_HOST} if proxy else {}
        self.env = self._environment({**proxied, **(env or {})})
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.supervise = supervise
        self.policy = RestartPolicy()
        self.restarts: Counter[str] = Counter()  # by the supervisor
        self.gave_up: list[str] = []
        self._held: set[str] = set()  # stopped on purpose: not the supervisor's to restart
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None
        # The embedded servers ask Linux to stop them when the thread that started them ends
        # (PR_SET_PDEATHSIG is per thread): a restart from a short-lived thread (asyncio's
        # to_thread) would not outlive it. This one lives as long as the site.
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-site")

    # --- addresses -----------------------------------------------------------------------

    def asgi_name(self, index: int = 0) -> str:
        """The name of ASGI process ``index`` (``daphne0``, ``uvicorn0``, …)."""
        return f"{self.server}{index}"

    def asgi_index(self, name: str) -> int | None:
        """The index of the ASGI process called ``name``; None for another process."""
        number = name.removeprefix(self.server)
        return int(number) if number != name and number.isdigit() else None

    def url(self, daphne: int = 0) -> str:
        return f"http://127.0.0.1:{self.http_ports[daphne]}"

    def ws_url(self, path: str, daphne: int = 0) -> str:
        return f"ws://127.0.0.1:{self.http_ports[daphne]}{path}"

    @property
    def origin(self) -> str:
        return self.url(0)

    def proxy_url(self) -> str:
        """The proxy's address (a site started with ``proxy``): what serve's users open."""
        if self.proxy_port is None:
            raise RuntimeError("this site runs without a proxy")
        return f"http://127.0.0.1:{self.proxy_port}"

    def proxy_ws_url(self, path: str) -> str:
        return self.proxy_url().replace("http", "ws", 1) + path

    # --- lifecycle -----------------------------------------------------------------------

    def start(self, *, worker: bool = True, beat: bool = True) -> None:
        self._spawner.submit(self.postgres.start).result()
        self._spawner.submit(self.redis.start).result()
        self.manage("migrate", "--noinput", "-v", "0")
        for index in range(len(self.http_ports)):
            self.start_process(self.asgi_name(index))
        if worker:
            self.start_process("worker")
        if beat:
            self.start_process("beat")
        for index in range(len(self.http_ports)):
            self.wait_for_http(index)
        if self.proxy_port is not None:
            self._write_proxy_config()
            self.start_process(PROXY)
            self._wait_for_proxy()
        if self.supervise:
            self._supervisor = threading.Thread(target=self._watch, daemon=True)
            self._supervisor.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._supervisor is not None:
            self._supervisor.join(10)
        for name in list(self.processes):
            self.stop_process(name, signal.SIGTERM)
        self.redis.stop()
        self.postgres.stop()
        self._spawner.shutdown()

    def __enter__(self) -> LiveSite:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start_process(self, name: str) -> subprocess.Popen[bytes]:
        """Start (or start again) an ASGI process (``asgi_name``), ``worker`` or ``beat``."""
        with self._lock:
            return self._start(name)

    def _start(self, name: str) -> subprocess.Popen[bytes]:
        running = self.processes.get(name)
        if running is not None and running.poll() is None:
            raise RuntimeError(f"{name} is already running")
        self._held.discard(name)
        log = open(self.base / f"{name}.log", "ab")  # noqa: SIM115 (kept open for the child)
        process = subprocess.Popen(
            self._command(name),
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.processes[name] = process
        return process

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Kill a child at once (``kill -9`` by default) and reap it."""
        with self._lock:
            self._held.add(name)
        process = self.processes[name]
        os.killpg(process.pid, sig)
        process.wait(30)

    def stop_process(self, name: str, sig: int = signal.SIGTERM) -> None:
        with self._lock:
            self._held.add(name)
        process = self.processes.get(name)
        if process is None:
            return
        if process.poll() is not None:  # the leader is gone; what it started may not be
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            return
        try:
            os.killpg(process.pid, sig)
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(20)
        except ProcessLookupError:
            pass

    def restart_redis(self, *, kill: bool = True, down_s: float = 0.0) -> None:
        """Stop Redis (``kill -9`` by default: everything it held is lost unless persistent)
        and start it again on the same port, ``down_s`` seconds later."""
        process = self.redis.process
        assert process is not None
        if kill:
            process.kill()
        else:
            process.terminate()
        process.wait(30)
        time.sleep(down_s)
        self._spawner.submit(self.redis.start).result()

    def wait_for_http(self, daphne: int = 0, timeout: float = START_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        name = self.asgi_name(daphne)
        while time.monotonic() < deadline:
            if self.processes[name].poll() is not None:
                raise RuntimeError(f"{name} exited:\n{self.log(name)}")
            if port_is_open(self.http_ports[daphne]) and self.http_status("/healthz", daphne):
                return
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not answer in {timeout:.0f} s:\n{self.log(name)}")

    def http_status(self, path: str, daphne: int = 0) -> int:
        try:
            with urllib.request.urlopen(self.url(daphne) + path, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)
        except OSError:
            return 0

    def log(self, name: str) -> str:
        path = self.base / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    # --- private -------------------------------------------------------------------------

    def _proxy_config_path(self) -> Path:
        return self.base / "haproxy.cfg"

    def _write_proxy_config(self) -> None:
        """serve's configuration (shengji_site.haproxy) in front of this site's ASGI ports."""
        assert self.proxy_port is not None
        servers = tuple(f"{INTERNAL_HOST}:{port}" for port in self.http_ports)
        config = ProxyConfig(host=INTERNAL_HOST, port=self.proxy_port, servers=servers)
        self._proxy_config_path().write_text(haproxy_config(config))

    def _wait_for_proxy(self, timeout: float = START_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.processes[PROXY].poll() is not None:
                raise RuntimeError(f"haproxy exited:\n{self.log(PROXY)}")
            try:
                with urllib.request.urlopen(self.proxy_url() + "/healthz", timeout=5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"haproxy did not answer in {timeout:.0f} s:\n{self.log(PROXY)}")

    def _watch(self) -> None:
        """The supervisor: start again, after the policy's delay, a child that exited."""
        due: dict[str, float] = {}
        while not self._stopping.wait(POLL_SECONDS):
            with self._lock:
                for name, process in self.processes.items():
                    if name in self._held:
                        due.pop(name, None)
                    elif name in due and time.monotonic() >= due[name]:
                        del due[name]
                        self._start(name)
                        self.restarts[name] += 1
                    elif name not in due and process.poll() is not None:
                        self._crashed(name, process, due)

    def _crashed(self, name: str, process: subprocess.Popen[bytes], due: dict[str, float]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        delay = self.policy.crashed(name, time.monotonic())
        if delay is None:
            self.gave_up.append(name)
            self._held.add(name)
        else:
            due[name] = time.monotonic() + delay

    def _environment(self, extra: dict[str, str]) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            # DB_CONN_MAX_AGE: the test plugin's 0 is for the tests' own threads, not the site's
            if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DB_CONN_MAX_AGE"}
        }
        env.update(
            DATABASE_URL=self.postgres.url,
            REDIS_URL=self.redis.url,
            SHENGJI_VAR_DIR=str(self.base / "var"),
            SECRET_KEY=SECRET,
            DEBUG="0",
            HTTPS="0",
            ALLOWED_HOSTS="127.0.0.1,localhost",
            CELERY_QUEUE="celery",
            CHANNELS_PREFIX="shengji",
            PYTHONUNBUFFERED="1",
            LOG_LEVEL="WARNING",
        )
        env.update(extra)
        return env

    def _command(self, name: str) -> list[str]:
        python = sys.executable
        index = self.asgi_index(name)
        if index is not None:
            return asgi_command(self.server, "127.0.0.1", self.http_ports[index])
        if name == "worker":
            return [python, "-m", "celery", "-A", "shengji_site", "worker", "--loglevel",
                    self.worker_loglevel, "--concurrency", str(self.worker_concurrency),
                    "--hostname", f"live-{self.http_ports[0]}@%h"]  # fmt: skip
        if name == PROXY and self.haproxy is not None:
            return haproxy_command(self.haproxy, self._proxy_config_path())
        if name == "beat":
            return [python, "-m", "celery", "-A", "shengji_site", "beat", "--loglevel",
                    "WARNING", "--schedule", str(self.base / "celerybeat-schedule")]  # fmt: skip
        raise ValueError(f"no process {name!r}")


def ports_open(ports: Iterable[int]) -> list[int]:
    return [port for port in ports if port_is_open(port)]


class RunningSite(SiteShell):
    """A site already running at ``url``; code runs in it through this checkout's manage.py
    with the environment of this shell (which must be the site's database, Redis and secret)."""

    def __init__(self, url: str) -> None:
        self.base_url = url.rstrip("/")
        self.env = dict(os.environ)

    def ws_url(self, path: str) -> str:
        return self.base_url.replace("http", "ws", 1) + path

    @property
    def origin(self) -> str:
        return self.base_url
