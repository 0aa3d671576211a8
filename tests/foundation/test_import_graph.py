"""The project's own modules import one another without a circle.

The graph is read from the source with ``ast``, so every import counts wherever it is written:
at module level, under ``if TYPE_CHECKING:``, or inside a function (a function-local import is
no way around a circle). ``from games import services`` is an edge to ``games.services`` when
that is a module; ``from shengji.engine import HandState`` an edge to ``shengji.engine``.
Importing a submodule is not counted as importing its package's ``__init__`` (a package's face
may import its own modules). Migrations are left out.
"""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("shengji", "games", "ladder", "accounts", "shengji_site", "proof")

Edges = dict[str, dict[str, str]]  # module -> {imported module: "path:line" of the import}


def project_modules() -> dict[str, Path]:
    """Dotted name → source file, for every module of the project's own packages."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        if not (ROOT / package / "__init__.py").is_file():
            continue
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _known_prefix(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` names, or the nearest package of it that is one of ours."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _base_of(node: ast.ImportFrom, module: str, path: Path) -> str:
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> dict[str, str]:
    """The project modules ``module`` imports, each with where (the first import of it)."""
    targets: dict[str, str] = {}

    def add(name: str, line: int) -> None:
        target = _known_prefix(name, modules)
        if target is not None and target != module:
            targets.setdefault(target, f"{path.relative_to(ROOT)}:{line}")

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _base_of(node, module, path)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in modules else base, node.lineno)
    return targets


def import_graph() -> Edges:
    modules = project_modules()
    return {module: imports_of(module, path, modules) for module, path in modules.items()}


def knots(edges: Edges) -> list[list[str]]:
    """The groups of modules that import one another round a circle, each sorted: the
    strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, {})):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def find_cycles(edges: Edges) -> list[list[str]]:
    """One cycle for each knot: its modules in order, the first repeated at the end."""
    return [_cycle_through(knot, edges) for knot in knots(edges)]


def _cycle_through(component: list[str], edges: Edges) -> list[str]:
    """A shortest way from the component's first module back to itself, inside the component."""
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(edges[node]):
                if target not in members or target in came_from:
                    continue
                came_from[target] = node
                if target == start:
                    path = [start]
                    while path[-1] != start or len(path) == 1:
                        path.append(came_from[path[-1]])
                    return path[::-1]
                following.append(target)
        frontier = following
    raise AssertionError(f"no cycle through {component}")


def describe(knot: list[str], edges: Edges) -> str:
    cycle = _cycle_through(knot, edges)
    steps = [f"  {a} -> {b}  ({edges[a][b]})" for a, b in pairwise(cycle)]
    others = sorted(set(knot) - set(cycle))
    more = [f"  and in the same knot: {', '.join(others)}"] if others else []
    return "\n".join([" -> ".join(cycle), *steps, *more])


def test_the_graph_is_read() -> None:
    """The reading itself: a package import, a module imported by name from its package, a
    function-local import and a relative one are all edges."""
    edges = import_graph()
    assert "games.services" in edges["games.tasks"]  # from games import services
    assert "games.models" in edges["games.handstate"]  # from games.models import Action, Hand
    assert "shengji_site.celery" in edges["shengji_site.health"]  # inside a function
    assert "shengji_site.celery" in edges["shengji_site"]  # from .celery import app
    assert all("migrations" not in module for module in edges)


def test_a_made_up_circle_is_found() -> None:
    edges: Edges = {"a": {"b": "a.py:1"}, "b": {"c": "b.py:1"}, "c": {"a": "c.py:1"}, "d": {}}
    assert find_cycles(edges) == [["a", "b", "c", "a"]]


def test_no_module_of_ours_imports_itself_in_a_circle() -> None:
    edges = import_graph()
    found = knots(edges)
    report = "\n\n".join(describe(knot, edges) for knot in found)
    print(report)
    assert not found, f"import cycles:\n{report}"
