"""The lobby shows a player their own tables: where they sit and those they host (created, not
closed), private ones included, each with the way back; a host's table stays there after
everyone stood up, and nobody sees another player's private table there (or anywhere)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import selectors, services
from games.models import Table
from tests.games.helpers import logged_in, make_users
from tests.https import HTTPS


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def private_table(creator: User, name: str) -> Table:
    return services.table_create(creator=creator, name=name, unlisted=True, stake=10)


def own_section(html: str) -> str:
    """The lobby's "your tables" section, or "" when it shows none."""
    start = html.find('id="own-tables"')
    if start < 0:
        return ""
    return html[start : html.index("</section>", start)]


@pytest.mark.django_db
def test_the_host_finds_his_private_table_in_the_lobby_seated_and_after_standing_up() -> None:
    host, friend, stranger = make_users(3, "owner")
    table = private_table(host, "周五找朋友")
    services.seat_take(table_id=table.pk, user=host, index=0)
    services.seat_take(table_id=table.pk, user=friend, index=1)

    section = own_section(logged_in(host).get("/tables/").content.decode())
    assert "周五找朋友" in section and f'href="/tables/{table.pk}/"' in section
    assert own_section(logged_in(friend).get("/tables/").content.decode()).count(
        f'href="/tables/{table.pk}/"'
    )
    assert "周五找朋友" not in logged_in(stranger).get("/tables/").content.decode()

    services.seat_leave(table_id=table.pk, user=host)
    services.seat_leave(table_id=table.pk, user=friend)
    section = own_section(logged_in(host).get("/tables/").content.decode())
    assert "周五找朋友" in section and f'href="/tables/{table.pk}/"' in section
    assert own_section(logged_in(friend).get("/tables/").content.decode()) == ""  # not his

    staff = User.objects.create_superuser("guanli", "", "x")
    services.table_close(table_id=table.pk, actor=staff, reason="散场")
    assert own_section(logged_in(host).get("/tables/").content.decode()) == ""


@pytest.mark.django_db
def test_own_tables_are_the_users_own_and_never_anothers_private_one() -> None:
    host, player, other = make_users(3, "owned")
    hosted_private = private_table(host, "主人的私桌")
    listed = services.table_create(creator=other, name="大家的桌", stake=10)
    services.seat_take(table_id=listed.pk, user=player, index=2)
    others_private = private_table(other, "别人的私桌")

    assert [t["id"] for t in selectors.own_tables(user=host)] == [hosted_private.pk]
    assert [t["id"] for t in selectors.own_tables(user=player)] == [listed.pk]
    mine = selectors.own_tables(user=other)
    assert {t["id"] for t in mine} == {listed.pk, others_private.pk}
    assert all(not t["seated"] and t["hosted"] for t in mine)
    for user in (host, player):
        html = logged_in(user).get("/tables/").content.decode()
        assert "别人的私桌" not in html and f"/tables/{others_private.pk}/" not in html
    anonymous = Client(**HTTPS).get("/tables/").content.decode()
    assert own_section(anonymous) == "" and "主人的私桌" not in anonymous


@pytest.mark.django_db
def test_the_table_one_sits_at_comes_first() -> None:
    host, other = make_users(2, "first")
    older = private_table(host, "先开的桌")
    services.table_create(creator=host, name="后开的桌", stake=10)
    services.seat_take(table_id=older.pk, user=host, index=0)
    names = [t["name"] for t in selectors.own_tables(user=host)]
    assert names == ["先开的桌", "后开的桌"]
    assert selectors.own_tables(user=other) == []
