"""Points, level changes (RULES-SPEC.md §5.6; seeds 000 §1.11, 002, 003 记分规则) and the kitty
multiplier (RULES-SPEC.md §5.5; seed 000 §1.10, seed 002 抠底, seed 004 §17)."""

from __future__ import annotations

import pytest

from shengji.engine import (
    InvalidOptionError,
    InvalidPointsError,
    Trump,
    card_points,
    full_deck,
    kitty_multiplier,
    level_change,
    parse_cards,
    points,
)


def test_points_in_two_decks() -> None:
    assert points(full_deck()) == 200
    assert [card_points(c) for c in parse_cards("5S TD KH AS SJ BJ 4C")] == [5, 10, 10, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("attacker_points", "result"),
    [
        (0, ("defenders", 3)),  # 得分为 0，庄家方连升 3 级
        (5, ("defenders", 2)),
        (35, ("defenders", 2)),  # 不满 40，连升 2 级
        (40, ("defenders", 1)),  # 大于等于 40 小于 80，升 1 级
        (75, ("defenders", 1)),
        (80, ("attackers", 0)),  # 大于等于 80 小于 120，轮换庄家 / 上台
        (115, ("attackers", 0)),
        (120, ("attackers", 1)),  # 大于等于 120 小于 160，抓分方升 1 级
        (155, ("attackers", 1)),
        (160, ("attackers", 2)),  # 大于等于 160 小于 200，连升 2 级
        (195, ("attackers", 2)),
        (200, ("attackers", 3)),  # 得分等于 200，连升 3 级 (seed 002)
        (240, ("attackers", 4)),  # 以后以 40 分为一个等级 (seed 003); kitty bonus can pass 200
        (280, ("attackers", 5)),
    ],
)
def test_level_change(attacker_points: int, result: tuple[str, int]) -> None:
    assert level_change(attacker_points) == result


@pytest.mark.parametrize("attacker_points", range(80, 400, 5))
def test_level_change_matches_seed_000_formula(attacker_points: int) -> None:
    # seed 000 §1.11: attackers go up 1 + TRUNC((X - 80) / 40), less 1 for taking the deal.
    assert level_change(attacker_points) == ("attackers", 1 + (attacker_points - 80) // 40 - 1)


def test_negative_points_are_refused() -> None:
    with pytest.raises(InvalidPointsError) as caught:
        level_change(-5)
    assert caught.value.code == "invalid_points"


T_H = Trump("T", "H")

KITTY = [
    # (policy, play, lead or None, multiplier)
    # lead_shape (seed 000 §1.10): by the last trick's lead
    ("lead_shape", "AS", None, 2),
    ("lead_shape", "AS KS", None, 2),
    ("lead_shape", "ASAS", None, 4),
    ("lead_shape", "ASAS KS", None, 4),
    ("lead_shape", "ASAS QSQS", None, 4),
    ("lead_shape", "5S5S6S6S", None, 8),  # 5566 拖拉机长度为 2: 2 × 2^2
    ("lead_shape", "5S5S6S6S7S7S", None, 16),  # 556677 长度为 3: 2 × 2^3
    ("lead_shape", "5S5S6S6S JSJSQSQSKSKS AS", None, 16),  # the longest tractor counts
    ("lead_shape", "SJSJ BJBJ", None, 8),
    # winner_shape (seed 002 抠底): single 2, pair 4, tractor 8
    ("winner_shape", "2H", None, 2),
    ("winner_shape", "2H2H", None, 4),
    ("winner_shape", "2H2H3H3H", None, 8),  # 对牌拖拉机 ×8
    ("winner_shape", "2H2H3H3H4H4H", None, 8),  # any tractor of pairs: 8
    ("winner_shape", "AH KH QH", None, 2),  # a throw: its highest pattern
    ("winner_shape", "AHAH KH", None, 4),
    # a winning ruff is read by its own split, whatever it ruffed
    ("winner_shape", "7H7H8H8H", "AS KS QS JS", 8),
    ("winner_shape", "7H7H8H8H", "ASAS QSQS", 8),
    ("winner_shape", "7H7H8H8H", "5S5S4S4S", 8),
    ("winner_shape", "7H7H 9H", "5S 4S4S", 4),
    # pairs (seed 004 §17): tractor 2 × 2^len, else three pairs 6, two pairs 4, else 2
    ("pairs", "2H", None, 2),
    ("pairs", "2H2H", None, 2),  # one pair: 什麼都沒有
    ("pairs", "2H2H 5H5H", None, 4),
    ("pairs", "2H2H 5H5H 7H7H", None, 6),
    ("pairs", "2H2H 5H5H 7H7H 9H9H", None, 6),  # contains three pairs
    ("pairs", "2H2H3H3H", None, 8),
    ("pairs", "2H2H3H3H4H4H", None, 16),
    ("pairs", "2H2H3H3H 7H7H 9H9H", None, 8),  # a tractor first, whatever else
    ("pairs", "7H7H8H8H 2H2H", "ASAS QSQS 9S9S", 8),  # by its own split: a tractor
    ("pairs", "7H7H8H8H", "AS KS QS JS", 8),
]


@pytest.mark.parametrize(("policy", "play", "lead", "multiplier"), KITTY)
def test_kitty_multiplier(policy: str, play: str, lead: str | None, multiplier: int) -> None:
    # ``lead`` documents the trick the play won; the winning play is read by its own split.
    assert kitty_multiplier(parse_cards(play), T_H, policy) == multiplier


def test_kitty_multiplier_defaults_to_lead_shape() -> None:
    assert kitty_multiplier(parse_cards("5S5S6S6S"), T_H) == 8


def test_unknown_kitty_policy() -> None:
    with pytest.raises(InvalidOptionError) as caught:
        kitty_multiplier(parse_cards("AS"), T_H, "double")
    assert caught.value.code == "invalid_option"
