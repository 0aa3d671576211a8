"""Playing a hand (RULES-SPEC.md §4, §5.4–§5.6): turns, follows, failed throws and their penalty,
the kitty bonus under each multiplier option, the result, escapes."""

from __future__ import annotations

import pytest

from shengji.engine.action_errors import IllegalActionError
from shengji.engine.cards import format_cards
from shengji.engine.errors import IllegalPlayError, ShengjiError
from shengji.engine.hand import FINISHED, HandState
from shengji.engine.rules import RuleSet, preset
from shengji.engine.scoring import level_change
from tests.engine.hand_helpers import apply_all, cards, designed_deck, draw_all, finish, hand_for

# Seat 1 (an attacker when seat 0 deals) holds the top trumps (level 2, trump hearts): it ruffs
# the first trick and wins every trick after, ending with ``final`` as the last lead.
TOP_TEXT = "BJBJ SJSJ 2H2H 2S2S 2C2C 2D2D AHAH KHKH QHQH JHJH THTH 9H9H 8H8H"
TOP = format_cards(cards(TOP_TEXT)).split()
KITTY_POINTS = "5S 5S TS TS KS KS 5C 5C"  # 60 points, buried by the dealer


def attackers_take_the_last_trick(
    rules: RuleSet | str, final: str, levels: tuple[str, str] = ("2", "2")
) -> HandState:
    finals = final.split()
    winners = list(TOP)
    for c in finals:
        winners.remove(c)
    winners = winners[: 25 - len(finals)]
    deck = designed_deck({1: " ".join(winners + finals), 0: "3S " + KITTY_POINTS}, fill_seed=1)
    state = hand_for(rules, decks=[deck], dealer=0, levels=levels)
    draw_all(state)
    apply_all(state, ["bid 1 2H", "close", f"bury 0 {KITTY_POINTS}", "play 0 3S"])
    state.apply(f"play 1 {winners[0]}")
    return finish(state, {1: [*winners[1:], final]})


@pytest.mark.parametrize(
    ("rules", "final", "multiplier"),
    [
        # lead_shape (000, 003, ranked): by the last lead; tractor 2 x 2^len, pair 4, else 2.
        ("seed000", "BJ", 2),
        ("seed000", "BJ BJ", 4),
        ("seed000", "BJ BJ SJ SJ", 8),
        ("seed000", "BJ BJ SJ SJ 2H 2H", 16),
        ("seed000", "BJ BJ AH AH", 4),
        ("ranked", "BJ BJ 2H 2H AH AH", 4),
        # winner_shape (002): single 2, pair 4, tractor 8.
        ("seed002", "BJ", 2),
        ("seed002", "BJ BJ", 4),
        ("seed002", "BJ BJ SJ SJ", 8),
        ("seed002", "BJ BJ SJ SJ 2H 2H", 8),
        ("seed002", "BJ BJ 2H 2H AH AH", 4),
        # pairs (004): tractor 2 x 2^len, three pairs 6, two pairs 4, else 2.
        ("seed004", "BJ", 2),
        ("seed004", "BJ BJ", 2),
        ("seed004", "BJ BJ AH AH", 4),
        ("seed004", "BJ BJ 2H 2H AH AH", 6),
        ("seed004", "BJ BJ SJ SJ", 8),
        ("seed004", "BJ BJ SJ SJ 2H 2H", 16),
    ],
)
def test_kitty_multiplier_options(rules: str, final: str, multiplier: int) -> None:
    state = attackers_take_the_last_trick(rules, final)
    result = state.result
    assert result is not None
    assert format_cards(state.tricks[-1].plays[0]) == final
    assert state.tricks[-1].winner == 1
    assert result.kitty_points == 60
    assert (result.kitty_multiplier, result.kitty_bonus) == (multiplier, 60 * multiplier)
    assert result.attacker_points == result.trick_points + 60 * multiplier
    assert (result.winner, result.levels_gained) == level_change(result.attacker_points)


