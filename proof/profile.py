"""A sampling profile of a server process under load, summed by layer (issue 19).

``Profiler(pid).start()`` runs ``py-spy record --gil`` on the process (only samples that hold
the interpreter lock: where its CPU goes); ``stop()`` ends it and returns the layers' shares.
A sample counts for the layer of the deepest frame that belongs to one (the leaf first), so a
psycopg call made by the ORM made by our service counts as the database driver's.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

# (layer, what a frame's file path holds), tried in this order for each frame, leaf first.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rules engine and bots", ("shengji/engine/", "shengji/bots/")),
    ("database driver (psycopg)", ("psycopg/", "psycopg_binary", "psycopg_pool/")),
    ("Django ORM", ("django/db/",)),
    ("channel layer (channels-redis, redis)", ("channels_redis/", "/redis/", "hiredis", "msgpack")),
    ("JSON", ("/json/", "orjson")),
    (
        "HTTP and WebSocket server (daphne: twisted, autobahn; uvicorn: uvloop, httptools, "
        "websockets)",
        ("twisted/", "autobahn/", "daphne/", "uvicorn/", "uvloop/", "httptools/", "websockets/"),
    ),
    ("thread hops (asgiref, futures)", ("asgiref/", "concurrent/futures/", "threading.py")),
    ("asyncio loop", ("asyncio/", "selectors.py")),
    ("Channels", ("channels/",)),
    ("the site's own code", ("games/", "ladder/", "accounts/", "shengji_site/")),
    ("Django (other)", ("django/",)),
)
OTHER = "other"


def layer_of(stack: str) -> str:
    """The layer of one collapsed stack (``frame;frame;…``, root first, as py-spy writes)."""
    for frame in reversed(stack.split(";")):
        for layer, marks in LAYERS:
            if any(mark in frame for mark in marks):
                return layer
    return OTHER


def summarize(lines: Iterable[str]) -> dict[str, float]:
    """Each layer's share (%) of the samples in py-spy's raw (collapsed) output."""
    counts: Counter[str] = Counter()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if stack and count.isdigit():
            counts[layer_of(stack)] += int(count)
    total = sum(counts.values())
    if not total:
        return {}
    return {layer: round(100 * n / total, 1) for layer, n in counts.most_common()}


class Profiler:
    """``py-spy record`` on one process, from ``start()`` to ``stop()``."""

    def __init__(self, pid: int, rate: int = 100) -> None:
        self.pid, self.rate = pid, rate
        self.process: subprocess.Popen[bytes] | None = None
        self.output = Path(tempfile.mkdtemp(prefix="shengji-profile-")) / "stacks.txt"

    @staticmethod
    def command() -> str | None:
        """py-spy beside this interpreter (the project's venv), else on the PATH."""
        beside = Path(sys.executable).with_name("py-spy")
        return str(beside) if beside.exists() else shutil.which("py-spy")

    @classmethod
    def available(cls) -> bool:
        return cls.command() is not None

    def start(self) -> None:
        command = [self.command() or "py-spy", "record", "--pid", str(self.pid)]
        command += ["--rate", str(self.rate), "--gil", "--format", "raw"]
        command += ["--output", str(self.output), "--nonblocking"]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def stop(self) -> dict[str, float]:
        """End the recording (py-spy writes its file on SIGINT); the layers' shares."""
        if self.process is None:
            return {}
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if not self.output.exists():
            return {}
        with self.output.open() as lines:
            return summarize(lines)
