"""The order of what one table socket sends (docs/PROTOCOL.md, "Server → client (table
socket)"): which change this socket was last sent, views that came before a change they follow
(a gap, by their ``prev``), views that came while a ``state`` was being read, and when to give
up on a missing change and send a fresh ``state`` instead.

No I/O and nothing of Channels or Django here: the socket (``games.consumers.TableConsumer``)
hands each event to its ``TableFeed`` and carries out the steps it yields, in order: send a view
frame (``SendView``), send a ``state`` made from a table change (``SendState``), start or stop
the wait for a missing change (``WAIT``, ``STOP_WAIT``: a timer of ``GAP_WAIT_S``, then
``wait_over``), read and send a fresh ``state`` (``RESYNC``). A step that sends is yielded
before the feed counts it sent: the socket resumes the feed once the frame is written, so the
feed's position never runs ahead of the socket's.

The events are the table group's messages (games/realtime.py): a change's views
(``hand_view_message``: ``hand``, ``seq``, ``prev``) and a table's change
(``selectors.table_change``: ``rev``, ``hand``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

# A view that skips a change waits this long for it before the socket asks for a state: two
# processes' publishes of consecutive changes can reach a socket in the wrong order.
GAP_WAIT_S = 1.0

Event = dict[str, Any]
Position = tuple[int, int]  # (hand, seq)
NOWHERE: Position = (-1, -1)  # no hand
# The one view frame of a change the socket may see, or None (not this socket's any more).
FrameOf = Callable[[Event], str | None]


@dataclass(frozen=True, slots=True)
class SendView:
    """Send ``frame``, this socket's view of the change ``event``."""

    event: Event
    frame: str


@dataclass(frozen=True, slots=True)
class SendState:
    """Send the ``state`` the socket makes from the table's ``change``, with no read."""

    change: Event


class Signal(Enum):
    WAIT = "wait"  # wait GAP_WAIT_S for a missing change, then call ``wait_over``
    STOP_WAIT = "stop wait"  # the wait is no longer needed
    RESYNC = "resync"  # read a fresh state and send it (``state_read``, ``held_views``)


WAIT, STOP_WAIT, RESYNC = Signal.WAIT, Signal.STOP_WAIT, Signal.RESYNC
Step = SendView | SendState | Signal


def position_of(event: Event) -> Position:
    return event["hand"], event["seq"]


def change_position(change: Event) -> Position:
    """Where a table change's hand stands: (hand, seq), or ``NOWHERE`` without a hand."""
    hand = change["hand"]
    return NOWHERE if hand is None else (hand[0], hand[1])


