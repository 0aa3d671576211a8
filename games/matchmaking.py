"""Ranked quick match: players press one button and wait; four of close skill are seated.

The numbers (settings, all overridable from the environment):

- The accepted gap. Four waiting players are seated together when the spread of their ratings
  (max − min of the ladder's rating ordinal, mu − 3·sigma; 0 for a player without a rating yet)
  is at most ``gap = SHENGJI_QUICK_MATCH_GAP_BASE + SHENGJI_QUICK_MATCH_GAP_PER_S × w``, where w
  is the number of seconds the longest waiter of the four has waited. By default
  ``gap = 3 + 0.1 × w``: 3 at once, 6 after 30 s, 9 after a minute, 33 after five.
- Who is tried first. The longest waiter first: with them, the four closest in rating among
  those who joined after them (the tightest window of four in rating order that holds them).
  If the spread fits, the four are seated; either way the next longest waiter is tried.
- The expected wait shown in the lobby: the median of the waits (join → seated) of the players
  of the last ``SHENGJI_QUICK_MATCH_WAIT_SAMPLE`` (20) quick matches; none before the first.
- The table: ranked, stake ``SHENGJI_QUICK_MATCH_STAKE`` (50); joining needs the table points
  one ranked hand at that stake can take (``quick_match_minimum``: 790 at 50), and at least
  ``SHENGJI_QUICK_MATCH_MIN_BALANCE`` (100), the table's minimum balance. Seats, and so
  partners, are drawn at random (``secrets``: a CSPRNG, not the join order nor anything a
  player sets), so four accounts joining back to back cannot choose who partners whom; the
  four are within the accepted gap of each other, so any pairing is close. The longest waiter
  creates the table. Quick match is the only way to a ranked table
  (``services.ranked_table_open``): nobody picks their ranked opponents or partner. The four
  are seated, not ready: the hand starts when all four have opened the table (connected) and
  pressed ready; one who does not come within the grace period is stood up.
- A waiting player whose page has not asked for the queue in ``SHENGJI_QUICK_MATCH_STALE_S``
  (60 s) has gone and is dropped, as is one who sat down at a table meanwhile or whose balance
  fell below the minimum.

Matching runs after every join (after its commit, in the joining request) and from Celery beat
every ``SHENGJI_QUICK_MATCH_EVERY_S`` seconds (games.matchmaking_tasks). A matcher locks the
queue rows it reads with ``SELECT … FOR UPDATE SKIP LOCKED`` and deletes the rows of the players
it seats in the same transaction, so two matchers running at once never seat a player twice: the
second one does not see the rows the first holds (a player who joins while a matcher holds the
queue is considered by the next run, at the latest at the next beat).

This module holds the services (writes: ``queue_join``, ``queue_leave``, ``queue_touch``,
``queue_match``) and selectors (reads: ``queue_status_get``, ``queue_expected_wait``,
``lobby_viewer_get``) of quick match and the lobby, kept out of games/services/ and selectors.py,
which other work owns for now.
"""

from __future__ import annotations

import logging
import secrets
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

from accounts.errors import ApplicationError
from accounts.models import User
from games.models import QueueEntry, QuickMatch, Seat, Table
from games.services import db_now, points_needed_for, ranked_table_open, seated_elsewhere
from games.services.tables import seated_elsewhere_refusal
from ladder.selectors import quick_match_short_refusal

logger = logging.getLogger(__name__)

SEATS = 4


# --- the numbers -----------------------------------------------------------------------------


def gap_allowed(waited_s: float) -> float:
    """The rating spread accepted for a group whose longest waiter has waited ``waited_s``."""
    base = settings.SHENGJI_QUICK_MATCH_GAP_BASE
    return float(base + settings.SHENGJI_QUICK_MATCH_GAP_PER_S * max(0.0, waited_s))


@dataclass(frozen=True)
class Waiting:
    """One waiting player, as the matcher sees them."""

    user_id: int
    rating: float
    joined_at: datetime


@dataclass(frozen=True)
class Group:
    players: tuple[Waiting, ...]  # the longest waiter first
    gap: float  # the gap accepted for them

    @property
    def spread(self) -> float:
        return spread(self.players)


def spread(players: Sequence[Waiting]) -> float:
    ratings = [p.rating for p in players]
    return max(ratings) - min(ratings)


