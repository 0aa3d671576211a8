"""The HAProxy configuration in front of several ASGI processes: what ``manage.py serve
--processes N`` runs (N > 1) and prints (``--print-proxy-config``), on one machine or several
(README, "Running on several machines"; docs/OPERATIONS.md, "Routing a table to one process").

Every socket of a table goes to one process: ``/ws/table/<id>/`` is hashed (the path alone,
consistent hashing, no balance factor that would move a table by load); the pages, the API,
``/ws/lobby/`` and the rest go to the least busy process. The proxy is the only one the ASGI
processes believe (``TRUSTED_PROXIES``): it drops the forwarding headers a client sent, unless
the client is one of the proxies in front of it (``upstream``), then appends the address it got
the request from to ``X-Forwarded-For``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

# A table's sockets (shengji_site/routing.py): /ws/table/<id>/, the id in the path.
TABLE_SOCKETS = "/ws/table/"
# The headers only a proxy may send (accounts.client_address.FORWARDING_HEADERS).
FORWARDING_HEADERS = (
    "Forwarded",
    "X-Forwarded-For",
    "X-Forwarded-Host",
    "X-Forwarded-Port",
    "X-Forwarded-Proto",
    "X-Real-IP",
)
# Where Debian puts haproxy (/usr/sbin), which a user's PATH may lack.
SBIN_DIRS = ("/usr/local/sbin", "/usr/sbin", "/sbin")
# A socket is quiet for at most the 20 s between a browser's pings (docs/PROTOCOL.md).
TUNNEL_TIMEOUT = "120s"


@dataclass(frozen=True)
class ProxyConfig:
    """The proxy listening on ``host``:``port`` (``host`` as ``serve --host`` takes it:
    ``0.0.0.0`` or ``::`` for every address) in front of ``servers`` (``host:port`` of each
    ASGI process; IPv6 in brackets). ``upstream``: the addresses or networks of proxies in front
    of this one whose forwarding headers it keeps (none: it is the first). ``tls_cert``: a PEM
    file with the certificate and its key: the proxy then speaks HTTPS and says so in
    ``X-Forwarded-Proto``."""

    host: str
    port: int
    servers: tuple[str, ...]
    upstream: tuple[str, ...] = field(default_factory=tuple)
    tls_cert: str | None = None


def haproxy_binary() -> str | None:
    """The haproxy executable, on PATH or in the sbin folders; None when it is not installed."""
    search = os.pathsep.join([os.environ.get("PATH", ""), *SBIN_DIRS])
    return shutil.which("haproxy", path=search)


def haproxy_command(binary: str, config_path: Path) -> list[str]:
    """haproxy in the foreground (``-db``: no daemon, stopped by SIGTERM as any child)."""
    return [binary, "-f", str(config_path), "-db"]


def bind_address(host: str, port: int) -> str:
    """haproxy's spelling of a listening address: ``0.0.0.0:8000``, ``:::8000 v4v6`` (every
    IPv6 and IPv4 address), ``::1:8000``."""
    bare = host.strip("[]")
    if bare == "::":
        return f":::{port} v4v6"
    return f"{bare}:{port}"


def server_lines(servers: tuple[str, ...]) -> list[str]:
    """One ``server`` line per ASGI process, named ``asgi0``, ``asgi1``…: the names haproxy's
    log gives (``tables/asgi1``). A process is up while its port accepts connections."""
    return [
        f"    server asgi{index} {address.replace('[', '').replace(']', '')} check"
        for index, address in enumerate(servers)
    ]


def forwarding_lines(config: ProxyConfig) -> list[str]:
    """Drop what a client says of itself, then say where the request came from."""
    lines = []
    if config.upstream:
        lines.append(f"    acl from_upstream src {' '.join(config.upstream)}")
    unless = " unless from_upstream" if config.upstream else ""
    lines += [f"    http-request del-header {name}{unless}" for name in FORWARDING_HEADERS]
    lines.append("    http-request add-header X-Forwarded-For %[src]")
    if config.tls_cert:
        lines.append("    http-request set-header X-Forwarded-Proto https")
    return lines


def haproxy_config(config: ProxyConfig) -> str:
    """The configuration text (haproxy 2.6 or later)."""
    tls = f" ssl crt {config.tls_cert}" if config.tls_cert else ""
    servers = server_lines(config.servers)
    lines = [
        "# Shengji: every socket of a table on one ASGI process (manage.py serve writes this;",
        "# serve --print-proxy-config prints it). docs/OPERATIONS.md, Routing a table to one",
        "# process.",
        "global",
        "    log stdout format raw local0 info",
        "",
        "defaults",
        "    mode http",
        "    log global",
        "    option httplog",
        "    option dontlognull",
        "    option redispatch",  # a process that refuses: the next one, for a table too
        "    retries 3",
        "    timeout connect 5s",
        "    timeout http-request 10s",
        "    timeout http-keep-alive 10s",
        "    timeout client 60s",
        "    timeout server 60s",
        "    timeout client-fin 10s",
        f"    timeout tunnel {TUNNEL_TIMEOUT}",
        # Up while its port accepts connections, checked every second. Weight 100 for all:
        # the same shares, on 100 times the points of the hash ring (1,000 tables over 2
        # processes: 487 and 513, against 427 and 573 at weight 1).
        "    default-server inter 1s fall 2 rise 1 weight 100",
        "",
        "frontend shengji",
        f"    bind {bind_address(config.host, config.port)}{tls}",
        *forwarding_lines(config),
        f"    use_backend tables if {{ path_beg {TABLE_SOCKETS} }}",
        "    default_backend site",
        "",
        "backend tables",
        "    balance uri path-only",  # /ws/table/<id>/: the same for every socket of a table
        "    hash-type consistent",  # a process added or gone moves only its share
        *servers,
        "",
        "backend site",
        "    balance leastconn",
        *servers,
        "",
    ]
    return "\n".join(lines)
