"""Response headers Django 5.2 does not set by itself, and the proxy headers the site trusts."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from channels.auth import AuthMiddleware
from channels.auth import get_user as _channels_get_user
from channels.db import DatabaseSyncToAsync
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings
from django.http import HttpRequest, HttpResponse

from accounts import client_address

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

logger = logging.getLogger(__name__)
_WARNED_PEERS: set[str] = set()


class ContentSecurityPolicyMiddleware:
    """Every page gets ``settings.CONTENT_SECURITY_POLICY``: scripts, styles and sockets only from
    the site itself, so an injected ``<script>`` or inline handler would not run. The pages
    keep to it: no inline script or style (data for the scripts goes in ``json_script``).
    A path under a prefix of ``settings.CONTENT_SECURITY_POLICY_BY_PATH`` gets that policy
    instead (the API's Swagger page loads its scripts from a CDN, with inline ones)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy: str = settings.CONTENT_SECURITY_POLICY
        for prefix, other in settings.CONTENT_SECURITY_POLICY_BY_PATH.items():
            if request.path.startswith(prefix):
                policy = other
        if policy:
            response.headers.setdefault("Content-Security-Policy", policy)
        return response


def trusted_scope(scope: Scope) -> Scope:
    """The scope as the site should see it: ``client`` is the client's address
    (``client_address.client_ip_from_scope``), X-Forwarded-For is gone (read once, here), and the
    other forwarding headers (X-Forwarded-Proto, read by ``SECURE_PROXY_SSL_HEADER``, and the
    rest) are kept only when the peer is one of ``settings.TRUSTED_PROXIES``."""
    client = scope.get("client")
    trusted = client_address.is_trusted_proxy(str(client[0]) if client else None)
    address = client_address.client_ip_from_scope(scope)
    dropped = {b"x-forwarded-for"} if trusted else client_address.FORWARDING_HEADERS
    headers = [
        (name, value) for name, value in scope.get("headers") or () if name.lower() not in dropped
    ]
    forwarded = len(headers) < len(scope.get("headers") or ())
    if forwarded and not trusted and address != client_address.UNKNOWN_ADDRESS:
        _warn_if_unconfigured_proxy(address)
    result = dict(scope, headers=headers)
    if address != client_address.UNKNOWN_ADDRESS:
        result["client"] = [address, 0 if trusted or not client else client[1]]
    return result


def _warn_if_unconfigured_proxy(peer: str) -> None:
    """Once per process and peer: a private or loopback peer sending forwarding headers is
    most likely a proxy the operator has not listed, and then every client counts as that one
    address (and HTTPS behind it is not seen)."""
    if peer in _WARNED_PEERS or len(_WARNED_PEERS) >= 64:
        return
    _WARNED_PEERS.add(peer)
    address = ipaddress.ip_address(peer)
    if address.is_private or address.is_loopback:
        logger.warning(
            "X-Forwarded-* headers from %s ignored: it is not in TRUSTED_PROXIES. If it is "
            "your proxy, list it there, or every client counts as that one address.",
            peer,
        )


class ProxyHeadersMiddleware:
    """ASGI middleware around the whole site (shengji_site/asgi.py), for HTTP and sockets alike:
    see ``trusted_scope``. daphne runs without ``--proxy-headers``, which would take the
    left-most X-Forwarded-For address, written by the client, from any peer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = trusted_scope(scope)
        await self.app(scope, receive, send)


class PooledAuthMiddleware(AuthMiddleware):  # type: ignore[misc]
    """Channels' ``AuthMiddleware``, its user lookup in the pool of database threads rather
    than in the one thread that every thread-sensitive call of the process shares (Django's
    page views among them): a burst of sockets opening, the start of many tables at once,
    would otherwise look up their users one at a time there."""

    async def resolve_scope(self, scope: Scope) -> None:
        lookup = DatabaseSyncToAsync(_channels_get_user.func, thread_sensitive=False)
        scope["user"]._wrapped = await lookup(scope)


def pooled_auth_stack(inner: Any) -> Any:
    """``channels.auth.AuthMiddlewareStack`` with ``PooledAuthMiddleware``."""
    return CookieMiddleware(SessionMiddleware(PooledAuthMiddleware(inner)))