def _closest_four(anchor: Waiting, others: Sequence[Waiting]) -> tuple[Waiting, ...] | None:
    """The four closest in rating that include ``anchor``: the tightest window of four, in
    rating order, holding it; between equal spreads, the one whose players joined earlier."""
    pool = sorted([anchor, *others], key=lambda w: (w.rating, w.joined_at, w.user_id))
    if len(pool) < SEATS:
        return None
    at = pool.index(anchor)
    windows = [
        tuple(pool[start : start + SEATS])
        for start in range(max(0, at - SEATS + 1), min(at, len(pool) - SEATS) + 1)
    ]
    return min(windows, key=lambda w: (spread(w), sorted(p.joined_at for p in w)))


def match_groups(waiting: Sequence[Waiting], *, now: datetime) -> list[Group]:
    """Groups of four to seat now, longest waiters first (see the module's docstring)."""
    queue = sorted(waiting, key=lambda w: (w.joined_at, w.user_id))
    taken: set[int] = set()
    groups: list[Group] = []
    for position, anchor in enumerate(queue):
        if anchor.user_id in taken:
            continue
        later = [w for w in queue[position + 1 :] if w.user_id not in taken]
        four = _closest_four(anchor, later)
        if four is None:
            break  # fewer than four left from here on
        gap = gap_allowed((now - anchor.joined_at).total_seconds())
        if spread(four) <= gap:
            players = (anchor, *sorted((p for p in four if p != anchor), key=lambda p: p.joined_at))
            groups.append(Group(players, gap))
            taken.update(p.user_id for p in four)
    return groups


_CSPRNG = secrets.SystemRandom()


def seating(players: Sequence[Waiting]) -> list[Waiting]:
    """Seat order 0–3 drawn at random from the operating system's CSPRNG: each of the three
    partnerships is equally likely whatever the join order or the ratings (docs/LADDER.md,
    "Quick match seats at random")."""
    order = list(players)
    _CSPRNG.shuffle(order)
    return order


# --- services --------------------------------------------------------------------------------


def _rating_and_balance(user: User) -> tuple[float, int]:
    from ladder.services import ladder_profile_open

    profile = ladder_profile_open(user=user)  # with the sign-up grant, if never opened
    return float(profile.rating_ordinal), int(profile.balance)


def quick_match_minimum() -> int:
    """The table points needed to wait for a quick match: what one hand of the ranked rules at
    the quick-match stake can take, and at least ``SHENGJI_QUICK_MATCH_MIN_BALANCE``."""
    return points_needed_for(
        preset_name="ranked",
        stake=settings.SHENGJI_QUICK_MATCH_STAKE,
        min_balance=settings.SHENGJI_QUICK_MATCH_MIN_BALANCE,
    )


def _check_may_queue(user: User) -> float:
    """Refuse a player who cannot be seated now; return their rating."""
    if not user.is_authenticated:
        raise ApplicationError("login_required")
    seats = Seat.objects.filter(user=user).select_related("table")
    if seats.filter(table__status=Table.Status.PLAYING).exists():
        raise ApplicationError("in_game")
    if seats.exists():
        raise seated_elsewhere_refusal(user=user)
    if seated_elsewhere(user=user):  # a hand of theirs elsewhere is not wrapped up yet
        raise ApplicationError("in_game")
    _check_no_show_wait(user)
    rating, balance = _rating_and_balance(user)
    minimum = quick_match_minimum()
    if balance < minimum:
        # The numbers, daily relief and when, and the tables to play at meanwhile (issue 33).
        raise quick_match_short_refusal(user=user, balance=balance, needed=minimum)
    return rating


@transaction.atomic
def queue_join(*, user: User) -> QueueEntry:
    """Wait for a ranked quick match; joining again keeps the place. Matching runs after the
    commit (and from beat)."""
    rating = _check_may_queue(user)
    now = db_now()
    entry, created = QueueEntry.objects.get_or_create(
        user=user, defaults={"rating": rating, "joined_at": now, "last_seen": now}
    )
    if not created:
        entry.last_seen = now
        entry.save(update_fields=["last_seen"])
    transaction.on_commit(_match_after_join)
    return entry


def _match_after_join() -> None:
    try:
        queue_match()
    except Exception:  # the join is committed; beat runs the matcher again in a few seconds
        logger.exception("quick match after a join failed")


