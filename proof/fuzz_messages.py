"""Hostile messages for the table socket, each with the answers it may get (``Probe``), made
for one socket's role (a seat 0..P-1, a logged-in "spectator", an "anonymous" one) from the
hand as the database holds it (``Snapshot``) by ``Generator``, for the table's ``Shape`` (a
ranked table of four, or a casual one of 4–8 seats in tractor or 找朋友 mode: then the
``call`` message too, with bad calls, from other seats, out of turn and oversized). The fuzzer
(``proof.fuzz``) sends them and checks the answers.

An answer is an ``error`` frame's code, or ``pong``, ``state``, ``check:<code>`` (``check:*``:
any check answer), or ``ok`` (nothing came back: an accepted chat line).
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shengji.engine import Card, HandState, Trump, format_cards
from shengji.engine.trump import suit_group

MAX_SEATS = 8  # the most seats a table has: a seat number past it is refused at any table

ANY_CHECK = "check:*"  # a `check` answer, whatever it says: a check never changes anything
CHAT_OUTCOMES = frozenset({"ok", "chat_rate_limited"})
ALL_CARDS = [Card(i) for i in range(54)]
BAD_NOTATION = [
    "ZZ", "10H", "1S", "AS,KS", "A♠", "ASX", "X", "0S", "AS\x00", "AS\nleave 0", "AS;DROP TABLE",
    "<script>alert(1)</script>", "AS AS AS ZZ", "${seat}", "{seat}", "%s%s%n", "../../etc",
    "play 3 AS", "🂡", "ＡＳ", "A S", "{", "{0}", "{seat}S", "{seat.__class__}", "\ud800",
]  # fmt: skip
UNKNOWN_TYPES = [
    "__init__", "__class__", "_act", "_dispatch", "_refresh", "hand_view", "chat_line",
    "table_changed", "receive", "send_json", "close", "disconnect", "connect", "websocket_receive",
    "on_ping", "PING", "Ping", "ping ", "play\n", "", "..", "x" * 200, "hand.view", "lobby",
    "admin", "settle", "draw", "close_window", "deal",
]  # fmt: skip
HOSTILE_CHAT = [
    "<script>alert(1)</script>", "加油", "' OR 1=1 --", "\u202eevil", "a" * 200, "{{ secret }}",
    "🂡🂱", "%(user)s", "\\x00", "line\nbreak", "\ud800x",
]  # fmt: skip


@dataclass(frozen=True)
class Probe:
    """One hostile frame and the answers it may get (error codes, or pong/state/ok/check:*)."""

    category: str
    frame: str | bytes
    expect: frozenset[str]

    def allows(self, outcome: str) -> bool:
        return outcome in self.expect or (ANY_CHECK in self.expect and outcome.startswith("check:"))


def probe(category: str, content: Any, *expect: str) -> Probe:
    frame = content if isinstance(content, str | bytes) else json.dumps(content)
    return Probe(category, frame, frozenset(expect))


@dataclass(frozen=True)
class Shape:
    """The fuzzed table: a ranked table of four (the default), or a casual one of ``players``
    seats in ``mode`` (``tractor`` or ``friends``)."""

    players: int = 4
    mode: str = "tractor"
    ranked: bool = True

    @property
    def friends(self) -> bool:
        return self.mode == "friends"


@dataclass
class Snapshot:
    """The hand as the database holds it while a round is generated (it stands still then)."""

    hand_id: int | None = None
    seq: int = 0
    state: HandState | None = None

    @property
    def phase(self) -> str | None:
        return None if self.state is None else self.state.phase

    @property
    def active(self) -> bool:
        return self.phase in ("burying", "playing")


# --- the generator ---------------------------------------------------------------------------


class Generator:
    """Hostile messages for one role (seat 0..P-1, "spectator" or "anonymous") at a snapshot."""

    def __init__(self, rng: random.Random, shape: Shape | None = None) -> None:
        self.rng = rng
        self.shape = shape or Shape()
        self.last_legal: tuple[int, dict[str, Any]] | None = None  # (seat, message) to repeat

    def _seat_number(self) -> int:
        return self.rng.randrange(self.shape.players)

    def for_role(self, role: int | str, snap: Snapshot) -> Probe:
        makers: list[Callable[[], Probe]] = self._common()
        if isinstance(role, int):
            makers += self._seated(role, snap)
        elif role == "spectator":
            makers += self._spectator(snap)
        else:
            makers += self._anonymous()
        return self.rng.choice(makers)()

    # Any socket ---------------------------------------------------------------------------

    def _common(self) -> list[Callable[[], Probe]]:
        return [
            self.bad_json,
            self.empty,
            self.non_object,
            self.bad_type,
            self.deep,
            self.huge,
            self.binary,
            self.unknown,
            self.ping,
            self.state,
            self.bad_field,
            self.bad_watch,
            self.watch,
        ]

    def bad_json(self) -> Probe:
        rng = self.rng
        fixed = [
            "not json",
            "{",
            '{"type": "play"',
            "{'type': 'ping'}",
            '{"type": ping}',
            "\x00\x01",
            "{}}",
            '{"type": "ping",}',
            "NaN",
            "[1, 2",
            "\ud800",
        ]
        garbage = "".join(rng.choice("{}[]:,\"'\\ abcxyz0123\x7f\n") for _ in range(20))
        text = rng.choice([*fixed, "{" + garbage])
        return probe("bad_json", text, "bad_message")

    def empty(self) -> Probe:
        return probe("empty", self.rng.choice(["", " ", "\n\t"]), "bad_message")

    def non_object(self) -> Probe:
        value = self.rng.choice([[], [{"type": "ping"}], 5, -1.5, "ping", None, True, 1e308])
        return probe("non_object", json.dumps(value), "bad_message")

    def bad_type(self) -> Probe:
        content = self.rng.choice(
            [
                {},
                {"type": 5},
                {"type": None},
                {"type": ["ping"]},
                {"type": {"t": "ping"}},
                {"Type": "ping"},
                {"kind": "play", "seq": 0},
                {"type": True},
            ]
        )
        return probe("bad_type", content, "bad_message")

    def deep(self) -> Probe:
        depth = self.rng.randint(1100, 2000)  # past Python's recursion limit, within 4096 B
        nested = "[" * depth + "]" * depth
        inside = '{"type": "ping", "x": ' + nested + "}"
        return probe("deep_nesting", self.rng.choice([nested, inside]), "bad_message")

    def huge(self) -> Probe:
        size = self.rng.choice([4097, 4200, 65_536, 1_048_576])
        padded = '{"type": "ping", "pad": "' + "x" * size + '"}'
        wide = json.dumps({"type": "chat", "text": "加" * 1400}, ensure_ascii=False)  # > 4096 B
        if self.rng.random() < 0.15:  # exactly at the limit: still read
            edge = '{"type": "ping", "pad": "' + "x" * (4096 - 27) + '"}'
            assert len(edge.encode()) == 4096
            return probe("frame_at_limit", edge, "pong")
        return probe("huge_frame", self.rng.choice([padded, wide]), "bad_message")

    def binary(self) -> Probe:
        payload = self.rng.choice([b'{"type": "ping"}', secrets.token_bytes(64), b"\x00" * 9000])
        return probe("binary_frame", payload, "bad_message")

    def unknown(self) -> Probe:
        kind = self.rng.choice(UNKNOWN_TYPES)
        return probe("unknown_type", {"type": kind, "seq": 0, "cards": "AS"}, "unknown_type")

    def ping(self) -> Probe:
        return probe("ping", {"type": "ping", "junk": [1, {"a": None}]}, "pong")

    def state(self) -> Probe:
        return probe("state", {"type": "state", "seat": 2, "hand": 1}, "state")

    def watch(self) -> Probe:
        seat = self.rng.choice([*range(self.shape.players), None])
        return probe("watch", {"type": "watch", "seat": seat}, "state")

    def bad_watch(self) -> Probe:
        seat = self.rng.choice([MAX_SEATS, -1, True, "1", 1.0, [0], 2**70])
        return probe("bad_watch", {"type": "watch", "seat": seat}, "invalid_seat")

    def bad_field(self) -> Probe:
        """A field of the wrong type: refused before anything else, for anyone."""
        rng = self.rng
        kind = rng.choice(["play", "bid", "bury"])
        bad_seq = rng.choice(["1", 1.0, True, None, [1], {"n": 1}])
        bad_cards = rng.choice([5, None, ["AS"], {"c": "AS"}, "AS " * 140])
        content = rng.choice(
            [
                {"type": kind, "seq": bad_seq, "cards": "AS"},
                {"type": kind, "cards": "AS"},
                {"type": kind, "seq": 0, "cards": bad_cards},
                {
                    "type": "check",
                    "action": rng.choice([5, None, "leave", "draw", ["play"]]),
                    "cards": "AS",
                },
                {"type": "chat", "text": rng.choice([5, None, ["hi"], {"t": "hi"}])},
            ]
        )
        return probe("wrong_field_type", content, "bad_message")

    # Seated players -----------------------------------------------------------------------

    def _seated(self, seat: int, snap: Snapshot) -> list[Callable[[], Probe]]:
        def seat_ops() -> Probe:
            return self.seat_messages(seat)

        def chat() -> Probe:
            return self.chat()

        makers = [seat_ops, chat]
        if not snap.active:
            return [*makers, lambda: self.no_hand(seat), lambda: self.call_no_hand()]
        acts = [
            lambda: self.stale(seat, snap),
            lambda: self.future(seat, snap),
            lambda: self.notation(seat, snap),
            lambda: self.wrong_phase(seat, snap),
            lambda: self.check(seat, snap),
            lambda: self.repeat(snap),
        ]
        assert snap.state is not None
        if snap.state.to_act == seat:
            acts += [lambda: self.not_held(seat, snap), lambda: self.illegal_move(seat, snap)]
            # 找朋友's dealer burying: the calls are the new input, and the burying is short.
            calling = self.shape.friends and snap.phase == "burying"
            acts += [lambda: self.bad_call(seat, snap)] * (12 if calling else 1)
        else:
            acts += [lambda: self.out_of_turn(seat, snap)] * 2
            acts += [lambda: self.call_out_of_turn(seat, snap)]
        acts += [lambda: self.call_bad_field(snap)]
        return [*makers, *[self._calls_first(a, seat, snap) for a in acts] * 2]

    def _calls_first(
        self, make: Callable[[], Probe], seat: int, snap: Snapshot
    ) -> Callable[[], Probe]:
        """找朋友: while the dealer has not called, its bury is refused with ``calls_missing``
        before the bury itself is judged (the engine checks the calls first)."""
        state = snap.state
        assert state is not None
        waiting = (
            self.shape.friends
            and snap.phase == "burying"
            and state.to_act == seat
            and not state.calls
        )
        if not waiting:
            return make

        def made() -> Probe:
            item = make()
            if '"bury"' in str(item.frame) and item.category != "stale_seq":
                return Probe(item.category, item.frame, item.expect | {"calls_missing"})
            return item

        return made

    def _held(self, seat: int, snap: Snapshot) -> list[Card]:
        assert snap.state is not None
        return [Card(c) for c in snap.state.hands[seat]]

    def _kind(self, snap: Snapshot) -> str:
        return "bury" if snap.phase == "burying" else "play"

    def _some_held(self, seat: int, snap: Snapshot, count: int) -> str:
        """``count`` cards the seat holds (any cards once its hand is empty)."""
        held = self._held(seat, snap) or ALL_CARDS
        return format_cards(self.rng.sample(held, min(count, len(held))))

    def _count(self, snap: Snapshot) -> int:
        """The number of cards a move needs now: the kitty's size to bury, else the lead's
        size (or 1)."""
        assert snap.state is not None
        if snap.phase == "burying":
            return snap.state.kitty_size
        plays = snap.state.trick.plays
        return len(plays[0]) if plays else 1

    def out_of_turn(self, seat: int, snap: Snapshot) -> Probe:
        assert snap.state is not None
        content = {
            "type": self._kind(snap),
            "seq": snap.seq,
            "cards": self._some_held(seat, snap, self._count(snap)),
        }
        if self.rng.random() < 0.5:  # naming the seat to act changes nothing
            content["seat"] = snap.state.to_act
        return probe("another_seats_turn", content, "not_your_turn")

    def stale(self, seat: int, snap: Snapshot) -> Probe:
        seq = self.rng.choice([snap.seq - 1, snap.seq - self.rng.randint(2, 50), -1, -(2**63)])
        content = {
            "type": self._kind(snap),
            "seq": seq,
            "cards": self._some_held(seat, snap, self._count(snap)),
        }
        return probe("stale_seq", content, "stale_seq")

    def future(self, seat: int, snap: Snapshot) -> Probe:
        # Far beyond any hand's length: a future seq can never become the current one.
        seq = snap.seq + self.rng.choice([10_000, 10**9, 2**63, 10**40])
        content = {
            "type": self.rng.choice(["play", "bury", "bid"]),
            "seq": seq,
            "cards": self._some_held(seat, snap, self._count(snap)),
        }
        return probe("future_seq", content, "stale_seq")

    def repeat(self, snap: Snapshot) -> Probe:
        """A legal move sent again after it was applied."""
        if self.last_legal is None:
            return self.stale(0, snap)
        _, message = self.last_legal
        return probe("repeated_move", message, "stale_seq")

    def notation(self, seat: int, snap: Snapshot) -> Probe:
        kind = self.rng.choice(["play", "bury", "bid"])
        cards = self.rng.choice([*BAD_NOTATION, ""])
        return probe(
            "invalid_notation", {"type": kind, "seq": snap.seq, "cards": cards}, "invalid_action"
        )

    def wrong_phase(self, seat: int, snap: Snapshot) -> Probe:
        kind = "bid" if self.rng.random() < 0.6 else ("play" if snap.phase == "burying" else "bury")
        assert snap.state is not None
        count = snap.state.kitty_size if kind == "bury" else self.rng.choice([1, 2])
        content = {"type": kind, "seq": snap.seq, "cards": self._some_held(seat, snap, count)}
        return probe("wrong_phase", content, "wrong_phase")

    def check(self, seat: int, snap: Snapshot) -> Probe:
        action = self.rng.choice(["play", "bury", "bid"])
        cards = self.rng.choice([self._some_held(seat, snap, self._count(snap)), "ZZ", "", "BJ"])
        return probe("check", {"type": "check", "action": action, "cards": cards}, ANY_CHECK)

    def not_held(self, seat: int, snap: Snapshot) -> Probe:
        """The seat to act plays or buries cards it does not have."""
        held = set(self._held(seat, snap))
        missing = [c for c in ALL_CARDS if c not in held]
        count = self._count(snap)
        cards = [*self.rng.sample(self._held(seat, snap), count - 1), self.rng.choice(missing)]
        code = "bury_cards_not_held" if snap.phase == "burying" else "cards_not_in_hand"
        content = {"type": self._kind(snap), "seq": snap.seq, "cards": format_cards(cards)}
        return probe("cards_not_held", content, code)

    def illegal_move(self, seat: int, snap: Snapshot) -> Probe:
        """The seat to act breaks a rule with cards it holds: a wrong count, a revoke, a lead
        of mixed suits. Never a multi-card lead of one suit: that is a throw, and legal."""
        assert snap.state is not None
        held = self._held(seat, snap)
        if snap.phase == "burying":
            count = snap.state.kitty_size + self.rng.choice([-1, 1])
            content = {"type": "bury", "seq": snap.seq, "cards": self._some_held(seat, snap, count)}
            return probe("wrong_count", content, "bury_wrong_count")
        plays = snap.state.trick.plays
        revoke = self._revoke(held, plays, snap.state.trump)
        if revoke and self.rng.random() < 0.5:
            content = {"type": "play", "seq": snap.seq, "cards": format_cards(revoke)}
            return probe("revoke", content, "must_follow_suit")
        if plays and len(held) > len(plays[0]):
            cards = self.rng.sample(held, len(plays[0]) + 1)
            content = {"type": "play", "seq": snap.seq, "cards": format_cards(cards)}
            return probe("wrong_count", content, "wrong_count")
        if not plays:
            mixed = self._mixed_lead(held, snap.state.trump)
            if mixed:
                content = {"type": "play", "seq": snap.seq, "cards": format_cards(mixed)}
                return probe("mixed_lead", content, "lead_mixed_suits")
        return self.not_held(seat, snap)

    def _revoke(
        self, held: list[Card], plays: list[tuple[int, ...]], trump: Trump | None
    ) -> list[Card]:
        """Following a single card with another suit while holding the led one."""
        if trump is None or not plays or len(plays[0]) != 1:
            return []
        led = suit_group(plays[0][0], trump)
        others = [c for c in held if suit_group(c, trump) != led]
        holds_led = any(suit_group(c, trump) == led for c in held)
        return [self.rng.choice(others)] if holds_led and others else []

    def _mixed_lead(self, held: list[Card], trump: Trump | None) -> list[Card]:
        if trump is None:
            return []
        by_group: dict[str, Card] = {}
        for card in held:
            by_group.setdefault(suit_group(card, trump), card)
        return list(by_group.values())[:2] if len(by_group) > 1 else []

    def seat_messages(self, seat: int) -> Probe:
        rng = self.rng
        past = rng.choice([self.shape.players, MAX_SEATS, -1, 2**40])
        choices: list[tuple[dict[str, Any], str]] = [
            ({"type": "sit", "seat": self._seat_number()}, "already_seated"),
            ({"type": "sit", "seat": past, "stake": 1}, "invalid_seat"),
            ({"type": "sit", "seat": "0"}, "bad_message"),
        ]
        if self.shape.ranked:
            choices += [
                ({"type": "bot", "seat": self._seat_number()}, "ranked_no_bots"),
                ({"type": "show_hand", "allow": True}, "not_allowed"),
            ]
        else:  # a casual table: every seat is taken (showing one's hand is no bad input)
            choices += [
                ({"type": "bot", "seat": self._seat_number()}, "seat_taken"),
                ({"type": "bot", "seat": past}, "invalid_seat"),
            ]
        content, code = rng.choice(choices)
        return probe("seat_messages", content, code)

    # 找朋友's calls ------------------------------------------------------------------------

    def _callable_cards(self, snap: Snapshot) -> list[str]:
        """Cards any policy lets the dealer call: no joker, level card or trump."""
        assert snap.state is not None and snap.state.trump is not None
        trump = snap.state.trump
        return [
            c.text
            for c in ALL_CARDS
            if not c.is_joker and c.rank != trump.level and c.suit != trump.suit
        ]

    def _good_calls(self, snap: Snapshot, count: int) -> list[str]:
        return [f"1{card}" for card in self.rng.sample(self._callable_cards(snap), count)]

    def bad_call(self, seat: int, snap: Snapshot) -> Probe:
        """The seat to act sends calls that break a rule (or the wrong phase, or a table
        without calls): each refused with its code, never applied."""
        state = snap.state
        assert state is not None
        if not self.shape.friends:
            code = "calls_not_allowed" if snap.phase == "burying" else "wrong_phase"
            calls = " ".join(self._good_calls(snap, 2))
            return probe("call_no_friends", self._call(snap, calls), code, "calls_not_allowed")
        if snap.phase != "burying":
            calls = " ".join(self._good_calls(snap, state.rules.friends))
            return probe("call_wrong_phase", self._call(snap, calls), "wrong_phase")
        count, decks = state.rules.friends, state.decks
        trump = state.trump
        assert trump is not None
        good = self._good_calls(snap, count + 1)
        level_card = f"1{trump.level}{self.rng.choice('SHCD')}"
        plain = [rank for rank in "A3456789" if rank != trump.level]
        trump_card = f"1{self.rng.choice(plain)}{trump.suit}" if trump.suit else level_card
        trump_code = "friend_trump" if trump.suit else "friend_level_card"
        cases: list[tuple[list[str], str | None]] = [
            (good[: count - 1], "friend_wrong_count"),
            (good[: count + 1], "friend_wrong_count"),
            ([good[0]] * count, "friend_duplicate" if count > 1 else None),
            ([f"{decks + 1}{good[0][1:]}", *good[1:count]], "friend_bad_ordinal"),
            (["1BJ", *good[1:count]], "friend_joker"),
            ([level_card, *good[1:count]], "friend_level_card"),
            ([trump_card, *good[1:count]], trump_code),
        ]
        chosen, reason = self.rng.choice([c for c in cases if c[1] is not None])
        assert reason is not None
        codes = {reason, "invalid_action"} if not chosen else {reason}  # no calls: either
        return Probe("bad_call", json.dumps(self._call(snap, " ".join(chosen))), frozenset(codes))

    def _call(self, snap: Snapshot, calls: str, **extra: Any) -> dict[str, Any]:
        return {"type": "call", "seq": snap.seq, "calls": calls, **extra}

    def call_out_of_turn(self, seat: int, snap: Snapshot) -> Probe:
        """Another seat calls (naming the dealer's seat changes nothing)."""
        assert snap.state is not None
        calls = " ".join(self._good_calls(snap, max(1, snap.state.rules.friends)))
        extra = {"seat": snap.state.to_act} if self.rng.random() < 0.5 else {}
        # At a tractor table the engine may answer either first: both are stable refusals.
        codes = ("not_your_turn",) if self.shape.friends else ("not_your_turn", "calls_not_allowed")
        if snap.phase == "playing":
            codes = (*codes, "wrong_phase")
        return probe("call_out_of_turn", self._call(snap, calls, **extra), *codes)

    def call_bad_field(self, snap: Snapshot) -> Probe:
        """Oversized, of the wrong type, bad notation, or stale: refused before the engine."""
        rng = self.rng
        case = rng.randrange(4)
        if case == 0:
            calls = " ".join(["1AS"] * rng.randint(51, 400))  # past 200 characters
            return probe("call_oversized", self._call(snap, calls), "bad_message")
        if case == 1:
            value = rng.choice([5, None, ["1AS"], {"c": "1AS"}, True])
            return probe("call_wrong_type", self._call(snap, value), "bad_message")  # type: ignore[arg-type]
        if case == 2:
            calls = rng.choice(["ZZ", "AS", "1ZZ", "0AS", "1A♠", "{seat}", "1AS\ncall 0 1KH"])
            return probe("call_notation", self._call(snap, calls), "invalid_action")
        seq = rng.choice([snap.seq - 1, -1, snap.seq + 10**6])
        return probe("call_stale", {**self._call(snap, "1AS 1KH"), "seq": seq}, "stale_seq")

    def call_no_hand(self) -> Probe:
        return probe("no_hand", {"type": "call", "seq": 3, "calls": "1AS 1KH"}, "no_hand")

    def no_hand(self, seat: int) -> Probe:
        """Between hands: hand actions (and leaving, which is no escape then) find no hand."""
        content = self.rng.choice(
            [
                {"type": "play", "seq": 0, "cards": "AS"},
                {"type": "bid", "seq": 5, "cards": "2S"},
                {"type": "bury", "seq": 9, "cards": "AS"},
                {"type": "leave"},
                {"type": "check", "action": "play", "cards": "AS"},
            ]
        )
        return probe("no_hand", content, "no_hand")

    def chat(self) -> Probe:
        rng = self.rng
        text, outcomes = rng.choice(
            [
                (rng.choice(HOSTILE_CHAT), CHAT_OUTCOMES),
                ("x" * rng.randint(201, 3000), {"chat_too_long"}),
                (rng.choice(["", "   ", "\x00\x01\x02", "\u200b" * 0, "\n\n"]), {"chat_empty"}),
            ]
        )
        return probe("chat", {"type": "chat", "text": text}, *outcomes)

    # Spectators ---------------------------------------------------------------------------

    def _spectator(self, snap: Snapshot) -> list[Callable[[], Probe]]:
        def acts() -> Probe:
            content = self.rng.choice(
                [
                    {"type": "play", "seq": snap.seq, "cards": "AS"},
                    {"type": "bury", "seq": snap.seq, "cards": "AS AS KS KS QS QS JS JS"},
                    {"type": "bid", "seq": snap.seq, "cards": "BJ BJ"},
                    {"type": "leave"},
                    {"type": "check", "action": "play", "cards": "AS"},
                    {"type": "stand"},
                    {"type": "ready"},
                    {"type": "ready", "ready": False},
                    {"type": "show_hand", "allow": True},
                    {"type": "call", "seq": snap.seq, "calls": "1AS 1KH"},
                ]
            )
            return probe("spectator_acts", content, "not_seated")

        def seats() -> Probe:
            bot_refused = "ranked_no_bots" if self.shape.ranked else "not_allowed"
            content, code = self.rng.choice(
                [
                    ({"type": "sit", "seat": self._seat_number(), "stake": 5}, "seat_taken"),
                    ({"type": "sit", "seat": self.shape.players}, "invalid_seat"),
                    ({"type": "bot", "seat": self._seat_number()}, bot_refused),
                ]
            )
            return probe("spectator_seats", content, code)

        return [acts, acts, seats, self.chat, acts]

    def _anonymous(self) -> list[Callable[[], Probe]]:
        def acts() -> Probe:
            content = self.rng.choice(
                [
                    {"type": "play", "seq": 0, "cards": "AS"},
                    {"type": "leave"},
                    {"type": "bid", "seq": 3, "cards": "BJ BJ"},
                    {"type": "check", "action": "bury", "cards": "AS"},
                    {"type": "sit", "seat": 0},
                    {"type": "sit", "seat": "x"},
                    {"type": "stand"},
                    {"type": "ready"},
                    {"type": "bot", "seat": 1},
                    {"type": "show_hand", "allow": True},
                    {"type": "call", "seq": 0, "calls": "1AS 1KH"},
                    {"type": "chat", "text": self.rng.choice(HOSTILE_CHAT)},
                ]
            )
            return probe("anonymous_acts", content, "login_required")

        return [acts, acts, acts]
