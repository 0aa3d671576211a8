"""The search bot: determinized Monte Carlo over the basic bot's candidate plays.

At a play where the basic bot has more than one candidate, it takes the basic bot's best few
candidates, then repeatedly samples a deal of the unseen cards consistent with everything
public (``sim.sample_world``: card counts, shown voids, cards known to be in a hand, the kitty
known only to the dealer), plays each candidate on that same deal, finishes the hand with the
basic policy in every seat, and scores the result for its side: levels gained (negative when
the other side goes up) plus a small term for the points, so that close results still count.
Candidates that did exactly as well as the basic bot's choice on every deal so far, or clearly
worse, are dropped after a few deals. The best mean wins, but only if it beats the basic
bot's own choice by more than ``z`` standard errors of the paired differences, so sampling
noise seldom makes it switch to a worse play.

At tables of more than four seats a playout plays only the next ``tricks_ahead`` tricks (the
current one counted) and estimates the rest (``SimHand.estimated_points``), so that a decision
samples enough deals within its time; at four seats every playout goes to the hand's end.

The budget is a number of sampled deals and a time limit per decision in wall time, whichever
comes first (``SearchBudget``). The clock (injected, ``time.perf_counter`` by default) is read
when the decision starts and before and after each playout; a playout is started only if the
longest one of this decision so far still fits before the deadline, so a decision does not
start work it cannot finish. With ``max_ms=None`` the clock is never read and a decision is a
pure function of the view, the history and the seed. Bidding, burying and forced plays are
the basic bot's.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from shengji.bots.base import PLAYING, acts_now, public_part
from shengji.bots.basic import BasicBot, Play, choose_play, play_options
from shengji.bots.knowledge import Knowledge, knowledge_from_view
from shengji.bots.sim import SimHand, World, sample_world, side_levels
from shengji.engine.cards import format_cards
from shengji.engine.rules import RuleSet
from shengji.engine.scoring import ScoreBands

SURE = 1000.0
"""A basic lead score that needs no search (the whole hand cannot be beaten)."""


@dataclass(frozen=True, slots=True)
class SearchBudget:
    """Per decision: at most ``max_samples`` sampled deals and ``max_ms`` milliseconds of wall
    time (None: no time limit; no playout is started that the deadline cannot fit). The basic
    bot's ``candidates`` best plays are compared; after ``prune_after`` deals the hopeless
    ones are dropped; one replaces the basic bot's first choice only when its mean score is
    higher by more than ``z`` standard errors (paired over the same deals). ``point_weight``
    weighs the points term of a playout's score (levels per 40 points from the 80 line).
    At tables of more than four seats a playout plays ``tricks_ahead`` tricks (the current
    one counted) and estimates the rest."""

    max_samples: int = 40
    max_ms: float | None = 300.0
    candidates: int = 5
    point_weight: float = 0.25
    z: float = 1.0
    prune_after: int = 4
    tricks_ahead: int = 3


@dataclass(slots=True)
class _Timer:
    """The deadline of one decision: ``room()`` before a playout (the first of a deal counts
    its sampling), ``lap()`` after it. Without a deadline the clock is never read."""

    clock: Callable[[], float]
    deadline: float | None
    longest: float = 0.0
    began: float = 0.0

    def room(self) -> bool:
        """Whether the longest playout of this decision so far still fits before the
        deadline."""
        if self.deadline is None:
            return True
        self.began = self.clock()
        return self.began + self.longest <= self.deadline

    def lap(self) -> None:
        if self.deadline is not None:
            self.longest = max(self.longest, self.clock() - self.began)


class SearchBot:
    """Determinized Monte Carlo over the basic bot's candidates (see the module doc)."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        budget: SearchBudget | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.seed = seed
        self.budget = budget or SearchBudget()
        self.basic = BasicBot(seed=seed)
        self.clock = clock
        self.last_samples = 0
        self.last_playouts = 0

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        started = None if self.budget.max_ms is None else self.clock()
        view = public_part(view)
        if view.get("phase") != PLAYING or not acts_now(view):
            return self.basic.choose_action(view, rules, history)
        k = knowledge_from_view(view, rules, history)
        rng = Random(self._decision_seed(view))
        return f"play {k.seat} {format_cards(self.search(k, rng, started))}"

    def _decision_seed(self, view: Mapping[str, Any]) -> int:
        trick = view.get("trick") or {}
        text = (
            f"{self.seed}|{view.get('seat')}|{view.get('tricks_played')}|{trick}|{view.get('hand')}"
        )
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")

    def search(self, k: Knowledge, rng: Random, started: float | None = None) -> Play:
        """The best of the basic bot's candidates by sampled playouts (``started``: the clock
        when the decision started; read now when not given)."""
        self.last_samples = self.last_playouts = 0
        options = play_options(k)
        if len(options) == 1 or options[0][0] >= SURE:
            return options[0][1]
        candidates = [play for _, play in options[: self.budget.candidates]]
        scores: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        budget = self.budget
        deadline = None
        if budget.max_ms is not None:
            deadline = (self.clock() if started is None else started) + budget.max_ms / 1000
        tricks = budget.tricks_ahead if k.players > 4 else None
        timer = _Timer(self.clock, deadline)
        samples = 0
        while samples < budget.max_samples and len(alive) > 1:
            if not timer.room():
                break
            world = sample_world(k, rng)
            if world is None:
                break
            if not self._play_deal(k, world, candidates, alive, scores, timer, tricks):
                break
            samples += 1
            if samples >= budget.prune_after:
                alive = [i for i in alive if i == 0 or not self._hopeless(scores, i)]
        self.last_samples = samples
        return candidates[self._pick(scores)]

    def _play_deal(
        self,
        k: Knowledge,
        world: World,
        candidates: list[Play],
        alive: list[int],
        scores: list[list[float]],
        timer: _Timer,
        tricks: int | None,
    ) -> bool:
        """Play each live candidate on ``world`` and note its score; False when the deadline
        left no room for the next playout (the deal is then incomplete)."""
        for n, index in enumerate(alive):
            if n and not timer.room():
                return False
            sim = SimHand(k, world)
            sim.play(k.seat, candidates[index])
            x = sim.playout(choose_play, tricks)
            defending = k.seat in sim.scored_side if sim.friends else k.defending
            scores[index].append(self._utility(x, defending, k.decks, k.rules.score_bands))
            self.last_playouts += 1
            timer.lap()
        return True

    @staticmethod
    def _diffs(scores: list[list[float]], index: int) -> tuple[float, float, list[float]]:
        """Mean and standard error of the candidate's paired differences with the basic
        bot's choice (index 0), over the deals both were played on."""
        diffs = [a - b for a, b in zip(scores[index], scores[0], strict=False)]
        n = len(diffs)
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
        return mean, math.sqrt(var / n), diffs

    def _hopeless(self, scores: list[list[float]], index: int) -> bool:
        """No need to play a candidate further: so far it did exactly as well as the basic
        bot's choice on every deal, or clearly worse (two standard errors)."""
        mean, error, diffs = self._diffs(scores, index)
        return not any(diffs) or mean + 2.0 * error < 0.0

    def _pick(self, scores: list[list[float]]) -> int:
        """The candidate with the best mean, if it beats the basic bot's choice (index 0) by
        more than ``budget.z`` standard errors of the paired differences; else index 0."""
        best, best_mean = 0, 0.0
        for index in range(1, len(scores)):
            if len(scores[index]) < 2:
                continue
            mean, error, _ = self._diffs(scores, index)
            if mean > best_mean and mean > self.budget.z * error:
                best, best_mean = index, mean
        return best

    def _utility(
        self, x: int, defending: bool, decks: int = 2, bands: ScoreBands | None = None
    ) -> float:
        levels = side_levels(x, defending, decks, bands)
        margin = (x - 80) / 40.0 if decks == 2 else (x - 40 * decks) / (20.0 * decks)
        return levels + self.budget.point_weight * (-margin if defending else margin)
