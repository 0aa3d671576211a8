"""Where table points come from and go (docs/LADDER.md, "Invariants"): the daily relief grant,
the only source besides the sign-up grant (and staff adjustments), with its threshold and daily
limit, through the service, the API, the player's page and the admin; and `ladder_check`, which
reports every breach: a shortfall line, the house paying, a practice hand that moved points,
relief over the limit."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games.history import ledger_problems
from games.services.wrap_up import hand_settle
from ladder.errors import ApplicationError
from ladder.models import HandSettlement, LadderProfile, LedgerEntry, ReliefClaim
from ladder.services import ladder_points_adjust, ladder_relief_claim
from tests.https import HTTPS
from tests.ladder.helpers import PASSWORD, make_hand, make_user, make_users

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def relief_numbers(settings: Any) -> None:
    settings.LADDER_SIGNUP_GRANT = 1000
    settings.LADDER_RELIEF_THRESHOLD = 800
    settings.LADDER_RELIEF_AMOUNT = 800
    settings.LADDER_RELIEF_PER_DAY = 1


def set_balance(user: User, amount: int) -> None:
    current = LadderProfile.objects.get(user=user).balance
    if amount != current:
        ladder_points_adjust(
            user=user, account="table", amount=amount - current, reason="test", by=None
        )


def balance(user: User) -> int:
    return LadderProfile.objects.get(user=user).balance


def problems() -> list[str]:
    return [problem.what for problem in ledger_problems()[2]]


# --- the daily relief grant -------------------------------------------------------------------


def test_relief_only_below_the_threshold_and_once_a_day() -> None:
    user = make_user()
    with pytest.raises(ApplicationError) as rich:
        ladder_relief_claim(user=user)  # 1000 ≥ 800
    assert rich.value.code == "relief_not_needed"
    set_balance(user, 799)
    entry = ladder_relief_claim(user=user)
    # Relief tops the balance up to the threshold (docs/LADDER.md, "Relief never rewards an
    # escape"): 799 gets 1.
    assert (entry.kind, entry.amount, entry.balance_after, entry.hand) == (
        "relief",
        1,
        800,
        None,
    )
    set_balance(user, 0)
    with pytest.raises(ApplicationError) as again:
        ladder_relief_claim(user=user)
    assert again.value.code == "relief_limit"
    assert balance(user) == 0
    assert not problems()


def test_relief_is_counted_per_day(settings: Any) -> None:
    settings.LADDER_RELIEF_PER_DAY = 2
    user = make_user()
    set_balance(user, 0)
    yesterday = timezone.now() - timedelta(days=1)
    entry = LedgerEntry.objects.create(  # yesterday's claim (as it was written then) does not count
        user=user, kind="relief", account="table", amount=800, balance_after=800,
        created_at=yesterday,
    )  # fmt: skip
    ReliefClaim.objects.create(entry=entry, day=timezone.localdate(yesterday))
    LadderProfile.objects.filter(user=user).update(balance=800)
    for _ in range(2):
        set_balance(user, 0)
        ladder_relief_claim(user=user)
    set_balance(user, 0)
    with pytest.raises(ApplicationError) as third:
        ladder_relief_claim(user=user)
    assert third.value.code == "relief_limit"
    assert not problems()


@pytest.mark.django_db(transaction=True)
def test_many_claims_at_once_give_relief_once(settings: Any) -> None:
    """A cheater's script claiming from many connections at once: the profile lock makes the
    daily limit hold (the threshold set high, so that the limit is what refuses)."""
    settings.LADDER_RELIEF_THRESHOLD = 10_000
    user = make_user()
    set_balance(user, 0)
    results: list[str] = []
    start = threading.Barrier(6, timeout=10)

    def claim() -> None:
        try:
            start.wait()
            ladder_relief_claim(user=user)
            results.append("ok")
        except ApplicationError as error:
            results.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(results) == ["ok"] + ["relief_limit"] * 5
    assert balance(user) == 800
    assert LedgerEntry.objects.filter(user=user, kind="relief").count() == 1


def test_relief_rows_are_positive_and_belong_to_no_hand() -> None:
    user = make_user()
    hand = make_hand(make_users())
    for amount, with_hand in ((-5, None), (5, hand)):
        with pytest.raises(IntegrityError), transaction.atomic():
            LedgerEntry.objects.create(
                user=user, kind="relief", account="table", amount=amount, balance_after=0,
                hand=with_hand,
            )  # fmt: skip


def test_relief_through_the_api(api: APIClient) -> None:
    user = make_user()
    api.force_authenticate(user)
    status = api.get("/api/me/relief/").json()
    assert status == {
        "balance": 1000, "threshold": 800, "amount": 0, "per_day": 1, "claimed_today": 0,
        "eligible": False, "next_at": None,
    }  # fmt: skip
    refused = api.post("/api/me/relief/")
    assert (refused.status_code, refused.json()["code"]) == (400, "relief_not_needed")
    set_balance(user, 10)
    assert api.get("/api/me/relief/").json()["amount"] == 790
    given = api.post("/api/me/relief/")
    assert given.status_code == 201
    assert given.json()["balance"] == 800 and given.json()["eligible"] is False
    assert given.json()["next_at"] is None  # at the threshold: not needed
    assert APIClient(**HTTPS).post("/api/me/relief/").status_code in (401, 403)


def test_relief_from_the_players_own_page(client: Client) -> None:
    user = make_user()
    other = make_user()
    client.force_login(user)
    page = client.get(f"/players/{user.username}/").content.decode()
    assert "Daily relief" in page and "above the relief threshold" in page
    assert "Daily relief" not in client.get(f"/players/{other.username}/").content.decode()
    set_balance(user, 100)
    page = client.get(f"/players/{user.username}/").content.decode()
    assert 'action="/ladder/me/relief/"' in page
    done = client.post("/ladder/me/relief/", follow=True).content.decode()
    assert "Relief: 700 table points (now 800)." in done
    above = client.post("/ladder/me/relief/", follow=True).content.decode()
    assert "(relief_not_needed)" in above
    set_balance(user, 0)
    again = client.post("/ladder/me/relief/", follow=True).content.decode()
    assert "(relief_limit)" in again and balance(user) == 0
    assert Client(**HTTPS).get("/ladder/me/relief/").status_code == 405


def test_the_admin_sees_relief_grants(client: Client) -> None:
    admin = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    user = make_user()
    set_balance(user, 0)
    ladder_relief_claim(user=user)
    client.force_login(admin)
    listing = client.get("/admin/ladder/ledgerentry/?kind__exact=relief").content.decode()
    assert "daily relief grant" in listing
    profile = client.get(f"/admin/ladder/ladderprofile/{user.pk}/change/").content.decode()
    assert "1 relief grant(s)" in profile


# --- ladder_check reports every breach ----------------------------------------------------------


def test_ladder_check_reports_a_shortfall_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A hand settled for a player holding less than it takes (a hand started without the
    check): the shortfall guard keeps the balance at 0, and ladder_check says so."""
    users = make_users()
    set_balance(users[0], 100)
    hand_settle(hand_id=make_hand(users, result={"attacker_points": 240}).pk)
    assert LedgerEntry.objects.filter(kind="shortfall").exists()
    assert balance(users[0]) == 0
    with pytest.raises(CommandError):
        call_command("ladder_check")
    err = capsys.readouterr().err
    assert f"user {users[0].pk}: hand" in err and "shortfall +" in err


