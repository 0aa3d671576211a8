"""The home page: one click to play (quick match, practice against three bots), what is going on
(tables in play, players online) and the top of the ladder; practice moves nothing, needs no
table points, and a player already seated is sent back to their table (issue 16)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from accounts.errors import ApplicationError
from accounts.models import User
from games import selectors, services
from games.models import ChatLine, Hand, QueueEntry, Seat, Table
from ladder.models import HandSettlement, LedgerEntry, RatingChange
from ladder.selectors import player_balance
from ladder.services import ladder_points_adjust, ladder_profile_open
from tests.games.helpers import logged_in, make_table, make_users, seat_all
from tests.https import HTTPS

PRACTICE = "/tables/practice/"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def broke(name: str) -> User:
    """A player holding 0 table points (the sign-up grant spent)."""
    (user,) = make_users(1, prefix=name, bankroll=0)
    ladder_profile_open(user=user)
    ladder_points_adjust(
        user=user, account="table", amount=-player_balance(user=user), reason="spent", by=None
    )
    assert player_balance(user=user) == 0
    return user


def number(html: str, element_id: str) -> int:
    found = re.search(rf'id="{element_id}">(\d+)<', html)
    assert found is not None, element_id
    return int(found[1])


def practice(client: Client) -> str:
    """One click: the table page it lands on."""
    response = client.post(PRACTICE)
    assert response.status_code == 302
    return str(response["Location"])


@pytest.mark.django_db
def test_the_home_page_offers_both_buttons_the_counts_and_the_top_five() -> None:
    users = make_users(6)
    for rank, user in enumerate(users):
        ladder_points_adjust(user=user, account="title", amount=100 - rank, reason="t", by=None)
    playing = make_table(users[0])
    seat_all(playing, users[:4])  # a table in play
    services.seat_connected(table_id=playing.pk, user=users[0], channel_name="home-socket")
    now = services.db_now()
    QueueEntry.objects.create(user=users[5], rating=0, joined_at=now, last_seen=now)

    html = logged_in(users[4]).get("/").content.decode()

    assert 'action="/tables/quick/join/"' in html and f'action="{PRACTICE}"' in html
    assert "Quick match" in html and "Practice against bots" in html
    assert number(html, "tables-in-play") == 1
    assert number(html, "players-online") == 2  # one live table socket, one waiting
    top = re.findall(r'href="/players/([^/]+)/"', html.split('id="home-top-title"')[1])
    assert top == [u.username for u in users[:5]]  # the best five, best first
    assert 'href="/tables/"' in html and 'href="/ladder/"' in html and 'href="/rules/"' in html


@pytest.mark.django_db
def test_a_visitor_is_sent_to_log_in_and_back_home() -> None:
    html = Client(**HTTPS).get("/").content.decode()
    assert f'action="{PRACTICE}"' not in html and 'action="/tables/quick/join/"' not in html
    # Each button's log-in then does what it says (issue 33); the line's goes back home.
    assert f'href="/accounts/login/?next={PRACTICE}"' in html
    assert 'href="/accounts/login/?next=/tables/quick/join/"' in html
    assert 'href="/accounts/login/?next=/"' in html
    assert 'href="/accounts/signup/"' in html
    assert Client(**HTTPS).post(PRACTICE)["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
def test_practice_in_one_post_seats_three_bots_and_deals_a_hand_to_a_player_with_no_points() -> (
    None
):
    user = broke("poor")
    location = practice(logged_in(user))

    table = Table.objects.get(creator=user)
    assert location == f"/tables/{table.pk}/"
    assert table.unlisted and not table.ranked and table.invite_code
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    assert seats[0].user == user and not seats[0].bot
    assert [(s.user_id, s.bot) for s in seats[1:]] == [(None, True)] * 3
    hand = Hand.objects.get(match__table=table)
    assert hand.status == Hand.Status.PLAYING
    assert ChatLine.objects.filter(table=table, code="practice").exists() or any(
        "practice hand" in text
        for text in ChatLine.objects.filter(table=table).values_list("text", flat=True)
    )
    assert table.pk not in [t["id"] for t in selectors.lobby_list()]  # private

    services.hand_leave(hand_id=hand.pk, user=user)  # an escape: free at a practice table
    settlement = HandSettlement.objects.get(hand=hand)
    assert settlement.practice
    assert not LedgerEntry.objects.filter(hand=hand).exists()
    assert not RatingChange.objects.filter(hand=hand).exists()
    assert player_balance(user=user) == 0


@pytest.mark.django_db
def test_a_second_click_plays_on_at_the_same_practice_table() -> None:
    (user,) = make_users(1)
    client = logged_in(user)
    first = practice(client)
    hand = Hand.objects.get(match__table__creator=user)
    services.hand_leave(hand_id=hand.pk, user=user)  # the escaper leaves the seat
    assert not Seat.objects.filter(user=user).exists()

    assert practice(client) == first  # the same table: no new one each click
    assert Table.objects.filter(creator=user).count() == 1
    assert Hand.objects.filter(match__table__creator=user, status="playing").count() == 1


@pytest.mark.django_db
def test_a_player_already_seated_is_sent_back_to_their_table() -> None:
    users = make_users(2)
    table = make_table(users[1])
    services.seat_take(table_id=table.pk, user=users[0], index=2)
    client = logged_in(users[0])

    response = client.post(PRACTICE, follow=True)

    assert response.redirect_chain[-1][0] == f"/tables/{table.pk}/"
    assert "already seated" in response.content.decode()
    assert not Table.objects.filter(creator=users[0]).exists()
    home = client.get("/").content.decode()
    assert f'href="/tables/{table.pk}/"' in home  # the home page's way back


@pytest.mark.django_db
def test_a_bot_seat_waives_the_table_points_until_four_humans_sit() -> None:
    """docs/LADDER.md, "Practice": with a bot in a seat of its own every hand is practice, so a
    player holding nothing may sit; if an admin frees the bot's seat and a human takes it, the
    table points are checked again before the next hand, and the player short of them stands."""
    poor = broke("short")
    rich = make_users(3, prefix="rich")
    table = make_table(rich[0], stake=100)
    services.seat_fill_bot(table_id=table.pk, user=rich[0], index=3)
    services.seat_take(table_id=table.pk, user=poor, index=0)  # a bot sits: no points needed
    services.seat_remove(table_id=table.pk, index=3, actor=rich[0], reason="test")
    for index, user in zip((1, 2, 3), rich, strict=True):
        services.seat_take(table_id=table.pk, user=user, index=index)
    for user in [poor, *rich]:
        services.seat_ready(table_id=table.pk, user=user)

    assert not Seat.objects.filter(table=table, user=poor).exists()  # stood up
    assert not Hand.objects.filter(match__table=table).exists()  # and no hand started
    with pytest.raises(ApplicationError) as refused:
        services.seat_take(table_id=table.pk, user=poor, index=0)
    assert refused.value.code == "insufficient_balance"


@pytest.mark.django_db
def test_favicon_is_linked_and_favicon_ico_redirects_to_it() -> None:
    client = Client(**HTTPS)
    assert 'rel="icon" href="/static/favicon.svg"' in client.get("/").content.decode()
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response["Location"] == "/static/favicon.svg"
