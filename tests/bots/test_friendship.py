"""找朋友 as the bots play it (shengji/bots/friendship.py): the dealer's calls are legal and
sensible, and every bot's idea of who is a friend comes from the calls, the cards played and
its own hand, on hand-written positions."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from shengji.bots import HandStats, make_bot, play_hand
from shengji.bots.friendship import (
    REVEAL_GAIN,
    Call,
    allies_of,
    choose_calls,
    defender_odds,
    follow_bonus,
    hidden_friend,
    lead_bonus,
)
from shengji.bots.knowledge import Knowledge
from shengji.bots.match import deal_hand, shaped
from shengji.bots.memory import new_memory
from shengji.engine.cards import RANKS, SMALL_JOKER, parse_cards
from shengji.engine.friends import friend_call_error
from shengji.engine.hand import HandState
from shengji.engine.rules import preset
from shengji.engine.trump import TRUMP, Trump
from shengji.engine.views import view_for

RANKED = preset("ranked")


def at_burying(players: int, decks: int, index: int, **options: str) -> HandState:
    rules = shaped(RANKED, players, decks, "friends")
    if options:
        rules = rules.with_options(**options)
    state = deal_hand(rules, 31, index)
    while state.phase == "dealing":
        state.apply("draw")
    if state.phase == "bidding":
        state.apply("close")
    assert state.phase == "burying"
    return state


def parsed_calls(text: str) -> list[tuple[int, int]]:
    words = text.split()
    assert words[0] == "call"
    return [(parse_cards(w[1:])[0], int(w[0])) for w in words[2:]]


@pytest.mark.parametrize(
    ("players", "decks", "policy"),
    [
        (5, 2, "unrestricted"),
        (6, 3, "unrestricted"),
        (7, 3, "no_highest"),
        (8, 4, "no_points"),
        (6, 3, "trumps_included"),
    ],
)
def test_the_dealers_calls_are_legal_and_never_a_card_it_holds_every_copy_of(
    players: int, decks: int, policy: str
) -> None:
    for index in range(8):
        state = at_burying(players, decks, index, friend_cards=policy)
        dealer = state.dealer
        assert dealer is not None
        view = view_for(state, dealer)
        action = make_bot("basic").choose_action(view, state.rules, [])
        assert action is not None and action.startswith(f"call {dealer} ")
        calls = parsed_calls(action)
        assert len(calls) == state.rules.friends
        assert len(set(calls)) == len(calls)
        trump = state.trump
        assert trump is not None
        hand = state.hands[dealer]
        for card, ordinal in calls:
            assert friend_call_error(card, ordinal, trump, decks, policy) is None
            assert hand.count(card) < decks
        state.check_action(dealer, action)
        state.apply(action)
        bury = make_bot("basic").choose_action(view_for(state, dealer), state.rules, [])
        assert bury is not None and bury.startswith("bury")
        state.check_action(dealer, bury)


def test_the_dealer_prefers_an_off_trump_ace_it_does_not_hold() -> None:
    aces = 0
    for index in range(12):
        state = at_burying(6, 3, index)
        dealer = state.dealer
        assert dealer is not None and state.trump is not None
        action = make_bot("basic").choose_action(view_for(state, dealer), state.rules, [])
        assert action is not None
        card, ordinal = parsed_calls(action)[0]
        trump = state.trump
        free_aces = [
            c
            for c in range(SMALL_JOKER)
            if RANKS[c % 13] == "A"
            and trump.groups[c] != TRUMP
            and state.hands[dealer].count(c) == 0
        ]
        if free_aces:
            assert card in free_aces and ordinal == 1
            aces += 1
    assert aces >= 8


def test_calls_count_one_more_than_the_copies_the_dealer_keeps() -> None:
    trump = Trump("2", "H")
    hand = [int(c) for c in parse_cards("AS AS AC 3C 4C 5D")]
    calls = choose_calls(hand, [], trump, 3, 2, "unrestricted")
    assert (parse_cards("AD")[0], 1) in calls
    for card, ordinal in calls:
        assert ordinal == hand.count(card) + 1
    # Every copy of AS held or buried: AS is never called.
    held_all = parse_cards("AS AS AS AD AD AD AC AC AC")
    calls = choose_calls(held_all, [], trump, 3, 2, "unrestricted")
    assert all(c != parse_cards("AS")[0] for c, _ in calls)


def knowledge(
    seat: int,
    hand: str,
    calls: list[Call],
    tricks: Sequence[Sequence[tuple[int, str]]] = (),
    side: frozenset[int] = frozenset({0}),
    players: int = 5,
    voids: dict[int, str] | None = None,
) -> Knowledge:
    """A hand-written position of 找朋友: dealer 0, trump hearts, level 2."""
    trump = Trump("2", "H")
    memory = new_memory(players)
    for trick in tricks:
        plays = tuple((s, tuple(parse_cards(cards))) for s, cards in trick)
        memory.tricks.append(plays)
        for _, played in plays:
            for c in played:
                memory.played[c] += 1
    for s, groups in (voids or {}).items():
        for g in groups:
            memory.voids[s] |= 1 << "SHCD".index(g)
    cards = [int(c) for c in parse_cards(hand)]
    return Knowledge(
        seat=seat,
        trump=trump,
        rules=shaped(RANKED, players, 2, "friends"),
        dealer=0,
        hand=cards,
        leader=seat,
        plays=[],
        memory=memory,
        kitty=None,
        card_counts=[len(cards)] * players,
        attacker_points=0,
        tricks_played=len(memory.tricks),
        players=players,
        decks=2,
        mode="friends",
        kitty_size=8,
        side=side,
        calls=calls,
    )


AS = parse_cards("AS")[0]


def test_a_seat_that_fed_points_to_the_dealers_tricks_is_thought_a_friend() -> None:
    # Seat 3 gave a 10 and a K to tricks the dealer won; seat 2 took a trick with 10 points
    # in it from the dealer's winning card.
    tricks = [
        ((0, "KD"), (1, "3D"), (2, "4D"), (3, "TD"), (4, "6D")),
        ((0, "QC"), (1, "TC"), (2, "AC"), (3, "9C"), (4, "4C")),
        ((0, "AD"), (1, "7D"), (2, "8D"), (3, "KD"), (4, "9D")),
    ]
    k = knowledge(1, "3S 4S 5S", [Call(AS, 1, 0, None)], tricks)
    odds = defender_odds(k)
    assert odds[0] == 1.0 and odds[1] == 0.0
    assert odds[3] > odds[4] > odds[2]
    assert sum(odds[2:]) == pytest.approx(1.0)
    allies = allies_of(k)
    assert 3 not in allies and 0 not in allies
    assert allies == frozenset({1, 2, 4})


def test_a_seat_void_in_the_called_suit_cannot_be_the_friend() -> None:
    k = knowledge(1, "3S 4S 5S", [Call(AS, 1, 0, None)], voids={3: "S", 4: "S"})
    odds = defender_odds(k)
    assert odds[3] == odds[4] == 0.0
    assert odds[2] == pytest.approx(1.0)
    assert allies_of(k) == frozenset({1, 3, 4})


def test_without_the_inference_every_seat_off_the_side_is_an_attacker() -> None:
    k = knowledge(1, "3S 4S 5S", [Call(AS, 1, 0, None)], voids={3: "S", 4: "S"})
    assert allies_of(k, infer=False) == frozenset({1, 2, 3, 4})


def test_a_holder_of_the_called_card_plays_for_the_dealer_before_revealing() -> None:
    k = knowledge(2, "AS 4S 5S", [Call(AS, 1, 0, None)])
    assert hidden_friend(k)
    assert 0 in allies_of(k) and 2 in allies_of(k)
    # The 2nd AS called and one copy held, none seen: another copy fills it first.
    later = knowledge(2, "AS 4S 5S", [Call(AS, 2, 0, None)])
    assert not hidden_friend(later)
    assert 0 not in allies_of(later)


def test_a_hidden_friend_reveals_when_its_side_takes_the_trick_not_when_it_is_lost() -> None:
    k = knowledge(2, "AS 4S 5S", [Call(AS, 1, 0, None)])
    ace = (AS,)
    assert follow_bonus(k, ace, 0.9) == pytest.approx(REVEAL_GAIN * 0.8)
    assert follow_bonus(k, ace, 0.1) < 0
    assert follow_bonus(k, (parse_cards("4S")[0],), 0.9) == 0.0
    # The dealer does not use up its own side's call.
    dealer = knowledge(0, "AS 4S 5S", [Call(AS, 1, 0, None)])
    assert follow_bonus(dealer, ace, 0.9) < 0


def test_a_filled_call_makes_its_filler_a_known_defender() -> None:
    k = knowledge(1, "3S 4S", [Call(AS, 1, 1, 3)], side=frozenset({0, 3}))
    assert defender_odds(k)[3] == 1.0
    assert allies_of(k) == frozenset({1, 2, 4})


def test_the_friendblind_ablation_changes_only_the_friends_play() -> None:
    """``make_bot("friendblind")`` (bench/bench_friend_play.py, docs/BOTS.md): a friend plays as
    an attacker, hidden or revealed, and never times a reveal; the dealer and the attackers
    reason as the basic bot does."""
    hidden = knowledge(2, "AS 4S 5S", [Call(AS, 1, 0, None)])
    revealed = knowledge(3, "3S 4S", [Call(AS, 1, 1, 3)], side=frozenset({0, 3}))
    attacker = knowledge(1, "3S 4S", [Call(AS, 1, 1, 3)], side=frozenset({0, 3}))
    dealer = knowledge(0, "KS 4S 5S", [Call(AS, 1, 0, None)])
    for k in (hidden, revealed, attacker, dealer):
        k.friend_aware = False
    assert allies_of(hidden) == frozenset({1, 2, 3, 4})
    assert allies_of(revealed) == frozenset({1, 2, 3, 4})
    assert follow_bonus(hidden, (AS,), 0.9) == 0.0 and lead_bonus(hidden, (AS,)) == 0.0
    assert allies_of(attacker) == frozenset({1, 2, 4})
    assert 0 in allies_of(dealer) and 1 not in allies_of(dealer)
    for k in (hidden, revealed):
        k.friend_aware = True
    assert allies_of(hidden) >= {0, 2} and allies_of(revealed) >= {0, 3}
    assert follow_bonus(hidden, (AS,), 0.9) > 0


def test_the_friendblind_ablation_plays_legal_hands() -> None:
    """Every action of the ablation is legal (the driver checks each). What it costs its dealer
    is a benchmark's figure, not a test's (bench/bench_friend_play.py, docs/BOTS.md)."""
    rules = shaped(RANKED, 6, 3, "friends")
    for index in range(6):
        state = deal_hand(rules, 7, index)
        stats = HandStats()
        play_hand(state, [make_bot("friendblind", seat) for seat in range(6)], stats)
        assert state.result is not None and state.phase == "finished"
        assert stats.refused == [] and stats.checked > 0
