"""Bots for Shengji: players that choose an action from one seat's view (docs/BOTS.md).

Pure Python like the engine (no Django). Every bot has
``choose_action(view, rules, history) -> str | None``: ``view`` is ``view_for(seat)``,
``history`` the hand's public action texts (``public_history``); the result is an action text
or None (nothing to do now). ``choose_action(view, rules, history, bot="basic")`` below is the
stateless entry point for the site (timeouts, disconnects, empty seats).

- ``BasicBot``: heuristics, well under a millisecond a decision.
- ``SearchBot``: determinized Monte Carlo over the basic bot's candidates, with a budget.
- ``RandomBot``: random legal moves (a baseline).
- ``baseline``: the basic bot without the 找朋友 reasoning (random legal calls, only the known
  side taken as the dealer's), the yardstick of ``shengji.bots.friendship``.

Every bot plays tables of 4 to 8 seats, 2 to 4 decks, tractor mode and 找朋友.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shengji.bots.base import VIEW_KEYS, Bot
from shengji.bots.basic import BasicBot
from shengji.bots.knowledge import Knowledge, knowledge_from_view
from shengji.bots.memory import Memory, public_history, remember
from shengji.bots.play import HandStats, play_hand
from shengji.bots.random_bot import RandomBot
from shengji.bots.search import SearchBot, SearchBudget
from shengji.engine.hand import HandState
from shengji.engine.rules import RuleSet
from shengji.engine.views import view_for

BOTS = ("basic", "search", "random", "baseline", "friendblind")


def make_bot(name: str, seed: int = 0, budget: SearchBudget | None = None) -> Bot:
    """A bot by name: ``basic``, ``search`` (with ``budget``), ``random``, ``baseline`` or
    ``friendblind`` (the basic bot whose friends never play as friends: an ablation)."""
    if name == "basic":
        return BasicBot(seed=seed)
    if name == "baseline":
        return BasicBot(friendship=False, seed=seed)
    if name == "friendblind":
        return BasicBot(friend_aware=False, seed=seed)
    if name == "search":
        return SearchBot(seed, budget)
    if name == "random":
        return RandomBot(seed)
    raise ValueError(f"unknown bot {name!r}; bots: {', '.join(BOTS)}")


def choose_action(
    view: Mapping[str, Any],
    rules: RuleSet,
    history: Sequence[str] = (),
    *,
    bot: str = "basic",
    seed: int = 0,
    budget: SearchBudget | None = None,
) -> str | None:
    """One decision for the view's seat, with a fresh bot (nothing kept between calls)."""
    return make_bot(bot, seed, budget).choose_action(view, rules, history)


def act_for_seat(
    state: HandState,
    seat: int,
    *,
    bot: str = "basic",
    seed: int = 0,
    budget: SearchBudget | None = None,
) -> str | None:
    """The bot's action for ``seat`` of a hand held by the server (a timeout, a disconnect, a
    bot's seat). Only ``view_for(state, seat)`` and the public history of ``state.actions``
    reach the bot; it never gets the state itself."""
    view = view_for(state, seat)
    history = public_history(state.actions, view)
    return choose_action(view, state.rules, history, bot=bot, seed=seed, budget=budget)


__all__ = [
    "BOTS",
    "VIEW_KEYS",
    "BasicBot",
    "Bot",
    "HandStats",
    "Knowledge",
    "Memory",
    "RandomBot",
    "SearchBot",
    "SearchBudget",
    "act_for_seat",
    "choose_action",
    "knowledge_from_view",
    "make_bot",
    "play_hand",
    "public_history",
    "remember",
]
