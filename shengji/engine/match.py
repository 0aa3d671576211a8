"""A match: hands in succession with a level per team and the deal rotating (RULES-SPEC.md
§5.6–§5.7).

``Match(rules, seed)`` starts everyone at 2 with the first hand's dealer chosen by bidding.
After each finished hand ``finish_hand()`` takes its ``HandResult``: the winners' new levels
(per team, or per player in 找朋友), the next dealer, the wrap flags. The match ends when a
team (a player) passes A under ``past_ace = match_end`` or at an escape (RULES-SPEC.md §7: the
players change); under ``wrap`` it goes on for ever.
Hand ``k``'s seed is the ``k``-th 63-bit number of ``random.Random(seed)``.
"""

from __future__ import annotations

from random import Random
from typing import Any

from shengji.engine.action_errors import InvalidSetupError, MatchOverError
from shengji.engine.hand import FINISHED, HandResult, HandState, level_slots, new_hand
from shengji.engine.record import HandRecord, record_of
from shengji.engine.rules import RuleSet


class Match:
    """Hands of one match. ``hand`` is the current hand (None between hands)."""

    def __init__(
        self,
        rules: RuleSet,
        seed: int,
        *,
        levels: tuple[str, ...] | None = None,
        dealer: int | None = None,
        wrapped: tuple[bool, ...] | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        first = rules.deck_min_rank  # 2, or a shortened deck's lowest rank (RULES-SPEC.md §10.12)
        self.levels = levels if levels is not None else (first,) * level_slots(rules)
        self.wrapped = wrapped if wrapped is not None else (False,) * level_slots(rules)
        self.dealer = dealer
        self.hand: HandState | None = None
        self.results: list[HandResult] = []
        self.records: list[HandRecord] = []
        self.over = False
        self.winner: int | None = None
        self._seeds = Random(seed)

    @property
    def hand_number(self) -> int:
        """How many hands have finished."""
        return len(self.results)

    def start_hand(self, *, decks: list[list[int]] | None = None) -> HandState:
        """Set up the next hand (dealer None in the first hand: bidding chooses)."""
        if self.over:
            raise MatchOverError("the match is over")
        if self.hand is not None:
            raise InvalidSetupError("the current hand has not finished")
        self.hand = new_hand(
            self.rules,
            self._seeds.getrandbits(63),
            levels=self.levels,
            dealer=self.dealer,
            wrapped=self.wrapped,
            decks=decks,
        )
        return self.hand

    def finish_hand(self) -> HandResult:
        """Take the finished current hand's result into the match."""
        hand = self.hand
        if hand is None or hand.phase != FINISHED or hand.result is None:
            raise InvalidSetupError("no finished hand to take")
        result = hand.result
        self.results.append(result)
        self.records.append(record_of(hand))
        self.hand = None
        self.levels = result.levels_after
        self.wrapped = result.wrapped_after
        self.dealer = result.next_dealer
        if result.match_over:
            self.over = True
            self.winner = result.match_winner
        return result

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "levels": list(self.levels),
            "wrapped": list(self.wrapped),
            "dealer": self.dealer,
            "over": self.over,
            "winner": self.winner,
            "hands": [r.to_dict() for r in self.records],
        }
