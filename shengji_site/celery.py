import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shengji_site.settings")

app = Celery("shengji_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def close_old_database_connections(**_: Any) -> None:
    """Around each task what Django does around each request: a connection past CONN_MAX_AGE,
    broken, or left in a transaction is closed; a healthy one is kept for the next task
    (``CELERY_DB_REUSE_MAX`` stops Celery's fixup from closing it every time)."""
    from django.db import close_old_connections

    close_old_connections()


task_prerun.connect(close_old_database_connections, weak=False)
task_postrun.connect(close_old_database_connections, weak=False)


def freeze_start_up_objects(**_: Any) -> None:
    """Each pool process, once forked with the tasks loaded: shengji_site/gcfreeze.py."""
    from shengji_site.gcfreeze import freeze_start_up_objects

    freeze_start_up_objects()


worker_process_init.connect(freeze_start_up_objects, weak=False)
