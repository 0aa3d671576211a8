"""A quick-match table whose arrival grace ended before its first hand with a player still away
(docs/LADDER.md, "Quick-match no-shows"): the away players pay, the others go back in the queue.

Called from ``connections.seat_takeover`` with the table and its seats locked. The matcher is
sent by its task's name after the commit (``games.matchmaking`` imports the services, so the
services do not import it).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import current_app
from django.db import transaction

from accounts.models import User
from games.models import Hand, QueueEntry, QuickMatch, Seat, Table
from games.services._common import db_now, free_seat, system, table_changed

logger = logging.getLogger(__name__)

QUICK_MATCH_RUN = "games.matchmaking_tasks.quick_match_run"


def quick_match_no_show(table: Table, seats: list[Seat]) -> bool:
    """Each player away pays the no-show fee (a `no_show` ledger row) and may not queue for
    ``NO_SHOW_WAIT_S``; the players who came are put back in the queue at the place they had
    (their wait counts on); the table closes. False (nothing done) when the table is not a
    ranked table before its first hand. Precondition: the table and its seats are locked, no
    hand on."""
    from ladder.services import ladder_no_show_charge

    if not table.ranked or Hand.objects.filter(match__table=table).exists():
        return False
    record = QuickMatch.objects.filter(table=table).order_by("-pk").first()
    waits = dict(zip(record.players, record.waits, strict=True)) if record else {}
    now = db_now()
    for seat in seats:
        user, index = seat.user, seat.index
        if user is None:
            continue
        if seat.connected:
            _requeue(user, waited_s=float(waits.get(user.pk, 0.0)), now=now)
        else:
            ladder_no_show_charge(user_id=user.pk, table_id=table.pk, stake=table.stake)
            table_changed(table, system("away_freed", str(user), index))
        free_seat(seat)
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status"])
    table_changed(table, system("closed"))
    transaction.on_commit(_match_soon)
    return True


def _requeue(user: User, *, waited_s: float, now: datetime) -> None:
    """Back in the queue as if they had never left it: joined ``waited_s`` before they were
    seated (so the accepted gap keeps its width), seen now."""
    from ladder.services import ladder_profile_open

    record_at = now - timedelta(seconds=waited_s)
    rating = float(ladder_profile_open(user=user).rating_ordinal)
    QueueEntry.objects.get_or_create(
        user=user, defaults={"rating": rating, "joined_at": record_at, "last_seen": now}
    )


def _match_soon() -> None:
    try:
        current_app.send_task(QUICK_MATCH_RUN)
    except Exception:  # the requeue is committed; beat runs the matcher again in a few seconds
        logger.exception("quick match after a no-show not queued")
