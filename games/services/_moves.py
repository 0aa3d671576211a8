"""What every change of a hand's state goes through, whoever made it (a player, the deadline,
a takeover, an admin): the action log, the system lines, the next deadline and its task, the
snapshot, and the views sent on commit. Call while holding the hand row lock."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.db import transaction
from django.db.models import Count, Q

from games import realtime
from games.handstate import public_summary, remember_state
from games.models import Action, Hand, HandPlayer, Seat
from games.services._common import DRAW_BATCH, SystemLine, system
from games.services.chat import system_line
from games.services.deadline_rule import keeps_timer, step_deadline
from games.services.movefacts import facts_of, shared_facts
from shengji.engine import FriendCall, HandState, format_cards, parse_action, view_for, view_public
from shengji.engine.actions import BURY, TAKEBACK
from shengji.engine.hand import BIDDING, BURYING, DEALING, FINISHED, PLAYING
from shengji.engine.rules import MAX_PLAYERS
from shengji.engine.takeback import standing_indices, withdrawn


def catch_up_deal(
    hand: Hand, state: HandState, now: datetime
) -> list[tuple[int | None, str, bool]]:
    """Apply the draws due by ``now``: card k arrives k × interval after the deal starts (the
    deal's size is the table's: ``state.draws``, 100 at a classic table)."""
    if state.phase != DEALING or hand.deal_started_at is None:
        return []
    interval = state.rules.deal_interval_ms
    elapsed_ms = (now - hand.deal_started_at).total_seconds() * 1000
    draws = state.draws
    due = draws if interval == 0 else min(draws, math.floor(elapsed_ms / interval) + 1)
    logged: list[tuple[int | None, str, bool]] = []
    while state.phase == DEALING and state.drawn < due:
        state.apply("draw")
        logged.append((None, "draw", False))
    return logged


def log_actions(hand: Hand, logged: list[tuple[int | None, str, bool]]) -> int:
    """Append the change's actions to the log; returns the hand's seq before them (the
    change's ``prev``: pass it to ``after_change``)."""
    first = hand.seq
    Action.objects.bulk_create(
        [
            Action(hand=hand, seq=first + i, seat=seat, text=text, auto=auto)
            for i, (seat, text, auto) in enumerate(logged)
        ]
    )
    hand.seq = first + len(logged)
    return first


@dataclass(frozen=True)
class Before:
    """What a change's system lines compare with: the state's failed throws and, in 找朋友,
    its calls, side and whether the calls were shown, before the change."""

    throws: int
    calls: tuple[FriendCall, ...]
    side: frozenset[int]
    shown: bool


def before_change(state: HandState) -> Before:
    return Before(len(state.failed_throws), tuple(state.calls), state.side, state.calls_shown)


def system_lines(
    hand: Hand, state: HandState, logged: list[tuple[int | None, str, bool]], before: Before
) -> None:
    """Chat lines everyone may read: bids, takebacks, failed throws and, in 找朋友, the calls
    once the first trick is led and each call filled (never a hidden card, never a call before
    the first lead: RULES-SPEC.md §9.4)."""
    lines: list[SystemLine] = [
        system("bids", seat, text.split(" ", 2)[2])
        for seat, text, _ in logged
        if text.startswith("bid ") and seat is not None
    ]
    lines += takeback_lines(state)
    lines += play_lines(state, before)
    for line in lines:
        system_line(hand.match.table_id, line)


def takeback_lines(state: HandState) -> list[SystemLine]:
    """A takeback's line, when the change's last action is one: the bid or the play taken
    back, cards everyone saw (RULES-SPEC.md §10.22, §10.23)."""
    taken = withdrawn(state.actions)
    if taken is None or taken.seat is None:
        return []
    code = "takeback_bid" if taken.kind == "bid" else "takeback_play"
    return [system(code, taken.seat, format_cards(taken.cards))]


def play_lines(state: HandState, before: Before) -> list[SystemLine]:
    """The system lines of a bury or a play: a failed throw's, and 找朋友's (``friend_lines``)."""
    lines: list[SystemLine] = []
    for failed in state.failed_throws[before.throws :]:
        shown = failed.to_dict()
        if failed.result == "forced":
            lines.append(system("throw_forced", failed.seat, shown["attempted"], shown["played"]))
        else:
            lines.append(system("throw_back", failed.seat))
    return lines + friend_lines(state, before)


def timeout_lines(table_id: int, seat: int, texts: list[str]) -> None:
    """A player's turn ran out and the server moved for them: a line says so, with the cards
    of a play (public once played); a bury's cards and 找朋友 calls stay hidden (RULES-SPEC.md §5.4,
    RULES-SPEC.md §9.4): ``timeout_call`` says only that the system called for the dealer."""
    for text in texts:  # "play 2 5H 5H": the action, the seat, the cards
        kind, _, cards = text.split(" ", 2)
        if kind == "play":
            system_line(table_id, system("timeout_play", seat, cards))
        elif kind == "bury":
            system_line(table_id, system("timeout_bury", seat))
        elif kind == "call":
            system_line(table_id, system("timeout_call", seat))


def friend_news(state: HandState, before: Before) -> bool:
    """The change showed the calls or filled one: it has 找朋友 system lines to write."""
    if not state.rules.is_friends:
        return False
    return state.calls_shown != before.shown or tuple(state.calls) != before.calls


def friend_lines(state: HandState, before: Before) -> list[SystemLine]:
    """找朋友's public moments (RULES-SPEC.md §9.3.3–4): the calls at the first lead
    (``friends_called``: the dealer, the calls as "2AS 1KH"), and each call filled by a player
    who joins the side (``friend_joins``: seat, card, ordinal) or by one already on it
    (``call_spent``, under ``join_policy`` unrestricted)."""
    if not friend_news(state, before):
        return []
    lines: list[SystemLine] = []
    dealer = state.dealer
    if state.calls_shown and not before.shown and state.calls and dealer is not None:
        calls = " ".join(f"{c.ordinal}{format_cards([c.card])}" for c in state.calls)
        lines.append(system("friends_called", dealer, calls))
    side = before.side
    for old, new in zip(before.calls, state.calls, strict=False):
        if old.seat is not None or new.seat is None:
            continue
        card = format_cards([new.card])
        code = "call_spent" if new.seat in side else "friend_joins"
        lines.append(system(code, new.seat, card, new.ordinal))
        side = side | {new.seat}
    return lines


def count_turns(hand: Hand) -> None:
    """Each seat's plays (and bury) and how many of them the bot made, from the log, once the
    hand has ended (the ladder's rating and the replay read them; nothing does before). A
    play taken back is no turn (RULES-SPEC.md §10.23)."""
    if Action.objects.filter(hand=hand, text__startswith=TAKEBACK).exists():
        _count_standing_turns(hand)
        return
    counts = (
        Action.objects.filter(hand=hand, seat__isnull=False)
        .filter(Q(text__startswith="play") | Q(text__startswith="bury"))
        .values("seat")
        .annotate(turns=Count("pk"), auto_turns=Count("pk", filter=Q(auto=True)))
    )
    for row in counts:
        seat = cast(int, row["seat"])  # never None: seat__isnull=False
        HandPlayer.objects.filter(hand=hand, seat=seat).update(
            turns=row["turns"], auto_turns=row["auto_turns"]
        )


def _count_standing_turns(hand: Hand) -> None:
    """``count_turns`` of a hand with takebacks: the plays and the bury still standing."""
    rows = list(
        Action.objects.filter(hand=hand).order_by("seq").values_list("seat", "text", "auto")
    )
    actions = [parse_action(text, MAX_PLAYERS) for _, text, _ in rows]
    turns: dict[int, list[int]] = {}
    for index in standing_indices(actions):
        seat, text, auto = rows[index]
        if seat is None or not text.startswith(("play", "bury")):
            continue
        counted = turns.setdefault(seat, [0, 0])
        counted[0] += 1
        counted[1] += 1 if auto else 0
    for seat, (count, auto_count) in turns.items():
        HandPlayer.objects.filter(hand=hand, seat=seat).update(turns=count, auto_turns=auto_count)


def calls_step(state: HandState) -> bool:
    """找朋友's dealer is at the calls step: burying, no calls made yet (RULES-SPEC.md §9.3.3).
    The step has the table's bury time; the first calls start the bury's own
    (``deadline_rule.turn_limit_s``, docs/PROTOCOL.md "Time")."""
    return state.phase == BURYING and state.rules.is_friends and not state.calls


def _turn_started_at(hand: Hand, state: HandState, now: datetime, prev: int | None) -> datetime:
    """When the step in play began: now when this change logged a move, else (托管 on or off,
    a takeover, a player back) when the hand's last move was logged, the move that gave the
    seat its turn (burying and playing are always begun by one). 找朋友's bury after the calls
    began with the first calls: changing them later starts nothing new."""
    if _theft_bury(state):  # RULES-SPEC.md §10.24: a thief's bury begins at the close
        return _last_logged_at(hand, "close", now)
    if state.phase == BURYING and state.calls:
        return _calls_made_at(hand, now, prev)
    if state.phase == PLAYING and state.actions and state.actions[-1].kind == TAKEBACK:
        return _resumed_turn_at(hand, state, now)
    if prev is not None or hand.seq == 0:
        return now
    last = Action.objects.filter(hand=hand, seq=hand.seq - 1).values_list("created_at", flat=True)
    return last.first() or now


def _resumed_turn_at(hand: Hand, state: HandState, now: datetime) -> datetime:
    """After a play taken back, the seat's clock keeps running (RULES-SPEC.md §10.23): its turn
    began when the move that gave it the turn was logged, the last one still standing."""
    standing = standing_indices(state.actions)
    if not standing:
        return now
    began = Action.objects.filter(hand=hand, seq=standing[-1]).values_list("created_at", flat=True)
    return began.first() or now


def _theft_bury(state: HandState) -> bool:
    """Under ``kitty_theft`` a seat buries a kitty taken at a window's close: a bury was made
    already this hand (RULES-SPEC.md §10.24). Its clock is its own (``bury_s``)."""
    return state.phase == BURYING and any(a.kind == BURY for a in state.actions)


def _last_logged_at(hand: Hand, text: str, now: datetime) -> datetime:
    """When the hand's last action starting with ``text`` was logged (its ``created_at``, by
    this change too: every later change reads the same time, so the deadline never moves)."""
    last = (
        Action.objects.filter(hand=hand, text__startswith=text)
        .order_by("-seq")
        .values_list("created_at", flat=True)
        .first()
    )
    return now if last is None else last


def _calls_made_at(hand: Hand, now: datetime, prev: int | None) -> datetime:
    """When the hand's first calls were logged: now if by this change (``prev`` on)."""
    first = (
        Action.objects.filter(hand=hand, text__startswith="call ")
        .order_by("seq")
        .values_list("seq", "created_at")
        .first()
    )
    if first is None or (prev is not None and first[0] >= prev):
        return now
    return first[1]


def _next_deadline(
    hand: Hand, state: HandState, now: datetime, seats: list[Seat], prev: int | None
) -> datetime:
    """The next deadline. A turn's is never later than its start plus the table's time,
    whatever changes during it: 托管 on then off, or a takeover and a return, give the player
    the rest of their turn, never a new one (docs/PROTOCOL.md, "Time"). In 找朋友 the dealer's
    calls and bury are two steps, each with the table's bury time (``deadline_rule``)."""
    rules = state.rules
    interval = timedelta(milliseconds=rules.deal_interval_ms)
    started = hand.deal_started_at or now
    draws = state.draws
    if state.phase == DEALING:
        return started + interval * min(state.drawn + DRAW_BATCH - 1, draws - 1)
    if state.phase == BIDDING:
        if state.in_theft_window:  # RULES-SPEC.md §10.24: the window opened with the bury
            opened = _last_logged_at(hand, "bury ", now)
            return opened + timedelta(seconds=rules.bid_window_s)
        return started + interval * (draws - 1) + timedelta(seconds=rules.bid_window_s)
    seat = state.to_act
    assert seat is not None
    return step_deadline(state, _turn_started_at(hand, state, now, prev), now, seats[seat].bot)


# What a hand's moves change; the rest of the row (rules, seed, dealer, levels) is fixed when
# the hand starts.
HAND_MOVING_FIELDS = [
    "seq",
    "deal_started_at",
    "snapshot",
    "deadline",
    "timer_seq",
    "timer_at",
    "status",
    "result",
    "finished_at",
    "awaiting_wrap_up",
]


def after_change(
    hand: Hand, state: HandState, now: datetime, seats: list[Seat], *, prev: int | None = None
) -> None:
    """Save the hand after its state moved; send views (and a deadline task if one is
    needed) on commit. ``prev`` is the seq before this change's actions (``log_actions``
    returns it); None when the change logged none (a takeover, autopilot: only the deadline
    moved), the seq as it is. A caller that logged actions and passed no ``prev`` costs the
    sockets a ``state`` each (they see a gap), never a missed frame."""
    if state.phase == FINISHED:
        _finish_hand(hand, state, now)
    else:
        hand.deadline = _next_deadline(hand, state, now, seats, prev)
    timer = _timer_to_send(hand, now)
    hand.snapshot = public_summary(state, hand.deadline)
    hand.save(update_fields=HAND_MOVING_FIELDS)
    hand_id, seq, table_id, deadline = hand.pk, hand.seq, hand.match.table_id, hand.deadline
    before = seq if prev is None else prev
    views = [view_for(state, seat) for seat in range(state.players)]
    public = view_public(state)
    facts = facts_of(hand, seats, hand.match.table.ranked)
    shared = shared_facts(facts, state, before)

    def publish() -> None:
        remember_state(hand_id, state)
        message = realtime.hand_view_message(
            hand_id,
            seq,
            views,
            public,
            list(facts.occupants),
            list(facts.watchable),
            prev=before,
            deadline=deadline,
            facts=shared,
        )
        realtime.hand_changed(table_id, message)
        if timer is not None:
            realtime.schedule_deadline(hand_id, *timer)

    transaction.on_commit(publish)


def _timer_to_send(hand: Hand, now: datetime) -> tuple[int, datetime] | None:
    """The deadline task this change must send, as (seq, due), or None when the task in
    flight serves the new deadline (``deadline_rule.keeps_timer``)."""
    if hand.deadline is None:
        hand.timer_seq = hand.timer_at = None
        return None
    if keeps_timer(hand.timer_seq, hand.timer_at, now, hand.deadline):
        return None
    hand.timer_seq, hand.timer_at = hand.seq, hand.deadline
    return hand.seq, hand.deadline


def _finish_hand(hand: Hand, state: HandState, now: datetime) -> None:
    """The hand's last move: its result. The rest (settlement, match, seats, the table) is
    ``hand_wrap_up``'s, in a transaction of its own right after this one commits, so the last
    move's views go out as fast as any other's."""
    result = state.result
    assert result is not None
    hand.result = result.to_dict()
    hand.status = Hand.Status.ESCAPED if result.escaper is not None else Hand.Status.FINISHED
    hand.finished_at = now
    hand.deadline = None
    hand.awaiting_wrap_up = True
