"""Rule sets and presets (RULES-SPEC.md §8): values, JSON round trip, strict reading."""

from __future__ import annotations

import json

import pytest

from shengji.engine.action_errors import (
    MissingOptionError,
    UnknownOptionError,
    UnknownPresetError,
    UnsupportedVersionError,
)
from shengji.engine.errors import InvalidOptionError
from shengji.engine.rules import PRESET_NAMES, PRESETS, RULES_VERSION, RuleSet, preset

# RULES-SPEC.md §8, one row per option: ranked, 000, 002, 003, 004.
TABLE = {
    "bidding": ("strength", "strength", "count", "reinforce", "strength"),
    "first_hand_dealer": ("bidder", "bidder", "first_bidder", "bidder", "bidder"),
    "no_bid_first_hand": ("flip_kitty", "redeal", "flip_kitty", "no_trump", "flip_kitty"),
    "no_bid": ("flip_kitty", "flip_kitty", "flip_kitty", "no_trump", "flip_kitty"),
    "failed_throw": ("force_smallest",) * 4 + ("reject",),
    "forced_part": ("by_kind", "by_kind", "by_kind", "lowest", "by_kind"),
    "flip_rule": ("first_card", "as_bids", "first_card", "first_card", "first_card"),
    "kitty_multiplier": ("lead_shape", "lead_shape", "winner_shape", "lead_shape", "pairs"),
    "past_ace": ("match_end",) * 4 + ("wrap",),
    "level_source": ("team", "team", "team", "random", "team"),
    "settlement": ("ratio", "levels", "table", "stake_steps", "ratio"),
    "escape_penalty": ("triple", "triple", "fixed_40", "nine_stakes", "none"),
}


def test_preset_names() -> None:
    assert PRESET_NAMES == ("ranked", "seed000", "seed002", "seed003", "seed004")


@pytest.mark.parametrize("option", sorted(TABLE))
def test_presets_match_the_table(option: str) -> None:
    values = tuple(getattr(preset(name), option) for name in PRESET_NAMES)
    assert values == TABLE[option]


def test_timings_and_penalty_defaults() -> None:
    rules = preset("seed000")
    assert (rules.bid_window_s, rules.bury_s, rules.deal_interval_ms) == (8, 30, 100)
    assert rules.throw_penalty == 0


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_json_round_trip(name: str) -> None:
    rules = preset(name)
    text = rules.to_json()
    data = json.loads(text)
    assert data["version"] == RULES_VERSION
    assert data["name"] == name
    assert RuleSet.from_json(text) == rules


def test_no_bid_for_first_and_later_hands() -> None:
    assert preset("seed000").no_bid_for(first_hand=True) == "redeal"
    assert preset("seed000").no_bid_for(first_hand=False) == "flip_kitty"


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("bidding", "loudest"),
        ("first_hand_dealer", "oldest"),
        ("no_bid", "shrug"),
        ("no_bid_first_hand", ""),
        ("failed_throw", "ignore"),
        ("forced_part", "highest"),
        ("forced_part", None),
        ("flip_rule", "last_card"),
        ("flip_rule", ""),
        ("kitty_multiplier", "triple"),
        ("past_ace", "loop"),
        ("level_source", "dice"),
        ("settlement", "barter"),
        ("escape_penalty", "jail"),
        ("throw_penalty", -1),
        ("throw_penalty", 1.5),
        ("bid_window_s", "8"),
    ],
)
def test_unknown_values_raise_invalid_option(option: str, value: object) -> None:
    with pytest.raises(InvalidOptionError) as caught:
        preset("ranked").with_options(**{option: value})
    assert caught.value.code == "invalid_option"


def test_every_value_is_accepted() -> None:
    for option, row in TABLE.items():
        for value in set(row):
            assert getattr(preset("ranked").with_options(**{option: value}), option) == value
    assert preset("ranked").with_options(no_bid="redeal").no_bid == "redeal"
    assert preset("ranked").with_options(throw_penalty=10).throw_penalty == 10


def test_strict_reading_codes() -> None:
    data = preset("ranked").to_dict()
    data["options"]["colour"] = "red"
    with pytest.raises(UnknownOptionError) as unknown:
        RuleSet.from_dict(data)
    assert unknown.value.code == "unknown_option"
    data = preset("ranked").to_dict()
    del data["options"]["past_ace"]
    with pytest.raises(MissingOptionError) as missing:
        RuleSet.from_dict(data)
    assert missing.value.code == "missing_option"
    data = preset("ranked").to_dict()
    data["version"] = 99
    with pytest.raises(UnsupportedVersionError) as version:
        RuleSet.from_dict(data)
    assert version.value.code == "unsupported_version"
    with pytest.raises(UnknownPresetError) as name:
        preset("seed001")
    assert name.value.code == "unknown_preset"
    with pytest.raises(UnknownOptionError):
        preset("ranked").with_options(colour="red")


def test_records_from_before_forced_part_and_flip_rule_read_as_they_were_played() -> None:
    # Hands stored before the two options existed were played by kind and first card.
    data = preset("seed000").to_dict()
    del data["options"]["forced_part"], data["options"]["flip_rule"]
    rules = RuleSet.from_dict(data)
    assert (rules.forced_part, rules.flip_rule) == ("by_kind", "first_card")
    assert rules.name == "seed000" and rules.settlement == "levels"
    data = preset("seed003").to_dict()
    assert data["options"]["forced_part"] == "lowest"
    assert RuleSet.from_dict(data) == preset("seed003")


def test_with_options_names_the_copy_custom() -> None:
    rules = preset("seed004").with_options(throw_penalty=10)
    assert rules.name == "custom"
    assert rules.failed_throw == "reject"
    assert PRESETS["seed004"].throw_penalty == 0
