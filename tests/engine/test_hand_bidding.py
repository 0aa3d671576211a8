"""Bidding for trump (RULES-SPEC.md §5.2): the three ``bidding`` options, bids checked against the
cards drawn so far, and who deals (``first_hand_dealer``, later hands)."""

from __future__ import annotations

import pytest

from shengji.engine.cards import format_cards
from shengji.engine.errors import ShengjiError
from shengji.engine.hand import HandState
from shengji.engine.rules import RuleSet
from shengji.engine.views import legal_actions
from tests.engine.hand_helpers import designed_deck, draw_all, draw_until, hand_for


def table(rules: RuleSet | str, hands: dict[int, str], seed: int = 0, **setup: object) -> HandState:
    """A hand whose seats receive the given cards first; drawn to the end."""
    start = setup.get("dealer") or 0
    deck = designed_deck(hands, start=start, fill_seed=9)  # type: ignore[arg-type]
    state = hand_for(rules, seed=seed, decks=[deck], **setup)  # type: ignore[arg-type]
    return draw_all(state)


def refused(state: HandState, action: str) -> str:
    with pytest.raises(ShengjiError) as caught:
        state.apply(action)
    return caught.value.code


def kinds(state: HandState) -> list[str]:
    return [b.kind for b in state.bids]


def test_a_bid_is_checked_against_the_cards_drawn_so_far() -> None:
    state = hand_for("ranked", decks=[designed_deck({1: "3S 4S 2H"}, fill_seed=1)])
    while len(state.hands[1]) < 2:
        state.apply("draw")
    assert refused(state, "bid 1 2H") == "bid_cards_not_held"
    draw_until(state, 1, "2H")
    state.apply("bid 1 2H")
    assert state.standing_bid is not None and state.standing_bid.seat == 1
    assert state.phase == "dealing"  # bids come between draws


def test_showings() -> None:
    state = table("ranked", {0: "2S 3S SJ 2H", 1: "BJ BJ"})
    assert refused(state, "bid 0 3S") == "bid_not_showable"
    assert refused(state, "bid 0 SJ") == "bid_not_showable"
    assert refused(state, "bid 0 2S 2H") == "bid_not_showable"
    assert refused(state, "bid 1 BJ BJ BJ") == "bid_not_showable"


def test_strength_order_and_the_bidder_deals() -> None:
    state = table("seed000", {0: "2S", 1: "2H 2H", 2: "SJ SJ", 3: "BJ BJ"})
    state.apply("bid 0 2S")
    assert refused(state, "bid 1 2H") == "bid_too_weak"
    state.apply("bid 1 2H 2H")
    assert refused(state, "bid 0 2S") == "bid_too_weak"
    state.apply("bid 2 SJ SJ")
    state.apply("bid 3 BJ BJ")
    assert kinds(state) == ["first", "overturn", "no_trump_overturn", "no_trump_overturn"]
    state.apply("close")
    assert state.dealer == 3 and state.trump is not None and state.trump.suit is None


def test_strength_lets_the_bidder_reinforce_and_sj_pair_loses_to_bj_pair() -> None:
    state = table("seed004", {0: "2S 2S", 1: "BJ BJ", 2: "SJ SJ"})
    state.apply("bid 0 2S")
    state.apply("bid 0 2S 2S")
    state.apply("bid 1 BJ BJ")
    assert refused(state, "bid 2 SJ SJ") == "bid_too_weak"
    assert kinds(state) == ["first", "self_reinforce", "no_trump_overturn"]


def test_count_overcalls_and_first_bidder_deals() -> None:
    state = table("seed002", {0: "2S 2S", 1: "2H 2H", 2: "SJ SJ", 3: "2C 2C"})
    state.apply("bid 0 2S")
    assert refused(state, "bid 0 2S 2S") == "bid_own_overcall"
    assert refused(state, "bid 1 2H") == "bid_too_weak"
    state.apply("bid 1 2H 2H")
    assert refused(state, "bid 3 2C 2C") == "bid_too_weak"
    state.apply("bid 2 SJ SJ")  # as many identical jokers: no-trump
    assert refused(state, "bid 3 2C 2C") == "bid_too_weak"
    state.apply("close")
    # first_bidder: seat 0 bid first and deals, though seat 2's bid stands.
    assert state.dealer == 0 and state.trump is not None and state.trump.suit is None


