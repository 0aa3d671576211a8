"""A seat of a fault drill: played by the basic bot over a real WebSocket that survives its
socket, and how each action it sent is judged afterwards against the database log.

``DrillSeat``: when the socket drops it retries until a server answers, takes the ``state``
frame and plays on. It remembers, for each connection (an *epoch*), the newest ``seq`` it heard
of each hand, so every action it sent can be judged (``audit``) against the log:

- *acknowledged*: on the connection that sent it, a later view showed it applied (for a bury
  or a play, a view with a higher ``seq``: only the seat in turn moves the hand; for a bid,
  a view listing the bid);
- *lost*: acknowledged, but not in the log (must never happen);
- *overtaken by deadline*: a bury or play whose turn was played automatically first (its
  deadline, or the bot for a seat taken over): the higher ``seq`` was not its own move;
- *applied unacknowledged*: in the log, though the connection dropped before it heard so (the
  ``state`` after reconnecting shows it);
- *not applied*: neither (refused, or gone with the socket before the server read it; the
  seat decides again on the ``state`` it gets back).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from proof.botclient import open_socket
from shengji.bots import choose_action
from shengji.engine.rules import preset

RECEIVE_TIMEOUT = 60.0
ACTING_PHASES = {"bidding", "burying", "playing"}


class NotGreeted(Exception):
    """A new socket's first frame was not the ``state`` (e.g. refused with an error)."""


@dataclass
class Sent:
    epoch: int
    hand: int
    seq: int
    kind: str
    cards: str
    at: float


@dataclass
class Drop:
    at: float  # time.monotonic() when the socket closed
    code: int | None  # the close code the client got (1006: none, the connection broke)
    hand: int | None
    seq: int
    back_at: float | None = None  # when the ``state`` frame after reconnecting arrived
    attempts: int = 0
    state_seq: int | None = None

    @property
    def resume_s(self) -> float | None:
        return None if self.back_at is None else self.back_at - self.at


