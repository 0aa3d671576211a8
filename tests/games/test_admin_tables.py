"""The admin of live tables: live state shown, "close table" (the hand void, no points move) and
"remove a player" (not an escape) through the services and logged; the move log read-only."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.models import User
from games import services
from games.models import Action, AdminLog, ChatLine, Hand, HandPlayer, Seat, Table
from ladder.models import HandSettlement, LedgerEntry
from tests.games.helpers import deal_and_close, fresh, make_table, make_users, seat_all
from tests.https import HTTPS

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def boss() -> User:
    return User.objects.create_superuser("boss", "boss@example.com", "pw-long-enough-1")


@pytest.fixture
def client(boss: User) -> Client:
    client = Client(**HTTPS)
    client.force_login(boss)
    return client


def playing_table() -> tuple[Table, Hand, list[User]]:
    users = make_users()
    table = make_table(users[0])
    hand = deal_and_close(seat_all(table, users))
    return table, hand, users


def test_the_table_list_shows_the_live_state(client: Client) -> None:
    table, hand, users = playing_table()
    idle = make_table(users[0], ranked=False, preset_name="seed000")
    listing = client.get("/admin/games/table/").content.decode()
    assert table.name in listing and "playing" in listing
    assert f"East: {users[0]}" in listing and f"North: {users[3]}" in listing  # by compass
    assert hand.snapshot is not None
    assert hand.snapshot["phase"] in listing  # burying, after the deal and the bid window
    assert f'<td class="field-hand_seq">{hand.seq}</td>' in listing
    detail = client.get(f"/admin/games/table/{table.pk}/change/").content.decode()
    assert f"/admin/games/hand/{hand.pk}/change/" in detail
    assert "<dt>attackers&#x27; points</dt>" in detail  # the snapshot's keys, in words
    # ... and its values: the trump and level as players say them, the seat to act by compass.
    trump = hand.snapshot["trump"]
    suit = {"S": "spades", "H": "hearts", "C": "clubs", "D": "diamonds"}.get(trump["suit"])
    level = "10" if trump["level"] == "T" else trump["level"]
    assert f"<dd>{suit or 'no trump'} · level {level}</dd>" in detail
    assert "{&#x27;suit&#x27;" not in detail
    compass = ["East", "South", "West", "North"][hand.snapshot["to_act"]]
    assert f"<dt>to act</dt><dd>{compass}</dd>" in detail
    chinese = client.get(f"/admin/games/table/{table.pk}/change/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert f"打{level}" in chinese.content.decode()
    assert f"/admin/games/table/{table.pk}/seats/0/remove/" in detail
    assert client.get(f"/admin/games/table/{idle.pk}/change/").status_code == 200
    # The seed deals every card: not shown while the hand is played.
    hand_page = client.get(f"/admin/games/hand/{hand.pk}/change/").content.decode()
    assert "field-seed" not in hand_page and "field-seq" in hand_page


def test_close_table_asks_a_reason_then_voids_the_hand_and_logs_it(
    client: Client, boss: User
) -> None:
    table, hand, _users = playing_table()
    ask = client.post(
        "/admin/games/table/", {"action": "close_tables", ACTION_CHECKBOX_NAME: [table.pk]}
    )
    assert ask.status_code == 200 and b'name="reason"' in ask.content
    assert fresh(hand).status == Hand.Status.PLAYING
    done = client.post(
        "/admin/games/table/",
        {"action": "close_tables", ACTION_CHECKBOX_NAME: [table.pk], "apply": "1",
         "reason": "cheating suspected"},
    )  # fmt: skip
    assert done.status_code == 302

    table.refresh_from_db()
    hand = fresh(hand)
    assert table.status == Table.Status.CLOSED
    assert hand.result is not None
    assert hand.status == Hand.Status.VOID and hand.result["outcome"] == "void"
    assert hand.deadline is None and hand.match.ended_at is not None
    assert not LedgerEntry.objects.filter(hand=hand).exists()  # no points move
    assert not HandSettlement.objects.filter(hand=hand).exists()
    assert all(s.user is None and not s.bot for s in table.seats.all())
    log = AdminLog.objects.get()
    assert (log.actor, log.table, log.action) == (boss, table, "table_close")
    assert log.detail == {"reason": "cheating suspected", "void_hand": hand.pk}
    assert LogEntry.objects.filter(object_id=str(table.pk)).exists()  # Django's history too
    # The admin log is shown, read-only.
    assert "table_close" in client.get("/admin/games/adminlog/").content.decode()
    assert client.get("/admin/games/adminlog/add/").status_code == 403
    assert client.get(f"/admin/games/adminlog/{log.pk}/delete/").status_code == 403


def test_a_close_without_a_reason_closes_nothing(client: Client) -> None:
    table, hand, _users = playing_table()
    again = client.post(
        "/admin/games/table/",
        {"action": "close_tables", ACTION_CHECKBOX_NAME: [table.pk], "apply": "1", "reason": ""},
    )
    assert again.status_code == 200 and b"errorlist" in again.content
    assert fresh(hand).status == Hand.Status.PLAYING and not AdminLog.objects.exists()


def test_remove_a_player_mid_hand_is_not_an_escape(client: Client, boss: User) -> None:
    table, hand, users = playing_table()
    url = f"/admin/games/table/{table.pk}/seats/2/remove/"
    form = client.get(url)
    assert form.status_code == 200 and str(users[2]) in form.content.decode()
    done = client.post(url, {"reason": "abusive chat"})
    assert done.status_code == 302 and done["Location"] == f"/admin/games/table/{table.pk}/change/"
    seat = Seat.objects.get(table=table, index=2)
    assert seat.user is None and seat.bot  # the bot finishes the hand for the seat
    assert fresh(hand).status == Hand.Status.PLAYING
    assert not HandPlayer.objects.get(hand=hand, seat=2).escaped
    assert HandPlayer.objects.get(hand=hand, seat=2).user == users[2]  # settled as if present
    log = AdminLog.objects.get()
    assert (log.actor, log.action, log.detail) == (
        boss, "seat_remove", {"seat": 2, "user": users[2].pk, "reason": "abusive chat"},
    )  # fmt: skip


def test_remove_players_from_the_seat_list_between_hands(client: Client) -> None:
    users = make_users(2)
    table = make_table(users[0])
    services.seat_take(table_id=table.pk, user=users[0], index=0)
    seats = list(Seat.objects.filter(table=table, index__in=[0, 1]).order_by("index"))
    done = client.post(
        "/admin/games/seat/",
        {"action": "remove_players", ACTION_CHECKBOX_NAME: [s.pk for s in seats], "apply": "1",
         "reason": "idle"},
        follow=True,
    )  # fmt: skip
    page = done.content.decode()
    assert "nobody sits there (not_seated)" in page  # the empty seat is refused, with its code
    assert f"removed {users[0]} from seat 0" in page
    seat = Seat.objects.get(table=table, index=0)
    assert seat.user is None and not seat.bot
    assert list(AdminLog.objects.values_list("action", flat=True)) == ["seat_remove"]


def test_hands_and_the_move_log_are_read_only_and_chat_is_readable(client: Client) -> None:
    table, hand, users = playing_table()
    services.chat_post(table_id=table.pk, user=users[1], text="加油")
    action = Action.objects.filter(hand=hand).first()
    assert action is not None
    assert client.get("/admin/games/action/").status_code == 200
    assert client.get("/admin/games/action/add/").status_code == 403
    assert client.post(f"/admin/games/action/{action.pk}/change/", {"text": "x"}).status_code == 403
    assert client.get(f"/admin/games/action/{action.pk}/delete/").status_code == 403
    listing = client.get("/admin/games/action/").content.decode()
    assert "delete_selected" not in listing and 'name="_selected_action"' not in listing
    assert client.get("/admin/games/hand/add/").status_code == 403
    assert client.get(f"/admin/games/hand/{hand.pk}/delete/").status_code == 403
    assert "加油" in client.get("/admin/games/chatline/").content.decode()
    line = ChatLine.objects.get(text="加油")
    assert client.get(f"/admin/games/chatline/{line.pk}/change/").status_code == 200
    assert client.post(f"/admin/games/chatline/{line.pk}/change/", {"text": "x"}).status_code == 403


def test_staff_who_may_only_look_get_no_actions(client: Client) -> None:
    table, hand, _ = playing_table()
    viewer = User.objects.create_user("looker", password="pw-long-enough-1", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_table"))
    looker = Client(**HTTPS)
    looker.force_login(viewer)
    listing = looker.get("/admin/games/table/")
    assert listing.status_code == 200 and b"close_tables" not in listing.content
    looker.post(
        "/admin/games/table/",
        {"action": "close_tables", ACTION_CHECKBOX_NAME: [table.pk], "apply": "1", "reason": "x"},
    )
    assert fresh(hand).status == Hand.Status.PLAYING
    assert looker.get(f"/admin/games/table/{table.pk}/seats/0/remove/").status_code == 403
