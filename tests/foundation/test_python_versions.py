"""The site installs on each Python it is tested on: pyproject.toml's requires-python accepts
3.11, 3.12 and 3.13, its classifiers name them, and mypy and ruff check the code as the oldest
reads it. CI runs this file by itself too (`python tests/foundation/test_python_versions.py`,
.ci/run), with nothing but the standard library and `packaging`."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
SUPPORTED = ("3.11", "3.12", "3.13")
OLDEST = SUPPORTED[0]


def pyproject() -> dict[str, Any]:
    with PYPROJECT.open("rb") as file:
        return tomllib.load(file)


def test_requires_python_accepts_each_supported_version_and_no_older() -> None:
    accepted = SpecifierSet(pyproject()["project"]["requires-python"])
    for version in SUPPORTED:
        assert Version(f"{version}.0") in accepted, version
        assert Version(f"{version}.99") in accepted, version
    assert Version("3.10.99") not in accepted


def test_classifiers_name_each_supported_version() -> None:
    classifiers = pyproject()["project"]["classifiers"]
    assert {c for c in classifiers if c.startswith("Programming Language :: Python :: 3.")} == {
        f"Programming Language :: Python :: {version}" for version in SUPPORTED
    }


def test_mypy_and_ruff_read_the_code_as_the_oldest_supported_python() -> None:
    tools = pyproject()["tool"]
    assert tools["mypy"]["python_version"] == OLDEST
    assert tools["ruff"]["target-version"] == "py" + OLDEST.replace(".", "")


if __name__ == "__main__":
    test_requires_python_accepts_each_supported_version_and_no_older()
    test_classifiers_name_each_supported_version()
    test_mypy_and_ruff_read_the_code_as_the_oldest_supported_python()
    requires = pyproject()["project"]["requires-python"]
    print(f"pyproject.toml: requires-python {requires!r} accepts Python {', '.join(SUPPORTED)}")
