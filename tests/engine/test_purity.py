"""The engine is pure Python: standard library only, no Django."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"


def test_importing_the_engine_loads_no_django() -> None:
    code = (
        "import sys, shengji.engine; "
        "bad = [m for m in ('django', 'channels', 'celery') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ENGINE.parents[1],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_engine_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"games"}
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots = [node.module.split(".")[0]]
            else:
                continue
            assert set(roots) <= allowed, f"{path.name} imports {roots}"


def _engine_imports() -> dict[str, set[str]]:
    """Engine module → the engine modules it imports, counting every import statement: top
    level, under ``if TYPE_CHECKING:`` and inside functions."""
    modules = {p.stem: p for p in ENGINE.glob("*.py") if p.stem != "__init__"}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name.removeprefix("shengji.engine.") for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.removeprefix("shengji.engine."))
                if node.module == "shengji.engine":  # the package: everything, or a submodule
                    found |= {a.name for a in node.names} | {"__init__"}
        edges[name] = (found & (set(modules) | {"__init__"})) - {name}
    return edges


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        current = todo.pop()
        if current == goal:
            return True
        if current not in seen and current != "__init__":
            seen.add(current)
            todo += edges[current]
    return False


def test_the_engine_has_no_import_cycle() -> None:
    # A module that imports another must not be imported back, even under TYPE_CHECKING or
    # inside a function (hand.py once imported views.py in its methods; trump.py lead.py).
    edges = _engine_imports()
    assert all("__init__" not in found for found in edges.values()), "the package is imported"
    cycles = [(a, b) for a, found in edges.items() for b in found if _reaches(edges, b, a)]
    assert cycles == []
