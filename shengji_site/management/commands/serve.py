import os
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from shengji_site.haproxy import haproxy_binary, haproxy_config
from shengji_site.launcher import (
    ASGI_SERVERS,
    INTERNAL_HOST,
    ServeOptions,
    ServeRefused,
    asgi_ports,
    lan_addresses,
    processes_to_run,
    proxy_config,
    serve,
)

LAN_HOST = "0.0.0.0"


class Command(BaseCommand):
    help = (
        "Start the whole site: embedded PostgreSQL and Redis (unless DATABASE_URL / REDIS_URL "
        "are set), migrations, the ASGI server (daphne, or uvicorn; one process per core behind "
        "haproxy when it is installed), a Celery worker and Celery beat. Ctrl-C stops all."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--host", default=None, help="address the site listens on (127.0.0.1; --lan: 0.0.0.0)"
        )
        parser.add_argument(
            "--lan",
            action="store_true",
            help=(
                "let phones on the same network play: listen on every address, answer this "
                "machine's network addresses, over plain HTTP; prints the address to open"
            ),
        )
        parser.add_argument(
            "--lan-address",
            action="append",
            metavar="ADDRESS",
            help=(
                "with --lan: the network address phones open, instead of those found (repeat "
                "for several); implies --lan"
            ),
        )
        parser.add_argument("--port", type=int, default=8000, help="port the site listens on")
        parser.add_argument(
            "--server",
            choices=ASGI_SERVERS,
            default=ASGI_SERVERS[0],
            help="the ASGI server: daphne (the default) or uvicorn (uvloop, httptools)",
        )
        parser.add_argument("--concurrency", type=int, default=2, help="Celery worker processes")
        parser.add_argument(
            "--processes",
            type=int,
            default=None,
            help=(
                "ASGI processes (default: one per core). More than one run behind haproxy, "
                "which serve starts, every socket of a table on one process; 1: no proxy"
            ),
        )
        parser.add_argument(
            "--tls-cert",
            metavar="PEM",
            help="with several processes: haproxy speaks HTTPS with this certificate and key",
        )
        parser.add_argument(
            "--print-proxy-config",
            action="store_true",
            help="print the haproxy configuration serve runs with these options, and exit",
        )
        parser.add_argument(
            "--backend",
            action="append",
            metavar="HOST:PORT",
            help=(
                "with --print-proxy-config: an ASGI process the proxy sends to, instead of "
                "serve's own (repeat for each; the multi-machine setup of the README)"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        def log(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        named = list(options["lan_address"] or [])
        lan = bool(options["lan"] or named)
        if lan and options["tls_cert"]:
            raise CommandError("--lan serves plain HTTP at home; --tls-cert is for a public site")
        if options["backend"] and not options["print_proxy_config"]:
            raise CommandError("--backend names the servers of --print-proxy-config only")
        haproxy = haproxy_binary()
        try:
            processes, notes = processes_to_run(
                options["processes"],
                bool(haproxy or options["print_proxy_config"]),
                os.cpu_count(),
            )
        except ServeRefused as refused:
            raise CommandError(str(refused)) from refused
        chosen = ServeOptions(
            host=options["host"] or (LAN_HOST if lan else "127.0.0.1"),
            lan=lan,
            lan_addresses=(named or lan_addresses()) if lan else [],
            port=options["port"],
            concurrency=options["concurrency"],
            server=options["server"],
            log=log,
            processes=processes,
            haproxy=haproxy,
            tls_cert=options["tls_cert"],
        )
        if options["print_proxy_config"]:
            self.print_proxy_config(chosen, options["backend"] or [])
            return
        if options["tls_cert"] and not chosen.proxied:
            raise CommandError("--tls-cert is haproxy's: it needs --processes 2 or more")
        for note in notes:
            log(note)
        code = serve(chosen)
        if code:
            raise SystemExit(code)

    def print_proxy_config(self, options: ServeOptions, backends: list[str]) -> None:
        """The configuration serve would write for the proxy, in front of ``backends``
        (``host:port``) or else its own ASGI processes (on ports free now: serve picks them
        again each time it starts)."""
        if not backends and not options.proxied:
            raise CommandError(
                "one ASGI process runs with no proxy: name --processes 2 or more, or --backend"
            )
        servers = backends or [f"{INTERNAL_HOST}:{port}" for port in asgi_ports(options).values()]
        self.stdout.write(haproxy_config(proxy_config(options, servers)), ending="")
