"""Starting a hand: when every seat is taken and ready, the table's match (the same players
play on at their levels, or a new match starts at level 2) deals its next hand.

Before every hand (seed 000 §1.4: a hand starts only if everyone seated still meets the
table's conditions) each human must hold the table points the table needs (a player short of
them is stood up, with a chat line, and the table waits) and be present: not away, and at a
ranked table connected. A hand with a bot in a seat is practice (docs/LADDER.md).

After a hand the wrap-up readies every present player who keeps auto-ready on, for the next
hand of the same match; a start that auto-ready completes waits until
``SHENGJI_NEXT_HAND_PAUSE_S`` after the hand's end (``next_hand_after_pause``), so the players
see the result first.
"""

from __future__ import annotations

import dataclasses
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Max

from games import realtime
from games.handstate import load_state
from games.models import Hand, HandPlayer, Match, Seat, Table
from games.selectors import match_number
from games.services._common import (
    db_now,
    free_seat,
    hand_on,
    lock_table,
    locked_seats,
    points_needed_seated,
    ranked_table_close_if_dead,
    seat_present,
    system,
    table_changed,
)
from games.services._moves import after_change
from ladder.selectors import balances_of
from ladder.services import ladder_profiles_lock
from shengji.engine import RuleSet
from shengji.engine.hand import level_slots


def start_if_all_ready(table: Table, seats: list[Seat]) -> Hand | None:
    """Start the next hand if it may start now. Precondition: the table and its seats are
    locked and no hand is on, or ``hand_on`` says so."""
    if hand_on(table):
        return None
    starting = _may_start(table, seats)
    if stand_up_short(table, seats, starting=starting) or not starting:
        return None
    return _hand_start(table, seats)


def _may_start(table: Table, seats: list[Seat]) -> bool:
    """Every seat taken (a human among them), all ready, every human present."""
    seated = all(s.user_id is not None or s.bot for s in seats)
    humans = [s for s in seats if s.user_id is not None]
    if not (seated and humans) or not all(s.ready for s in seats):
        return False
    return all(seat_present(table, s) for s in humans)


def next_hand_pause() -> timedelta:
    return timedelta(seconds=settings.SHENGJI_NEXT_HAND_PAUSE_S)


def next_hand_after_pause(table: Table, ended_at: datetime) -> None:
    """After the commit, send the task that starts the table's next hand when the pause after
    the hand that ended at ``ended_at`` is over (``table_start_due``)."""
    table_id, due = table.pk, ended_at + next_hand_pause()
    transaction.on_commit(lambda: realtime.schedule_next_hand(table_id, due))


@transaction.atomic
def table_start_due(*, table_id: int) -> Hand | None:
    """The pause after the table's last hand is over: start the next if all are ready still.

    Once only, however often it runs: under the table's lock a hand that started already
    (``hand_on``) or seats no longer all ready start nothing. A task that comes before the
    pause's end by the database's clock sends itself again for it."""
    table = lock_table(table_id)
    if table.status != Table.Status.OPEN:
        return None
    seats = locked_seats(table)
    ended_at = _last_hand_end(table)
    if ended_at is not None and ended_at + next_hand_pause() > db_now():
        next_hand_after_pause(table, ended_at)
        return None
    return start_if_all_ready(table, seats)


def tables_start_overdue(*, late_s: float = 1.0) -> list[int]:
    """Open tables whose seats are all ready (a human among them) a while after the pause
    following their last hand: their start task is late or was lost (the sweeper)."""
    ready = (
        Seat.objects.filter(ready=True, table__status=Table.Status.OPEN)
        .values("table_id", "table__players")
        .annotate(seats=Count("pk"), humans=Count("user"))
        .filter(seats=F("table__players"), humans__gt=0)
        .values_list("table_id", flat=True)
    )
    cutoff = db_now() - next_hand_pause() - timedelta(seconds=late_s)
    ended = (
        Hand.objects.filter(match__table_id__in=list(ready))
        .values("match__table_id")
        .annotate(last=Max("finished_at"))
        .filter(last__lt=cutoff)
        .values_list("match__table_id", flat=True)
    )
    return sorted(ended)


def _last_hand_end(table: Table) -> datetime | None:
    return (
        Hand.objects.filter(match__table=table, finished_at__isnull=False)
        .order_by("-finished_at")
        .values_list("finished_at", flat=True)
        .first()
    )


def stand_up_short(table: Table, seats: list[Seat], *, starting: bool = False) -> list[Seat]:
    """Stand up every seated human holding fewer table points than the table needs, each
    with a chat line; the seats they leave. Between hands only. ``starting``: the hand starts
    unless someone is short, so every human's balance is locked until it has started."""
    humans = {s.user_id: s for s in seats if s.user_id is not None}
    if not humans:
        return []
    needed = points_needed_seated(table, seats)
    short = [humans[user_id] for user_id in _short_of(list(humans), needed, starting=starting)]
    for seat in short:
        name = seat.user
        free_seat(seat)
        table_changed(table, system("stands_short", str(name), needed))
    if short:
        ranked_table_close_if_dead(table, seats)
    return short


