"""A player's move from a table socket (a bid, 找朋友's calls, a bury, a play), whichever path it
takes: the one statement on the event loop (optimistic.py) when this process knows the hand and
the move is one for it, else the locking path (``hands.table_act``) in a database thread.
(Not to be confused with ``_moves``: what every change of a hand goes through, whoever made it.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from accounts.models import User
from games.services.hands import table_act
from games.services.optimistic import Mover, move_by_statement

# The caller's way to run a service with its keyword arguments in a database thread (a
# socket's ``_db``, which checks the socket's session in the same trip).
InThread = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class MoveMade:
    """A move taken. By the one statement: ``views``, the group's message of its views (the
    mover's socket sends its own from it at once: the group's copy comes after the rest of its
    handler), and ``task``, the deadline or wrap-up task left to publish (after the handler:
    the mover's view need not wait for Celery). By the locking path, neither: its views and its
    task leave on its commit."""

    views: dict[str, Any] | None = None
    task: Callable[[], Awaitable[None]] | None = None


async def move(
    *,
    table_id: int,
    user: User,
    mover: Mover | None,
    kind: str,
    cards: str,
    seq: int,
    in_thread: InThread,
) -> MoveMade:
    """The user's ``kind`` of ``cards`` in the table's hand, made on the view numbered
    ``seq``: by the one statement if ``mover`` (the user's session as last checked in full) is
    given and the statement takes it, else by the locking path through ``in_thread``, which
    decides with fresh rows and raises the refusal (``ApplicationError``)."""
    if mover is not None:
        moved = await move_by_statement(
            table_id=table_id, mover=mover, kind=kind, cards=cards, seq=seq
        )
        if moved is not None:
            return MoveMade(moved.message, moved.send_task if moved.task_due else None)
    await in_thread(table_act, table_id=table_id, user=user, kind=kind, cards=cards, seq=seq)
    return MoveMade()
