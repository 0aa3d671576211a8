"""The site's ASGI application with each one-statement move's marks written down in the folder
``SHENGJI_MOVE_TRACE`` names (``moveparts.marks_written_to``): what the load bench's site serves
with ``--trace``. The site holds no hook for it: ``trace_moves`` wraps, from here, the four
points of a move's path it marks, and the site never imports this.

For the move made at ``seq``: ``planned`` once ``optimistic.plan`` checked it against the kept
state, ``written`` once ``optimistic._write``'s statement answered (the views are encoded
meanwhile), ``views`` when the group's message is ready (``realtime.hand_changed_async``, which
only the one-statement move calls), and ``sent`` with the view's own seq (``seq`` + 1) for each
view frame a socket has written (``TableConsumer._carry_out``'s steps)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proof.load.moveparts import FOLDER_ENV, marks_written_to
from shengji_site.asgi import application

if TYPE_CHECKING:
    from games.consumers import TableConsumer
    from games.feed import Step

Mark = Callable[[str, int, int], None]


def trace_moves(mark: Mark) -> None:
    """Have the site's one-statement moves call ``mark`` at each point of their path (the
    site's modules are imported here, once ``application`` has set Django up)."""
    from games import realtime
    from games.consumers import TableConsumer
    from games.services import optimistic

    optimistic.plan = _traced_plan(optimistic.plan, mark)
    optimistic._write = _traced_write(optimistic._write, mark)
    realtime.hand_changed_async = _traced_views(realtime.hand_changed_async, mark)
    TableConsumer._carry_out = _traced_carry_out(TableConsumer._carry_out, mark)  # type: ignore[method-assign]


def _traced_plan(plan: Callable[..., Any], mark: Mark) -> Callable[..., Any]:
    @wraps(plan)
    def traced(facts: Any, mover: Any, kind: str, cards: str, seq: int) -> Any:
        planned = plan(facts, mover, kind, cards, seq)
        if planned is not None:
            mark("planned", facts.hand_id, seq)
        return planned

    return traced


def _traced_write(write: Callable[..., Awaitable[Any]], mark: Mark) -> Callable[..., Any]:
    @wraps(write)
    async def traced(planned: Any, mover: Any, table_id: int) -> Any:
        written = await write(planned, mover, table_id)
        if written is not None:
            mark("written", planned.facts.hand_id, planned.facts.seq)
        return written

    return traced


def _traced_views(send: Callable[..., Awaitable[None]], mark: Mark) -> Callable[..., Any]:
    @wraps(send)
    async def traced(table_id: int, message: dict[str, Any]) -> None:
        mark("views", message["hand"], message["seq"] - 1)
        await send(table_id, message)

    return traced


def _traced_carry_out(carry_out: Callable[..., Awaitable[None]], mark: Mark) -> Callable[..., Any]:
    """The steps handed on one by one: the next is asked for once the last is carried out, so
    a view frame is marked ``sent`` when the socket has written it."""

    from games.feed import SendView

    def marked(steps: Iterator[Step]) -> Iterator[Step]:
        for step in steps:
            yield step
            if isinstance(step, SendView):
                mark("sent", step.event["hand"], step.event["seq"])

    @wraps(carry_out)
    async def traced(consumer: TableConsumer, steps: Iterator[Step]) -> None:
        await carry_out(consumer, marked(steps))

    return traced


trace_moves(marks_written_to(Path(os.environ[FOLDER_ENV])))

__all__ = ["application", "trace_moves"]
