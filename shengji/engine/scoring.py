"""Points, the kitty multiplier (RULES-SPEC.md §5.5) and level changes (RULES-SPEC.md §5.6)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from shengji.engine.cards import RANKS, SMALL_JOKER
from shengji.engine.errors import InvalidOptionError, InvalidPointsError
from shengji.engine.patterns import shape_of
from shengji.engine.trump import Trump

KITTY_POLICIES = ("lead_shape", "winner_shape", "pairs")
DEFENDERS = "defenders"
ATTACKERS = "attackers"
MIN_DECKS = 2
MAX_DECKS = 4
_POINTS_BY_RANK = {RANKS.index("5"): 5, RANKS.index("T"): 10, RANKS.index("K"): 10}


def card_points(card: int) -> int:
    """5 for a five, 10 for a ten or a king, else 0 (RULES-SPEC.md §1)."""
    if card >= SMALL_JOKER:
        return 0
    return _POINTS_BY_RANK.get(card % 13, 0)


def points(cards: Iterable[int]) -> int:
    """The point total of the cards."""
    return sum(card_points(c) for c in cards)


def level_change(attacker_points: int, decks: int = 2) -> tuple[str, int]:
    """Which side goes up and by how many levels, from the attackers' points (RULES-SPEC.md §5.6;
    RULES-SPEC.md §9.2 Scoring: the step is ``20 × decks``, 40 for two decks).

    ``("attackers", 0)`` means the attackers take the deal without going up.
    """
    if attacker_points < 0:
        raise InvalidPointsError(f"attacker points {attacker_points} are negative")
    step = 20 * _checked_decks(decks)
    if attacker_points == 0:
        return DEFENDERS, 3
    if attacker_points < step:
        return DEFENDERS, 2
    if attacker_points < 2 * step:
        return DEFENDERS, 1
    return ATTACKERS, (attacker_points - 2 * step) // step


def total_points(decks: int) -> int:
    """The points in play with ``decks`` decks: 100 a deck (RULES-SPEC.md §9.2 Scoring)."""
    return 100 * _checked_decks(decks)


def _checked_decks(decks: int) -> int:
    if isinstance(decks, bool) or not isinstance(decks, int) or not MIN_DECKS <= decks <= MAX_DECKS:
        raise InvalidOptionError(f"decks {decks!r} is not one of {MIN_DECKS}..{MAX_DECKS}")
    return decks


def kitty_multiplier(play: Sequence[int], trump: Trump, policy: str = "lead_shape") -> int:
    """The kitty's point multiplier when the attackers win the last trick (RULES-SPEC.md §5.5).

    ``lead_shape``: ``play`` is the last trick's lead; a tractor gives 2 × 2^len (len = pairs in
    its longest tractor), else a pair 4, else 2.
    ``winner_shape``: ``play`` is the winning play; a tractor 8, else a pair 4, else 2.
    ``pairs``: ``play`` is the winning play; a tractor 2 × 2^len, else three or more pairs 6,
    two pairs 4, else 2.
    For the last two the winning play is read by its own split, "by the winning play" as RULES.md
    §5.5 says (a ruff ``7H7H8H8H`` is a tractor whatever it ruffed; docs/RULES-DECISIONS.md 16).
    """
    if policy not in KITTY_POLICIES:
        raise InvalidOptionError(f"kitty_multiplier {policy!r} is not one of {KITTY_POLICIES}")
    shape = shape_of(play, trump)
    if shape.tractors:
        return 8 if policy == "winner_shape" else 2 * 2 ** max(shape.tractors)
    if policy == "pairs":
        return 6 if shape.pairs >= 3 else 4 if shape.pairs == 2 else 2
    return 4 if shape.pairs else 2
