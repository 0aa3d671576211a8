"""The daily relief grant per network address (docs/LADDER.md, "Relief per address").

Relief was per account only, so alts made from one address over the days each claimed it and
lost it to a main: the address's rate was the sign-up grants (10 × 1,000 a day) plus every
earlier alt's relief, growing by 8,000 a day (about 58,000 on day 7). Now the accounts of one
network address (an IPv4 address, an IPv6 /64) have at most `SHENGJI_RELIEF_PER_IP_PER_DAY`
relief grants a site day, whichever way they claim (the page, the API, at once), so the rate
stays at the grants plus what one honest account may claim.

Days are simulated by moving Django's clock (``django.utils.timezone.now``) and emptying the
sign-up windows in Redis, which count real seconds, at each simulated day's start.
"""

from __future__ import annotations

import importlib
import itertools
import re
import threading
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from io import StringIO
from typing import Any
from unittest import mock

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import ratelimits
from accounts.models import User
from games.models import Hand, HandPlayer, Match, Table
from games.services.wrap_up import hand_settle
from ladder.errors import ApplicationError
from ladder.models import LadderProfile, LedgerEntry, ReliefClaim
from ladder.services import ladder_points_adjust, ladder_relief_claim
from tests.https import HTTPS
from tests.ladder.helpers import PASSWORD, make_user

ADDRESS = "203.0.113.7"
GRANT, THRESHOLD, RELIEF = 1000, 800, 800
SIGNUPS_A_DAY = 10
DAYS = 7
# The audit's private table: seed 000's `levels` with escapes free (`escape_penalty` none).
PRIVATE_RULES = {"preset": "seed000", "settlement": "levels", "escape_penalty": "none",
                 "past_ace": "match_end"}  # fmt: skip
BROWSERS = {"en": "en-US,en;q=0.9", "zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9"}
REFUSAL = {
    "en": "relief is given at most 1 times a day to the accounts of one network address, and "
    "it has been claimed from yours today: come back tomorrow (relief_address_limit)",
    "zh-hans": "同一网络地址的账号每天合计最多领取 1 次救济，你的网络地址今天已经领过了，"
    "明天再来吧 (relief_address_limit)",
    "zh-hant": "同一網路位址的帳號每天合計最多領取 1 次救濟，你的網路位址今天已經領過了，"
    "明天再來吧 (relief_address_limit)",
}
_names = itertools.count(1)
PER_IP_IN_FORCE = django_settings.SHENGJI_RELIEF_PER_IP_PER_DAY  # before any test changes it

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def relief_numbers(settings: Any, redis_url: str) -> Iterator[None]:
    settings.LADDER_SIGNUP_GRANT = GRANT
    settings.LADDER_RELIEF_THRESHOLD = THRESHOLD
    settings.LADDER_RELIEF_AMOUNT = RELIEF
    settings.LADDER_RELIEF_PER_DAY = 1
    settings.SHENGJI_RELIEF_PER_IP_PER_DAY = 1
    settings.SHENGJI_SIGNUPS_PER_IP_PER_DAY = SIGNUPS_A_DAY
    # The hour's limit (8) only makes the day's last two wait an hour: the day's bounds.
    settings.SHENGJI_SIGNUPS_PER_IP_PER_HOUR = SIGNUPS_A_DAY
    ratelimits.reset_all()
    yield
    ratelimits.reset_all()


def balance(user: User) -> int:
    return LadderProfile.objects.get(user=user).balance


def set_balance(user: User, amount: int) -> None:
    moved = amount - balance(user)
    if moved:
        ladder_points_adjust(user=user, account="table", amount=moved, reason="test", by=None)


def ladder_check() -> str:
    """`manage.py ladder_check`'s problems ("" when it passes)."""
    errors = StringIO()
    try:
        call_command("ladder_check", stdout=StringIO(), stderr=errors)
    except CommandError:
        return errors.getvalue() or "failed"
    return ""


# --- the alt scheme ------------------------------------------------------------------------


