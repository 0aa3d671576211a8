"""A player over a real WebSocket, played by the basic bot from its own views only.

Used by the load benchmark and the fault drills against a ``LiveSite`` (or any running site).
The client keeps every frame with the time it arrived, the newest view of its hand and the
highest ``seq`` it has seen (its last *acknowledged* action is the newest of its own actions
that a view at or after it confirmed).

Times are ``time.monotonic()`` (CLOCK_MONOTONIC on Linux: one clock for every process of the
machine), so frames received by clients in different processes can be compared.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import websockets

from shengji.bots import choose_action
from shengji.engine.rules import RuleSet, preset

RECEIVE_TIMEOUT = 30.0
PING_EVERY = 20.0  # docs/PROTOCOL.md: a socket not heard from in 90 s is forgotten
ACTING_PHASES = {"bidding", "burying", "playing"}


async def open_socket(url: str, origin: str, session: str | None, *, open_timeout: float) -> Any:
    """A table socket as a browser opens it: the site's Origin and the player's session cookie
    (none for an anonymous spectator); keep-alive is the protocol's own ``ping``."""
    headers = {"Cookie": f"sessionid={session}"} if session else {}
    return await websockets.connect(
        url,
        origin=origin,  # type: ignore[arg-type]
        additional_headers=headers,
        open_timeout=open_timeout,
        max_size=2**22,
        ping_interval=None,
    )


@dataclass
class Sent:
    kind: str
    seq: int
    cards: str
    at: float
    hand: int | None = None


