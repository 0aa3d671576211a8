from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from shengji_site.launcher import ASGI_SERVERS, ServeOptions, lan_addresses, serve

LAN_HOST = "0.0.0.0"


class Command(BaseCommand):
    help = (
        "Start the whole site: embedded PostgreSQL and Redis (unless DATABASE_URL / REDIS_URL "
        "are set), migrations, the ASGI server (daphne, or uvicorn), a Celery worker and Celery "
        "beat. Ctrl-C stops all."
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

    def handle(self, *args: Any, **options: Any) -> None:
        def log(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        named = list(options["lan_address"] or [])
        lan = bool(options["lan"] or named)
        code = serve(
            ServeOptions(
                host=options["host"] or (LAN_HOST if lan else "127.0.0.1"),
                lan=lan,
                lan_addresses=(named or lan_addresses()) if lan else [],
                port=options["port"],
                concurrency=options["concurrency"],
                server=options["server"],
                log=log,
            )
        )
        if code:
            raise SystemExit(code)
