"""The deal, the kitty and what happens with no bid (RULES-SPEC.md §5.1–§5.3, §5.7 level source)."""

from __future__ import annotations

from collections import Counter

import pytest

from shengji.engine.action_errors import IllegalActionError, InvalidSetupError
from shengji.engine.actions import Action, parse_action
from shengji.engine.cards import format_cards, full_deck
from shengji.engine.deal import deck_from_hands, flip_kitty
from shengji.engine.errors import ShengjiError
from shengji.engine.hand import BURYING, DEALING, PLAYING, HandState, new_hand
from shengji.engine.rules import preset
from tests.engine.hand_helpers import apply_all, cards, designed_deck, draw_all, hand_for


def test_deal_order_kitty_first_then_one_card_a_seat_from_the_dealer() -> None:
    state = hand_for("ranked", seed=11, dealer=2, levels=("3", "5"))
    deck = list(state.deck)
    assert state.kitty == deck[:8]
    apply_all(state, ["draw"] * 5)
    assert state.hands[2] == [deck[8], deck[12]]
    assert state.hands[3] == [deck[9]] and state.hands[0] == [deck[10]]
    assert state.hands[1] == [deck[11]]
    draw_all(state)
    assert [len(h) for h in state.hands] == [25] * 4
    assert state.phase == "bidding"
    assert Counter(c for h in state.hands for c in h) + Counter(state.kitty) == Counter(full_deck())
    # The hand's level is the dealer's team's level (seat 2: team 0).
    assert state.level == "3"


def test_first_hand_deals_from_seat_0_and_needs_equal_levels() -> None:
    state = hand_for("ranked", seed=3)
    state.apply("draw")
    assert state.hands[0] == [state.deck[8]]
    with pytest.raises(InvalidSetupError):
        hand_for("ranked", levels=("2", "3"))


def test_same_seed_same_deal_and_deck_from_hands_round_trip() -> None:
    first, second = hand_for("ranked", seed=99), hand_for("ranked", seed=99)
    assert first.deck == second.deck
    assert hand_for("ranked", seed=100).deck != first.deck
    draw_all(first)
    rebuilt = deck_from_hands(first.hands, first.kitty, first.start_seat)
    assert rebuilt == first.deck


def test_bad_decks_are_refused() -> None:
    with pytest.raises(InvalidSetupError):
        new_hand(preset("ranked"), 0, decks=[[*full_deck()[:-1], 0]])


def test_server_only_and_wrong_phase_codes() -> None:
    state = hand_for("ranked", seed=1)
    for seat, action, code in [
        (0, "draw", "server_only"),
        (None, "close", "wrong_phase"),
        (None, "bury 0 2S 2S 2S 2S 2S 2S 2S 2S", "wrong_phase"),
        (None, "play 0 AS", "wrong_phase"),
        (1, "leave 2", "wrong_seat"),
    ]:
        with pytest.raises(ShengjiError) as caught:
            state.check_action(seat, action)
        assert caught.value.code == code, action
    draw_all(state)
    with pytest.raises(ShengjiError) as late:
        state.apply("draw")
    assert late.value.code == "wrong_phase"


def bid_and_close(state_rules: str, seed: int = 4) -> tuple[HandState, int]:
    state = hand_for(state_rules, seed=seed)
    draw_all(state)
    seat = next(s for s in range(4) if any(c % 13 == 0 and c < 52 for c in state.hands[s]))
    card = next(c for c in state.hands[seat] if c % 13 == 0 and c < 52)
    apply_all(state, [f"bid {seat} {format_cards([card])}", "close"])
    return state, seat


def test_the_dealer_takes_the_kitty_and_buries_exactly_eight_cards_held() -> None:
    state, dealer = bid_and_close("ranked")
    assert state.phase == BURYING and state.dealer == dealer
    hand = state.hands[dealer]
    assert len(hand) == 33 and all(c in hand for c in state.kitty)
    other = (dealer + 1) % 4
    not_held = [*hand[:7], next(c for c in range(54) if c not in hand)]
    for action, code in [
        (f"bury {other} {format_cards(state.hands[other][:8])}", "not_your_turn"),
        (f"bury {dealer} {format_cards(hand[:7])}", "bury_wrong_count"),
        (f"bury {dealer} {format_cards(hand[:9])}", "bury_wrong_count"),
        (f"bury {dealer} {format_cards(not_held)}", "bury_cards_not_held"),
        (f"bid {dealer} {format_cards(hand[:1])}", "wrong_phase"),
        (f"play {dealer} {format_cards(hand[:1])}", "wrong_phase"),
    ]:
        with pytest.raises(ShengjiError) as caught:
            state.apply(action)
        assert caught.value.code == code, action
    buried = hand[-8:]
    state.apply(f"bury {dealer} {format_cards(buried)}")
    assert state.phase == PLAYING and state.turn == dealer
    assert sorted(state.buried) == sorted(buried) and len(state.hands[dealer]) == 25


# --- no bid -------------------------------------------------------------------------------


def test_redeal_in_seed000s_first_hand() -> None:
    state = hand_for("seed000", seed=21)
    first_deck = list(state.deck)
    draw_all(state)
    state.apply("close")
    assert state.phase == DEALING and state.deal_number == 1
    assert state.hands == [[], [], [], []] and state.deck != first_deck
    assert state.dealer is None
    draw_all(state)
    seat = next(s for s in range(4) if any(c % 13 == 0 and c < 52 for c in state.hands[s]))
    card = next(c for c in state.hands[seat] if c % 13 == 0 and c < 52)
    apply_all(state, [f"bid {seat} {format_cards([card])}", "close"])
    assert state.dealer == seat and state.phase == BURYING


