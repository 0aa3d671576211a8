"""From the frames the seats of a table received to the latency of every action they sent.

The latency of a bury or a play: from the moment its client sent it to the moment the last of
the table's seats received a view (``view``, or the ``state`` a hand's end also sends)
with a newer ``seq``. Only the seat in turn moves the hand, so the newer ``seq`` is that
action's. Errors: any ``error`` frame (with bids, refused bids up to the number sent are bid
races), a view missing for a seat, a hand not finished.
"""

from __future__ import annotations

import bisect
from typing import Any

from proof.botclient import SeatClient

GAME_KINDS = {"call", "bury", "play"}
BID_REFUSALS = {"stale_seq", "wrong_phase"}

Arrivals = dict[int, tuple[list[int], list[float]]]


def arrivals(client: SeatClient) -> Arrivals:
    """For each hand, the seqs of the views this seat received, each with the time the seat
    first saw it or a newer one (increasing in both)."""
    seen: Arrivals = {}
    for at, frame in client.frames:
        if frame.get("type") == "view":
            hand, seq = frame["hand"], frame["seq"]
        elif frame.get("type") == "state" and frame.get("hand"):
            hand, seq = frame["hand"]["id"], frame["hand"]["seq"]
        else:
            continue
        seqs, times = seen.setdefault(hand, ([], []))
        if not seqs or seq > seqs[-1]:
            seqs.append(seq)
            times.append(at)
    return seen


def first_view_after(seen: Arrivals, hand: int | None, seq: int) -> float | None:
    """When the seat first saw ``hand`` past ``seq`` (None: never)."""
    seqs, times = seen.get(hand, ([], [])) if hand is not None else ([], [])
    index = bisect.bisect_right(seqs, seq)
    return times[index] if index < len(seqs) else None


def finished_seqs(client: SeatClient) -> dict[int, int]:
    """The seq at which each hand this seat saw finished (in a ``view``, or in the ``state``
    that the end of a hand also sends)."""
    ends = {}
    for _, frame in client.frames:
        kind, hand = frame.get("type"), frame.get("hand")
        if kind == "state" and hand:
            hand_id, seq, view = hand["id"], hand["seq"], hand["view"]
        elif kind == "view":
            hand_id, seq, view = hand, frame["seq"], frame["view"]
        else:
            continue
        if view.get("phase") == "finished":
            ends[hand_id] = seq
    return ends


DEALT = {"burying", "playing"}


def hand_seen_at(client: SeatClient, phases: set[str] | None = None) -> dict[int, float]:
    """When this seat first saw each hand (in one of ``phases``, if given)."""
    seen: dict[int, float] = {}
    for at, frame in client.frames:
        kind, hand = frame.get("type"), frame.get("hand")
        if kind == "state" and hand:
            hand_id, view = hand["id"], hand["view"]
        elif kind == "view":
            hand_id, view = hand, frame["view"]
        else:
            continue
        if (phases is None or view.get("phase") in phases) and hand_id not in seen:
            seen[hand_id] = at
    return seen


def hand_starts(clients: list[SeatClient], phases: set[str] | None = None) -> list[float]:
    """For each hand of a table: from the last of its seats' ``ready`` messages to the moment
    the last seat saw it (in one of ``phases``: ``DEALT``, once dealt and its bids closed)."""
    seen_by = [hand_seen_at(client, phases) for client in clients]
    starts = []
    for number, hand in enumerate(sorted(seen_by[0])):
        readies = [c.readies[number] for c in clients if len(c.readies) > number]
        seen = [by.get(hand) for by in seen_by]
        if len(readies) == len(clients) and all(at is not None for at in seen):
            starts.append(max(at for at in seen if at is not None) - max(readies))
    return starts


