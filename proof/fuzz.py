"""A fuzzer for the table socket (issue 9, bad input): thousands of malformed and hostile
messages at a live table, and proof that each is refused with a stable code, that no socket
dies and that the table changes only by the legal moves sent in between.

The table: four players seated at a ranked table with a hand in progress, a logged-in
spectator and an anonymous one, each on a real Channels socket of the in-process ASGI
application (channels.testing.WebsocketCommunicator) over Redis and PostgreSQL, with a Celery
worker dealing the cards. The fuzzer plays in rounds: in each, every socket sends its share of
hostile messages (``proof.fuzz_messages``, generated from the hand as the database holds it)
while the hand stands still; then the seat to act sends one legal move, and every seat must
see it. When the hand ends the four press ready and the next hand starts.

Each hostile message is followed by a marker (an unknown type carrying a number), so the
frames its socket got before the marker's error are its answer: an ``error`` frame and its
code, or ``pong``, ``check`` or ``state``, or nothing at all ("ok", an accepted chat line).
Every message's category names the answers it may get. At the end: every socket answers
``ping``; each hand's log holds exactly the legal moves sent plus the server's draws and close;
the seats, the chat and the ledger changed only by those moves, accepted chat lines and
settlement. ``bench/fuzz_sockets.py`` and ``tests/proof/test_fuzz_sockets.py`` run it.

With a ``Shape`` of 4–8 seats in tractor or 找朋友 mode (``run_fuzz(..., shape=...)``) the
table is a casual one of that shape, every seat a player on a socket (auto-ready off); its
legal moves include the dealer's calls, and the hostile messages the ``call`` message.

The fuzzing sockets connect with the per-socket token bucket opened wide (else nearly every
message would be answered ``rate_limited`` and nothing behind it would be tried); one more
socket with the site's real bucket takes a flood of its own. Chat keeps its real limits.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.test.utils import override_settings

from proof.fuzz_messages import CHAT_OUTCOMES, Generator, Probe, Shape, Snapshot, probe
from shengji.engine import legal_actions, parse_action

TIMEOUT = 20.0
LINGER = 3  # rounds spent while the dealer buries, and between hands, before moving on
WIDE_OPEN = {"SHENGJI_SOCKET_BURST": 1e9, "SHENGJI_SOCKET_RATE_PER_S": 1e9}


@dataclass
class Report:
    messages: int = 0  # hostile messages
    frames_sent: int = 0  # every frame: hostile, markers, legal moves, pings
    outcomes: Counter[str] = field(default_factory=Counter)
    categories: dict[str, Counter[str]] = field(default_factory=dict)
    unexpected: list[dict[str, Any]] = field(default_factory=list)
    unexpected_count: int = 0
    leaks: list[str] = field(default_factory=list)
    deaths: list[str] = field(default_factory=list)
    wrong_state_changes: list[str] = field(default_factory=list)
    limits_missed: list[str] = field(default_factory=list)
    legal_moves: int = 0
    hands: int = 0
    flood: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def record(self, peer: str, item: Probe, outcome: str) -> None:
        self.messages += 1
        self.outcomes[outcome] += 1
        self.categories.setdefault(item.category, Counter())[outcome] += 1
        if not item.allows(outcome):
            self.unexpected_count += 1
            if len(self.unexpected) < 25:
                frame = item.frame if isinstance(item.frame, str) else repr(item.frame)
                self.unexpected.append(
                    {
                        "peer": peer,
                        "category": item.category,
                        "frame": frame[:160],
                        "outcome": outcome,
                        "expected": sorted(item.expect),
                    }
                )

    @property
    def ok(self) -> bool:
        failures = [self.leaks, self.deaths, self.wrong_state_changes, self.limits_missed]
        return not self.unexpected_count and not any(failures)

    def figures(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "messages": self.messages,
            "frames_sent": self.frames_sent,
            "messages_per_s": round(self.messages / self.seconds, 1) if self.seconds else None,
            "seconds": round(self.seconds, 2),
            "legal_moves": self.legal_moves,
            "hands": self.hands,
            "codes": dict(sorted(self.outcomes.items())),
            "flood": self.flood,
            "consumer_deaths": len(self.deaths),
            "wrong_state_changes": len(self.wrong_state_changes),
            "unexpected_answers": self.unexpected_count,
            "leaks": len(self.leaks),
            "limits_missed": self.limits_missed,
            "details": {
                "deaths": self.deaths,
                "wrong_state_changes": self.wrong_state_changes[:25],
                "unexpected": self.unexpected,
                "leaks": self.leaks[:25],
            },
        }


# --- sockets ---------------------------------------------------------------------------------


class Dead(Exception):
    """The socket closed or its consumer failed."""


def session_headers(user: Any | None) -> list[tuple[bytes, bytes]]:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if user is not None:
        client = Client()
        client.force_login(user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    return headers


class Peer:
    """One socket of the table, with what it may see checked on every frame it gets."""

    def __init__(self, name: str, role: int | str, socket: WebsocketCommunicator) -> None:
        self.name, self.role, self.socket = name, role, socket
        self.hand: int | None = None  # the newest hand view seen: its hand, seq and phase
        self.seq = -1
        self.phase: str | None = None
        self.report: Report | None = None
        self.close_code: int | None = None  # the server's, once it closed the socket

    @classmethod
    async def open(
        cls,
        app: Any,
        table_id: int,
        user: Any | None,
        name: str,
        role: int | str,
        address: str = "198.51.100.7",
    ) -> Peer:
        headers = await database_sync_to_async(session_headers)(user)
        socket = WebsocketCommunicator(app, f"/ws/table/{table_id}/", headers=headers)
        socket.scope["client"] = [address, 40000 + secrets.randbelow(20000)]
        connected, code = await socket.connect(timeout=TIMEOUT)
        if not connected:
            raise Dead(f"{name}: refused with {code}")
        peer = cls(name, role, socket)
        await peer.until(lambda f: f["type"] == "state")
        return peer

    async def send(self, frame: str | bytes) -> None:
        key = "bytes" if isinstance(frame, bytes) else "text"
        await self.socket.send_input({"type": "websocket.receive", key: frame})
        if self.report is not None:
            self.report.frames_sent += 1

    async def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        try:
            message = await self.socket.receive_output(timeout)
        except TimeoutError:
            raise  # a timeout also stops the application instance (asgiref)
        except Exception as error:  # the consumer raised: its socket is gone
            raise Dead(f"{self.name}: consumer failed: {error!r}") from error
        if message["type"] != "websocket.send":
            self.close_code = message.get("code")
            raise Dead(f"{self.name}: socket closed: {message}")
        frame: dict[str, Any] = json.loads(message["text"])
        self._follow(frame)
        return frame

    async def until(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            frame = await self.receive(max(0.01, deadline - time.monotonic()))
            if test(frame):
                return frame

    async def until_past(self, hand: int, seq: int) -> None:
        """Until this socket has seen the hand after ``seq`` (or got an error)."""

        def moved(frame: dict[str, Any]) -> bool:
            return (self.hand == hand and self.seq > seq) or frame["type"] == "error"

        await self.until(moved)

    async def until_burying(self, after: int | None = None) -> None:
        """Until this socket sees a hand other than ``after`` reach the burying."""
        await self.until(lambda _: self.hand != after and self.phase == "burying")

    def _follow(self, frame: dict[str, Any]) -> None:
        """Keep the newest hand view, and report any view this socket may not see."""
        if frame["type"] == "view":
            hand, seq, view = frame["hand"], frame["seq"], frame["view"]
        elif frame["type"] == "state" and frame.get("hand"):
            hand, seq, view = frame["hand"]["id"], frame["hand"]["seq"], frame["hand"]["view"]
        else:
            return
        self._check_view(view)
        if hand != self.hand or seq >= self.seq:
            self.hand, self.seq, self.phase = hand, seq, view.get("phase")

    def _check_view(self, view: dict[str, Any]) -> None:
        wrong = view.get("seat") != self.role if isinstance(self.role, int) else "hand" in view
        if wrong and self.report is not None:
            self.report.leaks.append(f"{self.name} got a view of seat {view.get('seat')}")

    async def answer(self, item: Probe, number: int) -> str:
        """Send the probe and a marker; the probe's answer is what came before the marker's."""
        marker = f"fuzz_marker_{number}"
        await self.send(item.frame)
        await self.send(json.dumps({"type": marker}))
        errors: list[str] = []
        kinds: set[str] = set()
        checks: list[str] = []
        while True:
            frame = await self.receive()
            if frame["type"] == "error" and f"'{marker}'" in frame["message"]:
                break
            if frame["type"] == "error":
                errors.append(frame["code"])
            elif frame["type"] == "check":
                checks.append("check:" + ("ok" if frame["ok"] else frame["code"]))
            kinds.add(frame["type"])
        return outcome_of(errors, kinds, checks, item)


def outcome_of(errors: list[str], kinds: set[str], checks: list[str], item: Probe) -> str:
    if errors:
        return errors[0] if len(errors) == 1 else "several_errors:" + ",".join(errors)
    if checks:
        return checks[0]
    if "pong" in kinds:
        return "pong"
    if "state" in kinds and "state" in item.expect:
        return "state"
    return "ok"


# --- the table -------------------------------------------------------------------------------


@dataclass
class World:
    """The table and its people, and what the database held before the fuzzing."""

    table_id: int
    players: list[Any]
    spectator: Any
    balances: dict[int, int]
    last_ledger_id: int
    table_row: dict[str, Any]


def build_world(tag: str, shape: Shape | None = None) -> World:
    from accounts.services import user_create
    from games import services
    from ladder.models import LadderProfile, LedgerEntry
    from ladder.services import ladder_points_adjust

    shape = shape or Shape()
    seats = shape.players
    password = f"fuzz-{secrets.token_hex(8)}"
    people = [user_create(username=f"fz{tag}p{i}", password=password) for i in range(seats + 1)]
    players, spectator = people[:seats], people[seats]
    for user in players:  # what many hands can take: a player needs that to sit (LADDER.md)
        ladder_points_adjust(
            user=user, account="table", amount=100_000, reason="fuzz bankroll", by=None
        )
    timings: dict[str, Any] = {
        "play_seconds": 900,
        "bury_seconds": 900,
        "bid_window_seconds": 0,
        "deal_interval_ms": 0,
    }
    if shape.ranked:  # ranked tables are seated by quick match only
        table = services.ranked_table_open(users=players, name=f"fuzz {tag}", stake=50, **timings)
    else:
        table = services.table_create(
            creator=players[0],
            name=f"fuzz {tag}",
            stake=50,
            players=seats,
            house_rules={} if shape.mode == "tractor" else {"mode": shape.mode},
            **timings,
        )
        for index, user in enumerate(players):
            services.seat_take(table_id=table.pk, user=user, index=index)
            # Each hand starts when the fuzzer presses ready, never by itself.
            services.seat_auto_ready(table_id=table.pk, user=user, on=False)
    balances = dict(LadderProfile.objects.filter(user__in=people).values_list("user_id", "balance"))
    last = LedgerEntry.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    return World(table.pk, players, spectator, balances, last, table_row(table.pk))


def table_row(table_id: int) -> dict[str, Any]:
    from games.models import Seat, Table

    table = Table.objects.values("status", "stake", "ranked", "min_balance").get(pk=table_id)
    seats = list(
        Seat.objects.filter(table_id=table_id)
        .order_by("index")
        .values_list("user_id", "bot", "show_hand_to_spectators")
    )
    return {**table, "seats": seats}


def snapshot(table_id: int) -> Snapshot:
    from games.handstate import load_state
    from games.models import Hand

    hand = (
        Hand.objects.filter(match__table_id=table_id, status=Hand.Status.PLAYING)
        .order_by("-pk")
        .first()
    )
    if hand is None:
        return Snapshot()
    return Snapshot(hand.pk, hand.seq, load_state(hand))


# --- the run ---------------------------------------------------------------------------------


class Fuzzer:
    def __init__(
        self, app: Any, world: World, messages: int, seed: int, shape: Shape | None = None
    ) -> None:
        self.app, self.world, self.target = app, world, messages
        self.rng = random.Random(seed)
        self.shape = shape or Shape()
        self.generator = Generator(self.rng, self.shape)
        self.report = Report()
        self.peers: list[Peer] = []
        self.legal: dict[int, list[str]] = {}  # hand id → the legal moves sent, as logged
        self.chats_accepted = 0
        self.markers = 0
        self.round_size = max(6, messages // 120)

    @property
    def seats(self) -> list[Peer]:
        return [p for p in self.peers if isinstance(p.role, int)]

    async def connect(self) -> None:
        world = self.world
        with override_settings(**WIDE_OPEN):
            for index, user in enumerate(world.players):
                self.peers.append(
                    await Peer.open(self.app, world.table_id, user, f"seat {index}", index)
                )
            self.peers.append(
                await Peer.open(self.app, world.table_id, world.spectator, "spectator", "spectator")
            )
            self.peers.append(
                await Peer.open(
                    self.app, world.table_id, None, "anonymous", "anonymous", "203.0.113.9"
                )
            )
        for peer in self.peers:
            peer.report = self.report

    async def run(self) -> Report:
        started = time.monotonic()
        await self.connect()
        await self.start_hand()
        lingered: Counter[tuple[int | None, str | None]] = Counter()
        while self.report.messages < self.target and not self.report.deaths:
            snap = await database_sync_to_async(snapshot)(self.world.table_id)
            await self.round(snap, min(self.round_size, self.target - self.report.messages))
            stage = (snap.hand_id, snap.phase)
            lingered[stage] += 1
            # 找朋友's burying lingers longer: the dealer's bad calls are tried there.
            linger = 3 * LINGER if self.shape.friends and snap.phase == "burying" else LINGER
            if snap.phase == "playing" or (snap.active and lingered[stage] >= linger):
                await self.legal_move(snap)
            elif not snap.active and lingered[stage] >= LINGER:
                await self.start_hand()
                del lingered[stage]
        await self.flood()
        await self.chat_flood()
        self.report.seconds = time.monotonic() - started
        await self.everyone_answers_ping()
        await database_sync_to_async(self.verify)()
        for peer in self.peers:
            await peer.socket.disconnect()
        return self.report

    async def round(self, snap: Snapshot, size: int) -> None:
        """Hostile messages from every socket at once; none may move the hand."""
        batches: dict[int, list[Probe]] = {i: [] for i in range(len(self.peers))}
        for _ in range(size):
            index = self.rng.randrange(len(self.peers))
            batches[index].append(self.generator.for_role(self.peers[index].role, snap))
        await asyncio.gather(*(self.send_batch(self.peers[i], b) for i, b in batches.items()))

    async def send_batch(self, peer: Peer, batch: list[Probe]) -> None:
        for item in batch:
            self.markers += 1
            try:
                outcome = await peer.answer(item, self.markers)
            except (Dead, TimeoutError) as error:
                self.report.deaths.append(f"{peer.name}: {error!r} after {item.category}")
                return
            self.report.record(peer.name, item, outcome)
            if item.category.startswith("chat") and outcome == "ok":
                self.chats_accepted += 1

    async def legal_move(self, snap: Snapshot) -> None:
        assert snap.state is not None and snap.hand_id is not None
        seat = snap.state.to_act
        assert seat is not None
        action = legal_actions(snap.state, seat)[0]
        kind, _seat, rest = str(action).split(" ", 2)
        field_name = "calls" if kind == "call" else "cards"  # 找朋友's dealer calls first
        message = {"type": kind, "seq": snap.seq, field_name: rest}
        await self.seats[seat].send(json.dumps(message))
        for peer in self.seats:
            await peer.until_past(snap.hand_id, snap.seq)
            if peer.seq <= snap.seq:
                raise AssertionError(f"a legal move was refused: {message}")
        logged = str(parse_action(str(action), snap.state.players))
        self.legal.setdefault(snap.hand_id, []).append(logged)
        self.generator.last_legal = (seat, message)
        self.report.legal_moves += 1

    async def start_hand(self) -> None:
        """The players press ready (legal); the worker deals; the dealer is to bury."""
        before = {p.name: p.hand for p in self.seats}
        for peer in self.seats:
            await peer.send(json.dumps({"type": "ready"}))
        for peer in self.seats:
            await peer.until_burying(after=before[peer.name])
        self.report.hands += 1
        self.generator.last_legal = None

    async def flood(self) -> None:
        """A socket with the site's real bucket sends a burst of pings without waiting: the
        bucket's are answered, the first refused one is answered `rate_limited` and the rest
        are dropped unanswered; once the bucket refills it is heard again. Another sends more
        than its refusals may overflow: it is closed with 1008 (docs/PROTOCOL.md, "Limits")."""
        burst, overflow = int(settings.SHENGJI_SOCKET_BURST), int(settings.SHENGJI_SOCKET_OVERFLOW)
        count = burst + overflow // 2
        world = self.world
        peer = await Peer.open(self.app, world.table_id, world.spectator, "flood", "spectator")
        peer.report = self.report
        self.peers.append(peer)
        for _ in range(count):
            await peer.send(json.dumps({"type": "ping"}))
        answers: Counter[str] = Counter()
        while not await peer.socket.receive_nothing(timeout=1):
            frame = await peer.receive()
            if frame["type"] in ("pong", "error"):
                answers[frame.get("code", "pong")] += 1
        await asyncio.sleep(0.5)  # the bucket refills: the socket is heard again
        await peer.send(json.dumps({"type": "ping"}))
        recovered = await peer.until(lambda f: f["type"] in ("pong", "error"))
        closed_at = await self.flood_past_overflow(burst + overflow + 20)
        self.report.messages += count + 1
        self.report.outcomes.update(answers)
        self.report.outcomes[recovered.get("code", "pong")] += 1
        self.report.categories["flood"] = answers
        self.report.flood = {
            "sent": count,
            "pong": answers["pong"],
            "rate_limited": answers["rate_limited"],
            "dropped": count - sum(answers.values()),
            "recovered": int(recovered["type"] == "pong"),
            "closed_past_overflow": closed_at or 0,
        }
        if answers["rate_limited"] == 0 or recovered["type"] != "pong" or closed_at != 1008:
            self.report.limits_missed.append(
                f"socket flood: {answers}, then {recovered}; past the overflow: {closed_at}"
            )

    async def flood_past_overflow(self, count: int) -> int | None:
        """The close code of a socket sent ``count`` pings at once (None: not closed)."""
        world = self.world
        peer = await Peer.open(self.app, world.table_id, world.spectator, "flooder", "spectator")
        for _ in range(count):
            await peer.send(json.dumps({"type": "ping"}))
        try:
            while True:
                await peer.receive()
        except Dead:
            pass
        except TimeoutError:
            return None
        await peer.socket.disconnect()
        return peer.close_code

    async def chat_flood(self) -> None:
        """The spectator chats more lines at once than the per-user limit lets through."""
        spectator = next(p for p in self.peers if p.role == "spectator")
        burst = [
            probe("chat_flood", {"type": "chat", "text": f"line {i}"}, *CHAT_OUTCOMES)
            for i in range(12)
        ]
        before = self.report.outcomes["chat_rate_limited"]
        await self.send_batch(spectator, burst)
        if self.report.outcomes["chat_rate_limited"] == before:
            self.report.limits_missed.append("a burst of 12 chat lines was not limited")

    async def everyone_answers_ping(self) -> None:
        for peer in self.peers:
            try:
                await peer.send(json.dumps({"type": "ping"}))
                await peer.until(lambda f: f["type"] == "pong")
            except (Dead, TimeoutError) as error:
                self.report.deaths.append(f"{peer.name}: no pong at the end: {error!r}")

    # --- the state afterwards --------------------------------------------------------------

    def verify(self) -> None:
        wrong = self.report.wrong_state_changes
        wrong += self._check_hands()
        wrong += self._check_table()
        wrong += self._check_ledger()
        wrong += self._check_chat()

    def _check_hands(self) -> list[str]:
        from games.handstate import action_texts, record_for
        from games.models import Action, Hand
        from shengji.engine import replay

        wrong = []
        hands = list(Hand.objects.filter(match__table_id=self.world.table_id).order_by("pk"))
        if len(hands) != self.report.hands:
            wrong.append(f"{len(hands)} hands, {self.report.hands} started")
        for hand in hands:
            actions = list(Action.objects.filter(hand=hand).order_by("seq"))
            human = [a.text for a in actions if a.seat is not None and not a.auto]
            if human != self.legal.get(hand.pk, []):
                wrong.append(f"hand {hand.pk}: log {human} != legal moves sent")
            server = {a.text for a in actions if a.seat is None}
            if not server <= {"draw", "close"} or any(a.auto for a in actions):
                wrong.append(f"hand {hand.pk}: unexpected server moves {server}")
            if [a.seq for a in actions] != list(range(hand.seq)):
                wrong.append(f"hand {hand.pk}: seq {hand.seq} vs log {len(actions)}")
            list(replay(record_for(hand, action_texts(hand))))  # the log replays
            if hand.status not in (Hand.Status.PLAYING, Hand.Status.FINISHED):
                wrong.append(f"hand {hand.pk} ended {hand.status}")
        return wrong

    def _check_table(self) -> list[str]:
        now = table_row(self.world.table_id)
        before = self.world.table_row
        if {**now, "status": None} != {**before, "status": None}:
            return [f"table or seats changed: {before} -> {now}"]
        return []

    def _check_ledger(self) -> list[str]:
        from django.db.models import Sum

        from games.models import Hand
        from ladder.models import HandSettlement, LadderProfile, LedgerEntry

        finished = set(
            Hand.objects.filter(
                match__table_id=self.world.table_id, status=Hand.Status.FINISHED
            ).values_list("pk", flat=True)
        )
        new = LedgerEntry.objects.filter(
            pk__gt=self.world.last_ledger_id, user__in=self.world.balances
        )
        wrong = [
            f"ledger row {e} is no settlement of a finished hand"
            for e in new
            if e.hand_id not in finished
        ]
        if HandSettlement.objects.filter(hand__in=finished).count() != len(finished):
            wrong.append("a finished hand was not settled exactly once")
        for user_id, balance in self.world.balances.items():
            moved = new.filter(user_id=user_id, account="table").aggregate(s=Sum("amount"))["s"]
            now = LadderProfile.objects.get(user_id=user_id).balance
            if now != balance + (moved or 0):
                wrong.append(f"user {user_id}: balance {balance} -> {now}, ledger {moved}")
        return wrong

    def _check_chat(self) -> list[str]:
        from games.models import ChatLine

        lines = ChatLine.objects.filter(table_id=self.world.table_id, system=False).count()
        if lines != self.chats_accepted:
            return [f"{lines} chat lines stored, {self.chats_accepted} accepted"]
        return []


async def run_fuzz(app: Any, *, messages: int, seed: int, shape: Shape | None = None) -> Fuzzer:
    """Build a live table in the current database (a ranked table of four, or a casual one of
    ``shape``) and fuzz its sockets (see the module); the fuzzer's ``report`` has the
    figures."""
    tag = f"{seed}x{secrets.token_hex(3)}"
    world = await database_sync_to_async(build_world)(tag, shape)
    fuzzer = Fuzzer(app, world, messages, seed, shape)
    await fuzzer.run()
    return fuzzer
