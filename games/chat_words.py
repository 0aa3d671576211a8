"""System chat lines in the reader's words: each line is stored as a code plus its parts
(``ChatLine.code``/``params``, docs/PROTOCOL.md); the table page (static/games/table.js) and the
admin show it from these patterns, seats named by compass (docs/RULES-DECISIONS.md)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

# Which parts of each code are seat numbers (0–3), named by compass where shown.
SEAT_PARTS: dict[str, tuple[int, ...]] = {
    "sits": (1,),
    "leaves": (1,),
    "bot_sits": (0,),
    "bids": (0,),
    "throw_forced": (0,),
    "throw_back": (0,),
    "escaped": (1,),
    "bot_plays": (0,),
    "autopilot_on": (0,),
    "autopilot_off": (0,),
    "back": (1,),
    "removed": (0,),
    "away_freed": (1,),
    "friends_called": (0,),
    "friend_joins": (0,),
    "call_spent": (0,),
    "timeout_play": (0,),
    "timeout_bury": (0,),
    "timeout_call": (0,),
    "takeback_bid": (0,),
    "takeback_play": (0,),
}


# Codes whose seat is named by its player: (the seat's part, the name's part). The name is
# stored after the line's other parts when the line is written (``services._common.named``):
# the user's name, "" for a bot's seat; a line stored before has no name part and is shown by
# its seat (docs/PROTOCOL.md, "System lines").
NAMED_SEATS: dict[str, tuple[int, int]] = {
    "bids": (0, 2),
    "throw_forced": (0, 3),
    "throw_back": (0, 1),
    "escaped": (1, 2),
    "removed": (0, 1),
    "friends_called": (0, 2),
    "friend_joins": (0, 3),
    "call_spent": (0, 3),
    "timeout_play": (0, 2),
    "timeout_bury": (0, 1),
    "timeout_call": (0, 1),
    "takeback_bid": (0, 2),
    "takeback_play": (0, 2),
}


def line_name(code: str, params: Sequence[object]) -> str | None:
    """The player's name a line stores for its seat: the name, "" for a bot, None when the
    line has none (its code names no player, or it was stored before names were)."""
    where = NAMED_SEATS.get(code)
    if where is None or len(params) <= where[1]:
        return None
    return str(params[where[1]])


# Seat 0 East, then South, West, North in play order (docs/RULES-DECISIONS.md 20).
SEAT_COMPASS = (
    pgettext_lazy("seat", "East"),
    pgettext_lazy("seat", "South"),
    pgettext_lazy("seat", "West"),
    pgettext_lazy("seat", "North"),
)
SUIT_NAMES = {
    "S": gettext_lazy("spades"),
    "H": gettext_lazy("hearts"),
    "C": gettext_lazy("clubs"),
    "D": gettext_lazy("diamonds"),
}


def seat_compass() -> list[str]:
    """The seats' compass names in the active language."""
    return [str(name) for name in SEAT_COMPASS]


def seat_names(players: int = 4) -> list[str]:
    """The seats of a table of ``players``: by compass at four (docs/RULES-DECISIONS.md 20),
    numbered from 1 in play order at a bigger table (no compass has more than four points)."""
    if players == len(SEAT_COMPASS):
        return seat_compass()
    # Translators: a seat of a table of 5 to 8 players, numbered in play order ("3号位").
    pattern = _("seat %(n)s")
    return [pattern % {"n": index + 1} for index in range(players)]


def seat_name(index: int, players: int = 4) -> str:
    names = seat_names(players)
    return names[index] if 0 <= index < len(names) else str(index)


def nth_card_pattern() -> str:
    """A called card with its ordinal, as the log writes a call: "第1张黑桃A", "1st A of
    clubs" ({nth} the ordinal, {card} the card in words)."""
    # Translators: a friend call in the log: {nth} is "第1张" / "1st", {card} "黑桃A" / "A of
    # clubs"; Chinese writes them together, English with a space.
    return pgettext("friend call: ordinal and card", "{nth} {card}")


def suit_names() -> dict[str, str]:
    """The suits' names in the active language, by letter."""
    return {suit: str(name) for suit, name in SUIT_NAMES.items()}


