"""A bid taken back in a kitty theft window (RULES-SPEC.md §10.22, §10.24): only a bid made in
the window open now, while it is the last bid; the bids a close or a bury fixed stand."""

from __future__ import annotations

from shengji.engine.hand import BIDDING, BURYING, PLAYING
from shengji.engine.record import record_of, replay_final
from shengji.engine.views import can_take_back, view_all, view_for
from tests.engine.hand_helpers import finish
from tests.engine.test_house_theft import bury_lowest, dealt, kitty_seen, refused, theft


def test_a_window_bid_is_taken_back_and_the_earlier_bids_stand() -> None:
    state = dealt(theft(bid_takeback="on"), {0: "2H 2H", 1: "BJ BJ", 2: "SJ SJ"})
    state.apply("bid 0 2H")
    state.apply("close")
    buried = bury_lowest(state, keep="2H 2H")
    assert state.in_theft_window
    # The dealer's bid of the first window was fixed by its close.
    assert refused(state, "takeback 0") == "takeback_not_last"
    assert not can_take_back(state, 0)
    state.apply("bid 2 SJ SJ")
    assert refused(state, "takeback 0") == "takeback_not_last"
    assert can_take_back(state, 2)
    state.apply("takeback 2")
    assert state.phase == BIDDING and state.in_theft_window
    assert [bid.seat for bid in state.bids] == [0] and state.burier == 0
    assert kitty_seen(state) == [0] and view_for(state, 0)["kitty"] == buried
    assert refused(state, "takeback 2") == "takeback_not_last"
    state.apply("close")
    assert state.phase == PLAYING and state.turn == 0
    finish(state)
    assert view_all(replay_final(record_of(state))) == view_all(state)


def test_a_thiefs_bid_is_fixed_once_its_window_closed() -> None:
    state = dealt(theft(bid_takeback="on"), {0: "2H", 1: "BJ BJ", 2: "SJ SJ"})
    state.apply("bid 0 2H")
    state.apply("close")
    bury_lowest(state)
    state.apply("bid 2 SJ SJ")
    state.apply("close")
    assert state.phase == BURYING and state.to_act == 2
    assert refused(state, "takeback 2") == "wrong_phase"
    bury_lowest(state, keep="SJ SJ")
    assert refused(state, "takeback 2") == "takeback_not_last"
    state.apply("bid 1 BJ BJ")
    state.apply("takeback 1")
    assert [bid.seat for bid in state.bids] == [0, 2] and state.burier == 2
    state.apply("close")
    assert state.phase == PLAYING and state.turn == 0 and kitty_seen(state) == [2]
