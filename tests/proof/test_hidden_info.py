"""Hidden information (issue 9, item 5): over many whole hands on real sockets, a recorder of
every frame sent to every seat, spectator and the lobby shows that no card of another seat's
hand, nor the buried kitty, reached anyone before it was public (docs/proof/HIDDEN-INFO.md).

The checker (proof/leakcheck.py) is first shown to catch each kind of leak, on
frames built from real hands and then spoiled; then the drill plays 20 hands at four tables at
once and every frame is checked.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games import selectors
from games.handstate import forget_states
from games.models import Hand
from proof.leakcheck import Checker, Grant, HandTruth, Receiver, check_frames
from proof.leakdrill import drill, standard_plans
from shengji.engine import (
    FailedThrow,
    HandState,
    format_cards,
    legal_actions,
    new_hand,
    preset,
    record_of,
    replay,
    view_for,
    view_public,
)
from tests.games.helpers import advance, make_table, make_users, seat_all

# --- hands built with the engine alone -----------------------------------------------------------

HAND_ID = 7
USERS = [101, 102, 103, 104]


def _throw_that_fails(state: HandState, seat: int) -> str | None:
    """The top and the bottom card of a plain suit led together, if that throw fails."""
    trump = state.trump
    assert trump is not None
    for group in range(4):
        plain = sorted({c for c in state.hands[seat] if trump.groups[c] == group})
        plain.sort(key=trump.orders.__getitem__)
        if len(plain) < 3:
            continue
        text = f"play {seat} {format_cards([plain[-1], plain[0]])}"
        trial = state.copy()
        trial.apply(text)
        if len(trial.failed_throws) > len(state.failed_throws):
            return text
    return None


def engine_hand(rules_name: str) -> list[HandState]:
    """Every state of a hand played to its end by the engine's first legal moves, with a
    throw that fails (forced under ``ranked``, rejected under ``seed004``) and a bid."""
    for seed in range(10**12, 10**12 + 200):  # seeds far above any count in a view
        state = new_hand(preset(rules_name), seed, dealer=0)
        while state.phase == "dealing":
            state.apply("draw")
            bids = legal_actions(state, 1) if state.drawn > 60 and not state.bids else []
            if bids:
                state.apply(bids[0], 1)
        state.apply("close")
        threw = False
        while state.phase != "finished":
            seat = state.to_act
            assert seat is not None
            text = None
            if not threw and state.phase == "playing" and not state.trick.plays:
                text = _throw_that_fails(state, seat)
                threw = text is not None
            state.apply(text or legal_actions(state, seat)[0], seat)
        if threw and state.bids:
            return list(replay(record_of(state)))
    raise AssertionError("no hand with a failed throw")


@pytest.fixture(scope="module")
def forced() -> list[HandState]:
    return engine_hand("ranked")


@pytest.fixture(scope="module")
def rejected() -> list[HandState]:
    return engine_hand("seed004")


def view_frame(states: list[HandState], seq: int, seat: int | None) -> dict[str, Any]:
    state = states[seq]
    view = view_public(state) if seat is None else view_for(state, seat)
    return {"type": "view", "hand": HAND_ID, "seq": seq, "view": view}


def genuine_frames(states: list[HandState], seat: int | None) -> list[dict[str, Any]]:
    return [view_frame(states, seq, seat) for seq in range(len(states))]


def leaks_of(states: list[HandState], receiver: Receiver) -> list[str]:
    truth = HandTruth(HAND_ID, states, USERS)
    return [str(leak) for leak in Checker([truth]).check(receiver).leaks]


def seat_receiver(seat: int, frames: list[dict[str, Any]]) -> Receiver:
    return Receiver(f"seat {seat}", "seat", USERS[seat], frames=frames)


def first_seq(states: list[HandState], test: Any) -> int:
    return next(seq for seq, state in enumerate(states) if test(state))


def failed(states: list[HandState]) -> tuple[int, FailedThrow]:
    seq = first_seq(states, lambda s: s.failed_throws)
    return seq, states[seq].failed_throws[0]


# --- the checker passes what is allowed ----------------------------------------------------------


@pytest.mark.parametrize("rules", ["forced", "rejected"])
def test_every_genuine_view_passes_and_every_card_field_is_counted(
    rules: str, request: pytest.FixtureRequest
) -> None:
    states = request.getfixturevalue(rules)
    truth = HandTruth(HAND_ID, states, USERS)
    receivers = [seat_receiver(seat, genuine_frames(states, seat)) for seat in range(4)]
    receivers.append(Receiver("public", "spectator", frames=genuine_frames(states, None)))
    report = check_frames([truth], receivers)
    assert report.leaks == []
    assert report.card_fields > 3 * len(states)  # each seat's own hand, at least
    assert report.frames == Counter({"seat": 4 * len(states), "spectator": len(states)})


def test_a_forced_throws_whole_attempt_is_public_but_a_rejected_one_is_not(
    forced: list[HandState], rejected: list[HandState]
) -> None:
    seq, throw = failed(forced)
    other = (throw.seat + 1) % 4
    frame = view_frame(forced, seq, other)
    assert frame["view"]["failed_throws"][0]["attempted"]  # shown to everyone
    assert leaks_of(forced, seat_receiver(other, [frame])) == []

    seq, throw = failed(rejected)
    other = (throw.seat + 1) % 4
    frame = view_frame(rejected, seq, other)
    assert frame["view"]["failed_throws"][0]["attempted"] is None  # the views mask it (D15)
    unmasked = view_frame(rejected, seq, throw.seat)["view"]["failed_throws"][0]["attempted"]
    frame["view"]["failed_throws"][0]["attempted"] = unmasked
    found = leaks_of(rejected, seat_receiver(other, [frame]))
    assert found and f"seat {throw.seat}'s hidden cards" in found[0]
    own = view_frame(rejected, seq, throw.seat)  # the thrower sees its own attempt
    assert leaks_of(rejected, seat_receiver(throw.seat, [own])) == []


def test_a_bid_and_a_play_of_the_same_card_are_not_counted_twice(
    forced: list[HandState],
) -> None:
    """Two decks: a bid's cards stay in the hand; the same card later played is one card."""
    last = len(forced) - 1
    bid = forced[last].bids[0]
    frame = view_frame(forced, last, None)
    assert frame["view"]["bids"][0]["cards"] == format_cards(bid.cards)
    line = {"user": None, "text": f"seat {bid.seat} bids {format_cards(bid.cards)}", "system": True}
    chat = {"type": "chat", "line": {**line, "at": None}}
    assert leaks_of(forced, Receiver("public", "spectator", frames=[frame, chat])) == []


