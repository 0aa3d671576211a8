"""The bots are pure Python like the engine: standard library and shengji.engine only."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

BOTS = Path(__file__).resolve().parents[2] / "games" / "bots"


def test_importing_the_bots_loads_no_django() -> None:
    code = (
        "import sys, shengji.bots, shengji.bots.match, shengji.bots.legality; "
        "bad = [m for m in ('django', 'channels', 'celery') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=BOTS.parents[1], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_bots_import_only_the_standard_library_and_the_engine() -> None:
    allowed = set(sys.stdlib_module_names) | {"games"}
    for path in BOTS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
                if name.startswith("games"):
                    assert name.startswith(("shengji.engine", "shengji.bots")), name


def test_no_global_random_generator() -> None:
    for path in BOTS.glob("*.py"):
        text = path.read_text()
        for call in ("random.random(", "random.choice(", "random.shuffle(", "random.seed("):
            assert call not in text, f"{path.name} uses the global generator: {call}"
