"""Stored records replay byte for byte (proof/records.py): hands of every preset and table
shape, recorded by the engine as it was inside the games app, replay with this engine to the
same views for every seat and the public at every step, and the same result."""

from __future__ import annotations

from pathlib import Path

from proof.records import check

RECORDS = Path(__file__).parent / "data" / "records.jsonl"


def test_the_stored_records_replay_to_the_same_views_and_results() -> None:
    assert check(str(RECORDS)) == 0


def test_a_changed_view_is_found(tmp_path: Path) -> None:
    lines = RECORDS.read_text(encoding="utf-8").splitlines()
    changed = lines[0].replace('"digest": "', '"digest": "0', 1)
    bent = tmp_path / "records.jsonl"
    bent.write_text("\n".join([changed, *lines[1:]]) + "\n", encoding="utf-8")
    assert check(str(bent)) == 1