class TableFeed:
    """One table socket's order of frames. ``sent_at``: the (hand, seq) of the last state or
    view sent (a ping reports it); ``state_at``: of the last state; ``table_rev``: the table's
    rev as of the last state."""

    def __init__(self) -> None:
        self.sent_at: Position = NOWHERE
        self.state_at: Position = NOWHERE
        self.table_rev = -1
        self.early: list[Event] = []  # views that came before a change they follow
        self.waiting = False  # the wait for that change is on (``WAIT`` yielded)
        self.held: list[Event] | None = None  # views that came during a state read; None: none

    @property
    def reading(self) -> bool:
        """A state is being read: it may be older than a change that comes meanwhile."""
        return self.held is not None

    # --- a change's views ----------------------------------------------------------------

    def view(self, event: Event, frame_of: FrameOf) -> Iterator[Step]:
        """A change's views from the table's group: dropped when this socket was sent that
        hand at that seq or later (the mover's own view, ``own_view``; a state read since:
        the client would drop it); held while a state is read; else forwarded."""
        if self._sent_already(event):
            return
        if self.held is not None:
            self.held.append(event)
            return
        yield from self._forward(event, frame_of)

    def own_view(self, event: Event, frame_of: FrameOf) -> Iterator[Step]:
        """The mover's own view of its one-statement move, forwarded at once (the group's copy
        comes after the rest of the mover's handler, and ``view`` then drops it), unless a
        state is being read (the group's copy is held then, as every view)."""
        if self.held is None:
            yield from self._forward(event, frame_of)

    def _sent_already(self, event: Event) -> bool:
        hand, seq = self.sent_at
        return bool(event["hand"] == hand and event["seq"] <= seq)

    def _forward(self, event: Event, frame_of: FrameOf) -> Iterator[Step]:
        """Send the view this socket may see, unless it came before a change it follows: it
        waits for that change then (it may only be late: another process published it a
        little after this one), at most ``GAP_WAIT_S`` (``wait_over``)."""
        frame = frame_of(event)
        if frame is None:
            return
        if self._missed_before(event):
            self.early.append(event)
            if not self.waiting:
                self.waiting = True
                yield WAIT
            return
        yield SendView(event, frame)
        self._sent(event)
        if self.early:
            yield from self._early_that_follow(frame_of)

    def _sent(self, event: Event) -> None:
        self.sent_at = max(self.sent_at, position_of(event))

    def _missed_before(self, event: Event) -> bool:
        """Whether this socket has not had a change before this one: the view is of the hand
        the socket was last sent, newer, and its change did not start at the seq the socket
        was last sent (``prev``, the seq before it: a change of the deal logs several draws,
        so seq + 1 cannot tell). A view of another hand, or one older than what was sent (a
        late copy: the client drops it), goes on."""
        hand, seq = self.sent_at
        prev = event.get("prev")
        if prev is None or event["hand"] != hand:
            return False
        return bool(event["seq"] > seq and prev != seq)

    def _early_that_follow(self, frame_of: FrameOf) -> Iterator[Step]:
        """The kept views that follow what this socket was sent now, in order; those it holds
        already are dropped. The wait stops once none is left."""
        while self.early:
            self.early = [e for e in self.early if position_of(e) > self.sent_at]
            follows = next((e for e in self.early if not self._missed_before(e)), None)
            if follows is None:
                break
            self.early.remove(follows)
            frame = frame_of(follows)
            if frame is not None:
                yield SendView(follows, frame)
                self._sent(follows)
        if not self.early and self.waiting:
            self.waiting = False
            yield STOP_WAIT

    def wait_over(self) -> bool:
        """The wait for a missing change has run out (``GAP_WAIT_S``): True when views still
        wait for it. It was lost (e.g. by Redis): they are dropped, and the socket sends a
        fresh state instead, which holds them all."""
        self.waiting = False
        if not self.early:
            return False
        self.early.clear()
        return True

    # --- states --------------------------------------------------------------------------

    def table_change(self, change: Event | None, frame_of: FrameOf) -> Iterator[Step]:
        """A table's change: a state made from it, with no read of its own; nothing when this
        socket has the table's rev already. A read instead (``RESYNC``) when one is under way
        (it may be older than the change), when the table is gone (None), or when the change's
        hand is older than the one this socket was sent (a late copy from another process with
        a hand since started)."""
        if change is None or self.held is not None:
            yield RESYNC
            return
        if change["rev"] <= self.table_rev:
            return
        at = change_position(change)
        if at[0] < self.sent_at[0]:
            yield RESYNC
            return
        self.table_rev = change["rev"]
        yield SendState(change)
        # The client keeps a view newer than a state's hand (docs/PROTOCOL.md): so does this.
        self.state_at = self.sent_at = max(self.sent_at, at)
        yield from self._early_that_follow(frame_of)

    def read_begins(self) -> None:
        """A state is being read: views that come meanwhile are held (``held_views``)."""
        self.held = []

    def read_ends(self) -> None:
        self.held = None

    def state_read(self, at: Position, rev: int) -> None:
        """A state read from the database is being sent: its hand at ``at``, its table at
        ``rev``. The socket's position is the state's, whatever was sent before."""
        self.table_rev = max(self.table_rev, rev)
        self.state_at = self.sent_at = at

    def held_views(self, frame_of: FrameOf) -> Iterator[Step]:
        """After a state read: the kept views that follow it, then those that came while it
        was read, in order, but those it holds. Views that come meanwhile are held too,
        behind these."""
        held = self.held
        assert held is not None
        yield from self._early_that_follow(frame_of)
        while held:
            event = held.pop(0)
            if position_of(event) > self.state_at:
                yield from self._forward(event, frame_of)
