"""Rule options and presets (RULES-SPEC.md §5–§8): ``RuleSet`` and ``preset(name)``.

A ``RuleSet`` is frozen and validated on construction; ``to_json``/``from_json`` round-trip it
with a version number, so a stored hand replays under exactly the rules it was played with.
Reading is strict: an unknown option, a missing option or an unknown value raises an
``InvalidOptionError`` subclass with a stable code. The one exception is an option added after
records were first stored (``ADDED_OPTIONS``): a record without it reads as the behaviour it
was played under, the option's value before it existed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from shengji.engine.action_errors import (
    MissingOptionError,
    UnknownOptionError,
    UnknownPresetError,
    UnsupportedVersionError,
)
from shengji.engine.errors import InvalidOptionError

RULES_VERSION = 1

BIDDING = ("strength", "count", "reinforce")
FIRST_HAND_DEALER = ("bidder", "first_bidder")
NO_BID = ("redeal", "flip_kitty", "no_trump")
FAILED_THROW = ("force_smallest", "reject")
FORCED_PART = ("by_kind", "lowest")
FLIP_RULE = ("first_card", "as_bids")
KITTY_MULTIPLIER = ("lead_shape", "winner_shape", "pairs")
PAST_ACE = ("wrap", "match_end")
LEVEL_SOURCE = ("team", "random")
SETTLEMENT = ("ratio", "levels", "table", "stake_steps")
ESCAPE_PENALTY = ("triple", "fixed_40", "nine_stakes", "none")
MODE = ("tractor", "friends")
FRIEND_CARDS = ("unrestricted", "trumps_included", "no_highest", "no_points")
JOIN_POLICY = ("unrestricted", "no_double_join")
DRAW_POLICY = ("no_protections", "longer_tuples_protected")
TRACTOR = "tractor"
FRIENDS = "friends"
MIN_PLAYERS, MAX_PLAYERS = 4, 8
MIN_DECKS, MAX_DECKS = 2, 4
MAX_REDEALS = 3
"""The default of ``max_redeals`` (docs/ENGINE-PART2-DECISIONS.md, D1a)."""

_CHOICES: dict[str, tuple[str, ...]] = {
    "bidding": BIDDING,
    "first_hand_dealer": FIRST_HAND_DEALER,
    "no_bid_first_hand": NO_BID,
    "no_bid": NO_BID,
    "failed_throw": FAILED_THROW,
    "forced_part": FORCED_PART,
    "flip_rule": FLIP_RULE,
    "kitty_multiplier": KITTY_MULTIPLIER,
    "past_ace": PAST_ACE,
    "level_source": LEVEL_SOURCE,
    "settlement": SETTLEMENT,
    "escape_penalty": ESCAPE_PENALTY,
}
_NUMBERS = (
    "throw_penalty",
    "deal_interval_ms",
    "bid_window_s",
    "bury_s",
    "play_s",
    "max_redeals",
)
_SHAPE_CHOICES: dict[str, tuple[str, ...]] = {
    "mode": MODE,
    "friend_cards": FRIEND_CARDS,
    "join_policy": JOIN_POLICY,
    "draw_policy": DRAW_POLICY,
}
HOUSE_RULE_OPTIONS: dict[str, tuple[str, ...]] = dict(_CHOICES)
"""The options a casual table may set on top of its preset (RULES-SPEC.md §4–§7), with their values;
timings are the table's own fields, and ``throw_penalty`` stays the preset's."""

CLASSIC_SHAPE: dict[str, Any] = {
    "players": 4,
    "decks": 2,
    "mode": TRACTOR,
    "friends": 0,
    "friend_cards": "unrestricted",
    "join_policy": "unrestricted",
    "small_side_bonus": True,
    "draw_policy": "no_protections",
}
"""The table-shape options (RULES-SPEC.md, bigger tables) at the four-player, two-deck game.
``to_dict`` leaves out each one while it holds this value, so a classic hand's record reads
exactly as before these options existed."""

ADDED_OPTIONS: dict[str, Any] = {
    "forced_part": "by_kind",
    "flip_rule": "first_card",
    "max_redeals": 0,
    **CLASSIC_SHAPE,
}
"""Options added after hands were first recorded, with the value every older hand was played
under (seed 000's part order and seed 004's flip were then the only ones; redeals were not
bounded, which ``max_redeals = 0`` means; every hand had four players and two decks)."""


class ShapeOptionError(InvalidOptionError):
    """A table shape the rules do not allow; ``reason`` is a stable sub-code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


