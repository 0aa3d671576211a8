"""Hidden information at tables of 6 and 8 seats, tractor and 找朋友 (issue 32, item 3;
RULES-SPEC.md §9.4; docs/proof/HIDDEN-INFO.md, "Tables of 6 and 8 seats"): no frame to any seat
or spectator holds another seat's cards before they are played, the kitty (but the dealer's),
the calls before the first lead (but the dealer's), or any hint of who holds a called card
that is not played yet.

The checker (proof/leakcheck.py) is first shown to pass every genuine view of whole engine
hands of each shape and to catch each new kind of leak; then the drill plays five hands at
four tables of those shapes on real sockets and every frame is checked.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from proof.leakcheck import Checker, HandTruth, Receiver, check_frames
from proof.leakdrill import drill, shape_plans
from shengji.engine import HandState, legal_actions, new_hand, preset, view_for, view_public

HAND_ID = 11
SHAPES = [(6, "friends"), (8, "friends"), (6, "tractor"), (8, "tractor")]


def _users(players: int) -> list[int]:
    return [200 + seat for seat in range(players)]


SEED = 10**12  # far above any count in a view (a number equal to the seed is a leak)


def engine_hand(players: int, mode: str, seed: int = SEED) -> list[HandState]:
    """Every state of a hand of that shape played to its end by the engine's first legal
    moves (the dealer's sample calls in 找朋友, then the bury)."""
    state = new_hand(preset("ranked").with_options(players=players, mode=mode), seed, dealer=0)
    states = [state.copy()]
    while state.phase != "finished":
        if state.phase in ("dealing", "bidding"):
            state.apply("draw" if state.phase == "dealing" else "close")
        else:
            seat = state.to_act
            assert seat is not None
            state.apply(legal_actions(state, seat)[0], seat)
        states.append(state.copy())
    return states


def revealing_hand(players: int) -> list[HandState]:
    """A 找朋友 hand in which a seat other than the dealer fills a call and joins the side."""
    for seed in range(SEED, SEED + 60):
        states = engine_hand(players, "friends", seed)
        if len(states[-1].side) > 1:
            return states
    raise AssertionError("no hand with a friend revealed")


@pytest.fixture(scope="module")
def six_friends() -> list[HandState]:
    return revealing_hand(6)


def view_frame(states: list[HandState], seq: int, seat: int | None) -> dict[str, Any]:
    state = states[seq]
    view = view_public(state) if seat is None else view_for(state, seat)
    return {"type": "view", "hand": HAND_ID, "seq": seq, "view": view}


def leaks_of(states: list[HandState], receiver: Receiver) -> list[str]:
    truth = HandTruth(HAND_ID, states, _users(states[0].players))
    return [str(leak) for leak in Checker([truth]).check(receiver).leaks]


def seat_receiver(states: list[HandState], seat: int, frames: list[dict[str, Any]]) -> Receiver:
    return Receiver(f"seat {seat}", "seat", _users(states[0].players)[seat], frames=frames)


def spectator(frames: list[dict[str, Any]]) -> Receiver:
    return Receiver("public", "spectator", frames=frames)


def first_seq(states: list[HandState], test: Any) -> int:
    return next(seq for seq, state in enumerate(states) if test(state))


def called(states: list[HandState]) -> int:
    """The seq right after the dealer's calls (burying, before any lead)."""
    return first_seq(states, lambda s: bool(s.calls))


def reveal(states: list[HandState]) -> tuple[int, int, int]:
    """(seq at which a friend joined, the friend's seat, the index of the call it filled)."""
    seq = first_seq(states, lambda s: len(s.side) > 1)
    before, after = states[seq - 1], states[seq]
    index = next(i for i, c in enumerate(after.calls) if c.seat is not None and c.seat != 0)
    friend = after.calls[index].seat
    assert friend is not None and friend not in before.side
    return seq, friend, index


# --- the checker passes what is allowed ----------------------------------------------------------


@pytest.mark.parametrize(("players", "mode"), SHAPES, ids=lambda v: str(v))
def test_every_genuine_view_of_each_shape_passes(players: int, mode: str) -> None:
    states = revealing_hand(players) if mode == "friends" else engine_hand(players, mode)
    truth = HandTruth(HAND_ID, states, _users(players))
    every_seq = range(len(states))
    receivers = [
        seat_receiver(states, seat, [view_frame(states, seq, seat) for seq in every_seq])
        for seat in range(players)
    ]
    receivers.append(spectator([view_frame(states, seq, None) for seq in every_seq]))
    report = check_frames([truth], receivers)
    assert report.leaks == []
    assert report.frames == Counter({"seat": players * len(states), "spectator": len(states)})
    assert report.card_fields > players * len(states) // 2


def test_the_dealer_sees_the_calls_before_the_first_lead_and_everyone_after(
    six_friends: list[HandState],
) -> None:
    seq = called(six_friends)
    dealer = view_frame(six_friends, seq, 0)
    assert dealer["view"]["calls"]  # the dealer's own calls
    assert leaks_of(six_friends, seat_receiver(six_friends, 0, [dealer])) == []
    lead = first_seq(six_friends, lambda s: s.calls_shown)
    public = view_frame(six_friends, lead, None)
    assert public["view"]["calls"]
    assert leaks_of(six_friends, spectator([public])) == []


# --- the checker catches each new kind of leak -------------------------------------------------


def spoil_calls_to_a_non_dealer(states: list[HandState]) -> tuple[Receiver, str]:
    seq = called(states)
    frame = view_frame(states, seq, 3)
    frame["view"]["calls"] = view_frame(states, seq, 0)["view"]["calls"]
    return seat_receiver(states, 3, [frame]), "the calls before the first lead"


def spoil_calls_to_a_spectator(states: list[HandState]) -> tuple[Receiver, str]:
    seq = called(states)
    frame = view_frame(states, seq, None)
    frame["view"]["calls"] = view_frame(states, seq, 0)["view"]["calls"]
    return spectator([frame]), "the calls before the first lead"


def spoil_a_call_naming_its_holder(states: list[HandState]) -> tuple[Receiver, str]:
    seq, friend, index = reveal(states)
    frame = view_frame(states, seq - 1, None)
    frame["view"]["calls"][index]["seat"] = friend  # before the card was played
    return spectator([frame]), "calls other than the truth's"


def spoil_the_side_with_a_hidden_friend(states: list[HandState]) -> tuple[Receiver, str]:
    seq, friend, _ = reveal(states)
    frame = view_frame(states, seq - 1, 2)
    frame["view"]["side"] = sorted({*frame["view"]["side"], friend})
    return seat_receiver(states, 2, [frame]), "a side other than the public one"


def spoil_the_points_of_a_hidden_side(states: list[HandState]) -> tuple[Receiver, str]:
    seq, friend, _ = reveal(states)
    frame = view_frame(states, seq - 1, None)
    points = frame["view"]["points"]
    taken = states[seq - 1].seat_points[friend]
    points["attackers"] -= taken
    points["defenders"] += taken + 5  # counted as a defender's before the reveal
    return spectator([frame]), "points other than the public sides'"


def spoil_the_attackers_of_the_result(states: list[HandState]) -> tuple[Receiver, str]:
    last = len(states) - 1
    frame = view_frame(states, last, None)
    frame["view"]["result"]["attackers"] = frame["view"]["result"]["attackers"][1:]
    return spectator([frame]), "attackers other than the public ones"


def spoil_a_calls_line_before_the_first_lead(states: list[HandState]) -> tuple[Receiver, str]:
    seq = called(states)
    calls = " ".join(f"{c.ordinal}{c.card.text}" for c in states[seq].calls)
    line = {
        "user": None,
        "system": True,
        "code": "friends_called",
        "params": [0, calls],
        "text": f"seat 0 calls friends: {calls}",
        "at": None,
    }
    frames = [{"type": "chat", "line": line}, view_frame(states, seq, None)]
    return spectator(frames), "a 找朋友 line before what it reports was public"


def spoil_a_reveal_line_before_the_card_is_played(
    states: list[HandState],
) -> tuple[Receiver, str]:
    seq, friend, index = reveal(states)
    call = states[seq].calls[index]
    line = {
        "user": None,
        "system": True,
        "code": "friend_joins",
        "params": [friend, call.card.text, call.ordinal],
        "text": f"seat {friend} plays the call {call.ordinal}{call.card.text}: a friend of the"
        " dealer",
        "at": None,
    }
    frames = [{"type": "chat", "line": line}, view_frame(states, seq - 1, None)]
    return spectator(frames), "a 找朋友 line before what it reports was public"


def spoil_a_call_in_an_unknown_field(states: list[HandState]) -> tuple[Receiver, str]:
    seq = called(states)
    frame = view_frame(states, seq, 0)
    frame["view"]["note"] = "2AS"  # even to the dealer: no view field carries a call
    return seat_receiver(states, 0, [frame]), "a friend call in a view field"


def spoil_the_eighth_seats_hand_to_the_fourth(states: list[HandState]) -> tuple[Receiver, str]:
    seq = called(states)
    frame = view_frame(states, seq, 7)
    return seat_receiver(states, 3, [frame]), "the hand of seat 7"


def spoil_the_offered_calls_to_a_non_dealer(states: list[HandState]) -> tuple[Receiver, str]:
    seq = called(states)
    frame = view_frame(states, seq, 4)
    frame["view"]["call_defaults"] = view_frame(states, seq, 0)["view"]["call_defaults"]
    return seat_receiver(states, 4, [frame]), "the calls offered to the dealer"


def held_call_check(states: list[HandState], seq: int) -> dict[str, Any]:
    """A check's answer with its warning (docs/PROTOCOL.md, check): a call of a dealer's card."""
    call = f"1{states[seq].calls[0].card.text}"
    return {"type": "check", "ok": True, "warning": "call_held", "call": call, "held": 1}


def spoil_a_checks_call_to_a_non_dealer(states: list[HandState]) -> tuple[Receiver, str]:
    seq = called(states)
    frames = [held_call_check(states, seq), view_frame(states, seq, 3)]
    return seat_receiver(states, 3, frames), "a friend call in a message before the first lead"


def test_the_dealer_may_be_told_of_a_held_call_before_the_first_lead() -> None:
    states = revealing_hand(8)
    seq = called(states)
    frames = [held_call_check(states, seq), view_frame(states, seq, 0)]
    assert leaks_of(states, seat_receiver(states, 0, frames)) == []


def spoil_the_kitty_to_a_non_dealer(states: list[HandState]) -> tuple[Receiver, str]:
    seq = called(states)
    frame = view_frame(states, seq, 5)
    frame["view"]["kitty"] = view_frame(states, seq, 0)["view"]["kitty"]
    return seat_receiver(states, 5, [frame]), "hidden kitty cards"


SPOILERS = [
    spoil_calls_to_a_non_dealer,
    spoil_calls_to_a_spectator,
    spoil_a_call_naming_its_holder,
    spoil_the_side_with_a_hidden_friend,
    spoil_the_points_of_a_hidden_side,
    spoil_the_attackers_of_the_result,
    spoil_a_calls_line_before_the_first_lead,
    spoil_a_reveal_line_before_the_card_is_played,
    spoil_a_call_in_an_unknown_field,
    spoil_the_eighth_seats_hand_to_the_fourth,
    spoil_the_kitty_to_a_non_dealer,
    spoil_the_offered_calls_to_a_non_dealer,
    spoil_a_checks_call_to_a_non_dealer,
]


@pytest.mark.parametrize("spoil", SPOILERS, ids=lambda f: f.__name__.removeprefix("spoil_"))
def test_the_checker_catches_each_leak_at_an_eight_seat_friends_table(spoil: Any) -> None:
    states = revealing_hand(8)
    receiver, reason = spoil(states)
    found = leaks_of(states, receiver)
    assert found, "not caught"
    assert all(reason in leak for leak in found), found


def test_regression_an_escape_before_the_first_lead_showed_the_calls_in_the_result() -> None:
    state = engine_hand(6, "friends")[0]
    while state.phase in ("dealing", "bidding"):
        state.apply("draw" if state.phase == "dealing" else "close")
    state.apply(legal_actions(state, 0)[0], 0)  # the dealer's calls
    assert state.calls and not state.calls_shown
    state.apply("leave 3", 3)
    frame = {"type": "view", "hand": HAND_ID, "seq": 0, "view": view_public(state)}
    truth = HandTruth(HAND_ID, [state], _users(6))
    assert Checker([truth]).check(spectator([frame])).leaks == []


# --- five hands on real sockets ----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_six_and_eight_seat_hands_on_real_sockets_leak_nothing(
    celery_worker: object, settings: Any
) -> None:
    """Four tables at once (leakdrill.shape_plans): 6 and 8 seats, tractor and 找朋友, the
    dealer's calls, reveals, bids during the deal, a watched seat, an escape with called cards
    still held; every frame of every seat, spectator, watcher and the lobby checked."""
    settings.SHENGJI_DISCONNECT_GRACE_S = 1
    settings.SHENGJI_ARRIVAL_GRACE_S = 60
    settings.SHENGJI_BOT_DELAY_MS = 0
    result = await drill(shape_plans(seed=30))

    assert result.report.leaks == [], "\n".join(map(str, result.report.leaks[:20]))
    assert [run.failure for run in result.runs] == [None] * 4
    figures = result.figures()
    assert figures["hands"] == 5
    assert figures["outcomes"] == {"escaped": 1, "finished": 4}
    assert figures["http_problems"] == 0
    friends = [t for t in result.truths if t.steps[-1].calls]
    assert len(friends) == 3  # the dealer called in every 找朋友 hand
    assert any(len(t.steps[-1].side) > 1 for t in friends)  # a friend was revealed
    frames = figures["frames_by_receiver"]
    for kind in ("seat", "spectator", "anonymous", "watcher_allowed", "watcher_refused", "http"):
        assert frames.get(kind, 0) > 0, kind
    print(figures)
