"""Ranked quick match: four close players are seated (the hand starts when all four have come
and pressed ready), a far one waits
until the accepted gap has widened (the clock is the queue rows' joined_at), two matchers at
once never seat a player twice, leaving works, and the lobby shows the queue."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from accounts.errors import ApplicationError
from accounts.models import User
from games import matchmaking, services
from games.matchmaking import Waiting, gap_allowed, match_groups, queue_join, queue_match
from games.matchmaking_tasks import quick_match_run
from games.models import Hand, QueueEntry, QuickMatch, Seat, Table
from games.services import db_now
from ladder.models import LadderProfile
from ladder.services import ladder_points_adjust, ladder_profile_open
from tests.games.helpers import make_table, make_users, seat_all
from tests.https import HTTPS, JSON


@pytest.fixture(autouse=True)
def numbers(settings: Any) -> None:
    """The documented defaults, pinned: gap = 3 + 0.1 × seconds waited; stake 50 (one ranked
    hand can take 790 of a seat: the points needed to queue), minimum 100."""
    settings.SHENGJI_QUICK_MATCH_GAP_BASE = 3.0
    settings.SHENGJI_QUICK_MATCH_GAP_PER_S = 0.1
    settings.SHENGJI_QUICK_MATCH_STAKE = 50
    settings.SHENGJI_QUICK_MATCH_MIN_BALANCE = 100
    settings.SHENGJI_QUICK_MATCH_STALE_S = 60
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def no_match_on_join(monkeypatch: pytest.MonkeyPatch) -> None:
    """Joining runs the matcher after its commit; these tests run it themselves."""
    monkeypatch.setattr(matchmaking, "_match_after_join", lambda: None)


def players(ratings: list[float], prefix: str = "q") -> list[User]:
    """Users with a ladder profile (the 1000-point grant) and the given rating ordinals."""
    users = make_users(len(ratings), prefix=prefix)
    for user, rating in zip(users, ratings, strict=True):
        ladder_profile_open(user=user)
        LadderProfile.objects.filter(user=user).update(rating_ordinal=rating)
    return users


def waited(user: User, seconds: float) -> None:
    """Move the player's join back in time: the matcher's clock is the database's."""
    QueueEntry.objects.filter(user=user).update(joined_at=db_now() - timedelta(seconds=seconds))


def seated(user: User) -> list[Seat]:
    return list(Seat.objects.filter(user=user))


# --- the numbers, without a database ---------------------------------------------------------


def test_the_gap_widens_with_the_wait_of_the_longest_waiter() -> None:
    assert gap_allowed(0) == 3.0
    assert gap_allowed(30) == pytest.approx(6.0)
    assert gap_allowed(60) == pytest.approx(9.0)
    assert gap_allowed(-5) == 3.0
    now = datetime(2026, 1, 1, 12, 0)
    old = now - timedelta(seconds=80)  # gap 11
    queue = [
        Waiting(1, 20.0, old),
        Waiting(2, 10.0, now),
        Waiting(3, 10.5, now),
        Waiting(4, 11.0, now),
        Waiting(5, 30.0, now),
    ]
    (group,) = match_groups(queue, now=now)
    assert [p.user_id for p in group.players] == [1, 2, 3, 4]  # the longest waiter first
    assert group.spread == 10.0 and group.gap == pytest.approx(11.0)
    # Without the long wait the same four do not fit.
    assert match_groups([Waiting(w.user_id, w.rating, now) for w in queue], now=now) == []


def test_seats_are_drawn_at_random_whatever_the_ratings() -> None:
    """Partners are not chosen by rating nor join order (tests/games/test_trust2_quickmatch.py
    tries the join order on the database)."""
    now = datetime(2026, 1, 1)
    four = [Waiting(i, r, now) for i, r in enumerate([5.0, 8.0, 6.0, 7.0])]
    orders = {tuple(w.user_id for w in matchmaking.seating(four)) for _ in range(200)}
    assert all(sorted(order) == [0, 1, 2, 3] for order in orders)
    assert len(orders) > 12  # 24 orders are possible; 200 draws miss more than 12 almost never


