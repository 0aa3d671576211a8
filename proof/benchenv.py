"""The servers and settings of a bench that runs the site in its own process (bench/).

With DATABASE_URL a bench works in a database of its own on that server, ``<name>_<suffix>``
(created empty, dropped afterwards unless kept); without it, in an embedded PostgreSQL in a
temporary folder. With REDIS_URL it uses that Redis (under names of its own: see
``configure_django``), else an embedded Redis. The site's own data and var/ are never touched.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse, urlunparse

from shengji_site.embedded import EmbeddedPostgres, EmbeddedRedis, free_port


def start_database(tmp: Path, suffix: str) -> tuple[str, Callable[[], None]]:
    """The URL of an empty database for the run, and how to get rid of it."""
    configured = os.environ.get("DATABASE_URL")
    if not configured:
        server = EmbeddedPostgres(tmp / "postgres", free_port(), suffix)
        server.start()
        return server.url, server.stop
    import psycopg

    parts = urlparse(configured)
    name = f"{parts.path.lstrip('/') or 'shengji'}_{suffix}"
    admin_url = urlunparse(parts._replace(path="/postgres"))

    def drop() -> None:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    drop()  # a run that was interrupted may have left it
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunparse(parts._replace(path=f"/{name}")), drop


def start_redis(tmp: Path) -> tuple[str, Callable[[], None]]:
    """REDIS_URL, or an embedded Redis's URL; and how to stop what was started."""
    configured = os.environ.get("REDIS_URL")
    if configured:
        return configured, lambda: None
    server = EmbeddedRedis(tmp / "redis", free_port(), False)
    server.start()
    return server.url, server.stop


def configure_django(
    database_url: str, tmp: Path, *, redis_url: str | None = None, tag: str = "", **settings: str
) -> None:
    """Settings for this process, then ``django.setup()``. With ``redis_url``, ``tag`` names
    the run's channel layer prefix (also the rate limits') and its Celery queue: a shared Redis
    may hold other runs' messages. ``settings`` are more environment settings (e.g. timings)."""
    os.environ.update(
        DATABASE_URL=database_url,
        SHENGJI_VAR_DIR=str(tmp / "var"),
        DJANGO_SETTINGS_MODULE="shengji_site.settings",
        **settings,
    )
    if redis_url is not None:
        os.environ.update(REDIS_URL=redis_url, CHANNELS_PREFIX=tag, CELERY_QUEUE=tag)
    (tmp / "var" / "static").mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-" + "x" * 40)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
