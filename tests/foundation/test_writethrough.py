"""daphne's writes sent at once (shengji_site/writethrough.py), on real sockets and a real
Twisted connection: what the socket takes goes out before any turn of the reactor, the rest
is buffered in order behind it, and a lost peer is Twisted's to report as before."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from twisted.internet import tcp
from twisted.internet.protocol import Protocol
from twisted.internet.selectreactor import SelectReactor

from shengji_site.writethrough import _buffered_write as twisteds_write
from shengji_site.writethrough import write_through
from tests.foundation.test_serve import python_with


@pytest.fixture
def pair() -> Iterator[tuple[Any, socket.socket]]:
    """A Twisted TCP connection on one end of a socket pair (its reactor never runs), and
    the peer's end."""
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    peer.setblocking(False)
    protocol: Any = Protocol()
    connection: Any = tcp.Connection(ours, protocol, SelectReactor())
    connection.connected = 1
    yield connection, peer
    ours.close()
    peer.close()


def read_all(peer: socket.socket) -> bytes:
    chunks: list[bytes] = []
    while True:
        try:
            chunk = peer.recv(1 << 20)
        except BlockingIOError:
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def test_a_write_with_nothing_waiting_is_on_the_peer_before_the_reactor_turns(
    pair: tuple[Any, socket.socket],
) -> None:
    connection, peer = pair
    write_through(connection, b"a frame")
    assert read_all(peer) == b"a frame"
    assert connection.dataBuffer == b"" and connection._tempDataLen == 0
    assert connection not in connection.reactor.getWriters()  # nothing left to write later


def test_twisteds_own_write_waits_for_the_reactor(
    pair: tuple[Any, socket.socket],
) -> None:
    """What the module changes: Twisted's write buffers until the reactor finds the socket
    writable (``doWrite``)."""
    connection, peer = pair
    twisteds_write(connection, b"a frame")
    assert read_all(peer) == b""
    assert connection in connection.reactor.getWriters()
    connection.doWrite()
    assert read_all(peer) == b"a frame"


def test_what_the_socket_does_not_take_is_buffered_and_later_writes_queue_behind_it(
    pair: tuple[Any, socket.socket],
) -> None:
    connection, peer = pair
    connection.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    big = bytes(range(256)) * 8192  # 2 MiB: more than the socket's buffers hold
    write_through(connection, big)
    write_through(connection, b"after")
    received = read_all(peer)
    assert 0 < len(received) < len(big)
    assert connection in connection.reactor.getWriters()
    for _ in range(10_000):
        if connection.offset == len(connection.dataBuffer) and not connection._tempDataLen:
            break
        connection.doWrite()
        received += read_all(peer)
    received += read_all(peer)
    assert received == big + b"after"


def test_a_write_to_a_peer_gone_is_left_to_twisted_to_report(
    pair: tuple[Any, socket.socket],
) -> None:
    connection, peer = pair
    peer.close()
    write_through(connection, b"x" * 100_000)  # the send fails: no error raised here
    write_through(connection, b"y")
    lost = connection.doWrite()
    for _ in range(10):
        if isinstance(lost, Exception):
            break
        lost = connection.doWrite()
    assert isinstance(lost, Exception)


PROBE = """
from shengji_site import daphne_uvloop
daphne_uvloop.prepare()
from twisted.internet import tcp
from shengji_site import writethrough
print(tcp.Connection.write is writethrough.write_through)
"""


@pytest.mark.parametrize(("setting", "installed"), [(None, "True"), ("0", "False")])
def test_daphnes_process_writes_through_unless_told_otherwise(
    setting: str | None, installed: str
) -> None:
    probe = python_with("SHENGJI_WRITE_THROUGH", setting, "-c", PROBE)
    assert probe.stdout.split() == [installed]


def test_an_unknown_write_setting_is_refused_by_name() -> None:
    probe = python_with(
        "SHENGJI_WRITE_THROUGH", "yes", "-m", "shengji_site.daphne_uvloop", "--help", check=False
    )
    assert probe.returncode != 0
    assert "SHENGJI_WRITE_THROUGH must be 0 or 1, not 'yes'" in probe.stderr
