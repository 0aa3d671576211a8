"""Limits shared by every server process, and the client address they count by.

In Redis: chat lines per user, password-reset requests, sign-ups per address, and open table
sockets per user or address. In PostgreSQL, through django-axes: failed log-ins per (user name,
address) and per address (docs/proof/BAD-INPUT.md lists the numbers, all in settings).

The client address is ``client_ip(request)`` for an HTTP request and ``client_ip_from_scope``
for an ASGI scope: X-Forwarded-For only from the proxies of ``settings.TRUSTED_PROXIES``
(docs/proof/SECURITY.md, "Client addresses").

The per-message token bucket of a socket lives in the consumer: it guards one connection and
needs no sharing. When Redis cannot be reached the Redis limits let requests through (and log
it): a Redis outage must not lock every player out.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import logging
import math
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

import redis
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

from accounts.errors import ApplicationError

logger = logging.getLogger(__name__)
T = TypeVar("T")

# KEYS: one sorted set of hit times (ms) per window; ARGV: now, a unique member, the mode
# ("hit": count it if every window allows; "check": count nothing; "add": count it anyway),
# then (limit, window ms) for each key. Returns the ms to wait before a hit is allowed (0 = now).
_WINDOWS_SCRIPT = """
local now, member, mode = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local wait = 0
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local count = redis.call('ZCARD', KEYS[i])
  if count >= limit then
    local oldest = redis.call('ZRANGE', KEYS[i], count - limit, count - limit, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + window - now, 1)
  end
end
if mode == 'add' or (mode == 'hit' and wait == 0) then
  for i = 1, #KEYS do
    redis.call('ZADD', KEYS[i], now, member)
    redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[3 + 2 * i]))
  end
end
return wait
"""

# KEYS[1]: the sockets of one user at one table, scored by when each was last heard of.
# ARGV: now (ms), the socket's channel name, the cap, how long a silent socket counts (ms).
_SOCKETS_SCRIPT = """
local now, member, cap, ttl = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
if not redis.call('ZSCORE', KEYS[1], member) and redis.call('ZCARD', KEYS[1]) >= cap then
  return 0
end
redis.call('ZADD', KEYS[1], now, member)
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
"""


@functools.cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)


def _redis() -> redis.Redis:
    return _client(settings.REDIS_URL)


def _key(*parts: object) -> str:
    return ":".join([settings.SHENGJI_RATELIMIT_PREFIX, *map(str, parts)])


def _digest(text: str) -> str:
    """User names and e-mail addresses are hashed: any text makes a short, safe key."""
    return hashlib.sha256(text.strip().casefold().encode()).hexdigest()[:32]


def _now_ms() -> int:
    return int(time.time() * 1000)


def _fail_open(default: T) -> Callable[[Callable[..., T]], Callable[..., T]]:
    def wrap(function: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> T:
            try:
                return function(*args, **kwargs)
            except redis.RedisError:
                logger.warning("rate limit %s skipped: Redis unreachable", function.__name__)
                return default

        return guarded

    return wrap


def _windows(mode: str, limits: Sequence[tuple[str, int, float]], member: str = "") -> int:
    """Run the window script over (key, limit, seconds) triples, counting ``member`` (a fresh
    one by default); the seconds to wait, rounded up (0 = allowed)."""
    now = _now_ms()
    args: list[str | int] = [now, member or f"{now}-{secrets.token_hex(4)}", mode]
    for _, limit, seconds in limits:
        args += [limit, max(1, int(seconds * 1000))]
    keys = [key for key, _, _ in limits]
    wait_ms = int(_redis().eval(_WINDOWS_SCRIPT, len(keys), *keys, *args))
    return math.ceil(wait_ms / 1000)


# --- chat ------------------------------------------------------------------------------------


def _chat_limits(user_id: int) -> list[tuple[str, int, float]]:
    burst = (settings.SHENGJI_CHAT_BURST_LINES, settings.SHENGJI_CHAT_BURST_S)
    long = (settings.SHENGJI_CHAT_LINES, settings.SHENGJI_CHAT_WINDOW_S)
    return [(_key("chat", "burst", user_id), *burst), (_key("chat", "long", user_id), *long)]


@_fail_open(0)
def chat_wait(*, user_id: int) -> int:
    """Count one chat line of the user (on every table and socket); the seconds to wait if the
    line is over the limit, and then it is not counted."""
    return _windows("hit", _chat_limits(user_id))


def chat_line_check(*, user_id: int) -> None:
    if chat_wait(user_id=user_id):
        raise ApplicationError("chat_rate_limited")


# --- a user's requests of one kind (托管 toggles, hints, quick-match joins and leaves) --------


def _action_limits(action: str, user_id: int) -> list[tuple[str, int, float]]:
    windows = settings.SHENGJI_ACTION_LIMITS[action]
    return [(_key(action, i, user_id), count, s) for i, (count, s) in enumerate(windows)]


@_fail_open(0)
def action_wait(*, action: str, user_id: int) -> int:
    """Count one request of ``action`` by the user (over all tables, sockets and pages); the
    seconds to wait if it is over a window of ``SHENGJI_ACTION_LIMITS``, and then it is not
    counted. Redis only: callers check it before any database read."""
    return _windows("hit", _action_limits(action, user_id))


def action_check(*, action: str, user_id: int) -> None:
    """``action_wait``, refused with ``rate_limited`` when over the limit."""
    if action_wait(action=action, user_id=user_id):
        raise ApplicationError("rate_limited")


# --- client addresses ------------------------------------------------------------------------

UNKNOWN_ADDRESS = "unknown"
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
# Headers only a proxy should send: from any other peer shengji_site.asgi drops them all.
FORWARDING_HEADERS = frozenset(
    {
        b"forwarded",
        b"x-forwarded-for",
        b"x-forwarded-host",
        b"x-forwarded-port",
        b"x-forwarded-proto",
        b"x-real-ip",
    }
)


def _parse_address(text: str) -> IPAddress | None:
    """An address as a peer or an X-Forwarded-For entry gives it ("203.0.113.7",
    "203.0.113.7:5000", "2001:db8::1", "[2001:db8::1]:443"); None for anything else. An
    IPv4-mapped IPv6 address becomes IPv4 and a zone (``%eth0``) is dropped: one spelling per
    client."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text.partition("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@functools.cache