# --- matching ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_four_close_players_are_seated_ready_at_a_new_ranked_table_and_the_hand_starts() -> None:
    """Seated, not ready: the hand starts once all four have connected and pressed ready (a
    ranked hand never starts with a player away; docs/LADDER.md)."""
    users = players([12.0, 10.0, 13.0, 11.0])
    for user in users:
        queue_join(user=user)
    (record,) = queue_match()

    table = record.table
    assert table is not None and table.ranked and table.preset == "ranked"
    assert matchmaking.quick_match_minimum() == 790
    assert (table.stake, table.min_balance, table.creator) == (50, 100, users[0])
    seats = list(table.seats.order_by("index"))
    assert {s.user for s in seats} == set(users)  # in seats drawn at random
    assert not any(s.ready for s in seats) and not Hand.objects.filter(match__table=table)
    for index, seat in enumerate(seats):
        assert seat.user is not None
        services.seat_connected(table_id=table.pk, user=seat.user, channel_name=f"qm-{index}")
        services.seat_ready(table_id=table.pk, user=seat.user)
    hand = Hand.objects.get(match__table=table)
    assert hand.status == Hand.Status.PLAYING
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    assert not QueueEntry.objects.exists()
    assert record.players == [s.user_id for s in seats]
    rating_of = {u.pk: r for u, r in zip(users, [12.0, 10.0, 13.0, 11.0], strict=True)}
    assert record.ratings == [rating_of[pk] for pk in record.players] and len(record.waits) == 4
    assert queue_match() == []  # nobody left


@pytest.mark.django_db
def test_a_far_player_is_not_seated_until_the_gap_has_widened() -> None:
    far, *close = players([20.0, 10.0, 10.5, 11.0])
    for user in [far, *close]:
        queue_join(user=user)
    assert queue_match() == []  # spread 10 > 3
    waited(far, 60)  # gap 9 < 10
    assert queue_match() == []
    assert QueueEntry.objects.count() == 4
    waited(far, 75)  # gap 10.5 ≥ 10
    (record,) = queue_match()
    assert record.gap == pytest.approx(10.5, abs=0.2)
    assert sorted(record.players) == sorted(u.pk for u in [far, *close])


@pytest.mark.django_db
def test_four_close_players_go_while_a_far_one_keeps_waiting() -> None:
    far, *close = players([40.0, 1.0, 2.0, 3.0, 4.0])
    for user in [far, *close]:
        queue_join(user=user)
    waited(far, 100)  # gap 13: still not enough for a spread of 36
    for user in close:
        waited(user, 5)
    (record,) = queue_match()
    assert far.pk not in record.players
    assert list(QueueEntry.objects.values_list("user", flat=True)) == [far.pk]
    assert not seated(far)


@pytest.mark.django_db
def test_a_player_without_a_rating_counts_as_the_default(settings: Any) -> None:
    settings.SHENGJI_QUICK_MATCH_MIN_BALANCE = 0
    (newcomer,) = make_users(1, prefix="new", bankroll=0)
    assert not LadderProfile.objects.filter(user=newcomer).exists()  # opened (granted) on joining
    entry = queue_join(user=newcomer)
    assert entry.rating == 0.0  # the ordinal of the default rating: mu − 3·sigma = 25 − 25


@pytest.mark.django_db
def test_who_cannot_queue() -> None:
    users = players([0.0] * 5)
    table = make_table(users[0])
    seat_all(table, users[:4])
    with pytest.raises(ApplicationError) as refused:
        queue_join(user=users[0])
    assert refused.value.code == "in_game"
    other = make_table(users[4])
    from games.services import seat_take

    seat_take(table_id=other.pk, user=users[4], index=0)
    with pytest.raises(ApplicationError) as refused:
        queue_join(user=users[4])
    assert refused.value.code == "seated_elsewhere"
    (poor,) = make_users(1, prefix="poor", bankroll=0)
    ladder_points_adjust(user=poor, account="table", amount=-300, reason="test", by=None)
    with pytest.raises(ApplicationError) as refused:
        queue_join(user=poor)  # 700 < 790, what one hand at the quick-match stake can take
    assert refused.value.code == "insufficient_balance"
    assert not QueueEntry.objects.exists()


