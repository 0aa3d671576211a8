"""Takebacks live (RULES-SPEC.md §10.22, §10.23): 悔牌 and the bid takeback over the table
socket, logged as any move and replayed; the seat's own only; the clock keeps running; the turns
and the settlement read only what stands; ranked tables refuse them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.errors import ApplicationError
from games import services
from games.handstate import action_texts, load_state, record_for
from games.models import Action, ChatLine, Hand, HandPlayer
from games.replay import replay_steps_get
from games.services.hands import table_act
from ladder.models import HandSettlement
from shengji.engine import legal_actions, replay, replay_final, view_all, view_for, view_public
from shengji.engine.views import can_take_back
from tests.games.helpers import (
    advance,
    deal_and_close,
    fresh,
    hand_act,
    make_table,
    make_users,
    ranked_table,
    ready_all,
    seat_all,
)
from tests.games.test_table_socket import connect

pytestmark = [pytest.mark.django_db(transaction=True)]

TAKEBACKS = {"takeback": "on", "bid_takeback": "on"}


def first_legal(hand: Hand) -> tuple[int, str]:
    state = load_state(fresh(hand))
    seat = state.to_act
    assert seat is not None
    return seat, str(legal_actions(state, seat)[0])


def users_at_a_takeback_table(prefix: str, **options: Any) -> tuple[list[Any], Hand]:
    users = make_users(4, prefix)
    table = make_table(users[0], house_rules=TAKEBACKS, play_seconds=60, **options)
    assert table.rules().takeback == "on" and table.rules().bid_takeback == "on"
    return users, seat_all(table, users)


def led_and_followed() -> tuple[list[Any], int, int, int]:
    """A hand at a takeback table, buried, led and followed once: (users, table, hand, the
    follower's seat)."""
    users, hand = users_at_a_takeback_table("tbsock")
    hand = deal_and_close(hand)
    for _ in range(3):  # the bury, the lead, the first follow
        seat, text = first_legal(hand)
        hand_act(hand_id=hand.pk, user=users[seat], text=text, seq=fresh(hand).seq)
    return users, hand.match.table_id, hand.pk, seat


def states_of(hand_id: int) -> list[Any]:
    hand = Hand.objects.get(pk=hand_id)
    return list(replay(record_for(hand, action_texts(hand))))


async def test_a_play_is_taken_back_over_the_socket_logged_replayed_and_the_clock_runs_on(
    settings: Any,
) -> None:
    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id, hand_id, follower = await database_sync_to_async(led_and_followed)()
    leader = (follower - 1) % 4
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    watcher = await connect(table_id, None, "spectator")
    mine, theirs = peers[follower], peers[leader]
    assert mine.hand_view["can_take_back"] is True
    assert theirs.hand_view["can_take_back"] is False
    played = mine.hand_view["trick"]["plays"][-1]["cards"]

    # Never for another seat: the leader's socket naming the follower takes back nothing of
    # theirs (the server names the sender's own seat, whose lead is no longer the last).
    seq = theirs.seq
    await theirs.socket.send_json_to({"type": "takeback", "seq": seq, "seat": follower})
    assert (await theirs.until(lambda f: f["type"] == "error"))["code"] == "takeback_not_last"
    await mine.socket.send_json_to({"type": "takeback", "seq": seq - 1})
    assert (await mine.until(lambda f: f["type"] == "error"))["code"] == "stale_seq"

    await mine.socket.send_json_to({"type": "takeback", "seq": seq})
    await mine.until(lambda f: f["type"] == "view" and f["seq"] == seq + 1)
    view = mine.hand_view
    assert view["to_act"] == follower and view["can_take_back"] is False
    assert view["taken_back"] == {"seat": follower, "kind": "play", "cards": played}
    assert len(view["trick"]["plays"]) == 1
    line = await watcher.until(lambda f: f["type"] == "chat")
    assert line["line"]["code"] == "takeback_play"
    assert line["line"]["params"][:2] == [follower, played]
    await watcher.until(lambda f: f["type"] == "view" and f["seq"] == seq + 1)
    assert watcher.hand_view["taken_back"]["cards"] == played

    def logged() -> tuple[list[str], Hand, Any, Any]:
        texts = action_texts(Hand.objects.get(pk=hand_id))
        lead_at = Action.objects.get(hand_id=hand_id, seq=seq - 2).created_at
        back_at = Action.objects.get(hand_id=hand_id, seq=seq).created_at
        return texts, Hand.objects.get(pk=hand_id), lead_at, back_at

    texts, hand, lead_at, back_at = await database_sync_to_async(logged)()
    assert texts[-2:] == [f"play {follower} {played}", f"takeback {follower}"]
    # The follower's clock kept running: the turn began with the lead, not with the takeback.
    assert hand.deadline == lead_at + timedelta(seconds=60) < back_at + timedelta(seconds=60)

    # The follower plays again; every frame is the replayed log's view of its seq.
    await mine.socket.send_json_to({"type": "play", "seq": mine.seq, "cards": played})
    await mine.until(lambda f: f["type"] == "view" and f["seq"] == seq + 2)
    for peer in (*peers, watcher):
        await peer.drain()
    states = await database_sync_to_async(states_of)(hand_id)
    for seat, peer in enumerate(peers):
        for frame in (f for f in peer.frames if f["type"] == "view"):
            assert frame["view"] == view_for(states[frame["seq"]], seat)
    for frame in (f for f in watcher.frames if f["type"] == "view"):
        assert frame["view"] == view_public(states[frame["seq"]])
    for peer in (*peers, watcher):
        await peer.socket.disconnect()


def bidding_hand() -> tuple[list[Any], Hand, int, str]:
    """A takeback table's hand in its bid window, every card dealt, one seat able to bid."""
    users, hand = users_at_a_takeback_table("tbbid", bid_window_seconds=600)
    while load_state(fresh(hand)).phase == "dealing":
        advance(hand)
    state = load_state(fresh(hand))
    for seat in range(4):
        bids = legal_actions(state, seat)
        if bids:
            return users, fresh(hand), seat, str(bids[0])
    raise AssertionError("nobody can bid")


def test_a_bid_is_taken_back_and_the_bid_window_goes_on() -> None:
    users, hand, seat, bid = bidding_hand()
    other = users[(seat + 1) % 4]
    hand_act(hand_id=hand.pk, user=users[seat], text=bid, seq=hand.seq)
    assert can_take_back(load_state(fresh(hand)), seat)
    hint, _ = services.table_hint(table_id=hand.match.table_id, user=users[seat])
    assert hint in {"bid", "none"}  # the hint never takes back
    with pytest.raises(ApplicationError) as refused:
        hand_act(hand_id=hand.pk, user=other, text=f"takeback {seat}", seq=fresh(hand).seq)
    # Never for another seat: the sender's takeback is his own, and the last bid is not his.
    assert refused.value.code == "takeback_not_last"
    table_act(
        table_id=hand.match.table_id,
        user=users[seat],
        kind="takeback",
        cards="",
        seq=fresh(hand).seq,
    )
    state = load_state(fresh(hand))
    assert state.bids == [] and state.phase == "bidding"
    assert action_texts(fresh(hand))[-2:] == [bid, f"takeback {seat}"]
    line = ChatLine.objects.filter(table_id=hand.match.table_id, code="takeback_bid").get()
    assert line.params[:2] == [seat, bid.split(" ", 2)[2]]


def test_a_ranked_table_refuses_takebacks() -> None:
    users = make_users(4, "tbranked")
    table = ranked_table(users)
    hand = deal_and_close(ready_all(table, users))
    for _ in range(2):
        seat, text = first_legal(hand)
        hand_act(hand_id=hand.pk, user=users[seat], text=text, seq=fresh(hand).seq)
    seq = fresh(hand).seq
    with pytest.raises(ApplicationError) as refused:
        table_act(table_id=table.pk, user=users[seat], kind="takeback", cards="", seq=seq)
    assert refused.value.code == "takeback_not_allowed"
    assert fresh(hand).seq == seq  # nothing logged
    assert "can_take_back" not in view_for(load_state(fresh(hand)), seat)


def test_a_hand_with_takebacks_is_settled_once_on_what_stands() -> None:
    """Each play of the first tricks that can be is taken back and made again; the hand ends,
    is settled once, on the result its log replays to, and each seat's turns are its plays
    that stand."""
    users, hand = users_at_a_takeback_table("tbsettle")
    hand = deal_and_close(hand)
    takebacks = 0
    while fresh(hand).status == Hand.Status.PLAYING:
        seat, text = first_legal(hand)
        hand_act(hand_id=hand.pk, user=users[seat], text=text, seq=fresh(hand).seq)
        state = load_state(fresh(hand))
        taking = takebacks < 12 and text.startswith("play") and state.phase == "playing"
        if taking and can_take_back(state, seat):
            hand_act(
                hand_id=hand.pk, user=users[seat], text=f"takeback {seat}", seq=fresh(hand).seq
            )
            hand_act(hand_id=hand.pk, user=users[seat], text=text, seq=fresh(hand).seq)
            takebacks += 1
    hand = fresh(hand)
    assert takebacks == 12 and hand.status == Hand.Status.FINISHED
    final = replay_final(record_for(hand, action_texts(hand)))
    assert final.result is not None and hand.result == final.result.to_dict()
    assert view_all(final)["tricks_played"] == 25
    assert HandSettlement.objects.filter(hand=hand).count() == 1
    turns = dict(HandPlayer.objects.filter(hand=hand).values_list("seat", "turns"))
    dealer = final.dealer
    assert turns == {s: 25 + (1 if s == dealer else 0) for s in range(4)}
    with pytest.raises(ApplicationError) as refused:
        hand_act(hand_id=hand.pk, user=users[0], text="takeback 0", seq=hand.seq)
    assert refused.value.code == "no_hand"
    steps = [s for s in replay_steps_get(hand=hand) if s["kind"] == "takeback"]
    assert len(steps) == 12  # the replay shows each takeback, and what it took back
    assert all(s["view"]["taken_back"]["seat"] == s["seat"] for s in steps)
