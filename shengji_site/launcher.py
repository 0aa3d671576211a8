"""`manage.py serve`: the whole site on one machine from one command.

Starts the embedded servers that no URL replaces, migrates, then runs the ASGI server (daphne,
or uvicorn with ``--server uvicorn``), a Celery worker and Celery beat as children until SIGINT
or SIGTERM, and then stops every one of them. With several ASGI processes (``--processes N``,
one per core by default) they listen on loopback ports of their own and HAProxy, one more
child, listens on the site's address in front of them, every socket of a table on one process
(shengji_site/haproxy.py).

A child that exits on its own (a crash, kill -9, a Celery worker that lost Redis while holding
tasks) is started again after a backoff that doubles with each recent crash; when one child
crashes ``RESTART_LIMIT`` times within ``RESTART_WINDOW_S`` seconds, serve gives up, says so
and stops everything.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from django.conf import settings
from django.core.management import call_command
from django.db import connections

from shengji_site.embedded import (
    EmbeddedPostgres,
    EmbeddedRedis,
    free_port,
    port_is_open,
    set_parent_death_signal,
)
from shengji_site.haproxy import ProxyConfig, haproxy_command, haproxy_config

CHILD_STOP_SECONDS = 20.0
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
WILDCARD_HOSTS = {"0.0.0.0", "::", "[::]"}
DEFAULT_ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]  # settings.ALLOWED_HOSTS' default
# A documentation address (RFC 5737): a UDP socket "connected" to it asks the kernel which
# local address would carry traffic there, without any packet leaving the machine.
_ROUTE_PROBE = ("192.0.2.1", 9)
RESTART_LIMIT = 5
RESTART_WINDOW_S = 60.0
RESTART_FIRST_DELAY_S = 0.5
RESTART_MAX_DELAY_S = 10.0
POLL_SECONDS = 0.2
ASGI_APPLICATION = "shengji_site.asgi:application"
ASGI_SERVERS = ("daphne", "uvicorn")  # the first is the default
PROXY = "haproxy"  # the name of the proxy child
# Where the proxied ASGI processes listen, and the one address they believe forwarding
# headers from: the proxy's, as they see it.
INTERNAL_HOST = "127.0.0.1"
START_SECONDS = 30.0


class ServeRefused(Exception):
    """What serve was asked cannot be done here (the message says why and what to do)."""


class Server(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


@dataclass
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    concurrency: int = 2
    server: str = ASGI_SERVERS[0]  # the ASGI server: one of ASGI_SERVERS
    log: Callable[[str], None] = print
    # --lan: phones on the home network play over plain HTTP at one of these addresses
    # (found by ``lan_addresses`` when serve starts).
    lan: bool = False
    lan_addresses: list[str] = field(default_factory=list)
    # ASGI processes: one listens on host:port itself; more listen on loopback ports behind
    # the proxy (``haproxy``: its executable), which then listens on host:port.
    processes: int = 1
    haproxy: str | None = None
    tls_cert: str | None = None  # the proxy speaks HTTPS with this PEM (certificate and key)

    @property
    def proxied(self) -> bool:
        return self.processes > 1


@dataclass
class RestartPolicy:
    """When a crashed child may start again: after a delay that doubles with each crash in the
    window, and never once it has crashed ``limit`` times within ``window_s`` seconds."""

    limit: int = RESTART_LIMIT
    window_s: float = RESTART_WINDOW_S
    first_delay_s: float = RESTART_FIRST_DELAY_S
    max_delay_s: float = RESTART_MAX_DELAY_S
    crashes: dict[str, list[float]] = field(default_factory=dict)

    def crashed(self, name: str, now: float) -> float | None:
        """Count a crash of ``name``; the seconds to wait before starting it again, or None
        to give up."""
        recent = [at for at in self.crashes.get(name, []) if now - at < self.window_s]
        recent.append(now)
        self.crashes[name] = recent
        if len(recent) >= self.limit:
            return None
        return float(min(self.max_delay_s, self.first_delay_s * 2 ** (len(recent) - 1)))


@dataclass
class Site:
    options: ServeOptions
    servers: list[Server] = field(default_factory=list)
    children: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    stop_requested: bool = False
    commands: dict[str, list[str]] = field(default_factory=dict)
    policy: RestartPolicy = field(default_factory=RestartPolicy)
    restart_at: dict[str, float] = field(default_factory=dict)
    asgi_ports: dict[str, int] = field(default_factory=dict)  # by the ASGI process's name

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
    if options.host in LOOPBACK_HOSTS and not options.tls_cert:
        env.setdefault("HTTPS", "0")  # a site on loopback is served over plain HTTP
    if options.lan:
        env.update(lan_environment(env, options.lan_addresses, options.port))
    if options.proxied:
        env["TRUSTED_PROXIES"] = ",".join([INTERNAL_HOST, *settings.TRUSTED_PROXIES])
    return env


# --- how many ASGI processes, and the proxy in front of them -----------------------------


def processes_to_run(asked: int | None, has_proxy: bool, cpus: int | None) -> tuple[int, list[str]]:
    """The number of ASGI processes serve runs and what to tell the operator: ``asked``, or
    one per core (``cpus``) when None. Several need haproxy (``has_proxy``): without it one
    process runs when none was asked for, and serve refuses (``ServeRefused``) when several
    were."""
    if asked is not None and asked < 1:
        raise ServeRefused(f"--processes must be 1 or more, not {asked}")
    wanted = asked if asked is not None else max(1, cpus or 1)
    if wanted == 1 or has_proxy:
        return wanted, []
    if asked is not None:
        raise ServeRefused(
            f"--processes {asked} needs haproxy in front of the processes, and it is not "
            "installed (Debian: apt-get install haproxy). Run --processes 1, or install it."
        )
    return 1, [
        f"haproxy is not installed: one ASGI process instead of one per core ({wanted}). "
        "Install it (Debian: apt-get install haproxy) to use every core."
    ]


def asgi_names(options: ServeOptions) -> list[str]:
    """The ASGI processes' names: the server's (``daphne``) for one, numbered for several
    (``daphne0``, ``daphne1``…)."""
    if not options.proxied:
        return [options.server]
    return [f"{options.server}{index}" for index in range(options.processes)]


def asgi_ports(options: ServeOptions) -> dict[str, int]:
    """Where each ASGI process listens: the site's port for one; free loopback ports, each
    process keeping its own across restarts, for several."""
    if not options.proxied:
        return {options.server: options.port}
    return {name: free_port() for name in asgi_names(options)}


def proxy_config(options: ServeOptions, servers: list[str]) -> ProxyConfig:
    """The proxy on the site's address in front of ``servers`` (``host:port``), keeping the
    forwarding headers of the proxies ``TRUSTED_PROXIES`` names in front of serve."""
    return ProxyConfig(
        host=options.host,
        port=options.port,
        servers=tuple(servers),
        upstream=tuple(settings.TRUSTED_PROXIES),
        tls_cert=options.tls_cert,
    )


def proxy_config_path(options: ServeOptions) -> Path:
    return Path(settings.VAR_DIR) / f"haproxy-{options.port}.cfg"


def write_proxy_config(options: ServeOptions, ports: dict[str, int]) -> Path:
    """The proxy's configuration, in front of the ASGI processes at ``ports``, written to
    ``proxy_config_path``."""
    servers = [f"{INTERNAL_HOST}:{port}" for port in ports.values()]
    path = proxy_config_path(options)
    path.write_text(haproxy_config(proxy_config(options, servers)))
    return path


# --- serve --lan: a game at home, phones on the same network ----------------------------------


def local_address_candidates() -> list[str]:
    """The machine's own addresses, found without sending anything: those its host name
    resolves to, and the one the kernel would send from towards a routed address (a UDP
    socket's connect picks a route and sends no packet)."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(_ROUTE_PROBE)
        found.append(str(probe.getsockname()[0]))
    return found


def lan_addresses(candidates: list[str] | None = None) -> list[str]:
    """The IPv4 addresses phones on the network may reach this machine at, in the order found,
    once each: ``candidates`` (the machine's own, ``local_address_candidates``, when None)
    without loopback, unspecified, multicast and link-local ones."""
    addresses: list[str] = []
    for text in local_address_candidates() if candidates is None else candidates:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            continue
        unusable = (
            address.version != 4
            or address.is_loopback
            or address.is_unspecified
            or address.is_multicast
            or address.is_link_local
        )
        if not unusable and str(address) not in addresses:
            addresses.append(str(address))
    return addresses


def lan_environment(env: dict[str, str], addresses: list[str], port: int) -> dict[str, str]:
    """The settings (as environment variables) of a site phones on the home network open over
    plain HTTP: its LAN addresses and host name are hosts it answers to (besides those
    ``ALLOWED_HOSTS`` already names), HTTPS is off (no redirect to an https:// nothing serves,
    no Secure-only session and CSRF cookies, which a browser keeps from plain http), and the
    http:// origins of those hosts are trusted for CSRF."""
    hostname = socket.gethostname()
    names = [hostname, f"{hostname}.local"] if hostname and hostname != "localhost" else []
    current = [h.strip() for h in env.get("ALLOWED_HOSTS", "").split(",") if h.strip()]
    hosts = list(dict.fromkeys([*(current or DEFAULT_ALLOWED_HOSTS), *addresses, *names]))
    origins = [o.strip() for o in env.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]
    origins += [f"http://{host}:{port}" for host in [*addresses, *names]]
    return {
        "HTTPS": "0",
        "ALLOWED_HOSTS": ",".join(hosts),
        "CSRF_TRUSTED_ORIGINS": ",".join(dict.fromkeys(origins)),
    }


def lan_urls(options: ServeOptions) -> list[str]:
    """The addresses phones on the network open."""
    return [f"http://{address}:{options.port}/" for address in options.lan_addresses]


def lan_words(options: ServeOptions) -> list[str]:
    """What serve --lan prints once the site is up: the address for phones, and what to check
    when a phone cannot open it."""
    urls = lan_urls(options)
    if not urls:
        return [
            "No network address found for phones: is the machine on a network? "
            "Phones can open http://<this machine's address>:"
            f"{options.port}/ once ALLOWED_HOSTS names that address."
        ]
    return [
        f"Phones on the same network (Wi-Fi): open {' or '.join(urls)}",
        "  Plain HTTP, for a home network only. A phone that cannot connect: same Wi-Fi? "
        f"A firewall letting port {options.port} in?",
    ]


def asgi_command(server: str, host: str, port: int) -> list[str]:
    """The command line of one ASGI process (HTTP and WebSocket) serving the site on
    ``host``:``port``: ``daphne`` or ``uvicorn``. ``manage.py serve`` and the bench kit's
    ``LiveSite`` both start it so.

    Neither reads proxy headers itself: daphne's ``--proxy-headers`` and uvicorn's (on by
    default, for peers in ``--forwarded-allow-ips``, 127.0.0.1 unless set) take the left-most
    X-Forwarded-For address, the client's own words. shengji_site.asgi reads the headers, and
    only from settings.TRUSTED_PROXIES (the TRUSTED_PROXIES variable; none unless set).

    daphne runs as its own command line does, its reactor on uvloop (shengji_site.daphne_uvloop).
    uvicorn runs on uvloop and httptools, with websockets' sans-I/O protocol and without
    permessage-deflate (zlib took 11% of its time in a load run; the site's frames are small),
    without lifespan events (daphne sends none; the site needs none), with its access log on
    stdout (as daphne's), and gives open connections 10 s to close on SIGTERM (serve waits
    ``CHILD_STOP_SECONDS`` before it kills).
    """
    python = sys.executable
    bind = host.strip("[]")
    if server == "daphne":
        daphne = [python, "-m", "shengji_site.daphne_uvloop"]  # daphne's own CLI, on uvloop
        return [*daphne, "-b", bind, "-p", str(port), ASGI_APPLICATION]
    if server == "uvicorn":
        return [
            python,
            "-m",
            "uvicorn",
            "--host",
            bind,
            "--port",
            str(port),
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--ws",
            "websockets-sansio",
            "--ws-per-message-deflate",
            "false",
            "--no-proxy-headers",
            "--lifespan",
            "off",
            "--timeout-graceful-shutdown",
            "10",
            ASGI_APPLICATION,
        ]
    raise ValueError(f"no ASGI server {server!r} (one of {', '.join(ASGI_SERVERS)})")


def child_commands(
    options: ServeOptions, ports: dict[str, int] | None = None
) -> dict[str, list[str]]:
    """The children of ``serve`` by name: the ASGI processes (at ``ports``, ``asgi_ports``'
    answer, its own when None; named after their server), the proxy in front of several
    (``haproxy``), the Celery worker and beat."""
    python = sys.executable
    node = f"shengji-{options.port}@{socket.gethostname()}"
    host = INTERNAL_HOST if options.proxied else options.host
    ports = ports if ports is not None else asgi_ports(options)
    asgi = {name: asgi_command(options.server, host, port) for name, port in ports.items()}
    if options.proxied:
        if options.haproxy is None:
            raise ServeRefused("several ASGI processes need haproxy, and none was found")
        asgi[PROXY] = haproxy_command(options.haproxy, proxy_config_path(options))
    return {
        **asgi,
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
    """Start every child; the proxy once the ASGI processes behind it listen (it would count
    one that does not yet as down, and answer 503 until its next check)."""
    if not site.commands:
        site.asgi_ports = asgi_ports(site.options)
        if site.options.proxied:
            write_proxy_config(site.options, site.asgi_ports)
        site.commands = child_commands(site.options, site.asgi_ports)
    for name in site.commands:
        if name == PROXY:
            wait_for_asgi(site)
        start_child(site, name)


def start_child(site: Site, name: str) -> None:
    site.children[name] = subprocess.Popen(
        site.commands[name],
        cwd=settings.BASE_DIR,
        env=child_environment(site.options),
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


def supervise(site: Site) -> int:
    """Until a stop is requested (0): start again every child that exits, after the policy's
    delay; give up (1) when the policy says a child crashes too often."""
    while not site.stop_requested:
        for name, process in site.children.items():
            if name in site.restart_at:
                if time.monotonic() >= site.restart_at[name]:
                    del site.restart_at[name]
                    start_child(site, name)
                    site.options.log(f"{name} started again")
            elif process.poll() is not None and not restart_later(site, name, process):
                return 1
        time.sleep(POLL_SECONDS)
    return 0


def restart_later(site: Site, name: str, process: subprocess.Popen[bytes]) -> bool:
    """Schedule the restart of a child that exited; False when it crashed too often."""
    with contextlib.suppress(ProcessLookupError):  # what it left behind (a worker's pool)
        os.killpg(process.pid, signal.SIGKILL)
    delay = site.policy.crashed(name, time.monotonic())
    code = process.returncode
    if delay is None:
        limit, window = site.policy.limit, site.policy.window_s
        site.options.log(
            f"{name} exited with code {code}, {limit} times in {window:.0f} s: giving up; stopping"
        )
        return False
    site.options.log(f"{name} exited with code {code}; starting it again in {delay:.1f} s")
    site.restart_at[name] = time.monotonic() + delay
    return True


def wait_for_port(site: Site, name: str, host: str, port: int, timeout: float) -> None:
    """Until ``host``:``port`` accepts connections, the child ``name`` exits, a stop is
    requested or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not site.stop_requested:
        if port_is_open(port, host.strip("[]")):
            return
        if site.children[name].poll() is not None:
            return
        time.sleep(0.1)


def wait_for_asgi(site: Site, timeout: float = START_SECONDS) -> None:
    """Until every ASGI process listens (or ``timeout`` seconds pass)."""
    deadline = time.monotonic() + timeout
    host = INTERNAL_HOST if site.options.proxied else site.options.host
    for name, port in site.asgi_ports.items():
        wait_for_port(site, name, host, port, max(0.0, deadline - time.monotonic()))


def wait_for_http(site: Site, timeout: float = START_SECONDS) -> None:
    """Until the site's address accepts connections: the proxy's, or the one ASGI process's."""
    name = PROXY if site.options.proxied else site.options.server
    options = site.options
    probe = "127.0.0.1" if options.host in WILDCARD_HOSTS else options.host
    wait_for_port(site, name, probe, options.port, timeout)


def site_url(options: ServeOptions) -> str:
    host = "127.0.0.1" if options.host in {"0.0.0.0", "::"} else options.host
    scheme = "https" if options.tls_cert else "http"
    return f"{scheme}://{host}:{options.port}/"


def running_words(options: ServeOptions) -> str:
    """The line saying the site is up, where, and on how many processes."""
    url = site_url(options)
    if not options.proxied:
        return f"Shengji is running at {url}  (Ctrl-C stops everything)"
    return (
        f"Shengji is running at {url}: {options.processes} {options.server} processes behind "
        "haproxy, every socket of a table on one  (Ctrl-C stops everything)"
    )


def wildcard_hint(options: ServeOptions) -> list[str]:
    """Listening on every address without --lan: the site still answers only the hosts
    ALLOWED_HOSTS names, and asks for HTTPS off loopback."""
    if options.host not in WILDCARD_HOSTS:
        return []
    return ["To play from phones on this network over plain HTTP, run serve --lan instead."]


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
        options.log(running_words(options))
        for line in lan_words(options) if options.lan else wildcard_hint(options):
            options.log(line)
        return supervise(site)
    finally:
        options.log("Stopping…")
        stop_children(site)
        for server in reversed(site.servers):
            server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        options.log("Stopped.")