@dataclass
class DrillSeat:
    """One socket at a table (a seat's player, or a spectator without a session)."""

    url: str
    session: str | None
    origin: str
    name: str = "seat"
    think: float = 0.0
    ping_every: float = 1.0
    come_back: bool = True  # after a drop: reconnect, or stay away for good
    retry_every: float = 0.2
    give_up_s: float = 120.0
    rules_name: str = "ranked"
    goal: int = 1  # hands to finish
    socket: Any = None
    epoch: int = 0
    seat: int | None = None
    hand_id: int | None = None
    seq: int = -1
    view: dict[str, Any] | None = None
    finished: list[int] = field(default_factory=list)
    frames: list[tuple[float, int, dict[str, Any]]] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    drops: list[Drop] = field(default_factory=list)
    heard: dict[tuple[int, int], int] = field(default_factory=dict)
    bids_heard: dict[tuple[int, int], set[str]] = field(default_factory=dict)
    stalled: list[tuple[int, int]] = field(default_factory=list)
    stalled_at: dict[tuple[int, int], float] = field(default_factory=dict)
    stall_next: bool = False
    away: bool = False
    resyncs_by_pong: int = 0
    readies_itself: bool = False  # has turned the seat's auto-ready off (it presses ready)
    _lagging: tuple[int, int] | None = None
    _acted_on: tuple[int | None, int] = (None, -1)
    _pinger: asyncio.Task[None] | None = None

    # --- the whole life of the seat ------------------------------------------------------

    async def run(self) -> None:
        """Play until ``goal`` hands are finished, riding out any number of drops."""
        await self._reconnect(None)
        await self._ready_if_wanted()
        while len(self.finished) < self.goal:
            try:
                await self._act_if_my_turn()  # also on the ``state`` of a new connection
                await self._receive(RECEIVE_TIMEOUT)
            except ConnectionClosed as closed:
                if not await self._dropped(closed):
                    return
        await self.close()

    async def watch(self, until: Callable[[DrillSeat], bool]) -> None:
        """A spectator: receive (reconnecting after drops) until ``until(self)``."""
        await self._reconnect(None)
        while not until(self):
            try:
                await self._receive(RECEIVE_TIMEOUT)
            except ConnectionClosed as closed:
                await self._dropped(closed)
        await self.close()

    async def ask(self, message: dict[str, Any], answer: str) -> dict[str, Any]:
        """On a new connection: send ``message`` and return the first ``answer`` frame."""
        await self._reconnect(None)
        await self.send(message)
        frame = await self._receive(10.0)
        while frame.get("type") != answer:
            frame = await self._receive(10.0)
        await self.close()
        return frame

    async def close(self) -> None:
        self._stop_pinger()
        if self.socket is not None:
            await self.socket.close()

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message))

    # --- connecting ----------------------------------------------------------------------

    async def _connect(self) -> None:
        self.socket = await open_socket(self.url, self.origin, self.session, open_timeout=10)
        self.epoch += 1

    async def _reconnect(self, drop: Drop | None) -> None:
        """Connect, retrying until a server answers with a ``state`` frame."""
        deadline = time.monotonic() + self.give_up_s
        while True:
            if drop is not None:
                drop.attempts += 1
            try:
                await self._connect()
                await self._receive(10.0, want="state")
                break
            except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError, NotGreeted):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(self.retry_every)
        if drop is not None:
            drop.back_at, drop.state_seq = time.monotonic(), self.seq
        self._acted_on = (None, -1)  # an action the old socket sent may not have arrived
        self._pinger = asyncio.get_running_loop().create_task(self._ping())

    async def _dropped(self, closed: ConnectionClosed) -> bool:
        """Note the drop; reconnect (True) or, for a seat that stays away, stop (False)."""
        self._stop_pinger()
        code = closed.rcvd.code if closed.rcvd is not None else 1006
        drop = Drop(time.monotonic(), code, self.hand_id, self.seq)
        self.drops.append(drop)
        if not self.come_back:
            self.away = True
            return False
        await self._reconnect(drop)
        await self._ready_if_wanted()
        return True

    async def _ping(self) -> None:
        try:
            while True:
                await asyncio.sleep(self.ping_every)
                await self.send({"type": "ping"})
        except ConnectionClosed:
            return

    def _stop_pinger(self) -> None:
        if self._pinger is not None:
            self._pinger.cancel()
            self._pinger = None

    async def _ready_if_wanted(self) -> None:
        """Ready for the next hand when more are wanted and none is in progress for us."""
        if self.session is None or len(self.finished) >= self.goal:
            return
        if self.view is None or self.view.get("phase") == "finished":
            if not self.readies_itself:  # the seat's auto-ready would start unasked hands
                await self.send({"type": "auto_ready", "on": False})
                self.readies_itself = True
            await self.send({"type": "ready", "ready": True})

    # --- frames --------------------------------------------------------------------------

    async def _receive(self, timeout: float, want: str | None = None) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.socket.recv(), timeout)
        frame: dict[str, Any] = json.loads(raw)
        self.frames.append((time.monotonic(), self.epoch, frame))
        kind = frame.get("type")
        if want is not None and kind != want:
            await self.socket.close()
            raise NotGreeted(f"{self.name}: first frame {frame}")
        if kind == "state":
            self.seat = (frame.get("you") or {}).get("seat")
            hand = frame.get("hand")
            if hand:
                self._take_view(hand["id"], hand["seq"], hand["view"])
        elif kind == "view":
            self._take_view(frame["hand"], frame["seq"], frame["view"])
        elif kind == "error":
            self.errors.append(frame)
        elif kind == "pong" and want is None:
            await self._check_position(frame)
        return frame

    async def _check_position(self, pong: dict[str, Any]) -> None:
        """A pong says where the hand is. Still behind where the previous pong said: a frame
        was lost on the way (a Redis restart can do that), so ask for the whole state."""
        before, self._lagging = self._lagging, None
        if "hand" in pong and self._behind(pong["hand"], pong["seq"]):
            self._lagging = (pong["hand"], pong["seq"])
        if before is not None and self._behind(*before):
            self.resyncs_by_pong += 1
            await self.send({"type": "state"})

    def _behind(self, hand: int, seq: int) -> bool:
        if self.hand_id is None or hand > self.hand_id:
            return True
        return hand == self.hand_id and seq > self.seq

    def _take_view(self, hand_id: int, seq: int, view: dict[str, Any]) -> None:
        key = (self.epoch, hand_id)
        self.heard[key] = max(self.heard.get(key, -1), seq)
        mine = {b["cards"] for b in view.get("bids", []) if b.get("seat") == self.seat}
        self.bids_heard.setdefault(key, set()).update(mine)
        if self.hand_id is not None and hand_id < self.hand_id:
            return
        if self.hand_id is not None and hand_id > self.hand_id:
            self._hand_over(self.hand_id)  # it ended while we were away
            self.seq = -1
        if hand_id == self.hand_id and seq < self.seq:
            return
        self.hand_id, self.seq, self.view = hand_id, seq, view
        if view.get("phase") == "finished" and self._hand_over(hand_id):
            asyncio.get_running_loop().create_task(self._ready_after_hand())

    def _hand_over(self, hand_id: int) -> bool:
        if hand_id in self.finished:
            return False
        self.finished.append(hand_id)
        return True

    async def _ready_after_hand(self) -> None:
        with contextlib.suppress(ConnectionClosed):  # the reconnect presses ready again
            await self._ready_if_wanted()

    # --- acting --------------------------------------------------------------------------

    def decide(self) -> tuple[str, str] | None:
        view = self.view
        if view is None or view.get("phase") not in ACTING_PHASES or "hand" not in view:
            return None
        if view["phase"] != "bidding" and view.get("to_act") != view.get("seat"):
            return None
        key = (self.hand_id or 0, self.seq)
        if key in self.stalled:
            return None
        if self.stall_next and view["phase"] == "playing":
            self.stall_next = False
            self.stalled.append(key)
            self.stalled_at[key] = time.monotonic()  # about when the turn's clock started
            return None
        text = choose_action(view, preset(self.rules_name))
        if text is None:
            return None
        kind, _seat, cards = text.split(" ", 2)
        return kind, cards

    async def _act_if_my_turn(self) -> None:
        key = (self.hand_id, self.seq)
        if key == self._acted_on:
            return  # sent already: the view of its effect is on its way (no stall here either)
        action = self.decide()
        if action is None:
            return
        self._acted_on = key
        if self.think:
            await asyncio.sleep(self.think)
        kind, cards = action
        assert self.hand_id is not None
        await self.send({"type": kind, "seq": self.seq, "cards": cards})
        self.sent.append(Sent(self.epoch, self.hand_id, key[1], kind, cards, time.monotonic()))

    # --- judging -------------------------------------------------------------------------

    def acknowledged(self, sent: Sent) -> bool:
        key = (sent.epoch, sent.hand)
        if sent.kind == "bid":
            return sent.cards in self.bids_heard.get(key, set())
        return self.heard.get(key, -1) > sent.seq


