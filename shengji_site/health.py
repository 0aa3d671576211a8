"""Reachability of the services the site depends on, for /healthz."""

from __future__ import annotations

from typing import Any

import redis
from django.conf import settings
from django.db import connection

CELERY_PING_TIMEOUT_SECONDS = 1.0


def database_reachable() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            row: object = cursor.fetchone()
            return row == (1,)
    except Exception:
        return False


def redis_reachable() -> bool:
    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1
        )
        return bool(client.ping())
    except redis.RedisError:
        return False


def celery_workers() -> list[str]:
    from shengji_site.celery import app

    try:
        replies = app.control.ping(timeout=CELERY_PING_TIMEOUT_SECONDS) or []
    except Exception:
        return []
    return sorted(name for reply in replies for name in reply)


def health_report() -> dict[str, Any]:
    database = database_reachable()
    redis_ok = redis_reachable()
    workers = celery_workers() if redis_ok else []
    return {
        "ok": database and redis_ok and bool(workers),
        "database": database,
        "redis": redis_ok,
        "celery": bool(workers),
        "celery_workers": workers,
    }
