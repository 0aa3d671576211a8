"""The project's documents stand alone and agree with the tree: every file they name exists,
and none sends the reader outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP_FOLDERS = (
    *("games/", "ladder/", "accounts/", "shengji_site/", "proof/", "bench/", "tests/"),
    *("docs/", "templates/", "static/", "locale/", ".ci/"),
)
PLACEHOLDER = re.compile(r"[<>*…{}$]")
CODE = re.compile(r"`([^`\s]+)`")
OUTSIDE = re.compile(r"(?<![\w./])\.\./|\bshared/(RULES|ARCHITECTURE|STYLE)\.md|\bseeds/")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def named_paths(text: str) -> list[str]:
    """The repository paths a document names in code spans (`shengji/engine/rules.py`,
    `tests/engine/test_throw.py::test_x`), placeholders like `/ws/table/<id>/` left out."""
    paths = []
    for match in CODE.finditer(text):
        token = match.group(1).split("::")[0].rstrip(",.;:")
        if token.startswith(TOP_FOLDERS) and not PLACEHOLDER.search(token):
            paths.append(token.split(":")[0])
    return paths


def exists(document: Path, path: str) -> bool:
    """Paths are read from the repository's root, or from the document's own folder."""
    return (ROOT / path).exists() or (document.parent / path).exists()


def test_every_file_a_document_names_exists() -> None:
    missing = [
        f"{document.relative_to(ROOT)}: {path}"
        for document in documents()
        for path in named_paths(document.read_text(encoding="utf-8"))
        if not exists(document, path)
    ]
    assert missing == []


def test_no_document_points_outside_the_repository() -> None:
    outside = [
        f"{document.relative_to(ROOT)}:{number}: {line.strip()}"
        for document in documents()
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert outside == []


def test_the_documents_index_lists_every_document() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    unlisted = [
        str(path.relative_to(ROOT / "docs"))
        for path in sorted((ROOT / "docs").rglob("*.md"))
        if path.name != "README.md" and f"`{path.relative_to(ROOT / 'docs')}`" not in index
    ]
    assert unlisted == []
