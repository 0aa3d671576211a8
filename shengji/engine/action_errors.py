"""Errors and stable reason codes of hands, actions, records and rule sets (part 2).

Every error is a ``ShengjiError`` from ``shengji.engine.errors`` with a stable ``code``. Plays that
break the lead or follow rules raise part 1's ``IllegalPlayError`` with its codes
(``must_follow_pair`` …); the codes here cover everything else a hand can refuse.
"""

from __future__ import annotations

from shengji.engine.errors import InvalidOptionError, ShengjiError

# Turn and phase.
NOT_YOUR_TURN = "not_your_turn"
WRONG_PHASE = "wrong_phase"
WRONG_SEAT = "wrong_seat"
SERVER_ONLY = "server_only"
# Action text.
INVALID_ACTION = "invalid_action"
# Bids (RULES-SPEC.md §5.2).
BID_NOT_SHOWABLE = "bid_not_showable"
BID_CARDS_NOT_HELD = "bid_cards_not_held"
BID_TOO_WEAK = "bid_too_weak"
BID_SAME_SUIT = "bid_same_suit"
BID_OWN_OVERCALL = "bid_own_overcall"
# The kitty (RULES-SPEC.md §5.3).
BURY_WRONG_COUNT = "bury_wrong_count"
BURY_CARDS_NOT_HELD = "bury_cards_not_held"
# Friend calls (RULES-SPEC.md §9.3.3); the codes of each call are friends.py's.
CALLS_MISSING = "calls_missing"
CALLS_NOT_ALLOWED = "calls_not_allowed"
# Each call's checks (friends.friend_call_error, friend_calls_error).
FRIEND_BAD_ORDINAL = "friend_bad_ordinal"
FRIEND_JOKER = "friend_joker"
FRIEND_LEVEL_CARD = "friend_level_card"
FRIEND_TRUMP = "friend_trump"
FRIEND_HIGHEST = "friend_highest"
FRIEND_POINTS = "friend_points"
FRIEND_WRONG_COUNT = "friend_wrong_count"
FRIEND_DUPLICATE = "friend_duplicate"
FRIEND_CARD_NOT_IN_DECK = "friend_card_not_in_deck"
# Takebacks (RULES-SPEC.md §10.22, §10.23).
TAKEBACK_NOT_ALLOWED = "takeback_not_allowed"
TAKEBACK_NOT_LAST = "takeback_not_last"
TAKEBACK_AFTER_FAILED_THROW = "takeback_after_failed_throw"
# Setup, records and rule sets.
INVALID_SETUP = "invalid_setup"
INVALID_RECORD = "invalid_record"
UNKNOWN_OPTION = "unknown_option"
MISSING_OPTION = "missing_option"
UNKNOWN_PRESET = "unknown_preset"
UNSUPPORTED_VERSION = "unsupported_version"
MATCH_OVER = "match_over"

ACTION_REASON_CODES: tuple[str, ...] = (
    NOT_YOUR_TURN,
    WRONG_PHASE,
    WRONG_SEAT,
    SERVER_ONLY,
    INVALID_ACTION,
    BID_NOT_SHOWABLE,
    BID_CARDS_NOT_HELD,
    BID_TOO_WEAK,
    BID_SAME_SUIT,
    BID_OWN_OVERCALL,
    BURY_WRONG_COUNT,
    BURY_CARDS_NOT_HELD,
    CALLS_MISSING,
    CALLS_NOT_ALLOWED,
    FRIEND_BAD_ORDINAL,
    FRIEND_JOKER,
    FRIEND_LEVEL_CARD,
    FRIEND_TRUMP,
    FRIEND_HIGHEST,
    FRIEND_POINTS,
    FRIEND_WRONG_COUNT,
    FRIEND_DUPLICATE,
)
HOUSE_ACTION_REASON_CODES: tuple[str, ...] = (
    FRIEND_CARD_NOT_IN_DECK,
    TAKEBACK_NOT_ALLOWED,
    TAKEBACK_NOT_LAST,
    TAKEBACK_AFTER_FAILED_THROW,
)
"""Refusals only a house option of RULES-SPEC.md §10 makes (§10.11, §10.22, §10.23); the site
lists them when its tables can set those options."""

