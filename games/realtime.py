"""What leaves a committed transaction: socket frames to groups, and deadline tasks (sent by
name, ``games.task_names``).

Groups: ``table_<id>`` (every socket at or watching the table: views, chat, system lines,
table changes; each socket forwards only the view its presence may see), ``lobby`` (the
lobby feed) and ``user_<id>`` (every socket of a logged-in user, table and lobby: told when the
user's sessions end). Group messages travel between server processes only, never to a client.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from celery import current_app
from channels.layers import get_channel_layer
from django.conf import settings
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from games import positions, task_names

LOBBY_GROUP = "lobby"
logger = logging.getLogger(__name__)
# What a send to a Redis that is down raises (kombu wraps the broker's in OperationalError).
SEND_FAILURES: tuple[type[BaseException], ...] = (RedisError, OSError, KombuOperationalError)


def table_group(table_id: int) -> str:
    return f"table_{table_id}"


def user_group(user_id: int) -> str:
    return f"user_{user_id}"


def session_digest(session_key: str) -> str:
    """How a group message names one session: not its key (which would log its holder in)."""
    return hashlib.sha256(session_key.encode()).hexdigest()


def _send(group: str, message: dict[str, Any]) -> None:
    _send_all([(group, message)])


def _send_all(sends: list[tuple[str, dict[str, Any]]]) -> None:
    """Send to several groups at once: one trip to the event loop, the groups' Redis round
    trips overlapping, and nothing sent to a group no socket is in. Only for groups no socket
    is in twice (each socket hears one copy; copies for different sockets need no order)."""
    layer = get_channel_layer()
    if layer is None:
        return

    async def send_all() -> None:
        listened = await _listened(layer, [group for group, _ in sends])
        await asyncio.gather(
            *(
                layer.group_send(group, message)
                for (group, message), heard in zip(sends, listened, strict=True)
                if heard
            )
        )

    try:
        async_to_sync(send_all)()
    except SEND_FAILURES:
        # Called after the commit: the change stands, only its frames are lost. Every socket
        # sees the gap in the next change's view (its ``prev``) and is sent a state; a client
        # hears where the hand is in its pongs (at the latest once the position key, if it
        # could not be set either, has expired) and asks for the state (docs/PROTOCOL.md).
        logger.warning("frames to %s lost: Redis unreachable", [g for g, _ in sends])


async def hand_changed_async(table_id: int, message: dict[str, Any]) -> None:
    """``hand_changed`` from code already on the event loop (the optimistic move), with the
    change's ``hand_view_message``: no thread hop. The site's channel layer sets the table's
    position in the same round trip to Redis as it asks for the group's members, ahead of
    them, and returns once the sockets of this process have the message (``group_send_soon``:
    the mover's own socket need not wait for Redis); another layer, or one on another Redis,
    takes a call of its own for it first and returns once Redis has the message."""
    position = (message["hand"], message["seq"])
    layer = get_channel_layer()
    group = table_group(table_id)
    merged = layer is not None and _sends_with_position(layer)
    if not merged:
        positions.position_set(table_id, position)
    if layer is None:
        return
    try:
        if merged:
            first = positions.position_set_command(table_id, position)
            await layer.group_send_soon(group, message, first=first)
        else:
            await layer.group_send(group, message)
    except SEND_FAILURES:
        logger.warning("frames to table %s lost: Redis unreachable", table_id)


def _sends_with_position(layer: Any) -> bool:
    shares = getattr(layer, "shares_redis", None)
    return shares is not None and bool(shares(settings.REDIS_URL))


async def _listened(layer: Any, groups: list[str]) -> list[bool]:
    """Which groups have a socket in them, asked of Redis in one pipelined trip (a send to an
    empty group costs channels-redis two round trips; most tables have no spectators).

    A socket that joins after the question still misses nothing: it joins its groups before
    it reads its ``state``, and this change was committed before the question. A layer that
    keeps its groups elsewhere, or a failed question, counts every group as listened to."""
    key_of = getattr(layer, "_group_key", None)
    if len(groups) < 2 or key_of is None or not hasattr(layer, "connection"):
        return [True] * len(groups)
    shards: dict[int, list[int]] = {}
    for index, group in enumerate(groups):
        shards.setdefault(layer.consistent_hash(group), []).append(index)
    listened = [True] * len(groups)
    try:
        for shard, indexes in shards.items():
            pipe = layer.connection(shard).pipeline(transaction=False)
            for index in indexes:
                pipe.zcard(key_of(groups[index]))
            for index, members in zip(indexes, await pipe.execute(), strict=True):
                listened[index] = members > 0
    except (RedisError, OSError):
        return [True] * len(groups)
    return listened


def hand_view_message(
    hand_id: int,
    seq: int,
    views: list[dict[str, Any]],
    public: dict[str, Any],
    occupants: list[int | None],
    watchable: list[bool],
    *,
    prev: int | None = None,
    deadline: datetime | None = None,
    facts: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The table group's message of one change: each seat's ``view`` frame and the public
    one, each encoded once here (not once per socket), and the audience rules. ``prev`` is the
    hand's seq before the change (None: not known, and no socket checks it): a socket that was
    last sent another seq of the hand has not had a change before this one, and sends a
    ``state`` instead unless that change's view comes soon after (``TableConsumer``).
    ``deadline`` (the hand's next one, None when it has none) rides in every frame: a client
    whose turn comes needs no ``state`` for its clock. ``facts`` (``movefacts.shared_facts``)
    let the processes that did not make the change take the next move in one statement."""
    encoded = encode_views(hand_id, seq, views, public)
    return views_message(encoded, occupants, watchable, prev=prev, deadline=deadline, facts=facts)


@dataclass(frozen=True)
class EncodedViews:
    """A change's view frames encoded but for the deadline, their last key: the one-statement
    move encodes them while its statement is on the way, before the database has said when
    the next deadline falls. Each frame is its JSON object without the closing brace."""

    hand_id: int
    seq: int
    frames: tuple[bytes, ...]
    public: bytes


def encode_views(
    hand_id: int, seq: int, views: list[dict[str, Any]], public: dict[str, Any]
) -> EncodedViews:
    def opened(view: dict[str, Any]) -> bytes:
        frame = {"type": "view", "hand": hand_id, "seq": seq, "view": view}
        return orjson.dumps(frame)[:-1]

    return EncodedViews(hand_id, seq, tuple(opened(view) for view in views), opened(public))


def views_message(
    encoded: EncodedViews,
    occupants: list[int | None],
    watchable: list[bool],
    *,
    prev: int | None = None,
    deadline: datetime | None = None,
    facts: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``hand_view_message`` of views already encoded, with their deadline."""
    due = None if deadline is None else deadline.astimezone(UTC).isoformat()
    closing = b',"deadline":' + orjson.dumps(due) + b"}"
    return {
        "type": "hand.view",
        "hand": encoded.hand_id,
        "seq": encoded.seq,
        "prev": prev,
        "frames": [(frame + closing).decode() for frame in encoded.frames],
        "public": (encoded.public + closing).decode(),
        "occupants": occupants,
        "watchable": watchable,
        "facts": facts,
    }


def hand_changed(table_id: int, message: dict[str, Any]) -> None:
    """Send a change's ``hand_view_message`` to the table's group: one message carrying every
    seat's view and the public one; each socket forwards only the one its presence may see
    (``TableConsumer.hand_view``), so no frame to a client carries a hidden card. The
    message's ``prev`` (the hand's seq before this change: a deal's change can log several
    draws) lets a socket last sent another seq of this hand see that it missed a change.

    The table's position (``games.positions``) is set first: if the group send then fails,
    the pings already tell every client it is behind.

    One group send asks Redis who is in the group, hands the message straight to the members in
    this process and packs one copy per other process (shengji_site/channel_layer.py): a group
    per seat cost four times that for every move. The
    audience is fixed by the message, from the seats as locked in the transaction: a seat's
    view goes to its occupant only (a socket that is no longer theirs drops it), and
    spectators watching a seat get its view only if its player allowed it at that moment.
    """
    positions.position_set(table_id, (message["hand"], message["seq"]))
    _send(table_group(table_id), message)
    # Not the lobby: it hears of hands starting and ending through table_changed, not of moves.


def table_changed(table_id: int, change: dict[str, Any] | None) -> None:
    """A table's change to its group and to the lobby. ``change`` is the table as read after
    the commit (``selectors.table_change``), from which each socket makes its own ``state``;
    None (the table is gone) makes each socket read its state itself."""
    _send_all(
        [
            (table_group(table_id), {"type": "table.changed", "change": change}),
            (LOBBY_GROUP, _lobby_message(table_id)),
        ]
    )


def lobby_changed(table_id: int) -> None:
    _send(LOBBY_GROUP, _lobby_message(table_id))


def _lobby_message(table_id: int) -> dict[str, Any]:
    """``change`` names this change: each server process builds the lobby once for it, however
    many of its sockets hear it (games/lobby.py)."""
    return {"type": "lobby.changed", "table": table_id, "change": uuid.uuid4().hex}


def chat(table_id: int, payload: dict[str, Any]) -> None:
    _send(table_group(table_id), {"type": "chat.line", "line": payload})


async def chat_async(table_id: int, payloads: list[dict[str, Any]]) -> None:
    """``chat`` from code already on the event loop (the optimistic move's system lines), in
    order; a line lost to Redis is in the chat the sockets read with their next ``state``."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        for payload in payloads:
            await layer.group_send(table_group(table_id), {"type": "chat.line", "line": payload})
    except SEND_FAILURES:
        logger.warning("chat lines to table %s lost: Redis unreachable", table_id)


def sessions_ended(
    user_id: int, code: str, reason: str = "", session_key: str | None = None
) -> None:
    """Close the user's open sockets, table and lobby (``TableConsumer.session_end``): all of
    them, or only those of the session ``session_key`` (a log-out ends that session only).
    ``code`` is the error code of the socket's last frame: ``account_suspended`` (with the
    admin's ``reason``) or ``session_ended``. A lost message is caught by the check every
    socket makes before each message it takes (``services.socket_session_check``)."""
    session = None if session_key is None else session_digest(session_key)
    _send(
        user_group(user_id),
        {"type": "session.end", "code": code, "reason": reason, "session": session},
    )


def _send_task(name: str, args: tuple[Any, ...], **options: Any) -> None:
    """Queue the task registered under ``name`` (``games.task_names``) by its name: this module
    imports no task, since the tasks call the services and the services call this module."""
    current_app.send_task(name, args, **options)


def schedule_deadline(hand_id: int, seq: int, deadline: datetime) -> None:
    try:
        _send_task(task_names.HAND_DEADLINE, (hand_id, seq, deadline.isoformat()), eta=deadline)
    except SEND_FAILURES:
        # The sweeper sends every overdue deadline again once the broker is back.
        logger.warning("deadline of hand %s at %s not queued: broker unreachable", hand_id, seq)


def schedule_grace(seat_id: int, since: str, grace_s: int) -> None:
    try:
        _send_task(task_names.SEAT_GRACE, (seat_id, since), countdown=grace_s)
    except SEND_FAILURES:  # the sweeper takes the seats whose grace ran out
        logger.warning("grace period of seat %s not queued: broker unreachable", seat_id)


def schedule_next_hand(table_id: int, due: datetime) -> None:
    try:
        _send_task(task_names.TABLE_NEXT_HAND, (table_id,), eta=due)
    except SEND_FAILURES:  # the sweeper starts the tables all ready past their pause
        logger.warning("next hand of table %s not queued: broker unreachable", table_id)


def schedule_wrap_up(hand_id: int) -> None:
    try:
        _send_task(task_names.HAND_WRAP_UP, (hand_id,))
    except SEND_FAILURES:  # the sweeper wraps up every hand still waiting
        logger.warning("wrap-up of hand %s not queued: broker unreachable", hand_id)
