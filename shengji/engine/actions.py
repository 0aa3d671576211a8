"""Actions of a hand and their text notation (docs/NOTATION.md).

``draw`` and ``close`` are issued by the server (the deal and the end of the bid window);
``bid``, ``call``, ``bury``, ``play``, ``leave`` and ``takeback`` name the acting seat (0..7);
``takeback N`` withdraws seat N's last bid or play (RULES-SPEC.md §10.22, §10.23). ``call`` is the
找朋友 dealer's friend calls, each an ordinal and a card: ``call 0 2AS 1KH`` is "the second AS
and the first KH played" (RULES-SPEC.md §9.3.3). ``str(action)`` is the canonical
text and ``parse_action`` reads it back: ``parse_action("play 1 as as ks")`` prints as
``play 1 AS AS KS``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from shengji.engine.action_errors import InvalidActionError
from shengji.engine.cards import format_cards, parse_cards
from shengji.engine.errors import InvalidNotationError

DRAW = "draw"
CLOSE = "close"
BID = "bid"
BURY = "bury"
PLAY = "play"
LEAVE = "leave"
CALL = "call"
TAKEBACK = "takeback"

SERVER_KINDS = (DRAW, CLOSE)
SEAT_KINDS = (BID, BURY, PLAY, LEAVE, CALL, TAKEBACK)
BARE_KINDS = (LEAVE, TAKEBACK)
"""Seat actions that take no cards."""
SEAT_WORDS = ("0", "1", "2", "3", "4", "5", "6", "7")
MAX_ORDINAL = 4


@dataclass(frozen=True, slots=True)
class Action:
    """One step of a hand: ``kind``, the acting ``seat`` (None for server actions), ``cards``;
    a ``call`` also has one ``ordinals`` entry per card."""

    kind: str
    seat: int | None = None
    cards: tuple[int, ...] = ()
    ordinals: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.seat is None:
            return self.kind
        if not self.cards:
            return f"{self.kind} {self.seat}"
        if self.kind == CALL:
            calls = " ".join(
                f"{n}{text}"
                for n, text in zip(self.ordinals, format_cards(self.cards).split(), strict=True)
            )
            return f"{self.kind} {self.seat} {calls}"
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


def takeback(seat: int) -> Action:
    return Action(TAKEBACK, seat)


def call(seat: int, calls: Iterable[tuple[int, int]]) -> Action:
    """The dealer's friend calls, as ``(card, ordinal)`` pairs."""
    listed = list(calls)
    return Action(CALL, seat, tuple(c for c, _ in listed), tuple(n for _, n in listed))


_PARSED: dict[str, Action] = {}
_PARSED_LIMIT = 100_000


def parse_action(text: str, players: int = 4) -> Action:
    """An ``Action`` from its text; raises ``InvalidActionError`` (code ``invalid_action``),
    also for a seat outside ``0..players-1`` (a hand passes its own number of players).

    Actions are immutable, so parsed texts are cached (replays parse the same texts often).
    """
    found = _PARSED.get(text)
    if found is None:
        found = _parse(text)
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[text] = found
    if found.seat is not None and found.seat >= players:
        raise InvalidActionError(text, f"a seat 0..{players - 1} must follow the action")
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
    if len(words) < 2 or words[1] not in SEAT_WORDS:
        raise InvalidActionError(text, "a seat 0..7 must follow the action")
    seat = int(words[1])
    if kind in BARE_KINDS:
        if len(words) > 2:
            raise InvalidActionError(text, f"{kind} takes no cards")
        return Action(kind, seat)
    if len(words) < 3:
        raise InvalidActionError(text, f"{kind} needs cards")
    if kind == CALL:
        return _parse_call(text, seat, words[2])
    try:
        cards = tuple(parse_cards(words[2]))
    except InvalidNotationError as error:
        raise InvalidActionError(text, str(error)) from None
    return Action(kind, seat, cards)


def _parse_call(text: str, seat: int, calls: str) -> Action:
    """``2AS 1KH``: each call an ordinal digit 1..4 glued to a card."""
    cards: list[int] = []
    ordinals: list[int] = []
    for token in calls.split():
        if len(token) != 3 or token[0] not in "1234":
            raise InvalidActionError(text, f"a call is an ordinal 1..4 and a card, not {token!r}")
        try:
            cards += parse_cards(token[1:])
        except InvalidNotationError as error:
            raise InvalidActionError(text, str(error)) from None
        ordinals.append(int(token[0]))
    return Action(CALL, seat, tuple(cards), tuple(ordinals))


def as_action(action: Action | str, players: int = 4) -> Action:
    """Accept either form; anything else is an ``invalid_action``."""
    if isinstance(action, Action):
        return action
    if not isinstance(action, str):
        raise InvalidActionError(repr(action), "an action is text or an Action")
    return parse_action(action, players)


def action_texts(actions: list[Action]) -> list[str]:
    return [str(a) for a in actions]


__all__ = [
    "BID",
    "BURY",
    "CALL",
    "CLOSE",
    "DRAW",
    "LEAVE",
    "PLAY",
    "TAKEBACK",
    "Action",
    "action_texts",
    "as_action",
    "bid",
    "bury",
    "call",
    "close",
    "draw",
    "leave",
    "parse_action",
    "play",
    "takeback",
]
