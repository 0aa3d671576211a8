"""Admin: bans with a reason, points adjusted only by a ledger entry, the ledger read-only."""

from __future__ import annotations

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.test import Client

from accounts.models import BanRecord, User
from ladder.models import LadderProfile, LedgerEntry
from tests.ladder.helpers import PASSWORD, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> User:
    admin = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    client.force_login(admin)
    return admin


def test_ban_asks_for_a_reason_then_bans(client: Client, staff: User) -> None:
    user = make_user()
    ask = client.post(
        "/admin/accounts/user/", {"action": "ban_users", ACTION_CHECKBOX_NAME: [user.pk]}
    )
    assert ask.status_code == 200
    assert b'name="reason"' in ask.content
    user.refresh_from_db()
    assert not user.is_banned
    done = client.post(
        "/admin/accounts/user/",
        {"action": "ban_users", ACTION_CHECKBOX_NAME: [user.pk], "apply": "1", "reason": "bots"},
    )
    assert done.status_code == 302
    user.refresh_from_db()
    assert user.is_banned and not user.is_active and user.ban_reason == "bots"
    assert not LadderProfile.objects.get(user=user).listed
    record = BanRecord.objects.get(user=user)
    assert (record.banned, record.reason, record.by) == (True, "bots", staff)


def test_unban_with_a_reason(client: Client, staff: User) -> None:
    from accounts.services import user_ban

    user = make_user()
    user_ban(user=user, reason="spam", by=staff)
    client.post(
        "/admin/accounts/user/",
        {"action": "unban_users", ACTION_CHECKBOX_NAME: [user.pk], "apply": "1", "reason": "ok"},
    )
    user.refresh_from_db()
    assert not user.is_banned and user.is_active
    assert LadderProfile.objects.get(user=user).listed
    assert list(BanRecord.objects.filter(user=user).values_list("banned", "reason")) == [
        (False, "ok"),
        (True, "spam"),
    ]


def test_a_ban_without_a_reason_bans_nobody(client: Client, staff: User) -> None:
    user = make_user()
    again = client.post(
        "/admin/accounts/user/",
        {"action": "ban_users", ACTION_CHECKBOX_NAME: [user.pk], "apply": "1", "reason": ""},
    )
    assert again.status_code == 200  # the form again, with its error
    user.refresh_from_db()
    assert not user.is_banned


def test_points_adjustment_writes_a_ledger_entry(client: Client, staff: User) -> None:
    user = make_user()
    url = f"/admin/ladder/ladderprofile/{user.pk}/adjust/"
    assert client.get(url).status_code == 200
    response = client.post(url, {"account": "table", "amount": "-250", "reason": "refund abuse"})
    assert response.status_code == 302
    entry = LedgerEntry.objects.filter(user=user).latest("id")
    assert (entry.kind, entry.amount, entry.balance_after, entry.reason, entry.created_by) == (
        "admin_adjust", -250, 750, "refund abuse", staff,
    )  # fmt: skip
    assert LadderProfile.objects.get(user=user).balance == 750
    too_much = client.post(url, {"account": "table", "amount": "-751", "reason": "x"})
    assert too_much.status_code == 200 and b"balance_negative" in too_much.content
    assert LadderProfile.objects.get(user=user).balance == 750


def test_balances_and_the_ledger_cannot_be_edited_in_the_admin(client: Client, staff: User) -> None:
    user = make_user()
    entry = LedgerEntry.objects.get(user=user)
    change = client.post(
        f"/admin/ladder/ladderprofile/{user.pk}/change/", {"balance": "999999", "title_points": "5"}
    )
    assert change.status_code == 403
    assert LadderProfile.objects.get(user=user).balance == 1000
    assert (
        client.post(f"/admin/ladder/ledgerentry/{entry.pk}/change/", {"amount": 5}).status_code
        == 403
    )
    assert (
        client.post(f"/admin/ladder/ledgerentry/{entry.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert client.get("/admin/ladder/ledgerentry/add/").status_code == 403
    view = client.get(f"/admin/ladder/ledgerentry/{entry.pk}/change/")
    assert view.status_code == 200  # view-only page
    assert LedgerEntry.objects.get(pk=entry.pk).amount == 1000


def test_adjusting_needs_the_permission(client: Client) -> None:
    clerk = User.objects.create_user("clerk", password=PASSWORD, is_staff=True)
    client.force_login(clerk)
    user = make_user()
    assert client.get(f"/admin/ladder/ladderprofile/{user.pk}/adjust/").status_code == 403