def table_figures(tables: list[list[SeatClient]], hands: int, bids: bool) -> dict[str, Any]:
    """Latency of every call, bury and play (send → the last of the table's seats sees a newer
    view), the errors the frames show, and the span of the game. Each latency has a kind:
    ``call`` (找朋友's dealer), ``bury``, ``play``, or ``hand_end`` (the play that ended a
    hand: its transaction settles the hand). ``moves``: each action's hand, seq, send, and
    when its last seat saw it."""
    latencies: list[float] = []
    kinds: list[str] = []
    errors: list[str] = []
    bid_races = 0
    spans: list[float] = []
    action_times: list[float] = []
    moves: list[list[Any]] = []
    plays: list[list[float]] = []
    for clients in tables:
        plays.append(first_hand_plays(clients))
        seen = [arrivals(c) for c in clients]
        ends = finished_seqs(clients[0])
        for client in clients:
            for sent in client.sent:
                if sent.kind not in GAME_KINDS:
                    continue
                times = [first_view_after(s, sent.hand, sent.seq) for s in seen]
                if any(t is None for t in times):
                    errors.append(f"{client.name}: no view after its {sent.kind} at {sent.seq}")
                    continue
                last = max(t for t in times if t is not None)
                latencies.append(last - sent.at)
                moves.append([sent.hand, sent.seq, sent.at, last])
                ended = sent.hand is not None and ends.get(sent.hand) == sent.seq + 1
                kinds.append("hand_end" if ended else sent.kind)
                spans += [sent.at, last]
                action_times.append(sent.at)
            races, refused = split_errors(client, bids)
            bid_races += races
            errors += refused
            if client.hands_finished < hands:
                errors.append(f"{client.name}: {client.hands_finished} of {hands} hands finished")
    return {
        "latencies": latencies,
        "hand_starts": [x for clients in tables for x in hand_starts(clients)],
        "hand_deals": [x for clients in tables for x in hand_starts(clients, DEALT)],
        "kinds": kinds,
        "errors": errors,
        "bid_races": bid_races,
        "actions": len(latencies),
        "hands_finished": sum(min(c.hands_finished for c in clients) for clients in tables),
        "first_at": min(spans, default=None),
        "last_at": max(spans, default=None),
        "action_times": action_times,
        "moves": moves,  # [hand, seq, sent, last seen] (moveparts.py)
        "steady": [[min(p), max(p)] for p in plays if p],
    }


def first_hand_plays(clients: list[SeatClient]) -> list[float]:
    """When each play of the table's first hand was sent: between the first and the last the
    table is in steady play (its hand dealt and buried, not yet ended)."""
    hands = [s.hand for c in clients for s in c.sent if s.kind == "play" and s.hand is not None]
    if not hands:
        return []
    first = min(hands)
    return [s.at for c in clients for s in c.sent if s.kind == "play" and s.hand == first]


def steady_window(spans: list[list[float]]) -> tuple[float, float] | None:
    """The stretch in which every table was in steady play (``first_hand_plays``): from the
    last table's first play to the first table's last; None if there is none."""
    if not spans:
        return None
    start, end = max(first for first, _ in spans), min(last for _, last in spans)
    return (start, end) if end > start else None


def split_errors(client: SeatClient, bids: bool) -> tuple[int, list[str]]:
    """(bid races, other errors) among the error frames of one seat: with bids on, as many
    stale or late refusals as the seat sent bids are the documented bid races."""
    allowed = sum(1 for s in client.sent if s.kind == "bid") if bids else 0
    races, refused = 0, []
    for at, frame in client.frames:
        if frame.get("type") != "error":
            continue
        if frame.get("code") in BID_REFUSALS and races < allowed:
            races += 1
        else:
            refused.append(f"{client.name}: error {frame.get('code')} {last_sent(client, at)}")
    return races, refused


def last_sent(client: SeatClient, before: float) -> str:
    """What the seat last sent before ``before`` (what an error frame most likely answers)."""
    sent = [s for s in client.sent if s.at <= before]
    if not sent:
        return "(nothing sent yet)"
    s = sent[-1]
    ago = before - s.at
    return f"after its {s.kind} {s.cards!r} at seq {s.seq} of hand {s.hand}, {ago:.3f} s before"
