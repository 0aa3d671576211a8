"""A table socket's order of frames (games/feed.py, ``TableFeed``), decided without a socket:
gaps found by ``prev``, the mover's own view and its group copy, late copies, views held while
a state is read, table changes, and the state sent once a missing change is given up on."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games.feed import (
    NOWHERE,
    RESYNC,
    STOP_WAIT,
    WAIT,
    SendState,
    SendView,
    Step,
    TableFeed,
)

HAND = 7


def view(seq: int, prev: int | None, hand: int = HAND) -> dict[str, Any]:
    return {"type": "hand.view", "hand": hand, "seq": seq, "prev": prev}


def frame_of(event: dict[str, Any]) -> str | None:
    return f"{event['hand']}:{event['seq']}"


def not_mine(event: dict[str, Any]) -> str | None:
    return None


def told(steps: Iterable[Step]) -> list[Any]:
    """The steps, a view sent shown as its (hand, seq)."""
    return [
        (s.event["hand"], s.event["seq"]) if isinstance(s, SendView) else s for s in list(steps)
    ]


def change(rev: int, hand: tuple[int, int] | None) -> dict[str, Any]:
    return {"rev": rev, "hand": None if hand is None else [*hand, "playing"]}


def fed_at(seq: int, hand: int = HAND) -> TableFeed:
    """A feed whose socket was sent a state of ``hand`` at ``seq``."""
    feed = TableFeed()
    feed.state_read((hand, seq), rev=3)
    return feed


def test_views_in_order_are_sent_and_the_position_follows() -> None:
    feed = fed_at(0)
    assert told(feed.view(view(5, 0), frame_of)) == [(HAND, 5)]  # a deal's change: 0 → 5
    assert told(feed.view(view(6, 5), frame_of)) == [(HAND, 6)]
    assert feed.sent_at == (HAND, 6)
    assert feed.state_at == (HAND, 0)


def test_a_view_is_counted_sent_only_once_the_socket_goes_on() -> None:
    feed = fed_at(0)
    steps = feed.view(view(1, 0), frame_of)
    step = next(steps)
    assert isinstance(step, SendView) and step.frame == f"{HAND}:1"
    assert feed.sent_at == (HAND, 0)  # the frame is being written
    assert list(steps) == []
    assert feed.sent_at == (HAND, 1)


def test_the_movers_own_view_is_sent_once_and_its_group_copy_dropped() -> None:
    feed = fed_at(4)
    own = view(5, 4)
    assert told(feed.own_view(own, frame_of)) == [(HAND, 5)]
    assert told(feed.view(dict(own), frame_of)) == []  # the group's copy, after the handler
    assert feed.sent_at == (HAND, 5)


def test_a_late_copy_of_an_older_change_is_dropped() -> None:
    feed = fed_at(0)
    told(feed.view(view(8, 0), frame_of))
    assert told(feed.view(view(6, 5), frame_of)) == []
    assert told(feed.view(view(8, 6), frame_of)) == []
    assert feed.sent_at == (HAND, 8)


def test_a_view_after_a_missing_change_waits_for_it_then_both_go_in_order() -> None:
    feed = fed_at(5)
    assert told(feed.view(view(9, 7), frame_of)) == [WAIT]  # 6 → 7 not had yet
    assert told(feed.view(view(12, 9), frame_of)) == []  # waiting already: no second wait
    assert feed.early and feed.waiting
    assert told(feed.view(view(7, 5), frame_of)) == [(HAND, 7), (HAND, 9), (HAND, 12), STOP_WAIT]
    assert (feed.sent_at, feed.early, feed.waiting) == ((HAND, 12), [], False)


def test_a_missing_change_given_up_on_means_a_fresh_state() -> None:
    feed = fed_at(5)
    told(feed.view(view(9, 7), frame_of))
    assert feed.wait_over()  # the socket reads and sends a state, which holds it all
    assert (feed.early, feed.waiting) == ([], False)
    assert not feed.wait_over()  # nothing waited: nothing to read
    # The state the socket then reads (at 9) is where the next view follows from.
    feed.state_read((HAND, 9), rev=3)
    assert told(feed.view(view(10, 9), frame_of)) == [(HAND, 10)]


def test_a_view_of_another_hand_or_without_prev_is_no_gap() -> None:
    feed = fed_at(30)
    assert told(feed.view(view(3, 1, hand=HAND + 1), frame_of)) == [(HAND + 1, 3)]
    assert told(feed.view(view(9, None, hand=HAND + 1), frame_of)) == [(HAND + 1, 9)]


def test_a_view_this_socket_may_not_see_is_dropped_and_not_counted() -> None:
    feed = fed_at(0)
    assert told(feed.view(view(1, 0), not_mine)) == []
    assert feed.sent_at == (HAND, 0)
    # Kept early, then no longer this socket's when its turn comes: left out, the wait ends.
    feed = fed_at(1)
    assert told(feed.view(view(3, 2), frame_of)) == [WAIT]
    assert told(feed.view(view(2, 1), lambda e: None if e["seq"] == 3 else frame_of(e))) == [
        (HAND, 2),
        STOP_WAIT,
    ]
    assert feed.sent_at == (HAND, 2)


def test_views_during_a_state_read_are_held_and_follow_it_but_those_it_holds() -> None:
    feed = fed_at(0)
    feed.read_begins()
    assert feed.reading
    for seq in (1, 2, 3):
        assert told(feed.view(view(seq, seq - 1), frame_of)) == []
    assert told(feed.own_view(view(4, 3), frame_of)) == []  # its group copy is held instead
    assert told(feed.view(view(4, 3), frame_of)) == []
    feed.state_read((HAND, 2), rev=4)  # the state read holds seq 1 and 2
    assert told(feed.held_views(frame_of)) == [(HAND, 3), (HAND, 4)]
    feed.read_ends()
    assert not feed.reading
    assert told(feed.view(view(5, 4), frame_of)) == [(HAND, 5)]


def test_a_state_newer_than_every_held_view_sends_none_of_them() -> None:
    feed = fed_at(0)
    feed.read_begins()
    for seq in (1, 2):
        told(feed.view(view(seq, seq - 1), frame_of))
    feed.state_read((HAND, 6), rev=4)
    assert told(feed.held_views(frame_of)) == []
    assert feed.sent_at == (HAND, 6)


def test_a_held_view_after_a_missing_change_waits_as_any_other() -> None:
    feed = fed_at(0)
    feed.read_begins()
    told(feed.view(view(9, 8), frame_of))
    feed.state_read((HAND, 5), rev=4)
    assert told(feed.held_views(frame_of)) == [WAIT]
    feed.read_ends()
    assert told(feed.view(view(8, 5), frame_of)) == [(HAND, 8), (HAND, 9), STOP_WAIT]


def test_a_state_read_lets_the_kept_views_that_follow_it_go() -> None:
    feed = fed_at(0)
    told(feed.view(view(9, 8), frame_of))
    feed.read_begins()
    feed.state_read((HAND, 8), rev=4)
    assert told(feed.held_views(frame_of)) == [(HAND, 9), STOP_WAIT]


def test_a_table_change_is_sent_as_a_state_unless_the_socket_has_it() -> None:
    feed = fed_at(4)
    assert told(feed.table_change(change(3, (HAND, 4)), frame_of)) == []  # rev known already
    steps = told(feed.table_change(change(5, (HAND, 6)), frame_of))
    assert steps == [SendState(change(5, (HAND, 6)))]
    assert (feed.table_rev, feed.state_at, feed.sent_at) == (5, (HAND, 6), (HAND, 6))


def test_a_table_change_keeps_a_view_newer_than_its_hand() -> None:
    feed = fed_at(4)
    told(feed.view(view(9, 4), frame_of))
    told(feed.table_change(change(5, (HAND, 6)), frame_of))
    assert feed.sent_at == (HAND, 9)


def test_a_table_change_reads_a_state_when_it_cannot_be_sent_as_it_is() -> None:
    feed = fed_at(4)
    assert told(feed.table_change(None, frame_of)) == [RESYNC]  # the table is gone
    assert told(feed.table_change(change(5, (HAND - 1, 80)), frame_of)) == [RESYNC]  # late copy
    feed.read_begins()
    assert told(feed.table_change(change(6, (HAND, 4)), frame_of)) == [RESYNC]  # a read is on
    assert feed.table_rev == 3


def test_a_table_change_lets_the_kept_views_that_follow_it_go() -> None:
    feed = fed_at(4)
    told(feed.view(view(8, 7), frame_of))
    no_hand = TableFeed()
    assert told(no_hand.table_change(change(1, None), frame_of))[0] == SendState(change(1, None))
    assert no_hand.sent_at == NOWHERE
    assert told(feed.table_change(change(5, (HAND, 7)), frame_of)) == [
        SendState(change(5, (HAND, 7))),
        (HAND, 8),
        STOP_WAIT,
    ]
