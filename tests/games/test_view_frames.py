"""A change's view frames as the group message carries them (games/realtime.py): encoded once
for every socket, and, for the one-statement move, before the deadline is known."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import orjson
import pytest

from games.realtime import encode_views, hand_view_message, views_message
from shengji.engine import HandState, RuleSet, view_for, view_public
from shengji.engine.hand import new_hand


def a_hand() -> HandState:
    return new_hand(RuleSet(), 7, dealer=0)


@pytest.mark.parametrize(
    "deadline",
    [
        None,
        datetime(2026, 12, 5, 3, 4, 5, 678901, tzinfo=UTC),
        datetime(2026, 12, 5, 11, tzinfo=timezone(timedelta(hours=8))),
    ],
)
def test_frames_encoded_before_the_deadline_are_those_encoded_with_it(
    deadline: datetime | None,
) -> None:
    state = a_hand()
    views = [view_for(state, seat) for seat in range(state.players)]
    public = view_public(state)
    due = None if deadline is None else deadline.astimezone(UTC).isoformat()

    message = views_message(
        encode_views(41, 9, views, public), [1, 2, 3, 4], [True] * 4, prev=8, deadline=deadline
    )

    assert message == hand_view_message(
        41, 9, views, public, [1, 2, 3, 4], [True] * 4, prev=8, deadline=deadline
    )
    for seat, frame in enumerate(message["frames"]):
        assert orjson.loads(frame) == {
            "type": "view",
            "hand": 41,
            "seq": 9,
            "view": views[seat],
            "deadline": due,
        }
    assert orjson.loads(message["public"])["view"] == public
    assert orjson.loads(message["public"])["deadline"] == due