def default_decks(players: int) -> int:
    """RULES-SPEC.md §9.1: 2 decks for 4–5 players, 3 for 6–7, 4 for 8."""
    return 2 if players <= 5 else 3 if players <= 7 else 4


def default_friends(players: int) -> int:
    """RULES-SPEC.md §9.3.3: ``players // 2 - 1`` calls (5 → 1, 6 → 2, 7 → 2, 8 → 3)."""
    return players // 2 - 1


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One value for every rule option of RULES-SPEC.md §8, plus the timings of §7.

    ``no_bid_first_hand`` is what happens when nobody bids in a match's first hand and
    ``no_bid`` in later hands (seed 000: redeal first, flip the kitty later). ``forced_part``
    is which part of a failed throw is played (RULES-SPEC.md §4) and ``flip_rule`` how a kitty
    turned over names the trump (RULES-SPEC.md §5.2). Timings are for
    the site (the engine has no clock): the deal's pace per card, the bid window after the
    deal, the time to bury and the default time per play.
    """

    name: str = "custom"
    bidding: str = "strength"
    first_hand_dealer: str = "bidder"
    no_bid_first_hand: str = "flip_kitty"
    no_bid: str = "flip_kitty"
    failed_throw: str = "force_smallest"
    forced_part: str = "by_kind"
    flip_rule: str = "first_card"
    throw_penalty: int = 0
    kitty_multiplier: str = "lead_shape"
    past_ace: str = "match_end"
    level_source: str = "team"
    settlement: str = "ratio"
    escape_penalty: str = "triple"
    deal_interval_ms: int = 100
    bid_window_s: int = 8
    bury_s: int = 30
    play_s: int = 20
    max_redeals: int = MAX_REDEALS
    players: int = 4
    decks: int = 2
    mode: str = TRACTOR
    friends: int = 0
    friend_cards: str = "unrestricted"
    join_policy: str = "unrestricted"
    small_side_bonus: bool = True
    draw_policy: str = "no_protections"

    def __post_init__(self) -> None:
        for option, choices in (*_CHOICES.items(), *_SHAPE_CHOICES.items()):
            value = getattr(self, option)
            if value not in choices:
                raise InvalidOptionError(f"{option} {value!r} is not one of {', '.join(choices)}")
        for option in _NUMBERS:
            value = getattr(self, option)
            if type(value) is not int or value < 0:
                raise InvalidOptionError(f"{option} {value!r} is not a whole number >= 0")
        if not isinstance(self.name, str) or not self.name:
            raise InvalidOptionError(f"name {self.name!r} is not a non-empty string")
        if type(self.small_side_bonus) is not bool:
            raise InvalidOptionError(f"small_side_bonus {self.small_side_bonus!r} is not a flag")
        self._check_shape()

    def _check_shape(self) -> None:
        """RULES-SPEC.md §9.1, §3.3; ``decks=0`` and (in 找朋友) ``friends=0`` mean the default."""
        players = self.players
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ShapeOptionError("players_out_of_range", f"players {players!r} is not 4..8")
        if self.decks == 0:
            object.__setattr__(self, "decks", default_decks(players))
        if type(self.decks) is not int or not MIN_DECKS <= self.decks <= MAX_DECKS:
            raise ShapeOptionError("decks_out_of_range", f"decks {self.decks!r} is not 2..4")
        if self.mode == TRACTOR:
            if players % 2:
                raise ShapeOptionError(
                    "tractor_needs_even_players", f"tractor mode with {players} players"
                )
            if self.friends != 0:
                raise ShapeOptionError("friends_out_of_range", "tractor mode calls no friends")
            return
        if players < 5:
            raise ShapeOptionError("friends_needs_5_to_8_players", f"找朋友 with {players} players")
        if self.friends == 0:
            object.__setattr__(self, "friends", default_friends(players))
        if type(self.friends) is not int or not 1 <= self.friends <= default_friends(players):
            raise ShapeOptionError(
                "friends_out_of_range",
                f"friends {self.friends!r} is not 1..{default_friends(players)}",
            )

    @property
    def is_classic(self) -> bool:
        """Four players, two decks, fixed partnerships: the game of RULES.md alone."""
        return self.players == 4 and self.decks == 2 and self.mode == TRACTOR

    @property
    def is_friends(self) -> bool:
        return self.mode == FRIENDS

    def no_bid_for(self, first_hand: bool) -> str:
        """The ``no_bid`` value in force for a first or a later hand."""
        return self.no_bid_first_hand if first_hand else self.no_bid

    def to_dict(self) -> dict[str, Any]:
        """``{"version": 1, "name": …, "options": {…}}``, plain JSON types (a new dict each
        call; the options are read once per rule set)."""
        options = _OPTIONS_READ.get(self)
        if options is None:
            options = asdict(self)
            del options["name"]
            for option, classic in CLASSIC_SHAPE.items():
                if options[option] == classic:
                    del options[option]
            _OPTIONS_READ[self] = options
        return {"version": RULES_VERSION, "name": self.name, "options": dict(options)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Strict reading of ``to_dict``'s output (see the module doc for the errors)."""
        if not isinstance(data, dict) or data.get("version") != RULES_VERSION:
            version = data.get("version") if isinstance(data, dict) else None
            raise UnsupportedVersionError(f"rules version {version!r} is not {RULES_VERSION}")
        options = data.get("options")
        if not isinstance(options, dict):
            raise InvalidOptionError("rules need an 'options' object")
        known = {f.name for f in fields(cls)} - {"name"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise UnknownOptionError(f"unknown rule options: {', '.join(unknown)}")
        options = {**ADDED_OPTIONS, **options}
        missing = sorted(known - set(options))
        if missing:
            raise MissingOptionError(f"missing rule options: {', '.join(missing)}")
        return cls(name=data.get("name", "custom"), **options)

    @classmethod
    def from_json(cls, text: str) -> RuleSet:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidOptionError(f"rules are not JSON: {error}") from None
        return cls.from_dict(data)

    def with_options(self, **options: Any) -> RuleSet:
        """A copy with some options changed (named ``custom`` unless ``name`` is given)."""
        unknown = sorted(set(options) - {f.name for f in fields(self)})
        if unknown:
            raise UnknownOptionError(f"unknown rule options: {', '.join(unknown)}")
        options.setdefault("name", "custom")
        if "players" in options and "decks" not in options:
            options["decks"] = 0  # the default for the new number of players
        if "mode" in options and "friends" not in options:
            options["friends"] = 0
        return replace(self, **options)


_OPTIONS_READ: dict[RuleSet, dict[str, Any]] = {}
"""``to_dict``'s options per rule set (frozen, so they never change); a site uses a handful."""

PRESETS: dict[str, RuleSet] = {
    "ranked": RuleSet(name="ranked"),
    "seed000": RuleSet(
        name="seed000",
        no_bid_first_hand="redeal",
        no_bid="flip_kitty",
        flip_rule="as_bids",
        settlement="levels",
    ),
    "seed002": RuleSet(
        name="seed002",
        bidding="count",
        first_hand_dealer="first_bidder",
        kitty_multiplier="winner_shape",
        settlement="table",
        escape_penalty="fixed_40",
    ),
    "seed003": RuleSet(
        name="seed003",
        bidding="reinforce",
        no_bid_first_hand="no_trump",
        no_bid="no_trump",
        forced_part="lowest",
        level_source="random",
        settlement="stake_steps",
        escape_penalty="nine_stakes",
    ),
    "seed004": RuleSet(
        name="seed004",
        failed_throw="reject",
        kitty_multiplier="pairs",
        past_ace="wrap",
        escape_penalty="none",
    ),
}
PRESET_NAMES = tuple(PRESETS)


def preset(name: str) -> RuleSet:
    """The preset of RULES-SPEC.md §8 by name: ``ranked``, ``seed000``, ``seed002`` …
    ``seed004``."""
    found = PRESETS.get(name)
    if found is None:
        raise UnknownPresetError(f"no preset {name!r}; presets: {', '.join(PRESET_NAMES)}")
    return found
