"""Chat: players' lines, and the system lines everyone may read (bids, failed throws)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from accounts import ratelimits
from accounts.errors import ApplicationError
from accounts.models import User
from games import realtime
from games.models import ChatLine, Table
from games.services._common import CHAT_MAX, SystemLine, named


def _clean_chat(text: str) -> str:
    cleaned = "".join(ch for ch in str(text) if ch.isprintable()).strip()
    if not cleaned:
        raise ApplicationError("chat_empty")
    if len(cleaned) > CHAT_MAX:
        raise ApplicationError("chat_too_long")
    return cleaned


@transaction.atomic
def chat_post(*, table_id: int, user: User, text: str) -> ChatLine:
    if not user.is_authenticated:
        raise ApplicationError("login_required")
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise ApplicationError("not_found")
    if table.status == Table.Status.CLOSED:
        raise ApplicationError("table_closed")
    cleaned = _clean_chat(text)
    ratelimits.chat_line_check(user_id=user.pk)  # per user over all tables and sockets
    line = ChatLine.objects.create(table=table, user=user, text=cleaned)
    payload = {
        "user": str(user),
        "text": line.text,
        "system": False,
        "code": "",
        "params": [],
        "at": line.created_at.isoformat(),
    }
    transaction.on_commit(lambda: realtime.chat(table_id, payload))
    return line


def system_line(table_id: int, system: SystemLine) -> None:
    """A system line sent to the table's sockets at once, as a ``chat`` frame, its seat's
    player named (``named``)."""
    system = named(table_id, system)
    line = ChatLine.objects.create(
        table_id=table_id,
        system=True,
        text=system.text,
        code=system.code,
        params=list(system.params),
    )
    payload = system_payload(system, line.created_at)
    transaction.on_commit(lambda: realtime.chat(table_id, payload))


def system_payload(system: SystemLine, at: datetime) -> dict[str, Any]:
    """A system line's ``chat`` frame (docs/PROTOCOL.md)."""
    return {
        "user": None,
        "text": system.text,
        "system": True,
        "code": system.code,
        "params": list(system.params),
        "at": at.isoformat(),
    }
