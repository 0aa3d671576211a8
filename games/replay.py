"""Replays of hands that are over: the record, and every state with all four hands (issue 8).

Only a hand that is finished, escaped or void is ever replayed. A hand in progress is answered
exactly as a hand that does not exist (``not_found``), so no replay can show a live hand's cards.

The steps are the engine's ``view_all`` after each action of the stored log, rebuilt with
``shengji.engine.replay`` (ARCHITECTURE.md, Replays). The deal's 100 ``draw`` actions are folded:
one step for each run of draws, so the replay moves by what a player would call a move (a bid, a
bury, a play) while every state of the log stays reachable.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from accounts.errors import ApplicationError
from games import selectors
from games.handstate import record_for
from games.models import Action, Hand, HandPlayer
from shengji.engine import HandRecord, replay, view_all

REPLAYABLE = (Hand.Status.FINISHED, Hand.Status.ESCAPED, Hand.Status.VOID)
DRAW = "draw"
_SHARED_KEYS = ("rules", "seed")  # the same in every step: sent once, not per step


def replay_hand_get(*, hand_id: int) -> Hand:
    """The hand, if it is over; a hand in progress is refused as ``not_found`` (never shown)."""
    hand = (
        Hand.objects.select_related("match__table")
        .filter(pk=hand_id, status__in=REPLAYABLE)
        .first()
    )
    if hand is None:
        raise ApplicationError("not_found")
    return hand


def _actions(hand: Hand) -> list[Action]:
    return list(Action.objects.filter(hand=hand).order_by("seq"))


def replay_record_get(*, hand: Hand) -> HandRecord:
    """The hand's record (docs/NOTATION.md), with the result it reached when it was played out
    or escaped; a void hand has no engine result (an admin stopped it)."""
    if hand.status not in REPLAYABLE:
        raise ApplicationError("not_found")
    record = record_for(hand, [a.text for a in _actions(hand)])
    result = hand.result if hand.status != Hand.Status.VOID else None
    return dataclasses.replace(record, result=result)


def _kind(text: str) -> str:
    return text.split(" ", 1)[0]


def _step(move: int, first: int, actions: list[Action], view: dict[str, Any]) -> dict[str, Any]:
    """One step: the state after ``move`` actions; ``first`` is the first action it covers."""
    for key in _SHARED_KEYS:
        view.pop(key, None)
    last = actions[move - 1] if move else None
    return {
        "move": move,
        "first": first,
        "kind": "start" if last is None else _kind(last.text),
        "text": "" if last is None else last.text,
        "seat": None if last is None else last.seat,
        "auto": False if last is None else last.auto,
        "count": 0 if last is None else move - first + 1,
        "trick": None,
        "view": view,
    }


def _number_tricks(steps: list[dict[str, Any]]) -> None:
    """Each play step gets the number (from 1) of the trick it belongs to."""
    for step in steps:
        if step["kind"] != "play":
            continue
        view = step["view"]
        trick = view.get("trick")
        in_progress = trick is not None and trick["plays"]
        step["trick"] = view["tricks_played"] + (1 if in_progress else 0)


def replay_steps_get(*, hand: Hand) -> list[dict[str, Any]]:
    """Every step of a hand that is over, with all four hands: the start, each run of draws,
    then each other action. ``move`` is the number of actions applied."""
    if hand.status not in REPLAYABLE:
        raise ApplicationError("not_found")
    actions = _actions(hand)
    record = record_for(hand, [a.text for a in actions])
    steps: list[dict[str, Any]] = []
    first = 1
    for move, state in enumerate(replay(record)):
        if move == 0:
            steps.append(_step(0, 0, actions, view_all(state)))
            continue
        text = actions[move - 1].text
        following = actions[move].text if move < len(actions) else None
        if text == DRAW and following == DRAW:
            continue  # a run of draws is one step, shown once the run ends
        steps.append(_step(move, first, actions, view_all(state)))
        first = move + 1
    _number_tricks(steps)
    return steps


def replay_players_get(*, hand: Hand) -> list[dict[str, Any]]:
    """Who sat where: a name per seat, or None where a bot played the whole hand."""
    players = HandPlayer.objects.filter(hand=hand).select_related("user").order_by("seat")
    seats: list[dict[str, Any]] = [
        {"seat": i, "name": None, "username": None, "bot": True, "auto_turns": 0, "escaped": False}
        for i in range(hand.match.table.players)
    ]
    for player in players:
        seats[player.seat] = {
            "seat": player.seat,
            "name": None if player.user is None else str(player.user),
            "username": None if player.user is None else player.user.username,
            "bot": player.user is None,
            "auto_turns": player.auto_turns,
            "escaped": player.escaped,
        }
    return seats


def replay_get(*, hand_id: int) -> dict[str, Any]:
    """Everything the replay page shows: the hand, its players, the rules and every step."""
    hand = replay_hand_get(hand_id=hand_id)
    record = replay_record_get(hand=hand)
    return {
        "hand": {
            "id": hand.pk,
            "number": hand.number,
            "status": hand.status,
            "table": hand.match.table.display_name,
            "table_id": hand.match.table_id,
            "match": selectors.match_number(hand.match),  # at its table, not the site-wide id
            "match_id": hand.match_id,
            "finished_at": None if hand.finished_at is None else hand.finished_at.isoformat(),
            "void_reason": (hand.result or {}).get("reason")
            if hand.status == Hand.Status.VOID
            else None,
        },
        "rules": record.rules.to_dict(),
        "seed": hand.seed,
        "players": replay_players_get(hand=hand),
        "steps": replay_steps_get(hand=hand),
    }


def replay_ledger_get(*, hand: Hand) -> list[dict[str, Any]]:
    """What the hand did to each seated player's points: table and title points, with the
    ledger rows behind them (kinds in the active language). The house is left out."""
    from ladder.models import LedgerEntry

    if hand.status not in REPLAYABLE:
        raise ApplicationError("not_found")
    players = replay_players_get(hand=hand)
    by_user = {p["username"]: p for p in players if p["username"] is not None}
    rows: dict[str, dict[str, Any]] = {}
    entries = (
        LedgerEntry.objects.filter(hand=hand, user__isnull=False)
        .select_related("user")
        .order_by("id")
    )
    for entry in entries:
        username = entry.user.username  # type: ignore[union-attr]
        player = by_user.get(username)
        row = rows.setdefault(
            username,
            {
                "seat": None if player is None else player["seat"],
                "name": str(entry.user),
                "username": username,
                "table_points": 0,
                "title_points": 0,
                "entries": [],
            },
        )
        key = "title_points" if entry.account == LedgerEntry.Account.TITLE else "table_points"
        row[key] += entry.amount
        kind = str(entry.get_kind_display())
        row["entries"].append({"kind": kind, "account": entry.account, "amount": entry.amount})
    return sorted(rows.values(), key=lambda r: (r["seat"] is None, r["seat"] or 0))
