"""Actions of a hand and their text notation (docs/NOTATION.md).

``draw`` and ``close`` are issued by the server (the deal and the end of the bid window);
``bid``, ``bury``, ``play`` and ``leave`` name the acting seat. ``str(action)`` is the canonical
text and ``parse_action`` reads it back: ``parse_action("play 1 as as ks")`` prints as
``play 1 AS AS KS``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from games.engine.action_errors import InvalidActionError
from games.engine.cards import format_cards, parse_cards
from games.engine.errors import InvalidNotationError

DRAW = "draw"
CLOSE = "close"
BID = "bid"
BURY = "bury"
PLAY = "play"
LEAVE = "leave"

SERVER_KINDS = (DRAW, CLOSE)
SEAT_KINDS = (BID, BURY, PLAY, LEAVE)


@dataclass(frozen=True, slots=True)
class Action:
    """One step of a hand: ``kind``, the acting ``seat`` (None for server actions), ``cards``."""

    kind: str
    seat: int | None = None
    cards: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.seat is None:
            return self.kind
        if not self.cards:
            return f"{self.kind} {self.seat}"
        return f"{self.kind} {self.seat} {format_cards(self.cards)}"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


DRAW_ACTION = Action(DRAW)
CLOSE_ACTION = Action(CLOSE)


def draw() -> Action:
    return DRAW_ACTION


def close() -> Action:
    return CLOSE_ACTION


def bid(seat: int, cards: Iterable[int]) -> Action:
    return Action(BID, seat, tuple(cards))


def bury(seat: int, cards: Iterable[int]) -> Action:
    return Action(BURY, seat, tuple(cards))


def play(seat: int, cards: Iterable[int]) -> Action:
    return Action(PLAY, seat, tuple(cards))


def leave(seat: int) -> Action:
    return Action(LEAVE, seat)


_PARSED: dict[str, Action] = {}
_PARSED_LIMIT = 100_000


def parse_action(text: str) -> Action:
    """An ``Action`` from its text; raises ``InvalidActionError`` (code ``invalid_action``).

    Actions are immutable, so parsed texts are cached (replays parse the same texts often).
    """
    found = _PARSED.get(text)
    if found is None:
        found = _parse(text)
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[text] = found
    return found


def _parse(text: str) -> Action:
    words = text.split(None, 2)
    if not words:
        raise InvalidActionError(text, "empty")
    kind = words[0].lower()
    if kind in SERVER_KINDS:
        if len(words) > 1:
            raise InvalidActionError(text, f"{kind} takes no seat or cards")
        return DRAW_ACTION if kind == DRAW else CLOSE_ACTION
    if kind not in SEAT_KINDS:
        raise InvalidActionError(text, f"unknown action {words[0]!r}")
    if len(words) < 2 or words[1] not in ("0", "1", "2", "3"):
        raise InvalidActionError(text, "a seat 0..3 must follow the action")
    seat = int(words[1])
    if kind == LEAVE:
        if len(words) > 2:
            raise InvalidActionError(text, "leave takes no cards")
        return Action(LEAVE, seat)
    if len(words) < 3:
        raise InvalidActionError(text, f"{kind} needs cards")
    try:
        cards = tuple(parse_cards(words[2]))
    except InvalidNotationError as error:
        raise InvalidActionError(text, str(error)) from None
    return Action(kind, seat, cards)


def as_action(action: Action | str) -> Action:
    """Accept either form; anything else is an ``invalid_action``."""
    if isinstance(action, Action):
        return action
    if not isinstance(action, str):
        raise InvalidActionError(repr(action), "an action is text or an Action")
    return parse_action(action)


def action_texts(actions: list[Action]) -> list[str]:
    return [str(a) for a in actions]


__all__ = [
    "BID",
    "BURY",
    "CLOSE",
    "DRAW",
    "LEAVE",
    "PLAY",
    "Action",
    "action_texts",
    "as_action",
    "bid",
    "bury",
    "close",
    "draw",
    "leave",
    "parse_action",
    "play",
]
