"""Limits kept in Redis, so every server process counts the same: chat lines per user, failed
log-ins per user name and per client address, password-reset requests, and open table sockets
per user (docs/proof/BAD-INPUT.md lists the numbers, all in settings).

The per-message token bucket of a socket lives in the consumer: it guards one connection and
needs no sharing. When Redis cannot be reached these limits let requests through (and log it):
a Redis outage must not lock every player out of logging in.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from games.errors import ApplicationError

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


def _windows(mode: str, limits: Sequence[tuple[str, int, float]]) -> int:
    """Run the window script over (key, limit, seconds) triples; the seconds to wait, rounded
    up (0 = allowed)."""
    now = _now_ms()
    args: list[str | int] = [now, f"{now}-{secrets.token_hex(4)}", mode]
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


# --- log-in and password reset ---------------------------------------------------------------


def client_ip(request: HttpRequest | None) -> str:
    """The client's address. daphne runs with --proxy-headers, so behind the TLS proxy this is
    the X-Forwarded-For address the proxy passed on, not the proxy's own."""
    address = None if request is None else request.META.get("REMOTE_ADDR")
    return address or "unknown"


def _login_limits(username: str, ip: str) -> list[tuple[str, int, float]]:
    window = settings.SHENGJI_LOGIN_WINDOW_S
    per_user = settings.SHENGJI_LOGIN_FAILURES_PER_USER
    per_ip = settings.SHENGJI_LOGIN_FAILURES_PER_IP
    return [
        (_key("login", "user", _digest(username)), per_user, window),
        (_key("login", "ip", ip), per_ip, window),
    ]


@_fail_open(0)
def login_wait(*, username: str, ip: str) -> int:
    """Seconds until a log-in as ``username`` from ``ip`` may be tried again (0 = now)."""
    return _windows("check", _login_limits(username, ip))


@_fail_open(None)
def login_failed(*, username: str, ip: str) -> None:
    _windows("add", _login_limits(username, ip))


@_fail_open(None)
def login_succeeded(*, username: str) -> None:
    """The user name's failures are forgiven; the address's are not (one address may be
    trying many names)."""
    _redis().delete(_key("login", "user", _digest(username)))


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


class RateLimitedModelBackend(ModelBackend):
    """Django's user name and password check, refused while the user name or the address has
    too many recent failures. Every log-in goes through it: the log-in page, the admin's and
    the API's token view. A refusal for that reason sets ``request.login_retry_after``
    (seconds), so the page can say why."""

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
        ip = client_ip(request)
        wait = login_wait(username=username, ip=ip)
        if wait:
            if request is not None:
                request.login_retry_after = wait  # type: ignore[attr-defined]
            raise PermissionDenied
        user = super().authenticate(request, username=username, password=password)
        if user is None:
            login_failed(username=username, ip=ip)
            # Stop here: the plain ModelBackend listed after this one would check it again.
            raise PermissionDenied
        login_succeeded(username=username)
        return user


# --- table sockets ---------------------------------------------------------------------------


def socket_owner(user: Any, client: Sequence[Any] | None) -> str:
    """Whose sockets these are: the user, or for anonymous spectators their address."""
    if getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return f"ip:{client[0] if client else 'unknown'}"


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


@_fail_open(None)
def socket_closed(*, table_id: int, owner: str, channel_name: str) -> None:
    _redis().zrem(_key("sockets", table_id, owner), channel_name)


# --- operators and tests ---------------------------------------------------------------------


def reset_all() -> int:
    """Forget every count under this site's prefix; returns how many keys went."""
    client = _redis()
    keys = list(client.scan_iter(match=_key("*"), count=500))
    return int(client.delete(*keys)) if keys else 0
