"""找朋友 (Finding Friends, RULES-SPEC.md §9.3): friend calls, reveals, the next dealer and the
small-side bonus, as pure functions.

A call is a card and an ordinal: ``FriendCall(Card('AS'), 2)`` is "the 2nd ♠A played", written
``2AS``. ``seen`` counts the copies of the card played so far in the hand (every copy, whoever
plays it) and ``seat`` is the seat that filled the call (None while it is open).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from shengji.engine.action_errors import (
    FRIEND_BAD_ORDINAL,
    FRIEND_CARD_NOT_IN_DECK,
    FRIEND_DUPLICATE,
    FRIEND_HIGHEST,
    FRIEND_JOKER,
    FRIEND_LEVEL_CARD,
    FRIEND_POINTS,
    FRIEND_TRUMP,
    FRIEND_WRONG_COUNT,
    InvalidRecordError,
)
from shengji.engine.cards import RANKS, SMALL_JOKER, SUITS, Card, parse_card
from shengji.engine.errors import InvalidNotationError, InvalidOptionError
from shengji.engine.trump import Trump

UNRESTRICTED = "unrestricted"
TRUMPS_INCLUDED = "trumps_included"
NO_HIGHEST = "no_highest"
NO_POINTS = "no_points"
FRIEND_CARD_POLICIES = (UNRESTRICTED, TRUMPS_INCLUDED, NO_HIGHEST, NO_POINTS)
NO_DOUBLE_JOIN = "no_double_join"
JOIN_POLICIES = (UNRESTRICTED, NO_DOUBLE_JOIN)
CALL_HELD = "call_held"
"""A call's warning: the dealer holds some copies of the card and the others hold the rest:
whoever plays the called copy fills the call, so if that copy is the dealer's it is used up
(``call_spent``), else it finds a friend."""
CALL_HELD_ALL = "call_held_all"
"""A call's warning: the dealer holds every copy of the card, so the dealer fills the call
(it is used up) and it finds no friend."""
CALL_WARNINGS = (CALL_HELD, CALL_HELD_ALL)

_CALL_TEXT = re.compile(r"([0-9]+)([0-9A-Za-z]{2})")
_POINT_RANKS = frozenset("5TK")


@dataclass(frozen=True, slots=True)
class FriendCall:
    """One call: the ``ordinal``-th copy of ``card`` played fills it (RULES-SPEC.md §9.3.3–4)."""

    card: Card
    ordinal: int
    seen: int = 0
    seat: int | None = None

    @property
    def filled(self) -> bool:
        return self.seat is not None

    def to_dict(self) -> dict[str, object]:
        return {
            "card": self.card.text,
            "ordinal": self.ordinal,
            "seen": self.seen,
            "seat": self.seat,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> FriendCall:
        seat = data.get("seat")
        return cls(
            parse_card(str(data["card"])),
            _int(data["ordinal"]),
            _int(data.get("seen", 0)),
            None if seat is None else _int(seat),
        )

    def __str__(self) -> str:
        return format_call(self)


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRecordError(f"a friend call holds {value!r} where a number belongs")
    return value


def parse_call(text: str) -> FriendCall:
    """``"2AS"`` (ordinal then card, any case) → ``FriendCall(Card('AS'), 2)``; the ordinal is
    checked by ``friend_call_error``, not here."""
    match = _CALL_TEXT.fullmatch(text.strip())
    if match is None:
        raise InvalidNotationError(text, text)
    return FriendCall(parse_card(match[2]), int(match[1]))


def parse_calls(text: str) -> list[FriendCall]:
    """Space-separated calls: ``"2AS 1KH"``."""
    return [parse_call(token) for token in text.split()]


def format_call(call: FriendCall) -> str:
    """``FriendCall(Card('AS'), 2)`` → ``"2AS"``."""
    return f"{call.ordinal}{call.card.text}"


def format_calls(calls: Iterable[FriendCall]) -> str:
    return " ".join(format_call(c) for c in calls)


def friend_call_error(
    card: int,
    ordinal: int,
    trump: Trump,
    decks: int,
    policy: str = UNRESTRICTED,
    *,
    copies: Sequence[int] | None = None,
) -> str | None:
    """None when ``card``/``ordinal`` may be called under the ``friend_cards`` ``policy``, else
    the reason code (RULES-SPEC.md §9.3.3). ``trump`` carries the hand's level rank and suit.

    Checked in this order: the ordinal (1…decks), then the card: joker, level card, trump suit
    (all three allowed under ``trumps_included`` only), then ``no_highest`` (an A, or a K when
    the level is A) or ``no_points`` (a 5, 10 or K; a K is allowed when the level is A).
    ``copies`` (a table whose deck is not full, RULES-SPEC.md §10.11, §10.12): the copies of
    each card in the deal; a card with none is ``friend_card_not_in_deck``, a copy past those
    left ``friend_bad_ordinal``.
    """
    if policy not in FRIEND_CARD_POLICIES:
        raise InvalidOptionError(f"friend_cards {policy!r} is not one of {FRIEND_CARD_POLICIES}")
    if not 1 <= ordinal <= decks:
        return FRIEND_BAD_ORDINAL
    if copies is not None:
        if not copies[card]:
            return FRIEND_CARD_NOT_IN_DECK
        if ordinal > copies[card]:
            return FRIEND_BAD_ORDINAL
    called = Card(card)
    if policy != TRUMPS_INCLUDED:
        if called.is_joker:
            return FRIEND_JOKER
        if called.rank == trump.level:
            return FRIEND_LEVEL_CARD
        if called.suit == trump.suit:
            return FRIEND_TRUMP
    king_at_ace = called.rank == "K" and trump.level == "A"
    if policy == NO_HIGHEST and (called.rank == "A" or king_at_ace):
        return FRIEND_HIGHEST
    if policy == NO_POINTS and called.rank in _POINT_RANKS and not king_at_ace:
        return FRIEND_POINTS
    return None


def friend_calls_error(
    calls: Sequence[FriendCall],
    trump: Trump,
    decks: int,
    count: int,
    policy: str = UNRESTRICTED,
    *,
    copies: Sequence[int] | None = None,
) -> str | None:
    """None when ``calls`` are a valid set of ``count`` calls, else the first reason found:
    ``friend_wrong_count``, then ``friend_duplicate`` (the same card and ordinal twice; the same
    card with two ordinals is allowed), then the first call's own code."""
    if len(calls) != count:
        return FRIEND_WRONG_COUNT
    if len({(c.card, c.ordinal) for c in calls}) != len(calls):
        return FRIEND_DUPLICATE
    for call in calls:
        code = friend_call_error(call.card, call.ordinal, trump, decks, policy, copies=copies)
        if code is not None:
            return code
    return None


