"""Finding 4, the pages: a suspended user is told so, and why (the reason the admin gave), on
the next page loaded with the old session and when trying to log in, in the page's language;
not a generic error. However the site suspends: the ban (service or admin action), or the
admin making the account inactive. The sockets: tests/games/test_sessions_end.py."""

from __future__ import annotations

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.test import Client

from accounts.models import User
from accounts.services import user_ban, user_create
from games import services
from games.models import Seat
from tests.games.helpers import make_table
from tests.https import HTTPS

pytestmark = [pytest.mark.django_db]
PASSWORD = "pw-long-enough-1"
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


def test_finding4_a_page_loaded_with_a_suspended_accounts_session_says_why(
    client: Client,
) -> None:
    user = user_create(username="cheat", password=PASSWORD)
    client.force_login(user)
    user_ban(user=user, reason="collusion <at> table 7", by=None)

    response = client.get("/tables/")
    assert response.status_code == 403
    html = response.content.decode()
    assert "Your account is suspended" in html
    assert "collusion &lt;at&gt; table 7" in html  # the admin's words, escaped
    # Told once: the session is logged out, and the site is a visitor's again.
    assert client.get("/tables/").status_code == 200
    assert "_auth_user_id" not in client.session


def test_finding4_the_notice_is_in_the_pages_language() -> None:
    user = user_create(username="cheat2", password=PASSWORD)
    client = Client(**HTTPS)
    client.force_login(user)
    user_ban(user=user, reason="外挂", by=None)
    html = client.get("/tables/", headers=ZH).content.decode()
    assert "你的账号已被停用" in html and "外挂" in html


def test_finding4_logging_in_to_a_suspended_account_says_why_only_with_its_password(
    client: Client,
) -> None:
    user_create(username="cheat3", password=PASSWORD)
    user_ban(user=User.objects.get(username="cheat3"), reason="collusion", by=None)

    right = client.post("/accounts/login/", {"username": "cheat3", "password": PASSWORD})
    html = right.content.decode()
    assert "Your account is suspended. The reason given: collusion" in html
    assert "_auth_user_id" not in client.session

    wrong = Client(**HTTPS).post("/accounts/login/", {"username": "cheat3", "password": "nope"})
    assert "suspended" not in wrong.content.decode()  # no word of it to a stranger
    zh = Client(**HTTPS).post(
        "/accounts/login/", {"username": "cheat3", "password": PASSWORD}, headers=ZH
    )
    assert "你的账号已被停用。原因：collusion" in zh.content.decode()


def test_finding4_the_admins_ban_action_and_inactive_tick_free_the_seats(
    client: Client,
) -> None:
    boss = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    banned = user_create(username="seated1", password=PASSWORD)
    idle = user_create(username="seated2", password=PASSWORD)
    table = make_table(boss, ranked=False, stake=10)
    services.seat_take(table_id=table.pk, user=banned, index=0)
    services.seat_ready(table_id=table.pk, user=banned)
    services.seat_take(table_id=table.pk, user=idle, index=1)
    client.force_login(boss)

    client.post(
        "/admin/accounts/user/",
        {"action": "ban_users", ACTION_CHECKBOX_NAME: [banned.pk], "apply": "1", "reason": "bots"},
    )
    banned.refresh_from_db()
    assert banned.is_banned and not banned.is_active and banned.ban_reason == "bots"

    idle.is_active = False  # the admin's change form, "active" unticked
    idle.save()
    seats = Seat.objects.filter(table=table).order_by("index")
    assert [(s.user_id, s.ready) for s in seats][:2] == [(None, False), (None, False)]
