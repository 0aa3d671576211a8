"""A move's time by part (games/movetrace.py, proof/load/moveparts.py): the marks a process
writes, and the parts the bench reads from them and from its clients' times."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from bench.bench_ws_load import TracedSite
from games import movetrace
from proof.load.moveparts import (
    FOLDER_ENV,
    TRACED_APPLICATION,
    format_parts,
    marks_written_to,
    move_parts,
    read_marks,
)
from shengji_site.launcher import ASGI_APPLICATION


def test_the_site_marks_nothing_unless_the_bench_asks(tmp_path: Path) -> None:
    assert movetrace.mark is movetrace._unmarked
    movetrace.mark("planned", 7, 12)
    assert list(tmp_path.iterdir()) == []


def test_marks_are_written_to_a_file_of_the_process(tmp_path: Path) -> None:
    mark = marks_written_to(tmp_path)
    assert list(tmp_path.iterdir()) == []  # opened at the first mark
    mark("planned", 7, 12)
    mark("sent", 7, 13)
    (written,) = tmp_path.glob("server-*.txt")
    lines = [line.split() for line in written.read_text().splitlines()]
    assert [line[:3] for line in lines] == [["planned", "7", "12"], ["sent", "7", "13"]]
    assert float(lines[0][3]) <= float(lines[1][3])


def test_the_traced_application_writes_the_sites_marks_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FOLDER_ENV, str(tmp_path))
    monkeypatch.setattr(movetrace, "mark", movetrace._unmarked)  # put back after the test
    monkeypatch.delitem(sys.modules, "proof.load.traced_asgi", raising=False)
    traced = importlib.import_module("proof.load.traced_asgi")
    from shengji_site.asgi import application

    assert traced.application is application
    assert TRACED_APPLICATION == "proof.load.traced_asgi:application"
    movetrace.mark("views", 3, 4)
    (written,) = tmp_path.glob("server-*.txt")
    assert written.read_text().split()[:3] == ["views", "3", "4"]


def test_a_traced_site_serves_the_traced_application_from_its_asgi_processes(
    tmp_path: Path,
) -> None:
    site = TracedSite(tmp_path, env={FOLDER_ENV: str(tmp_path)})
    command = site._command(site.asgi_name(0))
    assert TRACED_APPLICATION in command and ASGI_APPLICATION not in command
    assert TRACED_APPLICATION not in site._command("worker")


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