_TEXT = {
    NOT_YOUR_TURN: "it is not your turn",
    WRONG_PHASE: "that action does not belong to this phase of the hand",
    WRONG_SEAT: "that action names another seat",
    SERVER_ONLY: "only the server deals cards and closes the bid window",
    INVALID_ACTION: "the action text does not parse",
    BID_NOT_SHOWABLE: "a bid shows level cards of one suit or a pair of identical jokers",
    BID_CARDS_NOT_HELD: "you have not been dealt those cards",
    BID_TOO_WEAK: "a bid must beat the standing bid",
    BID_SAME_SUIT: "an overcall must show another suit",
    BID_OWN_OVERCALL: "you cannot overcall your own bid",
    BURY_WRONG_COUNT: "bury exactly 8 cards",
    BURY_CARDS_NOT_HELD: "you can only bury cards you hold",
    CALLS_MISSING: "call your friends before you bury",
    CALLS_NOT_ALLOWED: "only the dealer of a 找朋友 hand calls friends, while burying",
    FRIEND_BAD_ORDINAL: "a call names a copy from the 1st to the number of decks",
    FRIEND_JOKER: "a joker cannot be called",
    FRIEND_LEVEL_CARD: "a level card cannot be called",
    FRIEND_TRUMP: "a card of the trump suit cannot be called",
    FRIEND_HIGHEST: "the highest card cannot be called: no A, and no K when the level is A",
    FRIEND_POINTS: "a point card (5, 10, K) cannot be called, but a K can when the level is A",
    FRIEND_WRONG_COUNT: "make exactly as many calls as the table's number of friends",
    FRIEND_DUPLICATE: "the same call twice: call different cards or copies",
    FRIEND_CARD_NOT_IN_DECK: "that card is not in this table's decks",
    TAKEBACK_NOT_ALLOWED: "this table's rules allow no takeback now",
    TAKEBACK_NOT_LAST: "only your own last bid, or your play while it is the last, is taken back",
    TAKEBACK_AFTER_FAILED_THROW: "a failed throw stands, its penalty included",
}


def action_reason_text(code: str) -> str:
    """A readable sentence for one of the codes above (the code itself if unknown)."""
    return _TEXT.get(code, code)


class IllegalActionError(ShengjiError):
    """An action the hand refuses now; ``code`` is one of ``ACTION_REASON_CODES``."""

    def __init__(self, code: str, detail: str = "") -> None:
        message = action_reason_text(code) + (f": {detail}" if detail else "")
        super().__init__(message)
        self.code = code
        self.detail = detail


class NotYourTurnError(IllegalActionError):
    def __init__(self, detail: str = "") -> None:
        super().__init__(NOT_YOUR_TURN, detail)


class WrongPhaseError(IllegalActionError):
    def __init__(self, detail: str = "") -> None:
        super().__init__(WRONG_PHASE, detail)


class IllegalBidError(IllegalActionError):
    """A bid refused with one of the ``bid_*`` codes."""


class IllegalBuryError(IllegalActionError):
    """A bury refused with one of the ``bury_*`` codes."""


class IllegalCallError(IllegalActionError):
    """Friend calls refused with ``calls_*`` or one of friends.py's ``friend_*`` codes."""


class IllegalTakebackError(IllegalActionError):
    """A takeback refused with one of the ``takeback_*`` codes."""


class InvalidActionError(ShengjiError):
    """Action text that does not parse (``invalid_action``)."""

    code = INVALID_ACTION

    def __init__(self, text: str, why: str) -> None:
        super().__init__(f"invalid action {text!r}: {why}")
        self.text = text


class InvalidSetupError(ShengjiError):
    """A hand or match set up with impossible values (``invalid_setup``)."""

    code = INVALID_SETUP


class InvalidRecordError(ShengjiError):
    """A hand record that cannot be read, or that does not replay (``invalid_record``)."""

    code = INVALID_RECORD


class MatchOverError(ShengjiError):
    """A new hand asked of a match that has ended (``match_over``)."""

    code = MATCH_OVER


class UnknownOptionError(InvalidOptionError):
    """A rule set names an option that does not exist (``unknown_option``)."""

    code = UNKNOWN_OPTION


class MissingOptionError(InvalidOptionError):
    """A stored rule set lacks an option (``missing_option``)."""

    code = MISSING_OPTION


class UnknownPresetError(InvalidOptionError):
    """No preset of that name (``unknown_preset``)."""

    code = UNKNOWN_PRESET


class UnsupportedVersionError(InvalidOptionError):
    """A stored rule set or record of a version this engine cannot read."""

    code = UNSUPPORTED_VERSION
