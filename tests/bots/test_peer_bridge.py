"""The translation of bench/peer_bridge.py between our notation and the peer bot's
(bench/bench_peer.py), on fixed data and on positions of real hands; no peer checkout needed.

The peer's side, as its engine writes it: a card is its suit (``S H D C``) then its rank
(``2`` … ``10``, ``J Q K A``), the jokers ``LJ`` (small) and ``BJ`` (big); a declaration's
strength is 1 for a level card, 2 a level pair, 3 a small-joker pair, 4 a big-joker pair; a
trick is ``{"leader", "plays": [{"seat", "cards"}], "winner", "points"}``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from random import Random

import pytest

from bench.peer_bridge import (
    action_text,
    bid_strength,
    fill_hidden,
    our_card,
    our_cards,
    peer_card,
    peer_cards,
    peer_declaration,
    peer_request,
    peer_trick,
    unseen,
)
from shengji.bots.match import deal_hand
from shengji.bots.memory import public_history
from shengji.engine.actions import DRAW_ACTION
from shengji.engine.cards import Card, format_cards, full_deck, parse_cards
from shengji.engine.hand import HandState
from shengji.engine.trump import Trump
from shengji.engine.views import view_for
from tests.bots.helpers import RANKED, played_hand, states_at_plays
from tests.bots.test_hidden_information import swap_hidden

PEER_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
PEER_DECK = [s + r for s in "SHDC" for r in PEER_RANKS] + ["LJ", "BJ"]


def test_every_card_translates_both_ways() -> None:
    codes = [peer_card(c) for c in range(54)]
    assert sorted(codes) == sorted(PEER_DECK)
    assert [our_card(code) for code in codes] == list(range(54))


@pytest.mark.parametrize(
    ("ours", "peer"),
    [
        ("TS", "S10"),
        ("AH", "HA"),
        ("2C", "C2"),
        ("KD", "DK"),
        ("SJ", "LJ"),
        ("BJ", "BJ"),
        ("JS", "SJ"),
    ],
)
def test_fixed_cards(ours: str, peer: str) -> None:
    assert peer_card(Card(ours)) == peer
    assert our_card(peer) == Card(ours)


@pytest.mark.parametrize("bad", ["T10", "S1", "ST", "SSJ", "X", "S11", "", "LJ2"])
def test_a_code_the_peer_never_writes_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a peer card"):
        our_card(bad)


def test_cards_keep_their_order_and_copies() -> None:
    cards = parse_cards("TH TH 3S SJ BJ")
    assert peer_cards(cards) == ["H10", "H10", "S3", "LJ", "BJ"]
    assert our_cards(["H10", "H10", "S3", "LJ", "BJ"]) == cards


@pytest.mark.parametrize(
    ("shown", "strength"), [("7H", 1), ("7H 7H", 2), ("SJ SJ", 3), ("BJ BJ", 4)]
)
def test_bid_strength_is_the_peers(shown: str, strength: int) -> None:
    assert bid_strength(parse_cards(shown)) == strength


def test_the_standing_bid_is_the_declaration() -> None:
    view = {
        "bids": [
            {"seat": 1, "cards": "TD", "suit": "D", "kind": "first"},
            {"seat": 3, "cards": "TS TS", "suit": "S", "kind": "first"},
        ]
    }
    assert peer_declaration(view) == {"seat": 3, "cards": ["S10", "S10"], "strength": 2}
    assert peer_declaration({"bids": []}) is None


@pytest.mark.parametrize(
    ("op", "codes", "text"),
    [
        ("play", ["S10", "S10", "SJ", "SJ"], "play 2 TS TS JS JS"),
        ("declare", ["LJ", "LJ"], "bid 2 SJ SJ"),
        (
            "bury",
            ["C2", "C3", "C4", "C6", "C7", "C8", "C9", "CJ"],
            "bury 2 2C 3C 4C 6C 7C 8C 9C JC",
        ),
    ],
)
def test_the_answer_becomes_our_action(op: str, codes: list[str], text: str) -> None:
    assert action_text(op, 2, codes) == text


def test_a_trick_gets_our_winner_and_its_points() -> None:
    # Level 2, hearts trump: 3H ruffs the spade lead, then the level card 2S (a trump above
    # the plain trumps) beats it.
    trump = Trump("2", "H")
    plays = [
        (1, parse_cards("AS")),
        (2, parse_cards("KS")),
        (3, parse_cards("3H")),
        (0, parse_cards("2S")),
    ]
    assert peer_trick(plays, trump, RANKED) == {
        "leader": 1,
        "plays": [
            {"seat": 1, "cards": ["SA"]},
            {"seat": 2, "cards": ["SK"]},
            {"seat": 3, "cards": ["H3"]},
            {"seat": 0, "cards": ["S2"]},
        ],
        "winner": 0,
        "points": 10,
    }


def test_equal_cards_go_to_the_first_played() -> None:
    trump = Trump("5", None)
    plays = [
        (2, parse_cards("5S")),
        (3, parse_cards("5H")),
        (0, parse_cards("5S")),
        (1, parse_cards("4S")),
    ]
    found = peer_trick(plays, trump, RANKED)
    assert found["winner"] == 2
    assert found["points"] == 15


def test_unseen_is_two_decks_less_what_the_seat_knows() -> None:
    played = [0] * 54
    played[Card("AS")] = 2
    hand = parse_cards("KS KS QS")
    kitty = parse_cards("2C")
    cards = unseen(hand, played, kitty)
    assert len(cards) == 108 - 2 - 3 - 1
    counts = Counter(cards)
    assert Card("AS") not in counts and Card("KS") not in counts
    assert counts[Card("QS")] == 1 and counts[Card("2C")] == 1 and counts[Card("BJ")] == 2


def test_unseen_refuses_a_third_copy() -> None:
    played = [0] * 54
    played[Card("AS")] = 2
    with pytest.raises(ValueError, match="three times"):
        unseen(parse_cards("AS"), played, [])


def test_the_fill_deals_every_unseen_card_once_with_the_shown_sizes() -> None:
    cards = list(range(20))
    hands, kitty = fill_hidden(1, [5, 9, 4, 3], cards, 8, Random(3))
    assert [len(h) for h in hands] == [5, 0, 4, 3]
    assert len(kitty) == 8
    assert sorted([*hands[0], *hands[2], *hands[3], *kitty]) == cards
    again, _ = fill_hidden(1, [5, 9, 4, 3], cards, 8, Random(4))
    assert again != hands
    with pytest.raises(ValueError, match="hidden places"):
        fill_hidden(1, [5, 9, 4, 3], cards, 7, Random(3))


def positions() -> list[tuple[HandState, list[str]]]:
    return [pair for index in range(2) for pair in states_at_plays(index, (1, 6, 43, 70, 99))]


def test_a_play_request_holds_the_seats_knowledge_and_a_consistent_fill() -> None:
    checked = 0
    for state, history in positions():
        seat = state.to_act
        assert seat is not None and state.trump is not None
        view = view_for(state, seat)
        request = peer_request("play", view, history, RANKED, Random(1))
        assert request["level"] == ("10" if state.level == "T" else state.level)
        assert request["trump_suit"] == state.trump.suit
        assert request["banker"] == state.dealer
        assert sorted(request["hands"][seat]) == sorted(peer_cards(state.hands[seat]))
        assert [len(h) for h in request["hands"]] == [len(h) for h in state.hands]
        assert len(request["buried"]) == 8
        if seat == state.dealer:
            assert sorted(request["buried"]) == sorted(peer_cards(state.buried))
        history_codes = [c for t in request["history"] for p in t["plays"] for c in p["cards"]]
        current = [c for p in request["trick"]["plays"] for c in p["cards"]]
        everything = [*(c for h in request["hands"] for c in h), *request["buried"]]
        assert Counter([*everything, *history_codes, *current]) == Counter(peer_cards(full_deck()))
        assert len(request["history"]) == len(state.tricks)
        for mine, theirs in zip(state.tricks, request["history"], strict=True):
            assert theirs["leader"] == mine.leader
            assert theirs["winner"] == mine.winner
            assert theirs["points"] == mine.points
        assert request["trick"]["leader"] == state.trick.leader
        assert request["attacker_points"] == state.attacker_points
        checked += 1
    assert checked >= 8


def test_the_request_is_the_same_whatever_the_hidden_cards() -> None:
    checked = 0
    for state, history in positions():
        seat = state.to_act
        assert seat is not None
        other = swap_hidden(state, seat)
        if other is None:
            continue
        assert other.hands != state.hands
        first = peer_request("play", view_for(state, seat), history, RANKED, Random(7))
        second = peer_request("play", view_for(other, seat), history, RANKED, Random(7))
        assert first == second
        checked += 1
    assert checked >= 4


def test_a_bury_request_has_the_33_cards_and_nothing_else_real() -> None:
    for index in range(3):
        texts = [str(a) for a in played_hand(index).actions]
        bury_at = next(i for i, t in enumerate(texts) if t.startswith("bury"))
        state = deal_hand(RANKED, 11, index)
        for text in texts[:bury_at]:
            state.apply(text)
        dealer = state.dealer
        assert dealer is not None
        view = view_for(state, dealer)
        history = public_history(texts[:bury_at], view)
        request = peer_request("bury", view, history, RANKED, Random(2))
        assert len(request["hands"][dealer]) == 33
        assert sorted(request["hands"][dealer]) == sorted(peer_cards(state.hands[dealer]))
        others = [c for s, h in enumerate(request["hands"]) if s != dealer for c in h]
        assert len(others) == 75
        assert Counter([*others, *request["hands"][dealer]]) == Counter(peer_cards(full_deck()))
        assert "buried" not in request and "history" not in request


def test_a_declare_request_shows_only_the_cards_dealt_so_far() -> None:
    state = deal_hand(RANKED, 11, 0)
    for _ in range(10):
        state.apply(DRAW_ACTION)
    seat = (state.start_seat + 9) % 4
    view = view_for(state, seat)
    request = peer_request("declare", view, [], RANKED, Random(0))
    assert request["hands"][seat] == peer_cards(parse_cards(view["hand"]))
    assert len(request["hands"][seat]) == len(state.hands[seat]) < 25
    assert all(not h for s, h in enumerate(request["hands"]) if s != seat)
    assert request["final"] is False
    assert request["declaration"] is None
    assert format_cards(our_cards(request["hands"][seat])) == view["hand"]


def test_the_report_pairs_by_deal_and_lists_every_refused_peer_move() -> None:
    from bench.bench_peer import DealResult, PeerBuild, PeerLog, Setup, report, summary
    from shengji.bots.search import SearchBudget

    first = DealResult(0, levels=[2, 0], won=[True, False], times_ours=[0.001], times_peer=[1.0])
    second = DealResult(1, levels=[-1, 1], won=[False, True], times_ours=[0.002])
    second.refused_peer.append((1, 3, "play 3 AS KS", "must_follow_pair", "trick 4, lead QH QH"))
    log = PeerLog(seconds=[0.9, 1.1], bids=1)
    build = PeerBuild("0123456789abcdef", Path("python"), Path("server"), True)
    figures = summary(Setup("basic", 5, RANKED, SearchBudget()), [first, second], log, build, True)
    # Per deal: +1 and 0; mean 0.5, sd 0.7071, half-width 1.96 * 0.7071 / sqrt(2) = 0.98.
    assert figures["levels_per_hand"] == 0.5
    assert figures["ci95"] == [-0.48, 1.48]
    assert figures["hands_won"] == {"ours": 2, "peer": 2}
    assert figures["decision_ms"]["peer_in_process"]["n"] == 2
    text = report(figures)
    assert "peer moves our engine refused: 1" in text
    assert "'play 3 AS KS' -> must_follow_pair (trick 4, lead QH QH)" in text


class PeerStandIn:
    """The peer process's protocol for the routing test: it records the ops asked, makes a bot
    and drops it, and has no move of its own (the peer itself is not needed here)."""

    def __init__(self) -> None:
        self.ops: list[str] = []

    def ask(self, request: dict[str, object]) -> dict[str, object]:
        self.ops.append(str(request["op"]))
        return {}


def test_a_hybrid_asks_the_peer_for_its_parts_only_and_ours_for_the_rest() -> None:
    """``--peer-parts bid,bury``: the peer's side bids and buries as the peer, and plays as
    ours does, move for move (bench/bench_peer.py, docs/proof/BOTS-PEER.md)."""
    from bench.bench_peer import PARTS, PeerBot, PeerLog, Setup, part_of, peer_name
    from shengji.bots import make_bot
    from shengji.bots.search import SearchBudget

    assert [part_of(p) for p in ("dealing", "bidding", "burying", "playing")] == [
        "bid",
        "bid",
        "bury",
        "play",
    ]
    state, history = next(states_at_plays(3, (5,)))
    seat = state.to_act
    assert seat is not None and state.phase == "playing"
    view = view_for(state, seat)
    peer = PeerStandIn()
    ours = make_bot("basic", 9)
    hybrid = PeerBot(
        peer,  # type: ignore[arg-type]
        "k",
        9,
        RANKED,
        PeerLog(),
        parts=frozenset({"bid", "bury"}),
        fallback=ours,
    )
    assert hybrid.choose_action(view, RANKED, history) == ours.choose_action(view, RANKED, history)
    assert peer.ops == ["new"]  # the play was ours: the peer was not asked
    whole = PeerBot(peer, "w", 9, RANKED, PeerLog())  # type: ignore[arg-type]
    assert whole.choose_action(view, RANKED, history) is None  # the stand-in has no move
    assert peer.ops == ["new", "new", "play"]
    mixed = Setup("basic", 1, RANKED, SearchBudget(), frozenset({"bury", "bid"}))
    assert peer_name(mixed) == "mc-s0-report-lcb[bid+bury]+basic"
    assert peer_name(Setup("basic", 1, RANKED, SearchBudget())) == "mc-s0-report-lcb"
    assert PARTS == ("bid", "bury", "play")
