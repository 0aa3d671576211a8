"""Browser tests: Playwright driving Debian's Chromium against the real site.

pytest-django's ``live_server`` speaks WSGI only, so the site runs here as it runs in production:
a daphne process (HTTP and the table sockets) against this test run's database and Redis,
and a Celery worker (the ``celery_worker`` fixture: threads in this process) for the deadlines,
the deal and the bots. Screenshots are kept under ``artifacts/browser/`` (gitignored) and listed
at the end of the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from shengji_site.embedded import free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(settings.BASE_DIR) / "artifacts" / "browser"
BOT_DELAY_MS = 120
SCREENSHOTS: list[Path] = []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Browser tests start the site and Chromium (the ``site`` marker); skipped without it."""
    skip = pytest.mark.skip(reason="no /usr/bin/chromium (apt-get install chromium)")
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.site)
            if not CHROMIUM.exists():
                item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SCREENSHOTS:
        terminalreporter.write_sep("-", "browser screenshots")
        for path in SCREENSHOTS:
            terminalreporter.write_line(str(path))


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    SCREENSHOTS.append(path)
    print(f"screenshot: {path}")
    return path


def assert_fits_across(page: Any) -> None:
    """Nothing reaches past the screen's right edge (the page scrolls only down)."""
    wider = page.evaluate(
        """() => [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1
            || (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible'
                && e.clientWidth > 0))
          .map((e) => `${e.tagName}.${e.className}#${e.id} ${e.scrollWidth}/${e.clientWidth}`
            + ` right ${Math.round(e.getBoundingClientRect().right)}`)
          .slice(0, 40)"""
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate(
        "window.innerWidth"
    ), "; ".join(wider)


def _database_url() -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def _wait_for_http(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited: see {log}")
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return  # it answers (503 while no worker is up yet is fine)
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"daphne did not answer at {url}: see {log}")


@pytest.fixture(scope="session")
def site_server(django_db_setup: None, redis_url: str) -> Iterator[str]:
    """daphne serving the site against the test database; its base URL."""
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / "daphne.log"
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": redis_url,
        # DEBUG only so that static files are served from the source folders (no collectstatic);
        # HTTPS off: the browser talks plain HTTP to 127.0.0.1.
        "DEBUG": "1",
        # A folder of its own: files a `serve` collected into var/static would shadow the sources.
        "SHENGJI_VAR_DIR": tempfile.mkdtemp(prefix="shengji-browser-var-"),
        "HTTPS": "0",
        "SHENGJI_BOT_DELAY_MS": str(BOT_DELAY_MS),
        "LOG_LEVEL": "WARNING",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "shengji_site.asgi:application",
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_for_http(f"http://127.0.0.1:{port}/healthz", process, log)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def site(
    site_server: str,
    transactional_db: None,
    sites_database_work_ended: None,
    celery_worker: object,
    settings: Any,
) -> str:
    """The running site with a Celery worker; bots move quickly (the worker reads this)."""
    settings.SHENGJI_BOT_DELAY_MS = BOT_DELAY_MS
    return site_server


_OTHERS_BUSY = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
    " AND pid <> pg_backend_pid() AND state <> 'idle'"  # an idle connection holds no lock
)


@pytest.fixture
def sites_database_work_ended(transactional_db: None) -> Iterator[None]:
    """The test is over, but the site's daphne (it serves the whole module) may still be in a
    transaction for a socket the test's page left, or start one as that socket's disconnect
    arrives: the database's flush after the test (TRUNCATE of every table) can deadlock with
    it. Once the test's Celery worker has stopped, this waits for the other connections to the
    test database to fall quiet, ends any still in a transaction, and empties the tables itself,
    again if a late transaction made the flush a deadlock's victim; pytest-django's own flush
    that follows then finds nothing to wait for."""
    yield
    from django.core.management import call_command
    from django.core.management.base import CommandError
    from django.db import connection

    for attempt in range(3):
        with connection.cursor() as cursor:
            _wait_for_other_connections_idle(cursor)
            cursor.execute(f"SELECT pg_terminate_backend(pid) FROM ({_OTHERS_BUSY}) AS busy")
        try:
            call_command("flush", verbosity=0, interactive=False, reset_sequences=False)
            return
        except CommandError:
            if attempt == 2:
                raise


def _wait_for_other_connections_idle(
    cursor: Any, quiet_s: float = 0.3, limit_s: float = 5.0
) -> None:
    """Until no other connection has been in a transaction for ``quiet_s`` (at most ``limit_s``)."""
    deadline = time.monotonic() + limit_s
    quiet_since: float | None = None
    while time.monotonic() < deadline:
        cursor.execute(_OTHERS_BUSY)
        now = time.monotonic()
        if cursor.fetchall():
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= quiet_s:
            return
        time.sleep(0.05)


@pytest.fixture(scope="module", autouse=True)
def sync_orm_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an event loop in this thread, so Django takes the tests'
    (synchronous) ORM calls, and the database flush after each, for async code; they are not:
    allow them while this module runs, and only then."""
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if before is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One Chromium per module: its event loop must be gone before other tests use the ORM."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
