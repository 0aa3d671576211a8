"""The bot interface: a bot turns one seat's view into one action text.

``Bot.choose_action(view, rules, history)`` is stateless from the caller's side: ``view`` is
``view_for(seat)`` (a JSON-able dict), ``rules`` the hand's ``RuleSet``, ``history`` the hand's
public action texts (``memory.public_history``; only ``play`` actions are read). It returns an
action text (``bid N …``, ``bury N …``, ``play N …``) or None when the seat has nothing to do
(not its turn, or it does not bid now). A bot reads only the keys listed in ``VIEW_KEYS``;
``view_all``'s extra keys (``hands``, ``seed``, ``buried``, ``kitty_dealt``) are never read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from shengji.engine.rules import RuleSet

VIEW_KEYS = (
    "phase",
    "seat",
    "hand",
    "level",
    "levels",
    "trump",
    "dealer",
    "drawn",
    "card_counts",
    "bids",
    "flipped",
    "to_act",
    "trick",
    "last_trick",
    "tricks_played",
    "points",
    "point_cards",
    "penalty_points",
    "failed_throws",
    "kitty",
    "players",
    "decks",
    "mode",
    "kitty_size",
    "removed",
    "side",
    "seat_points",
    "friends",
    "calls",
    "calls_made",
)
"""The view keys bots read (the seat's own ``kitty`` only as the dealer; in 找朋友 the calls as
the view shows them: to the dealer from the start, to the others from the first lead, never
who holds a called card; ``removed``, the cards a house kitty size took out of the deck,
RULES-SPEC.md §10.11)."""

DEALING = "dealing"
BIDDING = "bidding"
BURYING = "burying"
PLAYING = "playing"


@runtime_checkable
class Bot(Protocol):
    """A player: ``name`` and ``choose_action``."""

    name: str

    def choose_action(
        self, view: Mapping[str, Any], rules: RuleSet, history: Sequence[str] = ()
    ) -> str | None:
        """The seat's action now, as text, or None when it has nothing to do."""
        ...


def public_part(view: Mapping[str, Any]) -> dict[str, Any]:
    """Only the keys a bot reads: whatever else a caller passes is dropped unread."""
    return {key: view[key] for key in VIEW_KEYS if key in view}


def acts_now(view: Mapping[str, Any]) -> bool:
    """Whether the seat must move now (burying or playing)."""
    return view.get("to_act") is not None and view.get("to_act") == view.get("seat")