@pytest.mark.django_db
def test_players_gone_or_seated_meanwhile_are_dropped_from_the_queue() -> None:
    users = players([0.0, 0.0, 0.0, 0.0, 0.0])
    for user in users:
        queue_join(user=user)
    QueueEntry.objects.filter(user=users[0]).update(last_seen=db_now() - timedelta(seconds=61))
    from games.services import seat_take

    seat_take(table_id=make_table(users[4]).pk, user=users[1], index=0)
    assert queue_match() == []  # three left
    assert sorted(QueueEntry.objects.values_list("user", flat=True)) == [
        users[2].pk, users[3].pk, users[4].pk,
    ]  # fmt: skip
    assert QuickMatch.objects.count() == 0


# --- two matchers at once ---------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_matchers_at_once_never_seat_a_player_twice(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, no_match_on_join: None
) -> None:
    users = players([float(i % 3) for i in range(8)])
    for user in users:
        queue_join(user=user)
    locked = matchmaking._locked_queue
    together = threading.Barrier(2, timeout=5)
    seen: list[int] = []

    def lock_then_wait() -> list[Any]:
        rows = locked()
        seen.append(len(rows))
        together.wait()  # both matchers hold what they could lock before either seats anyone
        return rows

    monkeypatch.setattr(matchmaking, "_locked_queue", lock_then_wait)
    made: list[QuickMatch] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            made.extend(queue_match())
        except BaseException as error:  # reported below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert not failures
    for user in users:
        assert len(seated(user)) <= 1, f"{user} seated twice"
    assert sum(seen) == 8  # each row was locked by one matcher and skipped by the other
    monkeypatch.setattr(matchmaking, "_locked_queue", locked)
    made += queue_match()  # whatever was left
    assert len(made) == 2 and Table.objects.count() == 2
    for user in users:
        assert len(seated(user)) == 1  # each exactly once
    matched = [pk for record in made for pk in record.players]
    assert sorted(matched) == sorted(u.pk for u in users)
    assert not QueueEntry.objects.exists()


# --- the queue through the views and the lobby ------------------------------------------------


def login(user: User) -> Client:
    client = Client(**HTTPS)
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_joining_and_leaving_the_queue_through_the_views() -> None:
    (user,) = players([5.0])
    client = login(user)
    done = client.post("/tables/quick/join/", follow=True)
    assert "You are waiting for a ranked match." in done.content.decode()
    assert "Leave the queue" in done.content.decode()
    assert QueueEntry.objects.filter(user=user).exists()
    again = client.post("/tables/quick/join/", **JSON)
    assert again.json()["ok"] is True and QueueEntry.objects.count() == 1  # keeps the place
    status = client.get("/tables/status/").json()["queue"]
    assert status["queued"] is True and status["gap"] >= 3.0 and "size" not in status
    left = client.post("/tables/quick/leave/", follow=True)
    assert "You left the queue." in left.content.decode()
    assert not QueueEntry.objects.exists()
    refused = client.post("/tables/quick/leave/", **JSON)
    assert (refused.status_code, refused.json()["code"]) == (409, "not_queued")
    (poorest,) = make_users(1, prefix="poor", bankroll=0)
    ladder_points_adjust(user=poorest, account="table", amount=-300, reason="test", by=None)
    poor = login(poorest)
    refused_page = poor.post("/tables/quick/join/", follow=True).content.decode()
    assert "(insufficient_balance)" not in refused_page  # the numbers and relief instead
    assert "Quick match needs at least" in refused_page and "daily relief" in refused_page
    assert Client(**HTTPS).post("/tables/quick/join/", **JSON).status_code == 401