@transaction.atomic
def queue_leave(*, user: User) -> None:
    """Stop waiting. Waits while a matcher holds the row: then the player is seated already."""
    if not user.is_authenticated:
        raise ApplicationError("login_required")
    deleted, _kinds = QueueEntry.objects.filter(user=user).delete()
    if not deleted:
        raise ApplicationError("not_queued", _("you are not waiting for a quick match"))


def queue_touch(*, user: User) -> None:
    """The player's page is still there (it asks for the queue while waiting)."""
    if user.is_authenticated:
        QueueEntry.objects.filter(user=user).update(last_seen=Now())


def _locked_queue() -> list[QueueEntry]:
    """The queue rows no other matcher holds, locked until the commit (only these rows)."""
    return list(
        QueueEntry.objects.select_for_update(skip_locked=True, of=("self",))
        .select_related("user")
        .order_by("joined_at", "pk")
    )


def _drop_unseatable(entries: list[QueueEntry], now: datetime) -> list[QueueEntry]:
    """Remove from the queue the players gone (stale), seated elsewhere meanwhile, or whose
    balance fell below the minimum; return the others."""
    ids = [e.user_id for e in entries]
    seated = set(Seat.objects.filter(user_id__in=ids).values_list("user_id", flat=True))
    from ladder.models import LadderProfile

    balances = dict(LadderProfile.objects.filter(user_id__in=ids).values_list("user_id", "balance"))
    stale_before = now - timedelta(seconds=settings.SHENGJI_QUICK_MATCH_STALE_S)
    minimum = quick_match_minimum()
    keep: list[QueueEntry] = []
    drop: list[QueueEntry] = []
    for entry in entries:
        gone = entry.last_seen < stale_before
        poor = balances.get(entry.user_id, 0) < minimum
        (drop if gone or poor or entry.user_id in seated else keep).append(entry)
    if drop:
        QueueEntry.objects.filter(pk__in=[e.pk for e in drop]).delete()
    return keep


@transaction.atomic
def queue_match() -> list[QuickMatch]:
    """Seat every group of four that fits now; returns the matches made."""
    entries = _locked_queue()
    if not entries:
        return []
    now = db_now()
    entries = _drop_unseatable(entries, now)
    by_user = {e.user_id: e for e in entries}
    waiting = [Waiting(e.user_id, e.rating, e.joined_at) for e in entries]
    made = []
    for group in match_groups(waiting, now=now):
        record = _seat_group(group, by_user, now)
        if record is not None:
            made.append(record)
    return made


def _seat_group(group: Group, by_user: dict[int, QueueEntry], now: datetime) -> QuickMatch | None:
    """Create the ranked table as the longest waiter and seat the four (not ready: the hand
    starts when all four have come and pressed ready). Precondition: the group's queue rows
    are locked by this transaction."""
    order = seating(group.players)
    users = [by_user[p.user_id].user for p in order]
    creator = by_user[group.players[0].user_id].user
    try:
        with transaction.atomic():  # a savepoint: a refused seat undoes only this group
            table = ranked_table_open(
                users=users,
                creator=creator,
                name=str(creator)[:60],  # shown as "Quick match · <name>" (display_name)
                stake=settings.SHENGJI_QUICK_MATCH_STAKE,
                min_balance=settings.SHENGJI_QUICK_MATCH_MIN_BALANCE,
            )
            record = QuickMatch.objects.create(
                table=table,
                players=[p.user_id for p in order],
                ratings=[p.rating for p in order],
                waits=[round((now - p.joined_at).total_seconds(), 3) for p in order],
                gap=group.gap,
            )
            QueueEntry.objects.filter(pk__in=[by_user[p.user_id].pk for p in order]).delete()
    except ApplicationError as error:
        logger.warning("quick match of %s refused: %s", [p.user_id for p in order], error.code)
        return None
    return record


# --- no-shows --------------------------------------------------------------------------------

# A player quick match seated who never came may not queue again for this long (seconds).
NO_SHOW_WAIT_S = 300


def no_show_wait_s() -> int:
    return int(getattr(settings, "SHENGJI_QUICK_MATCH_NO_SHOW_WAIT_S", NO_SHOW_WAIT_S))


def _check_no_show_wait(user: User) -> None:
    """Refuse a player who did not come to their last quick match table, for a while."""
    from ladder.models import LedgerEntry

    wait = no_show_wait_s()
    since = db_now() - timedelta(seconds=wait)
    last = LedgerEntry.objects.filter(user=user, kind="no_show", created_at__gte=since).exists()
    if last:
        raise ApplicationError(
            "no_show_wait",
            _("you did not come to your last quick match: you may queue again in %(minutes)s min"),
            minutes=wait // 60,
        )


