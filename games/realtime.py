"""What leaves a committed transaction: socket frames to groups, and deadline tasks.

Groups: ``table_<id>`` (everyone at or watching the table: seats, chat, system lines),
``table_<id>_seat_<n>`` (the sockets of seat n's player: that seat's view only),
``table_<id>_watch_<n>`` (spectators watching seat n: its view when its player allows it,
else the public view), ``table_<id>_public`` (other spectators), ``lobby`` (the lobby feed).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    return f"table_{table_id}"


def seat_group(table_id: int, seat: int) -> str:
    return f"table_{table_id}_seat_{seat}"


def public_group(table_id: int) -> str:
    return f"table_{table_id}_public"


def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


def watch_group(table_id: int, seat: int) -> str:
    return f"table_{table_id}_watch_{seat}"


def hand_changed(
    table_id: int,
    hand_id: int,
    seq: int,
    views: list[dict[str, Any]],
    public: dict[str, Any],
    occupants: list[int | None],
    watchable: list[bool],
) -> None:
    """Each seat its own view, spectators the public one: no frame carries a hidden card.

    The audience is fixed here, from the seats as locked in the transaction: a seat's view is
    marked for its occupant (a socket that is no longer theirs drops it), and spectators
    watching a seat get its view only if its player allowed it at that moment.
    """
    for seat, view in enumerate(views):
        frame = {"type": "hand.view", "hand": hand_id, "seq": seq}
        _send(seat_group(table_id, seat), {**frame, "view": view, "for_user": occupants[seat]})
        _send(watch_group(table_id, seat), {**frame, "view": view if watchable[seat] else public})
    _send(
        public_group(table_id), {"type": "hand.view", "hand": hand_id, "seq": seq, "view": public}
    )
    # Not the lobby: it hears of hands starting and ending through table_changed, not of moves.


def table_changed(table_id: int, line: str | None) -> None:
    _send(table_group(table_id), {"type": "table.changed", "line": line})
    _send(LOBBY_GROUP, {"type": "lobby.changed", "table": table_id})


def lobby_changed(table_id: int) -> None:
    _send(LOBBY_GROUP, {"type": "lobby.changed", "table": table_id})


def chat(table_id: int, payload: dict[str, Any]) -> None:
    _send(table_group(table_id), {"type": "chat.line", "line": payload})


def schedule_deadline(hand_id: int, seq: int, deadline: datetime) -> None:
    from games.tasks import hand_deadline

    hand_deadline.apply_async((hand_id, seq), eta=deadline)


def schedule_grace(seat_id: int, since: str, grace_s: int) -> None:
    from games.tasks import seat_grace

    seat_grace.apply_async((seat_id, since), countdown=grace_s)
