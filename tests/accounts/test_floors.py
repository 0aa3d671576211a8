"""Accounts is the floor below the ladder and the games (docs/ARCHITECTURE.md, "Floors"): what
it used to call up now travels by events, and what sessions store still reads."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from accounts.services import user_ban, user_create, user_unban
from ladder.models import LadderProfile
from tests.https import HTTPS

PASSWORD = "tractor-pair-2026"


@pytest.mark.django_db
def test_a_session_that_names_the_backend_by_its_stored_path_stays_logged_in() -> None:
    """Sessions store the path of the backend that logged them in; the rate-limited backend's
    is ``games.ratelimits.RateLimitedModelBackend`` in every session started so far."""
    user = user_create(username="lan", password=PASSWORD)
    client = Client(**HTTPS)
    client.force_login(user, backend="games.ratelimits.RateLimitedModelBackend")
    assert client.get("/accounts/me/")["Location"] == "/players/lan/"  # logged in: own page
    client.logout()
    assert (
        client.post("/accounts/login/", {"username": "lan", "password": PASSWORD}).status_code
        == 302
    )
    assert client.session["_auth_user_backend"] == "games.ratelimits.RateLimitedModelBackend"


@pytest.mark.django_db
def test_a_new_account_gets_its_ladder_profile_and_a_ban_hides_it_by_events() -> None:
    user = user_create(username="mei", password=PASSWORD)
    assert LadderProfile.objects.filter(user=user).exists()
    banned = user_ban(user=user, reason="collusion", by=None)
    assert not LadderProfile.objects.get(user=banned).listed
    user_unban(user=User.objects.get(pk=user.pk), reason="appeal", by=None)
    assert LadderProfile.objects.get(user=user).listed
