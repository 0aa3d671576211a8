"""A move's time by part (proof/load/traced_asgi.py, proof/load/moveparts.py): the marks a process
writes, and the parts the bench reads from them and from its clients' times."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from bench.bench_ws_load import TracedSite
from proof.load.moveparts import (
    FOLDER_ENV,
    TRACED_APPLICATION,
    format_parts,
    marks_written_to,
    move_parts,
    read_marks,
)
from shengji_site.launcher import ASGI_APPLICATION


def test_marks_are_written_to_a_file_of_the_process(tmp_path: Path) -> None:
    mark = marks_written_to(tmp_path)
    assert list(tmp_path.iterdir()) == []  # opened at the first mark
    mark("planned", 7, 12)
    mark("sent", 7, 13)
    (written,) = tmp_path.glob("server-*.txt")
    lines = [line.split() for line in written.read_text().splitlines()]
    assert [line[:3] for line in lines] == [["planned", "7", "12"], ["sent", "7", "13"]]
    assert float(lines[0][3]) <= float(lines[1][3])


def test_the_site_holds_no_tracing_of_its_own() -> None:
    """The bench wraps the site's functions from outside (proof/load/traced_asgi.py)."""
    site = Path(__file__).resolve().parents[2]
    for folder in ("games", "ladder", "accounts", "shengji_site"):
        for module in (site / folder).rglob("*.py"):
            assert "movetrace" not in module.read_text(encoding="utf-8"), module


def test_the_traced_application_marks_each_point_of_a_moves_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The four wrapped points mark what the site's own hooks marked: ``planned`` and
    ``written`` with the move's seq, ``views`` with the seq before the group's message, ``sent``
    with the view's own seq once the frame is written, and nothing for a move that was not
    planned or not written."""
    from games import realtime
    from games.consumers import TableConsumer
    from games.feed import WAIT, SendView
    from games.services import optimistic

    for name in ("plan", "_write"):
        monkeypatch.setattr(optimistic, name, getattr(optimistic, name))  # put back after
    monkeypatch.setattr(realtime, "hand_changed_async", realtime.hand_changed_async)
    monkeypatch.setattr(TableConsumer, "_carry_out", TableConsumer._carry_out)
    monkeypatch.setenv(FOLDER_ENV, str(tmp_path))
    monkeypatch.delitem(sys.modules, "proof.load.traced_asgi", raising=False)
    traced = importlib.import_module("proof.load.traced_asgi")
    from shengji_site.asgi import application

    assert traced.application is application
    assert TRACED_APPLICATION == "proof.load.traced_asgi:application"
    marks: list[tuple[str, int, int]] = []
    monkeypatch.setattr(optimistic, "plan", lambda facts, mover, kind, cards, seq: "planned")
    monkeypatch.setattr(optimistic, "_write", _answering("written"))
    monkeypatch.setattr(realtime, "hand_changed_async", _answering(None))
    monkeypatch.setattr(TableConsumer, "_carry_out", _carrying_out)
    traced.trace_moves(lambda kind, hand, seq: marks.append((kind, hand, seq)))
    facts = SimpleNamespace(hand_id=7, seq=12)
    moves: Any = optimistic  # called with stand-ins for its arguments
    assert moves.plan(facts, None, "play", "AS", 12) == "planned"
    assert asyncio.run(moves._write(SimpleNamespace(facts=facts), None, 3)) == "written"
    asyncio.run(realtime.hand_changed_async(3, {"hand": 7, "seq": 13}))
    frame = SendView({"hand": 7, "seq": 13}, "{}")
    asyncio.run(TableConsumer._carry_out(cast(TableConsumer, None), iter([frame, WAIT])))
    assert marks == [("planned", 7, 12), ("written", 7, 12), ("views", 7, 12), ("sent", 7, 13)]
    monkeypatch.setattr(optimistic, "plan", lambda facts, mover, kind, cards, seq: None)
    monkeypatch.setattr(optimistic, "_write", _answering(None))
    traced.trace_moves(lambda kind, hand, seq: marks.append((kind, hand, seq)))
    assert moves.plan(facts, None, "play", "AS", 12) is None
    assert asyncio.run(moves._write(SimpleNamespace(facts=facts), None, 3)) is None
    assert len(marks) == 4


def _answering(answer: object) -> Any:
    async def answers(*args: object) -> object:
        return answer

    return answers


async def _carrying_out(consumer: object, steps: Iterator[object]) -> None:
    for _ in steps:
        await asyncio.sleep(0)


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