def sign_up(address: str = ADDRESS) -> User | None:
    """A sign-up through the page from ``address``; the account, or None when refused."""
    name = f"alt{next(_names)}"
    data = {"username": name, "email": "", "password1": PASSWORD, "password2": PASSWORD}
    answer = Client(REMOTE_ADDR=address, **HTTPS).post("/accounts/signup/", data)
    if answer.status_code != 302:
        assert answer.status_code == 429
        return None
    return User.objects.get(username=name)


def lose_to_main(main: User, partner: User, losers: tuple[User, User], stake: int) -> None:
    """A hand at a private casual table: the main deals with ``partner`` (seats 0 and 2) and
    the two ``losers`` let them win one level, so each loser pays ``stake``: stored as the
    games app stores a finished hand and settled as its wrap-up settles it."""
    table = Table.objects.create(
        name=f"private {next(_names)}", preset="seed000", ranked=False, stake=stake,
        unlisted=True, house_rules={"escape_penalty": "none"},
    )  # fmt: skip
    match = Match.objects.create(table=table, ruleset=PRIVATE_RULES, levels=["2", "2"])
    hand = Hand.objects.create(
        match=match, number=1, ruleset=PRIVATE_RULES, seed=1, dealer=0, levels=["2", "2"],
        status=Hand.Status.FINISHED, result={"attacker_points": 40}, finished_at=timezone.now(),
    )  # fmt: skip
    four = [main, losers[0], partner, losers[1]]
    HandPlayer.objects.bulk_create(
        HandPlayer(hand=hand, seat=seat, user=user, turns=25) for seat, user in enumerate(four)
    )
    hand_settle(hand_id=hand.pk)


def hand_everything_to_the_main(main: User, alts: list[User]) -> None:
    """The alts lose what they hold to the main, two at a time, the alt holding least as the
    main's partner (it loses its gain in a later hand); at most one alt keeps anything."""
    while True:
        holding = sorted((a for a in alts if balance(a) > 0), key=balance, reverse=True)
        if len(holding) < 2:
            return
        first, second = holding[0], holding[1]
        stake = min(balance(first), balance(second))
        partner = min((a for a in alts if a not in (first, second)), key=balance)
        before = balance(main)
        lose_to_main(main, partner, (first, second), stake)
        assert balance(main) == before + stake  # the private table's hand as the audit's


def claim(alt: User, through: str, address: str = ADDRESS) -> str:
    """A relief claim by ``alt`` from ``address`` through the API or its player page: "ok" or
    the refusal's code."""
    if through == "api":
        api = APIClient(REMOTE_ADDR=address, **HTTPS)
        api.force_authenticate(alt)
        answer = api.post("/api/me/relief/")
        return "ok" if answer.status_code == 201 else str(answer.json()["code"])
    page = Client(REMOTE_ADDR=address, **HTTPS)
    page.force_login(alt)
    text = page.post("/ladder/me/relief/", follow=True).content.decode()
    if "Relief: " in text:
        return "ok"
    refused = re.search(r"\((relief_[a-z_]+)\)", text)
    assert refused is not None, text
    return refused.group(1)


def simulated_day(day: int) -> Any:
    """Django's clock at noon of the ``day``-th day from today (the site's days)."""
    noon = timezone.make_aware(
        datetime.combine(timezone.localdate() + timedelta(days=day), datetime.min.time())
    ) + timedelta(hours=12)
    return mock.patch("django.utils.timezone.now", return_value=noon)


