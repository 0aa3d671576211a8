"""Errors at the service edge: a stable code the client branches on, a readable message, and
the fields that give it context. The one ApplicationError of the site, in accounts, the
lowest floor that needs it (docs/ARCHITECTURE.md, "Floors"; ``ladder.errors`` names the same
class).

A message is a gettext_lazy text: the code's (below) when the error is raised without one, or
one given where it is raised, whose named parameters (``%(table)s``) are the error's fields. It
is put in words when read, in the language active then (a page's request language): an error
raised in one language and shown in another is still right. A plain ``str`` message is shown
as given (the socket's details, the API's English).

The table socket runs with no language activated (Channels does not), so the table page also
carries the messages of the table's codes, translated, and shows the one for an error's code
(falling back to the message the server sent).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.functional import Promise, lazy
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from shengji.engine import ShengjiError, action_reason_text, parse_cards, reason_text

logger = logging.getLogger(__name__)

# Refusals that say in full what to do (their numbers, daily relief, the table to go back to):
# a page shows them without their code, and links the page they name (issue 33).
SELF_EXPLAINED = frozenset({"insufficient_balance", "seated_elsewhere"})

_MESSAGES: dict[str, Promise] = {
    "not_found": _("no such table or hand"),
    "not_seated": _("you are not seated at this table"),
    "seat_taken": _("that seat is taken"),
    "already_seated": _("you already have a seat at this table"),
    "insufficient_balance": _("your table points are below this table's minimum"),
    "table_closed": _("this table is closed"),
    "hand_in_progress": _("a hand is in progress"),
    "no_hand": _("no hand is in progress"),
    "stale_seq": _("the table has moved on since that view: look again"),
    "bad_message": _("that message could not be read"),
    "unknown_type": _("unknown message type"),
    "rate_limited": _("too many messages: slow down"),
    "chat_rate_limited": _("too many chat lines: wait a little before the next"),
    "too_many_sockets": _("too many windows open at this table: close one"),
    "chat_too_long": _("chat lines are at most 200 characters"),
    "chat_empty": _("an empty chat line"),
    "login_required": _("log in to do that"),
    "ranked_no_bots": _("bots cannot sit at ranked tables"),
    "ranked_quick_match_only": _("ranked tables are seated by quick match only"),
    "invalid_stake": _("the stake must be a whole number from 1 to 100000"),
    "invalid_preset": _("unknown rule preset"),
    "invalid_house_rules": _("a house rule names an unknown option or value"),
    "invalid_seat": _("that seat is not at this table"),
    "players_out_of_range": _("a table has 4 to 8 players"),
    "decks_out_of_range": _("a table plays with 2 to 4 decks"),
    "tractor_needs_even_players": _(
        "拖拉机 (fixed partners) needs an even number of players: 4, 6 or 8"
    ),
    "friends_needs_5_to_8_players": _("找朋友 (Finding Friends) needs 5 to 8 players"),
    "friends_out_of_range": _(
        "找朋友 calls 1 friend at 5 players, up to 2 at 6 or 7, up to 3 at 8; 拖拉机 calls none"
    ),
    "friends_only_option": _("that option belongs to 找朋友 (Finding Friends) only"),
    "invalid_mode": _("the mode is 拖拉机 (tractor) or 找朋友 (Finding Friends)"),
    # The engine's refusals of a combination of house options (RULES-SPEC.md §10.1).
    "needs_team_level": _(
        "the top level, levels to defend and 勾J need the dealer side's level: not a random "
        "level each hand"
    ),
    "score_bands_out_of_range": _(
        "the level steps do not fit: a step is 0 or a multiple of 5 up to 100 points a deck, "
        "the steps to take the deal at most the points in play, no step below 0"
    ),
    "score_bands_with_table_settlement": _(
        "settlement by fixed amounts has level steps of its own: keep the standard steps with it"
    ),
    "kitty_size_out_of_range": _(
        "that kitty size does not fit these decks: at most the cards less one a player, and "
        "few enough cards left over to remove"
    ),
    "deck_min_rank_out_of_range": _("the deck's lowest rank is 2, 3, 4 or 5"),
    "tractor_min_length_out_of_range": _("a tractor is 2 to 12 tuples long"),
    "tractor_min_tuple_out_of_range": _(
        "a tractor's tuples have from 2 cards up to as many as the decks"
    ),
    "bombs_need_4_decks": _("bombs need a table of 4 decks"),
    "rainbow_min_out_of_range": _("a rainbow has 0 (no rainbows) or 4 up to 4 × decks cards"),
    "bid_order_needs_strength": _(
        "the order of showings belongs to bidding by strength: not to the other bidding rules"
    ),
    "bid_reinforce_needs_strength": _(
        "overcalling yourself belongs to bidding by strength: not to the other bidding rules"
    ),
    "joker_bids_needs_strength": _(
        "that rule of joker showings belongs to bidding by strength: not to the other bidding rules"
    ),
    "not_allowed": _("you may not do that"),
    "in_game": _("you are seated at a table where a hand is in progress"),
    "seated_elsewhere": _("leave your seat at your other table first"),
    "not_queued": _("you are not waiting for a match"),
    "internal": _("something went wrong on the server: try again"),
    "account_suspended": _("your account is suspended"),
    "session_ended": _(
        "your session has ended (logged out, or the password changed): reload the page"
    ),
}

# Accounts and the ladder (their pages, the admin, the API): each code's message in general; a
# refusal names its particulars with a message of its own (accounts/services.py, ladder/).
_SITE_MESSAGES: dict[str, Promise] = {
    "username_required": _("choose a user name"),
    "username_invalid": _("this user name is not allowed"),
    "username_taken": _("this name is taken"),
    "display_name_invalid": _("this display name is not allowed"),
    "display_name_taken": _("this name is taken or looks too much like another player's"),
    "display_name_too_long": _("a display name has at most 40 characters"),
    "email_invalid": _("enter a valid e-mail address"),
    "password_invalid": _("choose another password"),
    "language_invalid": _("no such language"),
    "reason_required": _("give a reason"),
    "already_banned": _("this player is already banned"),
    "not_banned": _("this player is not banned"),
    "ban_self": _("you cannot ban yourself"),
    "amount_zero": _("an adjustment of 0 changes nothing"),
    "account_invalid": _("no such account: table points or title points"),
    "balance_negative": _("points cannot go below 0"),
    "account_inactive": _("this account cannot claim relief"),
    "relief_not_needed": _("relief is for low balances of table points"),
    "relief_limit": _("no more relief today: come back tomorrow"),
    "hand_not_found": _("no such hand"),
    "hand_not_finished": _("the hand is still being played"),
    "seats_incomplete": _("the hand's seats are not all filled"),
    "duplicate_player": _("a player holds two seats of the hand"),
    "board_unknown": _("no such leaderboard"),
    "player_not_found": _("no such player"),
    "parameter_invalid": _("a parameter is not a number"),
    "credentials_missing": _("give a username and a password"),
    "credentials_invalid": _("wrong user name or password"),
    "ruleset_invalid": _("the hand's rules are incomplete"),
    "outcome_invalid": _("the hand's outcome does not read right"),
    "relief_address_limit": _(
        "relief was claimed from your network address today: come back tomorrow"
    ),
    "no_show_wait": _(
        "you did not come to your last quick match: wait a little before queueing again"
    ),
    "table_rate_limit": _("you have opened many tables this hour: wait a little"),
    "table_limit": _("you have too many tables open: close one first"),
    "bad_request": _("the request is malformed"),
    "too_many_attempts": _("too many attempts: wait a little and try again"),
    "method_not_allowed": _("that method is not allowed here"),
}

# The engine's reason codes (docs/NOTATION.md), in the words players use.
_ENGINE_MESSAGES: dict[str, Promise] = {
    "not_your_turn": _("it is not your turn"),
    "wrong_phase": _("that action does not belong to this phase of the hand"),
    "wrong_seat": _("that action names another seat"),
    "server_only": _("only the server deals cards and closes the bid window"),
    "invalid_action": _("the action text does not parse"),
    "invalid_notation": _("those cards are not written right"),
    "bid_not_showable": _("a bid shows level cards of one suit or a pair of identical jokers"),
    "bid_cards_not_held": _("you have not been dealt those cards"),
    "bid_too_weak": _("a bid must beat the standing bid"),
    "bid_same_suit": _("an overcall must show another suit"),
    "bid_own_overcall": _("you cannot overcall your own bid"),
    "bury_wrong_count": _("bury exactly as many cards as the kitty holds"),
    "calls_missing": _("call your friends before you bury"),
    "calls_not_allowed": _("only the dealer calls friends, while burying, in 找朋友"),
    "bury_cards_not_held": _("you can only bury cards you hold"),
    "friend_bad_ordinal": _("a call names a copy from the 1st to the number of decks"),
    "friend_joker": _("a joker cannot be called"),
    "friend_level_card": _("a level card cannot be called"),
    "friend_trump": _("a card of the trump suit cannot be called"),
    "friend_highest": _("the highest card cannot be called: no A, and no K when the level is A"),
    "friend_points": _("a point card (5, 10, K) cannot be called, but a K can when the level is A"),
    "friend_wrong_count": _("make exactly as many calls as the table's number of friends"),
    "friend_duplicate": _("the same call twice: call different cards or copies"),
    "friend_card_not_in_deck": _("that card is not in this table's decks"),
    "wrong_count": _("play as many cards as the lead"),
    "cards_not_in_hand": _("those cards are not in your hand"),
    "must_follow_suit": _("play as many cards of the led suit as you hold"),
    "must_follow_tractor": _("you hold a tractor of the led suit and must play it"),
    "must_follow_pair": _("you hold pairs of the led suit and must play them"),
    "empty_play": _("a play needs at least one card"),
    "lead_mixed_suits": _("a lead must be all of one suit, or all trump"),
    "throw_rejected": _("the throw does not stand: lead again"),
    "takeback_not_allowed": _("this table's rules allow no takeback now"),
    "takeback_not_last": _(
        "only your own last bid, or your play while it is the last, is taken back"
    ),
    "takeback_after_failed_throw": _("a failed throw stands, its penalty included"),
}


# Refusals that name their particulars (the error's fields): a page reads them from the error
# itself, the table page fills ``error_details()`` with an error frame's ``fields``.
_DETAILED_MESSAGES: dict[str, Promise] = {
    "insufficient_balance": _(
        "you hold %(balance)s table points; every seat at this table needs at least %(needed)s"
    ),
}


class Grouped(int):
    """A number of table points: a number to machines (JSON), "1,580" in a message."""

    def __str__(self) -> str:
        return f"{int(self):,}"


def detailed_message(code: str) -> Promise:
    """The message of ``code`` that names the error's fields (``_DETAILED_MESSAGES``)."""
    return _DETAILED_MESSAGES[code]


