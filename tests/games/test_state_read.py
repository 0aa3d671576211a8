"""A socket's ``state`` read (issue 19): the table, its seats, the hand, its match's number and
the chat in five queries (the log too when this process does not hold the hand's state), and
the same frame as before: the reader's seat, the per-table numbering, a spectator's view."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.handstate import load_state
from games.models import Seat
from tests.games.helpers import make_table, make_users, seat_all

pytestmark = pytest.mark.django_db


def test_a_seated_players_state_takes_five_queries() -> None:
    users = make_users(4, "sr")
    table = make_table(users[0], preset_name="ranked")
    hand = seat_all(table, users)
    load_state(hand)  # this process holds the hand's state, as a server does after its moves
    with CaptureQueriesContext(connection) as queries:
        found = selectors.presence_and_state(table_id=table.pk, user=users[2])
    assert found is not None
    presence, state = found
    assert len(queries) == 5, [q["sql"] for q in queries]
    assert presence.seat == 2 and state["you"] == {"seat": 2, "watching": None}
    assert state["hand"]["view"]["seat"] == 2 and "hand" in state["hand"]["view"]
    assert state["table"]["match_number"] == 1 and state["hand"]["match_number"] == 1
    assert [s["username"] for s in state["seats"]] == [u.username for u in users]


def test_a_spectator_sees_a_watched_hand_only_when_its_player_allows_it() -> None:
    users = make_users(5, "sw")
    table = make_table(users[0], preset_name="ranked")
    seat_all(table, users[:4])
    watcher = users[4]
    found = selectors.presence_and_state(table_id=table.pk, user=watcher, watching=1)
    assert found is not None
    assert "hand" not in found[1]["hand"]["view"]  # the public view
    services.seat_show_hand(table_id=table.pk, user=users[1], allow=True)
    found = selectors.presence_and_state(table_id=table.pk, user=watcher, watching=1)
    assert found is not None
    assert found[1]["hand"]["view"]["seat"] == 1 and "hand" in found[1]["hand"]["view"]
    assert Seat.objects.get(table=table, index=1).show_hand_to_spectators


def test_the_match_numbers_count_this_tables_matches_only() -> None:
    users = make_users(4, "mn")
    other = make_table(users[0], preset_name="ranked")  # a match elsewhere first
    seat_all(other, users)
    services.hand_leave(hand_id=other.matches.get().hands.get().pk, user=users[0])
    more = make_users(4, "mn2")
    table = make_table(more[0], preset_name="ranked")
    seat_all(table, more)
    state = selectors.table_state_for(presence=selectors.Presence(table.pk, 0, None))
    assert state["table"]["match_number"] == 1 and state["hand"]["match_number"] == 1
    assert state["hand"]["number"] == 1
