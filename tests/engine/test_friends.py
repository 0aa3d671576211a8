"""找朋友 (RULES-SPEC.md §9.3): friend calls and their checks under each ``friend_cards``
policy, reveals in play order under both join policies, the next dealer and the small-side
bonus, each example of §3 as a test."""

from __future__ import annotations

import pytest

from shengji.engine.action_errors import (
    ACTION_REASON_CODES,
    InvalidRecordError,
    action_reason_text,
)
from shengji.engine.cards import Card, parse_cards
from shengji.engine.errors import InvalidNotationError, InvalidOptionError
from shengji.engine.friends import (
    FriendCall,
    default_friends,
    format_call,
    format_calls,
    friend_call_error,
    friend_calls_error,
    friends_next_dealer,
    parse_call,
    parse_calls,
    reveal_friends,
    small_side_bonus_levels,
)
from shengji.engine.trump import Trump

FRIEND_CODES = (
    "friend_bad_ordinal",
    "friend_joker",
    "friend_level_card",
    "friend_trump",
    "friend_highest",
    "friend_points",
    "friend_wrong_count",
    "friend_duplicate",
)
SEVEN_SPADES = Trump("7", "S")
ACE_SPADES = Trump("A", "S")


def call_error(text: str, trump: Trump, policy: str = "unrestricted", decks: int = 3) -> str | None:
    call = parse_call(text)
    return friend_call_error(call.card, call.ordinal, trump, decks, policy)


def trick(*plays: tuple[int, str]) -> list[tuple[int, list[Card]]]:
    return [(seat, parse_cards(cards)) for seat, cards in plays]


# --- calls and their text ------------------------------------------------------------------


def test_a_call_is_an_ordinal_and_a_card() -> None:
    """§3.3: "the 2nd ♠A played" is ``2AS``."""
    call = parse_call("2AS")
    assert call == FriendCall(Card("AS"), 2) and (call.seen, call.seat) == (0, None)
    assert format_call(call) == str(call) == "2AS"
    assert parse_call("1kh") == FriendCall(Card("KH"), 1)
    assert parse_calls("2AS 1KH") == [FriendCall(Card("AS"), 2), FriendCall(Card("KH"), 1)]
    assert format_calls(parse_calls("2as 1kh")) == "2AS 1KH"


@pytest.mark.parametrize("text", ["AS", "2", "2A", "2ASX", "S2A", "2XX", "", "-1AS"])
def test_call_text_that_does_not_parse(text: str) -> None:
    with pytest.raises(InvalidNotationError) as caught:
        parse_call(text)
    assert caught.value.code == "invalid_notation"


def test_a_call_to_and_from_its_dict() -> None:
    call = FriendCall(Card("AS"), 2, seen=1)
    assert call.to_dict() == {"card": "AS", "ordinal": 2, "seen": 1, "seat": None}
    filled = FriendCall(Card("TD"), 1, seen=2, seat=4)
    assert filled.to_dict() == {"card": "TD", "ordinal": 1, "seen": 2, "seat": 4}
    for each in (call, filled):
        assert FriendCall.from_dict(each.to_dict()) == each
    assert FriendCall.from_dict({"card": "AS", "ordinal": 2}) == FriendCall(Card("AS"), 2)


def test_a_dict_with_a_wrong_value_is_refused() -> None:
    with pytest.raises(InvalidRecordError) as caught:
        FriendCall.from_dict({"card": "AS", "ordinal": "2"})
    assert caught.value.code == "invalid_record"


def test_the_codes_are_action_reason_codes_with_texts() -> None:
    for code in FRIEND_CODES:
        assert code in ACTION_REASON_CODES
        assert action_reason_text(code) != code