def test_count_overcall_must_show_another_suit() -> None:
    state = table("seed002", {0: "2S", 1: "2S"})
    state.apply("bid 0 2S")
    assert refused(state, "bid 1 2S") == "bid_same_suit"


def test_count_joker_pair_over_a_single_and_no_single_jokers() -> None:
    state = table("seed002", {0: "2D", 1: "BJ BJ SJ"})
    assert refused(state, "bid 1 SJ") == "bid_not_showable"
    state.apply("bid 0 2D")
    state.apply("bid 1 BJ BJ")
    state.apply("close")
    assert state.dealer == 0 and state.trump is not None and state.trump.suit is None


def seed003_level(seed: int) -> str:
    return hand_for("seed003", seed=seed).level


@pytest.mark.parametrize("seed", [1, 2])
def test_reinforce_self_protect_then_no_trump(seed: int) -> None:
    level = seed003_level(seed)
    lv = {s: level + s for s in "SHCD"}
    state = table(
        "seed003",
        {0: f"{lv['S']} {lv['S']}", 1: f"{lv['H']} {lv['H']}", 2: "SJ SJ", 3: "BJ BJ"},
        seed=seed,
    )
    assert state.level == level
    state.apply(f"bid 0 {lv['S']}")
    state.apply(f"bid 0 {lv['S']} {lv['S']}")  # 自保
    assert refused(state, f"bid 1 {lv['H']} {lv['H']}") == "bid_too_weak"
    state.apply("bid 2 SJ SJ")  # 反无主
    assert refused(state, "bid 3 BJ BJ") == "bid_too_weak"  # equal: the earliest stands
    assert kinds(state) == ["first", "self_reinforce", "no_trump_overturn"]
    state.apply("close")
    assert state.dealer == 2 and state.trump is not None and state.trump.suit is None


def test_reinforce_overturn_and_self_overturn() -> None:
    seed = 3
    level = seed003_level(seed)
    lv = {s: level + s for s in "SHCD"}
    state = table(
        "seed003",
        {0: f"{lv['S']} {lv['C']} {lv['C']}", 1: f"{lv['H']} {lv['H']}", 3: f"{lv['D']} {lv['D']}"},
        seed=seed,
    )
    state.apply(f"bid 0 {lv['S']}")
    state.apply(f"bid 1 {lv['H']} {lv['H']}")  # 反主
    assert refused(state, f"bid 3 {lv['D']} {lv['D']}") == "bid_too_weak"
    assert refused(state, f"bid 0 {lv['C']} {lv['C']}") == "bid_too_weak"
    assert kinds(state) == ["first", "overturn"]
    state.apply("close")
    assert state.dealer == 1 and state.trump is not None and state.trump.suit == "H"

    other = table(
        "seed003", {0: f"{lv['S']} {lv['C']} {lv['C']}", 1: f"{lv['H']} {lv['H']}"}, seed=seed
    )
    other.apply(f"bid 0 {lv['S']}")
    other.apply(f"bid 0 {lv['C']} {lv['C']}")  # 自反
    assert refused(other, f"bid 1 {lv['H']} {lv['H']}") == "bid_too_weak"
    assert kinds(other) == ["first", "self_overturn"]


def test_later_hands_bids_choose_only_the_trump() -> None:
    state = table("ranked", {1: "4H", 3: "4S 4S"}, dealer=2, levels=("4", "2"))
    assert state.level == "4"
    state.apply("bid 1 4H")
    state.apply("bid 3 4S 4S")
    state.apply("close")
    assert state.dealer == 2 and state.trump is not None and state.trump.suit == "S"


def test_legal_bids_are_listed() -> None:
    state = table("ranked", {0: "2S 2S BJ BJ 2D 3S3S4S4S5S5S6S6S7S7S8S8S9S9STSTSJSJSQSQS"})
    offered = {format_cards(a.cards) for a in legal_actions(state, 0)}
    assert offered == {"2S", "2S 2S", "2D", "BJ BJ"}
    state.apply("bid 0 2S 2S")
    offered = {format_cards(a.cards) for a in legal_actions(state, 0)}
    assert offered == {"BJ BJ"}
    assert [str(a) for a in legal_actions(state, None)] == ["close"]