def test_regression_alts_from_one_address_each_claimed_relief_for_a_main() -> None:
    """The audit's scheme, a week of it: each day ten accounts are made from one address (the
    sign-up limit refuses the eleventh), every alt made so far loses all it holds to a main at
    a private table, each alt below the threshold claims relief (through the API and the page
    in turn) and loses it to the main too. Before, every claim was given: the main's gain on
    day d was 10,000 + 800 × 10 × (d − 1), 58,000 on day 7. Now one claim a day is given to the
    address's accounts and the rest are refused with `relief_address_limit`, changing nothing:
    the main gains at most 10 × 1,000 + 800 a day, whatever the day (all but what one alt
    keeps, which a later day hands over)."""
    main = make_user("main")
    alts: list[User] = []
    gains: list[int] = []
    for day in range(DAYS):
        with simulated_day(day):
            ratelimits.reset_all()  # a new day for the sign-up windows too
            start = balance(main)
            made = [sign_up() for _ in range(SIGNUPS_A_DAY + 1)]
            assert made[-1] is None and all(made[:-1])  # the eleventh of a day is refused
            alts += [alt for alt in made if alt is not None]
            hand_everything_to_the_main(main, alts)
            answers: dict[str, list[int]] = {}
            for number, alt in enumerate(a for a in alts if balance(a) < THRESHOLD):
                held = balance(alt)
                rows = LedgerEntry.objects.count()
                answer = claim(alt, "api" if number % 2 else "page")
                answers.setdefault(answer, []).append(alt.pk)
                if answer != "ok":
                    assert (balance(alt), LedgerEntry.objects.count()) == (held, rows)
            assert len(answers.pop("ok")) == 1, f"day {day + 1}"
            assert set(answers) <= {"relief_address_limit"}
            assert len(answers["relief_address_limit"]) >= len(alts) - 2
            hand_everything_to_the_main(main, alts)
            gains.append(balance(main) - start)
    bound = SIGNUPS_A_DAY * GRANT + 1 * RELIEF  # a day
    for days, so_far in enumerate(itertools.accumulate(gains), start=1):
        assert so_far <= days * bound, gains
        # The scheme itself works: all but what one alt keeps reaches the main.
        assert so_far >= days * bound - 2 * GRANT, gains
    assert ReliefClaim.objects.filter(address=ADDRESS).count() == DAYS
    assert ladder_check() == ""


# --- claims at once, through the page and the API ----------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_claims_at_once_from_one_address_through_the_page_and_the_api_give_relief_once() -> None:
    """Six accounts of one address claim at the same moment, three through the page and three
    through the API (and one account twice, once each way): one grant in all."""
    alts = [make_user() for _ in range(5)]
    for alt in alts:
        set_balance(alt, 0)
    claimers = [(alt, "page" if i % 2 else "api") for i, alt in enumerate(alts)]
    claimers.append((alts[0], "page"))  # alts[0] through the API and the page at once
    results: list[str] = []
    start = threading.Barrier(len(claimers), timeout=20)

    def run(alt: User, through: str) -> None:
        try:
            start.wait()
            results.append(claim(alt, through))
        except Exception as error:  # shown by the assertion below
            results.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair) for pair in claimers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results.count("ok") == 1 and len(results) == 6, results
    # alts[0]'s second claim, if its first was the grant, finds it no longer below the threshold.
    assert set(results) - {"ok"} <= {"relief_address_limit", "relief_not_needed"}
    assert results.count("relief_address_limit") >= 4
    assert LedgerEntry.objects.filter(kind="relief").count() == 1
    assert sum(balance(alt) for alt in alts) == RELIEF
    assert ladder_check() == ""


# --- the refusal ------------------------------------------------------------------------------


@pytest.mark.parametrize("language", list(BROWSERS))
def test_the_address_refusal_is_clear_in_each_language_and_changes_nothing(
    language: str,
) -> None:
    first, second = make_user(), make_user()
    set_balance(first, 0)
    set_balance(second, 100)
    assert claim(first, "api") == "ok"
    page = Client(REMOTE_ADDR=ADDRESS, HTTP_ACCEPT_LANGUAGE=BROWSERS[language], **HTTPS)
    page.force_login(second)
    rows, claims = LedgerEntry.objects.count(), ReliefClaim.objects.count()
    text = page.post("/ladder/me/relief/", follow=True).content.decode()
    assert REFUSAL[language] in text
    api = APIClient(REMOTE_ADDR=ADDRESS, HTTP_ACCEPT_LANGUAGE=BROWSERS[language], **HTTPS)
    api.force_authenticate(second)
    refused = api.post("/api/me/relief/")
    assert refused.status_code == 400
    assert refused.json() == {
        "code": "relief_address_limit",
        "message": REFUSAL[language].removesuffix(" (relief_address_limit)"),
        "limit": 1,
    }
    assert (balance(second), LedgerEntry.objects.count()) == (100, rows)
    assert ReliefClaim.objects.count() == claims