def test_no_kitty_bonus_when_the_defenders_take_the_last_trick() -> None:
    # The dealer holds the 25 top trumps and wins every trick: X = 0, defenders +3.
    deck = designed_deck({0: " ".join(TOP[:25])}, kitty=KITTY_POINTS, fill_seed=3)
    state = hand_for("ranked", decks=[deck], dealer=0)
    draw_all(state)
    apply_all(state, ["bid 0 2H", "close", f"bury 0 {KITTY_POINTS}"])
    finish(state, {0: TOP[:25]})
    result = state.result
    assert result is not None
    assert (result.kitty_multiplier, result.kitty_bonus, result.kitty_points) == (0, 0, 60)
    assert (result.attacker_points, result.winner, result.levels_gained) == (0, "defenders", 3)
    assert result.levels_after == ("5", "2") and result.next_dealer == 2


def test_result_and_next_dealer() -> None:
    state = attackers_take_the_last_trick("seed004", "BJ BJ SJ SJ")
    result = state.result
    assert result is not None
    assert result.winner == "attackers"
    assert result.winning_team == 1 and result.winning_seats == (1, 3)
    assert result.dealer == 0 and result.defenders == (0, 2) and result.attackers == (1, 3)
    assert result.next_dealer == 1  # the dealer's 下家
    assert result.levels_at_start == ("2", "2")
    # +13 levels from 2 passes A: under wrap (004) back past 2.
    assert result.passed_ace == 1 and result.levels_after == ("2", "2")
    assert result.wrapped_after == (False, True) and not result.match_over


def test_match_end_caps_at_a_and_ends_the_match() -> None:
    state = attackers_take_the_last_trick("seed000", "BJ BJ SJ SJ")
    result = state.result
    assert result is not None
    assert result.levels_after == ("2", "A") and result.passed_ace == 1
    assert result.match_over and result.match_winner == 1 and result.next_dealer is None


@pytest.mark.parametrize(
    ("attackers_level", "after", "passed"),
    [("9", "K", None), ("T", "A", None), ("J", "A", 1)],
)
def test_reaching_a_is_not_passing_it(attackers_level: str, after: str, passed: int | None) -> None:
    state = attackers_take_the_last_trick("ranked", "BJ", levels=("2", attackers_level))
    result = state.result
    assert result is not None and result.levels_gained == 4
    assert result.levels_after == ("2", after)
    assert result.passed_ace == passed and result.match_over == (passed is not None)


def ready(rules: RuleSet | str, hands: dict[int, str], dealer: int = 0) -> HandState:
    """Drawn, trump hearts bid by seat 1 (which holds 2H), kitty buried as dealt."""
    deck = designed_deck({**hands, 1: "2H " + hands.get(1, "")}, fill_seed=7)
    state = hand_for(rules, decks=[deck], dealer=dealer)
    draw_all(state)
    apply_all(state, ["bid 1 2H", "close"])
    state.apply(f"bury {dealer} {format_cards(state.kitty)}")
    return state


def test_turns_and_follow_codes() -> None:
    state = ready("ranked", {0: "4D 3S", 1: "AD 6D", 2: "3D"})
    with pytest.raises(IllegalActionError) as turn:
        state.apply("play 1 AD")
    assert turn.value.code == "not_your_turn"
    state.apply("play 0 4D")
    with pytest.raises(IllegalPlayError) as suit:
        state.apply("play 1 2H")
    assert suit.value.code == "must_follow_suit"
    with pytest.raises(IllegalPlayError) as count:
        state.apply("play 1 AD 6D")
    assert count.value.code == "wrong_count"
    state.apply("play 1 AD")
    assert state.turn == 2


def test_lead_codes() -> None:
    state = ready("ranked", {0: "4D 3S"})
    with pytest.raises(IllegalPlayError) as mixed:
        state.apply("play 0 4D 3S")
    assert mixed.value.code == "lead_mixed_suits"
    with pytest.raises(IllegalPlayError) as missing:
        state.apply("play 0 AS AS")
    assert missing.value.code in ("cards_not_in_hand",)


