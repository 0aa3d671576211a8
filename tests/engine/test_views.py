"""Views (OpenSpiel's observations): a seat sees its own hand and the public record, nothing
more. Checked on every intermediate state of random hands of every preset."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from shengji.engine.hand import BURYING, FINISHED, PLAYING, HandState
from shengji.engine.record import record_of, replay
from shengji.engine.rules import PRESET_NAMES
from shengji.engine.views import legal_actions, view_for, view_public
from tests.engine.hand_helpers import cards, random_hand

PRIVATE_KEYS = {"seat", "hand"}


def revealed(state: HandState) -> set[int]:
    """Cards that public play has shown: bids, plays, forced throws, flipped kitty cards."""
    shown = {c for b in state.bids for c in b.cards}
    shown |= {c for t in [*state.tricks, state.trick] for p in t.plays for c in p}
    shown |= {c for f in state.failed_throws for c in f.attempted}
    shown |= set(state.flipped)
    return shown


def first_hidden(hand: list[int], shown: set[int], unlike: int = -1) -> int | None:
    return next((k for k, c in enumerate(hand) if c not in shown and c != unlike), None)


def hidden_swaps(state: HandState, viewer: int | None) -> list[tuple[int, int, int, int]]:
    """(seat a, index a, seat b, index b): two hidden cards of two other seats to exchange."""
    shown = revealed(state)
    swaps = []
    others = [s for s in range(4) if s != viewer]
    for i, a in enumerate(others):
        for b in others[i + 1 :]:
            ia = first_hidden(state.hands[a], shown)
            if ia is None:
                continue
            ib = first_hidden(state.hands[b], shown, state.hands[a][ia])
            if ib is not None:
                swaps.append((a, ia, b, ib))
    return swaps


def swapped(state: HandState, swap: tuple[int, int, int, int]) -> HandState:
    other = state.copy()
    a, ia, b, ib = swap
    other.hands[a][ia], other.hands[b][ib] = other.hands[b][ib], other.hands[a][ia]
    return other


def without_throws(view: dict[str, object]) -> dict[str, object]:
    """A view without what differs by viewer for rejected throws (D15)."""
    kept = {k: v for k, v in view.items() if k != "failed_throws"}
    result = kept.get("result")
    if isinstance(result, dict):
        kept["result"] = {k: v for k, v in result.items() if k != "failed_throws"}
    return kept


def check_views(state: HandState) -> None:
    public = view_public(state)
    json.dumps(public)
    assert "hands" not in public and "seed" not in public and "hand" not in public
    for seat in range(4):
        view = view_for(state, seat)
        json.dumps(view)
        assert view["seat"] == seat
        assert Counter(cards(view["hand"])) == Counter(state.hands[seat])
        shows_kitty = seat == state.dealer and state.phase in (BURYING, PLAYING)
        if state.phase == FINISHED and state.result and state.result.outcome == "played":
            shows_kitty = True
        assert (view["kitty"] is not None) == shows_kitty
        rest = {k: v for k, v in view.items() if k not in PRIVATE_KEYS}
        if shows_kitty and public["kitty"] is None:
            rest["kitty"] = None
        rest.pop("failed_throws")
        assert without_throws(rest) == without_throws(public)
        for swap in hidden_swaps(state, seat):
            assert view_for(swapped(state, swap), seat) == view
    for swap in hidden_swaps(state, None):
        assert view_public(swapped(state, swap)) == public


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_views_never_show_another_seats_hand(name: str) -> None:
    for seed in range(6):
        state = random_hand(name, 40 + seed, dealer=None if seed % 3 == 0 else seed % 4)
        for step in replay(record_of(state)):
            check_views(step)


def test_flipped_kitty_is_public_and_the_kitty_goes_to_the_dealer_only() -> None:
    state = random_hand("ranked", 1)
    steps = list(replay(record_of(state)))
    burying = next(s for s in steps if s.phase == BURYING)
    dealer = burying.dealer
    assert dealer is not None
    assert view_for(burying, dealer)["kitty"] is not None
    assert all(view_for(burying, s)["kitty"] is None for s in range(4) if s != dealer)
    assert view_public(burying)["kitty"] is None
    assert view_public(burying)["flipped"] == view_for(burying, dealer)["flipped"]


def test_a_rejected_throw_shows_its_cards_to_the_thrower_only() -> None:
    for seed in range(20):
        state = random_hand("seed004", seed)
        rejected = [f for f in state.failed_throws if f.result == "rejected"]
        if rejected:
            failed = rejected[0]
            view = view_for(state, failed.seat)["failed_throws"][0]
            assert view["attempted"] is not None
            other = view_for(state, (failed.seat + 1) % 4)["failed_throws"][0]
            assert other["attempted"] is None
            assert other["attempted_count"] == len(failed.attempted)
            return
    pytest.fail("no rejected throw in 20 hands")


def test_legal_actions_are_accepted() -> None:
    state = random_hand("ranked", 5)
    for step in replay(record_of(state)):
        if step.phase == FINISHED:
            assert all(legal_actions(step, s) == [] for s in range(4))
            continue
        for seat in [None, 0, 1, 2, 3]:
            for action in legal_actions(step, seat):
                step.check_action(seat, action)
        actor = step.to_act
        if actor is not None:
            assert legal_actions(step, actor)


def test_an_escape_reveals_nothing_more() -> None:
    state = random_hand("ranked", 1)
    steps = list(replay(record_of(state)))
    burying = next(s for s in steps if s.phase == BURYING).copy()
    dealer = burying.dealer
    assert dealer is not None
    burying.apply(f"leave {(dealer + 1) % 4}")
    assert view_public(burying)["kitty"] is None
    assert all(view_for(burying, s)["kitty"] is None for s in range(4))
    check_views(burying)


def test_regression_escape_result_showed_the_kitty_points() -> None:
    state = random_hand("ranked", 3)
    steps = list(replay(record_of(state)))
    playing = next(s for s in steps if s.phase == PLAYING and s.tricks).copy()
    playing.apply(f"leave {playing.turn}")
    assert playing.result is not None and playing.result.kitty_points == 0
    for seat in range(4):
        assert view_for(playing, seat)["result"]["kitty_points"] == 0
    assert view_public(playing)["result"]["kitty_points"] == 0


def test_regression_escape_result_showed_a_rejected_throw() -> None:
    for seed in range(40):
        state = random_hand("seed004", seed)
        steps = list(replay(record_of(state)))
        for step in steps:
            rejected = [f for f in step.failed_throws if f.result == "rejected"]
            if not rejected or step.phase != PLAYING:
                continue
            step = step.copy()
            thrower = rejected[0].seat
            step.apply(f"leave {(thrower + 1) % 4}")
            other = view_for(step, (thrower + 2) % 4)["result"]["failed_throws"][0]
            assert other["attempted"] is None
            assert view_public(step)["result"]["failed_throws"][0]["attempted"] is None
            own = view_for(step, thrower)["result"]["failed_throws"][0]
            assert own["attempted"] is not None
            return
    pytest.fail("no rejected throw in 40 hands")


@pytest.mark.parametrize("seat", [-1, 4, True, "0", None])
def test_regression_view_for_a_seat_outside_0_3_is_refused(seat: object) -> None:
    from shengji.engine import ShengjiError

    state = random_hand("ranked", 2)
    with pytest.raises(ShengjiError) as refused:
        view_for(state, seat)  # type: ignore[arg-type]
    assert refused.value.code == "wrong_seat"
    if seat is not None:
        with pytest.raises(ShengjiError):
            legal_actions(state, seat)  # type: ignore[arg-type]