# --- selectors -------------------------------------------------------------------------------


def queue_expected_wait() -> float | None:
    """The median wait (seconds) of the players of the last quick matches; None before any."""
    sample = settings.SHENGJI_QUICK_MATCH_WAIT_SAMPLE
    rows = QuickMatch.objects.order_by("-created_at").values_list("waits", flat=True)[:sample]
    waits = [float(w) for row in rows for w in row]
    return round(statistics.median(waits), 1) if waits else None


def _matched_table(user: User) -> int | None:
    """The table quick match last seated the user at, while they still sit there."""
    record = (
        QuickMatch.objects.filter(players__contains=[user.pk], table__isnull=False)
        .order_by("-pk")
        .first()
    )
    if record is None or record.table_id is None:
        return None
    still = Seat.objects.filter(table_id=record.table_id, user=user).exclude(
        table__status=Table.Status.CLOSED
    )
    return record.table_id if still.exists() else None


def queue_status_get(*, user: User) -> dict[str, Any]:
    """The queue as the lobby shows it, and the viewer's place in it. Not how many wait: a
    script watching the count could join four accounts the moment the queue is empty
    (docs/LADDER.md, "Quick match seats at random")."""
    status: dict[str, Any] = {
        "expected_wait_s": queue_expected_wait(),
        "queued": False,
        "waited_s": None,
        "gap": None,
        "matched_table": None,
    }
    if not user.is_authenticated:
        return status
    entry = QueueEntry.objects.filter(user=user).first()
    if entry is not None:
        waited = max(0.0, (db_now() - entry.joined_at).total_seconds())
        status.update(queued=True, waited_s=round(waited, 1), gap=round(gap_allowed(waited), 1))
    else:
        status["matched_table"] = _matched_table(user)
    return status


# What an admin reviews (``manage.py ladder_check``): the same four seated together again and
# again by quick match, which random seating makes unlikely unless they time their joins.
FOURSOME_WINDOW_DAYS = 7
FOURSOME_REPEAT_MIN = 3


@dataclass(frozen=True)
class Foursome:
    """Four accounts quick match seated together ``seatings`` times in the window."""

    user_ids: tuple[int, ...]  # in id order
    seatings: int
    tables: tuple[int | None, ...]  # oldest first; None: a table since deleted
    last_at: datetime


def foursomes_repeated(
    *, days: int = FOURSOME_WINDOW_DAYS, at_least: int = FOURSOME_REPEAT_MIN
) -> list[Foursome]:
    """The groups of four quick match seated together at least ``at_least`` times in the last
    ``days`` days (the same four user ids in that many ``QuickMatch`` rows, whatever their
    seats), most often first (docs/LADDER.md, "Repeated foursomes")."""
    since = db_now() - timedelta(days=days)
    rows = (
        QuickMatch.objects.filter(created_at__gte=since)
        .order_by("created_at", "pk")
        .values_list("players", "table_id", "created_at")
    )
    seen: dict[tuple[int, ...], list[tuple[int | None, datetime]]] = {}
    for players, table_id, created_at in rows.iterator(chunk_size=2000):
        seen.setdefault(tuple(sorted(int(p) for p in players)), []).append((table_id, created_at))
    found = [
        Foursome(
            user_ids=four,
            seatings=len(visits),
            tables=tuple(table for table, _at in visits),
            last_at=visits[-1][1],
        )
        for four, visits in seen.items()
        if len(visits) >= at_least
    ]
    return sorted(found, key=lambda f: (-f.seatings, f.user_ids))


def lobby_viewer_get(*, user: User) -> dict[str, Any]:
    """What the lobby needs to know of its viewer: their seats and the tables they created
    (open ones), keyed by table id as text (JSON)."""
    if not user.is_authenticated:
        return {"seats": {}, "created": []}
    seats = Seat.objects.filter(user=user).exclude(table__status=Table.Status.CLOSED)
    created = Table.objects.filter(creator=user).exclude(status=Table.Status.CLOSED)
    return {
        "seats": {str(s.table_id): {"seat": s.index, "ready": s.ready} for s in seats},
        "created": list(created.values_list("pk", flat=True)),
    }