# --- friend_cards policies (§3.3) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "trump", "text", "code"),
    [
        # unrestricted: any card but jokers, level-rank cards and trump-suit cards.
        ("unrestricted", SEVEN_SPADES, "1KC", None),
        ("unrestricted", SEVEN_SPADES, "1AC", None),
        ("unrestricted", SEVEN_SPADES, "1TH", None),
        ("unrestricted", SEVEN_SPADES, "1SJ", "friend_joker"),
        ("unrestricted", SEVEN_SPADES, "2BJ", "friend_joker"),
        ("unrestricted", SEVEN_SPADES, "17H", "friend_level_card"),
        ("unrestricted", SEVEN_SPADES, "1AS", "friend_trump"),
        ("unrestricted", SEVEN_SPADES, "1KS", "friend_trump"),
        # trumps_included: any card.
        ("trumps_included", SEVEN_SPADES, "1AS", None),
        ("trumps_included", SEVEN_SPADES, "2BJ", None),
        ("trumps_included", SEVEN_SPADES, "17H", None),
        ("trumps_included", SEVEN_SPADES, "4AC", "friend_bad_ordinal"),
        ("trumps_included", SEVEN_SPADES, "17S", None),
        ("trumps_included", SEVEN_SPADES, "3SJ", None),
        # no_highest: also no A; a K is fine below level A.
        ("no_highest", SEVEN_SPADES, "1AC", "friend_highest"),
        ("no_highest", SEVEN_SPADES, "1KC", None),
        ("no_highest", SEVEN_SPADES, "1QH", None),
        ("no_highest", SEVEN_SPADES, "1AS", "friend_trump"),
        ("no_highest", SEVEN_SPADES, "1SJ", "friend_joker"),
        # no_highest at level A: the A is a level card, and the K is now the highest.
        ("no_highest", ACE_SPADES, "1KC", "friend_highest"),
        ("no_highest", ACE_SPADES, "1AC", "friend_level_card"),
        ("no_highest", ACE_SPADES, "1QC", None),
        # no_points: also no 5, 10, K.
        ("no_points", SEVEN_SPADES, "15H", "friend_points"),
        ("no_points", SEVEN_SPADES, "1TH", "friend_points"),
        ("no_points", SEVEN_SPADES, "2KD", "friend_points"),
        ("no_points", SEVEN_SPADES, "1AC", None),
        ("no_points", SEVEN_SPADES, "13C", None),
        # no_points at level A: the K may be called, the 5 and 10 still not.
        ("no_points", ACE_SPADES, "1KC", None),
        ("no_points", ACE_SPADES, "1TC", "friend_points"),
        ("no_points", ACE_SPADES, "15C", "friend_points"),
        ("no_points", ACE_SPADES, "1KS", "friend_trump"),
    ],
)
def test_friend_cards_policies(policy: str, trump: Trump, text: str, code: str | None) -> None:
    assert call_error(text, trump, policy) == code


def test_no_trump_has_no_trump_suit_but_keeps_jokers_and_level_cards_out() -> None:
    no_trump = Trump("5", None)
    assert call_error("1AS", no_trump) is None
    assert call_error("15D", no_trump) == "friend_level_card"
    assert call_error("2SJ", no_trump) == "friend_joker"


@pytest.mark.parametrize(
    ("decks", "ordinal", "ok"),
    [
        (2, 1, True),
        (2, 2, True),
        (2, 3, False),
        (3, 3, True),
        (4, 4, True),
        (4, 5, False),
        (3, 0, False),
        (3, -1, False),
    ],
)
def test_the_ordinal_runs_from_1_to_the_decks(decks: int, ordinal: int, ok: bool) -> None:
    code = friend_call_error(Card("AC"), ordinal, SEVEN_SPADES, decks)
    assert code == (None if ok else "friend_bad_ordinal")


def test_an_unknown_policy_is_an_invalid_option() -> None:
    with pytest.raises(InvalidOptionError):
        friend_call_error(Card("AC"), 1, SEVEN_SPADES, 2, "no_kings")


def test_a_whole_set_of_calls() -> None:
    """§3.3: ``friends`` calls; two identical calls are refused; the same card with two
    ordinals is two calls."""
    assert friend_calls_error(parse_calls("1AC 2AC"), SEVEN_SPADES, 2, 2) is None
    assert friend_calls_error(parse_calls("1AC 1AC"), SEVEN_SPADES, 2, 2) == "friend_duplicate"
    assert friend_calls_error(parse_calls("1AC"), SEVEN_SPADES, 2, 2) == "friend_wrong_count"
    assert friend_calls_error(parse_calls("1AC 1AH 1AD"), SEVEN_SPADES, 3, 2) == (
        "friend_wrong_count"
    )
    assert friend_calls_error(parse_calls("1AC 1AS"), SEVEN_SPADES, 2, 2) == "friend_trump"
    assert friend_calls_error(parse_calls("1KC 1AH"), SEVEN_SPADES, 2, 2, "no_points") == (
        "friend_points"
    )
    assert friend_calls_error(parse_calls("1AH 1KC"), SEVEN_SPADES, 2, 2, "no_highest") == (
        "friend_highest"
    )


