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

The budget is a number of sampled deals and a time limit per decision, whichever comes first
(``SearchBudget``; the time is checked between deals). With ``max_ms=None`` a decision is a
pure function of the view, the history and the seed. Bidding, burying and forced plays are
the basic bot's.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from games.bots.base import PLAYING, acts_now, public_part
from games.bots.basic import BasicBot, Play, choose_play, play_options
from games.bots.knowledge import Knowledge, knowledge_from_view
from games.bots.sim import SimHand, sample_world, side_levels
from games.engine.cards import format_cards
from games.engine.rules import RuleSet

SURE = 1000.0
"""A basic lead score that needs no search (the whole hand cannot be beaten)."""


@dataclass(frozen=True, slots=True)
class SearchBudget:
    """Per decision: at most ``max_samples`` sampled deals and ``max_ms`` milliseconds (None:
    no time limit), at least ``min_samples`` deals. The basic bot's ``candidates`` best plays
    are compared; after ``prune_after`` deals the hopeless ones are dropped; one replaces the
    basic bot's first choice only when its mean score is higher by more than ``z`` standard
    errors (paired over the same deals). ``point_weight`` weighs the points term of a
    playout's score (levels per 40 points from the 80 line)."""

    max_samples: int = 40
    max_ms: float | None = 300.0
    min_samples: int = 2
    candidates: int = 5
    point_weight: float = 0.25
    z: float = 1.0
    prune_after: int = 4


class SearchBot:
    """Determinized Monte Carlo over the basic bot's candidates (see the module doc)."""

    name = "search"

    def __init__(self, seed: int = 0, budget: SearchBudget | None = None) -> None:
        self.seed = seed
        self.budget = budget or SearchBudget()
        self.basic = BasicBot(seed=seed)
        self.last_samples = 0

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        view = public_part(view)
        if view.get("phase") != PLAYING or not acts_now(view):
            return self.basic.choose_action(view, rules, history)
        k = knowledge_from_view(view, rules, history)
        rng = Random(self._decision_seed(view))
        return f"play {k.seat} {format_cards(self.search(k, rng))}"

    def _decision_seed(self, view: Mapping[str, Any]) -> int:
        trick = view.get("trick") or {}
        text = (
            f"{self.seed}|{view.get('seat')}|{view.get('tricks_played')}|{trick}|{view.get('hand')}"
        )
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")

    def search(self, k: Knowledge, rng: Random) -> Play:
        """The best of the basic bot's candidates by sampled playouts."""
        self.last_samples = 0
        options = play_options(k)
        if len(options) == 1 or options[0][0] >= SURE:
            return options[0][1]
        candidates = [play for _, play in options[: self.budget.candidates]]
        scores: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        budget = self.budget
        deadline = None if budget.max_ms is None else time.perf_counter() + budget.max_ms / 1000
        samples = 0
        while samples < budget.max_samples and len(alive) > 1:
            late = deadline is not None and time.perf_counter() >= deadline
            if late and samples >= budget.min_samples:
                break
            world = sample_world(k, rng)
            if world is None:
                break
            for index in alive:
                sim = SimHand(k, world)
                sim.play(k.seat, candidates[index])
                x = sim.playout(choose_play)
                defending = k.seat in sim.side if sim.friends else k.defending
                scores[index].append(self._utility(x, defending, k.decks))
            samples += 1
            if samples >= budget.prune_after:
                alive = [i for i in alive if i == 0 or not self._hopeless(scores, i)]
        self.last_samples = samples
        return candidates[self._pick(scores)]

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

    def _utility(self, x: int, defending: bool, decks: int = 2) -> float:
        levels = side_levels(x, defending, decks)
        margin = (x - 80) / 40.0 if decks == 2 else (x - 40 * decks) / (20.0 * decks)
        return levels + self.budget.point_weight * (-margin if defending else margin)
