"""Random house options (RULES-SPEC.md §10), for self-play, the bots' legality runs and the
benchmarks: ``random_house_rules(rng, players, decks, mode)`` draws a valid rule set.

A draw starts from a preset taken at random, sets the table shape, then gives each house
option its default or, with probability ``change_rate``, another value of its range. A
combination the rules refuse (``RefusedOptionError``: bands out of range, a kitty that
removes too many cards, a level rule with ``level_source = random`` …) is drawn again, so
every rule set returned is one a table could set. Everything comes from the ``random.Random``
passed in: the same seed gives the same rule sets.

``random_start(rng, rules)`` draws where a match begins: every level (team or player) from
the table's ladder, NT included under ``top_level = NT``, and a dealer, or none for a first
hand (then all levels are equal, as ``new_hand`` requires).
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from shengji.engine.deal import formula_kitty
from shengji.engine.levels import level_ladder
from shengji.engine.rules import (
    ADVANCEMENT,
    BID_ORDER,
    BID_REINFORCE,
    DECK_JOKERS,
    DECK_MIN_RANK,
    DRAW_POLICY,
    DRAW_POLICY_HOUSE,
    FLIP_RULE,
    FLIP_RULE_HOUSE,
    FRIENDS,
    JACK_RULE,
    JOKER_BIDS,
    KITTY_MULTIPLIER,
    KITTY_MULTIPLIER_HOUSE,
    KITTY_THEFT,
    MAX_DECKS,
    MAX_PLAYERS,
    MIN_DECKS,
    MIN_PLAYERS,
    PLAY_HISTORY,
    PRESET_NAMES,
    TAKEBACK,
    THROW_BEAT,
    THROW_PENALTY_PER,
    TOP_LEVEL,
    TRACTOR,
    RefusedOptionError,
    RuleSet,
    preset,
)

CHANGE_RATE = 0.5
"""The chance each house option is drawn away from its default."""
MAX_DRAWS = 200
"""Draws before giving up (a valid combination is found within a handful)."""
SHAPES: tuple[tuple[int, int, str], ...] = (
    (4, 2, TRACTOR),
    (4, 3, TRACTOR),
    (5, 2, FRIENDS),
    (6, 3, FRIENDS),
    (6, 3, TRACTOR),
    (6, 2, TRACTOR),
    (7, 3, FRIENDS),
    (8, 4, FRIENDS),
    (8, 4, TRACTOR),
    (5, 4, FRIENDS),
    (4, 4, TRACTOR),
)
"""Table shapes for a random run (every player count, deck count and mode; four decks,
where bombs are allowed, at 4, 5 and 8 seats)."""

Draw = Callable[[Random, int, int], Any]
"""``(rng, players, decks) -> value`` of one option."""


def _choice(values: tuple[object, ...]) -> Draw:
    return lambda rng, players, decks: rng.choice(values)


def _kitty_size(rng: Random, players: int, decks: int) -> int:
    """A kitty from 1 to twice the formula's (RULES-SPEC.md §10.11); ``RuleSet`` refuses one
    that removes too many cards, and the draw is then made again."""
    usual = formula_kitty(54 * decks, players)
    return rng.randint(1, 2 * usual)


def _rainbow_min(rng: Random, players: int, decks: int) -> int:
    """4 … 4 × decks, the small values (rainbows that occur) most often."""
    return rng.choice((4, 4, 5, 6, rng.randint(4, 4 * decks)))


def _tractor_min_length(rng: Random, players: int, decks: int) -> int:
    return rng.choice((3, 3, 4, rng.randint(2, 12)))


_HOUSE_DRAWS: dict[str, Draw] = {
    "kitty_multiplier": _choice(KITTY_MULTIPLIER + KITTY_MULTIPLIER_HOUSE),
    "throw_penalty": _choice((5, 10, 20)),
    "throw_penalty_per": _choice(THROW_PENALTY_PER),
    "step_points": lambda rng, players, decks: rng.choice((5, 10, 15, 20, 25, 30, 40)),
    "takeover_steps": lambda rng, players, decks: rng.randint(1, 4),
    "deadzone_steps": lambda rng, players, decks: rng.randint(0, 3),
    "zero_bonus": _choice((False, True)),
    "top_level": _choice(TOP_LEVEL),
    "advancement": _choice(ADVANCEMENT),
    "jack_rule": _choice(JACK_RULE),
    "hide_defender_points": _choice((True,)),
    "play_history": _choice(PLAY_HISTORY),
    "name_throw_blocker": _choice((True,)),
    "kitty_size": _kitty_size,
    "deck_min_rank": _choice(DECK_MIN_RANK),
    "deck_jokers": _choice(DECK_JOKERS),
    "tractor_min_length": _tractor_min_length,
    "tractor_min_tuple": lambda rng, players, decks: rng.randint(2, decks),
    "draw_policy": _choice(DRAW_POLICY + DRAW_POLICY_HOUSE),
    "throw_beat": _choice(THROW_BEAT),
    "bombs": lambda rng, players, decks: (
        rng.choice(("any_suit", "follow_suit")) if decks == MAX_DECKS else "off"
    ),
    "rainbow_min": _rainbow_min,
    "bid_order": _choice(BID_ORDER),
    "bid_reinforce": _choice(BID_REINFORCE),
    "joker_bids": _choice(JOKER_BIDS),
    "flip_rule": _choice(FLIP_RULE + FLIP_RULE_HOUSE),
    "bid_takeback": _choice(TAKEBACK),
    "takeback": _choice(TAKEBACK),
    "kitty_theft": _choice(KITTY_THEFT),
}
"""How each option the random draw changes gets its value (RULES-SPEC.md §10.2–§10.24)."""

RANDOM_OPTIONS = tuple(_HOUSE_DRAWS)
"""The options ``random_house_rules`` draws."""


def random_house_options(
    rng: Random, players: int, decks: int, change_rate: float = CHANGE_RATE
) -> dict[str, Any]:
    """One draw of changed house options (not checked: ``random_house_rules`` checks)."""
    return {
        option: draw(rng, players, decks)
        for option, draw in _HOUSE_DRAWS.items()
        if rng.random() < change_rate
    }


def random_house_rules(
    rng: Random,
    players: int,
    decks: int,
    mode: str,
    *,
    change_rate: float = CHANGE_RATE,
    base: str | None = None,
) -> RuleSet:
    """A valid rule set for the table shape: a preset (``base``, or one drawn) with random
    house options, drawn again while the rules refuse the combination."""
    _check_shape(players, decks, mode)
    for _ in range(MAX_DRAWS):
        name = base or rng.choice(PRESET_NAMES)
        options = _within_bidding(random_house_options(rng, players, decks, change_rate), name)
        try:
            return preset(name).with_options(
                name=f"{name}+house", players=players, decks=decks, mode=mode, **options
            )
        except RefusedOptionError:
            continue
    raise RuntimeError(f"no valid house options in {MAX_DRAWS} draws for {players}/{decks}/{mode}")


STRENGTH_ONLY: dict[str, tuple[object, ...]] = {
    "bid_order": BID_ORDER[1:],
    "bid_reinforce": BID_REINFORCE[1:],
    "joker_bids": ("small_all_big_less_one",),
}
"""The values that refine only ``bidding = strength`` (RULES-SPEC.md §10.18–§10.20)."""


def _within_bidding(options: dict[str, Any], name: str) -> dict[str, Any]:
    """``options`` without the values the preset's bidding refuses: drawing them again would
    rarely find a rule set at a high ``change_rate``."""
    if preset(name).bidding == "strength":
        return options
    return {
        option: value
        for option, value in options.items()
        if value not in STRENGTH_ONLY.get(option, ())
    }


def _check_shape(players: int, decks: int, mode: str) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS or not MIN_DECKS <= decks <= MAX_DECKS:
        raise ValueError(f"no table of {players} players and {decks} decks")
    if mode not in (TRACTOR, FRIENDS):
        raise ValueError(f"no mode {mode!r}")


def random_start(
    rng: Random, rules: RuleSet, first_hand_rate: float = 0.25
) -> tuple[tuple[str, ...], int | None]:
    """``(levels, dealer)`` for a match's start: a first hand (dealer None, every level the
    ladder's first) with probability ``first_hand_rate``, else a dealer and random levels from
    the table's ladder (so the level rules of RULES-SPEC.md §10.5–§10.7 come into play)."""
    ladder = level_ladder(rules.top_level, rules.deck_min_rank)
    slots = rules.players if rules.is_friends else 2
    if rules.level_source == "random" or rng.random() < first_hand_rate:
        return (ladder[0],) * slots, None
    return tuple(rng.choice(ladder) for _ in range(slots)), rng.randrange(rules.players)


def changed_options(rules: RuleSet) -> dict[str, Any]:
    """The options of ``RANDOM_OPTIONS`` a rule set holds away from their defaults."""
    plain = RuleSet()
    return {
        option: getattr(rules, option)
        for option in RANDOM_OPTIONS
        if getattr(rules, option) != getattr(plain, option)
    }