# --- the checker catches each kind of leak -------------------------------------------------------


def _burying(states: list[HandState]) -> int:
    return first_seq(states, lambda s: s.phase == "burying")


def spoil_hand_to_spectator(states: list[HandState]) -> tuple[Receiver, str]:
    frame = view_frame(states, _burying(states), 2)
    return Receiver("public", "spectator", frames=[frame]), "the hand of seat 2"


def spoil_kitty_to_non_dealer(states: list[HandState]) -> tuple[Receiver, str]:
    seq = _burying(states)
    dealer = states[seq].dealer
    assert dealer is not None
    other = (dealer + 1) % 4
    frame = view_frame(states, seq, other)
    frame["view"]["kitty"] = view_frame(states, seq, dealer)["view"]["kitty"]
    return seat_receiver(other, [frame]), "hidden kitty cards"


def spoil_buried_kitty_before_the_end(states: list[HandState]) -> tuple[Receiver, str]:
    seq = first_seq(states, lambda s: s.phase == "playing") + 5
    frame = view_frame(states, seq, None)
    frame["view"]["kitty"] = format_cards(states[seq].buried)
    return Receiver("public", "spectator", frames=[frame]), "hidden kitty cards"


def spoil_a_card_not_held(states: list[HandState]) -> tuple[Receiver, str]:
    seq = _burying(states) + 3
    frame = view_frame(states, seq, 0)
    hands = states[seq].hands
    foreign = next(card for card in hands[1] if card not in hands[0])
    frame["view"]["hand"] = format_cards([*hands[0][1:], foreign])
    return seat_receiver(0, [frame]), "cards seat 0 does not hold"


def spoil_an_unknown_field(states: list[HandState]) -> tuple[Receiver, str]:
    seq = _burying(states) + 3
    frame = view_frame(states, seq, 0)
    frame["view"]["hint"] = format_cards(states[seq].hands[0][:1])  # even its own card
    return seat_receiver(0, [frame]), "not known to carry cards"


def spoil_the_seed(states: list[HandState]) -> tuple[Receiver, str]:
    frame = view_frame(states, 10, None)
    frame["view"]["shuffle"] = states[10].seed
    return Receiver("public", "spectator", frames=[frame]), "seed"


def spoil_a_replay_key(states: list[HandState]) -> tuple[Receiver, str]:
    frame = view_frame(states, 10, None)
    frame["view"]["kitty_dealt"] = ""
    return Receiver("public", "spectator", frames=[frame]), "only replays"


def spoil_a_system_line(states: list[HandState]) -> tuple[Receiver, str]:
    seq = _burying(states)
    hidden = format_cards(states[seq].hands[3][:2])
    line = {"user": None, "text": f"seat 3 bids {hidden}", "system": True, "at": None}
    frames = [{"type": "chat", "line": line}, view_frame(states, seq, None)]
    return Receiver("public", "spectator", frames=frames), "no public event"


