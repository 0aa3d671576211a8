"""Issue 34, finding 4: one account could push every real table out of the lobby (105 table
creations in 1.5 s were all accepted; the lobby lists the newest 100). Table creation is now
limited per user (docs/LADDER.md, "Table creation limits"); other users' tables stay listed."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.errors import ApplicationError
from games import selectors, services
from games.models import Table
from tests.games.helpers import make_table, make_users
from tests.https import HTTPS

FORM = {"name": "spam", "preset": "ranked", "stake": 100, "min_balance": 0, "play_seconds": 20}


@pytest.fixture(autouse=True)
def fast_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def refused(code: str, call: Any) -> None:
    with pytest.raises(ApplicationError) as error:
        call()
    assert error.value.code == code


@pytest.mark.django_db
def test_finding4_one_account_spamming_creations_cannot_evict_another_users_table() -> None:
    """The audit's way: 105 creations from one logged-in browser as fast as it can post. At most
    10 are made in the hour, at most 3 are open at once (the older idle ones closed), and
    another user's table is still in the lobby's list and page."""
    spammer, other = make_users(2, prefix="sp")
    real = make_table(other)  # a real table, made before the flood
    browser = Client(**HTTPS)
    browser.force_login(spammer)
    answers = [browser.post("/tables/new/", FORM).status_code for _ in range(105)]

    made = Table.objects.filter(creator=spammer)
    assert made.count() == 10
    assert made.exclude(status=Table.Status.CLOSED).count() == 3
    assert answers.count(400) == 95
    listed = [t["id"] for t in selectors.lobby_list()]
    assert real.pk in listed
    assert len([pk for pk in listed if made.filter(pk=pk).exists()]) == 3
    assert f"/tables/{real.pk}/" in Client(**HTTPS).get("/tables/").content.decode()
    refusal = browser.post("/tables/new/", FORM).content.decode()
    assert "table_rate_limit" in refusal


@pytest.mark.django_db
def test_finding4_open_tables_in_use_are_not_closed_and_the_fourth_is_refused() -> None:
    """A creator whose three open tables each have a player seated cannot open a fourth; once
    one of them is empty it is closed to make room for the new one."""
    creator, *guests = make_users(4, prefix="cr")
    tables = [make_table(creator) for _ in range(3)]
    for table, guest in zip(tables, guests, strict=True):
        services.seat_take(table_id=table.pk, user=guest, index=0)
    refused("table_limit", lambda: make_table(creator))
    assert Table.objects.filter(creator=creator).count() == 3
    services.seat_leave(table_id=tables[1].pk, user=guests[1])
    fourth = make_table(creator)
    statuses = {t.pk: t.status for t in Table.objects.filter(creator=creator)}
    assert statuses[tables[1].pk] == Table.Status.CLOSED
    assert statuses[tables[0].pk] == statuses[tables[2].pk] == statuses[fourth.pk] == "open"
