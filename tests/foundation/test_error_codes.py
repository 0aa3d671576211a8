"""One error class and one list of codes (accounts/errors.py ``CODES``): every code the site
raises is in the list, and nothing but a code of the list, with its own message, reaches a
client — not an engine error's text, not the API framework's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.test import Client, RequestFactory
from rest_framework import exceptions
from rest_framework.test import APIClient

from accounts.errors import CODES, ApplicationError, is_known_code, message_for
from shengji.engine import (
    ACTION_REASON_CODES,
    REASON_CODES,
    IllegalPlayError,
    InvalidOptionError,
)
from shengji_site.errors import api_exception_handler
from tests.https import HTTPS

ROOT = Path(__file__).resolve().parents[2]
SITE_PACKAGES = ("accounts", "games", "ladder", "shengji_site", "shengji")


def _literal_code(node: ast.AST) -> str | None:
    """The code a node names: the first argument of an ApplicationError or a settlement's
    refusal, or a frame's ``"code"`` in a dict written out (an API answer, a socket frame)."""
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        if name in {"ApplicationError", "SettlementError"} and isinstance(first, ast.Constant):
            return str(first.value)
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if (
                isinstance(key, ast.Constant)
                and key.value == "code"
                and isinstance(value, ast.Constant)
                and value.value  # a chat line's empty code is no error
            ):
                return str(value.value)
    return None


def _raised_codes() -> dict[str, list[str]]:
    """Each literal code the site raises or sends, where."""
    found: dict[str, list[str]] = {}
    for package in SITE_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                code = _literal_code(node)
                if code is not None:
                    where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                    found.setdefault(code, []).append(where)
    return found


def test_every_code_the_site_raises_is_in_the_one_list() -> None:
    raised = _raised_codes()
    assert len(raised) > 60  # the scan sees the raise sites
    unknown = {code: where for code, where in raised.items() if code not in CODES}
    assert unknown == {}


def test_every_refusal_of_a_players_action_is_in_the_list() -> None:
    """The engine's reasons for refusing a move are sent to the mover with their code."""
    assert [c for c in (*REASON_CODES, *ACTION_REASON_CODES) if not is_known_code(c)] == []


def test_every_code_has_a_message_of_its_own() -> None:
    assert [code for code in CODES if message_for(code) == code] == []


def test_an_engine_error_of_no_listed_code_reaches_the_mover_as_internal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    error = ApplicationError.from_engine(InvalidOptionError("the secret option 'x=kitty 5S'"))
    assert error.code == "internal" and "kitty" not in error.message
    assert "kitty" in caplog.text  # the server keeps the fault's text; the player gets none
    refusal = ApplicationError.from_engine(IllegalPlayError("must_follow_suit", "5S"))
    assert refusal.code == "must_follow_suit"


@pytest.mark.django_db
def test_an_unknown_token_is_answered_with_a_code_not_the_frameworks_text() -> None:
    api = APIClient(HTTP_X_FORWARDED_PROTO="https")
    api.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    response = api.get("/api/me/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code in (401, 403)
    assert response.json() == {
        "code": "credentials_invalid",
        "message": message_for("credentials_invalid"),
    }


@pytest.mark.django_db
def test_a_refused_method_and_a_missing_login_are_answered_with_codes() -> None:
    api = APIClient(HTTP_X_FORWARDED_PROTO="https")
    assert api.get("/api/me/").json()["code"] in ("login_required", "credentials_invalid")
    refused = Client(**HTTPS).delete("/api/leaderboards/title/")
    assert refused.status_code == 405
    assert refused.json() == {
        "code": "method_not_allowed",
        "message": message_for("method_not_allowed"),
    }


@pytest.mark.django_db
def test_a_throttled_request_says_how_long_to_wait_in_the_apis_shape() -> None:
    cache.clear()
    api = APIClient(HTTP_X_FORWARDED_PROTO="https")
    answers = [
        api.post("/api/auth/token/", {"username": "nobody", "password": "wrong"}) for _ in range(40)
    ]
    throttled = [a for a in answers if a.status_code == 429]
    assert throttled, [a.status_code for a in answers]
    body = throttled[0].json()
    assert body["code"] == "too_many_attempts"
    assert str(body["retry_after"]) in body["message"]  # the view's own words: how long
    assert isinstance(body["retry_after"], int) and body["retry_after"] >= 1
    assert "detail" not in body


def test_the_frameworks_throttle_is_answered_in_the_apis_shape() -> None:
    """DRF's own refusals (a throttle, a malformed body) go through the site's handler."""
    request = RequestFactory().get("/api/me/")
    answer = api_exception_handler(exceptions.Throttled(wait=4.2), {"request": request})
    assert answer is not None and answer.status_code == 429
    assert answer.data == {
        "code": "rate_limited",
        "message": message_for("rate_limited"),
        "wait": 5,
    }
    assert answer["Retry-After"] == "5"
    malformed = exceptions.ValidationError({"password": ["This field is required."]})
    answer = api_exception_handler(malformed, {"request": request})
    assert answer is not None and answer.status_code == 400
    assert answer.data == {
        "code": "bad_request",
        "message": message_for("bad_request"),
        "fields": ["password"],
    }
    assert api_exception_handler(ValueError("secret text"), {"request": request}) is None


@pytest.mark.django_db
def test_djangos_own_refusals_in_an_api_view_are_answered_with_codes_not_their_text() -> None:
    """The framework answers an unknown ``?format=`` with Django's Http404; a view's Http404 or
    PermissionDenied would carry the view's text."""
    unknown_format = Client(**HTTPS).get("/api/leaderboards/title/?format=xyz")
    assert unknown_format.status_code == 404
    assert unknown_format.json() == {"code": "not_found", "message": "no such resource"}
    request = RequestFactory().get("/api/me/")
    for raised, status, code in (
        (Http404("no Hand matches secret 42"), 404, "not_found"),
        (PermissionDenied("the secret reason"), 403, "not_allowed"),
    ):
        answer = api_exception_handler(raised, {"request": request})
        assert answer is not None and answer.status_code == status
        assert answer.data["code"] == code and "secret" not in str(answer.data)
