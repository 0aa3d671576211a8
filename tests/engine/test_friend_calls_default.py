"""找朋友: the calls offered to the dealer before they choose, and the warning on a call of a
card the dealer holds (ENGINE-PART2-DECISIONS.md F13)."""

from __future__ import annotations

from random import Random

import pytest

from shengji.bots import act_for_seat
from shengji.engine.cards import RANKS, SMALL_JOKER, Card, parse_cards
from shengji.engine.friends import (
    CALL_HELD,
    CALL_HELD_ALL,
    FriendCall,
    call_class,
    default_calls,
    format_calls,
    friend_calls_error,
    held_calls,
    parse_calls,
)
from shengji.engine.hand import BURYING, HandState, new_hand
from shengji.engine.trump import Trump
from shengji.engine.views import view_for
from tests.engine.shape_helpers import dealt, shape_rules

HEARTS_2 = Trump("2", "H")


def cards(text: str) -> list[int]:
    return [int(c) for c in parse_cards(text)]


def test_the_aces_the_dealer_lacks_come_first_never_one_it_holds() -> None:
    # The page used to offer ♠A ♥A ♣A whatever the hand: here the dealer holds ♠A and ♣A.
    hand = cards("AS AC 3C KS 5D")
    assert format_calls(default_calls(hand, HEARTS_2, 2, 2)) == "1AD 1KC"


def test_a_plain_rank_the_dealer_lacks_beats_a_second_copy_of_a_held_ace() -> None:
    # Three decks, the dealer holds one of each plain A: the kings it lacks before "2nd ♠A".
    hand = cards("AS AC AD KS")
    assert format_calls(default_calls(hand, HEARTS_2, 3, 2)) == "1KC 1KD"


def test_with_no_card_left_unheld_the_next_copy_after_the_dealers_is_offered() -> None:
    # Every card is in the hand once: "the 2nd" of the highest plain ranks.
    hand = [c for c in range(SMALL_JOKER) for _ in range(1)]  # one copy of every card
    calls = default_calls(hand, HEARTS_2, 2, 2)
    assert [call_class(c.card, c.ordinal, hand.count(c.card)) for c in calls] == [1, 1]
    assert format_calls(calls) == "2AS 2AC"


def test_a_dealer_holding_every_copy_is_offered_such_a_call_only_as_the_last_resort() -> None:
    hand = [c for c in range(SMALL_JOKER) for _ in range(2)]  # both decks whole
    calls = default_calls(hand, HEARTS_2, 2, 1)
    assert format_calls(calls) == "1AS"
    assert call_class(calls[0].card, 1, 2) == 2


@pytest.mark.parametrize("policy", ["unrestricted", "trumps_included", "no_highest", "no_points"])
@pytest.mark.parametrize(("decks", "count"), [(2, 1), (2, 2), (3, 2), (4, 3)])
def test_defaults_are_legal_and_avoid_held_cards_whenever_they_can(
    policy: str, decks: int, count: int
) -> None:
    rng = Random(f"{policy}{decks}{count}")
    for _ in range(40):
        deck = [c for c in range(54) for _ in range(decks)]
        rng.shuffle(deck)
        hand = deck[: rng.choice([20, 33, 40])]
        trump = Trump(rng.choice("23456789TJQKA"), rng.choice(["S", "H", "C", "D", None]))
        calls = default_calls(hand, trump, decks, count, policy)
        assert friend_calls_error(calls, trump, decks, count, policy) is None
        unheld_legal = {c for c in range(54) if c not in hand and _legal(c, trump, decks, policy)}
        clean = [c for c in calls if c.card not in hand]
        assert len(clean) == min(count, len(unheld_legal) * decks)
        plain_unheld = {c for c in unheld_legal if not trump.is_trump(c)}
        if len(plain_unheld) >= count:  # the highest plain ranks first, one card each
            assert all(not trump.is_trump(c.card) and c.ordinal == 1 for c in calls)
            best = max(_rank(c) for c in plain_unheld)
            assert _rank(calls[0].card) == best


def _legal(card: int, trump: Trump, decks: int, policy: str) -> bool:
    return friend_calls_error([FriendCall(Card(card), 1)], trump, decks, 1, policy) is None


def _rank(card: int) -> int:
    rank = Card(card).rank
    return -1 if rank is None else RANKS.index(rank)


def test_held_calls_say_how_the_dealers_own_copies_touch_the_call() -> None:
    hand = cards("AS AS KH QC")
    found = held_calls(parse_calls("1AS 3AS 1KH 2KH 1AD"), hand, decks=3)
    # Two of three AS: the third copy is someone else's, so any AS call may still find a friend.
    assert [(format_calls([h.call]), h.held, h.code) for h in found] == [
        ("1AS", 2, CALL_HELD),
        ("3AS", 2, CALL_HELD),
        ("1KH", 1, CALL_HELD),
        ("2KH", 1, CALL_HELD),
    ]
    # At two decks the dealer holds both AS: whichever copy is called, the dealer fills it.
    at_two = held_calls(parse_calls("1AS 2AS 2KH"), hand, decks=2)
    assert [h.code for h in at_two] == [CALL_HELD_ALL, CALL_HELD_ALL, CALL_HELD]
    assert held_calls(parse_calls("1AD 1KS"), hand, decks=3) == []


def friends_state(
    hands: dict[int, str], players: int = 6, decks: int = 3, fill_seed: int = 0
) -> HandState:
    rules = shape_rules(players, "friends", decks)
    return dealt(rules, hands, dealer=0, levels=("2",) * players, fill_seed=fill_seed)


def test_the_dealers_view_offers_the_defaults_of_the_hand_with_the_kitty() -> None:
    # Two of each plain A in hand (no-trump at 2): the kings it lacks, not "3rd ♠A".
    state = friends_state({0: "AS AH AC AD AS AH AC AD"}, fill_seed=0)
    assert state.phase == BURYING
    view = view_for(state, 0)
    offered = parse_calls(view["call_defaults"])
    hand = state.hands[0]
    assert len(offered) == view["friends"] == 2
    assert all(c.card not in hand for c in offered)
    assert "call_defaults" not in view_for(state, 1)
    state.apply(f"call 0 {view['call_defaults']}", 0)
    assert view_for(state, 0)["call_defaults"] == view["call_defaults"]


def test_the_bots_calls_name_no_card_it_keeps_when_another_exists() -> None:
    for seed in range(30):
        rules = shape_rules(6, "friends", 3)
        state = new_hand(rules, seed, dealer=0, levels=("2",) * 6)
        while state.phase != BURYING:
            state.apply("draw" if state.phase == "dealing" else "close")
        text = act_for_seat(state, 0, bot="basic")
        assert text is not None and text.startswith("call 0 ")
        calls = parse_calls(text.split(" ", 2)[2])
        assert state.trump is not None
        assert friend_calls_error(calls, state.trump, 3, rules.friends) is None
        # The bot reads the hand it keeps after its own bury: none of those cards is called.
        bury = act_for_seat(_called(state, text), 0, bot="basic")
        assert bury is not None and bury.startswith("bury 0 ")
        kept = list(state.hands[0])
        for card in parse_cards(bury.split(" ", 2)[2]):
            kept.remove(card)
        assert not [c for c in calls if c.card in kept], (seed, text, bury)


def _called(state: HandState, text: str) -> HandState:
    copy = state.copy()
    copy.apply(text, 0)
    return copy
