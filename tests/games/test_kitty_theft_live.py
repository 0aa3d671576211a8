"""炒地皮 live (RULES-SPEC.md §10.24, ``kitty_theft``): after each bury the server opens a bid
window and closes it at its deadline (``bid_window_s`` from the bury); a bid made in it over the
socket takes the kitty, and its bidder buries on a clock of its own (``bury_s``); a window with
no bid starts the play, the dealer leading. Only the seat that buried last sees the kitty."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.errors import ApplicationError
from games import services
from games.handstate import (
    action_texts,
    forget_states,
    kept_state,
    load_state,
    record_for,
)
from games.models import Action, ChatLine, Hand
from games.services._common import hand_seats
from games.services.hands import table_act
from games.services.movefacts import facts_of
from games.services.optimistic import plan
from ladder.models import HandSettlement
from shengji.engine import (
    HandState,
    legal_actions,
    replay,
    replay_final,
    view_for,
    view_public,
)
from tests.games.helpers import (
    advance,
    fresh,
    hand_act,
    make_table,
    make_users,
    play_out,
    ranked_table,
    seat_all,
)
from tests.games.test_optimistic_move import mover
from tests.games.test_table_socket import Peer, connect

pytestmark = [pytest.mark.django_db(transaction=True)]

# Long enough for a loaded machine to make the overcall inside the window (each window is then
# waited out by ``deadline_passes``).
WINDOW_S = 6


def _bids(state: HandState, seat: int) -> list[str]:
    return [str(a) for a in legal_actions(state, seat) if str(a).startswith("bid ")]


def _plan(hand: Hand, seed: int) -> tuple[int, str, int] | None:
    """(first bidder, its bid, a seat able to overcall after that bidder's first legal bury)
    for the deal of ``seed``, or None."""
    hand.seed = seed
    state = replay_final(record_for(hand, []), check_result=False)
    while state.phase == "dealing":
        state.apply("draw")
    for first in range(4):
        bids = _bids(state, first)
        if not bids:
            continue
        trial = state.copy()
        trial.apply(bids[0], first)
        trial.apply("close")
        trial.apply(str(legal_actions(trial, first)[0]), first)
        for thief in range(4):
            if thief != first and _bids(trial, thief):
                return first, bids[0], thief
    return None


def theft_table(bury_seconds: int = 60, **house: str) -> tuple[list[Any], int, int, int, str, int]:
    """A casual 炒地皮 table's first hand, its seed one where a seat overcalls the dealer's
    bid after the bury: (users, table, hand, first bidder, its bid, the thief)."""
    users = make_users(4, "theft")
    table = make_table(
        users[0],
        house_rules={"kitty_theft": "on", **house},
        bid_window_seconds=WINDOW_S,
        bury_seconds=bury_seconds,
        play_seconds=60,
    )
    assert table.rules().kitty_theft == "on"
    hand = seat_all(table, users)
    assert fresh(hand).seq == 0  # nothing dealt yet: the test picks the deal
    for seed in range(1, 500):
        plan = _plan(fresh(hand), seed)
        if plan is not None:
            Hand.objects.filter(pk=hand.pk).update(seed=seed)
            forget_states()  # the state kept for the old seed
            return users, table.pk, hand.pk, *plan
    raise AssertionError("no seed gives a theft")


def deadline_passes(hand_id: int) -> None:
    """The deadline task's own run (``hand_advance``), once the hand's deadline has come."""
    hand = Hand.objects.get(pk=hand_id)
    assert hand.deadline is not None
    while Hand.objects.get(pk=hand_id).deadline is not None and not advance(hand):
        time.sleep(0.1)


def state_of(hand_id: int) -> HandState:
    return load_state(Hand.objects.get(pk=hand_id))


async def caught_up(peer: Peer, hand_id: int) -> None:
    """The socket has been sent the hand's view as it is now."""
    seq = (await database_sync_to_async(Hand.objects.get)(pk=hand_id)).seq
    if peer.seq < seq:
        await peer.until(lambda f: peer.seq >= seq)


async def send(peer: Peer, hand_id: int, kind: str, cards: str) -> None:
    """The move from the socket, on the hand as it is now; taken (no error)."""
    await caught_up(peer, hand_id)
    seq = peer.seq
    await peer.socket.send_json_to({"type": kind, "seq": seq, "cards": cards})
    frame = await peer.until(lambda f: f["type"] == "error" or peer.seq > seq)
    assert frame["type"] != "error", frame


async def test_a_thief_overcalls_takes_the_kitty_buries_and_play_starts_with_the_dealer(
    settings: Any,
) -> None:
    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id, hand_id, dealer, bid, thief = await database_sync_to_async(theft_table)()
    peers = [await connect(table_id, user, f"seat {i}") for i, user in enumerate(users)]
    watcher = await connect(table_id, None, "spectator")
    db = database_sync_to_async

    while (await db(state_of)(hand_id)).phase == "dealing":
        await db(advance)(Hand(pk=hand_id))
    await send(peers[dealer], hand_id, "bid", bid.split(" ", 2)[2])
    await db(deadline_passes)(hand_id)  # the first window closes: the dealer buries
    state = await db(state_of)(hand_id)
    assert state.phase == "burying" and state.to_act == dealer
    await send(
        peers[dealer], hand_id, "bury", str(legal_actions(state, dealer)[0]).split(" ", 2)[2]
    )

    # The theft window: a bidding phase under a trump, its deadline the bury's plus the window.
    state = await db(state_of)(hand_id)
    hand = await db(Hand.objects.get)(pk=hand_id)
    assert state.phase == "bidding" and state.in_theft_window and state.trump is not None
    bury_at = await db(lambda: hand.actions.order_by("-seq").first().created_at)()
    assert hand.deadline is not None
    assert abs((hand.deadline - bury_at).total_seconds() - WINDOW_S) < 0.5
    overcall = _bids(state, thief)[-1]
    await send(peers[thief], hand_id, "bid", overcall.split(" ", 2)[2])
    await db(deadline_passes)(hand_id)  # closed by its deadline: the thief takes the kitty

    state = await db(state_of)(hand_id)
    hand = await db(Hand.objects.get)(pk=hand_id)
    assert state.phase == "burying" and state.to_act == thief and state.dealer == dealer
    close_at = await db(lambda: hand.actions.order_by("-seq").first().created_at)()
    assert hand.deadline is not None
    assert abs((hand.deadline - close_at).total_seconds() - 60) < 0.5  # its own bury_s
    eight = " ".join(view_for(state, dealer)["hand"].split()[:8])
    with pytest.raises(ApplicationError) as refused:  # the dealer buries no more
        await db(hand_act)(
            hand_id=hand_id, user=users[dealer], text=f"bury {dealer} {eight}", seq=hand.seq
        )
    assert refused.value.code == "not_your_turn"
    for peer in peers:
        await peer.until(lambda f, p=peer: p.seq >= hand.seq and p.hand_view["phase"] == "burying")
    assert peers[thief].hand_view["kitty"] is not None
    assert all(peers[s].hand_view["kitty"] is None for s in range(4) if s != thief)
    thief_bury = str(legal_actions(state, thief)[0]).split(" ", 2)[2]
    await send(peers[thief], hand_id, "bury", thief_bury)

    # The next window: nobody bids; its close starts the play, the dealer to lead.
    assert (await db(state_of)(hand_id)).in_theft_window
    await db(deadline_passes)(hand_id)
    state = await db(state_of)(hand_id)
    assert state.phase == "playing" and state.to_act == dealer
    for peer in peers:
        await peer.until(lambda f, p=peer: p.hand_view["phase"] == "playing")
    assert sorted(peers[thief].hand_view["kitty"].split()) == sorted(thief_bury.split())
    assert all(peers[s].hand_view["kitty"] is None for s in range(4) if s != thief)

    # The rest as the bots would; the hand finishes and is settled once.
    hand = await db(lambda: play_out(Hand.objects.get(pk=hand_id), users))()
    assert hand.status == Hand.Status.FINISHED
    settled = db(HandSettlement.objects.filter(hand_id=hand_id).count)
    for _ in range(200):
        if await settled():
            break
        await asyncio.sleep(0.05)
    assert await settled() == 1

    # Every frame was exactly its seat's view of the replayed log: the kitty only the last
    # burier's while the hand ran.
    for peer in (*peers, watcher):
        await peer.drain()
    record = await db(lambda: record_for(hand, action_texts(hand)))()
    states = list(replay(record))
    for seat, peer in enumerate(peers):
        for frame in (f for f in peer.frames if f["type"] == "view"):
            truth = states[frame["seq"]]
            assert frame["view"] == view_for(truth, seat)
            shown = truth.phase != "finished" and frame["view"]["kitty"] is not None
            assert not shown or seat == truth.burier
    for frame in (f for f in watcher.frames if f["type"] == "view"):
        assert frame["view"] == view_public(states[frame["seq"]])
        if frame["view"]["phase"] != "finished":
            assert frame["view"]["kitty"] is None
    for peer in (*peers, watcher):
        await peer.socket.disconnect()


def test_a_thief_out_of_time_has_the_bot_bury_for_it_and_the_next_window_closes() -> None:
    users, _table_id, hand_id, dealer, bid, thief = theft_table(bury_seconds=1)
    hand = Hand.objects.get(pk=hand_id)
    while state_of(hand_id).phase == "dealing":
        advance(hand)

    def acts(seat: int, text: str) -> None:
        hand_act(hand_id=hand_id, user=users[seat], text=text, seq=fresh(hand).seq)

    acts(dealer, bid)
    deadline_passes(hand_id)
    acts(dealer, str(legal_actions(state_of(hand_id), dealer)[0]))
    acts(thief, _bids(state_of(hand_id), thief)[-1])
    deadline_passes(hand_id)
    assert state_of(hand_id).to_act == thief
    deadline_passes(hand_id)  # the thief's bury_s ran out: the bot buries for it

    last = Action.objects.filter(hand_id=hand_id).order_by("-seq").first()
    assert last is not None and last.auto and last.text.startswith(f"bury {thief} ")
    assert ChatLine.objects.filter(table_id=_table_id, code="timeout_bury").count() == 1
    state = state_of(hand_id)
    assert state.in_theft_window and state.burier == thief
    deadline_passes(hand_id)  # nobody bids: the play starts, the dealer to lead
    state = state_of(hand_id)
    assert state.phase == "playing" and state.to_act == dealer


def test_a_window_bid_is_taken_back_live_and_the_window_keeps_its_deadline() -> None:
    users, table_id, hand_id, dealer, bid, thief = theft_table(bid_takeback="on")
    hand = Hand.objects.get(pk=hand_id)
    while state_of(hand_id).phase == "dealing":
        advance(hand)

    def acts(seat: int, kind: str, cards: str = "") -> None:
        table_act(table_id=table_id, user=users[seat], kind=kind, cards=cards, seq=fresh(hand).seq)

    acts(dealer, "bid", bid.split(" ", 2)[2])
    deadline_passes(hand_id)
    acts(dealer, "bury", str(legal_actions(state_of(hand_id), dealer)[0]).split(" ", 2)[2])
    window_ends = fresh(hand).deadline
    acts(thief, "bid", _bids(state_of(hand_id), thief)[-1].split(" ", 2)[2])
    with pytest.raises(ApplicationError) as refused:  # the first window's bid is fixed
        acts(dealer, "takeback")
    assert refused.value.code == "takeback_not_last"
    acts(thief, "takeback")
    state = state_of(hand_id)
    assert state.in_theft_window and [b.seat for b in state.bids] == [dealer]
    assert fresh(hand).deadline == window_ends
    assert ChatLine.objects.filter(table_id=table_id, code="takeback_bid").count() == 1
    deadline_passes(hand_id)
    state = state_of(hand_id)
    assert state.phase == "playing" and state.to_act == dealer and state.burier == dealer


def test_a_bury_that_opens_a_window_is_left_to_the_locking_path() -> None:
    """The one-statement move knows a step's clock, not a window's: a bury under 炒地皮 that
    opens one is not planned there (the locking path sets the window's deadline)."""
    users, table_id, hand_id, dealer, bid, _thief = theft_table()
    hand = Hand.objects.get(pk=hand_id)
    while state_of(hand_id).phase == "dealing":
        advance(hand)
    table_act(
        table_id=table_id,
        user=users[dealer],
        kind="bid",
        cards=bid.split(" ", 2)[2],
        seq=fresh(hand).seq,
    )
    deadline_passes(hand_id)
    hand = fresh(hand)
    state = state_of(hand_id)
    assert state.phase == "burying" and kept_state(hand_id, hand.seq) is not None
    cards = str(legal_actions(state, dealer)[0]).split(" ", 2)[2]
    facts = facts_of(hand, hand_seats(hand), False)
    assert plan(facts, mover(users[dealer]), "bury", cards, hand.seq) is None
    table_act(table_id=table_id, user=users[dealer], kind="bury", cards=cards, seq=hand.seq)
    assert state_of(hand_id).in_theft_window


def test_a_ranked_table_cannot_steal_the_kitty() -> None:
    users = make_users(4, "theftranked")
    with pytest.raises(ApplicationError) as refused:
        services.table_create(
            creator=users[0], name="ranked", ranked=True, house_rules={"kitty_theft": "on"}
        )
    assert refused.value.code == "ranked_quick_match_only"
    assert ranked_table(users).rules().kitty_theft == "off"