def _short_of(user_ids: list[int], needed: int, *, starting: bool) -> list[int]:
    """The users holding fewer than ``needed`` table points, their ladder rows locked (in
    user-id order, after the seats) until the transaction ends: no balance moves between this
    check and a hand's start. When no hand starts (a ready that leaves others to press theirs,
    say) an unlocked read first finds who may be short, and only they are locked and checked
    again: the others' rows are not locked at every ready."""
    if not starting:
        balances = balances_of(user_ids=user_ids)
        user_ids = [pk for pk in user_ids if balances.get(pk, needed - 1) < needed]
    profiles = ladder_profiles_lock(user_ids=user_ids)
    return [pk for pk in user_ids if profiles[pk].balance < needed]


def _rules_for(table: Table) -> dict[str, Any]:
    rules = dataclasses.replace(
        table.rules(),
        play_s=table.play_seconds,
        bury_s=table.bury_seconds,
        bid_window_s=table.bid_window_seconds,
        deal_interval_ms=table.deal_interval_ms,
    )
    return rules.to_dict()


def _match_for(table: Table, players: list[int | None]) -> Match:
    """The table's match if the same players sit on, else a new one at level 2 (seed 000
    §1.4; the deck's lowest rank under ``deck_min_rank``, RULES-SPEC.md §10.12): a level per
    side (拖拉机) or per player (找朋友, RULES-SPEC.md §9.3.1). In 找朋友 the match also goes on
    while one of its players still sits (``_friends_levels_follow``)."""
    match = table.matches.order_by("-pk").first()
    if match is not None and match.ended_at is None and match.players == players:
        return match
    if match is not None and match.ended_at is None and _friends_levels_follow(match, players):
        return match
    if match is not None and match.ended_at is None:
        match.ended_at = db_now()
        match.save(update_fields=["ended_at"])
    ruleset = _rules_for(table)
    rules = RuleSet.from_dict(ruleset)
    slots = level_slots(rules)
    return Match.objects.create(
        table=table,
        ruleset=ruleset,
        levels=[rules.deck_min_rank] * slots,
        wrapped=[False] * slots,
        players=players,
    )


def lowest_level(match: Match) -> str:
    """Where a match's levels start: 2, or the deck's lowest rank (RULES-SPEC.md §10.12)."""
    return str((match.ruleset.get("options") or {}).get("deck_min_rank", "2"))


def _is_friends_match(match: Match) -> bool:
    return bool((match.ruleset.get("options") or {}).get("mode") == "friends")


def _friends_levels_follow(match: Match, players: list[int | None]) -> bool:
    """找朋友, where each player has a level of their own (docs/RULES-DECISIONS.md, "Leaving a
    找朋友 table"): while a human of the match still sits, the match goes on with the players
    now seated. Each level follows its player (one who moved seats takes theirs along); a bot
    that played on keeps its seat's; a new player, or a bot in a player's place, starts at 2
    (the lowest level: ``lowest_level``).
    Whether it went on (``match`` then names the players now seated)."""
    if not _is_friends_match(match) or len(match.levels) != len(players):
        return False
    before = list(match.players)
    if not any(user is not None and user in before for user in players):
        return False
    wrapped = list(match.wrapped or [False] * len(before))
    levels: list[str] = []
    flags: list[bool] = []
    for index, user in enumerate(players):
        if user is not None and user in before:
            kept = before.index(user)
        elif user is None and before[index] is None:
            kept = index
        else:
            levels.append(lowest_level(match))
            flags.append(False)
            continue
        levels.append(match.levels[kept])
        flags.append(bool(wrapped[kept]))
    match.levels, match.wrapped, match.players = levels, flags, players
    match.save(update_fields=["levels", "wrapped", "players"])
    return True


def match_end_if_deserted(match: Match, seats: list[Seat]) -> None:
    """A 找朋友 match ends when none of its players is seated any more: the table chose to stop
    (everyone stood up), and players who sit down again start a new match at 2. Between hands;
    a 拖拉机 match ends as before (its players change: ``_match_for``)."""
    if match.ended_at is not None or not _is_friends_match(match):
        return
    seated = {seat.user_id for seat in seats if seat.user_id is not None}
    if not seated.intersection(user for user in match.players if user is not None):
        match.ended_at = db_now()
        match.save(update_fields=["ended_at"])


def _hand_start(table: Table, seats: list[Seat]) -> Hand:
    players = [s.user_id for s in seats]
    match = _match_for(table, players)
    now = db_now()
    hand = Hand.objects.create(
        match=match,
        number=match.hands.count() + 1,
        ruleset=match.ruleset,
        seed=secrets.randbits(63),
        dealer=match.next_dealer,
        levels=match.levels,
        wrapped=match.wrapped or [False] * len(match.levels),
        deal_started_at=now,
    )
    HandPlayer.objects.bulk_create(
        [HandPlayer(hand=hand, seat=s.index, user_id=s.user_id) for s in seats]
    )
    for seat in seats:
        if seat.user_id is not None:
            seat.ready = False
            seat.save(update_fields=["ready"])
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    state = load_state(hand)
    if any(s.user_id is None for s in seats):
        table_changed(table, system("practice"))
    # At once, before the hand's first view: a client hearing of a hand it has no state of
    # asks for one (static/games/table.js, onView).
    table_changed(table, system("hand_starts", hand.number, match_number(match)), at_once=True)
    after_change(hand, state, now, seats)
    return hand