def throw_setup(rules: RuleSet) -> HandState:
    # Seat 0 leads AS KS 3S; seat 2 holds QS, which beats the 3S.
    return ready(rules, {0: "AS KS 3S", 2: "QS"})


def test_failed_throw_force_smallest_plays_the_smallest_single() -> None:
    state = throw_setup(preset("ranked").with_options(throw_penalty=10))
    state.apply("play 0 AS KS 3S")
    assert format_cards(state.trick.plays[0]) == "3S"
    assert all(c in state.hands[0] for c in cards("AS KS"))
    assert len(state.hands[0]) == 24
    failed = state.failed_throws[0]
    assert (failed.seat, failed.result, failed.penalty) == (0, "forced", 20)
    assert format_cards(failed.attempted) == "AS KS 3S"
    # D13: a defender's failed throw gives the penalty to the attackers.
    assert state.penalty_points == 20
    finish(state)
    assert state.result is not None
    assert state.result.failed_throws[0] == failed
    assert state.result.penalty_points == 20


def test_failed_throw_reject_leads_again() -> None:
    state = throw_setup(preset("seed004").with_options(throw_penalty=10))
    state.apply("play 0 AS KS 3S")
    assert state.trick.plays == [] and state.turn == 0 and len(state.hands[0]) == 25
    failed = state.failed_throws[0]
    assert (failed.result, failed.played, failed.penalty) == ("rejected", (), 30)
    assert state.actions[-1].kind == "play"
    state.apply("play 0 AS")
    assert state.turn == 1


def test_an_attackers_failed_throw_costs_the_attackers() -> None:
    rules = preset("ranked").with_options(throw_penalty=10)
    state = ready(rules, {0: "4D", 1: "AD AS KS 3S", 2: "3D QS", 3: "5D"})
    apply_all(state, ["play 0 4D", "play 1 AD"])
    for seat in (2, 3):
        low = min((c for c in state.hands[seat] if c // 13 == 3), key=lambda c: c % 13)
        state.apply(f"play {seat} {format_cards([low])}")
    assert state.turn == 1
    state.apply("play 1 AS KS 3S")
    assert state.penalty_points == -20
    finish(state)
    assert state.result is not None
    assert state.result.attacker_points == max(
        0, state.result.trick_points + state.result.kitty_bonus - 20
    )


def test_a_standing_throw_is_played_whole() -> None:
    state = ready("ranked", {0: "AS AS KS KS"}, dealer=0)
    # Nobody else holds an AS or KS, so no single or pair beats the lowest part.
    state.apply("play 0 AS AS KS")
    assert format_cards(state.trick.plays[0]) == "AS AS KS"
    assert state.failed_throws == []


def test_escape_stops_the_hand_without_level_changes() -> None:
    state = ready("seed000", {})
    apply_all(state, ["play 0 " + format_cards(state.hands[0][:1])])
    state.apply("leave 2")
    result = state.result
    assert state.phase == FINISHED and result is not None
    assert (result.outcome, result.escaper, result.winner) == ("escape", 2, None)
    assert result.levels_after == result.levels_at_start and result.levels_gained == 0
    assert result.match_over and result.next_dealer is None
    with pytest.raises(ShengjiError) as after:
        state.apply("leave 1")
    assert after.value.code == "wrong_phase"


def test_escape_during_the_deal() -> None:
    state = hand_for("seed002", seed=5)
    apply_all(state, ["draw"] * 10 + ["leave 3"])
    assert state.result is not None and state.result.dealer is None
    assert state.result.outcome == "escape" and state.result.defenders is None


def test_whole_hand_conserves_points() -> None:
    state = ready("ranked", {})
    finish(state)
    result = state.result
    assert result is not None
    assert result.trick_points + result.defender_points + result.kitty_points == 200
    assert sum(len(h) for h in state.hands) == 0
