"""Rule options and presets (RULES-SPEC.md §5–§8): ``RuleSet`` and ``preset(name)``.

A ``RuleSet`` is frozen and validated on construction; ``to_json``/``from_json`` round-trip it
with a version number, so a stored hand replays under exactly the rules it was played with.
Reading is strict: an unknown option, a missing option or an unknown value raises an
``InvalidOptionError`` subclass with a stable code. The one exception is an option added after
records were first stored (``ADDED_OPTIONS``): a record without it reads as the behaviour it
was played under, the option's value before it existed.

House options (RULES-SPEC.md §10) are set by a table on top of its preset; each one's default is
the behaviour from before it existed, and ``to_dict`` leaves it out while it holds that default.
A combination the rules exclude is refused with a ``RefusedOptionError`` whose ``reason`` is a
stable sub-code (``needs_team_level``, ``score_bands_out_of_range`` …).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from shengji.engine.action_errors import (
    MissingOptionError,
    UnknownOptionError,
    UnknownPresetError,
    UnsupportedVersionError,
)
from shengji.engine.bidding import DEFAULT_BID_OPTIONS, BidOptions
from shengji.engine.cards import deck_copies
from shengji.engine.errors import InvalidOptionError
from shengji.engine.scoring import ScoreBands

RULES_VERSION = 1

BIDDING = ("strength", "count", "reinforce")
FIRST_HAND_DEALER = ("bidder", "first_bidder")
NO_BID = ("redeal", "flip_kitty", "no_trump")
FAILED_THROW = ("force_smallest", "reject")
FORCED_PART = ("by_kind", "lowest")
FLIP_RULE = ("first_card", "as_bids")
FLIP_RULE_HOUSE = ("any_card", "level_or_highest")
"""The values of ``flip_rule`` that only a house rule sets (RULES-SPEC.md §10.21)."""
KITTY_MULTIPLIER = ("lead_shape", "winner_shape", "pairs")
KITTY_MULTIPLIER_HOUSE = ("unit_size", "unit_power")
"""The values of ``kitty_multiplier`` that only a house rule sets (RULES-SPEC.md §10.2)."""
PAST_ACE = ("wrap", "match_end")
LEVEL_SOURCE = ("team", "random")
SETTLEMENT = ("ratio", "levels", "table", "stake_steps")
ESCAPE_PENALTY = ("triple", "fixed_40", "nine_stakes", "none")
MODE = ("tractor", "friends")
FRIEND_CARDS = ("unrestricted", "trumps_included", "no_highest", "no_points")
JOIN_POLICY = ("unrestricted", "no_double_join")
DRAW_POLICY = ("no_protections", "longer_tuples_protected")
DRAW_POLICY_HOUSE = ("tractors_only_from_tractors", "protected_tractors_only", "suit_only")
"""The values of ``draw_policy`` that only a house rule sets (RULES-SPEC.md §10.14)."""
TOP_LEVEL = ("A", "NT")
ADVANCEMENT = ("free", "defend_top", "defend_points")
JACK_RULE = ("off", "single_jack")
THROW_PENALTY_PER = ("card", "attempt")
PLAY_HISTORY = ("last_trick", "full")
DECK_MIN_RANK = ("2", "3", "4", "5")
THROW_BEAT = ("key_unit", "all_units", "highest_card", "largest_units")
BOMBS = ("off", "any_suit", "follow_suit")
DECK_JOKERS = ("all", "none")
TAKEBACK = ("off", "on")
"""The values of ``bid_takeback`` and ``takeback`` (RULES-SPEC.md §10.22, §10.23)."""
BID_ORDER = ("jokers_high", "suit_order", "length_only")
BID_REINFORCE = ("any_stronger", "reinforce_only", "reinforce_to_match")
JOKER_BIDS = ("pair_or_more", "all_copies", "small_all_big_less_one", "none")
KITTY_THEFT = ("off", "on")
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
    "draw_policy": DRAW_POLICY + DRAW_POLICY_HOUSE,
}
HOUSE_RULE_OPTIONS: dict[str, tuple[str, ...]] = dict(_CHOICES)
"""The options of RULES-SPEC.md §8 a casual table may set on top of its preset, with the values
the presets use; timings are the table's own fields. Every house option, those of RULES-SPEC.md
§10 and their values included, is in ``HOUSE_OPTIONS``."""

_HOUSE_CHOICES: dict[str, tuple[str, ...]] = {
    "throw_penalty_per": THROW_PENALTY_PER,
    "top_level": TOP_LEVEL,
    "advancement": ADVANCEMENT,
    "jack_rule": JACK_RULE,
    "play_history": PLAY_HISTORY,
    "deck_jokers": DECK_JOKERS,
    "throw_beat": THROW_BEAT,
    "bombs": BOMBS,
    "bid_takeback": TAKEBACK,
    "takeback": TAKEBACK,
    "bid_order": BID_ORDER,
    "bid_reinforce": BID_REINFORCE,
    "joker_bids": JOKER_BIDS,
    "kitty_theft": KITTY_THEFT,
}
_HOUSE_FLAGS = ("zero_bonus", "hide_defender_points", "name_throw_blocker")
_HOUSE_NUMBERS = ("step_points", "takeover_steps", "deadzone_steps")
_SCORE_BANDS = ("step_points", "takeover_steps", "deadzone_steps", "zero_bonus")
_DECK_NUMBERS = ("kitty_size",)
_TRACTOR_NUMBERS = ("tractor_min_length", "tractor_min_tuple")
MAX_TRACTOR_LENGTH = 12
HOUSE_DEFAULTS: dict[str, Any] = {
    "throw_penalty_per": "card",
    "step_points": 0,
    "takeover_steps": 2,
    "deadzone_steps": 1,
    "zero_bonus": True,
    "top_level": "A",
    "advancement": "free",
    "jack_rule": "off",
    "hide_defender_points": False,
    "play_history": "last_trick",
    "name_throw_blocker": False,
    "kitty_size": 0,
    "deck_min_rank": "2",
    "deck_jokers": "all",
    "tractor_min_length": 2,
    "tractor_min_tuple": 2,
    "throw_beat": "key_unit",
    "bombs": "off",
    "rainbow_min": 0,
    "bid_takeback": "off",
    "takeback": "off",
    "bid_order": "jokers_high",
    "bid_reinforce": "any_stronger",
    "joker_bids": "pair_or_more",
    "kitty_theft": "off",
}
"""The house options of RULES-SPEC.md §10 at the value that plays as before they existed (so
every preset holds them); ``to_dict`` leaves out each one while it holds this value."""

HOUSE_OPTIONS: dict[str, tuple[object, ...] | None] = {
    **_CHOICES,
    "kitty_multiplier": KITTY_MULTIPLIER + KITTY_MULTIPLIER_HOUSE,
    "flip_rule": FLIP_RULE + FLIP_RULE_HOUSE,
    "throw_penalty": None,
    **_HOUSE_CHOICES,
    **{flag: (False, True) for flag in _HOUSE_FLAGS},
    **{
        number: None
        for number in (*_HOUSE_NUMBERS, *_DECK_NUMBERS, *_TRACTOR_NUMBERS, "rainbow_min")
    },
    "deck_min_rank": DECK_MIN_RANK,
    "draw_policy": DRAW_POLICY + DRAW_POLICY_HOUSE,
}
"""Every option a casual or private table may set on top of its preset (RULES-SPEC.md §8, §10),
with its values; None for a whole number, whose range ``RuleSet`` checks (RULES-SPEC.md §10)."""
_VALUES: dict[str, tuple[str, ...]] = {
    **_CHOICES,
    **_SHAPE_CHOICES,
    **_HOUSE_CHOICES,
    "kitty_multiplier": KITTY_MULTIPLIER + KITTY_MULTIPLIER_HOUSE,
    "flip_rule": FLIP_RULE + FLIP_RULE_HOUSE,
}

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
    **HOUSE_DEFAULTS,
}
"""Options added after hands were first recorded, with the value every older hand was played
under (seed 000's part order and seed 004's flip were then the only ones; redeals were not
bounded, which ``max_redeals = 0`` means; every hand had four players and two decks)."""


class RefusedOptionError(InvalidOptionError):
    """A value or combination of options the rules refuse; ``reason`` is a stable sub-code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


