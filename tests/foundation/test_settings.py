"""Settings come from the environment; production settings pass `check --deploy`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REAL_SECRET = "k" * 10 + "Zq8-xP2_vL9mN4bR7tY1uW3eA6sD5fG0hJ-cV8bN2mQ4wE7rT1yU3iO6pA9sD"

PRINT_SETTINGS = (
    "import json; from django.conf import settings as s; print(json.dumps({"
    "'debug': s.DEBUG, 'hosts': s.ALLOWED_HOSTS, 'csrf': s.CSRF_TRUSTED_ORIGINS, "
    "'db': {k: s.DATABASES['default'][k] for k in ('HOST', 'PORT', 'NAME', 'USER')}, "
    "'redis': s.REDIS_URL, 'broker': s.CELERY_BROKER_URL, "
    "'layer': s.CHANNEL_LAYERS['default']['CONFIG']['hosts'], 'secret': s.SECRET_KEY, "
    "'ssl': s.SECURE_SSL_REDIRECT}))"
)


def run_manage(env_overrides: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG"}}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_with(env: dict[str, str]) -> dict[str, object]:
    done = run_manage(env, "shell", "-c", PRINT_SETTINGS)
    assert done.returncode == 0, done.stderr
    printed: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return printed


def test_check_deploy_is_clean_with_debug_off_and_a_real_secret(tmp_path: Path) -> None:
    done = run_manage(
        {"DEBUG": "0", "SECRET_KEY": REAL_SECRET, "SHENGJI_VAR_DIR": str(tmp_path)},
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout + done.stderr


def test_settings_are_read_from_the_environment(tmp_path: Path) -> None:
    values = settings_with(
        {
            "SHENGJI_VAR_DIR": str(tmp_path),
            "DEBUG": "1",
            "SECRET_KEY": REAL_SECRET,
            "DATABASE_URL": "postgres://alice:pw@db.internal:6543/shengji_prod",
            "REDIS_URL": "redis://cache.internal:6380/3",
            "ALLOWED_HOSTS": "shengji.example, www.shengji.example",
            "CSRF_TRUSTED_ORIGINS": "https://shengji.example",
            "SHENGJI_CHANNELS_POOL": "48",
        }
    )
    assert values["debug"] is True
    assert values["hosts"] == ["shengji.example", "www.shengji.example"]
    assert values["csrf"] == ["https://shengji.example"]
    assert values["db"] == {
        "HOST": "db.internal",
        "PORT": 6543,
        "NAME": "shengji_prod",
        "USER": "alice",
    }
    assert values["redis"] == values["broker"] == "redis://cache.internal:6380/3"
    assert values["layer"] == [
        {"address": "redis://cache.internal:6380/3", "socket_timeout": 30, "max_connections": 48}
    ]
    assert values["secret"] == REAL_SECRET
    assert values["ssl"] is False


def test_without_urls_the_embedded_servers_are_used(tmp_path: Path) -> None:
    values = settings_with(
        {
            "SHENGJI_VAR_DIR": str(tmp_path),
            "EMBEDDED_PG_PORT": "5611",
            "EMBEDDED_REDIS_PORT": "6611",
        }
    )
    assert values["db"]["HOST"] == "127.0.0.1"  # type: ignore[index]
    assert values["db"]["PORT"] == 5611  # type: ignore[index]
    assert values["redis"] == "redis://127.0.0.1:6611/0"
    assert values["debug"] is False
    assert values["ssl"] is True


def test_without_secret_key_a_random_one_is_kept_under_var(tmp_path: Path) -> None:
    first = settings_with({"SHENGJI_VAR_DIR": str(tmp_path)})["secret"]
    second = settings_with({"SHENGJI_VAR_DIR": str(tmp_path)})["secret"]
    other = settings_with({"SHENGJI_VAR_DIR": str(tmp_path / "elsewhere")})["secret"]
    assert first == second != other
    assert len(str(first)) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
