"""Head-to-head against a public peer bot: ours (basic or search) against jerryyyu/shengji's Monte
Carlo bot ``mc-s0-report-lcb``, on paired deals of the ``ranked`` preset, our engine the referee.

Run (docs/proof/BOTS-PEER.md)::

    nice -n 10 .venv/bin/python bench/bench_peer.py --deals 300 --seed 1 --ours basic

The peer is fetched at run time, never kept in this repository: ``--peer-git-dir`` is a git
directory of its repository (by default the machine's mirror when there is one) or a URL to
clone (by default its GitHub address); its ``server/`` tree at HEAD is unpacked into ``--cache``,
a virtualenv made there with numpy, Cython and setuptools, and its Cython kernels built
(``python setup.py build_ext --inplace``, as its code says); all of this once per commit. Its bot
runs in that virtualenv (bench/peer_driver.py) and is spoken to with JSON lines: its package is
named ``shengji`` as ours is. ``--jobs J`` plays the deals in J threads, each with its own peer
process (the peer's search is the cost); the figures do not depend on it.

Each deal is played twice with the same cards (``shengji.bots.match.deal_hand``: dealer ``i mod
4``, one level for both teams), ours in the even seats then in the odd ones, with our hand
driver (``shengji.bots.play.play_hand``): every action checked by our engine, a refused one
recorded and replaced by our engine's first legal action. The peer's bot bids (its
``decide_declare``, after each card it is dealt and in the bid window), buries (its
``decide_bury``) and plays (its ``decide_play``), each time from what its seat may know
(bench/peer_bridge.py). Prints levels a hand for ours with a 95 % confidence interval paired by
deal, hands won, decision times p50/p95 for both, the peer's refused moves with reasons and the
throws our engine forced down. ``--peer-parts bid,bury`` (any of ``bid``, ``bury``, ``play``)
makes the peer's side a hybrid: the peer decides those parts, ``--ours`` the rest, so that a run
measures one part of the peer against the same part of ours.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tarfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.peer_bridge import (
    PEER_BURY,
    PEER_DECLARE,
    PEER_PLAY,
    action_text,
    peer_request,
)
from shengji.bots import make_bot
from shengji.bots.base import BIDDING, BURYING, DEALING, PLAYING, Bot, acts_now
from shengji.bots.match import deal_hand, decision_times, derive_seed
from shengji.bots.play import HandStats, play_hand
from shengji.bots.search import SearchBudget
from shengji.engine.rules import RuleSet, preset

MIRROR = "/work/.mirror/jerryyyu+shengji/repo"
PEER_URL = "https://github.com/jerryyyu/shengji"
PEER_POLICY = "mc-s0-report-lcb"
DRIVER = Path(__file__).resolve().parent / "peer_driver.py"
PEER_PACKAGES = ("numpy", "cython", "setuptools")
PARTS = ("bid", "bury", "play")
"""The parts of a hand a bot decides: bidding (and the deal's declarations), burying, playing."""


# --- fetching and building the peer, once per commit --------------------------------------


@dataclass(frozen=True, slots=True)
class PeerBuild:
    """A ready peer: its commit, the virtualenv's python, its ``server/`` dir, compiled or not."""

    commit: str
    python: Path
    server: Path
    compiled: bool


def _run(args: Sequence[str], cwd: Path | None = None) -> str:
    done = subprocess.run(list(args), cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


def peer_git_dir(source: str, cache: Path) -> Path:
    """The git directory to read: ``source`` itself, or a bare clone of a URL in ``cache``."""
    if "://" not in source and not source.startswith("git@"):
        return Path(source)
    clone = cache / "peer.git"
    if not clone.exists():
        _run(["git", "clone", "--bare", "--depth", "1", source, str(clone)])
    return clone


def build_peer(source: str, cache: Path, *, compile_kernels: bool = True) -> PeerBuild:
    """Unpack the peer's ``server/`` at HEAD into ``cache``, make its virtualenv and build its
    Cython kernels (each step skipped when already done)."""
    cache = cache.resolve()  # the build runs in the checkout: a relative path would miss
    cache.mkdir(parents=True, exist_ok=True)
    git_dir = peer_git_dir(source, cache)
    commit = _run(["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"]).strip()
    checkout = cache / f"checkout-{commit[:12]}"
    server = checkout / "server"
    if not (server / "shengji" / "ai" / "registry.py").exists():
        checkout.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", f"--git-dir={git_dir}", "archive", "HEAD", "server"],
            check=True,
            capture_output=True,
        ).stdout
        tar_path = checkout / "server.tar"
        tar_path.write_bytes(archive)
        with tarfile.open(tar_path) as tar:
            tar.extractall(checkout, filter="data")
        tar_path.unlink()
    venv = cache / "venv"
    python = venv / "bin" / "python"
    ready = venv / "peer-packages-installed"
    if not ready.exists():
        _run([sys.executable, "-m", "venv", str(venv)])
        _run([str(python), "-m", "pip", "install", "-q", *PEER_PACKAGES])
        ready.touch()
    compiled = any((server / "shengji" / "engine").glob("_fast*.so"))
    if compile_kernels and not compiled:
        _run([str(python), "setup.py", "build_ext", "--inplace"], cwd=server)
        compiled = any((server / "shengji" / "engine").glob("_fast*.so"))
    return PeerBuild(commit, python, server, compiled and compile_kernels)


# --- the peer process and its bots ---------------------------------------------------------


class PeerProcess:
    """bench/peer_driver.py in the peer's virtualenv, spoken to one JSON line at a time."""

    def __init__(self, build: PeerBuild) -> None:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env["SHENGJI_FAST"] = "1" if build.compiled else "0"
        self.process = subprocess.Popen(
            [str(build.python), str(DRIVER), str(build.server)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=build.server,
        )
        hello = self.ask({"op": "hello"})
        self.fast = bool(hello.get("fast"))

    def ask(self, request: Mapping[str, Any]) -> dict[str, Any]:
        stdin: IO[str] | None = self.process.stdin
        stdout: IO[str] | None = self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the peer driver stopped (exit {self.process.poll()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


@dataclass(slots=True)
class PeerLog:
    """What the peer's seats did in a run: its own decision times (burying and playing), its
    bids, the errors of its bot, and the context of each answer in the hand being played (by
    seat and action text)."""

    seconds: list[float] = field(default_factory=list)
    bids: int = 0
    errors: list[tuple[int, str, str]] = field(default_factory=list)
    context: dict[tuple[int, str], str] = field(default_factory=dict)

    def merge(self, other: PeerLog) -> None:
        self.seconds += other.seconds
        self.bids += other.bids
        self.errors += other.errors
        self.context.update(other.context)


def part_of(phase: object) -> str | None:
    """The part of the hand (``PARTS``) a phase belongs to."""
    if phase in (DEALING, BIDDING):
        return "bid"
    if phase == BURYING:
        return "bury"
    if phase == PLAYING:
        return "play"
    return None


class PeerBot:
    """One seat of the peer: a ``Bot`` (shengji.bots.base) that asks the peer process for the
    ``parts`` of the hand it is given and ``fallback`` (one of ours) for the others: the hybrid
    that tells which part of a bot wins or loses levels."""

    name = "peer"

    def __init__(
        self,
        peer: PeerProcess,
        key: str,
        seed: int,
        rules: RuleSet,
        log: PeerLog,
        *,
        parts: frozenset[str] = frozenset(PARTS),
        fallback: Bot | None = None,
    ) -> None:
        self.peer, self.key, self.rules, self.log = peer, key, rules, log
        self.parts, self.fallback = parts, fallback
        assert fallback is not None or parts == frozenset(PARTS)
        self.rng = Random(seed)
        answer = peer.ask({"op": "new", "key": key, "policy": PEER_POLICY, "seed": seed})
        if "error" in answer:
            raise RuntimeError(f"the peer could not make its bot: {answer['error']}")

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        phase = view.get("phase")
        seat = int(view["seat"])
        if part_of(phase) not in self.parts and self.fallback is not None:
            return self.fallback.choose_action(view, rules, history)
        if phase in (DEALING, BIDDING):
            op = PEER_DECLARE
        elif phase in (BURYING, PLAYING) and acts_now(view):
            op = PEER_BURY if phase == BURYING else PEER_PLAY
        else:
            return None
        request = peer_request(op, view, history, rules, self.rng)
        answer = self.peer.ask({**request, "op": op, "key": self.key})
        if "error" in answer:
            self.log.errors.append((seat, op, str(answer["error"])))
            return None
        cards = answer.get("cards")
        if not cards:
            return None
        if op == PEER_DECLARE:
            self.log.bids += 1
        else:
            self.log.seconds.append(float(answer["seconds"]))
        text = action_text(op, seat, cards)
        self.log.context[(seat, text)] = _context(view)
        return text

    def drop(self) -> None:
        self.peer.ask({"op": "drop", "key": self.key})


def _context(view: Mapping[str, Any]) -> str:
    trick = view.get("trick") or {}
    plays = trick.get("plays") or []
    lead = plays[0]["cards"] if plays else "-"
    return f"trick {view.get('tricks_played', 0) + 1}, lead {lead}, hand {view.get('hand')}"


# --- the paired deals ------------------------------------------------------------------------


@dataclass(slots=True)
class DealResult:
    """One paired deal: our signed levels and whether we won, in each of its two hands; our
    decision times; the peer's refused moves and the throws forced down, per side."""

    index: int
    levels: list[int] = field(default_factory=list)
    won: list[bool] = field(default_factory=list)
    times_ours: list[float] = field(default_factory=list)
    times_peer: list[float] = field(default_factory=list)
    refused_peer: list[tuple[int, int, str, str, str]] = field(default_factory=list)
    refused_ours: list[tuple[int, int, str, str]] = field(default_factory=list)
    forced: Counter[str] = field(default_factory=Counter)
    trumps: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Setup:
    ours: str
    seed: int
    rules: RuleSet
    budget: SearchBudget
    peer_parts: frozenset[str] = frozenset(PARTS)


def play_deal(setup: Setup, index: int, peer: PeerProcess, log: PeerLog) -> DealResult:
    """Both hands of deal ``index``: ours in the even seats (``swap`` 0), then in the odd."""
    result = DealResult(index)
    for swap in (0, 1):
        state = deal_hand(setup.rules, setup.seed, index)
        bots: list[Bot] = []
        peers: list[PeerBot] = []
        for seat in range(4):
            seed = derive_seed(setup.seed, index, swap, seat)
            if seat % 2 == swap:
                bots.append(make_bot(setup.ours, seed, setup.budget))
            else:
                mixed = setup.peer_parts != frozenset(PARTS)
                fallback = make_bot(setup.ours, seed, setup.budget) if mixed else None
                key = f"{index}-{swap}-{seat}"
                bot = PeerBot(
                    peer, key, seed, setup.rules, log, parts=setup.peer_parts, fallback=fallback
                )
                peers.append(bot)
                bots.append(bot)
        stats = HandStats()
        play_hand(state, bots, stats)
        for bot in peers:
            bot.drop()
        hand = state.result
        assert hand is not None and hand.winning_team is not None
        won = hand.winning_team == swap
        result.levels.append(hand.levels_gained if won else -hand.levels_gained)
        result.won.append(won)
        trump = state.trump
        result.trumps.append(f"{trump.level}{trump.suit or 'NT'}" if trump else "-")
        for seat in range(4):
            mine = seat % 2 == swap
            (result.times_ours if mine else result.times_peer).extend(stats.times[seat])
        for seat, text, code in stats.refused:
            if seat % 2 == swap:
                result.refused_ours.append((swap, seat, text, code))
            else:
                context = log.context.get((seat, text), "")
                result.refused_peer.append((swap, seat, text, code, context))
        log.context.clear()
        for failed in state.failed_throws:
            result.forced["ours" if failed.seat % 2 == swap else "peer"] += 1
    return result


def peer_name(setup: Setup) -> str:
    """The peer side's name: the peer's policy, and for a hybrid what of ours it plays with."""
    if setup.peer_parts == frozenset(PARTS):
        return PEER_POLICY
    parts = "+".join(p for p in PARTS if p in setup.peer_parts)
    return f"{PEER_POLICY}[{parts}]+{setup.ours}"


def summary(
    setup: Setup, results: Sequence[DealResult], log: PeerLog, build: PeerBuild, fast: bool
) -> dict[str, Any]:
    """The figures of a run (see the module doc)."""
    per_deal = [sum(r.levels) / len(r.levels) for r in results]
    n = len(per_deal)
    mean = sum(per_deal) / n if n else math.nan
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_deal) / (n - 1)) if n > 1 else math.nan
    half = 1.96 * sd / math.sqrt(n) if n > 1 else math.nan
    hands = sum(len(r.won) for r in results)
    won = sum(sum(r.won) for r in results)
    refused_peer = [x for r in results for x in r.refused_peer]
    forced: Counter[str] = Counter()
    for r in results:
        forced.update(r.forced)
    return {
        "ours": setup.ours,
        "peer": peer_name(setup),
        "peer_parts": sorted(setup.peer_parts, key=PARTS.index),
        "peer_commit": build.commit,
        "peer_compiled": fast,
        "rules": setup.rules.name,
        "seed": setup.seed,
        "deals": n,
        "hands": hands,
        "levels_per_hand": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "per_deal": per_deal,
        "hands_won": {"ours": won, "peer": hands - won},
        "decision_ms": {
            "ours": decision_times([t for r in results for t in r.times_ours]),
            "peer": decision_times([t for r in results for t in r.times_peer]),
            "peer_in_process": decision_times(log.seconds),
        },
        "peer_bids": log.bids,
        "peer_refused": [
            {"hand": s, "seat": seat, "action": text, "reason": code, "context": ctx}
            for s, seat, text, code, ctx in refused_peer
        ],
        "peer_errors": [{"seat": s, "op": op, "error": e} for s, op, e in log.errors],
        "ours_refused": [x for r in results for x in r.refused_ours],
        "forced_throws": dict(forced),
        "trumps": [t for r in results for t in r.trumps],
        "search_budget": {"max_samples": setup.budget.max_samples, "max_ms": setup.budget.max_ms},
    }


def report(figures: Mapping[str, Any]) -> str:
    ours, peer = figures["ours"], figures["peer"]
    low, high = figures["ci95"]
    won = figures["hands_won"]
    times = figures["decision_ms"]
    lines = [
        f"{ours} (ours) against {peer} (peer, commit {figures['peer_commit'][:12]}, "
        f"{'compiled kernels' if figures['peer_compiled'] else 'pure Python'}): "
        f"{figures['deals']} paired deals, {figures['hands']} hands, rules {figures['rules']}, "
        f"seed {figures['seed']}",
        f"levels per hand for {ours}: {figures['levels_per_hand']:+.3f} "
        f"(95% CI {low:+.3f} .. {high:+.3f}, paired by deal)",
        f"hands won: {ours} {won['ours']}, {peer} {won['peer']}",
    ]
    for key, name in (
        ("ours", ours),
        ("peer", f"{peer} (round trip)"),
        ("peer_in_process", f"{peer} (its own clock)"),
    ):
        t = times[key]
        lines.append(
            f"decision time {name}: p50 {t['p50']:.2f} ms, p95 {t['p95']:.2f} ms "
            f"over {t['n']} decisions (burying and playing)"
        )
    lines.append(f"peer bids made: {figures['peer_bids']}")
    forced = figures["forced_throws"]
    lines.append(
        f"throws forced down by our engine: ours {forced.get('ours', 0)}, "
        f"peer {forced.get('peer', 0)}"
    )
    refused = figures["peer_refused"]
    lines.append(f"peer moves our engine refused: {len(refused)}")
    for r in refused:
        lines.append(
            f"  hand {r['hand']} seat {r['seat']}: {r['action']!r} -> {r['reason']} "
            f"({r['context']})"
        )
    errors = figures["peer_errors"]
    lines.append(f"peer bot errors: {len(errors)}")
    for e in errors:
        lines.append(f"  seat {e['seat']} {e['op']}: {e['error']}")
    lines.append(f"our moves refused: {len(figures['ours_refused'])}")
    return "\n".join(lines)


def play_chunk(
    setup: Setup, build: PeerBuild, indexes: Sequence[int], started: float
) -> tuple[list[DealResult], PeerLog, bool]:
    """The deals ``indexes`` with one peer process; the results, the peer's log and whether
    its compiled kernels were on."""
    peer = PeerProcess(build)
    log = PeerLog()
    results = []
    try:
        for index in indexes:
            results.append(play_deal(setup, index, peer, log))
            print(
                f"deal {index}: {results[-1].levels} for {setup.ours} "
                f"({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    finally:
        peer.close()
    return results, log, peer.fast


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--peer-git-dir",
        default=MIRROR if Path(MIRROR).exists() else PEER_URL,
        help="a git directory of the peer's repository, or a URL to clone",
    )
    parser.add_argument("--cache", default="var/peer", help="the peer's checkout and virtualenv")
    parser.add_argument("--deals", type=int, default=4, help="paired deals (2 hands each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0, help="index of the first deal")
    parser.add_argument("--ours", default="basic", choices=("basic", "search"))
    parser.add_argument(
        "--search-ms",
        type=float,
        default=SearchBudget().max_ms,
        help="the search bot's time a decision (the site's budget); 0: its samples only",
    )
    parser.add_argument(
        "--peer-parts",
        default=",".join(PARTS),
        help="what the peer decides (bid, bury, play); --ours decides the rest on its side",
    )
    parser.add_argument("--jobs", type=int, default=1, help="threads, each with a peer process")
    parser.add_argument("--pure-python", action="store_true", help="do not build its kernels")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead")
    parser.add_argument("--out", help="also write the figures as JSON to this file")
    args = parser.parse_args(argv)
    build = build_peer(args.peer_git_dir, Path(args.cache), compile_kernels=not args.pure_python)
    budget = SearchBudget(max_ms=args.search_ms or None)
    peer_parts = frozenset(p for p in args.peer_parts.split(",") if p)
    if not peer_parts or not peer_parts <= set(PARTS):
        parser.error(f"--peer-parts: a comma-separated choice of {', '.join(PARTS)}")
    setup = Setup(args.ours, args.seed, preset("ranked"), budget, peer_parts)
    started = time.perf_counter()
    indexes = list(range(args.start, args.start + args.deals))
    jobs = max(1, min(args.jobs, len(indexes)))
    chunks = [indexes[j::jobs] for j in range(jobs)]
    with ThreadPoolExecutor(len(chunks)) as pool:
        parts = list(pool.map(lambda chunk: play_chunk(setup, build, chunk, started), chunks))
    results = sorted((r for part, _, _ in parts for r in part), key=lambda r: r.index)
    log = PeerLog()
    for _, part_log, _ in parts:
        log.merge(part_log)
    fast = all(f for _, _, f in parts)
    figures = summary(setup, results, log, build, fast)
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=1) + "\n")
    print(json.dumps(figures) if args.json else report(figures), flush=True)
    unexplained = figures["peer_errors"] or figures["ours_refused"]
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
