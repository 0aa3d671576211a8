"""The rules API that bigger tables and 找朋友 add (RULES-SPEC.md §9.6): exact names and argument
orders, exported from ``shengji.engine``, and the old calls' results on two-deck input."""

from __future__ import annotations

import inspect

import shengji.engine as engine
from shengji.engine import Trump, parse_cards


def parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_the_new_calls_have_the_names_and_argument_orders_of_the_rules() -> None:
    assert parameters(engine.deal_sizes) == ["players", "decks"]
    assert parameters(engine.level_change)[:2] == ["attacker_points", "decks"]
    assert parameters(engine.friend_call_error)[:5] == [
        "card",
        "ordinal",
        "trump",
        "decks",
        "policy",
    ]
    copies = inspect.signature(engine.friend_call_error).parameters["copies"]
    assert copies.kind is inspect.Parameter.KEYWORD_ONLY  # RULES-SPEC.md §10.11
    assert parameters(engine.reveal_friends) == ["calls", "side", "plays", "join_policy"]
    assert parameters(engine.follow_error)[:4] == ["hand", "lead", "play", "trump"]
    assert "draw_policy" in parameters(engine.follow_error)
    defaults = inspect.signature(engine.follow_error).parameters
    assert defaults["draw_policy"].default == "no_protections"
    assert inspect.signature(engine.reveal_friends).parameters["join_policy"].default == (
        "unrestricted"
    )
    assert inspect.signature(engine.friend_call_error).parameters["policy"].default == (
        "unrestricted"
    )
    call = engine.FriendCall(parse_cards("AS")[0], 2)
    assert (call.seen, call.seat) == (0, None)


def test_the_old_calls_answer_as_before_on_two_decks() -> None:
    trump = Trump("2", "H")
    assert engine.level_change(75) == engine.level_change(75, 2) == ("defenders", 1)
    assert engine.deal_sizes(4, 2) == (25, 8)
    assert engine.is_tractor(parse_cards("3S 3S 4S 4S"), trump)
    hand = parse_cards("3S 3S 4S 4S 9S KD")
    lead = parse_cards("6S 6S 7S 7S")
    assert engine.follow_error(hand, lead, parse_cards("3S 3S 9S 4S"), trump) == (
        "must_follow_tractor"
    )
    plays = [parse_cards("6S 6S 7S 7S"), parse_cards("3S 3S 4S 4S"), parse_cards("2H 2H 3H 3H")]
    assert engine.trick_winner(plays, trump) == 0


def test_reveal_friends_reads_one_trick_in_play_order() -> None:
    trump = Trump("2", "H")
    ace = parse_cards("AS")[0]
    assert engine.friend_call_error(ace, 1, trump, 2) is None
    calls = [engine.FriendCall(ace, 2)]
    plays = [(3, parse_cards("KS")), (4, parse_cards("AS")), (0, parse_cards("3S")),
             (1, parse_cards("AS")), (2, parse_cards("4S"))]  # fmt: skip
    filled, side = engine.reveal_friends(calls, {3}, plays)
    assert filled[0].seat == 1 and filled[0].seen == 2
    assert side == frozenset({1, 3})
    assert calls[0].seat is None  # nothing is mutated
