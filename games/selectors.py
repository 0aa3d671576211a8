"""Every read of tables and hands; views never hold a card their reader may not see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from games.engine import view_for, view_public
from games.handstate import load_state
from games.models import ChatLine, Hand, Seat, Table

CHAT_BACKLOG = 30


@dataclass(frozen=True)
class Presence:
    """Who a socket's user is at a table: a seat index, or a spectator (None)."""

    table_id: int
    seat: int | None
    watching: int | None  # a spectator's chosen seat at a casual table


def presence_get(*, table_id: int, user: User, watching: int | None = None) -> Presence | None:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return None
    seat = None
    if user.is_authenticated:
        seat = Seat.objects.filter(table=table, user=user).values_list("index", flat=True).first()
    return Presence(table_id, seat, None if seat is not None else watching)


def seat_of(*, table_id: int, user: User) -> int | None:
    """The index of the user's seat at the table (None: no seat, or no such table)."""
    if not user.is_authenticated:
        return None
    return Seat.objects.filter(table_id=table_id, user=user).values_list("index", flat=True).first()


def spectator_may_see(*, table_id: int, seat: int) -> bool:
    """At casual tables a spectator watching a seat sees its hand if its player allows it."""
    return Seat.objects.filter(
        table_id=table_id, index=seat, table__ranked=False, show_hand_to_spectators=True
    ).exists()


def current_hand_get(*, table_id: int) -> Hand | None:
    return (
        Hand.objects.filter(match__table_id=table_id)
        .exclude(status=Hand.Status.VOID)
        .order_by("-pk")
        .first()
    )


def seats_list(*, table_id: int) -> list[dict[str, Any]]:
    seats = Seat.objects.filter(table_id=table_id).select_related("user").order_by("index")
    return [
        {
            "seat": s.index,
            "user": None if s.user is None else str(s.user),
            "username": None if s.user is None else s.user.username,
            "ready": s.ready,
            "connected": s.connected,
            "bot": s.bot,
            "shows_hand": s.show_hand_to_spectators,
        }
        for s in seats
    ]


def table_summary(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "name": table.name,
        "preset": table.preset,
        "ranked": table.ranked,
        "stake": table.stake,
        "min_balance": table.min_balance,
        "status": table.status,
        "play_seconds": table.play_seconds,
    }


def hand_view_for(*, hand: Hand, presence: Presence) -> dict[str, Any]:
    state = load_state(hand)
    if presence.seat is not None:
        view = view_for(state, presence.seat)
    elif presence.watching is not None and spectator_may_see(
        table_id=presence.table_id, seat=presence.watching
    ):
        view = view_for(state, presence.watching)
    else:
        view = view_public(state)
    return {
        "id": hand.pk,
        "seq": hand.seq,
        "status": hand.status,
        "view": view,
        "deadline": None if hand.deadline is None else hand.deadline.isoformat(),
    }


def chat_backlog(*, table_id: int) -> list[dict[str, Any]]:
    lines = ChatLine.objects.filter(table_id=table_id).select_related("user").order_by("-pk")
    return [
        {
            "user": None if line.user is None else str(line.user),
            "text": line.text,
            "system": line.system,
            "at": line.created_at.isoformat(),
        }
        for line in reversed(list(lines[:CHAT_BACKLOG]))
    ]


def table_state_for(*, presence: Presence) -> dict[str, Any]:
    """Everything a socket needs on connecting: the table, its seats, the hand, the chat."""
    table = Table.objects.get(pk=presence.table_id)
    hand = current_hand_get(table_id=table.pk)
    return {
        "type": "state",
        "table": table_summary(table),
        "seats": seats_list(table_id=table.pk),
        "you": {"seat": presence.seat, "watching": presence.watching},
        "hand": None if hand is None else hand_view_for(hand=hand, presence=presence),
        "chat": chat_backlog(table_id=table.pk),
    }


def presence_and_state(
    *, table_id: int, user: User, watching: int | None = None
) -> tuple[Presence, dict[str, Any]] | None:
    """A socket's presence and its ``state`` frame in one call (one trip to a database
    thread); None when the table is gone."""
    presence = presence_get(table_id=table_id, user=user, watching=watching)
    return None if presence is None else (presence, table_state_for(presence=presence))


def lobby_list(*, limit: int = 100) -> list[dict[str, Any]]:
    tables = Table.objects.exclude(status=Table.Status.CLOSED).order_by("-created_at")[:limit]
    seats: dict[int, list[dict[str, Any]]] = {}
    for seat in Seat.objects.filter(table__in=tables).select_related("user").order_by("index"):
        seats.setdefault(seat.table_id, []).append(
            {
                "seat": seat.index,
                "user": None if seat.user is None else str(seat.user),
                "bot": seat.bot,
                "ready": seat.ready,
            }
        )
    return [{**table_summary(t), "seats": seats.get(t.pk, [])} for t in tables]