class ShapeOptionError(RefusedOptionError):
    """A table shape the rules do not allow; ``reason`` is a stable sub-code."""


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
    throw_penalty_per: str = "card"
    step_points: int = 0
    takeover_steps: int = 2
    deadzone_steps: int = 1
    zero_bonus: bool = True
    top_level: str = "A"
    advancement: str = "free"
    jack_rule: str = "off"
    hide_defender_points: bool = False
    play_history: str = "last_trick"
    name_throw_blocker: bool = False
    kitty_size: int = 0
    deck_min_rank: str = "2"
    deck_jokers: str = "all"
    tractor_min_length: int = 2
    tractor_min_tuple: int = 2
    throw_beat: str = "key_unit"
    bombs: str = "off"
    rainbow_min: int = 0
    bid_takeback: str = "off"
    takeback: str = "off"
    bid_order: str = "jokers_high"
    bid_reinforce: str = "any_stronger"
    joker_bids: str = "pair_or_more"
    kitty_theft: str = "off"

    def __post_init__(self) -> None:
        for option, choices in _VALUES.items():
            value = getattr(self, option)
            if value not in choices:
                raise InvalidOptionError(f"{option} {value!r} is not one of {', '.join(choices)}")
        for option in _NUMBERS:
            value = getattr(self, option)
            if type(value) is not int or value < 0:
                raise InvalidOptionError(f"{option} {value!r} is not a whole number >= 0")
        if not isinstance(self.name, str) or not self.name:
            raise InvalidOptionError(f"name {self.name!r} is not a non-empty string")
        for flag in ("small_side_bonus", *_HOUSE_FLAGS):
            if type(getattr(self, flag)) is not bool:
                raise InvalidOptionError(f"{flag} {getattr(self, flag)!r} is not a flag")
        self._check_shape()
        self._check_levels()
        self._check_score_bands()
        self._check_deck()
        self._check_tractors()
        self._check_bombs()
        self._check_rainbows()
        self._check_bidding()

    def _check_levels(self) -> None:
        """RULES-SPEC.md §10.5–§10.7: the level rules move a level the table keeps, so a hand
        whose level is drawn at random (``level_source = random``) plays none of them."""
        if self.level_source == "team":
            return
        changed = [
            option
            for option in ("top_level", "advancement", "jack_rule")
            if getattr(self, option) != HOUSE_DEFAULTS[option]
        ]
        if changed:
            raise RefusedOptionError(
                "needs_team_level", f"{', '.join(changed)} with level_source random"
            )

    def _check_score_bands(self) -> None:
        """RULES-SPEC.md §10.4: the step is 0 (20 a deck) or a multiple of 5 up to the points
        in play, the takeover line within them too, the deadzone 0 or more; seed 002's table
        settlement pays bands of its own."""
        for option in _HOUSE_NUMBERS:
            value = getattr(self, option)
            if type(value) is not int:
                raise InvalidOptionError(f"{option} {value!r} is not a whole number")
        total = 100 * self.decks
        step = self.step_points
        if step < 0 or step % 5 or step > total:
            raise RefusedOptionError(
                "score_bands_out_of_range", f"step_points {step} is not 0 or 5, 10 … {total}"
            )
        takeover = self.takeover_steps
        if takeover < 1 or takeover * (step or 20 * self.decks) > total:
            raise RefusedOptionError(
                "score_bands_out_of_range",
                f"takeover_steps {takeover} is not 1 or more, its points at most {total}",
            )
        if self.deadzone_steps < 0:
            raise RefusedOptionError(
                "score_bands_out_of_range", f"deadzone_steps {self.deadzone_steps} is negative"
            )
        if self.settlement == "table" and self.has_score_bands:
            raise RefusedOptionError(
                "score_bands_with_table_settlement", "table settlement pays bands of its own"
            )

    def _check_deck(self) -> None:
        """RULES-SPEC.md §10.11, §10.12: decks from 2 up to 5 (higher would drop point cards);
        a kitty size of 0 (the formula) or 1 up to the cards less one a seat, with at most
        ``4 × decks`` cards removed to deal it evenly."""
        if self.deck_min_rank not in DECK_MIN_RANK:
            raise RefusedOptionError(
                "deck_min_rank_out_of_range",
                f"deck_min_rank {self.deck_min_rank!r} is not one of {', '.join(DECK_MIN_RANK)}",
            )
        size = self.kitty_size
        if type(size) is not int:
            raise InvalidOptionError(f"kitty_size {size!r} is not a whole number")
        total = self.deck_cards
        if size and not (1 <= size <= total - self.players):
            raise RefusedOptionError(
                "kitty_size_out_of_range",
                f"kitty_size {size} is not 0 or 1 … {total - self.players}",
            )
        if size and (total - size) % self.players > 4 * self.decks:
            raise RefusedOptionError(
                "kitty_size_out_of_range",
                f"kitty_size {size} would remove more than {4 * self.decks} cards",
            )

    def _check_tractors(self) -> None:
        """RULES-SPEC.md §10.13: tractors of 2 … 12 tuples, each of 2 … decks cards."""
        length, size = self.tractor_min_length, self.tractor_min_tuple
        if type(length) is not int or not 2 <= length <= MAX_TRACTOR_LENGTH:
            raise RefusedOptionError(
                "tractor_min_length_out_of_range",
                f"tractor_min_length {length!r} is not 2 … {MAX_TRACTOR_LENGTH}",
            )
        if type(size) is not int or not 2 <= size <= self.decks:
            raise RefusedOptionError(
                "tractor_min_tuple_out_of_range",
                f"tractor_min_tuple {size!r} is not 2 … {self.decks}",
            )

    def _check_bombs(self) -> None:
        """RULES-SPEC.md §10.16: a bomb is a quad on a four-card lead, so four decks."""
        if self.bombs != "off" and self.decks != MAX_DECKS:
            raise RefusedOptionError(
                "bombs_need_4_decks", f"bombs {self.bombs} with {self.decks} decks"
            )

    def _check_rainbows(self) -> None:
        """RULES-SPEC.md §10.17: 0 (no rainbows) or 4 … 4 × decks cards."""
        value = self.rainbow_min
        if type(value) is not int or (value and not 4 <= value <= 4 * self.decks):
            raise RefusedOptionError(
                "rainbow_min_out_of_range",
                f"rainbow_min {value!r} is not 0 or 4 … {4 * self.decks}",
            )

    def _check_bidding(self) -> None:
        """RULES-SPEC.md §10.18–§10.20: the order, the reinforcement rule and the lone big joker
        refine ``bidding = strength``; ``count`` and ``reinforce`` keep their own."""
        if self.bidding == "strength":
            return
        for option, reason in (
            ("bid_order", "bid_order_needs_strength"),
            ("bid_reinforce", "bid_reinforce_needs_strength"),
        ):
            if getattr(self, option) != HOUSE_DEFAULTS[option]:
                raise RefusedOptionError(
                    reason, f"{option} {getattr(self, option)} with bidding {self.bidding}"
                )
        if self.joker_bids == "small_all_big_less_one":
            raise RefusedOptionError(
                "joker_bids_needs_strength",
                f"joker_bids small_all_big_less_one with bidding {self.bidding}",
            )

    @property
    def bid_options(self) -> BidOptions:
        """The bidding house options as ``bidding.py`` reads them (RULES-SPEC.md §10.18–§10.20)."""
        order, reinforce, jokers = self.bid_order, self.bid_reinforce, self.joker_bids
        if order == "jokers_high" and reinforce == "any_stronger" and jokers == "pair_or_more":
            return DEFAULT_BID_OPTIONS
        return BidOptions(order, reinforce, jokers)

    @property
    def takes_back(self) -> bool:
        """Whether a takeback of either kind may ever be made (RULES-SPEC.md §10.22, §10.23)."""
        return self.bid_takeback == "on" or self.takeback == "on"

    @property
    def tractor(self) -> tuple[int, int]:
        """``(tractor_min_length, tractor_min_tuple)``, as ``Trump`` takes it."""
        return self.tractor_min_length, self.tractor_min_tuple

    @property
    def deck_cards(self) -> int:
        """The cards in the table's decks before any is removed (RULES-SPEC.md §10.11)."""
        return sum(self.card_copies())

    def card_copies(self, removed: Iterable[int] = ()) -> tuple[int, ...]:
        """Copies of each card id in the table's decks, less the ``removed`` cards."""
        jokers = self.deck_jokers == "all"
        return deck_copies(self.decks, self.deck_min_rank, jokers, removed)

    @property
    def has_deck_options(self) -> bool:
        """Whether the deck or the kitty differs from RULES-SPEC.md §9.1's (the views then say
        how, RULES-SPEC.md §10.11)."""
        return any(getattr(self, option) != HOUSE_DEFAULTS[option] for option in _DECK_OPTIONS)

    @property
    def has_score_bands(self) -> bool:
        """Whether any of the level bands differs from RULES-SPEC.md §9.2.9's."""
        return any(getattr(self, band) != HOUSE_DEFAULTS[band] for band in _SCORE_BANDS)

    @property
    def score_bands(self) -> ScoreBands | None:
        """The level bands of RULES-SPEC.md §10.4, or None for §9.2.9's."""
        if not self.has_score_bands:
            return None
        return ScoreBands(
            self.step_points, self.takeover_steps, self.deadzone_steps, self.zero_bonus
        )

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
        """Four players, two decks, fixed partnerships: the game of RULES-SPEC.md §1–§8."""
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
            for option, classic in (*CLASSIC_SHAPE.items(), *HOUSE_DEFAULTS.items()):
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


_DECK_OPTIONS = (*_DECK_NUMBERS, "deck_min_rank", "deck_jokers")

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
