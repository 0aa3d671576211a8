"""The client's address, as every limit per address counts it: ``client_ip(request)`` for an
HTTP request, ``client_ip_from_scope`` for an ASGI scope (a socket's or a request's).
X-Forwarded-For is read only from the proxies of ``settings.TRUSTED_PROXIES``, from the right
(docs/proof/SECURITY.md, "Client addresses"); ``network_of`` is what one client holds (an IPv6
address's /64).
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.http import HttpRequest

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
