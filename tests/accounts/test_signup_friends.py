"""Sign-ups per address (issue 33, point 12; docs/proof/SECURITY.md, "Sign-ups per address"):
friends behind one home router all sign up, a script making accounts from one address is still
stopped, and the README states the limits in force."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client

from accounts import ratelimits
from accounts.models import User
from ladder.models import LedgerEntry
from ladder.selectors import player_balance
from tests.https import HTTPS

pytestmark = pytest.mark.django_db
PASSWORD = "tractor-pairs-88"
HOME_ROUTER = "192.0.2.44"


@pytest.fixture(autouse=True)
def counts(redis_url: str) -> Iterator[None]:
    ratelimits.reset_all()
    yield
    ratelimits.reset_all()


def sign_up(username: str, address: str = HOME_ROUTER) -> Any:
    client = Client(REMOTE_ADDR=address, **HTTPS)
    data = {"username": username, "email": "", "password1": PASSWORD, "password2": PASSWORD}
    return client.post("/accounts/signup/", data)


def test_regression_four_friends_behind_one_router_could_not_all_sign_up() -> None:
    """The limit was 3 an hour per address: the fourth friend was refused."""
    friends = ["小明", "小红", "阿强", "老王"]
    answers = [sign_up(name).status_code for name in friends]
    assert answers == [302, 302, 302, 302]
    for name in friends:
        user = User.objects.get(username=name)
        assert player_balance(user=user) == django_settings.LADDER_SIGNUP_GRANT


def test_a_full_table_of_eight_friends_signs_up_in_one_hour() -> None:
    answers = [sign_up(f"friend{i}").status_code for i in range(8)]
    assert answers == [302] * 8


def test_a_script_making_accounts_from_one_address_is_stopped() -> None:
    answers = [sign_up(f"bot{i:02}").status_code for i in range(30)]
    assert answers == [302] * 8 + [429] * 22
    assert User.objects.filter(username__startswith="bot").count() == 8
    assert LedgerEntry.objects.filter(kind="grant").count() == 8


def test_the_days_limit_bounds_the_farming_rate(settings: Any) -> None:
    """Even with the hour's limit out of the way, one address makes 10 accounts a day: at most
    10 × the sign-up grant a day."""
    settings.SHENGJI_SIGNUPS_PER_IP_PER_HOUR = 1000
    answers = [sign_up(f"farm{i:02}").status_code for i in range(15)]
    assert answers == [302] * 10 + [429] * 5
    granted = sum(e.amount for e in LedgerEntry.objects.filter(kind="grant"))
    assert granted == 10 * settings.LADDER_SIGNUP_GRANT == 10_000


def test_the_readme_and_security_doc_state_the_limits_in_force() -> None:
    base = Path(django_settings.BASE_DIR)
    readme = (base / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if "SHENGJI_SIGNUPS_PER_IP_PER_HOUR" in line)
    hour, day = (django_settings.SHENGJI_SIGNUPS_PER_IP_PER_HOUR,
                 django_settings.SHENGJI_SIGNUPS_PER_IP_PER_DAY)  # fmt: skip
    assert row.rstrip().endswith(f"| {hour}, {day} |")
    farmed = day * django_settings.LADDER_SIGNUP_GRANT
    assert f"{farmed:,}" in row
    security = (base / "docs" / "proof" / "SECURITY.md").read_text(encoding="utf-8")
    assert re.search(rf"`SHENGJI_SIGNUPS_PER_IP_PER_HOUR` \| {hour} \|", security)
    assert re.search(rf"`SHENGJI_SIGNUPS_PER_IP_PER_DAY` \| {day} \|", security)
    assert f"**{farmed:,} table points a" in security
