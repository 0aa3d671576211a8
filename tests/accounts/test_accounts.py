"""Sign up, log in and out, change and reset the password, settings, API token, bans."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from django.core import mail
from django.test import Client
from rest_framework.authtoken.models import Token

from accounts.models import User
from accounts.services import user_ban, user_create, user_unban, user_update_settings
from ladder.errors import ApplicationError
from ladder.models import LadderProfile, LedgerEntry

if TYPE_CHECKING:
    from django.test.client import _MonkeyPatchedWSGIResponse as TestResponse

pytestmark = pytest.mark.django_db
PASSWORD = "tractor-pairs-88"


def signup(client: Client, username: str = "小明", email: str = "") -> TestResponse:
    return client.post(
        "/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def test_signup_creates_the_account_logs_in_and_grants_points(client: Client) -> None:
    response = signup(client)
    # A new player lands on the home page's quick match and practice (issue 33).
    assert response.status_code == 302 and response["Location"] == "/"
    user = User.objects.get(username="小明")
    assert user.email == "" and user.check_password(PASSWORD)
    assert LadderProfile.objects.get(user=user).balance == 1000
    assert LedgerEntry.objects.filter(user=user, kind="grant").count() == 1
    me = client.get("/accounts/me/")
    assert me["Location"] == "/players/%E5%B0%8F%E6%98%8E/"
    assert client.get(me["Location"]).context["player"] == user


def test_signup_page_renders_and_refuses_bad_input(client: Client) -> None:
    assert client.get("/accounts/signup/").status_code == 200
    signup(client, "taken")
    client.logout()
    again = signup(client, "TAKEN")
    assert again.status_code == 200
    assert "username" in again.context["form"].errors
    mismatch = client.post(
        "/accounts/signup/",
        {"username": "x1", "password1": PASSWORD, "password2": PASSWORD + "!"},
    )
    assert "password2" in mismatch.context["form"].errors
    weak = client.post(
        "/accounts/signup/", {"username": "x2", "password1": "123", "password2": "123"}
    )
    assert "password1" not in weak.context["form"].errors  # the service's error goes on the form
    assert weak.context["form"].errors
    assert not User.objects.filter(username__in=["x1", "x2"]).exists()


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"username": "  "}, "username_required"),
        ({"username": "a b"}, "username_invalid"),
        ({"password": "123"}, "password_invalid"),
        ({"email": "not-mail"}, "email_invalid"),
    ],
)
def test_user_create_errors(kwargs: dict[str, str], code: str) -> None:
    args = {"username": "ok_name", "password": PASSWORD, "email": "", **kwargs}
    with pytest.raises(ApplicationError) as error:
        user_create(**args)
    assert error.value.code == code


def test_login_and_logout(client: Client) -> None:
    user_create(username="lin", password=PASSWORD)
    assert client.get("/accounts/login/").status_code == 200
    wrong = client.post("/accounts/login/", {"username": "lin", "password": "nope"})
    assert wrong.status_code == 200 and "_auth_user_id" not in client.session
    ok = client.post("/accounts/login/", {"username": "lin", "password": PASSWORD})
    assert ok.status_code == 302 and ok["Location"] == "/accounts/me/"
    assert client.session["_auth_user_id"]
    out = client.post("/accounts/logout/")
    assert out.status_code == 302 and out["Location"] == "/"
    assert "_auth_user_id" not in client.session


def test_login_sets_the_users_language(client: Client) -> None:
    user = user_create(username="ann", password=PASSWORD)
    user_update_settings(user=user, display_name="Ann", language="en")
    response = client.post("/accounts/login/", {"username": "ann", "password": PASSWORD})
    assert response.cookies["django_language"].value == "en"
    page = client.get("/ladder/")
    assert page["Content-Language"] == "en"


def test_password_change(client: Client) -> None:
    user = user_create(username="wang", password=PASSWORD)
    client.force_login(user)
    assert client.get("/accounts/password_change/").status_code == 200
    response = client.post(
        "/accounts/password_change/",
        {
            "old_password": PASSWORD,
            "new_password1": "kitty-bonus-161",
            "new_password2": "kitty-bonus-161",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("kitty-bonus-161")


def test_password_reset_by_mail(client: Client) -> None:
    user = user_create(username="zhao", password=PASSWORD, email="zhao@example.com")
    assert client.get("/accounts/password_reset/").status_code == 200
    client.post("/accounts/password_reset/", {"email": "zhao@example.com"})
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["zhao@example.com"] and "zhao" in message.body
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+/)", str(message.body))
    assert link is not None
    form = client.get(link.group(1), follow=True)
    assert form.context["validlink"]
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "trump-suit-2026", "new_password2": "trump-suit-2026"},
    )
    assert done.status_code == 302
    user.refresh_from_db()
    assert user.check_password("trump-suit-2026")


def test_password_reset_for_an_unknown_address_sends_nothing(client: Client) -> None:
    response = client.post("/accounts/password_reset/", {"email": "ghost@example.com"})
    assert response.status_code == 302
    assert mail.outbox == []


def test_settings_page(client: Client) -> None:
    user = user_create(username="li", password=PASSWORD)
    client.force_login(user)
    assert client.get("/accounts/settings/").status_code == 200
    response = client.post("/accounts/settings/", {"display_name": "李四", "language": "zh-hant"})
    assert response.status_code == 302
    assert response.cookies["django_language"].value == "zh-hant"
    user.refresh_from_db()
    assert (user.display_name, user.language) == ("李四", "zh-hant")
    bad = client.post("/accounts/settings/", {"display_name": "x", "language": "klingon"})
    assert bad.status_code == 200 and bad.context["form"].errors


def test_pages_that_need_a_login_redirect_to_it(client: Client) -> None:
    for url in ("/accounts/settings/", "/accounts/token/", "/accounts/me/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")


def test_token_page_creates_and_replaces_the_token(client: Client) -> None:
    user = user_create(username="qian", password=PASSWORD)
    client.force_login(user)
    assert client.get("/accounts/token/").context["token"] is None
    client.post("/accounts/token/")
    first = Token.objects.get(user=user).key
    assert first in client.get("/accounts/token/").content.decode()
    client.post("/accounts/token/")
    assert Token.objects.get(user=user).key != first


def test_a_banned_user_cannot_log_in_and_their_session_and_token_stop(client: Client) -> None:
    user = user_create(username="cheat", password=PASSWORD)
    token = Token.objects.create(user=user)
    client.force_login(user)
    assert client.get("/api/me/").status_code == 200
    user_ban(user=user, reason="collusion", by=None)
    assert client.get("/api/me/").status_code == 403
    login = Client(HTTP_X_FORWARDED_PROTO="https")
    login.post("/accounts/login/", {"username": "cheat", "password": PASSWORD})
    assert "_auth_user_id" not in login.session
    script = Client(HTTP_X_FORWARDED_PROTO="https", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert script.get("/api/me/").status_code == 403
    assert login.get("/players/cheat/").status_code == 404
    # The banned user's own session is told why instead (tests/accounts/test_sessions_end.py).
    assert client.get("/players/cheat/").status_code == 403
    with pytest.raises(ApplicationError) as twice:
        user_ban(user=user, reason="again", by=None)
    assert twice.value.code == "already_banned"
    user_unban(user=user, reason="appeal accepted", by=None)
    assert login.login(username="cheat", password=PASSWORD)


def test_ban_needs_a_reason() -> None:
    user = user_create(username="quiet", password=PASSWORD)
    with pytest.raises(ApplicationError) as error:
        user_ban(user=user, reason=" ", by=None)
    assert error.value.code == "reason_required"
    user.refresh_from_db()
    assert user.is_active and not user.is_banned


def test_nav_links_for_visitors_and_members(client: Client) -> None:
    html = client.get("/").content.decode()
    assert 'href="/accounts/signup/"' in html and 'href="/accounts/login/"' in html
    client.force_login(user_create(username="zhou", password=PASSWORD))
    html = client.get("/").content.decode()
    assert 'action="/accounts/logout/"' in html and 'href="/accounts/me/"' in html
