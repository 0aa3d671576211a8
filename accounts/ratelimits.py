"""The limits kept in Redis, shared by every server process: chat lines per user, a user's
requests of one kind (``SHENGJI_ACTION_LIMITS``), API token requests and password-reset
requests and sign-ups per address,
and open table sockets per user or address. docs/OPERATIONS.md ("Settings an operator may
tune") gives the numbers and says why each is this module's script and not the ``limits``
package's.

Elsewhere: failed log-ins (django-axes, in PostgreSQL) in ``accounts.logins``; the client
address every per-address limit counts by in ``accounts.client_address``; each socket's
per-message token bucket in the consumer (it guards one connection and needs no sharing). When
Redis cannot be reached these limits let requests through (``accounts.shared_redis.fail_open``).
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Sequence
from typing import Any

from django.conf import settings

# The client address also under the names the socket consumers and the ladder reach it by.
from accounts.client_address import UNKNOWN_ADDRESS, client_address, network_of
from accounts.errors import ApplicationError
from accounts.shared_redis import client as _redis
from accounts.shared_redis import fail_open
from accounts.shared_redis import key as _key
from accounts.shared_redis import now_ms as _now_ms

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


def _digest(text: str) -> str:
    """User names and e-mail addresses are hashed: any text makes a short, safe key."""
    return hashlib.sha256(text.strip().casefold().encode()).hexdigest()[:32]


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


@fail_open(0)
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


@fail_open(0)
def action_wait(*, action: str, user_id: int) -> int:
    """Count one request of ``action`` by the user (over all tables, sockets and pages); the
    seconds to wait if it is over a window of ``SHENGJI_ACTION_LIMITS``, and then it is not
    counted. Redis only: callers check it before any database read."""
    return _windows("hit", _action_limits(action, user_id))


def action_check(*, action: str, user_id: int) -> None:
    """``action_wait``, refused with ``rate_limited`` when over the limit."""
    if action_wait(action=action, user_id=user_id):
        raise ApplicationError("rate_limited")


# --- the API's token route -------------------------------------------------------------------

TOKEN_REQUESTS_PER_MINUTE = 20


@fail_open(0)
def token_request_wait(*, ip: str) -> int:
    """Count one request for an API token (a user name and password tried) from the client's
    network, on every server process; the seconds to wait if it is over
    ``TOKEN_REQUESTS_PER_MINUTE``, and then it is not counted."""
    key = _key("token", network_of(ip))
    return _windows("hit", [(key, TOKEN_REQUESTS_PER_MINUTE, 60)])


# --- password reset and sign-up --------------------------------------------------------------


@fail_open(0)
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


@fail_open((0, ""))
def signup_take(*, ip: str) -> tuple[int, str]:
    """Take one of the address's sign-up places (checked and counted at once, so sign-ups sent
    together cannot all pass): ``(0, receipt)``, or ``(seconds to wait, "")`` when there is
    none left."""
    member = f"{_now_ms()}-{secrets.token_hex(4)}"
    wait = _windows("hit", _signup_limits(ip), member=member)
    return wait, "" if wait else member


@fail_open(None)
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


@fail_open(True)
def socket_open(*, table_id: int, owner: str, channel_name: str) -> bool:
    """Count a new socket of ``owner`` at the table; False when it already has the most it
    may. Sockets unheard of (no ``ping``) for the connection timeout no longer count."""
    args: list[str | int] = [_now_ms(), channel_name, _socket_cap(owner), _socket_ttl_ms()]
    return bool(_redis().eval(_SOCKETS_SCRIPT, 1, _key("sockets", table_id, owner), *args))


@fail_open(None)
def socket_touch(*, table_id: int, owner: str, channel_name: str) -> None:
    key = _key("sockets", table_id, owner)
    pipe = _redis().pipeline()
    pipe.zadd(key, {channel_name: _now_ms()}, xx=True)
    pipe.pexpire(key, _socket_ttl_ms())
    pipe.execute()


def _seated_key(table_id: int) -> str:
    return _key("seated", table_id)


@fail_open(None)
def seated_address_note(*, table_id: int, address: str) -> None:
    """A seated player's socket at the table comes from ``address`` (noted at its opening and
    its touches; forgotten after the connection timeout unheard of)."""
    pipe = _redis().pipeline()
    pipe.zadd(_seated_key(table_id), {address: _now_ms()})
    pipe.pexpire(_seated_key(table_id), _socket_ttl_ms())
    pipe.execute()


@fail_open(True)
def seated_address(*, table_id: int, address: str) -> bool:
    """Whether a seated player's socket at the table came from ``address`` within the
    connection timeout. Without Redis: True (a shown hand is then shown to nobody)."""
    score = _redis().zscore(_seated_key(table_id), address)
    return score is not None and score > _now_ms() - _socket_ttl_ms()


@fail_open(None)
def socket_closed(*, table_id: int, owner: str, channel_name: str) -> None:
    _redis().zrem(_key("sockets", table_id, owner), channel_name)


# --- operators and tests ---------------------------------------------------------------------


def reset_all() -> int:
    """Forget every count under this site's prefix; returns how many keys went."""
    client = _redis()
    keys = list(client.scan_iter(match=_key("*"), count=500))
    return int(client.delete(*keys)) if keys else 0
