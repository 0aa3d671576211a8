"""`manage.py serve`: the whole site on one machine from one command.

Starts the embedded servers that no URL replaces, migrates, then runs daphne, a Celery worker
and Celery beat as children until SIGINT or SIGTERM, and then stops every one of them.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from django.conf import settings
from django.core.management import call_command
from django.db import connections

from shengji_site.embedded import (
    EmbeddedPostgres,
    EmbeddedRedis,
    port_is_open,
    set_parent_death_signal,
)

CHILD_STOP_SECONDS = 20.0
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


class Server(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


@dataclass
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    concurrency: int = 2
    log: Callable[[str], None] = print


@dataclass
class Site:
    options: ServeOptions
    servers: list[Server] = field(default_factory=list)
    children: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    stop_requested: bool = False

    def request_stop(self, signum: int, frame: object) -> None:
        self.stop_requested = True


def embedded_servers() -> list[Server]:
    servers: list[Server] = []
    if settings.USE_EMBEDDED_POSTGRES:
        database = settings.DATABASES["default"]["NAME"]
        servers.append(
            EmbeddedPostgres(settings.VAR_DIR / "postgres", settings.EMBEDDED_PG_PORT, database)
        )
    if settings.USE_EMBEDDED_REDIS:
        servers.append(EmbeddedRedis(settings.VAR_DIR / "redis", settings.EMBEDDED_REDIS_PORT))
    return servers


def child_environment(options: ServeOptions) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["SHENGJI_VAR_DIR"] = str(settings.VAR_DIR)
    if options.host in LOOPBACK_HOSTS:
        env.setdefault("HTTPS", "0")  # a site on loopback is served over plain HTTP
    return env


def child_commands(options: ServeOptions) -> dict[str, list[str]]:
    python = sys.executable
    node = f"shengji-{options.port}@{socket.gethostname()}"
    return {
        "daphne": [
            python,
            "-m",
            "daphne",
            "-b",
            options.host.strip("[]"),
            "-p",
            str(options.port),
            "--proxy-headers",
            "shengji_site.asgi:application",
        ],
        "celery worker": [
            python,
            "-m",
            "celery",
            "-A",
            "shengji_site",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            str(options.concurrency),
            "--hostname",
            node,
        ],
        "celery beat": [
            python,
            "-m",
            "celery",
            "-A",
            "shengji_site",
            "beat",
            "--loglevel",
            "INFO",
            "--schedule",
            str(settings.VAR_DIR / "celerybeat-schedule"),
        ],
    }


def start_children(site: Site) -> None:
    env = child_environment(site.options)
    for name, command in child_commands(site.options).items():
        site.children[name] = subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            env=env,
            start_new_session=True,  # a terminal's Ctrl-C reaches serve alone, which stops all
            preexec_fn=set_parent_death_signal,
        )


def stop_children(site: Site) -> None:
    for process in site.children.values():
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + CHILD_STOP_SECONDS
    for process in site.children.values():
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def prepare_database(site: Site) -> None:
    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    connections.close_all()  # the children open their own


def wait_for_stop(site: Site) -> int:
    while not site.stop_requested:
        for name, process in site.children.items():
            if process.poll() is not None:
                site.options.log(f"{name} exited with code {process.returncode}; stopping")
                return 1
        time.sleep(0.2)
    return 0


def wait_for_http(site: Site, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not site.stop_requested:
        if port_is_open(site.options.port, site.options.host.strip("[]")):
            return
        if site.children["daphne"].poll() is not None:
            return
        time.sleep(0.1)


def site_url(options: ServeOptions) -> str:
    host = "127.0.0.1" if options.host in {"0.0.0.0", "::"} else options.host
    return f"http://{host}:{options.port}/"


def serve(options: ServeOptions) -> int:
    site = Site(options)
    previous = {
        sig: signal.signal(sig, site.request_stop) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
    try:
        for server in embedded_servers():
            server.start()
            site.servers.append(server)
        prepare_database(site)
        if site.stop_requested:
            return 0
        start_children(site)
        wait_for_http(site)
        options.log(f"Shengji is running at {site_url(options)}  (Ctrl-C stops everything)")
        return wait_for_stop(site)
    finally:
        options.log("Stopping…")
        stop_children(site)
        for server in reversed(site.servers):
            server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        options.log("Stopped.")
