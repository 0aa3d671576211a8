"""Fault drills against a ``LiveSite``: daphne killed mid-hand, the Celery worker killed with a
deadline pending, Redis restarted without its data, and one table played across two daphne
processes. Used by ``tests/proof`` (small numbers) and ``bench/fault_drills.py`` (bigger ones).

``DrillSeat`` is a seat played by the basic bot over a real WebSocket that survives its socket:
when the socket drops it retries until a server answers, takes the ``state`` frame and plays
on. It remembers, for each connection (an *epoch*), the newest ``seq`` it heard of each hand,
so every action it sent can be judged afterwards against the database log:

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
import base64
import contextlib
import json
import re
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import redis
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from games.bots import choose_action
from games.engine.rules import preset
from shengji_site.testing.botclient import open_socket
from shengji_site.testing.livesite import LiveSite

# Short timings for a drill's site, so a drill takes seconds: a socket not heard from for 15 s
# is forgotten (drill seats ping every second), the bot takes a seat 20 s after its player
# left, beat sweeps every second, each daphne checks its Redis groups every second. Not
# shorter: on a loaded machine (load average 20 on 2 cores) a daphne noted no ping of a live
# socket for 5 s, and a killed daphne took 16 s to serve again; with 5 s and 10 s the sweep
# forgot live sockets and the bot took seats whose players were there (docs/proof/FAULTS.md).
DRILL_ENV = {
    "SHENGJI_CONNECTION_TIMEOUT_S": "15",
    "SHENGJI_DISCONNECT_GRACE_S": "20",
    "SHENGJI_SWEEP_EVERY_S": "1",
    "SHENGJI_BOT_DELAY_MS": "100",
    "SHENGJI_GROUPS_CHECK_S": "1",
}
RECEIVE_TIMEOUT = 60.0
ACTING_PHASES = {"bidding", "burying", "playing"}
SETUP = "shengji_site.testing.livesetup"


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


# --- the site ------------------------------------------------------------------------------


def make_tables(site: LiveSite, count: int, **timings: Any) -> list[dict[str, Any]]:
    """``count`` tables of four new players (names of their own: a site serves many drills)."""
    prefix = f"d{uuid.uuid4().hex[:6]}t"
    found: list[dict[str, Any]] = site.call(
        f"{SETUP}.tables", count=count, prefix=prefix, **timings
    )
    return found


def seats_for(
    site: LiveSite,
    table: dict[str, Any],
    *,
    daphne_of: Callable[[int], int] = lambda seat: 0,
    **options: Any,
) -> list[DrillSeat]:
    """The four seats of ``table``; seat n talks to daphne ``daphne_of(n)``."""
    path = f"/ws/table/{table['id']}/"
    return [
        DrillSeat(
            site.ws_url(path, daphne_of(index)),
            person["session"],
            site.origin,
            name=person["username"],
            **options,
        )
        for index, person in enumerate(table["players"])
    ]


async def wait_until(test: Callable[[], bool], timeout: float, what: str) -> float:
    """Wait for ``test()``; the seconds it took."""
    started = time.monotonic()
    while not test():
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{what}: not within {timeout:.0f} s")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def restart(site: LiveSite, name: str) -> None:
    """Start a killed child again and wait until it serves (daphne) or has started."""
    await asyncio.to_thread(site.start_process, name)
    if name.startswith("daphne"):
        await asyncio.to_thread(site.wait_for_http, int(name.removeprefix("daphne")))


def in_hand(seat: DrillSeat, phases: Iterable[str] = ("playing",)) -> bool:
    return seat.view is not None and seat.view.get("phase") in set(phases)


def audit(seats: list[DrillSeat], logs: dict[str, Any]) -> dict[str, Any]:
    """Judge every action sent by ``seats`` against the database logs (see the module)."""
    counts: Counter[str] = Counter()
    lost: list[str] = []
    for client in seats:
        for sent in client.sent:
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


def hand_ids(seats: Iterable[DrillSeat]) -> list[int]:
    return sorted({hand for s in seats for hand in s.finished} | {s.hand_id or 0 for s in seats})


def timing(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "max": None}
    return {"p50": round(statistics.median(values), 3), "max": round(max(values), 3)}


def broker_tasks(redis_url: str, queue: str = "celery") -> Counter[Any]:
    """The tasks waiting in the broker, queued or delivered to a worker that never acknowledged
    them (kombu's ``unacked`` hash: a worker killed holding a task leaves it there): a count
    per ``("hand_deadline", hand, seq)`` and per other task's short name (``"sweep"``)."""
    client = redis.Redis.from_url(redis_url)
    messages = [json.loads(raw) for raw in client.lrange(queue, 0, -1)]
    messages += [json.loads(raw)[0] for raw in client.hvals("unacked")]
    found: Counter[Any] = Counter()
    for message in messages:
        task = message.get("headers", {}).get("task", "").rsplit(".", 1)[-1]
        if task == "hand_deadline":
            args = json.loads(base64.b64decode(message["body"]))[0]
            found[(task, int(args[0]), int(args[1]))] += 1
        else:
            found[task] += 1
    return found


# --- the drills ----------------------------------------------------------------------------

# Long enough that no deadline fires while a seat's socket is down: every move in the log is
# then a player's, and a view with a higher seq acknowledges exactly the seat's own action.
SLOW_TIMINGS = {
    "play_seconds": 60,
    "bury_seconds": 60,
    "bid_window_seconds": 1,
    "deal_interval_ms": 0,
}
MID_HAND_WAIT_S = 180.0
AWAY_SEAT = 2  # on daphne0 with one daphne or two
STALL_SPREAD_S = 2.0
BACK_WAIT_S = 180.0
FINISH_WAIT_S = 120.0  # and as much again per hand still to play
CLOSE_SETTLE_S = 15.0


@dataclass
class DrillTable:
    id: int
    seats: list[DrillSeat]
    spectators: list[DrillSeat] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return all(s.away or len(s.finished) >= s.goal for s in self.seats)

    def mid_hand(self) -> bool:
        present = [s for s in self.seats if not s.away]
        return bool(present) and in_hand(present[0], ("burying", "playing"))


def drill_tables(
    site: LiveSite,
    count: int,
    *,
    hands: int,
    think: float,
    ranked: bool = False,
    timings: dict[str, Any] | None = None,
) -> list[DrillTable]:
    """``count`` new tables; seat n of each talks to daphne n mod (number of daphnes)."""
    made = make_tables(site, count, ranked=ranked, **{**SLOW_TIMINGS, **(timings or {})})
    daphnes = len(site.http_ports)
    return [
        DrillTable(
            table["id"],
            seats_for(site, table, daphne_of=lambda n: n % daphnes, think=think, goal=hands),
        )
        for table in made
    ]


def start(tables: list[DrillTable]) -> list[asyncio.Task[None]]:
    loop = asyncio.get_running_loop()
    return [loop.create_task(seat.run()) for table in tables for seat in table.seats]


async def finish(runs: list[asyncio.Task[None]], hands: int = 1) -> None:
    await asyncio.wait_for(asyncio.gather(*runs), FINISH_WAIT_S * (1 + hands))


def all_seats(tables: list[DrillTable]) -> list[DrillSeat]:
    return [seat for table in tables for seat in table.seats]


async def all_mid_hand(tables: list[DrillTable]) -> None:
    await wait_until(
        lambda: all(t.mid_hand() for t in tables if not t.done), MID_HAND_WAIT_S, "mid-hand"
    )


def on_daphne(site: LiveSite, seats: list[DrillSeat], daphne: int) -> list[DrillSeat]:
    port = f":{site.http_ports[daphne]}/"
    return [s for s in seats if port in s.url]


def back_after(seat: DrillSeat, moment: float) -> bool:
    return any(d.at >= moment and d.back_at is not None for d in seat.drops)


def everyone_back(seats: list[DrillSeat], since: float) -> Callable[[], bool]:
    return lambda: all(back_after(s, since) for s in seats)


def all_moved_on(stalled: list[tuple[DrillSeat, int, int]]) -> Callable[[], bool]:
    return lambda: all(moved_on_at(s, hand, seq) for s, hand, seq in stalled)


def resume_times(seats: list[DrillSeat], since: float = 0.0) -> list[float]:
    return [d.resume_s for s in seats for d in s.drops if d.at >= since and d.resume_s is not None]


async def collect(
    site: LiveSite, tables: list[DrillTable]
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The logs of every hand the drill's seats took part in, and each table's report."""
    ids = hand_ids(s for t in tables for s in [*t.seats, *t.spectators])
    logs = await asyncio.to_thread(site.call, f"{SETUP}.hand_logs", hand_ids=ids)
    reports = {}
    for table in tables:
        reports[table.id] = await asyncio.to_thread(
            site.call, f"{SETUP}.table_report", table_id=table.id
        )
    return logs, reports


def open_sockets(reports: dict[int, dict[str, Any]]) -> int:
    """Socket rows still in the database (a socket the server has not forgotten)."""
    return sum(seat["sockets"] for report in reports.values() for seat in report["seats"])


async def collect_when_closed(
    site: LiveSite, tables: list[DrillTable]
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """``collect`` once the server has handled the last closes: a client's close completes
    before the server's disconnect handler has deleted the socket's row (up to
    ``CLOSE_SETTLE_S``; a row left after that is reported as an open socket)."""
    deadline = time.monotonic() + CLOSE_SETTLE_S
    logs, reports = await collect(site, tables)
    while open_sockets(reports) and time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        logs, reports = await collect(site, tables)
    return logs, reports


def takeovers(report: dict[str, Any]) -> int:
    """Bot takeovers before the table's last hand ended (after it, the drill's sockets are
    closed and the seats' players are away for good)."""
    lines = report["system_lines"]
    ends = [i for i, line in enumerate(lines) if re.match(r"hand \d+: ", line)]
    during = lines[: ends[-1]] if ends else lines
    return sum("the bot plays seat" in line for line in during)


def hands_summary(reports: dict[int, dict[str, Any]]) -> dict[str, int]:
    hands = [h for report in reports.values() for h in report["hands"]]
    ended = [h for h in hands if h["status"] in ("finished", "escaped")]
    return {
        "hands_played": len(ended),
        "hands_settled_once": sum(h["settlements"] == 1 for h in ended),
        "hands_unfinished": sum(h["status"] == "playing" for h in hands),
    }


async def daphne_kill_drill(
    site: LiveSite,
    *,
    tables: int = 3,
    kills: int = 1,
    hands: int = 2,
    think: float = 0.05,
    away_tables: int = 0,
    timings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """kill -9 a daphne in the middle of hands and start it again, ``kills`` times (taking the
    daphnes in turn). At the first ``away_tables`` tables seat 2 (on daphne0, killed first)
    does not come back after the first kill; those tables play only the hand then in
    progress."""
    drill = drill_tables(site, tables, hands=hands, think=think, timings=timings)
    for table in drill[:away_tables]:
        table.seats[AWAY_SEAT].come_back = False
    runs = start(drill)
    restarts: list[float] = []
    for number in range(kills):
        await all_mid_hand(drill)
        if number == 0:
            for table in drill[:away_tables]:
                for seat in table.seats:
                    seat.goal = len(seat.finished) + 1
        daphne = number % len(site.http_ports)
        live = [s for s, run in zip(all_seats(drill), runs, strict=True) if not run.done()]
        hit = on_daphne(site, live, daphne)
        killed_at = time.monotonic()
        await asyncio.to_thread(site.kill, f"daphne{daphne}")
        await restart(site, f"daphne{daphne}")
        restarts.append(time.monotonic() - killed_at)
        coming = [s for s in hit if s.come_back]
        await wait_until(everyone_back(coming, killed_at), BACK_WAIT_S, "seats back")
    await finish(runs, hands)
    logs, reports = await collect_when_closed(site, drill)
    seats = all_seats(drill)
    away_reports = [reports[t.id] for t in drill[:away_tables]]
    return {
        "drill": "daphne_kill",
        "tables": tables,
        "daphnes": len(site.http_ports),
        **hands_summary(reports),
        "daphne_kills": kills,
        "daphne_restart_s": timing(restarts),
        "drops": sum(len(s.drops) for s in seats),
        "close_codes": dict(Counter(d.code or 0 for s in seats for d in s.drops)),
        "resumes": sum(d.back_at is not None for s in seats for d in s.drops),
        "stayed_away": sum(s.away for s in seats),
        "time_to_resume_s": timing(resume_times(seats)),
        "actions": audit(seats, logs),
        "takeovers_of_returning_seats": sum(takeovers(reports[t.id]) for t in drill[away_tables:]),
        "takeovers_of_absent_seats": sum(takeovers(r) for r in away_reports),
        "absent_at_end": sum(
            p["absent_at_end"] for r in away_reports for h in r["hands"] for p in h["players"]
        ),
        "sockets_left_open": open_sockets(reports),
        "auto_moves": sum(a["auto"] for log in logs.values() for a in log["actions"]),
    }


def moved_on_at(seat: DrillSeat, hand: int, seq: int) -> float | None:
    """When the seat first heard of its hand past ``seq``."""
    for at, _epoch, frame in seat.frames:
        if frame.get("type") == "view" and frame["hand"] == hand and frame["seq"] > seq:
            return at
        state_hand = frame.get("hand") if frame.get("type") == "state" else None
        if state_hand and state_hand["id"] == hand and state_hand["seq"] > seq:
            return at
    return None


def fires(logs: dict[str, Any], pending: list[tuple[int, int, int]]) -> list[int]:
    """For each pending deadline (hand, seq, seat): how many automatic moves it made."""
    counts = []
    for hand, seq, seat in pending:
        actions = logs[str(hand)]["actions"]
        counts.append(sum(a["seq"] == seq and a["auto"] and a["seat"] == seat for a in actions))
    return counts


def extra_auto_moves(logs: dict[str, Any], pending: list[tuple[int, int, int]]) -> list[str]:
    """Automatic moves that no pending deadline explains (a duplicate would show here)."""
    expected = {(hand, seq) for hand, seq, _seat in pending}
    return [
        f"hand {hand} #{a['seq']}: {a['text']}"
        for hand, log in logs.items()
        for a in log["actions"]
        if a["auto"] and (int(hand), a["seq"]) not in expected
    ]


async def stall(
    tables: list[DrillTable], seat: int, *, within: float
) -> list[tuple[DrillSeat, int, int]]:
    """Seat ``seat`` of every table lets its next turn of play pass. After the first stall the
    others get ``within`` seconds (an older stall's deadline could fire before the fault comes);
    returns the stalls still pending, as (seat, hand, seq)."""
    stallers = [t.seats[seat] for t in tables]
    before = [len(s.stalled) for s in stallers]
    for staller in stallers:
        staller.stall_next = True

    def stalled() -> list[DrillSeat]:
        return [s for s, n in zip(stallers, before, strict=True) if len(s.stalled) > n]

    await wait_until(lambda: bool(stalled()), MID_HAND_WAIT_S, "a stall")
    with contextlib.suppress(TimeoutError):
        await wait_until(lambda: len(stalled()) == len(stallers), within, "every stall")
    for staller in stallers:
        staller.stall_next = False
    return [(s, *s.stalled[-1]) for s in stalled() if (s.hand_id, s.seq) == s.stalled[-1]]


async def worker_kill_drill(
    site: LiveSite,
    *,
    tables: int = 1,
    rounds: tuple[bool, ...] = (True, False),
    think: float = 0.05,
    play_seconds: int = 8,
    sweep_s: float = 1.0,
) -> dict[str, Any]:
    """A seat lets its turn pass; the worker is killed (kill -9) before the deadline and
    started again after it (round True) or before it (round False).

    After the deadline, with no worker, beat keeps queueing the sweep; the restarted worker
    runs every queued sweep, each of which sends the overdue deadline again, so one deadline
    is delivered several times. The worker's log says how often it ran and how often it moved
    the hand (``deadline hand=… seq=… moved|no-op``); the database, how many moves it made."""
    drill = drill_tables(
        site,
        tables,
        hands=1,
        think=think,
        timings={"play_seconds": play_seconds, "bury_seconds": play_seconds},
    )
    runs = start(drill)
    pending: list[tuple[int, int, int]] = []
    waiting: list[dict[str, int]] = []
    delays: dict[str, list[float]] = {"restarted_after_deadline": [], "restarted_before": []}
    killed_after: list[float] = []
    for number, after_deadline in enumerate(rounds):
        stalled = await stall(drill, seat=number % 4, within=STALL_SPREAD_S)
        await asyncio.to_thread(site.kill, "worker")
        killed_after += [time.monotonic() - s.stalled_at[(h, q)] for s, h, q in stalled]
        if after_deadline:
            await asyncio.sleep(play_seconds + 3 * sweep_s)
            queued = broker_tasks(site.redis.url)
            for _seat, hand, seq in stalled:
                waiting.append(
                    {"deadline": queued[("hand_deadline", hand, seq)], "sweeps": queued["sweep"]}
                )
        await restart(site, "worker")
        await wait_until(all_moved_on(stalled), BACK_WAIT_S, "deadline fired")
        # The delivery that moved the hand writes its line after the commit and after sending
        # the views: on a loaded machine the seats heard the move, the next round's stall came
        # and its kill took the worker before that line (a move in the log, none in the worker's).
        with contextlib.suppress(TimeoutError):
            await wait_until(moves_logged(site, stalled), LINE_WAIT_S, "moves logged")
        key = "restarted_after_deadline" if after_deadline else "restarted_before"
        for seat, hand, seq in stalled:
            pending.append((hand, seq, seat.seat or 0))
            turn_started = seat.stalled_at[(hand, seq)]
            delays[key].append((moved_on_at(seat, hand, seq) or 0) - turn_started - play_seconds)
    await finish(runs)
    await asyncio.sleep(2 * sweep_s)  # the last duplicates run (and do nothing)
    logs, reports = await collect(site, drill)
    ran = deadline_runs(site)
    moved, fired = per_deadline(ran, pending, "moved"), fires(logs, pending)
    return {
        "drill": "worker_kill",
        "tables": tables,
        **hands_summary(reports),
        "worker_kills": len(rounds),
        "pending_deadlines": len(pending),
        "waiting_in_broker_at_restart": waiting,
        "deadline_runs_per_pending_deadline": per_deadline(ran, pending, "runs"),
        "moves_logged_per_pending_deadline": moved,
        "fires_per_pending_deadline": fired,
        "extra_auto_moves": extra_auto_moves(logs, pending),
        # A seat the bot plays has a 0.1 s deadline, not play_seconds: the drill is void then.
        "takeovers": sum(takeovers(r) for r in reports.values()),
        "fired_after_deadline_s": {k: timing(v) for k, v in delays.items() if v},
        "killed_after_turn_s": [round(s, 3) for s in killed_after],
        "actions": audit(all_seats(drill), logs),
        # When a count is off: the log rows and the worker's lines of each pending deadline.
        "pending_samples": (
            deadline_samples(site, logs, pending) if {*moved, *fired} != {1} else []
        ),
    }


def deadline_samples(
    site: LiveSite, logs: dict[str, Any], pending: list[tuple[int, int, int]]
) -> list[str]:
    """What a failed count prints: for each pending deadline, the log rows around its seq and
    the worker's lines about it."""
    text = (site.base / "worker.log").read_text(errors="replace").splitlines()
    samples = []
    for hand, seq, seat in pending:
        near = [a for a in logs[str(hand)]["actions"] if seq - 1 <= a["seq"] <= seq + 1]
        lines = [line for line in text if f"deadline hand={hand} seq={seq} " in line]
        samples.append(f"hand {hand} seq {seq} seat {seat}: log {near}; worker {lines[:6]}")
    return samples


DEADLINE_LINE = re.compile(r"deadline hand=(\d+) seq=(\d+) (moved|rearmed|no-op)")
LINE_WAIT_S = 30.0


def moves_logged(site: LiveSite, stalled: list[tuple[DrillSeat, int, int]]) -> Callable[[], bool]:
    def logged() -> bool:
        ran = deadline_runs(site)
        return all(ran.get((hand, seq), Counter())["moved"] for _s, hand, seq in stalled)

    return logged


def per_deadline(
    ran: dict[tuple[int, int], Counter[str]], pending: list[tuple[int, int, int]], what: str
) -> list[int]:
    return [ran.get((hand, seq), Counter())[what] for hand, seq, _seat in pending]


def deadline_runs(site: LiveSite) -> dict[tuple[int, int], Counter[str]]:
    """From the worker's log (level INFO): for each (hand, seq), how many deliveries of its
    deadline ran (``runs``) and how many moved the hand (``moved``)."""
    found: dict[tuple[int, int], Counter[str]] = {}
    path = site.base / "worker.log"
    for match in DEADLINE_LINE.finditer(path.read_text(errors="replace")):
        counts = found.setdefault((int(match[1]), int(match[2])), Counter())
        counts["runs"] += 1
        counts["moved"] += match[3] == "moved"
    return found


async def redis_restart_drill(
    site: LiveSite,
    *,
    tables: int = 2,
    restarts: int = 1,
    hands: int = 1,
    think: float = 0.05,
    play_seconds: int = 8,
) -> dict[str, Any]:
    """Redis is killed (kill -9, nothing persisted) and started again mid-hand, while one seat
    per table lets its turn pass (its deadline task was queued in the lost Redis)."""
    drill = drill_tables(
        site,
        tables,
        hands=hands,
        think=think,
        timings={"play_seconds": play_seconds, "bury_seconds": play_seconds},
    )
    runs = start(drill)
    restarts_before = Counter(site.restarts)
    pending: list[tuple[int, int, int]] = []
    resync: list[float] = []
    codes: Counter[int] = Counter()
    resynced = clients = 0
    for number in range(restarts):
        await all_mid_hand(drill)
        live = [s for s, run in zip(all_seats(drill), runs, strict=True) if not run.done()]
        unfinished = [t for t in drill if not t.done]
        stalled = await stall(unfinished, seat=number % 4, within=STALL_SPREAD_S)
        restarted_at = time.monotonic()
        await asyncio.to_thread(site.restart_redis, kill=True)
        await wait_until(everyone_back(live, restarted_at), BACK_WAIT_S, "resync")
        await wait_until(all_moved_on(stalled), BACK_WAIT_S, "lost deadline fired")
        pending += [(hand, seq, s.seat or 0) for s, hand, seq in stalled]
        clients += len(live)
        for seat in live:
            drops = [d for d in seat.drops if d.at >= restarted_at]
            codes.update(d.code or 0 for d in drops)
            resynced += any(d.back_at for d in drops)
            resync.append(max(d.back_at or 0 for d in drops) - restarted_at)
    await finish(runs, hands)
    logs, reports = await collect(site, drill)
    ran = deadline_runs(site)
    return {
        "drill": "redis_restart",
        "tables": tables,
        **hands_summary(reports),
        "redis_restarts": restarts,
        "clients": clients,
        "clients_resynced": resynced,
        # Views lost on the way (channels-redis after a restart) and caught by a pong.
        "resyncs_by_pong": sum(s.resyncs_by_pong for s in all_seats(drill)),
        "close_codes": dict(sorted(codes.items())),
        "time_to_resync_s": timing(resync),
        # A Celery worker holding tasks when Redis goes exits (kombu); supervision restarts it.
        "restarted_by_supervisor": dict(Counter(site.restarts) - restarts_before),
        "pending_deadlines": len(pending),
        "deadline_runs_per_pending_deadline": per_deadline(ran, pending, "runs"),
        "fires_per_pending_deadline": fires(logs, pending),
        "extra_auto_moves": extra_auto_moves(logs, pending),
        "actions": audit(all_seats(drill), logs),
    }


async def two_daphne_drill(
    site: LiveSite, *, hands: int = 1, think: float = 0.05
) -> dict[str, Any]:
    """One ranked table: seats 0 and 2 and a spectator on daphne0, seats 1 and 3 and a
    spectator on daphne1. Returns the figures and the drill's table (for closer checks)."""
    assert len(site.http_ports) >= 2
    table = drill_tables(site, 1, hands=hands, think=think, ranked=True)[0]
    path = f"/ws/table/{table.id}/"
    table.spectators = [
        DrillSeat(site.ws_url(path, d), None, site.origin, name=f"spectator{d}") for d in (0, 1)
    ]
    loop = asyncio.get_running_loop()
    watching = [
        loop.create_task(s.watch(lambda w: len(w.finished) >= hands)) for s in table.spectators
    ]
    await wait_until(lambda: all(s.epoch for s in table.spectators), 30, "spectators")
    runs = start([table])
    await wait_until(lambda: all(s.epoch for s in table.seats), 30, "seats")
    await table.seats[0].send({"type": "chat", "text": "加油 from daphne0"})
    await finish([*runs, *watching])
    logs, reports = await collect(site, [table])
    everyone = [*table.seats, *table.spectators]
    return {
        "drill": "two_daphnes",
        **hands_summary(reports),
        "views_per_client": [len(views_heard(s)) for s in everyone],
        "views_across_processes": crossed(site, table, logs),
        "chat_heard_on_daphne1": any(
            f.get("type") == "chat" and "daphne0" in f["line"]["text"]
            for _at, _e, f in table.spectators[1].frames
        ),
        "settlements": [h["settlements"] for h in reports[table.id]["hands"]],
        "rating_changes": [h["rating_changes"] for h in reports[table.id]["hands"]],
        "actions": audit(table.seats, logs),
        "_table": table,
        "_logs": logs,
    }


def views_heard(seat: DrillSeat) -> set[tuple[int, int]]:
    """(hand, seq) of every view frame the socket received."""
    return {(f["hand"], f["seq"]) for _at, _e, f in seat.frames if f.get("type") == "view"}


def crossed(site: LiveSite, table: DrillTable, logs: dict[str, Any]) -> int:
    """View frames made by a seat's move on one daphne and received on the other."""
    daphne_of_seat = {
        s.seat: next(d for d in range(len(site.http_ports)) if s in on_daphne(site, [s], d))
        for s in table.seats
    }
    count = 0
    for client in [*table.seats, *table.spectators]:
        here = next(d for d in range(len(site.http_ports)) if on_daphne(site, [client], d))
        for hand, seq in views_heard(client):
            mover = next(
                (a["seat"] for a in logs[str(hand)]["actions"] if a["seq"] == seq - 1), None
            )
            if mover is not None and daphne_of_seat.get(mover, here) != here:
                count += 1
    return count
