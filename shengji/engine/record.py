"""Hand records and replay: a header plus moves; the position is rebuilt by replaying.

A ``HandRecord`` is the rule set (with its version), the seed, the levels and wrap flags at the
start, the dealer (None in a match's first hand), optional explicit decks, and the ordered
actions as text; optionally the result it reached, so ``replay_final`` can check it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from shengji.engine.action_errors import InvalidRecordError, UnsupportedVersionError
from shengji.engine.actions import DRAW_ACTION
from shengji.engine.cards import format_cards, parse_cards
from shengji.engine.errors import ShengjiError
from shengji.engine.hand import HandState, new_hand
from shengji.engine.rules import RuleSet

RECORD_VERSION = 1
_DRAW_TEXT = str(DRAW_ACTION)


@dataclass(frozen=True, slots=True)
class HandRecord:
    rules: RuleSet
    seed: int
    levels: tuple[str, ...] = ("2", "2")
    dealer: int | None = None
    wrapped: tuple[bool, ...] = (False, False)
    actions: tuple[str, ...] = ()
    decks: tuple[tuple[int, ...], ...] | None = None
    result: dict[str, Any] | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": RECORD_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "levels": list(self.levels),
            "dealer": self.dealer,
            "wrapped": list(self.wrapped),
            "actions": list(self.actions),
        }
        if self.decks is not None:
            data["decks"] = [format_cards(d) for d in self.decks]
        if self.result is not None:
            data["result"] = self.result
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandRecord:
        if not isinstance(data, dict):
            raise InvalidRecordError("a hand record is a JSON object")
        if data.get("version") != RECORD_VERSION:
            raise UnsupportedVersionError(f"record version {data.get('version')!r}")
        try:
            decks = data.get("decks")
            return cls(
                rules=RuleSet.from_dict(data["rules"]),
                seed=_whole(data["seed"], "seed"),
                levels=_levels(data["levels"]),
                dealer=data.get("dealer"),
                wrapped=tuple(_flag(flag) for flag in _listed(data["wrapped"])),
                actions=tuple(str(a) for a in data["actions"]),
                decks=None if decks is None else tuple(tuple(parse_cards(d)) for d in decks),
                result=data.get("result"),
            )
        except ShengjiError:
            raise
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise InvalidRecordError(f"bad hand record: {error!r}") from None

    @classmethod
    def from_json(cls, text: str) -> HandRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidRecordError(f"a hand record is JSON: {error}") from None
        return cls.from_dict(data)


def _listed(value: Any) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise InvalidRecordError(f"{value!r} is not a list")
    return value


def _levels(value: Any) -> tuple[str, ...]:
    """Per team (two) or per player (找朋友); new_hand checks the count against the rules."""
    levels = _listed(value)
    if any(not isinstance(level, str) for level in levels):
        raise InvalidRecordError(f"levels {value!r} are not ranks")
    return tuple(levels)


def _whole(value: Any, name: str) -> int:
    if type(value) is not int:
        raise InvalidRecordError(f"{name} {value!r} is not a whole number")
    return value


def _flag(value: Any) -> bool:
    if type(value) is not bool:
        raise InvalidRecordError(f"{value!r} is not true or false")
    return value


def record_of(state: HandState) -> HandRecord:
    """The record of a hand so far (with its result once finished)."""
    decks = state._decks
    return HandRecord(
        rules=state.rules,
        seed=state.seed,
        levels=state.levels,
        dealer=None if state.first_hand else state.dealer,
        wrapped=state.wrapped,
        actions=tuple(_DRAW_TEXT if a is DRAW_ACTION else str(a) for a in state.actions),
        decks=None if decks is None else tuple(tuple(d) for d in decks),
        result=None if state.result is None else state.result.to_dict(),
    )


def actions_since(state: HandState, start: int) -> list[str]:
    """The texts of the state's actions from index ``start`` on, as the log holds them."""
    return [_DRAW_TEXT if a is DRAW_ACTION else str(a) for a in state.actions[start:]]


def apply_logged(state: HandState, texts: list[str]) -> None:
    """Apply actions as logged (by the server: each was checked when it was made)."""
    for text in texts:
        _apply_recorded(state, len(state.actions), text)


def start_of(record: HandRecord) -> HandState:
    """The hand as set up by the record, before any action."""
    return new_hand(
        record.rules,
        record.seed,
        levels=record.levels,
        dealer=record.dealer,
        wrapped=record.wrapped,
        decks=None if record.decks is None else [list(d) for d in record.decks],
    )


def replay(record: HandRecord) -> Iterator[HandState]:
    """Every state of the hand: the start, then one after each action (independent copies)."""
    state = start_of(record)
    yield state.copy()
    for index, text in enumerate(record.actions):
        _apply_recorded(state, index, text)
        yield state.copy()


def replay_final(record: HandRecord, *, check_result: bool = True) -> HandState:
    """The state after every action; with ``check_result``, a stored result must be reached."""
    state = start_of(record)
    for index, text in enumerate(record.actions):
        _apply_recorded(state, index, text)
    if check_result and record.result is not None:
        reached = None if state.result is None else state.result.to_dict()
        if reached != record.result:
            raise InvalidRecordError("the replay does not reach the recorded result")
    return state


def _apply_recorded(state: HandState, index: int, text: str) -> None:
    try:
        state.apply(text)
    except ShengjiError as error:
        raise InvalidRecordError(f"action {index} {text!r} refused: {error}") from error
