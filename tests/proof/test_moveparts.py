"""A move's time by part (games/movetrace.py, proof/load/moveparts.py): the marks a process
writes, and the parts the bench reads from them and from its clients' times."""

from __future__ import annotations

from pathlib import Path

import pytest

from games import movetrace
from proof.load.moveparts import format_parts, move_parts, read_marks


def test_marks_are_written_only_when_a_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(movetrace, "FOLDER", None)
    monkeypatch.setattr(movetrace, "_file", None)
    movetrace.mark("planned", 7, 12)
    assert movetrace._file is None
    monkeypatch.setattr(movetrace, "FOLDER", str(tmp_path))
    movetrace.mark("planned", 7, 12)
    movetrace.mark("sent", 7, 13)
    assert movetrace._file is not None
    movetrace._file.close()
    (written,) = tmp_path.glob("server-*.txt")
    lines = [line.split() for line in written.read_text().splitlines()]
    assert [line[:3] for line in lines] == [["planned", "7", "12"], ["sent", "7", "13"]]
    assert float(lines[0][3]) <= float(lines[1][3])


def test_parts_join_the_marks_with_the_clients_times(tmp_path: Path) -> None:
    """Two processes' marks of two moves (the second's frames written by both), a move with
    no marks (the locking path): each part is the time between its marks, in ms."""
    (tmp_path / "server-1.txt").write_text(
        "planned 5 10 100.002\nwritten 5 10 100.005\nviews 5 10 100.006\n"
        "sent 5 11 100.007\nsent 5 11 100.009\n"
        "planned 5 11 101.001\nwritten 5 11 101.003\nviews 5 11 101.004\nsent 5 12 101.010\n"
    )
    (tmp_path / "server-2.txt").write_text("sent 5 12 101.020\n")
    marks = read_marks(tmp_path)
    moves = [
        [5, 10, 100.0, 100.010],
        [5, 11, 101.0, 101.030],
        [5, 12, 102, 102.2],
    ]
    parts = move_parts(moves, marks)
    assert parts["moves"] == 2
    p99 = {name: figures["p99"] for name, figures in parts["parts_ms"].items()}
    assert p99 == {
        "in": 2.0,
        "statement": 3.0,
        "views": 1.0,
        "frames": 16.0,
        "to the last seat": 10.0,
        "whole": 30.0,
    }
    assert parts["slowest_1pct_mean_ms"]["whole"] == 30.0  # the slower of the two
    assert "2 moves traced" in format_parts(parts)
    assert move_parts(moves[2:], marks) == {"moves": 0}
