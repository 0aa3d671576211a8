"""The Celery worker keeps its database connection from task to task (issue 19): Celery's
Django fixup closed it before and after every task, so each deadline task opened a new
PostgreSQL backend. With ``CELERY_DB_REUSE_MAX`` the fixup leaves it, and Django's own rule
(``close_old_connections`` around each task, as around a request) still closes one that is
too old or broken."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from celery.fixups.django import DjangoWorkerFixup
from django.conf import settings
from django.db import connection

from shengji_site.celery import app, close_old_database_connections

pytestmark = pytest.mark.django_db(transaction=True)  # autocommit, as in a worker


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    return int(pid)


def run_a_task(fixup: DjangoWorkerFixup) -> None:
    """What the worker does around one task: the fixup's hooks and ours."""
    task = SimpleNamespace(request=SimpleNamespace(is_eager=False))
    fixup.on_task_prerun(sender=task)
    close_old_database_connections()
    backend_pid()  # the task's queries
    fixup.on_task_postrun(sender=task)
    close_old_database_connections()


def test_the_setting_reaches_celerys_fixup() -> None:
    assert settings.CELERY_DB_REUSE_MAX >= 1000
    assert DjangoWorkerFixup(app).db_reuse_max == settings.CELERY_DB_REUSE_MAX


def test_a_persistent_connection_serves_task_after_task() -> None:
    fixup = DjangoWorkerFixup(app)
    first = backend_pid()
    connection.close_at = None  # as with CONN_MAX_AGE set (the tests run with 0)
    for _ in range(5):
        run_a_task(fixup)
    assert connection.connection is not None
    assert backend_pid() == first


def test_without_the_setting_celery_closed_it_every_time() -> None:
    """The regression: what the fixup does when ``CELERY_DB_REUSE_MAX`` is unset."""
    fixup = DjangoWorkerFixup(app)
    fixup.db_reuse_max = None
    backend_pid()
    connection.close_at = None
    task = SimpleNamespace(request=SimpleNamespace(is_eager=False))
    fixup.on_task_prerun(sender=task)
    assert connection.connection is None


def test_an_expired_connection_is_still_closed_between_tasks() -> None:
    fixup = DjangoWorkerFixup(app)
    first = backend_pid()
    connection.close_at = 0.0  # past CONN_MAX_AGE
    run_a_task(fixup)
    assert backend_pid() != first
