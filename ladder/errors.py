"""Errors as data at the service edge: the site's one ApplicationError (games/errors.py), named
here too for accounts and the ladder."""

from __future__ import annotations

from games.errors import ApplicationError, validation_message

__all__ = ["ApplicationError", "validation_message"]
