"""Rule options and presets (RULES.md §5–§8): ``RuleSet`` and ``preset(name)``.

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

from games.engine.action_errors import (
    MissingOptionError,
    UnknownOptionError,
    UnknownPresetError,
    UnsupportedVersionError,
)
from games.engine.errors import InvalidOptionError

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
)
HOUSE_RULE_OPTIONS: dict[str, tuple[str, ...]] = dict(_CHOICES)
"""The options a casual table may set on top of its preset (RULES.md §4–§7), with their values;
timings are the table's own fields, and ``throw_penalty`` stays the preset's."""

ADDED_OPTIONS: dict[str, str] = {"forced_part": "by_kind", "flip_rule": "first_card"}
"""Options added after hands were first recorded, with the value every older hand was played
under (seed 000's part order and seed 004's flip were then the only ones)."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One value for every rule option of RULES.md §8, plus the timings of §7.

    ``no_bid_first_hand`` is what happens when nobody bids in a match's first hand and
    ``no_bid`` in later hands (seed 000: redeal first, flip the kitty later). ``forced_part``
    is which part of a failed throw is played (RULES.md §4) and ``flip_rule`` how a kitty
    turned over names the trump (RULES.md §5.2). Timings are for
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

    def __post_init__(self) -> None:
        for option, choices in _CHOICES.items():
            value = getattr(self, option)
            if value not in choices:
                raise InvalidOptionError(f"{option} {value!r} is not one of {', '.join(choices)}")
        for option in _NUMBERS:
            value = getattr(self, option)
            if type(value) is not int or value < 0:
                raise InvalidOptionError(f"{option} {value!r} is not a whole number >= 0")
        if not isinstance(self.name, str) or not self.name:
            raise InvalidOptionError(f"name {self.name!r} is not a non-empty string")

    def no_bid_for(self, first_hand: bool) -> str:
        """The ``no_bid`` value in force for a first or a later hand."""
        return self.no_bid_first_hand if first_hand else self.no_bid

    def to_dict(self) -> dict[str, Any]:
        """``{"version": 1, "name": …, "options": {…}}``, plain JSON types."""
        options = asdict(self)
        name = options.pop("name")
        return {"version": RULES_VERSION, "name": name, "options": options}

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
        return replace(self, **options)


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
    """The preset of RULES.md §8 by name: ``ranked``, ``seed000``, ``seed002`` … ``seed004``."""
    found = PRESETS.get(name)
    if found is None:
        raise UnknownPresetError(f"no preset {name!r}; presets: {', '.join(PRESET_NAMES)}")
    return found