def error_details() -> dict[str, str]:
    """The detailed messages in the active language, ``%(name)s`` written ``{name}`` as the
    table page's script fills them."""
    return {code: _PARAMETER.sub(r"{\1}", str(text)) for code, text in _DETAILED_MESSAGES.items()}


def _is_cards(detail: str) -> bool:
    try:
        parse_cards(detail)
    except ShengjiError:
        return False
    return True


def message_for(code: str) -> str:
    """The message of ``code`` in the active language (the code itself when unknown)."""
    message = _MESSAGES.get(code) or _ENGINE_MESSAGES.get(code) or _SITE_MESSAGES.get(code)
    return code if message is None else str(message)


# Every code a client may be sent: the one list (tests/foundation/test_error_codes.py checks that
# every code raised anywhere in the site is in it).
CODES: frozenset[str] = (
    frozenset(_MESSAGES) | frozenset(_SITE_MESSAGES) | frozenset(_ENGINE_MESSAGES)
)


def is_known_code(code: str) -> bool:
    """Whether ``code`` is one of the project's (a refusal's, the site's or the engine's)."""
    return code in CODES


def error_messages() -> dict[str, str]:
    """The table's codes' messages in the active language: the table page's labels carry them."""
    return {code: str(text) for code, text in {**_MESSAGES, **_ENGINE_MESSAGES}.items()}