# --- judging the actions sent --------------------------------------------------------------


def audit(
    seats: list[DrillSeat], logs: dict[str, Any], *, hands: Collection[int] | None = None
) -> dict[str, Any]:
    """Judge every action sent by ``seats`` against the database logs (see the module); with
    ``hands``, only the actions sent in those hands (a long run judges its hands in chunks)."""
    counts: Counter[str] = Counter()
    lost: list[str] = []
    for client in seats:
        for sent in client.sent:
            if hands is not None and sent.hand not in hands:
                continue
            log = logs.get(str(sent.hand))
            actions = log["actions"] if log is not None else []
            applied = _in_log(actions, client.seat, sent)
            acked = client.acknowledged(sent)
            overtaken = acked and not applied and _overtaken(actions, client.seat, sent)
            counts["sent"] += 1
            counts["acknowledged"] += acked
            counts["overtaken_by_deadline"] += overtaken
            counts["lost"] += acked and not applied and not overtaken
            if acked and not applied and not overtaken:
                lost.append(_describe_lost(client, sent, actions))
            counts["applied_unacknowledged"] += applied and not acked
            counts["not_applied"] += not applied and not acked
    keys = ("sent", "acknowledged", "lost", "overtaken_by_deadline", "applied_unacknowledged")
    found: dict[str, Any] = {key: counts[key] for key in (*keys, "not_applied")}
    found["lost_samples"] = lost[:5]
    return found


def _describe_lost(client: DrillSeat, sent: Sent, actions: list[dict[str, Any]]) -> str:
    """What a failed audit prints: the action, and what the log holds around its seq."""
    near = [a for a in actions if sent.seq - 1 <= a["seq"] <= sent.seq + 2]
    return f"{client.name} seat {client.seat} sent {sent} ; log near it: {near}"


def _overtaken(actions: list[dict[str, Any]], seat: int | None, sent: Sent) -> bool:
    """A bury or play whose turn a deadline (or the bot) took first: the higher seq the seat
    heard was the automatic move, and its own action was refused. Or a bid the bot made for
    the seat (taken over) when the window closed, after refusing the player's same bid: a view
    lists the bid by seat and cards, not by who made it."""
    if sent.kind == "bid":
        text = f"bid {seat} {sent.cards}"
        return any(a["seq"] >= sent.seq and a["auto"] and a["text"] == text for a in actions)
    return any(a["seq"] == sent.seq and a["auto"] for a in actions)


def _in_log(actions: list[dict[str, Any]], seat: int | None, sent: Sent) -> bool:
    text = f"{sent.kind} {seat} {sent.cards}"
    for action in actions:
        if action["text"] != text or action["auto"]:
            continue
        if action["seq"] == sent.seq or (sent.kind == "bid" and action["seq"] > sent.seq):
            return True
    return False