def _networks(entries: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries)


def trusted_proxy_networks() -> tuple[IPNetwork, ...]:
    """``settings.TRUSTED_PROXIES``: the addresses and networks of the proxies in front of
    daphne (none by default)."""
    return _networks(tuple(settings.TRUSTED_PROXIES))


def _is_trusted(address: IPAddress, networks: Sequence[IPNetwork]) -> bool:
    return any(address in network for network in networks)


def is_trusted_proxy(peer: str | None) -> bool:
    """Whether the connection's peer is one of ``settings.TRUSTED_PROXIES``."""
    address = _parse_address(peer) if peer else None
    return address is not None and _is_trusted(address, trusted_proxy_networks())


def client_address(peer: str | None, forwarded_for: str | None) -> str:
    """The client's address, from the connection's peer and the X-Forwarded-For it sent.

    X-Forwarded-For is read only when the peer is a trusted proxy (``settings.TRUSTED_PROXIES``,
    none by default), and then from the right: each proxy appends the address it got the
    request from, so the client is the right-most entry that is not itself a trusted proxy
    (behind N trusted proxies, N hops from the right). Whatever stands further left was written
    by the client and is never read. An entry that is no address ends the walk at the last
    trusted hop. ``"unknown"`` when the peer is no address (a Unix socket, a test without one).
    """
    address = _parse_address(peer) if peer else None
    if address is None:
        return UNKNOWN_ADDRESS
    networks = trusted_proxy_networks()
    if forwarded_for and _is_trusted(address, networks):
        for hop in reversed(forwarded_for.split(",")):
            hop_address = _parse_address(hop)
            if hop_address is None:
                break
            address = hop_address
            if not _is_trusted(address, networks):
                break
    return str(address)


def client_ip(request: HttpRequest | None) -> str:
    """The client's address for an HTTP request: its peer (``REMOTE_ADDR``), or behind trusted
    proxies the address their X-Forwarded-For names (``client_address``). Every per-address
    limit uses it or ``client_ip_from_scope``. Under daphne shengji_site.asgi has already put
    that address in ``REMOTE_ADDR`` and dropped the header, so the answer is the same."""
    if request is None:
        return UNKNOWN_ADDRESS
    meta = request.META
    return client_address(meta.get("REMOTE_ADDR"), meta.get("HTTP_X_FORWARDED_FOR"))


def client_ip_from_scope(scope: Mapping[str, Any]) -> str:
    """The client's address for an ASGI scope (a socket's or an HTTP request's): the scope's
    ``client`` and its ``x-forwarded-for`` headers, read as ``client_address`` reads them."""
    client = scope.get("client")
    peer = str(client[0]) if client else None
    values = [
        value.decode("latin-1")
        for name, value in scope.get("headers") or ()
        if name.lower() == b"x-forwarded-for"
    ]
    return client_address(peer, ",".join(values) or None)


def network_of(address: str) -> str:
    """What one client holds of ``address`` (``client_ip``'s answer): an IPv4 address as it is,
    an IPv6 address as its /64 (one home or phone is given a whole /64, and picks any address in
    it), anything else as it is. The sign-up limits and the daily relief limit per address
    count by it."""
    parsed = _parse_address(address)
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{parsed}/64", strict=False))
    return str(parsed) if parsed is not None else address


# --- log-in: django-axes ---------------------------------------------------------------------


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


# --- password reset and sign-up --------------------------------------------------------------


