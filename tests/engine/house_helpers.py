"""Helpers for the house options' tests (RULES-SPEC.md §10): a hand brought to its last trick.

``last_trick`` deals a hand of any shape, lets the dealer bury, then sets the position the
test states: each seat's last cards, the trump, the buried cards, the final defending side and
the points taken so far. The hand then plays out through ``apply`` and its result is the
engine's own (levels, kitty bonus, next dealer), so a test chooses the attackers' points X
exactly, with no search for a deal that happens to give them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shengji.engine.actions import play
from shengji.engine.cards import parse_cards
from shengji.engine.hand import PLAYING, HandState, new_hand
from shengji.engine.rules import RuleSet, preset
from shengji.engine.trump import Trump
from shengji.engine.views import legal_actions
from shengji.settlement import FeeSchedule, HandOutcome, outcome_from_record

cards = parse_cards


def house_rules(players: int = 4, mode: str = "tractor", **options: object) -> RuleSet:
    """The ranked preset at a table shape, nobody bids (no-trump), with house options."""
    return preset("ranked").with_options(
        name="house",
        players=players,
        mode=mode,
        no_bid_first_hand="no_trump",
        no_bid="no_trump",
        **options,
    )


def last_trick(
    rules: RuleSet,
    hands: Sequence[str],
    *,
    levels: Sequence[str],
    dealer: int = 0,
    suit: str | None = None,
    buried: str = "",
    attacker_points: int = 0,
    side: Sequence[int] | None = None,
    wrapped: Sequence[bool] | None = None,
) -> HandState:
    """A hand at the start of its last trick, the dealer to lead: ``hands[seat]`` the seat's
    last cards (one play each), trump ``suit`` at the hand's level, ``buried`` the kitty (its
    points count for the kitty bonus), ``side`` the final defenders (找朋友; tractor mode keeps
    the dealer's side) and ``attacker_points`` the attackers' points taken so far."""
    state = new_hand(rules, 7, levels=tuple(levels), dealer=dealer, wrapped=wrapped)
    while state.phase != PLAYING:
        for action in legal_actions(state, None) or legal_actions(state, dealer):
            state.apply(action)
    assert state.phase == PLAYING and state.trump is not None
    state.trump = Trump(state.trump.level, suit, rules.tractor)
    state.hands = [list(cards(text)) for text in hands]
    state.buried = list(cards(buried))
    state.calls = []
    if side is not None:
        state.side = frozenset(side)
    state.attacker_points = attacker_points
    return state


def play_out(state: HandState, plays: Sequence[str]) -> HandState:
    """Play ``plays`` in turn from the seat to act (text, one play per seat)."""
    for text in plays:
        state.apply(play(state.turn, cards(text)))
    return state


def casual_outcome(
    result: dict[str, Any], ruleset: dict[str, Any], hand_levels: list[str]
) -> HandOutcome:
    """The settlement of a finished casual hand at stake 100, seat 0 dealing, nobody gone."""
    return outcome_from_record(
        status="finished",
        result=result,
        ruleset=ruleset,
        stake=100,
        dealer=0,
        hand_levels=hand_levels,
        escaped_seats=(),
        absent_seats=(),
        fees=FeeSchedule(),
        ranked=False,
    )