@pytest.mark.django_db(transaction=True)
def test_the_fourth_join_seats_the_four_at_once(redis_url: str) -> None:
    users = players([1.0, 2.0, 2.5, 3.0])
    clients = [login(u) for u in users]
    for client in clients[:3]:
        client.post("/tables/quick/join/")  # each join runs the matcher after its commit
    assert QueueEntry.objects.count() == 3 and not QuickMatch.objects.exists()
    response = clients[3].post("/tables/quick/join/", **JSON)
    assert response.json()["message"] == "Matched: your table is ready."
    (record,) = QuickMatch.objects.all()
    assert response.json()["table"] == record.table_id
    status = clients[0].get("/tables/status/").json()["queue"]
    assert status["queued"] is False and status["matched_table"] == record.table_id


@pytest.mark.django_db(transaction=True)
def test_the_join_that_completes_a_group_goes_to_the_table(redis_url: str) -> None:
    """The fourth player's page opens the table itself, not the lobby (the other three are sent
    there by the lobby's status poll)."""
    users = players([1.0, 2.0, 2.5, 3.0])
    clients = [login(u) for u in users]
    for client in clients[:3]:
        assert client.post("/tables/quick/join/")["Location"].startswith("/tables/")
    page = clients[3].post("/tables/quick/join/")
    (record,) = QuickMatch.objects.all()
    assert page.status_code == 302 and page["Location"] == f"/tables/{record.table_id}/"


@pytest.mark.django_db(transaction=True)
def test_a_quick_match_while_seated_goes_back_to_that_table(redis_url: str) -> None:
    """Seated at a table already: 快速匹配 leads back there, as 和电脑练习 does, in the page's
    language; the queue is not joined."""
    (user,) = players([1.0])
    table = make_table(user)
    services.seat_take(table_id=table.pk, user=user, index=2)
    client = login(user)
    page = client.post("/tables/quick/join/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert page.status_code == 302 and page["Location"] == f"/tables/{table.pk}/"
    shown = client.get(page["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "你已经在一张桌上坐下了" in shown
    assert not QueueEntry.objects.exists()
    refused = client.post("/tables/quick/join/", **JSON)
    assert (refused.status_code, refused.json()["code"]) == (409, "seated_elsewhere")


@pytest.mark.django_db
def test_the_lobby_shows_the_expected_wait_but_not_the_queue_size() -> None:
    assert matchmaking.queue_expected_wait() is None
    lobby = Client(**HTTPS).get("/tables/").content.decode()
    assert 'id="queue-size"' not in lobby and "no estimate yet" in lobby
    QuickMatch.objects.create(players=[1, 2, 3, 4], ratings=[0] * 4, waits=[10, 20, 30, 40], gap=3)
    QuickMatch.objects.create(players=[5, 6, 7, 8], ratings=[0] * 4, waits=[50, 60, 70, 80], gap=3)
    assert matchmaking.queue_expected_wait() == 45.0  # the median of the eight waits
    for user in players([0.0, 9.0]):
        queue_join(user=user)
    lobby = Client(**HTTPS).get("/tables/").content.decode()
    assert 'id="queue-size"' not in lobby and "45 s" in lobby
    status = Client(**HTTPS).get("/tables/status/").json()["queue"]
    assert status["expected_wait_s"] == 45.0 and "size" not in status


# --- beat --------------------------------------------------------------------------------------


def test_beat_runs_the_matcher(settings: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["quick-match"]
    assert entry["task"] == quick_match_run.name == "games.matchmaking_tasks.quick_match_run"
    assert entry["schedule"] == settings.SHENGJI_QUICK_MATCH_EVERY_S


@pytest.mark.django_db(transaction=True)
def test_the_matcher_task_runs_on_a_worker(celery_worker: object, no_match_on_join: None) -> None:
    users = players([0.0, 1.0, 20.0, 21.0])
    for user in users:
        queue_join(user=user)
    for user in users:
        waited(user, 200)  # gap 23: all four fit now
    quick_match_run.delay()
    deadline = time.monotonic() + 15
    while not QuickMatch.objects.exists():
        assert time.monotonic() < deadline, "the worker did not match them"
        time.sleep(0.05)
    assert not QueueEntry.objects.exists()
    assert all(len(seated(u)) == 1 for u in users)