# --- reveals (§3.4) -------------------------------------------------------------------------


def test_the_copy_reaching_the_ordinal_fills_the_call() -> None:
    """§3.4: every played copy counts; "the 2nd ♠A" is filled by whoever plays the second."""
    calls = parse_calls("2AC")
    calls, side = reveal_friends(calls, {0}, trick((0, "3C"), (1, "AC"), (2, "4C"), (3, "5C")))
    assert calls == [FriendCall(Card("AC"), 2, seen=1)] and side == {0}
    calls, side = reveal_friends(calls, side, trick((1, "6C"), (2, "7C"), (3, "AC"), (4, "8C")))
    assert calls == [FriendCall(Card("AC"), 2, seen=2, seat=3)] and side == {0, 3}


def test_plays_are_read_in_play_order_not_seat_order() -> None:
    """The trick is led by seat 3: seat 4's copy comes before seat 1's."""
    plays = trick((3, "AH"), (4, "AH"), (0, "3H"), (1, "AH"), (2, "5H"))
    calls, side = reveal_friends(parse_calls("2AH"), {0}, plays)
    assert calls[0].seat == 4 and side == {0, 4}
    assert calls[0].seen == 3  # every copy is counted, also after the call is filled


def test_two_copies_in_one_trick_fill_first_and_second_calls() -> None:
    """Two copies in one trick, from two players: "1AD" goes to the first, "2AD" to the next."""
    plays = trick((2, "AD"), (3, "9D"), (4, "AD"), (0, "TD"), (1, "2D"))
    calls, side = reveal_friends(parse_calls("1AD 2AD"), {0}, plays, "unrestricted")
    assert [(c.seat, c.seen) for c in calls] == [(2, 2), (4, 2)]
    assert side == {0, 2, 4}


def test_a_pair_played_by_one_player_reaches_the_second_ordinal() -> None:
    plays = trick((1, "AD AD"), (2, "3D 4D"), (3, "5D 6D"), (4, "7D 8D"), (0, "9D TD"))
    calls, side = reveal_friends(parse_calls("2AD"), {0}, plays)
    assert calls[0].seat == 1 and side == {0, 1}


def test_a_call_filled_by_the_dealer_is_used_up_under_unrestricted() -> None:
    """§3.4 unrestricted: the dealer may call a card they hold; filling it uses the call up and
    the side stays smaller."""
    plays = trick((0, "AC"), (1, "AC"), (2, "3C"), (3, "4C"), (4, "5C"))
    calls, side = reveal_friends(parse_calls("1AC"), {0}, plays, "unrestricted")
    assert calls == [FriendCall(Card("AC"), 1, seen=2, seat=0)]
    assert side == {0}


def test_a_call_filled_by_the_dealer_is_passed_over_under_no_double_join() -> None:
    """§3.4 no_double_join: the dealer's copy is passed over; the next copy fills the call."""
    plays = trick((0, "AC"), (1, "AC"), (2, "3C"), (3, "4C"), (4, "5C"))
    calls, side = reveal_friends(parse_calls("1AC"), {0}, plays, "no_double_join")
    assert calls == [FriendCall(Card("AC"), 1, seen=2, seat=1)]
    assert side == {0, 1}


def test_under_no_double_join_the_call_waits_across_tricks() -> None:
    calls, side = reveal_friends(
        parse_calls("1KH"), {0}, trick((0, "KH"), (1, "2H")), "no_double_join"
    )
    assert calls == [FriendCall(Card("KH"), 1, seen=1)] and side == {0}
    calls, side = reveal_friends(calls, side, trick((1, "3H"), (0, "4H")), "no_double_join")
    assert calls[0].seat is None  # no copy played
    calls, side = reveal_friends(calls, side, trick((1, "KH"), (0, "5H")), "no_double_join")
    assert calls == [FriendCall(Card("KH"), 1, seen=2, seat=1)] and side == {0, 1}


def test_a_player_filling_two_calls() -> None:
    """Seat 2 fills "1AC" and then "1AH" in the same trick: under unrestricted the second call is
    used up by a side member (the side has the dealer and seat 2 only); under no_double_join it
    is passed over and stays open."""
    plays = trick((2, "AC"), (3, "2C"), (4, "3C"), (5, "4C"), (0, "5C"), (1, "6C"))
    later = trick((2, "AH"), (3, "2H"), (4, "3H"), (5, "4H"), (0, "5H"), (1, "6H"))
    for policy, second in (("unrestricted", 2), ("no_double_join", None)):
        calls, side = reveal_friends(parse_calls("1AC 1AH"), {0}, plays, policy)
        calls, side = reveal_friends(calls, side, later, policy)
        assert [c.seat for c in calls] == [2, second], policy
        assert side == {0, 2}