def test_a_redeal_in_a_later_hand_keeps_the_dealer() -> None:
    rules = preset("ranked").with_options(no_bid="redeal")
    state = hand_for(rules, seed=2, dealer=2, levels=("4", "3"))
    draw_all(state)
    state.apply("close")
    assert state.phase == DEALING and state.deal_number == 1 and state.dealer == 2
    state.apply("draw")
    assert state.hands[2] == [state.deck[8]]


def test_seed000_later_hands_flip_the_kitty() -> None:
    # seed 000 reads all 8 cards as bids (flip_rule = as_bids): the 2S pair (the fill put the
    # second 2S in the kitty) beats the earlier single 2D.
    deck = designed_deck(kitty="3S 4C 2D 2S", fill_seed=2)
    state = hand_for("seed000", decks=[deck], dealer=3)
    draw_all(state)
    state.apply("close")
    assert format_cards(state.flipped) == "3S 4C 2D 2S 4S TD 2S JD"
    assert state.trump is not None and state.trump.suit == "S"
    assert state.dealer == 3


@pytest.mark.parametrize(
    ("kitty", "flipped", "suit"),
    [
        ("3S 4C 2D 2S", "3S 4C 2D", "D"),
        ("SJ 2H", "SJ", None),
        ("4S BJ 2H", "4S BJ", None),
        ("3S 3S 4S 4S 5S 5S 6S 6S", "3S 3S 4S 4S 5S 5S 6S 6S", None),
    ],
)
def test_flip_kitty_in_a_first_hand_seat_0_deals(
    kitty: str, flipped: str, suit: str | None
) -> None:
    deck = designed_deck(kitty=kitty, fill_seed=5)
    state = hand_for("ranked", decks=[deck])
    draw_all(state)
    state.apply("close")
    assert format_cards(state.flipped) == flipped
    assert state.trump is not None and state.trump.suit == suit
    assert state.dealer == 0 and state.phase == BURYING
    assert all(c in state.hands[0] for c in state.kitty)


def test_flip_kitty_function() -> None:
    assert flip_kitty(cards("3S 4C 2D 2S"), "2") == (cards("3S 4C 2D"), "D")
    assert flip_kitty(cards("AS KS"), "A") == (cards("AS"), "S")
    assert flip_kitty(cards("3S 4S"), "2") == (cards("3S 4S"), None)


def test_no_trump_when_nobody_bids_under_seed003() -> None:
    state = hand_for("seed003", seed=8)
    draw_all(state)
    state.apply("close")
    assert state.trump is not None and state.trump.suit is None
    assert state.dealer == 0 and state.flipped == []


def test_seed002_first_hand_without_a_bid_flips() -> None:
    state = hand_for("seed002", seed=8)
    draw_all(state)
    state.apply("close")
    assert state.flipped and state.dealer == 0


# --- level source -------------------------------------------------------------------------


def test_random_level_comes_from_the_seed() -> None:
    levels = {hand_for("seed003", seed=s, dealer=1, levels=("4", "9")).level for s in range(60)}
    assert len(levels) > 5
    assert hand_for("seed003", seed=7).level == hand_for("seed003", seed=7).level
    team = {hand_for("ranked", seed=s, dealer=1, levels=("4", "9")).level for s in range(10)}
    assert team == {"9"}


def test_random_level_hand_uses_its_level_for_bids_and_trump() -> None:
    state = hand_for("seed003", seed=12, levels=("5", "5"))
    level = state.level
    draw_all(state)
    holder = next(
        (s, c) for s in range(4) for c in state.hands[s] if c < 52 and format_cards([c])[0] == level
    )
    seat, card = holder
    apply_all(state, [f"bid {seat} {format_cards([card])}", "close"])
    assert state.trump is not None and state.trump.level == level


def test_action_text_round_trip() -> None:
    for text in ["draw", "close", "bid 2 5H 5H", "bury 0 3C 4C 5C 6C 7C 8C 9C TC", "leave 3"]:
        assert str(parse_action(text)) == text
    assert str(parse_action("play 1 as as ks")) == "play 1 AS AS KS"
    assert str(parse_action("PLAY 1 ASASKS")) == "play 1 AS AS KS"
    for bad in [
        "",
        "jump 1",
        "play",
        "play 4 AS",
        "play x AS",
        "draw 1",
        "play 1",
        "leave 1 AS",
        "play 1 XX",
    ]:
        with pytest.raises(ShengjiError) as caught:
            parse_action(bad)
        assert caught.value.code == "invalid_action"
    with pytest.raises(IllegalActionError) as seat:
        hand_for("ranked").check_action(None, Action("bid", 7, (0,)))
    assert seat.value.code == "wrong_seat"
    with pytest.raises(ShengjiError) as kind:
        hand_for("ranked").apply(Action("jump", 1))
    assert kind.value.code == "invalid_action"
    with pytest.raises(ShengjiError) as card:
        hand_for("ranked").apply(Action("bid", 1, (54,)))
    assert card.value.code == "invalid_action"
