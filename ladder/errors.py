"""Errors as data at the service edge: a stable code the client branches on, a readable message,
and the fields that give it context (STYLE.md, Zulip)."""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """A refused request: `code` is stable (clients and tests branch on it), `message` is for
    people, `fields` give the context."""

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.fields}

    def __repr__(self) -> str:
        return f"ApplicationError({self.code!r}, {self.message!r})"