def test_one_player_fills_two_calls_in_one_play() -> None:
    """A throw holding two called cards: the first card fills its call and makes the player a
    side member before the second card is read."""
    plays = trick((3, "AC KC"), (4, "2C 3C"), (0, "4C 5C"), (1, "6C 7C"), (2, "8C 9C"))
    calls, side = reveal_friends(parse_calls("1AC 1KC"), {0}, plays, "unrestricted")
    assert [c.seat for c in calls] == [3, 3] and side == {0, 3}
    calls, side = reveal_friends(parse_calls("1AC 1KC"), {0}, plays, "no_double_join")
    assert [c.seat for c in calls] == [3, None] and side == {0, 3}


def test_a_buried_call_is_never_filled() -> None:
    """§3.4: with one ♣A buried, "the 2nd ♣A" of two decks never comes: the call stays empty."""
    calls, side = parse_calls("2AC"), frozenset({0})
    hands = trick((1, "AC"), (2, "KC"), (3, "QC"), (4, "JC"), (0, "TC"))
    calls, side = reveal_friends(calls, side, hands)
    for _ in range(3):  # the rest of the hand, no more ♣A
        calls, side = reveal_friends(calls, side, trick((0, "2D"), (1, "3D"), (2, "4D")))
    assert calls == [FriendCall(Card("AC"), 2, seen=1)] and side == {0}


def test_reveal_changes_nothing_it_was_given() -> None:
    calls = parse_calls("1AC")
    side = {0}
    plays = trick((1, "AC"), (0, "2C"))
    new_calls, new_side = reveal_friends(calls, side, plays)
    assert calls == parse_calls("1AC") and side == {0}
    assert new_calls is not calls and new_side == {0, 1}
    assert isinstance(new_side, frozenset)


def test_cards_not_called_leave_everything_as_it_was() -> None:
    calls, side = reveal_friends(parse_calls("1AC"), {0, 2}, trick((1, "AH"), (2, "KC")))
    assert calls == parse_calls("1AC") and side == {0, 2}


def test_an_unknown_join_policy_is_an_invalid_option() -> None:
    with pytest.raises(InvalidOptionError):
        reveal_friends(parse_calls("1AC"), {0}, [], "first_come")


# --- next dealer, default calls, small-side bonus (§3.3, §3.6, §3.7) -----------------------


def test_default_number_of_calls() -> None:
    assert [default_friends(p) for p in (5, 6, 7, 8)] == [1, 2, 2, 3]


@pytest.mark.parametrize(
    ("dealer", "players", "winners", "next_dealer"),
    [
        (0, 5, {0, 3}, 3),  # defenders won: the first defender after the dealer
        (0, 5, {1, 2, 4}, 1),  # attackers won: the dealer's 下家 is an attacker
        (3, 6, {3, 1}, 1),  # round from seat 4: 4, 5, 0, 1
        (4, 5, {4}, 4),  # the dealer alone on the winning side deals again
        (2, 8, {0, 1, 3}, 3),
        (7, 8, {0, 5}, 0),
    ],
)
def test_next_dealer(dealer: int, players: int, winners: set[int], next_dealer: int) -> None:
    assert friends_next_dealer(dealer, players, winners) == next_dealer


def test_next_dealer_needs_a_winner() -> None:
    with pytest.raises(InvalidOptionError):
        friends_next_dealer(0, 5, set())


@pytest.mark.parametrize(
    ("side_size", "friends", "defenders_won", "enabled", "levels"),
    [
        (1, 1, True, True, 1),  # 5 players, the dealer alone (the call used up or buried)
        (2, 1, True, True, 0),  # the full side
        (2, 2, True, True, 1),  # 6 players, one friend of two
        (3, 3, True, True, 1),
        (4, 3, True, True, 0),
        (1, 1, False, True, 0),  # only when the defenders win
        (1, 1, True, False, 0),  # option off
    ],
)
def test_small_side_bonus(
    side_size: int, friends: int, defenders_won: bool, enabled: bool, levels: int
) -> None:
    assert small_side_bonus_levels(side_size, friends, defenders_won, enabled) == levels
