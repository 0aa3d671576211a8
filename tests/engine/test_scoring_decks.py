"""Scoring by decks (RULES-SPEC.md §9.2 Scoring): points in play are 100 × decks, and the level
bands step by s = 20 × decks from the attackers' points X: X = 0 → defenders +3; X < s → +2;
X < 2s → +1; X < 3s → attackers take the deal (+0); then +1 a further s. Two decks: RULES-SPEC.md
§5.6
exactly."""

from __future__ import annotations

import pytest

from shengji.engine.cards import CARD_IDS, Card
from shengji.engine.errors import InvalidOptionError, InvalidPointsError
from shengji.engine.scoring import level_change, points, total_points

# Every boundary of the §2 table, with the last point total below it (points come in 5s).
BANDS = {
    2: [
        (0, ("defenders", 3)),
        (5, ("defenders", 2)),
        (35, ("defenders", 2)),
        (40, ("defenders", 1)),
        (75, ("defenders", 1)),
        (80, ("attackers", 0)),
        (115, ("attackers", 0)),
        (120, ("attackers", 1)),
        (155, ("attackers", 1)),
        (160, ("attackers", 2)),
        (200, ("attackers", 3)),
    ],
    3: [
        (0, ("defenders", 3)),
        (5, ("defenders", 2)),
        (55, ("defenders", 2)),
        (60, ("defenders", 1)),
        (115, ("defenders", 1)),
        (120, ("attackers", 0)),
        (175, ("attackers", 0)),
        (180, ("attackers", 1)),
        (235, ("attackers", 1)),
        (240, ("attackers", 2)),
        (295, ("attackers", 2)),
        (300, ("attackers", 3)),
    ],
    4: [
        (0, ("defenders", 3)),
        (5, ("defenders", 2)),
        (75, ("defenders", 2)),
        (80, ("defenders", 1)),
        (155, ("defenders", 1)),
        (160, ("attackers", 0)),
        (235, ("attackers", 0)),
        (240, ("attackers", 1)),
        (315, ("attackers", 1)),
        (320, ("attackers", 2)),
        (395, ("attackers", 2)),
        (400, ("attackers", 3)),
        (440, ("attackers", 3)),  # a kitty bonus can take X past the points in play
        (480, ("attackers", 4)),
    ],
}
CASES = [(decks, x, result) for decks, rows in BANDS.items() for x, result in rows]


@pytest.mark.parametrize(("decks", "attacker_points", "result"), CASES)
def test_level_change_at_each_boundary(
    decks: int, attacker_points: int, result: tuple[str, int]
) -> None:
    assert level_change(attacker_points, decks) == result
    assert level_change(attacker_points, decks=decks) == result


@pytest.mark.parametrize("attacker_points", range(0, 405, 5))
def test_two_decks_is_the_default_and_unchanged(attacker_points: int) -> None:
    """The two-deck table of RULES-SPEC.md §5.6, restated directly."""
    x = attacker_points
    expected = (
        ("defenders", 3)
        if x == 0
        else ("defenders", 2)
        if x < 40
        else ("defenders", 1)
        if x < 80
        else ("attackers", (x - 80) // 40)
    )
    assert level_change(x) == level_change(x, 2) == expected


@pytest.mark.parametrize("decks", [2, 3, 4])
def test_points_in_play_are_100_a_deck(decks: int) -> None:
    deck = [Card(c) for c in CARD_IDS for _ in range(decks)]
    assert total_points(decks) == points(deck) == 100 * decks


@pytest.mark.parametrize("decks", [0, 1, 5, -2])
def test_decks_outside_2_to_4_are_refused(decks: int) -> None:
    with pytest.raises(InvalidOptionError) as caught:
        level_change(40, decks)
    assert caught.value.code == "invalid_option"
    with pytest.raises(InvalidOptionError):
        total_points(decks)


def test_negative_points_are_refused_with_any_decks() -> None:
    with pytest.raises(InvalidPointsError):
        level_change(-5, 3)
