"""Practice against bots in one click (the home page's 和电脑练习), at any table shape.

A practice table is a casual, unlisted table (the lobby is not flooded with them) with its
player in seat 0 and bots in every other seat: every hand there starts with a bot seated, so it
is practice and moves nothing for anyone (docs/LADDER.md, "Practice"), and sitting there needs
no table points (``points_needed_seated``). No player can take a bot out of its seat, so the
table stays practice; were an admin to free one and a human to sit, the full requirement is
checked again before the next hand.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import Table
from games.services._common import SEATS
from games.services.tables import (
    house_rules_checked,
    seat_fill_bot,
    seat_ready,
    seat_take,
    seated_elsewhere,
    seated_elsewhere_refusal,
    table_create,
)

PRACTICE_SEAT = 0
PRACTICE_STAKE = 1  # nothing is at stake; the smallest stake says so on the table's header
PRACTICE_PRESET = "ranked"


@transaction.atomic
def practice_start(
    *, user: User, players: int = SEATS, house_rules: dict[str, Any] | None = None
) -> Table:
    """Seat ``user`` at seat 0 of a practice table of ``players`` seats (and the shape options
    of ``house_rules``: mode, decks, friends …, as ``table_create`` takes them), bots in every
    other seat, and start a hand. Their own practice table of that shape from before is used
    again when its seat 0 is free (the bots still sit there), else a new one is opened.
    Refused with the shape's codes (``shape_checked``), and with ``seated_elsewhere`` while the
    user holds a seat or plays a hand anywhere (one table at a time)."""
    checked = house_rules_checked(PRACTICE_PRESET, house_rules or {}, players=players)
    if seated_elsewhere(user=user):
        raise seated_elsewhere_refusal(user=user)
    table = _practice_table_of(user, players, checked) or _practice_table_new(
        user, players, checked
    )
    seat_take(table_id=table.pk, user=user, index=PRACTICE_SEAT)
    seat_ready(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def _practice_table_new(user: User, players: int, house_rules: dict[str, Any]) -> Table:
    table = table_create(
        creator=user,
        name=_("Practice · %(name)s") % {"name": user.username},
        preset_name=PRACTICE_PRESET,
        ranked=False,
        stake=PRACTICE_STAKE,
        unlisted=True,
        players=players,
        house_rules=house_rules,
    )
    for index in range(players):
        if index != PRACTICE_SEAT:
            seat_fill_bot(table_id=table.pk, user=user, index=index)
    return table


def _practice_table_of(user: User, players: int, house_rules: dict[str, Any]) -> Table | None:
    """The user's open unlisted table of this shape whose seat 0 is free and whose other
    seats are bots."""
    own_bot = Q(seats__bot=True, seats__user=None) & ~Q(seats__index=PRACTICE_SEAT)
    free = Q(seats__index=PRACTICE_SEAT, seats__user=None, seats__bot=False)
    return (
        Table.objects.filter(
            creator=user,
            unlisted=True,
            ranked=False,
            status=Table.Status.OPEN,
            players=players,
            house_rules=house_rules,
        )
        .annotate(bots=Count("seats", filter=own_bot), free=Count("seats", filter=free))
        .filter(bots=F("players") - 1, free=1)
        .order_by("-pk")
        .first()
    )