_PARAMETER = re.compile(r"%\((\w+)\)s")


def filled(text: str, fields: Mapping[str, Any]) -> str:
    """``text`` with each named parameter (``%(name)s``) given in ``fields`` put in (a lazy
    value in the active language); any other ``%`` is left as written."""
    return _PARAMETER.sub(lambda m: str(fields[m[1]]) if m[1] in fields else m[0], text)


def _validation_text(error: ValidationError) -> str:
    return " ".join(error.messages)


# A validator's refusal (Django's, accounts/names.py's), put in words when read.
validation_message = lazy(_validation_text, str)


class ApplicationError(Exception):
    """A refused request: ``code`` is stable (clients and tests branch on it), ``message`` is
    for people (in the language active when it is read), ``fields`` give the context and the
    message's named parameters."""

    def __init__(self, code: str, message: str | Promise | None = None, **fields: Any) -> None:
        super().__init__(code)
        self.code = code
        self.fields = fields
        self._message = message

    @property
    def message(self) -> str:
        if not self._message:  # none (or empty): the code's
            return message_for(self.code)
        if isinstance(self._message, Promise):
            return filled(str(self._message), self.fields)
        return self._message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"ApplicationError({self.code!r}, {self.message!r})"

    @classmethod
    def from_engine(cls, error: ShengjiError) -> ApplicationError:
        """The engine's message in English; in another language the code's message, followed
        by the cards concerned when the detail is cards (other details are English words)."""
        code = error.code
        if not is_known_code(code):  # not a refusal of the player's action: no text of it
            logger.error("an engine error of no listed code", exc_info=error)
            return cls("internal")
        if code in _ENGINE_MESSAGES and not (get_language() or "en").startswith("en"):
            text = message_for(code)
            detail = getattr(error, "detail", "")
            return cls(code, f"{text}: {detail}" if detail and _is_cards(detail) else text)
        text = action_reason_text(code)
        if text == code:
            text = reason_text(code)
        return cls(code, str(error) or text)

    def as_message(self) -> dict[str, Any]:
        """The socket's error frame; a refusal with particulars (``_DETAILED_MESSAGES``) also
        carries them as ``fields``, in words ("1,580"), for the page to fill its own text."""
        frame: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.code in _DETAILED_MESSAGES and self.fields:
            frame["fields"] = {name: str(value) for name, value in self.fields.items()}
        return frame

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.fields}
