"""A whole site in separate processes, for load benchmarks and fault drills.

``LiveSite`` starts its own embedded PostgreSQL and Redis on free loopback ports, migrates, and
runs any number of daphne processes, a Celery worker and Celery beat as children, each of which
can be killed (``kill -9`` included) and started again on its own. Nothing here is used by the
site itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from shengji_site.embedded import EmbeddedPostgres, EmbeddedRedis, free_port, port_is_open

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60.0
SECRET = "live-site-drill-key-not-for-production-" + "x" * 24


class LiveSite:
    """One site on this machine: ``daphnes`` HTTP/WebSocket processes sharing one database and
    one Redis, a worker and beat. ``env`` adds settings for every child (e.g. timings)."""

    def __init__(
        self,
        base: Path,
        *,
        daphnes: int = 1,
        env: dict[str, str] | None = None,
        redis_persistent: bool = False,
        worker_concurrency: int = 2,
    ) -> None:
        self.base = base
        self.base.mkdir(parents=True, exist_ok=True)
        self.http_ports = [free_port() for _ in range(daphnes)]
        self.postgres = EmbeddedPostgres(base / "postgres", free_port(), "shengji")
        self.redis = EmbeddedRedis(base / "redis", free_port(), persistent=redis_persistent)
        self.worker_concurrency = worker_concurrency
        self.env = self._environment(env or {})
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    # --- addresses -----------------------------------------------------------------------

    def url(self, daphne: int = 0) -> str:
        return f"http://127.0.0.1:{self.http_ports[daphne]}"

    def ws_url(self, path: str, daphne: int = 0) -> str:
        return f"ws://127.0.0.1:{self.http_ports[daphne]}{path}"

    @property
    def origin(self) -> str:
        return self.url(0)

    # --- lifecycle -----------------------------------------------------------------------

    def start(self, *, worker: bool = True, beat: bool = True) -> None:
        self.postgres.start()
        self.redis.start()
        self.manage("migrate", "--noinput", "-v", "0")
        for index in range(len(self.http_ports)):
            self.start_process(f"daphne{index}")
        if worker:
            self.start_process("worker")
        if beat:
            self.start_process("beat")
        for index in range(len(self.http_ports)):
            self.wait_for_http(index)

    def stop(self) -> None:
        for name in list(self.processes):
            self.stop_process(name, signal.SIGTERM)
        self.redis.stop()
        self.postgres.stop()

    def __enter__(self) -> LiveSite:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start_process(self, name: str) -> subprocess.Popen[bytes]:
        """Start (or start again) ``daphne<i>``, ``worker`` or ``beat``."""
        running = self.processes.get(name)
        if running is not None and running.poll() is None:
            raise RuntimeError(f"{name} is already running")
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
        process = self.processes[name]
        os.killpg(process.pid, sig)
        process.wait(30)

    def stop_process(self, name: str, sig: int = signal.SIGTERM) -> None:
        process = self.processes.get(name)
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, sig)
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(20)
        except ProcessLookupError:
            pass

    def restart_redis(self, *, kill: bool = True) -> None:
        """Stop Redis (``kill -9`` by default: everything it held is lost unless persistent)
        and start it again on the same port."""
        process = self.redis.process
        assert process is not None
        if kill:
            process.kill()
        else:
            process.terminate()
        process.wait(30)
        self.redis.start()

    def wait_for_http(self, daphne: int = 0, timeout: float = START_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        name = f"daphne{daphne}"
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

    # --- running code in the site --------------------------------------------------------

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
        its JSON result, e.g. ``call("shengji_site.testing.livesetup.tables", count=3)``."""
        module, name = function.rsplit(".", 1)
        code = (
            "import json, sys\n"
            f"from {module} import {name} as f\n"
            f"result = f(**json.loads({json.dumps(json.dumps(kwargs))}))\n"
            "sys.stdout.write('\\n@@RESULT@@' + json.dumps(result))\n"
        )
        out = self.manage("shell", "-c", code)
        return json.loads(out.rsplit("@@RESULT@@", 1)[1])

    # --- private -------------------------------------------------------------------------

    def _environment(self, extra: dict[str, str]) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
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
        if name.startswith("daphne"):
            port = self.http_ports[int(name.removeprefix("daphne"))]
            return [python, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                    "shengji_site.asgi:application"]  # fmt: skip
        if name == "worker":
            return [python, "-m", "celery", "-A", "shengji_site", "worker", "--loglevel",
                    "WARNING", "--concurrency", str(self.worker_concurrency), "--hostname",
                    f"live-{self.http_ports[0]}@%h"]  # fmt: skip
        if name == "beat":
            return [python, "-m", "celery", "-A", "shengji_site", "beat", "--loglevel",
                    "WARNING", "--schedule", str(self.base / "celerybeat-schedule")]  # fmt: skip
        raise ValueError(f"no process {name!r}")


def ports_open(ports: Iterable[int]) -> list[int]:
    return [port for port in ports if port_is_open(port)]
