"""Points, the kitty multiplier (RULES-SPEC.md §5.5) and level changes (RULES-SPEC.md §5.6)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shengji.engine.cards import RANKS, SMALL_JOKER
from shengji.engine.errors import InvalidOptionError, InvalidPointsError
from shengji.engine.patterns import shape_of
from shengji.engine.trump import Trump
from shengji.engine.tuples import largest_unit

KITTY_POLICIES = ("lead_shape", "winner_shape", "pairs")
UNIT_POLICIES = ("unit_size", "unit_power")
"""The ``kitty_multiplier`` values read at every deck count (RULES-SPEC.md §10.2)."""
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


@dataclass(frozen=True, slots=True)
class ScoreBands:
    """The level bands of RULES-SPEC.md §10.4: the step in points (0: 20 a deck), the takeover
    line in steps, the steps past it that only take the deal, and the extra level at 0 points.
    The defaults are RULES-SPEC.md §9.2.9's bands."""

    step_points: int = 0
    takeover_steps: int = 2
    deadzone_steps: int = 1
    zero_bonus: bool = True


def level_change(
    attacker_points: int, decks: int = 2, bands: ScoreBands | None = None
) -> tuple[str, int]:
    """Which side goes up and by how many levels, from the attackers' points (RULES-SPEC.md §5.6;
    RULES-SPEC.md §9.2 Scoring: the step is ``20 × decks``, 40 for two decks; ``bands``:
    RULES-SPEC.md §10.4).

    ``("attackers", 0)`` means the attackers take the deal without going up.
    """
    if attacker_points < 0:
        raise InvalidPointsError(f"attacker points {attacker_points} are negative")
    if bands is not None:
        return _banded_change(attacker_points, _checked_decks(decks), bands)
    step = 20 * _checked_decks(decks)
    if attacker_points == 0:
        return DEFENDERS, 3
    if attacker_points < step:
        return DEFENDERS, 2
    if attacker_points < 2 * step:
        return DEFENDERS, 1
    return ATTACKERS, (attacker_points - 2 * step) // step


def _banded_change(x: int, decks: int, bands: ScoreBands) -> tuple[str, int]:
    """RULES-SPEC.md §10.4: below T steps the defenders go up T − (steps reached), one more at
    0 points with ``zero_bonus``; from T steps the attackers take the deal, then go up one level
    for each step past the deadzone."""
    step = bands.step_points or 20 * decks
    takeover = bands.takeover_steps
    if step <= 0 or takeover < 1 or bands.deadzone_steps < 0:
        raise InvalidOptionError(f"level bands {bands!r} are out of range")
    line = takeover * step
    if x < line:
        if x == 0 and bands.zero_bonus:
            return DEFENDERS, takeover + 1
        return DEFENDERS, takeover - x // step
    return ATTACKERS, max(0, (x - line) // step - bands.deadzone_steps + 1)


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
    For the last two the winning play is read by its own split, "by the winning play" as
    RULES-SPEC.md §5.5 says (a ruff ``7H7H8H8H`` is a tractor whatever it ruffed;
    docs/RULES-DECISIONS.md 16).
    """
    if policy not in KITTY_POLICIES:
        raise InvalidOptionError(f"kitty_multiplier {policy!r} is not one of {KITTY_POLICIES}")
    shape = shape_of(play, trump)
    if shape.tractors:
        return 8 if policy == "winner_shape" else 2 * 2 ** max(shape.tractors)
    if policy == "pairs":
        return 6 if shape.pairs >= 3 else 4 if shape.pairs == 2 else 2
    return 4 if shape.pairs else 2


def unit_multiplier(lead: Sequence[int], trump: Trump, policy: str = "unit_size") -> int:
    """RULES-SPEC.md §10.2, with u the cards in the largest unit of the last trick's lead as
    played (its format: a failed throw's forced part): ``unit_size`` 2 × u, ``unit_power`` 2^u."""
    if policy not in UNIT_POLICIES:
        raise InvalidOptionError(f"kitty_multiplier {policy!r} is not one of {UNIT_POLICIES}")
    size = largest_unit(lead, trump)
    return 2 * size if policy == "unit_size" else 2**size


def last_trick_multiplier(
    lead: Sequence[int], winning: Sequence[int], trump: Trump, policy: str, decks: int = 2
) -> int:
    """The kitty's multiplier when the attackers take the last trick, led by ``lead`` and won
    by the play ``winning``: RULES-SPEC.md §5.5 at two decks, §9.2.10 above (``policy`` not
    read), and the ``unit_*`` values of §10.2 at every deck count."""
    if policy in UNIT_POLICIES:
        return unit_multiplier(lead, trump, policy)
    if decks > 2:
        return 2 * largest_unit(lead, trump)
    return kitty_multiplier(lead if policy == "lead_shape" else winning, trump, policy)