@dataclass(frozen=True, slots=True)
class HeldCall:
    """A call naming a card the dealer holds ``held`` copies of, and its warning code."""

    call: FriendCall
    held: int
    code: str


def held_calls(calls: Sequence[FriendCall], hand: Sequence[int], decks: int) -> list[HeldCall]:
    """The calls of ``calls`` that name a card the dealer's ``hand`` holds, each with its
    warning: ``call_held_all`` when the hand holds all ``decks`` copies (the dealer fills the
    call), else ``call_held`` (whoever plays the called copy fills it: a friend unless that copy
    is the dealer's; ENGINE-PART2-DECISIONS.md F13). Such calls are legal; the page warns."""
    found: list[HeldCall] = []
    for call in calls:
        held = hand.count(call.card)
        if held:
            code = CALL_HELD_ALL if held >= decks else CALL_HELD
            found.append(HeldCall(call, held, code))
    return found


def call_class(card: int, ordinal: int, held: int) -> int:
    """How surely a call finds a friend, best first: 0 the dealer holds no copy (whoever plays
    the copy is a friend), 1 the dealer holds fewer copies than the ordinal (a friend if the
    dealer's copies go first), 2 the dealer holds enough to fill it (ENGINE-PART2-DECISIONS.md
    F13)."""
    if held == 0:
        return 0
    return 1 if held < ordinal else 2


