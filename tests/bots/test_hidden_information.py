"""A bot sees only its seat's view and the public history: never another hand or the kitty.

The bots read a whitelist of view keys (``VIEW_KEYS``); these tests check the behaviour: the
same view gives the same choice whatever the hidden cards are, poisoned extra keys change
nothing, and the redacted and the raw action log give the same choice.
"""

from __future__ import annotations

from typing import Any

import pytest

from shengji.bots import SearchBudget, act_for_seat, choose_action, make_bot, public_history
from shengji.engine.cards import format_cards
from shengji.engine.hand import HandState
from shengji.engine.views import view_for
from tests.bots.helpers import RANKED, states_at_plays

BUDGET = SearchBudget(max_samples=4, max_ms=None)
CUTS = (1, 2, 3, 4, 17, 42, 43, 71, 96)


def decisions() -> list[tuple[HandState, list[str]]]:
    return [pair for index in range(3) for pair in states_at_plays(index, CUTS)]


def revealed(state: HandState) -> set[int]:
    """Cards whose place public play has told: bids, flipped kitty cards, thrown cards, and
    cards whose other copy was played (a swap could make a past follow owe a pair)."""
    shown = {c for b in state.bids for c in b.cards} | set(state.flipped)
    shown |= {c for f in state.failed_throws for c in f.attempted}
    shown |= {c for t in [*state.tricks, state.trick] for p in t.plays for c in p}
    return shown


def swap_hidden(state: HandState, viewer: int) -> HandState | None:
    """The same public position with two hidden single cards of one suit group exchanged
    between two other seats, or None when there are none."""
    trump = state.trump
    assert trump is not None
    shown = revealed(state)
    others = [s for s in range(4) if s != viewer]
    for i, a in enumerate(others):
        for b in others[i + 1 :]:
            hand_a, hand_b = state.hands[a], state.hands[b]
            for x in hand_a:
                for y in hand_b:
                    if x in shown or y in shown or x in hand_b or y in hand_a:
                        continue
                    if trump.groups[x] != trump.groups[y] or hand_a.count(x) > 1:
                        continue
                    if hand_b.count(y) > 1:
                        continue
                    other = state.copy()
                    other.hands[a][hand_a.index(x)] = y
                    other.hands[b][hand_b.index(y)] = x
                    return other
    return None


@pytest.mark.parametrize("bot", ["basic", "search"])
def test_same_view_same_choice_whatever_the_hidden_cards(bot: str) -> None:
    checked = 0
    for state, history in decisions():
        seat = state.to_act
        assert seat is not None
        other = swap_hidden(state, seat)
        if other is None:
            continue
        view = view_for(state, seat)
        assert view_for(other, seat) == view
        assert other.hands != state.hands
        first = make_bot(bot, 5, BUDGET).choose_action(view, RANKED, history)
        second = make_bot(bot, 5, BUDGET).choose_action(view_for(other, seat), RANKED, history)
        assert first == second
        checked += 1
    assert checked >= 10


def poisoned(view: dict[str, Any], state: HandState) -> dict[str, Any]:
    """The view with view_all's secret keys added, all of them lies."""
    lies = dict(view)
    lies["hands"] = ["BJ BJ SJ SJ"] * 4
    lies["seed"] = 12345
    lies["buried"] = "AS AS AH AH AC AC AD AD"
    lies["kitty_dealt"] = "KS KS KH KH KC KC KD KD"
    lies["deck"] = format_cards(range(54))
    del state
    return lies


@pytest.mark.parametrize("bot", ["basic", "search"])
def test_poisoned_secret_keys_are_never_read(bot: str) -> None:
    for state, history in decisions()[:12]:
        seat = state.to_act
        assert seat is not None
        view = view_for(state, seat)
        clean = make_bot(bot, 9, BUDGET).choose_action(view, RANKED, history)
        dirty = make_bot(bot, 9, BUDGET).choose_action(poisoned(view, state), RANKED, history)
        assert clean == dirty
        state.check_action(seat, str(clean))


def test_redacted_and_raw_history_give_the_same_choice() -> None:
    for state, _ in decisions():
        seat = state.to_act
        assert seat is not None
        view = view_for(state, seat)
        raw = [str(a) for a in state.actions]
        redacted = public_history(raw, view)
        assert all(not t.startswith("draw") for t in redacted)
        if seat != state.dealer:
            assert all(len(t.split()) == 2 for t in redacted if t.startswith("bury"))
        assert choose_action(view, RANKED, raw) == choose_action(view, RANKED, redacted)


def test_without_history_the_bot_still_plays_legally() -> None:
    for state, _ in decisions():
        seat = state.to_act
        assert seat is not None
        action = choose_action(view_for(state, seat), RANKED, ())
        assert action is not None
        state.check_action(seat, action)


def test_bots_take_no_state_argument() -> None:
    # The interface itself: a view (a dict), the rules and a list of texts, nothing else.
    import inspect

    for bot in ("basic", "search", "random"):
        params = list(inspect.signature(make_bot(bot).choose_action).parameters)
        assert params == ["view", "rules", "history"]


def test_act_for_seat_passes_only_the_view_and_the_public_history() -> None:
    for state, _ in decisions()[:6]:
        seat = state.to_act
        assert seat is not None
        view = view_for(state, seat)
        history = public_history(state.actions, view)
        assert act_for_seat(state, seat) == choose_action(view, RANKED, history)
        other = (seat + 1) % 4
        assert act_for_seat(state, other) is None


# --- bigger tables: 6 and 8 seats, tractor mode and 找朋友 ------------------------------------


def swap_hidden_any(state: HandState, viewer: int) -> HandState | None:
    """``swap_hidden`` at a table of any size: two hidden single cards of one suit group
    exchanged between two other seats (a called card may be one of them: nobody's view says
    who holds it)."""
    trump = state.trump
    assert trump is not None
    shown = revealed(state)
    others = [s for s in range(state.players) if s != viewer]
    for i, a in enumerate(others):
        for b in others[i + 1 :]:
            hand_a, hand_b = state.hands[a], state.hands[b]
            for x in hand_a:
                for y in hand_b:
                    if x in shown or y in shown or x in hand_b or y in hand_a:
                        continue
                    if trump.groups[x] != trump.groups[y]:
                        continue
                    if hand_a.count(x) > 1 or hand_b.count(y) > 1:
                        continue
                    other = state.copy()
                    other.hands[a][hand_a.index(x)] = y
                    other.hands[b][hand_b.index(y)] = x
                    return other
    return None


@pytest.mark.parametrize("shape", ["6/3/friends", "8/4/tractor", "8/4/friends"])
@pytest.mark.parametrize("bot", ["basic", "search"])
def test_at_6_and_8_seats_the_choice_depends_only_on_the_view(shape: str, bot: str) -> None:
    from shengji.bots.legality import shape_rules

    rules = shape_rules("ranked", shape)
    checked = 0
    for state, history in states_at_plays(0, (1, 2, 7, 30, 61, 95, 140), rules, seed=5):
        seat = state.to_act
        assert seat is not None
        other = swap_hidden_any(state, seat)
        if other is None:
            continue
        view = view_for(state, seat)
        assert view_for(other, seat) == view
        assert other.hands != state.hands
        first = make_bot(bot, 5, BUDGET).choose_action(view, rules, history)
        second = make_bot(bot, 5, BUDGET).choose_action(view_for(other, seat), rules, history)
        assert first == second
        poisoned_view = poisoned(view, state)
        assert make_bot(bot, 5, BUDGET).choose_action(poisoned_view, rules, history) == first
        state.check_action(seat, str(first))
        checked += 1
    assert checked >= 5