def test_the_page_and_the_api_say_the_address_has_had_todays_relief() -> None:
    first, second = make_user(), make_user()
    set_balance(first, 0)
    set_balance(second, 100)
    api = APIClient(REMOTE_ADDR=ADDRESS, **HTTPS)
    api.force_authenticate(second)
    assert api.get("/api/me/relief/").json()["eligible"] is True
    assert claim(first, "page") == "ok"
    status = api.get("/api/me/relief/").json()
    assert status["eligible"] is False and status["next_at"] is not None
    page = Client(REMOTE_ADDR=ADDRESS, **HTTPS)
    page.force_login(second)
    text = page.get(f"/players/{second.username}/").content.decode()
    assert "Today's relief for your network address has been claimed" in text
    assert 'action="/ladder/me/relief/"' not in text
    elsewhere = Client(REMOTE_ADDR="198.51.100.9", **HTTPS)
    elsewhere.force_login(second)
    text = elsewhere.get(f"/players/{second.username}/").content.decode()
    assert 'action="/ladder/me/relief/"' in text  # from another address it may be claimed


# --- how the address is counted -----------------------------------------------------------------


def test_an_ipv6_client_counts_by_its_slash_64() -> None:
    """One home or phone holds a whole IPv6 /64 and may pick any address in it."""
    alts = [make_user() for _ in range(3)]
    for alt in alts:
        set_balance(alt, 0)
    assert claim(alts[0], "api", "2001:db8:1:2::1") == "ok"
    assert claim(alts[1], "page", "2001:db8:1:2:ffff:ffff:ffff:fffe") == "relief_address_limit"
    assert claim(alts[1], "api", "[2001:db8:1:3::1]") == "ok"  # another /64
    assert claim(alts[2], "api", "::ffff:203.0.113.7") == "ok"  # IPv4, as IPv4
    assert claim(make_user(), "api", ADDRESS) == "relief_not_needed"
    assert sorted(ReliefClaim.objects.values_list("address", flat=True)) == [
        "2001:db8:1:2::/64", "2001:db8:1:3::/64", ADDRESS,
    ]  # fmt: skip


def test_behind_a_trusted_proxy_the_forwarded_client_counts_and_a_spoofed_one_does_not(
    settings: Any,
) -> None:
    settings.TRUSTED_PROXIES = ["10.0.0.5"]
    alts = [make_user() for _ in range(4)]
    for alt in alts:
        set_balance(alt, 0)

    def claim_via(alt: User, peer: str, forwarded: str) -> str:
        api = APIClient(REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=forwarded, **HTTPS)
        api.force_authenticate(alt)
        answer = api.post("/api/me/relief/")
        return "ok" if answer.status_code == 201 else str(answer.json()["code"])

    assert claim_via(alts[0], "10.0.0.5", "198.51.100.1") == "ok"
    assert claim_via(alts[1], "10.0.0.5", "198.51.100.2") == "ok"  # two homes behind one proxy
    # A client that is no proxy writes what it likes: its own address is what counts.
    assert claim_via(alts[2], "192.0.2.8", "198.51.100.3") == "ok"
    assert claim_via(alts[3], "192.0.2.8", "198.51.100.4") == "relief_address_limit"


# --- an account that just signed up --------------------------------------------------------------


def test_accounts_just_signed_up_share_the_address_limit_even_when_relief_is_above_the_grant(
    settings: Any,
) -> None:
    """Fresh from the grant an account holds 1,000, above the threshold: nothing to claim. An
    operator who sets the threshold above the grant makes every new account eligible at once:
    the address's accounts still get one grant a day."""
    fresh = sign_up()
    assert fresh is not None and claim(fresh, "page") == "relief_not_needed"
    settings.LADDER_RELIEF_THRESHOLD = 1500
    settings.LADDER_RELIEF_AMOUNT = 1500
    more = [sign_up() for _ in range(4)]
    answers = [claim(user, "api") for user in [fresh, *more] if user is not None]
    assert answers == ["ok"] + ["relief_address_limit"] * 4
    assert LedgerEntry.objects.filter(kind="relief").count() == 1