def default_calls(
    hand: Sequence[int],
    trump: Trump,
    decks: int,
    count: int,
    policy: str = UNRESTRICTED,
    *,
    copies: Sequence[int] | None = None,
) -> list[FriendCall]:
    """The ``count`` calls offered to the dealer before they choose, from their ``hand`` after
    taking the kitty (ENGINE-PART2-DECISIONS.md F13): legal calls only, best first by
    ``call_class`` (never a card the hand holds while another legal call exists), then plain
    suits before trumps, the fewest copies to wait for, the highest rank, a suit not called yet,
    S H C D. Fewer than ``count`` only when fewer legal calls exist."""
    candidates: list[tuple[tuple[int, int, int, int], int, int]] = []
    for card in range(SMALL_JOKER + 2):
        held = hand.count(card)
        for ordinal in range(1, decks + 1):
            if friend_call_error(card, ordinal, trump, decks, policy, copies=copies) is not None:
                continue
            called = Card(card)
            rank = -1 if called.rank is None else RANKS.index(called.rank)
            wait = ordinal - held - 1 if held < ordinal else ordinal - 1
            key = (call_class(card, ordinal, held), int(trump.is_trump(card)), wait, -rank)
            candidates.append((key, card, ordinal))
    chosen: list[FriendCall] = []
    while len(chosen) < count:
        best = _next_default(candidates, chosen)
        if best is None:
            break
        chosen.append(FriendCall(Card(best[1]), best[2]))
        candidates.remove(best)
    return chosen


def _next_default(
    candidates: list[tuple[tuple[int, int, int, int], int, int]], chosen: list[FriendCall]
) -> tuple[tuple[int, int, int, int], int, int] | None:
    """The best candidate: by ``call_class`` and plain before trump, then a card not called yet
    before another copy of one, then the key's order and, at equal rank, a suit not called yet."""
    if not candidates:
        return None
    cards = {c.card for c in chosen}
    suits = [c.card.suit for c in chosen]

    def order(item: tuple[tuple[int, int, int, int], int, int]) -> tuple[int, ...]:
        key, card, ordinal = item
        suit = Card(card).suit
        suit_index = SUITS.index(suit) if suit is not None else len(SUITS)
        sure, trumps, wait, rank = key
        again = int(card in cards)
        return (sure, trumps, again, wait, rank, suits.count(suit), suit_index, ordinal)

    return min(candidates, key=order)


def reveal_friends(
    calls: Sequence[FriendCall],
    side: Collection[int],
    plays: Sequence[tuple[int, Sequence[int]]],
    join_policy: str = UNRESTRICTED,
) -> tuple[list[FriendCall], frozenset[int]]:
    """The calls and the defending side after one completed trick (RULES-SPEC.md §9.3.4).

    ``plays`` are ``(seat, cards)`` in play order; each card is read in order, and every copy
    of a called card counts towards every call of that card. The copy that brings ``seen`` to
    the ordinal (or any later copy, under ``no_double_join``) fills an open call: a player not
    on the side joins it at once (so a later card of the same trick sees them on it); a player
    already on the side uses the call up under ``unrestricted`` (its ``seat`` is theirs, the side
    does not grow) and is passed over under ``no_double_join`` (the call waits for the next
    copy). Nothing is mutated.
    """
    if join_policy not in JOIN_POLICIES:
        raise InvalidOptionError(f"join_policy {join_policy!r} is not one of {JOIN_POLICIES}")
    found = list(calls)
    members = set(side)
    called = {c.card for c in found}
    for seat, cards in plays:
        for card in cards:
            if card in called:
                _count_copy(found, members, seat, card, join_policy)
    return found, frozenset(members)


def _count_copy(
    calls: list[FriendCall], members: set[int], seat: int, card: int, join_policy: str
) -> None:
    for index, call in enumerate(calls):
        if call.card != card:
            continue
        seen = call.seen + 1
        fills = call.seat is None and seen >= call.ordinal
        if fills and seat in members and join_policy == NO_DOUBLE_JOIN:
            fills = False
        calls[index] = replace(call, seen=seen, seat=seat if fills else call.seat)
        if fills:
            members.add(seat)


def friends_next_dealer(dealer: int, players: int, winners: Collection[int]) -> int:
    """The first seat going round from the seat after ``dealer`` (the dealer last) that is in
    ``winners`` (RULES-SPEC.md §9.3.7)."""
    for step in range(1, players + 1):
        seat = (dealer + step) % players
        if seat in winners:
            return seat
    raise InvalidOptionError(f"no winning seat among {players} players: {sorted(winners)}")


def default_friends(players: int) -> int:
    """The number of calls when the table does not choose (RULES-SPEC.md §9.3.3): 5 → 1,
    6 → 2, 7 → 2, 8 → 3."""
    return players // 2 - 1


def small_side_bonus_levels(
    side_size: int, friends: int, defenders_won: bool, enabled: bool
) -> int:
    """1 when the option is on, the defenders won and their final side has fewer than
    ``friends + 1`` players (RULES-SPEC.md §9.3.6), else 0."""
    return 1 if enabled and defenders_won and side_size < friends + 1 else 0