@dataclass
class SeatClient:
    """One seat's socket. ``think`` seconds pass between seeing its turn and acting (drawn
    uniformly from ``think`` × (1 ± ``jitter``)); with ``bids`` off the seat never bids (the
    kitty is flipped instead), so only the dealer's calls (找朋友), bury and the plays are sent.
    While it plays it pings every ``ping_every`` seconds (0: never), as a browser does.
    ``shape`` is the table's (``players``, ``mode``: ``livesetup.tables``' ``shape``) on top
    of the preset ``rules_name``."""

    url: str
    session: str | None
    origin: str
    name: str = "client"
    rules_name: str = "ranked"
    shape: dict[str, Any] = field(default_factory=dict)
    think: float = 0.0
    jitter: float = 0.0
    bids: bool = True
    auto_ready: bool = True
    seat_auto_ready: bool = True  # the seat's own, as the client found it (on by default)
    ping_every: float = PING_EVERY
    frames: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    readies: list[float] = field(default_factory=list)  # when each ready was sent
    errors: list[dict[str, Any]] = field(default_factory=list)
    seq: int = -1
    hand_id: int | None = None
    view: dict[str, Any] | None = None
    seat: int | None = None
    hands_finished: int = 0
    socket: Any = None
    on_frame: Callable[[SeatClient, float, dict[str, Any]], None] | None = None
    _acting_on: tuple[int | None, int] = (None, -1)
    _ready_until: int | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _rng: random.Random = field(default_factory=random.Random)
    _failures: list[BaseException] = field(default_factory=list)
    _rules: RuleSet | None = None

    async def connect(self) -> None:
        self.socket = await open_socket(self.url, self.origin, self.session, open_timeout=30)

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message))

    async def receive(self, timeout: float = RECEIVE_TIMEOUT) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.socket.recv(), timeout)
        at = time.monotonic()
        frame: dict[str, Any] = json.loads(raw)
        self.frames.append((at, frame))
        self._note(frame)
        if self.on_frame is not None:
            self.on_frame(self, at, frame)
        return frame

    async def until(
        self, test: Callable[[dict[str, Any]], bool], timeout: float = RECEIVE_TIMEOUT
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{self.name}: nothing matched in {timeout:.0f} s")
            frame = await self.receive(remaining)
            if test(frame):
                return frame

    async def play(self, hands: int, timeout: float = RECEIVE_TIMEOUT) -> None:
        """Receive, and act whenever it is this seat's turn, until ``hands`` hands finished
        since the call (pressing ready before each when ``auto_ready``, not after the last).

        The think time passes in a task of its own, so frames keep being read (and timed)
        while the seat thinks."""
        goal = self.hands_finished + hands
        self._ready_until = goal
        try:
            if self.ping_every:
                self._spawn(self._keep_alive())
            if self.auto_ready:
                # This client presses ready before each hand itself: the seat's own auto-ready
                # (on by default) would start hands it did not ask for.
                if self.seat_auto_ready:
                    await self.send({"type": "auto_ready", "on": False})
                    self.seat_auto_ready = False
                await self.ready()
            while self.hands_finished < goal:
                await self.receive(timeout)
                if self._may_act() and (self.hand_id, self.seq) != self._acting_on:
                    self._spawn(self.act_if_my_turn())
        finally:
            self._ready_until = None
            for task in list(self._tasks):
                task.cancel()
        self._raise_task_failures()

    async def act_if_my_turn(self) -> None:
        """Think, then decide and send. The bot decides after the think time, as a player's
        own device would while they think: deciding on receipt would make the table's other
        seats, read by this same process, wait for the decision (a bench artefact)."""
        key = (self.hand_id, self.seq)
        if key == self._acting_on:
            return  # already acting on this view
        self._acting_on = key
        if self.think:
            await asyncio.sleep(self._think_time())
            if (self.hand_id, self.seq) != key:
                return  # the hand moved on while thinking: the newer view decides again
        action = self.decide()
        if action is None:
            return
        kind, cards = action
        self.sent.append(Sent(kind, key[1], cards, time.monotonic(), key[0]))
        field_name = "calls" if kind == "call" else "cards"  # docs/PROTOCOL.md, ``call``
        await self.send({"type": kind, "seq": key[1], field_name: cards})

    async def ready(self) -> None:
        self.readies.append(time.monotonic())
        await self.send({"type": "ready", "ready": True})

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(self.ping_every)
            await self.send({"type": "ping"})

    def _think_time(self) -> float:
        if not self.jitter:
            return self.think
        return self.think * self._rng.uniform(1 - self.jitter, 1 + self.jitter)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._keep_failure)

    def _keep_failure(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self._failures.append(task.exception())  # type: ignore[arg-type]

    def _raise_task_failures(self) -> None:
        if self._failures:
            raise self._failures[0]

    def decide(self) -> tuple[str, str] | None:
        if not self._may_act():
            return None
        assert self.view is not None
        text = choose_action(self.view, self.rules)
        if text is None:
            return None
        kind, _seat, cards = text.split(" ", 2)
        return kind, cards

    @property
    def rules(self) -> RuleSet:
        """The table's rules: the preset with the table's shape (cached)."""
        if self._rules is None:
            options = {k: v for k, v in self.shape.items() if k in ("players", "mode")}
            base = preset(self.rules_name)
            self._rules = base.with_options(**options) if options else base
        return self._rules

    def _may_act(self) -> bool:
        """Whether the newest view leaves this seat something to do (bids aside, its turn)."""
        view = self.view
        if view is None or view.get("phase") not in ACTING_PHASES or "hand" not in view:
            return False
        if view["phase"] == "bidding":
            return self.bids
        return bool(view.get("to_act") == view.get("seat"))

    @property
    def acknowledged(self) -> list[Sent]:
        """Own actions confirmed by a later view (the server applied them)."""
        return [s for s in self.sent if s.seq < self.seq]

    def _note(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "state":
            you = frame.get("you") or {}
            self.seat = you.get("seat")
            hand = frame.get("hand")
            if hand:
                self._take_view(hand["id"], hand["seq"], hand["view"])
        elif kind == "view":
            self._take_view(frame["hand"], frame["seq"], frame["view"])
        elif kind == "error":
            self.errors.append(frame)

    def _take_view(self, hand_id: int, seq: int, view: dict[str, Any]) -> None:
        if hand_id != self.hand_id:
            self.hand_id, self.seq = hand_id, -1
        if seq < self.seq:
            return
        finished_now = view.get("phase") == "finished" and (
            self.view is None or self.view.get("phase") != "finished" or seq != self.seq
        )
        self.seq, self.view = seq, view
        if finished_now:
            self.hands_finished += 1
            more = self._ready_until is None or self.hands_finished < self._ready_until
            if self.auto_ready and more:
                self._spawn(self.ready())
