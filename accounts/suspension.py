"""Telling a suspended account so (a ban, or the account made inactive), with the reason the
admin gave: on a page loaded with a session it had before (``SuspendedNoticeMiddleware``) and
when it tries to log in (``TellsWhenSuspended``). Its sockets are told by the socket itself
(docs/PROTOCOL.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib.auth import SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from accounts.models import User


def suspended_account(username: Any, password: Any) -> User | None:
    """The inactive account these credentials are right for, if any. Called only after the
    log-in was refused, and not when refused for too many tries (the password is checked only
    where the limits let the backend check it: no way around them)."""
    if not isinstance(username, str) or not isinstance(password, str):
        return None
    user = User.objects.filter(**{User.USERNAME_FIELD: username}, is_active=False).first()
    if user is None or not user.check_password(password):
        return None
    return user


def suspended_error(user: User) -> forms.ValidationError:
    if user.ban_reason:
        return forms.ValidationError(
            _("Your account is suspended. The reason given: %(reason)s"),
            code="account_suspended",
            params={"reason": user.ban_reason},
        )
    return forms.ValidationError(_("Your account is suspended."), code="account_suspended")


class TellsWhenSuspended:
    """A log-in form whose refusal of a suspended account's right password says so, and why,
    not "wrong password" (Django's backends refuse inactive accounts as unknown ones)."""

    request: HttpRequest | None
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        try:
            cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]
            return cleaned
        except forms.ValidationError:
            if getattr(self.request, "login_retry_after", None):
                raise  # locked out: the password was not checked, and is not now
            user = suspended_account(
                self.cleaned_data.get("username"), self.cleaned_data.get("password")
            )
            if user is None:
                raise
            raise suspended_error(user) from None


class SuspendedNoticeMiddleware:
    """A page loaded with the session of an account suspended since it logged in: the notice
    and the reason instead of the page (HTTP 403), and the session is logged out (a log-in
    says it again). Costs a query only then: Django finds no user for an inactive account's
    session, which still holds its id. Not for the API, which answers 403 itself."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            return self.get_response(request)
        user_id = request.session.get(SESSION_KEY)
        if user_id is None or request.user.is_authenticated:
            return self.get_response(request)
        found = User.objects.filter(pk=user_id, is_active=False).values_list("ban_reason").first()
        if found is None:
            return self.get_response(request)
        request.session.flush()
        return render(request, "accounts/suspended.html", {"reason": found[0]}, status=403)