def test_ladder_check_reports_the_house_paying(capsys: pytest.CaptureFixture[str]) -> None:
    """Rows as the old settlement wrote them for a bot seat: the house paid the table."""
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0})
    HandSettlement.objects.create(hand=hand, outcome={}, ranked=True)
    LedgerEntry.objects.bulk_create(
        [
            LedgerEntry(hand=hand, kind="bot_seat", account="table", amount=-390),
            LedgerEntry(hand=hand, kind="fee", account="table", amount=390),
        ]
    )
    found = problems()
    assert any("the house pays (bot_seat -390)" in what for what in found)
    with pytest.raises(CommandError):
        call_command("ladder_check")
    call_command("ladder_check", since_hand=hand.pk)  # history already reviewed
    assert "ok:" in capsys.readouterr().out


def test_ladder_check_reports_a_practice_hand_that_moved_points() -> None:
    users = make_users(3)
    hand = make_hand([users[0], users[1], None, users[2]], result={"attacker_points": 0})
    hand_settle(hand_id=hand.pk)
    assert not problems()
    LedgerEntry.objects.bulk_create(
        [
            LedgerEntry(hand=hand, kind="fee", account="table", amount=5),
            LedgerEntry(hand=hand, kind="escape_penalty", account="table", amount=-5),
        ]
    )
    found = problems()
    assert any("practice hand" in what for what in found)
    assert any("the house pays (escape_penalty -5)" in what for what in found)


def test_ladder_check_reports_relief_over_the_daily_limit(settings: Any) -> None:
    settings.LADDER_RELIEF_PER_DAY = 2
    user = make_user()
    for _ in range(2):
        set_balance(user, 0)
        ladder_relief_claim(user=user)
    assert not problems()
    settings.LADDER_RELIEF_PER_DAY = 1
    assert any("2 relief grants" in what for what in problems())


def test_ladder_check_reports_relief_past_its_top_up(settings: Any) -> None:
    """Relief tops a balance up to the threshold, never past it: a row written past it (by a
    script replaying the claim's insert, or a bug) is reported, as is one above the most a
    relief gives (the database refuses one that gives nothing or takes)."""
    settings.LADDER_RELIEF_THRESHOLD = 800
    settings.LADDER_RELIEF_AMOUNT = 800
    user = make_user()
    set_balance(user, 300)
    honest = ladder_relief_claim(user=user)
    assert (honest.amount, honest.balance_after) == (500, 800)
    assert not problems()

    LedgerEntry.objects.create(
        user=user, kind="relief", account="table", amount=400, balance_after=1200
    )
    found = problems()
    assert any("gave 400, to a balance of 1200" in what for what in found)
    assert not any(f"relief row {honest.pk} " in what for what in found)
    settings.LADDER_RELIEF_AMOUNT = 300  # the honest row now gave more than one relief may
    assert any(f"relief row {honest.pk} gave 500" in what for what in problems())


def test_ladder_check_passes_on_honest_hands() -> None:
    users = make_users()
    for user in users:
        set_balance(user, 100_000)  # holding what the hands can take, as the tables require
    for points in (0, 40, 120, 240):
        hand_settle(hand_id=make_hand(users, result={"attacker_points": points}).pk)
    for preset in ("seed002", "seed003", "seed004"):
        hand_settle(
            hand_id=make_hand(users, preset=preset, result={"attacker_points": 0}, absent=[1]).pk
        )
    assert not problems()
