"""Errors at the service edge: a stable code the client branches on, and a readable message."""

from __future__ import annotations

from games.engine import ShengjiError, action_reason_text, reason_text

_MESSAGES = {
    "not_found": "no such table or hand",
    "not_seated": "you are not seated at this table",
    "seat_taken": "that seat is taken",
    "already_seated": "you already have a seat at this table",
    "insufficient_balance": "your table points are below this table's minimum",
    "table_closed": "this table is closed",
    "hand_in_progress": "a hand is in progress",
    "no_hand": "no hand is in progress",
    "stale_seq": "the table has moved on since that view: look again",
    "bad_message": "that message could not be read",
    "unknown_type": "unknown message type",
    "rate_limited": "too many messages: slow down",
    "chat_too_long": "chat lines are at most 200 characters",
    "chat_empty": "an empty chat line",
    "login_required": "log in to do that",
    "ranked_no_bots": "bots cannot sit at ranked tables",
    "invalid_stake": "the stake must be a whole number from 1 to 100000",
    "invalid_preset": "unknown rule preset",
    "invalid_seat": "seats are 0 to 3",
    "not_allowed": "you may not do that",
}


class ApplicationError(Exception):
    """A refused request. ``code`` is stable; ``message`` is for people."""

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(message or _MESSAGES.get(code, code))
        self.code = code
        self.message = message or _MESSAGES.get(code, code)

    @classmethod
    def from_engine(cls, error: ShengjiError) -> ApplicationError:
        code = error.code
        text = action_reason_text(code)
        if text == code:
            text = reason_text(code)
        return cls(code, str(error) or text)

    def as_message(self) -> dict[str, str]:
        return {"type": "error", "code": self.code, "message": self.message}
