"""The log-in limit: failed log-ins per (user name, address) and per address, kept by
django-axes in PostgreSQL (table ``axes_accessattempt``, shared by every process). The settings
``AXES_*`` name the callables and the handler here; ``RateLimitedModelBackend`` is the log-in
every page and the API go through (docs/proof/BAD-INPUT.md lists the numbers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from axes.backends import AxesBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import (
    get_client_username,
    get_credentials,
    get_lockout_parameters,
)
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils import timezone

from accounts.client_address import UNKNOWN_ADDRESS, client_ip


def login_username(
    request: HttpRequest | None, credentials: Mapping[str, Any] | None = None
) -> str | None:
    """``AXES_USERNAME_CALLABLE``: the user name tried, as its failures are counted: trimmed
    and case-folded ("LIN" and "lin" share a count), at most 150 characters."""
    field = str(getattr(settings, "AXES_USERNAME_FORM_FIELD", "username"))
    value = (credentials or {}).get(field)
    if value is None and credentials is None and request is not None:
        value = request.POST.get(field)
    if not isinstance(value, str):
        return None
    return value.replace("\x00", "").strip().casefold()[:150]


def login_client_ip(request: HttpRequest | None) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: ``client_ip``; None when it is unknown (axes keeps the
    address in an ``inet`` column)."""
    address = client_ip(request)
    return None if address == UNKNOWN_ADDRESS else address


def login_cool_off(request: HttpRequest | None = None) -> timedelta:
    """``AXES_COOLOFF_TIME``: failures count for ``SHENGJI_LOGIN_WINDOW_S`` after the last one."""
    return timedelta(seconds=float(settings.SHENGJI_LOGIN_WINDOW_S))


def login_failure_limit(request: HttpRequest | None, credentials: Any = None) -> int:
    """``AXES_FAILURE_LIMIT``: the limit of one user name from one address."""
    return int(settings.SHENGJI_LOGIN_FAILURES_PER_USER_IP)


def _parameter_limit(parameter: str | Sequence[str]) -> int:
    names = {parameter} if isinstance(parameter, str) else set(parameter)
    if names == {"ip_address"}:
        return int(settings.SHENGJI_LOGIN_FAILURES_PER_IP)
    return int(settings.SHENGJI_LOGIN_FAILURES_PER_USER_IP)


class LoginAttempts(AxesDatabaseHandler):  # type: ignore[misc]
    """axes' database handler (the attempts are rows in PostgreSQL, shared by every process),
    with a limit for each of ``AXES_LOCKOUT_PARAMETERS``: one user name from one address at
    ``SHENGJI_LOGIN_FAILURES_PER_USER_IP``, one address under any names at the higher
    ``SHENGJI_LOGIN_FAILURES_PER_IP``. No user name is locked on its own: failures from
    elsewhere never shut its owner out.

    axes compares one number with one limit (``AXES_FAILURE_LIMIT``, the pair's), so
    ``get_failures`` scales the address's failures to it: ⌊failures × pair limit / address
    limit⌋ reaches the pair limit exactly when the failures reach the address limit."""

    def failures_by_parameter(
        self, request: HttpRequest, credentials: Mapping[str, Any] | None
    ) -> list[tuple[int, list[tuple[datetime, int]]]]:
        """For each lockout parameter: its limit, and its live attempt rows (time of the last
        failure, failures), oldest first."""
        parameters = get_lockout_parameters(request, credentials)
        attempts = self.get_user_attempts(request, credentials)
        return [
            (
                _parameter_limit(parameter),
                list(
                    rows.order_by("attempt_time").values_list(
                        "attempt_time", "failures_since_start"
                    )
                ),
            )
            for parameter, rows in zip(parameters, attempts, strict=True)
        ]

    def get_failures(self, request: HttpRequest, credentials: Any = None) -> int:
        pair_limit = login_failure_limit(request, credentials)
        return max(
            (
                sum(failures for _, failures in rows) * pair_limit // limit
                for limit, rows in self.failures_by_parameter(request, credentials)
            ),
            default=0,
        )

    def retry_after(self, request: HttpRequest, credentials: Mapping[str, Any] | None) -> int:
        """Seconds until every limit lets the request through again (at least 1): each row's
        failures stop counting a cool-off after its last one."""
        cool_off = login_cool_off(request)
        now = timezone.now()
        wait = 1.0
        for limit, rows in self.failures_by_parameter(request, credentials):
            remaining = sum(failures for _, failures in rows)
            for last, failures in rows:
                if remaining < limit:
                    break
                remaining -= failures
                wait = max(wait, (last + cool_off - now).total_seconds())
        return math.ceil(wait)

    def reset_user_attempts(self, request: HttpRequest, credentials: Any = None) -> int:
        """A successful log-in (``AXES_RESET_ON_SUCCESS``) forgives the failures of its user
        name from its address, and only those: not the name's from other addresses (the
        owner's log-in must not lift an attacker's lock-out), nor the address's under other
        names (one address may be trying many)."""
        count, _ = AccessAttempt.objects.filter(
            username=get_client_username(request, credentials),
            ip_address=request.axes_ip_address,  # type: ignore[attr-defined]
        ).delete()
        return int(count)


class RateLimitedModelBackend(AxesBackend):  # type: ignore[misc]
    """Django's user name and password check, behind django-axes' lock-out (``LoginAttempts``).
    Every log-in goes through it: the log-in page, the admin's and the API's token view. A try
    refused for too many failures sets ``request.login_retry_after`` (seconds), so the page and
    the API can say why and when."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        username = username or kwargs.get(get_user_model().USERNAME_FIELD)
        if not isinstance(username, str) or password is None:
            return None
        if request is None:
            # Every log-in a client can reach passes its request (the log-in forms, the admin's,
            # the API's token view); only code outside a request comes without one (the test
            # client's login(), a shell), and axes cannot count a try with no address.
            return ModelBackend.authenticate(self, None, username=username, password=password)
        try:
            super().authenticate(request, username=username, password=password)
        except AxesBackendPermissionDenied:
            handler = AxesProxyHandler.get_implementation()
            wait = 60
            if isinstance(handler, LoginAttempts):
                wait = handler.retry_after(request, get_credentials(username=username))
            request.login_retry_after = wait  # type: ignore[attr-defined]
            raise
        user = ModelBackend.authenticate(self, request, username=username, password=password)
        if user is None:
            # Stop here: the plain ModelBackend listed after this one would check it again.
            raise PermissionDenied
        return user
