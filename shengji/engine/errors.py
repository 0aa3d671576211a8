"""The engine's one error family and its stable reason codes.

Every error is a ``ShengjiError`` (a ``ValueError``) with a ``code`` that clients branch on;
the message is for people. Reason codes returned by the checks are the plain strings below.
"""

from __future__ import annotations

# Reason codes returned by follow_error / lead_error and carried by IllegalPlayError.
WRONG_COUNT = "wrong_count"
CARDS_NOT_IN_HAND = "cards_not_in_hand"
MUST_FOLLOW_SUIT = "must_follow_suit"
MUST_FOLLOW_TRACTOR = "must_follow_tractor"
MUST_FOLLOW_PAIR = "must_follow_pair"
EMPTY_PLAY = "empty_play"
LEAD_MIXED_SUITS = "lead_mixed_suits"
THROW_REJECTED = "throw_rejected"

REASON_CODES: tuple[str, ...] = (
    WRONG_COUNT,
    CARDS_NOT_IN_HAND,
    MUST_FOLLOW_SUIT,
    MUST_FOLLOW_TRACTOR,
    MUST_FOLLOW_PAIR,
    EMPTY_PLAY,
    LEAD_MIXED_SUITS,
    THROW_REJECTED,
)

_REASON_TEXT = {
    WRONG_COUNT: "play as many cards as the lead",
    CARDS_NOT_IN_HAND: "those cards are not in your hand",
    MUST_FOLLOW_SUIT: "play as many cards of the led suit as you hold",
    MUST_FOLLOW_TRACTOR: "you hold a tractor of the led suit and must play it",
    MUST_FOLLOW_PAIR: "you hold pairs of the led suit and must play them",
    EMPTY_PLAY: "a play needs at least one card",
    LEAD_MIXED_SUITS: "a lead must be all of one suit, or all trump",
    THROW_REJECTED: "the throw does not stand: lead again",
}


def reason_text(code: str) -> str:
    """A readable sentence for a reason code (the code itself if unknown)."""
    return _REASON_TEXT.get(code, code)


class ShengjiError(ValueError):
    """Base of every engine error; ``code`` is stable, the message is not."""

    code = "shengji_error"


class InvalidNotationError(ShengjiError):
    """Card text that does not parse; ``token`` is the offending piece of text."""

    code = "invalid_notation"

    def __init__(self, token: str, text: str) -> None:
        super().__init__(f"invalid card {token!r} in {text!r}")
        self.token = token
        self.text = text


class InvalidCardError(ShengjiError):
    """A card id outside 0..53."""

    code = "invalid_card"


class InvalidTrumpError(ShengjiError):
    """A trump context with an unknown level rank or trump suit."""

    code = "invalid_trump"


class InvalidOptionError(ShengjiError):
    """An unknown value for a rule option (RULES-SPEC.md §8)."""

    code = "invalid_option"


class InvalidPointsError(ShengjiError):
    """A point total that cannot occur (negative)."""

    code = "invalid_points"


class IllegalPlayError(ShengjiError):
    """A lead or follow the rules refuse; ``code`` is one of the reason codes above."""

    def __init__(self, code: str, detail: str = "") -> None:
        message = reason_text(code) + (f": {detail}" if detail else "")
        super().__init__(message)
        self.code = code
        self.detail = detail