def spoil_a_lobby_frame(states: list[HandState]) -> tuple[Receiver, str]:
    table = {"id": 1, "name": format_cards(states[_burying(states)].kitty[:1]), "seats": []}
    frame = {"type": "lobby", "tables": [table]}
    return Receiver("lobby", "lobby", frames=[frame]), "not known to carry cards"


def spoil_a_seat_frame_after_standing_up(states: list[HandState]) -> tuple[Receiver, str]:
    """A socket whose user is not a player of the hand gets a seat's view."""
    frame = view_frame(states, _burying(states), 1)
    return Receiver("stood up", "seat", 999, frames=[frame]), "the hand of seat 1"


def spoil_a_watched_seat_after_the_permission_ended(
    states: list[HandState],
) -> tuple[Receiver, str]:
    seq = _burying(states)
    grant = Grant(1, (HAND_ID, 0), (HAND_ID, seq))
    frames = [view_frame(states, seq, 1), view_frame(states, seq + 1, 1)]
    return Receiver("watcher", "watcher_allowed", grants=[grant], frames=frames), "seat 1"


SPOILERS = [
    spoil_hand_to_spectator,
    spoil_kitty_to_non_dealer,
    spoil_buried_kitty_before_the_end,
    spoil_a_card_not_held,
    spoil_an_unknown_field,
    spoil_the_seed,
    spoil_a_replay_key,
    spoil_a_system_line,
    spoil_a_lobby_frame,
    spoil_a_seat_frame_after_standing_up,
    spoil_a_watched_seat_after_the_permission_ended,
]


@pytest.mark.parametrize("spoil", SPOILERS, ids=lambda f: f.__name__.removeprefix("spoil_"))
def test_the_checker_catches_a_leaked_card(spoil: Any, forced: list[HandState]) -> None:
    receiver, reason = spoil(forced)
    found = leaks_of(forced, receiver)
    assert len(found) == 1, found
    assert reason in found[0]


def test_an_answer_about_a_live_hand_may_hold_no_card(forced: list[HandState]) -> None:
    checker = Checker([HandTruth(HAND_ID, forced, USERS)])
    assert checker.check_document("/api/hands/7/", {"id": 7, "seats": []}).leaks == []
    spoiled = {"id": 7, "outcome": {"flipped": "AS"}}
    assert len(checker.check_document("/api/hands/7/", spoiled).leaks) == 1


# --- a regression found by the drill -------------------------------------------------------------


@pytest.mark.django_db
def test_regression_a_state_frame_showed_a_later_view_than_its_seq() -> None:
    """A state frame read the hand row, then the log: when the deal committed in between, the
    view after 100 draws went out numbered seq 0 (selectors.hand_view_for)."""
    users = make_users()
    hand = seat_all(make_table(users[0]), users)
    stale = Hand.objects.get(pk=hand.pk)
    assert stale.seq == 0
    assert advance(hand)  # the deal (interval 0): 100 draws commit
    forget_states()
    presence = selectors.Presence(stale.match.table_id, 0, None)
    shown = selectors.hand_view_for(hand=stale, presence=presence)
    assert shown["seq"] == 0
    assert shown["view"]["drawn"] == 0 and shown["view"]["hand"] == ""


# --- twenty hands on real sockets -------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_twenty_hands_on_real_sockets_leak_no_card(
    celery_worker: object, settings: Any
) -> None:
    """Four tables at once, five hands each (leakdrill.standard_plans): forced and rejected
    throws, bids during the deal, bot seats, a player who drops and comes back, two escapes, a
    permission withdrawn mid-hand, a seat that changes player; every frame checked."""
    settings.SHENGJI_DISCONNECT_GRACE_S = 1
    # Four tables open at once on a loaded machine: their players get time to arrive (the
    # drill tests drops and returns, not a quick-match player who never comes).
    settings.SHENGJI_ARRIVAL_GRACE_S = 60
    settings.SHENGJI_BOT_DELAY_MS = 0
    result = await drill(standard_plans(hands=5, seed=10))

    assert result.report.leaks == [], "\n".join(map(str, result.report.leaks[:20]))
    assert [run.failure for run in result.runs] == [None] * 4
    figures = result.figures()
    assert figures["hands"] == 20
    assert figures["outcomes"] == {"escaped": 2, "finished": 18}
    assert figures["http_problems"] == 0
    assert figures["events"]["came back"] == 2
    assert figures["events"]["withdrew"] == 1
    assert figures["events"]["changed player"] == 1
    assert figures["failed_throws"].get("forced", 0) >= 1
    assert figures["failed_throws"].get("rejected", 0) >= 1
    assert figures["hands_with_bids"] >= 1
    frames = figures["frames_by_receiver"]
    for kind in ("seat", "spectator", "anonymous", "watcher_allowed", "watcher_refused", "http"):
        assert frames.get(kind, 0) > 0, kind
    assert frames["lobby"] > 20
    print(figures)
