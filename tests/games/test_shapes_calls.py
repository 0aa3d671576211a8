"""找朋友's calls on the site (issue 32, item 2): the dealer's calls refused with each reason and
nothing changed, accepted (the last one stands until the bury), no seat calling for another;
a dealer out of time is given the calls offered (the calls step's clock), then the bot's bury
(the bury's own clock); the calls and reveals reach the chat only once they are public
(RULES-SPEC.md §9.4)."""

from __future__ import annotations

import pytest

from accounts.errors import ApplicationError
from accounts.models import User
from games.handstate import load_state
from games.models import Action, ChatLine, Hand
from games.services.deadlines import hand_advance
from shengji.engine import Trump, format_cards, view_for
from tests.games.helpers import deal_and_close, fresh, hand_act, make_table, make_users, seat_all

pytestmark = pytest.mark.django_db
SUITS = "SHCD"


def dealt_friends_table(
    friend_cards: str = "unrestricted", **timings: int
) -> tuple[Hand, list[User]]:
    """Six players at a 找朋友 table (3 decks, 2 calls), dealt and the bidding closed."""
    users = make_users(6, f"calls{friend_cards[:4]}")
    house = {"mode": "friends"} | (
        {} if friend_cards == "unrestricted" else {"friend_cards": friend_cards}
    )
    table = make_table(users[0], players=6, house_rules=house, stake=10, **timings)
    hand = deal_and_close(seat_all(table, users))
    assert load_state(hand).phase == "burying"
    return hand, users


def plain_suit(trump: Trump) -> str:
    return next(s for s in SUITS if s != trump.suit)


def call(hand: Hand, user: object, calls: str) -> None:
    hand = fresh(hand)
    state = load_state(hand)
    seat = next(p.seat for p in hand.players.all() if p.user_id == user.pk)  # type: ignore[attr-defined]
    hand_act(hand_id=hand.pk, user=user, text=f"call {seat} {calls}", seq=hand.seq)  # type: ignore[arg-type]
    assert state.dealer == seat


def refused(hand: Hand, user: object, calls: str) -> str:
    before = fresh(hand).seq
    with pytest.raises(ApplicationError) as error:
        call(hand, user, calls)
    assert fresh(hand).seq == before  # nothing changed
    return error.value.code


def test_the_dealers_calls_are_refused_with_each_reason_and_then_accepted() -> None:
    hand, users = dealt_friends_table()
    state = load_state(hand)
    dealer = state.dealer
    assert dealer is not None and state.trump is not None
    trump = state.trump
    level = state.level
    suit = plain_suit(trump)
    other = next(r for r in "AKQJ" if r != level)
    mine = users[dealer]
    assert refused(hand, mine, f"4{other}{suit} 1{other}{suit}") == "friend_bad_ordinal"
    assert refused(hand, mine, f"1BJ 1{other}{suit}") == "friend_joker"
    assert refused(hand, mine, f"1{level}{suit} 1{other}{suit}") == "friend_level_card"
    if trump.suit is not None:
        assert refused(hand, mine, f"1{other}{trump.suit} 1{other}{suit}") == "friend_trump"
    assert refused(hand, mine, f"1{other}{suit}") == "friend_wrong_count"
    assert refused(hand, mine, f"2{other}{suit} 2{other}{suit}") == "friend_duplicate"
    # The bury before any call, and a call by another seat (for itself, or naming the dealer).
    dealer_hand = state.hands[dealer]
    bury = format_cards(dealer_hand[: state.kitty_size])
    with pytest.raises(ApplicationError) as error:
        hand_act(hand_id=hand.pk, user=mine, text=f"bury {dealer} {bury}", seq=fresh(hand).seq)
    assert error.value.code == "calls_missing"
    neighbour = (dealer + 1) % 6
    with pytest.raises(ApplicationError) as error:
        hand_act(
            hand_id=hand.pk,
            user=users[neighbour],
            text=f"call {neighbour} 1{other}{suit} 2{other}{suit}",
            seq=fresh(hand).seq,
        )
    assert error.value.code == "not_your_turn"
    with pytest.raises(ApplicationError) as error:
        hand_act(
            hand_id=hand.pk,
            user=users[neighbour],
            text=f"call {dealer} 1{other}{suit} 2{other}{suit}",
            seq=fresh(hand).seq,
        )
    assert error.value.code == "not_your_turn"  # the dealer's seat named: still the sender's own
    assert not Action.objects.filter(hand=hand, text__startswith="call").exists()

    call(hand, mine, f"1{other}{suit} 2{other}{suit}")
    call(hand, mine, f"2{other}{suit} 3{other}{suit}")  # the last call stands
    state = load_state(fresh(hand))
    assert [(c.ordinal, format_cards([c.card])) for c in state.calls] == [
        (2, f"{other}{suit}"),
        (3, f"{other}{suit}"),
    ]
    # Nothing of the calls in the chat before the first lead (RULES-SPEC.md §9.4).
    assert not ChatLine.objects.filter(code__in=["friends_called", "friend_joins"]).exists()


