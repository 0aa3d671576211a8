"""Twisted's TCP writes sent at once when nothing is waiting before them.

Twisted buffers every ``transport.write`` and sends it only when its reactor next finds the
socket writable: under daphne a frame waits for the event loop's next turn, behind every
callback already due (a move's eight views all leave after the last is written), and each
write costs the loop a writer's registration and removal. Here a write to a connection whose
buffer is empty goes to the socket at once; what the socket does not take (a full send
buffer), and any write while earlier data waits, is buffered as Twisted does, so the bytes
keep their order and a slow reader still applies back pressure. A failed send leaves the data
to Twisted's own write, whose next attempt reports the lost connection as before.

Installed by ``daphne_uvloop`` in daphne's process (docs/proof/LOAD.md, *Writes sent at once*).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import tcp

_buffered_write: Callable[[Any, bytes], None] = tcp.Connection.write


def _nothing_waiting(connection: Any) -> bool:
    return bool(
        connection.connected
        and not connection.disconnecting
        and not connection._writeDisconnected
        and connection.offset == len(connection.dataBuffer)
        and not connection._tempDataLen
    )


def write_through(connection: Any, data: bytes) -> None:
    """``tcp.Connection.write``, sending at once what the socket takes when nothing waits."""
    if type(data) is bytes and data and _nothing_waiting(connection):
        sent = connection.writeSomeData(data)
        if isinstance(sent, int) and sent > 0:
            if sent == len(data):
                return
            data = data[sent:]
    _buffered_write(connection, data)


def install() -> None:
    tcp.Connection.write = write_through  # type: ignore[method-assign]
