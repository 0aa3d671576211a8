"""Everything one seat knows when it must play: its view, read once, plus its ``Memory``.

``Knowledge`` is built from a view and the public history (``knowledge_from_view``) for real
decisions, and directly by the search's playouts (``shengji/bots/sim.py``) for simulated ones;
the play policies read nothing else. ``unseen()`` is every card the seat cannot place: not in
its hand, not played, and (for the dealer) not in the kitty it buried.

Seats are ``0..players-1``. Who plays with whom: in tractor mode the seats of one parity
(RULES-SPEC.md §9.1); in 找朋友 the ``allies`` the seat believes in (the known side, and what
``shengji.bots.friendship`` infers from the calls and the cards played).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shengji.bots.friendship import Call, allies_of, calls_of
from shengji.bots.memory import (
    CARD_SLOTS,
    Memory,
    copies_of,
    decks_of,
    players_of,
    remember,
    trump_of,
)
from shengji.engine.cards import parse_cards
from shengji.engine.rules import RuleSet
from shengji.engine.trump import Trump

KITTY_SIZE = 8
"""The classic table's kitty (four seats, two decks)."""
TRACTOR = "tractor"
FRIENDS = "friends"


@dataclass(slots=True)
class Knowledge:
    """A seat's knowledge at its turn in the playing phase.

    ``plays`` is the current trick, in order from ``leader`` (empty when this seat leads).
    ``kitty`` is the buried kitty when this seat is the dealer, else None. ``attacker_points``
    are the attackers' trick points so far (penalties included).

    ``players``, ``decks``, ``mode`` describe the table; ``kitty_size`` its kitty. In 找朋友
    ``allies`` is the set of seats this seat plays with (itself included), ``side`` the
    defending seats known now, ``calls`` the view's calls (none while hidden),
    ``seat_points`` the points each seat has captured; in tractor mode ``allies`` is None and
    the partners are the seats of this seat's parity. ``copies``: each card's copies in the
    deal when the table's deck is not full (RULES-SPEC.md §10.11, §10.12), else None.
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
    players: int = 4
    decks: int = 2
    mode: str = TRACTOR
    kitty_size: int = KITTY_SIZE
    allies: frozenset[int] | None = None
    side: frozenset[int] = frozenset()
    calls: list[Call] | None = None
    seat_points: list[int] | None = None
    copies: tuple[int, ...] | None = None
    friend_aware: bool = True

    @property
    def partner(self) -> int:
        """The partner across the table (four-seat tractor mode)."""
        return (self.seat + 2) % 4

    @property
    def partners(self) -> tuple[int, ...]:
        """The other seats this seat plays with, in play order from the seat after it."""
        return tuple(s for s in self.after_me() if self.is_partner(s))

    @property
    def opponents(self) -> tuple[int, ...]:
        """The seats this seat plays against, in play order from the seat after it."""
        return tuple(s for s in self.after_me() if not self.is_partner(s))

    def after_me(self) -> tuple[int, ...]:
        """Every other seat, in play order from the seat after this one."""
        n = self.players
        return tuple((self.seat + i) % n for i in range(1, n))

    @property
    def defending(self) -> bool:
        if self.allies is None:
            return (self.seat - self.dealer) % 2 == 0
        return self.dealer in self.allies

    def is_partner(self, seat: int) -> bool:
        if self.allies is None:
            return (seat - self.seat) % 2 == 0
        return seat in self.allies

    def unseen(self) -> list[int]:
        """Copies of each card this seat cannot place (in another hand, or in the kitty
        unless this seat is the dealer)."""
        copies = self.copies
        if copies is None:
            decks = self.decks
            unseen = [decks - n for n in self.memory.played]
        else:
            unseen = [copies[c] - n for c, n in enumerate(self.memory.played)]
        for c in self.hand:
            unseen[c] -= 1
        if self.kitty is not None:
            for c in self.kitty:
                unseen[c] -= 1
        return [n if n > 0 else 0 for n in unseen]

    def unseen_in_kitty(self) -> int:
        """How many of the unseen cards are in the kitty (0 for the dealer)."""
        return 0 if self.kitty is not None else self.kitty_size


def hand_of(view: Mapping[str, Any]) -> list[int]:
    return [int(c) for c in parse_cards(view.get("hand") or "")]


def knowledge_from_view(
    view: Mapping[str, Any],
    rules: RuleSet,
    history: Sequence[str] | None = None,
    *,
    infer_friends: bool = True,
    friend_aware: bool = True,
) -> Knowledge:
    """The seat's knowledge in the playing phase (precondition: ``view["phase"]`` is
    ``playing`` and the trump is known). ``infer_friends`` False (the 找朋友 baseline) takes
    only the known side as the dealer's, and everyone else as attackers. ``friend_aware``
    False (the ``friendblind`` ablation): a friend of the dealer plays as an attacker would,
    before and after its reveal."""
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
    players = players_of(view)
    decks = decks_of(view)
    mode = str(view.get("mode") or TRACTOR)
    k = Knowledge(
        seat=seat,
        trump=trump,
        rules=rules,
        dealer=dealer,
        hand=hand_of(view),
        leader=leader,
        plays=plays,
        memory=remember(view, history, rules),
        kitty=kitty,
        card_counts=[int(n) for n in view.get("card_counts") or [0] * players],
        attacker_points=attacker_points,
        tricks_played=int(view.get("tricks_played") or 0),
        players=players,
        decks=decks,
        mode=mode,
        kitty_size=int(view.get("kitty_size") or kitty_size(players, decks)),
        side=frozenset(int(s) for s in view.get("side") or ()),
        calls=calls_of(view.get("calls")),
        seat_points=seat_points_of(view),
        copies=copies_of(view, rules),
        friend_aware=friend_aware,
    )
    if mode == FRIENDS:
        k.allies = allies_of(k, infer=infer_friends)
    return k


def seat_points_of(view: Mapping[str, Any]) -> list[int] | None:
    """The points each seat has taken, as the view shows them: a known defender's as 0 when the
    table hides the defenders' points (RULES-SPEC.md §10.8)."""
    shown = view.get("seat_points")
    if not shown:
        return None
    return [0 if n is None else int(n) for n in shown]


def kitty_size(players: int, decks: int) -> int:
    """The kitty of a table shape (RULES-SPEC.md §9.1)."""
    if players == 4 and decks == 2:
        return KITTY_SIZE
    from shengji.engine.deal import deal_sizes  # bigger tables only

    return deal_sizes(players, decks)[1]


__all__ = [
    "CARD_SLOTS",
    "FRIENDS",
    "KITTY_SIZE",
    "TRACTOR",
    "Knowledge",
    "hand_of",
    "kitty_size",
    "knowledge_from_view",
]
