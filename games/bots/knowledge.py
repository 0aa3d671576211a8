"""Everything one seat knows when it must play: its view, read once, plus its ``Memory``.

``Knowledge`` is built from a view and the public history (``knowledge_from_view``) for real
decisions, and directly by the search's playouts (``games/bots/sim.py``) for simulated ones;
the play policies read nothing else. ``unseen()`` is every card the seat cannot place: not in
its hand, not played, and (for the dealer) not in the kitty it buried.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.bots.memory import CARD_SLOTS, Memory, remember, trump_of
from games.engine.cards import parse_cards
from games.engine.rules import RuleSet
from games.engine.trump import Trump

KITTY_SIZE = 8


@dataclass(slots=True)
class Knowledge:
    """A seat's knowledge at its turn in the playing phase.

    ``plays`` is the current trick, in order from ``leader`` (empty when this seat leads).
    ``kitty`` is the buried kitty when this seat is the dealer, else None. ``attacker_points``
    are the attackers' trick points so far (penalties included).
    """

    seat: int
    trump: Trump
    rules: RuleSet
    dealer: int
    hand: list[int]
    leader: int
    plays: list[tuple[int, ...]]
    memory: Memory
    kitty: list[int] | None
    card_counts: list[int]
    attacker_points: int
    tricks_played: int

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    @property
    def defending(self) -> bool:
        return (self.seat - self.dealer) % 2 == 0

    def is_partner(self, seat: int) -> bool:
        return (seat - self.seat) % 2 == 0

    def unseen(self) -> list[int]:
        """Copies of each card this seat cannot place (in another hand, or in the kitty
        unless this seat is the dealer)."""
        unseen = [2 - n for n in self.memory.played]
        for c in self.hand:
            unseen[c] -= 1
        if self.kitty is not None:
            for c in self.kitty:
                unseen[c] -= 1
        return [n if n > 0 else 0 for n in unseen]

    def unseen_in_kitty(self) -> int:
        """How many of the unseen cards are in the kitty (0 for the dealer)."""
        return 0 if self.kitty is not None else KITTY_SIZE


def hand_of(view: Mapping[str, Any]) -> list[int]:
    return [int(c) for c in parse_cards(view.get("hand") or "")]


def knowledge_from_view(
    view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] | None = None
) -> Knowledge:
    """The seat's knowledge in the playing phase (precondition: ``view["phase"]`` is
    ``playing`` and the trump is known)."""
    trump = trump_of(view)
    assert trump is not None, "the trump is known once the bid window closes"
    seat = int(view["seat"])
    dealer = int(view["dealer"])
    trick = view.get("trick") or {}
    plays = [tuple(int(c) for c in parse_cards(p["cards"])) for p in trick.get("plays", [])]
    leader = int(trick.get("leader", seat))
    kitty_text = view.get("kitty")
    kitty = None
    if seat == dealer and kitty_text:
        kitty = [int(c) for c in parse_cards(kitty_text)]
    points = view.get("points") or {}
    attacker_points = int(points.get("attackers", 0)) + int(view.get("penalty_points") or 0)
    return Knowledge(
        seat=seat,
        trump=trump,
        rules=rules,
        dealer=dealer,
        hand=hand_of(view),
        leader=leader,
        plays=plays,
        memory=remember(view, history),
        kitty=kitty,
        card_counts=[int(n) for n in view.get("card_counts") or [0] * 4],
        attacker_points=attacker_points,
        tricks_played=int(view.get("tricks_played") or 0),
    )


__all__ = ["CARD_SLOTS", "KITTY_SIZE", "Knowledge", "hand_of", "knowledge_from_view"]