@pytest.mark.parametrize(
    ("policy", "rank", "code"),
    [("no_points", "K", "friend_points"), ("no_highest", "A", "friend_highest")],
)
def test_the_table_s_friend_cards_option_refuses_its_cards(
    policy: str, rank: str, code: str
) -> None:
    hand, users = dealt_friends_table(policy)
    state = load_state(hand)
    assert state.dealer is not None and state.trump is not None
    if state.level in (rank, "A"):
        pytest.skip("the level changes what this option refuses")
    suit = plain_suit(state.trump)
    assert refused(hand, users[state.dealer], f"1{rank}{suit} 1Q{suit}") == code


def test_a_call_at_a_tractor_table_is_not_allowed() -> None:
    users = make_users(6, "tractorcall")
    table = make_table(users[0], players=6, stake=10)
    hand = deal_and_close(seat_all(table, users))
    state = load_state(hand)
    assert state.dealer is not None and (state.players, state.decks) == (6, 3)
    assert refused(hand, users[state.dealer], "1AS 2AS") == "calls_not_allowed"


def test_a_dealer_out_of_time_is_given_the_offered_calls_then_the_bury() -> None:
    hand, users = dealt_friends_table(bury_seconds=0, play_seconds=0)
    dealer = load_state(hand).dealer
    assert dealer is not None
    offered = view_for(load_state(fresh(hand)), dealer)["call_defaults"]
    assert hand_advance(hand_id=hand.pk, seq=fresh(hand).seq)  # the calls step
    assert load_state(fresh(hand)).phase == "burying"
    assert hand_advance(hand_id=hand.pk, seq=fresh(hand).seq)  # the bury's own
    logged = list(Action.objects.filter(hand=hand, seat=dealer).order_by("seq"))
    assert [a.text.split()[0] for a in logged[-2:]] == ["call", "bury"]
    assert all(a.auto for a in logged[-2:])
    assert logged[-2].text == f"call {dealer} {offered}"
    state = load_state(fresh(hand))
    assert state.phase == "playing" and len(state.calls) == 2
    assert not ChatLine.objects.filter(code="friends_called").exists()
    assert hand_advance(hand_id=hand.pk, seq=fresh(hand).seq)  # the first lead
    line = ChatLine.objects.get(code="friends_called")
    assert line.params == [
        dealer,
        " ".join(f"{c.ordinal}{format_cards([c.card])}" for c in state.calls),
        str(users[dealer]),  # the dealer's name (docs/PROTOCOL.md, "System lines")
    ]
    while fresh(hand).status == Hand.Status.PLAYING:
        assert hand_advance(hand_id=hand.pk, seq=fresh(hand).seq)
    result = fresh(hand).result
    assert result is not None and result["players"] == 6 and result["mode"] == "friends"
    filled = [c for c in result["calls"] if c["seat"] is not None]
    joined = ChatLine.objects.filter(code__in=["friend_joins", "call_spent"]).count()
    assert joined == len(filled)  # one public line per call filled, none for an open one