def test_a_claim_with_no_client_is_not_counted_for_any_address() -> None:
    """Staff and the shell may give relief with no client (``address`` None): it keeps its
    per-account limit and its claim row, with no address."""
    user, other = make_user(), make_user()
    set_balance(user, 0)
    set_balance(other, 0)
    ladder_relief_claim(user=user)
    assert ReliefClaim.objects.get(entry__user=user).address == ""
    assert claim(other, "api") == "ok"
    set_balance(user, 0)
    with pytest.raises(ApplicationError) as again:
        ladder_relief_claim(user=user)
    assert again.value.code == "relief_limit"


# --- ladder_check -------------------------------------------------------------------------------


def test_ladder_check_reports_relief_over_the_address_limit_and_a_row_without_its_claim() -> None:
    first, second = make_user(), make_user()
    set_balance(first, 0)
    set_balance(second, 0)
    ladder_relief_claim(user=first, address=ADDRESS)
    assert ladder_check() == ""
    # A grant written around the service: no claim, so no address to count it by.
    entry = LedgerEntry.objects.create(
        user=second, kind="relief", account="table", amount=RELIEF, balance_after=RELIEF
    )
    LadderProfile.objects.filter(user=second).update(balance=RELIEF)
    assert f"relief row {entry.pk} has no claim of its day" in ladder_check()
    ReliefClaim.objects.create(entry=entry, address=ADDRESS, day=timezone.localdate())
    problems = ladder_check()
    assert f"2 relief grants from {ADDRESS} on {timezone.localdate()} (limit 1)" in problems
    assert "has no claim" not in problems


def test_claims_are_append_only() -> None:
    user = make_user()
    set_balance(user, 0)
    ladder_relief_claim(user=user, address=ADDRESS)
    row = ReliefClaim.objects.get(entry__user=user)
    with pytest.raises(DatabaseError), transaction.atomic():
        ReliefClaim.objects.filter(pk=row.pk).update(address="192.0.2.1")
    with pytest.raises(DatabaseError), transaction.atomic():
        ReliefClaim.objects.filter(pk=row.pk).delete()
    assert ReliefClaim.objects.get(pk=row.pk).address == ADDRESS


def test_the_readme_and_the_docs_state_the_limit_in_force() -> None:
    base = django_settings.BASE_DIR
    readme = (base / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if "SHENGJI_RELIEF_PER_IP_PER_DAY" in line)
    assert row.rstrip().endswith(f"| {PER_IP_IN_FORCE} |")
    rate = SIGNUPS_A_DAY * GRANT + PER_IP_IN_FORCE * RELIEF
    assert f"{rate:,}" in row
    for doc in ("docs/LADDER.md", "docs/proof/SECURITY.md"):
        assert f"**{rate:,} table points a day" in (base / doc).read_text(encoding="utf-8")


def test_the_migration_gives_each_earlier_grant_a_claim_of_its_day_with_no_address(
    settings: Any,
) -> None:
    """Relief rows written before claims were kept get one, of the site's day (7:00 in
    Shanghai is the day before in UTC), so that `ladder_check` passes on a site that had relief
    before; they count for no address."""
    settings.TIME_ZONE = "Asia/Shanghai"
    user = make_user()
    set_balance(user, 0)
    early_morning = timezone.make_aware(datetime(2026, 3, 1, 7, 0))
    entry = LedgerEntry.objects.create(
        user=user, kind="relief", account="table", amount=RELIEF, balance_after=RELIEF,
        created_at=early_morning,
    )  # fmt: skip
    LadderProfile.objects.filter(user=user).update(balance=RELIEF)
    assert "has no claim" in ladder_check()
    migration = importlib.import_module("ladder.migrations.0007_relief_claim")
    with connection.schema_editor() as editor:
        migration.claims_of_earlier_grants(None, editor)
    claim_row = ReliefClaim.objects.get(entry=entry)
    assert (claim_row.address, claim_row.day) == ("", date(2026, 3, 1))
    assert ladder_check() == ""