def system_line_patterns() -> dict[str, str]:
    """The table's system lines by code (a chat line's ``code``; docs/PROTOCOL.md): {0} {1} …
    are its ``params`` in order, a seat already named ("South", "南家") and cards in words.
    ``result`` reads by its params: result_defenders, result_take_deal or result_attackers.
    Old lines without a code are matched by their English text (table.js)."""
    return {
        "sits": _("{0} sits at {1}"),
        "leaves": _("{0} leaves {1}"),
        "bot_sits": _("a bot sits at {0}"),
        "hand_starts": _("match {1}, hand {0} starts"),
        "bids": _("{0} bids {1}"),
        "throw_forced": _("{0}'s throw {1} fails: {2} is played instead"),
        "throw_back": _("{0}'s throw fails and is taken back"),
        "result_defenders": _("hand {0}: attackers {1} points, the defenders go up {3}"),
        "result_take_deal": _("hand {0}: attackers {1} points, the attackers take the deal"),
        "result_attackers": _(
            "hand {0}: attackers {1} points, the attackers take the deal and go up {3}"
        ),
        "escaped": _("hand {0}: {1} escaped"),
        "bot_plays": _("the bot plays {0} for {1}"),
        "autopilot_on": _("{1} ({0}) turns autopilot on"),
        "autopilot_off": _("{1} ({0}) turns autopilot off"),
        "back": _("{0} is back at {1}"),
        "closed": _("the table was closed by an admin"),
        "removed": _("an admin removed the player at {0}"),
        "practice": _("a practice hand: a bot is seated, no points or ratings move"),
        "away_freed": _("{0} is away: {1} is free"),
        "stands_short": _("{0} stands up: this table needs {1} table points"),
        # Translators: 找朋友, the dealer's calls shown at the first lead; {1} is "2AS 1KH".
        "friends_called": _("{0} calls friends: {1}"),
        # Translators: 找朋友, a friend revealed: {2} is the ordinal, {1} the card ("第2张♠A").
        "friend_joins": _("{0} plays copy {2} of {1}: a friend of the dealer"),
        "call_spent": _(
            "{0} plays copy {2} of {1}, already on the dealer's side: the call is used"
        ),
        # Translators: a player's time ran out and the server played for them (超时代出).
        "timeout_play": _("Time's up: the system played {1} for {0}"),
        # Translators: the dealer's time ran out and the server buried for them (超时代扣底).
        "timeout_bury": _("Time's up: the system buried the kitty for {0}"),
        # Translators: 找朋友, the dealer's time to call ran out and the server called for them.
        "timeout_call": _("Time's up: the system called the friends for {0}"),
        # Translators: a house rule lets a player withdraw their last bid; {1} is the bid.
        "takeback_bid": _("{0} takes back the bid {1}"),
        # Translators: 悔牌, a house rule: a player takes a play back before the trick ends.
        "takeback_play": _("{0} takes back the play {1}"),
    }


def _pattern_key(code: str, params: Sequence[object]) -> str:
    """``result`` reads by who won and how far (the same choice as table.js)."""
    if code != "result":
        return code
    if len(params) > 2 and params[2] == "defenders":
        return "result_defenders"
    levels = params[3] if len(params) > 3 else 0
    return (
        "result_attackers" if str(levels).isdigit() and int(str(levels)) > 0 else "result_take_deal"
    )


def system_line_text(code: str, params: Sequence[object], fallback: str) -> str:
    """A stored system line in the active language; ``fallback`` (its English text) for a line
    without a code or with parts that do not fit its pattern."""
    pattern = system_line_patterns().get(_pattern_key(code, params)) if code else None
    if pattern is None:
        return fallback
    compass = seat_compass()
    seats = SEAT_PARTS.get(code, ())
    parts = [
        compass[int(str(part))] if i in seats and str(part) in ("0", "1", "2", "3") else str(part)
        for i, part in enumerate(params)
    ]
    name = line_name(code, params)
    if name is not None:  # the seat's player by name; a bot's seat as "bot (South)"
        seat_part = NAMED_SEATS[code][0]
        parts[seat_part] = name or _("bot ({seat})").format(seat=parts[seat_part])
    try:
        return pattern.format(*parts)
    except (IndexError, KeyError, ValueError):
        return fallback
