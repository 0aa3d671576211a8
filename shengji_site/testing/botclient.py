"""A player over a real WebSocket, played by the basic bot from its own views only.

Used by the load benchmark and the fault drills against a ``LiveSite`` (or any running site).
The client keeps every frame with the time it arrived, the newest view of its hand and the
highest ``seq`` it has seen (its last *acknowledged* action is the newest of its own actions
that a view at or after it confirmed).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import websockets

from games.bots import choose_action
from games.engine.rules import preset

RECEIVE_TIMEOUT = 30.0
ACTING_PHASES = {"bidding", "burying", "playing"}


@dataclass
class Sent:
    kind: str
    seq: int
    cards: str
    at: float


@dataclass
class SeatClient:
    """One seat's socket. ``think`` seconds pass between seeing its turn and acting."""

    url: str
    session: str | None
    origin: str
    name: str = "client"
    rules_name: str = "ranked"
    think: float = 0.0
    auto_ready: bool = True
    frames: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    seq: int = -1
    hand_id: int | None = None
    view: dict[str, Any] | None = None
    seat: int | None = None
    hands_finished: int = 0
    socket: Any = None
    on_frame: Callable[[SeatClient, float, dict[str, Any]], None] | None = None
    _acting_on: tuple[int | None, int] = (None, -1)

    async def connect(self) -> None:
        headers = {"Cookie": f"sessionid={self.session}"} if self.session else {}
        self.socket = await websockets.connect(
            self.url,
            origin=self.origin,  # type: ignore[arg-type]
            additional_headers=headers,
            open_timeout=30,
            max_size=2**22,
            ping_interval=None,
        )

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message))

    async def receive(self, timeout: float = RECEIVE_TIMEOUT) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.socket.recv(), timeout)
        at = time.perf_counter()
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
        since the call (pressing ready before each when ``auto_ready``)."""
        goal = self.hands_finished + hands
        if self.auto_ready:
            await self.send({"type": "ready", "ready": True})
        while self.hands_finished < goal:
            await self.receive(timeout)
            await self.act_if_my_turn()

    async def act_if_my_turn(self) -> None:
        action = self.decide()
        if action is None:
            return
        kind, cards = action
        key = (self.hand_id, self.seq)
        if key == self._acting_on:
            return  # already sent for this view
        self._acting_on = key
        if self.think:
            await asyncio.sleep(self.think)
        self.sent.append(Sent(kind, self.seq, cards, time.perf_counter()))
        await self.send({"type": kind, "seq": self.seq, "cards": cards})

    def decide(self) -> tuple[str, str] | None:
        view = self.view
        if view is None or view.get("phase") not in ACTING_PHASES or "hand" not in view:
            return None
        if view["phase"] != "bidding" and view.get("to_act") != view.get("seat"):
            return None
        text = choose_action(view, preset(self.rules_name))
        if text is None:
            return None
        kind, _seat, cards = text.split(" ", 2)
        return kind, cards

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
            if self.auto_ready:
                asyncio.get_running_loop().create_task(
                    self.send({"type": "ready", "ready": True})
                )
