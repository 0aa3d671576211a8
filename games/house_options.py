"""Every house option a casual or private table may set on top of its preset (RULES-SPEC.md §8,
§10), as players meet it: in groups they understand, each with a label, a one-line explanation
and its values in words (zh-hans, zh-hant, en through gettext).

This is the one registry the site reads: the create form's fields (games/forms.py), the rules
card's rows and summary (games/rules_words.py), the /rules/ page's list. An option the engine
adds (``shengji.engine.HOUSE_OPTIONS``) is offered by one ``HouseOption`` entry below plus its
words in the three catalogues of locale/; tests/games/test_house_options.py checks that every
engine option has its entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from shengji.engine import HOUSE_OPTIONS, PRESETS

FLAG_ON, FLAG_OFF = "on", "off"
"""How the form sends a flag option (``zero_bonus`` …): the engine takes True / False."""


@dataclass(frozen=True)
class Group:
    key: str
    label: Promise


@dataclass(frozen=True)
class NumberRange:
    """A whole-number option: the form's range (the engine checks the combination, e.g. a
    step of at most 100 × decks) and its value in words (``%(n)s``; ``zero`` when 0 means
    something of its own)."""

    least: int
    most: int
    words: Promise
    step: int = 1
    zero: Promise | None = None


@dataclass(frozen=True)
class HouseOption:
    """One option: its engine name, group, words and values. ``values`` maps each value the
    engine takes to its words (a flag's True / False); ``number`` is set instead for a whole
    number. ``shape``: the option is also one of the table's shape fields (its form field is
    named as the option, and its shape values are no house rule)."""

    name: str
    group: str
    section: str
    label: Promise
    explanation: Promise
    values: Mapping[Any, Promise] = field(default_factory=dict)
    number: NumberRange | None = None
    shape_values: tuple[str, ...] = ()

    @property
    def is_flag(self) -> bool:
        return set(self.values) == {True, False}

    @property
    def is_number(self) -> bool:
        return self.number is not None

    @property
    def in_rules_of_8(self) -> bool:
        """An option of RULES-SPEC.md §8: every rules card shows it, changed or not."""
        return self.name in RULES_OF_8

    def words(self, value: Any) -> str:
        """A value in words ("20 points", "every trick of the hand"); an unknown one as it is."""
        if self.number is not None:
            if value == 0 and self.number.zero is not None:
                return str(self.number.zero)
            return str(self.number.words) % {"n": value}
        found = self.values.get(value)
        return str(value) if found is None else str(found)

    def form_value(self, value: Any) -> str:
        """A value as the form sends it (a flag as ``on`` / ``off``)."""
        if self.is_flag:
            return FLAG_ON if value else FLAG_OFF
        return str(value)


GROUPS: tuple[Group, ...] = (
    Group("levels", pgettext_lazy("house option group", "Levels")),
    Group("bidding", pgettext_lazy("house option group", "Calling trump")),
    Group("tricks", pgettext_lazy("house option group", "Tricks")),
    Group("points", pgettext_lazy("house option group", "Points")),
    Group("cards", pgettext_lazy("house option group", "Cards and the deal")),
    Group("seen", pgettext_lazy("house option group", "What players see")),
    Group("settlement", pgettext_lazy("house option group", "Settlement")),
)

_NO_BID = {
    "redeal": _("deal again"),
    "flip_kitty": _("turn the kitty over"),
    "no_trump": _("play with no trump"),
}
_POINTS = _("%(n)s points")
_STEPS = _("%(n)s steps")

OPTIONS: tuple[HouseOption, ...] = (
    # --- levels ---------------------------------------------------------------------------------
    HouseOption(
        "level_source",
        "levels",
        "§8",
        _("Level of the hand"),
        _("Which level each hand is played at."),
        {"team": _("the dealer side's level"), "random": _("drawn at random every hand")},
    ),
    HouseOption(
        "past_ace",
        "levels",
        "§8",
        _("Past A"),
        _("What happens to a side that passes the top level."),
        {
            "match_end": _("the side that passes A wins the match"),
            "wrap": _("the side starts again at 2"),
        },
    ),
    HouseOption(
        "top_level",
        "levels",
        "§10.5",
        _("Top level"),
        _("Whether the levels end at A or go on to NT, a level with no level cards."),
        {
            "A": _("A: the levels run 2 … A"),
            "NT": _("NT after A: no level cards, only the jokers are trump"),
        },
    ),
    HouseOption(
        "advancement",
        "levels",
        "§10.6",
        _("Levels to defend (必打)"),
        _("Levels a side passes only by winning a hand at them as the dealer's side."),
        {
            "free": _("none: every level gained is added whole"),
            "defend_top": _("the top level must be defended"),
            "defend_points": _("the top level, 5, 10 and K must be defended"),
        },
    ),
    HouseOption(
        "jack_rule",
        "levels",
        "§10.7",
        _("Single J on the last trick (勾J)"),
        _(
            "At level J, an attacker who wins the last trick with a single J sends the "
            "dealer's side back to the lowest level."
        ),
        {
            "off": _("off"),
            "single_jack": _("on: the dealer's side goes back to the lowest level"),
        },
    ),
    # --- calling trump --------------------------------------------------------------------------
    HouseOption(
        "bidding",
        "bidding",
        "§8",
        _("Bidding"),
        _("How trump is bid and how a bid is overturned."),
        {
            "strength": _("a stronger showing overturns: level card < level pair < joker pairs"),
            "count": _("more level cards of another suit overcall; a joker pair means no trump"),
            "reinforce": _("the first level card names trump; a pair protects or overturns it"),
        },
    ),
    HouseOption(
        "first_hand_dealer",
        "bidding",
        "§8",
        _("First hand's dealer"),
        _("Who deals the match's first hand, when nobody deals yet."),
        {
            "bidder": _("the player whose bid stands"),
            "first_bidder": _("the first player to bid"),
        },
    ),
    HouseOption(
        "no_bid_first_hand",
        "bidding",
        "§8",
        # Translators: what happens when nobody bids for trump in a match's first hand.
        _("Nobody bids, first hand"),
        _("What happens when nobody bids in the match's first hand."),
        _NO_BID,
    ),
    HouseOption(
        "no_bid",
        "bidding",
        "§8",
        _("Nobody bids"),
        _("What happens when nobody bids in a later hand."),
        _NO_BID,
    ),
    HouseOption(
        "flip_rule",
        "bidding",
        "§8",
        # Translators: how the kitty turned over (when nobody bids) names the trump.
        _("Kitty turned over"),
        _("How the kitty turned over names the trump."),
        {
            "first_card": _("the first level card names trump; a joker first means no trump"),
            "as_bids": _("the eight cards are read as bids: the strongest names trump"),
            "any_card": _("only the first card is turned: its suit is trump, a joker no trump"),
            "level_or_highest": _(
                "turned until a level card or a joker; with none, the highest card names trump"
            ),
        },
    ),
    HouseOption(
        "bid_order",
        "bidding",
        "§10.18",
        _("Order of showings"),
        _("Which showing overcalls another of as many cards (bidding by strength only)."),
        {
            "jokers_high": _("big joker > small joker > level cards; level cards never overcall"),
            "suit_order": _("also a higher suit overcalls, ♠ > ♥ > ♣ > ♦ (two cards or more)"),
            "length_only": _("only more cards overcall, jokers too"),
        },
    ),
    HouseOption(
        "bid_reinforce",
        "bidding",
        "§10.19",
        _("Overcalling yourself"),
        _("What a player whose bid stands may still show (bidding by strength only)."),
        {
            "any_stronger": _("anything stronger"),
            "reinforce_only": _("only more copies of the same card"),
            "reinforce_to_match": _(
                "only more copies; an overcalled player may match the standing bid's count"
            ),
        },
    ),
    HouseOption(
        "joker_bids",
        "bidding",
        "§10.20",
        _("Joker showings"),
        _("How many jokers a no-trump showing needs."),
        {
            "pair_or_more": _("two or more identical jokers"),
            "all_copies": _("one identical joker from every deck"),
            "small_all_big_less_one": _("every small joker, or one big joker fewer than the decks"),
            "none": _("no joker showing: no no-trump by bidding"),
        },
    ),
    HouseOption(
        "bid_takeback",
        "bidding",
        "§10.22",
        _("Taking back a bid"),
        _("Whether a player may withdraw a bid while it is the last one made."),
        {"off": _("not allowed"), "on": _("allowed while it is the last bid")},
    ),
    HouseOption(
        "kitty_theft",
        "bidding",
        "§10.24",
        _("Stealing the kitty (炒地皮)"),
        _("After each bury anyone may overcall; the player whose bid stands takes the kitty."),
        {"off": _("off"), "on": _("on: the kitty goes to each overcaller in turn")},
    ),
    # --- tricks ---------------------------------------------------------------------------------
    HouseOption(
        "failed_throw",
        "tricks",
        "§8",
        _("Failed throw"),
        _("What happens to a throw (甩牌) that another hand can beat."),
        {
            "force_smallest": _("one failing part is played, the rest goes back to the hand"),
            "reject": _("refused: the leader leads again"),
        },
    ),
    HouseOption(
        "forced_part",
        "tricks",
        "§8",
        # Translators: which part of a failed throw (甩牌) the leader must play.
        _("Part played"),
        _("Which part of a failed throw the thrower must play."),
        {
            "by_kind": _("the lowest failing single, else pair, else tractor"),
            "lowest": _("the failing part holding the lowest card"),
        },
    ),
    HouseOption(
        "draw_policy",
        "tricks",
        "§10.14",
        _("What a follower owes"),
        _("Which pairs, tuples and tractors a follower must play to answer the lead."),
        {
            "no_protections": _("a longer tuple must be broken to follow a shorter one"),
            "longer_tuples_protected": _("a longer tuple need not be broken for a shorter one"),
            "tractors_only_from_tractors": _(
                "as the standard, but only a tractor led can owe a tractor"
            ),
            "protected_tractors_only": _(
                "a longer tuple need not be broken, and only a tractor led can owe a tractor"
            ),
            "suit_only": _("only the suit is owed: no pair, tuple or tractor"),
        },
        shape_values=("no_protections", "longer_tuples_protected"),
    ),
    HouseOption(
        "throw_beat",
        "tricks",
        "§10.15",
        _("Beating a throw"),
        _("Which play wins a trick led by a throw."),
        {
            "key_unit": _("the top of the largest unit decides"),
            "all_units": _("every unit must be higher"),
            "highest_card": _("the highest card decides"),
            "largest_units": _("the units compared from the largest down"),
        },
    ),
    HouseOption(
        "tractor_min_length",
        "tricks",
        "§10.13",
        _("Shortest tractor"),
        _("How many tuples in a row make a tractor."),
        number=NumberRange(2, 12, _("%(n)s in a row")),
    ),
    HouseOption(
        "tractor_min_tuple",
        "tricks",
        "§10.13",
        _("Tractor width"),
        _("How many identical cards each part of a tractor has (at most the decks)."),
        number=NumberRange(2, 4, _("%(n)s identical cards")),
    ),
    HouseOption(
        "bombs",
        "tricks",
        "§10.16",
        _("Bombs (炸弹)"),
        _("Four identical cards beat any play on a four-card lead (4 decks only)."),
        {
            "off": _("no bombs"),
            "any_suit": _("a bomb of any suit"),
            "follow_suit": _("a bomb of the led suit, or any bomb when void in it"),
        },
    ),
    HouseOption(
        "rainbow_min",
        "tricks",
        "§10.17",
        _("Rainbows"),
        _("Cards of one rank in four suits may be led together and are answered in kind."),
        number=NumberRange(0, 16, _("at least %(n)s cards"), zero=_("no rainbows")),
    ),
    HouseOption(
        "takeback",
        "tricks",
        "§10.23",
        _("Taking back a play (悔牌)"),
        _("Whether a player may take back a play while it is the last of an unfinished trick."),
        {"off": _("not allowed"), "on": _("allowed until the trick is complete")},
    ),
    # --- points ---------------------------------------------------------------------------------
    HouseOption(
        "kitty_multiplier",
        "points",
        "§8",
        _("Kitty multiplier"),
        _("How much the kitty's points count when the attackers win the last trick."),
        {
            "lead_shape": _("by the last lead: 2, a pair 4, a tractor 2 × 2^length"),
            "winner_shape": _("by the winning play: 2, a pair 4, a tractor 8"),
            "pairs": _(
                "by the winning play: 2; two pairs 4; three pairs 6; a tractor 2 × 2^length"
            ),
            "unit_size": _("2 × the cards of the last lead's largest unit"),
            "unit_power": _("2 to the power of the cards of the last lead's largest unit"),
        },
    ),
    HouseOption(
        "throw_penalty",
        "points",
        "§8",
        _("Throw penalty"),
        _("Points a failed throw costs, given to the thrower's opponents."),
        number=NumberRange(0, 200, _POINTS, zero=_("none")),
    ),
    HouseOption(
        "throw_penalty_per",
        "points",
        "§10.3",
        _("Penalty counted"),
        _("Whether the throw penalty counts each card taken back or each failed throw."),
        {"card": _("per card taken back"), "attempt": _("per failed throw")},
    ),
    HouseOption(
        "step_points",
        "points",
        "§10.4",
        _("Points a step"),
        _("The attackers' points between one level step and the next."),
        number=NumberRange(0, 400, _POINTS, step=5, zero=_("20 a deck (standard)")),
    ),
    HouseOption(
        "takeover_steps",
        "points",
        "§10.4",
        _("Steps to take the deal"),
        _("How many steps of points the attackers need to take the deal."),
        number=NumberRange(1, 80, _STEPS),
    ),
    HouseOption(
        "deadzone_steps",
        "points",
        "§10.4",
        _("Steps that only take the deal"),
        _("Steps past the takeover line where the attackers take the deal but go up no level."),
        number=NumberRange(0, 80, _STEPS),
    ),
    HouseOption(
        "zero_bonus",
        "points",
        "§10.4",
        _("Shutout bonus"),
        _("The dealer's side goes up one level more when the attackers take no points."),
        {True: _("one level more"), False: _("no bonus")},
    ),
    # --- cards and the deal ---------------------------------------------------------------------
    HouseOption(
        "kitty_size",
        "cards",
        "§10.11",
        _("Kitty size"),
        _("The kitty's cards; cards of the lowest rank are removed so that the deal shares out."),
        number=NumberRange(0, 212, _("%(n)s cards"), zero=_("the usual size for the table")),
    ),
    HouseOption(
        "deck_min_rank",
        "cards",
        "§10.12",
        _("Lowest rank"),
        _("The ranks below it leave every deck, and the levels start at it."),
        {
            "2": _("2: the full deck"),
            "3": _("3: no 2s"),
            "4": _("4: no 2s or 3s"),
            "5": _("5: no 2s, 3s or 4s"),
        },
    ),
    HouseOption(
        "deck_jokers",
        "cards",
        "§10.12",
        _("Jokers"),
        _("Whether the decks keep their jokers."),
        {"all": _("kept"), "none": _("taken out")},
    ),
    # --- what players see -----------------------------------------------------------------------
    HouseOption(
        "hide_defender_points",
        "seen",
        "§10.8",
        _("Dealer's side's points"),
        _("Whether the points the dealer's side takes are shown while the hand is played."),
        {False: _("shown"), True: _("hidden until the hand ends")},
    ),
    HouseOption(
        "play_history",
        "seen",
        "§10.9",
        _("Tricks to look back at"),
        _("Whether players can look back at every trick of the hand or only the last."),
        {"last_trick": _("the last trick"), "full": _("every trick of the hand")},
    ),
    HouseOption(
        "name_throw_blocker",
        "seen",
        "§10.10",
        _("Who stopped a throw"),
        _("Whether a failed throw names the first player who could beat it."),
        {False: _("nobody is named"), True: _("the first player who could beat it is named")},
    ),
    # --- settlement -----------------------------------------------------------------------------
    HouseOption(
        "settlement",
        "settlement",
        "§8",
        _("Settlement"),
        _("How table points change hands after each hand."),
        {
            "ratio": _("stake × level ratio, plus stake × levels gained"),
            "levels": _("stake × levels gained"),
            "table": _("fixed amounts by the attackers' points"),
            "stake_steps": _("stake steps by levels gained, and fees"),
        },
    ),
    HouseOption(
        "escape_penalty",
        "settlement",
        "§8",
        _("Escape"),
        _("What leaving a hand in progress costs."),
        {
            "triple": _("the escaper pays three one-level losses"),
            "fixed_40": _("the escaper pays 40"),
            "nine_stakes": _("the escaper pays 9 stakes"),
            "none": _("nobody pays"),
        },
    ),
)

BY_NAME: dict[str, HouseOption] = {option.name: option for option in OPTIONS}

RULES_OF_8 = (
    "bidding",
    "first_hand_dealer",
    "no_bid_first_hand",
    "no_bid",
    "failed_throw",
    "forced_part",
    "flip_rule",
    "kitty_multiplier",
    "past_ace",
    "level_source",
    "settlement",
    "escape_penalty",
)
"""The options of RULES-SPEC.md §8 in the rules card's order: every card shows each of them;
the other house options show only when a table changes them."""

PREFIX = "rule_"


def option(name: str) -> HouseOption:
    return BY_NAME[name]


def field_name(name: str) -> str:
    """The create form's field of an option: ``rule_<option>``, or the shape field itself
    (``draw_policy``)."""
    return name if BY_NAME[name].shape_values else f"{PREFIX}{name}"


def grouped() -> list[tuple[Group, list[HouseOption]]]:
    """The groups in order, each with its options (a group with none left out)."""
    found = [(group, [o for o in OPTIONS if o.group == group.key]) for group in GROUPS]
    return [(group, options) for group, options in found if options]


def default_of(name: str, preset_name: str = "ranked") -> Any:
    """The option's value in a preset (every preset holds each §10 option's default)."""
    base = PRESETS.get(preset_name) or PRESETS["ranked"]
    return getattr(base, name)


def is_house_change(name: str, value: Any, preset_value: Any) -> bool:
    """Whether ``value`` changes the preset's rules: a shape value (``draw_policy``'s two of
    RULES-SPEC.md §9.2) is the table's shape, not a house rule."""
    entry = BY_NAME.get(name)
    if entry is None or value == preset_value:
        return False
    return not (entry.shape_values and value in entry.shape_values)


def missing_options() -> list[str]:
    """Engine house options with no entry here (tests/games/test_house_options.py)."""
    return sorted(set(HOUSE_OPTIONS) - set(BY_NAME))
