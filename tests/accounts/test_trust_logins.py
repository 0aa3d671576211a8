"""Log-in lock-outs that cannot shut the owner out, and sign-ups per address
(docs/proof/SECURITY.md, findings 6 and 7).

Finding 6: five wrong passwords for a user name, from anywhere, locked the name: its owner's
right password then got 429 for 15 minutes, the admin's log-in too. Now django-axes counts
failures per (user name, address) and per address, at a higher limit
(``accounts.logins.LoginAttempts``); a name alone is never locked.
Finding 7: nothing limited sign-ups (30 accounts in 14 s from one address, each granted
points). Now ``SHENGJI_SIGNUPS_PER_IP_PER_HOUR`` / ``_PER_DAY`` do.
Real PostgreSQL (axes' attempts) and Redis (the sign-up counts).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from axes.models import AccessAttempt
from django.test import Client
from rest_framework.test import APIClient

from accounts import ratelimits
from accounts.models import User
from ladder.models import LedgerEntry
from tests.https import HTTPS

pytestmark = pytest.mark.django_db
PASSWORD = "tractor-pairs-88"
OWNER = "192.0.2.10"


@pytest.fixture(autouse=True)
def counts(redis_url: str) -> Iterator[None]:
    ratelimits.reset_all()
    yield
    ratelimits.reset_all()


class Attempt(NamedTuple):
    status: int
    logged_in: bool
    text: str


def log_in(address: str, username: str, password: str, path: str = "/accounts/login/") -> Attempt:
    client = Client(REMOTE_ADDR=address, **HTTPS)
    response = client.post(path, {"username": username, "password": password})
    return Attempt(
        response.status_code, "_auth_user_id" in client.session, response.content.decode()
    )


def attacker(i: int) -> str:
    return f"198.51.100.{i + 1}"


# --- finding 6: log-in lock-outs -------------------------------------------------------------


def test_regression_anyone_could_lock_any_account(settings: Any) -> None:
    assert (
        settings.SHENGJI_LOGIN_FAILURES_PER_USER_IP,
        settings.SHENGJI_LOGIN_FAILURES_PER_IP,
    ) == (
        5,
        20,
    )
    User.objects.create_user("lin", password=PASSWORD)
    User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    # Five wrong passwords from many addresses (and more, spoofing X-Forwarded-For from one).
    for i in range(5):
        assert not log_in(attacker(i), "lin", "nope").logged_in
        assert not log_in(attacker(i), "boss", "nope", "/admin/login/").logged_in
    spoofer = Client(REMOTE_ADDR="198.51.100.99", **HTTPS)
    for i in range(10):
        spoofer.post(
            "/accounts/login/",
            {"username": "lin", "password": "nope"},
            HTTP_X_FORWARDED_FOR=f"203.0.113.{i}",
        )
    # The owners still log in from their own address, on the site and in the admin.
    assert log_in(OWNER, "lin", PASSWORD)[:2] == (302, True)
    assert log_in(OWNER, "boss", PASSWORD, "/admin/login/")[:2] == (302, True)
    # Only the spoofer's own address is shut for that name.
    assert log_in("198.51.100.99", "lin", PASSWORD)[:2] == (429, False)


def test_failures_of_a_user_name_from_an_address_lock_that_pair(settings: Any) -> None:
    User.objects.create_user("lin", password=PASSWORD)
    User.objects.create_user("ma", password=PASSWORD)
    for _ in range(5):
        assert log_in(attacker(0), "lin", "nope")[:2] == (200, False)
    locked = log_in(attacker(0), "lin", PASSWORD)  # the right password, from that address
    assert locked.status == 429 and not locked.logged_in
    assert "Too many attempts: try again in 15 min." in locked.text
    assert log_in(attacker(0), "LIN", PASSWORD).status == 429  # user names by case
    assert log_in(attacker(0), "ma", PASSWORD)[:2] == (302, True)  # the address is not shut
    assert log_in(OWNER, "lin", PASSWORD)[:2] == (302, True)  # nor the name elsewhere
    # Tries refused while locked out are not counted, and the lock-out ends on time.
    settings.SHENGJI_LOGIN_WINDOW_S = 2
    for _ in range(5):
        log_in(attacker(1), "ma", "nope")
    assert log_in(attacker(1), "ma", PASSWORD).status == 429
    time.sleep(2.1)
    assert log_in(attacker(1), "ma", PASSWORD)[:2] == (302, True)


def test_failures_under_many_names_from_one_address_lock_the_address() -> None:
    User.objects.create_user("ma", password=PASSWORD)
    for i in range(20):  # 20 names, one failure each: no pair is near its limit of 5
        assert log_in(attacker(0), f"guess{i}", "nope").status == 200
    shut = log_in(attacker(0), "ma", PASSWORD)
    assert shut.status == 429 and not shut.logged_in
    assert log_in(attacker(1), "ma", PASSWORD)[:2] == (302, True)  # from elsewhere: welcome


def test_a_log_in_forgives_its_names_failures_from_its_address_only() -> None:
    User.objects.create_user("wu", password=PASSWORD)
    for _ in range(4):
        log_in(OWNER, "wu", "nope")
    for _ in range(5):  # someone else, elsewhere
        log_in(attacker(0), "wu", "nope")
    for _ in range(3):
        log_in(OWNER, "ghost", "nope")
    assert log_in(OWNER, "wu", PASSWORD).logged_in
    assert not AccessAttempt.objects.filter(username="wu", ip_address=OWNER).exists()
    # The attacker's lock-out stands, and the address keeps its failures under other names.
    assert log_in(attacker(0), "wu", PASSWORD).status == 429
    assert AccessAttempt.objects.get(username="ghost", ip_address=OWNER).failures_since_start == 3
    for _ in range(4):  # 4 again: the success started the pair's count afresh
        log_in(OWNER, "wu", "nope")
    assert log_in(OWNER, "wu", PASSWORD).logged_in


def test_the_admin_log_in_locks_the_pair_and_says_so() -> None:
    User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    for _ in range(5):
        log_in(attacker(0), "boss", "nope", "/admin/login/")
    locked = log_in(attacker(0), "boss", PASSWORD, "/admin/login/")
    assert not locked.logged_in
    assert "Too many attempts: try again in 15 min." in locked.text
    assert log_in(OWNER, "boss", PASSWORD, "/admin/login/")[:2] == (302, True)


def test_the_api_token_view_locks_the_pair_with_a_code() -> None:
    User.objects.create_user("script", password=PASSWORD)
    api = APIClient(REMOTE_ADDR=attacker(0), **HTTPS)
    for _ in range(5):
        bad = api.post("/api/auth/token/", {"username": "script", "password": "nope"})
        assert bad.status_code == 400 and bad.json()["code"] == "credentials_invalid"
    locked = api.post("/api/auth/token/", {"username": "script", "password": PASSWORD})
    assert locked.status_code == 429
    body = locked.json()
    assert body["code"] == "too_many_attempts" and 890 <= body["retry_after"] <= 900
    assert locked["Retry-After"] == str(body["retry_after"]) and "token" not in body
    mine = APIClient(REMOTE_ADDR=OWNER, **HTTPS)
    answer = mine.post("/api/auth/token/", {"username": "script", "password": PASSWORD})
    assert answer.status_code == 200 and answer.json()["token"]


def test_a_long_or_odd_user_name_is_counted_not_a_500() -> None:
    api = APIClient(REMOTE_ADDR=attacker(2), **HTTPS)
    for name in ("x" * 5000, " Ünïcødé ", "a\u202eb"):
        answer = api.post("/api/auth/token/", {"username": name, "password": "nope"})
        assert answer.status_code in (400, 429), answer.content
    assert AccessAttempt.objects.filter(ip_address=attacker(2)).count() == 3


# --- finding 7: sign-ups per address ---------------------------------------------------------


def sign_up(address: str, username: str, forwarded_for: str = "") -> Any:
    client = Client(REMOTE_ADDR=address, HTTP_X_FORWARDED_FOR=forwarded_for, **HTTPS)
    data = {"username": username, "email": "", "password1": PASSWORD, "password2": PASSWORD}
    return client.post("/accounts/signup/", data)


def test_regression_no_sign_up_limit(settings: Any) -> None:
    assert settings.SHENGJI_SIGNUPS_PER_IP_PER_HOUR == 8  # a table of friends: 3 until issue 33
    assert settings.SHENGJI_SIGNUPS_PER_IP_PER_DAY == 10
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    made = [sign_up(OWNER, name, f"203.0.113.{i}") for i, name in enumerate(names)]
    assert [r.status_code for r in made] == [302] * 8
    ninth = sign_up(OWNER, "india", "203.0.113.200")
    assert ninth.status_code == 429 and int(ninth["Retry-After"]) > 3500
    assert ninth.context["form"].has_error("__all__", "too_many_signups")
    assert "Too many new accounts from your address: try again in 60 min." in ninth.content.decode()
    assert not User.objects.filter(username="india").exists()
    assert LedgerEntry.objects.filter(kind="grant").count() == 8
    assert sign_up("192.0.2.11", "india").status_code == 302  # another address


def test_a_sign_up_that_makes_no_account_uses_no_place_and_the_day_has_its_own_limit(
    settings: Any,
) -> None:
    settings.SHENGJI_SIGNUPS_PER_IP_PER_HOUR = 2
    assert sign_up(OWNER, "echo").status_code == 302
    assert sign_up(OWNER, "echo").status_code == 200  # taken: no account, no place used
    assert sign_up(OWNER, "foxtrot").status_code == 302
    assert sign_up(OWNER, "golf").status_code == 429
    settings.SHENGJI_SIGNUPS_PER_IP_PER_HOUR = 100
    settings.SHENGJI_SIGNUPS_PER_IP_PER_DAY = 3
    assert sign_up(OWNER, "hotel").status_code == 302
    day = sign_up(OWNER, "india")
    assert day.status_code == 429
    assert "try again in 24 h." in day.content.decode()


def test_sign_ups_sent_together_cannot_all_pass() -> None:
    results: list[int] = []

    def take() -> None:
        results.append(ratelimits.signup_take(ip="192.0.2.250")[0])

    threads = [threading.Thread(target=take) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 20 and results.count(0) == 8


def test_an_ipv6_home_signs_up_as_one_address_whatever_address_of_its_64_it_uses(
    settings: Any,
) -> None:
    """A home or phone is given a whole /64 and may pick any address in it: the sign-up
    limits count the /64, as the daily relief does (docs/LADDER.md, "Relief per address")."""
    settings.SHENGJI_SIGNUPS_PER_IP_PER_HOUR = 2
    home = "2001:db8:1:2::"
    assert sign_up(f"{home}a", "ipv6one").status_code == 302
    assert sign_up(f"{home}b", "ipv6two").status_code == 302
    assert sign_up(f"{home}c", "ipv6three").status_code == 429
    assert not User.objects.filter(username="ipv6three").exists()
    assert sign_up("2001:db8:1:3::a", "ipv6next").status_code == 302  # the next /64: its own
