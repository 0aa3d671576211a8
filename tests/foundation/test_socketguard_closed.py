"""A reply to a socket whose client has gone is dropped, not raised (shengji_site/socketguard.py
``handle_reply``): raised, autobahn's ``Disconnected`` ended the consumer before its disconnect
ran, and its channel stayed in its table's and user's groups (docs/proof/SOAK.md; the soak's
``test_no_channel_is_left_in_a_group`` checks it on a whole site)."""

from __future__ import annotations

from typing import Any

import pytest
from daphne.ws_protocol import WebSocketProtocol

from shengji_site import socketguard


class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def get_write_buffer_size(self) -> int:
        return 0


def _protocol(state: int) -> Any:
    protocol = WebSocketProtocol()
    protocol.state = state
    protocol.transport = _Transport()
    protocol.client_addr = ("127.0.0.1", 50000)
    return protocol


@pytest.mark.parametrize("state", [WebSocketProtocol.STATE_CLOSING, WebSocketProtocol.STATE_CLOSED])
def test_a_frame_for_a_socket_no_longer_open_is_dropped_not_raised(state: int) -> None:
    protocol = _protocol(state)
    socketguard.handle_reply(protocol, {"type": "websocket.send", "text": '{"type":"error"}'})
    assert protocol.transport.written == []