@_fail_open(0)
def password_reset_wait(*, email: str, ip: str) -> int:
    """Count one password-reset request (whether or not the address is known, so the limit
    tells nothing); the seconds to wait if it is over the limit."""
    window = settings.SHENGJI_PASSWORD_RESET_WINDOW_S
    per_email = settings.SHENGJI_PASSWORD_RESETS_PER_EMAIL
    per_ip = settings.SHENGJI_PASSWORD_RESETS_PER_IP
    return _windows(
        "hit",
        [
            (_key("reset", "email", _digest(email)), per_email, window),
            (_key("reset", "ip", ip), per_ip, window),
        ],
    )


def _signup_limits(ip: str) -> list[tuple[str, int, float]]:
    """Counted by the client's network (``network_of``): an IPv6 client holds a whole /64."""
    network = network_of(ip)
    return [
        (_key("signup", "hour", network), settings.SHENGJI_SIGNUPS_PER_IP_PER_HOUR, 3600),
        (_key("signup", "day", network), settings.SHENGJI_SIGNUPS_PER_IP_PER_DAY, 86400),
    ]


@_fail_open((0, ""))
def signup_take(*, ip: str) -> tuple[int, str]:
    """Take one of the address's sign-up places (checked and counted at once, so sign-ups sent
    together cannot all pass): ``(0, receipt)``, or ``(seconds to wait, "")`` when there is
    none left."""
    member = f"{_now_ms()}-{secrets.token_hex(4)}"
    wait = _windows("hit", _signup_limits(ip), member=member)
    return wait, "" if wait else member


@_fail_open(None)
def signup_give_back(*, ip: str, receipt: str) -> None:
    """The sign-up made no account (the name was taken…): its place is free again."""
    if receipt:
        pipe = _redis().pipeline()
        for key, _, _ in _signup_limits(ip):
            pipe.zrem(key, receipt)
        pipe.execute()


# --- table sockets ---------------------------------------------------------------------------


def socket_owner(user: Any, client: Sequence[Any] | None) -> str:
    """Whose sockets these are: the user, or for anonymous spectators their address. ``client``
    is the scope's, which shengji_site.asgi has set to ``client_ip_from_scope``."""
    if getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return f"ip:{client_address(str(client[0]), None) if client else UNKNOWN_ADDRESS}"


def _socket_cap(owner: str) -> int:
    if owner.startswith("user:"):
        return int(settings.SHENGJI_SOCKETS_PER_USER)
    return int(settings.SHENGJI_SOCKETS_PER_IP)


def _socket_ttl_ms() -> int:
    return int(settings.SHENGJI_CONNECTION_TIMEOUT_S * 1000)


@_fail_open(True)
def socket_open(*, table_id: int, owner: str, channel_name: str) -> bool:
    """Count a new socket of ``owner`` at the table; False when it already has the most it
    may. Sockets unheard of (no ``ping``) for the connection timeout no longer count."""
    args: list[str | int] = [_now_ms(), channel_name, _socket_cap(owner), _socket_ttl_ms()]
    return bool(_redis().eval(_SOCKETS_SCRIPT, 1, _key("sockets", table_id, owner), *args))


@_fail_open(None)
def socket_touch(*, table_id: int, owner: str, channel_name: str) -> None:
    key = _key("sockets", table_id, owner)
    pipe = _redis().pipeline()
    pipe.zadd(key, {channel_name: _now_ms()}, xx=True)
    pipe.pexpire(key, _socket_ttl_ms())
    pipe.execute()


def _seated_key(table_id: int) -> str:
    return _key("seated", table_id)


@_fail_open(None)
def seated_address_note(*, table_id: int, address: str) -> None:
    """A seated player's socket at the table comes from ``address`` (noted at its opening and
    its touches; forgotten after the connection timeout unheard of)."""
    pipe = _redis().pipeline()
    pipe.zadd(_seated_key(table_id), {address: _now_ms()})
    pipe.pexpire(_seated_key(table_id), _socket_ttl_ms())
    pipe.execute()


@_fail_open(True)
def seated_address(*, table_id: int, address: str) -> bool:
    """Whether a seated player's socket at the table came from ``address`` within the
    connection timeout. Without Redis: True (a shown hand is then shown to nobody)."""
    score = _redis().zscore(_seated_key(table_id), address)
    return score is not None and score > _now_ms() - _socket_ttl_ms()


@_fail_open(None)
def socket_closed(*, table_id: int, owner: str, channel_name: str) -> None:
    _redis().zrem(_key("sockets", table_id, owner), channel_name)


# --- operators and tests ---------------------------------------------------------------------


def reset_all() -> int:
    """Forget every count under this site's prefix; returns how many keys went."""
    client = _redis()
    keys = list(client.scan_iter(match=_key("*"), count=500))
    return int(client.delete(*keys)) if keys else 0
