"""Issue 34, finding 7a: an API token outlived a password change and a reset. It is revoked
with the sessions now (``accounts.services.api_token_revoke``, from
``games/account_signals.py``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from rest_framework.authtoken.models import Token

from accounts.models import User
from accounts.services import user_ban, user_create
from tests.https import HTTPS

pytestmark = pytest.mark.django_db
PASSWORD = "pw-long-enough-1"
NEW_PASSWORD = "kitty-bonus-161"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def token_for(user: User, password: str = PASSWORD) -> str:
    """The token a script gets, as the audit got it: POST /api/auth/token/."""
    response = Client(**HTTPS).post(
        "/api/auth/token/", {"username": user.username, "password": password}
    )
    assert response.status_code == 200, response.content
    return str(response.json()["token"])


def me_with(token: str) -> int:
    response = Client(**HTTPS).get("/api/me/", HTTP_AUTHORIZATION=f"Token {token}")
    return response.status_code


REFUSED = 403  # DRF: a failed token, with session authentication listed first


def test_regression_api_tokens_survive_a_password_change() -> None:
    user = user_create(username="scripted", password=PASSWORD)
    token = token_for(user)
    assert me_with(token) == 200
    browser = Client(**HTTPS)
    browser.force_login(user)
    changed = browser.post(
        "/accounts/password_change/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert changed.status_code == 302
    assert me_with(token) == me_with("0" * 40) == REFUSED
    assert not Token.objects.filter(user=user).exists()
    assert me_with(token_for(user, NEW_PASSWORD)) == 200  # a new one, with the new password


def test_regression_api_tokens_survive_a_password_reset() -> None:
    user = user_create(username="resetter", password=PASSWORD, email="resetter@example.com")
    token = token_for(user)
    browser = Client(**HTTPS)
    browser.post("/accounts/password_reset/", {"email": "resetter@example.com"})
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+/)", str(mail.outbox[0].body))
    assert link is not None
    form = browser.get(link.group(1), follow=True)
    done = browser.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302
    assert me_with(token) == me_with("0" * 40) == REFUSED


def test_a_ban_revokes_the_token_so_an_unban_does_not_bring_it_back() -> None:
    user = user_create(username="banned", password=PASSWORD)
    token = token_for(user)
    user_ban(user=user, reason="test", by=None)
    assert not Token.objects.filter(key=token).exists()


def test_a_profile_save_or_a_log_out_keeps_the_token() -> None:
    user = user_create(username="keeps", password=PASSWORD)
    token = token_for(user)
    user.display_name = "Keeps"
    user.save()
    browser = Client(**HTTPS)
    browser.force_login(user)
    browser.post("/accounts/logout/")
    assert me_with(token) == 200
