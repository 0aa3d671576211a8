"""Errors as data at the service edge: the site's one ApplicationError (accounts/errors.py, the
lowest floor that needs it), named here too for the ladder; and the core settlement's refusals
given the site as that error."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from accounts.errors import ApplicationError, validation_message
from shengji.settlement import SettlementError

__all__ = ["ApplicationError", "settlement_refusals", "validation_message"]


@contextmanager
def settlement_refusals() -> Iterator[None]:
    """The core's refusals of an outcome or a ruleset (``shengji.settlement.SettlementError``)
    as the site's ApplicationError, with the same code, message and fields."""
    try:
        yield
    except SettlementError as error:
        raise ApplicationError(error.code, error.message, **error.fields) from error
