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


PROOF_PAGE_LINES = 300
LINK = re.compile(r"\]\(([^)\s]+)\)")
DOCUMENT_NAME = re.compile(r"(?<![\w./-])([\w./-]*\w\.md)\b")
CITATION = re.compile(r"([\w-]+\.md),? §(\d+)")


def joined(text: str) -> str:
    """The text with names broken at a hyphen across lines (`RULES-` / `SPEC.md`) made whole."""
    return re.sub(r"-\n[ >|#*/]*", "-", text)


def found(document: Path, path: str) -> bool:
    """A name is read from the document's folder (as Markdown reads a link), the repository's
    root, `docs/` or `docs/proof/` (documents name each other by their bare names)."""
    folders = (document.parent, ROOT, ROOT / "docs", ROOT / "docs" / "proof")
    return any((folder / path).exists() for folder in folders)


def test_every_proof_page_is_at_most_300_lines() -> None:
    long = {
        str(page.relative_to(ROOT)): lines
        for page in sorted((ROOT / "docs" / "proof").glob("*.md"))
        if (lines := len(page.read_text(encoding="utf-8").splitlines())) > PROOF_PAGE_LINES
    }
    assert long == {}


def test_every_relative_link_points_at_a_file_of_the_repository() -> None:
    broken = [
        f"{document.relative_to(ROOT)}: {target}"
        for document in documents()
        for target in LINK.findall(document.read_text(encoding="utf-8"))
        if not re.match(r"[a-z]+:|#", target)
        and not (document.parent / target.split("#")[0]).exists()
    ]
    assert broken == []


def test_every_document_a_document_names_exists() -> None:
    missing = [
        f"{document.relative_to(ROOT)}: {name}"
        for document in documents()
        for name in DOCUMENT_NAME.findall(joined(document.read_text(encoding="utf-8")))
        if not PLACEHOLDER.search(name) and not found(document, name)
    ]
    assert missing == []


CODE_FOLDERS = ("shengji", "games", "ladder", "accounts", "shengji_site", "proof", "bench", "tests")


def code_files() -> list[Path]:
    """The project's own code, its pages and scripts: they cite documents too (past migrations
    keep the words they were written with)."""
    files = [path for folder in CODE_FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))]
    files += sorted((ROOT / "static").rglob("*.js")) + sorted((ROOT / "templates").rglob("*.html"))
    return [path for path in files if "migrations" not in path.parts]


def test_a_section_cited_by_number_is_a_numbered_section_of_its_document() -> None:
    """`RULES-SPEC.md §4` names section 4 of a document whose sections are numbered; the
    players' `RULES.md` has none, so a section number after that name would send the reader to
    the wrong file.
    The code's comments and docstrings are held to the same."""
    wrong = []
    for document in [*documents(), *code_files()]:
        for name, number in CITATION.findall(joined(document.read_text(encoding="utf-8"))):
            cited = ROOT / "docs" / name
            if not cited.exists():
                continue  # a missing document: the test above
            headings = cited.read_text(encoding="utf-8")
            if not re.search(rf"^#+ {number}[. ]", headings, re.MULTILINE):
                wrong.append(f"{document.relative_to(ROOT)}: {name} §{number}")
    assert wrong == []
