"""A socket's ``state`` read (issue 19): the table with its matches so far, its seats with their
users' names, the hand with its match's number, and the chat in four statements written out
(the log too when this process does not hold the hand's state), and the same frame as the ORM
would give: the reader's seat, the per-table numbering, a spectator's view, the names, the
away marks, the chat lines with their params."""

from __future__ import annotations

import orjson
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.handstate import load_state
from games.models import ChatLine, Hand, Match, Seat, Table
from tests.games.helpers import make_table, make_users, seat_all

pytestmark = pytest.mark.django_db


def test_a_seated_players_state_takes_four_statements() -> None:
    users = make_users(4, "sr")
    table = make_table(users[0], preset_name="ranked")
    hand = seat_all(table, users)
    load_state(hand)  # this process holds the hand's state, as a server does after its moves
    with CaptureQueriesContext(connection) as queries:
        found = selectors.presence_and_state(table_id=table.pk, user=users[2])
    assert found is not None
    presence, state = found
    assert len(queries) == 4, [q["sql"] for q in queries]
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


def test_the_written_out_reads_give_what_the_orm_gives() -> None:
    users = make_users(4, "wo")
    users[1].display_name = "小明"
    users[1].save(update_fields=["display_name"])
    table = make_table(users[0], preset_name="ranked")
    hand = seat_all(table, users)
    services.chat_post(table_id=table.pk, user=users[1], text="你好")
    services.seat_disconnected(channel_name="nobody")  # no such socket: nothing changes
    Seat.objects.filter(table=table, index=3).update(disconnected_at=hand.deal_started_at)
    ChatLine.objects.create(table=table, system=True, code="back", params=["x", 2], text="x")
    change = selectors.table_change(table_id=table.pk)
    assert change is not None
    orm_table = Table.objects.get(pk=table.pk)
    orm_seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    expected_seats = [
        {
            "seat": s.index,
            "user": str(s.user),
            "username": s.user.username,
            "ready": s.ready,
            "connected": s.connected,
            "bot": s.bot,
            "shows_hand": s.show_hand_to_spectators,
            "away_until": selectors.away_until(s),
            "autopilot": s.autopilot,
            "auto_ready": s.auto_ready,
        }
        for s in orm_seats
        if s.user is not None
    ]
    assert orjson.loads(change["seats"]) == expected_seats
    assert expected_seats[1]["user"] == "小明" and expected_seats[3]["away_until"] is not None
    lines = list(ChatLine.objects.filter(table=table).select_related("user").order_by("pk"))
    assert orjson.loads(change["chat"]) == [
        {
            "user": None if line.user is None else str(line.user),
            "text": line.text,
            "system": line.system,
            "code": line.code,
            "params": line.params,
            "at": line.created_at.isoformat(),
        }
        for line in lines[-selectors.CHAT_BACKLOG :]
    ]
    assert orjson.loads(change["chat"])[-1]["params"] == ["x", 2]
    head = orjson.loads(change["table"])
    orm_hand = Hand.objects.get(pk=hand.pk)
    assert head == {
        **selectors.table_summary(orm_table),
        "match_number": 1,
        "rev": orm_table.rev,
        "escape_cost": selectors.hand_escape_cost(orm_table, orm_hand, orm_seats),
        "quick_match_offer": False,
        "ended_by_escape": False,
    }
    assert head["escape_cost"] is not None and head["escape_cost"] > 0
    assert change["hand"] == [hand.pk, Hand.objects.get(pk=hand.pk).seq]
    assert change["rev"] == orm_table.rev


def test_a_void_hand_is_not_the_current_one_and_matches_are_numbered_per_table() -> None:
    users = make_users(4, "vh")
    table = make_table(users[0], preset_name="ranked")
    hand = seat_all(table, users)
    Match.objects.create(table=table, ruleset=hand.ruleset, levels=["2", "2"], players=[])
    Hand.objects.filter(pk=hand.pk).update(status=Hand.Status.VOID)
    read = selectors.table_read(table.pk)
    assert read is not None
    assert read.hand is None and read.hand_match == 0 and read.matches == 2
    Hand.objects.filter(pk=hand.pk).update(status=Hand.Status.PLAYING)
    read = selectors.table_read(table.pk)
    assert read is not None and read.hand is not None
    assert (read.hand.pk, read.hand_match, read.matches) == (hand.pk, 1, 2)
    assert selectors.table_read(10**9) is None
