"""Setting up players and tables inside a ``LiveSite`` (called through ``LiveSite.call``).

Each function runs in the site's own Django (a ``manage.py shell``), goes through the services
like a player would, and returns plain JSON: user names, session cookies and table ids.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.hashers import make_password

from accounts.models import User
from games import services
from ladder.services import ladder_points_adjust

PASSWORD = "live-site-pw-1234"
BANKROLL = 1_000_000


def session_for(user: User) -> str:
    """A logged-in session for ``user``: the value of its ``sessionid`` cookie."""
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return str(store.session_key)


def players(*, count: int, prefix: str) -> list[dict[str, Any]]:
    """``count`` new players, each with a session cookie."""
    made = []
    hashed = make_password(PASSWORD)  # hashed once: the hasher's deliberate slowness × 400 adds up
    for index in range(count):
        user = User.objects.create_user(f"{prefix}{index}")
        user.password = hashed
        user.save(update_fields=["password"])
        # What many hands can take: a player needs what one can take to sit (docs/LADDER.md).
        ladder_points_adjust(
            user=user, account="table", amount=BANKROLL, reason="drill bankroll", by=None
        )
        made.append({"id": user.pk, "username": user.username, "session": session_for(user)})
    return made


def tables(
    *,
    count: int,
    prefix: str = "load",
    ranked: bool = False,
    seated: bool = True,
    auto_ready: bool = True,
    seats: int = 4,
    mode: str = "tractor",
    **timings: int,
) -> list[dict[str, Any]]:
    """``count`` tables of ``seats`` new players each (4–8; a ranked table has 4), in ``mode``
    (``tractor`` or ``friends``, the table's house rule), seated (not ready) when ``seated``,
    each seat's auto-ready off unless ``auto_ready`` (the player then presses ready for every
    hand). ``timings`` are ``table_create``'s (play_seconds, bury_seconds,
    bid_window_seconds, deal_interval_ms)."""
    made = []
    shape = {} if mode == "tractor" else {"mode": mode}
    for number in range(count):
        people = players(count=4 if ranked else seats, prefix=f"{prefix}{number}_")
        creator = User.objects.get(pk=people[0]["id"])
        if ranked:  # ranked tables are seated by quick match only: the same service
            users = [User.objects.get(pk=person["id"]) for person in people]
            table = services.ranked_table_open(
                users=users, name=f"{prefix} {number}", stake=100, creator=creator, **timings
            )
            for index, person in enumerate(people):
                person["seat"] = index
            made.append({"id": table.pk, "players": people})
            continue
        table = services.table_create(
            creator=creator,
            name=f"{prefix} {number}",
            preset_name="ranked",
            ranked=False,
            players=seats,
            house_rules=shape,
            **dict[str, Any](timings),
        )
        if seated:
            for index, person in enumerate(people):
                user = User.objects.get(pk=person["id"])
                services.seat_take(table_id=table.pk, user=user, index=index)
                if not auto_ready:
                    services.seat_auto_ready(table_id=table.pk, user=user, on=False)
                person["seat"] = index
        made.append(
            {
                "id": table.pk,
                "players": people,
                "auto_ready": auto_ready or not seated,
                "shape": {"players": seats, "mode": mode},
            }
        )
    return made


def hand_log(*, table_id: int) -> dict[str, Any]:
    """The table's latest hand as the database holds it: id, status, seq and its action log."""
    from games.models import Hand

    hand = Hand.objects.filter(match__table_id=table_id).order_by("-pk").first()
    if hand is None:
        return {"id": None}
    actions = list(hand.actions.order_by("seq").values("seq", "text", "auto"))
    return {"id": hand.pk, "status": hand.status, "seq": hand.seq, "actions": actions}


def hand_logs(*, hand_ids: list[int]) -> dict[str, Any]:
    """The action logs of these hands, keyed by hand id (a string: JSON keys)."""
    from django.db.models import F

    from games.models import Action, Hand

    hands = {h.pk: h for h in Hand.objects.filter(pk__in=hand_ids)}
    logs: dict[str, Any] = {}
    for hand_id, hand in hands.items():
        actions = Action.objects.filter(hand_id=hand_id).order_by("seq")
        logs[str(hand_id)] = {
            "status": hand.status,
            "seq": hand.seq,
            "actions": [
                {**row, "at": row["at"].timestamp()}
                for row in actions.values("seq", "seat", "text", "auto", at=F("created_at"))
            ],
        }
    return logs


def table_report(*, table_id: int) -> dict[str, Any]:
    """What a fault drill checks of a table: its seats and open sockets, its system lines, and
    for each hand its status, how often it was settled and how the bot played in it."""
    from games.models import ChatLine, Hand, HandPlayer, Seat, SeatConnection
    from ladder.models import HandSettlement, LedgerEntry, RatingChange

    seats = [
        {
            "index": seat.index,
            "user": seat.user_id,
            "bot": seat.bot,
            "connected": seat.connected,
            "away": seat.disconnected_at is not None,
            "sockets": SeatConnection.objects.filter(seat=seat).count(),
        }
        for seat in Seat.objects.filter(table_id=table_id).order_by("index")
    ]
    hands = []
    for hand in Hand.objects.filter(match__table_id=table_id).order_by("pk"):
        players = HandPlayer.objects.filter(hand=hand).order_by("seat")
        hands.append(
            {
                "id": hand.pk,
                "status": hand.status,
                "seq": hand.seq,
                "settlements": HandSettlement.objects.filter(hand=hand).count(),
                "ledger_rows": LedgerEntry.objects.filter(hand=hand).count(),
                "rating_changes": RatingChange.objects.filter(hand=hand).count(),
                "players": list(players.values("seat", "user", "auto_turns", "absent_at_end")),
            }
        )
    lines = ChatLine.objects.filter(table_id=table_id, system=True).order_by("pk")
    return {
        "seats": seats,
        "hands": hands,
        "system_lines": list(lines.values_list("text", flat=True)),
    }
