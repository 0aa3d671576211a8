"""The proof kit (``proof/``: live sites, clients, drills, fuzzer, leak checker, the pytest
plugin) is a repository-level tool for tests/ and bench/, not part of the deployed site: the
site never imports it and the package list of pyproject.toml leaves it out."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from setuptools import (  # type: ignore[import-untyped, unused-ignore]
    find_namespace_packages,
    find_packages,
)

ROOT = Path(__file__).resolve().parents[2]
SITE_PACKAGES = ("shengji_site", "games", "ladder", "accounts")

# Each stage imports more of the site, as the processes of `manage.py serve` do; after each,
# the names of the loaded modules that are the kit's.
PROBE = """
import json, sys

def kit():
    return sorted(m for m in sys.modules if m == "proof" or m.startswith("proof."))

loaded = {}
import shengji_site.settings
loaded["settings"] = kit()
import django
django.setup()
loaded["django.setup()"] = kit()
import shengji_site.asgi
loaded["asgi"] = kit()
import shengji_site.urls
loaded["urls"] = kit()
import shengji_site.celery
loaded["celery"] = kit()
import shengji_site.wsgi
loaded["wsgi"] = kit()
print(json.dumps(loaded))
"""


def test_the_site_loads_without_the_kit() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "shengji_site.settings"}
    # The kit is importable from here (the working directory is the root): not imported.
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(loaded) == ["settings", "django.setup()", "asgi", "urls", "celery", "wsgi"]
    assert loaded == {stage: [] for stage in loaded}


def _imported_names(tree: ast.AST) -> list[tuple[str, int]]:
    names: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append((node.module, node.lineno))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # a dotted path given to importlib, a setting or a command line
            text = node.value.split(":")[0]
            if all(part.isidentifier() for part in text.split(".")):
                names.append((text, node.lineno))
    return names


def test_no_site_module_names_the_kit() -> None:
    found = []
    for package in SITE_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for name, line in _imported_names(tree):
                if name == "proof" or name.startswith("proof."):
                    found.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert found == []


def _tool_config() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        config: dict[str, Any] = tomllib.load(file)["tool"]
    return config


def test_the_deployed_packages_leave_the_kit_out() -> None:
    find = _tool_config()["setuptools"]["packages"]["find"]
    finder = find_namespace_packages if find.get("namespaces", True) else find_packages
    packages = finder(
        str(ROOT), include=find.get("include", ("*",)), exclude=find.get("exclude", ())
    )
    assert {"shengji_site", "games", "ladder", "accounts"} <= set(packages)
    assert [p for p in packages if p == "proof" or p.startswith("proof.")] == []
    assert [p for p in packages if p.split(".")[0] in ("tests", "bench")] == []


def test_pytest_loads_the_plugin_from_the_kit() -> None:
    addopts = _tool_config()["pytest"]["ini_options"]["addopts"].split()
    assert addopts[addopts.index("-p") + 1] == "proof.plugin"
    assert not (ROOT / "shengji_site" / "testing").exists()
