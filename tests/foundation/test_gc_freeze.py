"""The ASGI application and each Celery pool process leave their start-up objects out of the
garbage collector's scans (``shengji_site/gcfreeze.py``): a full collection over them stopped
the event loop for 85–90 ms (docs/proof/LOAD.md, *Garbage collection*).
``SHENGJI_GC_FREEZE=0`` keeps them scanned."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.site  # starts the whole site's processes (README, "The fast lane")

ROOT = Path(__file__).resolve().parents[2]
PROBE = "import gc, shengji_site.asgi; print(gc.get_freeze_count())"
# What the interpreter has frozen by itself on start: 0 on 3.11.7 and 3.13.0, 375 on 3.12.1.
BARE_PROBE = "import gc; print(gc.get_freeze_count())"
# What the worker's pool process runs once forked (celery's worker_process_init).
WORKER_PROBE = (
    "import gc, django; django.setup()\n"
    "from celery.signals import worker_process_init\n"
    "from shengji_site.celery import app\n"
    "worker_process_init.send(sender=None)\n"
    "print(gc.get_freeze_count())\n"
)


def _frozen_after_import(freeze: str | None, probe: str = PROBE) -> int:
    env = {k: v for k, v in os.environ.items() if k != "SHENGJI_GC_FREEZE"}
    if freeze is not None:
        env["SHENGJI_GC_FREEZE"] = freeze
    env["DJANGO_SETTINGS_MODULE"] = "shengji_site.settings"
    command = [sys.executable, "-c", probe]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


@pytest.mark.parametrize("freeze", [None, "1"])
def test_the_start_up_objects_are_frozen_by_default(freeze: str | None) -> None:
    # Django, the site's modules, every URL pattern's view
    assert _frozen_after_import(freeze) > _frozen_after_import(None, BARE_PROBE) + 50_000


def test_the_setting_keeps_them_scanned() -> None:
    assert _frozen_after_import("0") == _frozen_after_import(None, BARE_PROBE)


def test_a_worker_pool_process_freezes_its_start_up_objects() -> None:
    bare = _frozen_after_import(None, BARE_PROBE)
    assert _frozen_after_import(None, WORKER_PROBE) > bare + 50_000
    assert _frozen_after_import("0", WORKER_PROBE) == bare
