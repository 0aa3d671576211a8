"""Hidden information: does any frame tell its receiver a card it may not know yet?

The truth of a hand is rebuilt from its log (``HandTruth``): for every ``seq``, what each seat
holds, every card it has held so far in this deal, what everyone knows it held (its plays, its
bids, the whole attempt of a throw that failed and was forced), the cards played, and the
kitty cards that are public (turned over when nobody bid; the buried kitty once the hand was
played to its end).

A receiver (``Receiver``: a seat's player, a spectator, a spectator watching a seat, the lobby)
is entitled to the private cards of the seats it holds in that hand (from the hand's players)
and of the seat it watches while that seat's player allows it (``Grant``).

``check_frames`` walks every frame's JSON. Every string holding a card (``AS``, ``5H 5H``) must
sit in a field known to carry cards, and each such field is checked as a multiset against what
the receiver may know at the frame's ``seq``:

- a seat's cards in public fields (trick plays, bids, failed throws) ⊆ what everyone knows
  that seat held, plus what the seat held if the receiver is entitled to it (two decks:
  ``5H 5H`` in a bid and ``5H`` in a play may be the same card, so each field is checked on
  its own);
- ``hand`` belongs to the view's ``seat``, which the receiver must be entitled to, and is
  within what that seat holds at that ``seq``;
- ``kitty`` and ``flipped`` ⊆ the public kitty cards, plus what the dealer held (the kitty it
  picked up) if the receiver is entitled to the dealer's seat;
- ``point_cards`` ⊆ the cards played;
- a system line of the chat that shows cards must report a public event of its hand (the
  latest hand started before the line was written): a bid, or a forced throw, with exactly
  those cards by that seat;
- an ``error`` or ``check`` message ⊆ everything the receiver may know at the ``seq`` of its
  next hand frame (else its last).

Any other string holding a card, a view key that only replays have (``seed``, ``hands``,
``kitty_dealt``, ``buried``), or a number equal to a hand's seed is a leak too.

Tables of 4–8 seats and 找朋友 (RULES-SPEC.md §9.4): the friend calls (``calls``,
``result.calls``, a call written ``2AS`` anywhere: a check's ``call`` too) reach only a
receiver entitled to the dealer's seat until the first lead, and the calls offered to the
dealer's pickers (``call_defaults``) only that receiver; a call names a seat (``seat``) only
once the truth has it filled and counts the copies played (``seen``) as the truth does; the
defending side (``side``, ``defenders``, ``result.defenders``, and ``result.attackers`` as its
complement) and the points of each side are the truth's public side, which grows only by
filled calls. So no frame tells who holds a called card before it is played. The system
lines of 找朋友 (``friends_called``, ``friend_joins``, ``call_spent``) must each report the
truth's calls or a call filled by that seat, and be judged at a ``seq`` (the receiver's next
hand frame) at which it has happened.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from shengji.engine import Bid, FailedThrow, HandState, parse_cards, replay
from shengji.engine.hand import FINISHED, PLAYED

CARD = r"(?:[2-9TJQKA][SHCD]|SJ|BJ)"
CARD_TOKEN = re.compile(rf"(?<![A-Za-z0-9]){CARD}(?![A-Za-z0-9])")
CALL = rf"[0-9]+{CARD}"  # a friend call: the ordinal, then the card (``2AS``)
CALL_TOKEN = re.compile(rf"(?<![A-Za-z0-9]){CALL}(?![A-Za-z0-9])")
REPLAY_ONLY_KEYS = frozenset({"seed", "hands", "kitty_dealt", "buried"})
BID_LINE = re.compile(rf"^seat ([0-7]) bids ({CARD}(?: {CARD})*)$")
THROW_LINE = re.compile(
    rf"^seat ([0-7])'s throw ({CARD}(?: {CARD})*) fails: ({CARD}(?: {CARD})*) is played instead$"
)
CALLS_LINE = re.compile(rf"^seat ([0-7]) calls friends: ({CALL}(?: {CALL})*)$")
FILLED_LINE = re.compile(
    rf"^seat ([0-7]) plays the call ([0-9]+)({CARD})"
    r"(?:: a friend of the dealer|, already on the dealer's side)$"
)
# Who gets frames (``Receiver.kind``; only counted by kind, the rules are the same for all).
KINDS = ("seat", "spectator", "anonymous", "watcher_allowed", "watcher_refused", "lobby", "http")

Key = tuple[int, int]  # (hand id, seq): hand ids grow, so keys order frames in time


# --- the truth of one hand -------------------------------------------------------------------


@dataclass(frozen=True)
class Knowledge:
    """What can be known at one ``seq`` of a hand."""

    phase: str
    dealer: int | None
    holding: tuple[Counter[int], ...]  # each seat's cards now
    held: tuple[Counter[int], ...]  # every card each seat has held in this deal
    public: tuple[Counter[int], ...]  # what everyone knows each seat held
    played: Counter[int]
    kitty_public: Counter[int]
    # 找朋友 and bigger tables: the defending side known to all, the calls as the engine
    # keeps them ((card, ordinal, seen, seat) each), whether everyone may see them yet, and
    # each side's points.
    side: frozenset[int] = frozenset()
    calls: tuple[tuple[str, int, int, int | None], ...] = ()
    calls_shown: bool = False
    points: tuple[int, int] = (0, 0)  # (attackers, defenders)


def union(*counters: Counter[int]) -> Counter[int]:
    """Multiset union (the larger count of each card)."""
    merged: Counter[int] = Counter()
    for counter in counters:
        merged |= counter
    return merged


def _played_by_seat(state: HandState) -> list[Counter[int]]:
    """Each seat's cards on the table so far: complete tricks and the trick in progress."""
    players = state.players
    played: list[Counter[int]] = [Counter() for _ in range(players)]
    for trick in [*state.tricks, state.trick]:
        for index, cards in enumerate(trick.plays):
            played[(trick.leader + index) % players].update(cards)
    return played


def _call_key(call: Any) -> tuple[str, int, int, int | None]:
    data = call.to_dict()
    return (str(data["card"]), int(data["ordinal"]), int(data["seen"]), data["seat"])


class HandTruth:
    """One hand's ``Knowledge`` at every ``seq``, rebuilt from its record."""

    def __init__(
        self,
        hand_id: int,
        states: Iterable[HandState],
        users: Sequence[int | None],
        started_at: datetime | None = None,
    ) -> None:
        self.hand_id = hand_id
        self.users = list(users)
        self.players = len(self.users)
        self.started_at = started_at
        self.steps: list[Knowledge] = []
        self.seed: int | None = None
        self.failed_throws: list[FailedThrow] = []  # of the hand's last deal
        self.bids: list[Bid] = []
        self.events: set[tuple[Any, ...]] = set()  # public events a system line may report
        self._build(states)

    @classmethod
    def from_hand(cls, hand_id: int) -> HandTruth:
        """Read the hand, its log and its players from the database."""
        from games.handstate import action_texts, record_for
        from games.models import Hand, HandPlayer

        hand = Hand.objects.get(pk=hand_id)
        record = record_for(hand, action_texts(hand))
        states = list(replay(record))
        users: list[int | None] = [None] * states[0].players
        for seat, user_id in HandPlayer.objects.filter(hand=hand).values_list("seat", "user_id"):
            users[seat] = user_id
        return cls(hand.pk, states, users, hand.started_at)

    @property
    def final_seq(self) -> int:
        return len(self.steps) - 1

    def at(self, seq: int) -> Knowledge:
        return self.steps[min(max(seq, 0), self.final_seq)]

    def _build(self, states: Iterable[HandState]) -> None:
        deal = -1
        held: list[Counter[int]] = []
        public: list[Counter[int]] = []
        seats = self.players
        played_before: list[Counter[int]] = [Counter() for _ in range(seats)]
        throws_seen = 0
        for state in states:
            self.seed = state.seed
            if state.deal_number != deal:  # a redeal: a new deck, nothing known of it yet
                deal, throws_seen = state.deal_number, 0
                held = [Counter() for _ in range(seats)]
                public = [Counter() for _ in range(seats)]
            holding = tuple(Counter(cards) for cards in state.hands)
            held = [union(before, now) for before, now in zip(held, holding, strict=True)]
            played = _played_by_seat(state)
            for failed in state.failed_throws[throws_seen:]:
                if failed.result == "forced":  # the whole attempt was put on the table
                    shown = played_before[failed.seat] + Counter(failed.attempted)
                    public[failed.seat] = union(public[failed.seat], shown)
            throws_seen = len(state.failed_throws)
            for bid in state.bids:
                public[bid.seat] = union(public[bid.seat], Counter(bid.cards))
            public = [union(known, cards) for known, cards in zip(public, played, strict=True)]
            played_before = played
            self.failed_throws, self.bids = list(state.failed_throws), list(state.bids)
            self.events |= _public_events(state)
            self.steps.append(
                Knowledge(
                    phase=state.phase,
                    dealer=state.dealer,
                    holding=holding,
                    held=tuple(held),
                    public=tuple(public),
                    played=sum(played, Counter()),
                    kitty_public=_kitty_public(state),
                    side=frozenset(state.side),
                    calls=tuple(_call_key(call) for call in state.calls),
                    calls_shown=state.calls_shown,
                    points=(state.attacker_points, state.defender_points),
                )
            )


def _key_of(cards: Iterable[int] | str) -> tuple[int, ...]:
    """A showing as a sorted tuple of card ids, whatever order it was written in."""
    return tuple(sorted(int(c) for c in (parse_cards(cards) if isinstance(cards, str) else cards)))


def _public_events(state: HandState) -> set[tuple[Any, ...]]:
    bids = {("bid", bid.seat, _key_of(bid.cards)) for bid in state.bids}
    throws = {
        ("throw", f.seat, _key_of(f.attempted), _key_of(f.played))
        for f in state.failed_throws
        if f.result == "forced"
    }
    friends: set[tuple[Any, ...]] = set()
    if state.calls and state.dealer is not None:
        friends.add(("calls", state.dealer, _calls_key(state.calls)))
        friends |= {
            ("filled", call.seat, int(call.card), call.ordinal)
            for call in state.calls
            if call.seat is not None
        }
    return bids | throws | friends


def _calls_key(calls: Iterable[Any]) -> tuple[tuple[int, int], ...]:
    """Calls as a sorted tuple of (card id, ordinal), from the engine's or from ``2AS 1KH``."""
    pairs = []
    for call in calls:
        if isinstance(call, str):
            match = re.fullmatch(rf"([0-9]+)({CARD})", call)
            if match is None:
                raise ValueError(call)
            pairs.append((int(parse_cards(match[2])[0]), int(match[1])))
        else:
            pairs.append((int(call.card), int(call.ordinal)))
    return tuple(sorted(pairs))


def _kitty_public(state: HandState) -> Counter[int]:
    shown = Counter(state.flipped)
    if state.phase == FINISHED and state.result is not None and state.result.outcome == PLAYED:
        shown += Counter(state.buried)
    return shown


# --- receivers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grant:
    """A spectator may see ``seat``'s private cards for frames from ``start`` to ``end``
    (inclusive; ``end`` None: until the end)."""

    seat: int
    start: Key
    end: Key | None = None

    def covers(self, key: Key) -> bool:
        return self.start <= key and (self.end is None or key <= self.end)


@dataclass
class Receiver:
    """Whoever got a stream of frames: ``kind`` is one of ``KINDS``."""

    name: str
    kind: str
    user_id: int | None = None
    grants: list[Grant] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)

    def entitled(self, truth: HandTruth, seq: int) -> set[int]:
        """The seats whose private cards this receiver may see at ``seq`` of the hand."""
        own = set()
        if self.user_id is not None:
            own = {seat for seat, user in enumerate(truth.users) if user == self.user_id}
        key = (truth.hand_id, seq)
        return own | {grant.seat for grant in self.grants if grant.covers(key)}


# --- findings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leak:
    receiver: str
    frame: int
    path: str
    reason: str
    cards: str = ""

    def __str__(self) -> str:
        shown = f" [{self.cards}]" if self.cards else ""
        return f"{self.receiver} frame {self.frame} {self.path}: {self.reason}{shown}"


@dataclass
class Report:
    frames: Counter[str] = field(default_factory=Counter)  # per receiver kind
    card_fields: int = 0
    leaks: list[Leak] = field(default_factory=list)

    def add(self, other: Report) -> None:
        self.frames.update(other.frames)
        self.card_fields += other.card_fields
        self.leaks.extend(other.leaks)

    def figures(self) -> dict[str, Any]:
        return {
            "frames": sum(self.frames.values()),
            "frames_by_receiver": dict(sorted(self.frames.items())),
            "card_fields_checked": self.card_fields,
            "leaks": len(self.leaks),
        }


# --- walking a frame -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    path: str  # dotted, list indexes as []
    value: Any
    parent: Any


def leaves(node: Any, path: str = "", parent: Any = None) -> Iterator[Leaf]:
    """Every scalar of a JSON document, with its normalised path and its container."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, f"{path}.{key}" if path else str(key), node)
    elif isinstance(node, list):
        for value in node:
            yield from leaves(value, f"{path}[]", node)
    else:
        yield Leaf(path, node, parent)


def keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from keys(value)
    elif isinstance(node, list):
        for value in node:
            yield from keys(value)


def card_tokens(text: str) -> list[str]:
    return CARD_TOKEN.findall(text)


def shows_cards(value: Any) -> bool:
    """A string holding a card (``AS``) or a friend call (``2AS``)."""
    return isinstance(value, str) and bool(CARD_TOKEN.search(value) or CALL_TOKEN.search(value))


def _chat_lines(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """The chat lines of a frame that carry parameters: a ``chat`` frame's, a state's backlog."""
    found = frame.get("chat") if frame.get("type") == "state" else [frame.get("line")]
    lines = found if isinstance(found, list) else []
    return [
        line for line in lines if isinstance(line, dict) and isinstance(line.get("params"), list)
    ]


def _line_event(code: Any, params: list[Any]) -> tuple[Any, ...] | None:
    """The public event a system line's code and parameters record, if it shows cards."""
    try:
        if code == "bids":
            return ("bid", int(params[0]), _key_of(str(params[1])))
        if code == "throw_forced":
            seat, attempted, played = params[0], str(params[1]), str(params[2])
            return ("throw", int(seat), _key_of(attempted), _key_of(played))
        if code == "friends_called":
            return ("calls", int(params[0]), _calls_key(str(params[1]).split()))
        if code in ("friend_joins", "call_spent"):
            card = parse_cards(str(params[1]))
            if len(card) != 1:
                return None
            return ("filled", int(params[0]), int(card[0]), int(params[2]))
    except (IndexError, TypeError, ValueError):
        return None
    return None


def cards_of(tokens: Iterable[str]) -> Counter[int]:
    return Counter(int(card) for card in parse_cards(" ".join(tokens)))


def _text(cards: Counter[int]) -> str:
    from shengji.engine import format_cards

    return format_cards(sorted(cards.elements()))


# Fields that carry cards, by their path inside a view (the view of a ``view`` frame, or
# ``hand.view`` of a ``state`` frame).
SEAT_FIELDS = {
    "bids[].cards",
    "trick.plays[].cards",
    "last_trick.plays[].cards",
    "failed_throws[].attempted",
    "failed_throws[].played",
    "result.failed_throws[].attempted",
    "result.failed_throws[].played",
}
KITTY_FIELDS = {"kitty", "flipped", "result.flipped"}
CALL_FIELDS = {"calls[].card", "result.calls[].card"}
# The calls offered to the dealer's pickers while burying ("1AD 1KC", docs/NOTATION.md): the
# dealer's own view only.
CALL_DEFAULTS_FIELD = "call_defaults"
# The calls as a view shows them (RULES-SPEC.md §9.4: the dealer's until the first lead).
CALL_LISTS = ("calls", "result.calls")
# The defending side as a view shows it (a list of seats), and the attackers (its complement).
SIDE_FIELDS = ("side", "defenders", "result.defenders")
ATTACKER_FIELDS = ("result.attackers",)
PLAYED_FIELDS = {"point_cards.attackers", "point_cards.defenders"}
HAND_FIELD = "hand"
VIEW_ROOTS = {"view": "view.", "state": "hand.view."}
CHAT_FIELDS = {"state": "chat[].text", "chat": "line.text"}
# A system line's parts (its code's parameters; docs/PROTOCOL.md "System lines").
CHAT_PARAMS = {"state": "chat[].params[]", "chat": "line.params[]"}
# A check's warning names the call it is about ("call": "1AS"; docs/PROTOCOL.md, check).
MESSAGE_FIELDS = {"error": ("message",), "check": ("message", "call")}


def _view_of(frame: dict[str, Any]) -> dict[str, Any] | None:
    """The view a ``view`` or ``state`` frame carries, if any."""
    if frame.get("type") == "view":
        view = frame.get("view")
    elif frame.get("type") == "state" and isinstance(frame.get("hand"), dict):
        view = frame["hand"].get("view")
    else:
        view = None
    return view if isinstance(view, dict) else None


def _at_path(view: dict[str, Any], path: str) -> Any:
    node: Any = view
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _calls_of(shown: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (c.get("card"), c.get("ordinal"), c.get("seen"), c.get("seat"))
        if isinstance(c, dict)
        else (c,)
        for c in shown
    ]


def _seats(shown: Any) -> frozenset[Any] | None:
    return frozenset(shown) if isinstance(shown, list) else None


def frame_key(frame: dict[str, Any]) -> Key | None:
    """The (hand, seq) a frame shows, if it shows a hand."""
    if frame.get("type") == "view":
        return (int(frame["hand"]), int(frame["seq"]))
    hand = frame.get("hand") if frame.get("type") == "state" else None
    if isinstance(hand, dict):
        return (int(hand["id"]), int(hand["seq"]))
    return None


class Checker:
    """Checks the frames of receivers at one table against the truths of its hands."""

    def __init__(self, truths: Iterable[HandTruth]) -> None:
        self.truths = {t.hand_id: t for t in truths}
        self.seeds = {t.seed for t in self.truths.values() if t.seed is not None}
        self._lines: dict[int, dict[str, Any]] = {}  # the frame's chat lines by their params

    def check(self, receiver: Receiver) -> Report:
        report = Report()
        contexts = self._contexts(receiver.frames)
        for index, frame in enumerate(receiver.frames):
            report.frames[receiver.kind] += 1
            checked, leaks = self._check_frame(receiver, index, frame, contexts[index])
            report.card_fields += checked
            report.leaks.extend(leaks)
        return report

    def check_document(self, name: str, document: Any) -> Report:
        """An HTTP answer about a hand in progress: it holds no card at all."""
        report = Report()
        report.frames["http"] += 1
        for leaf in leaves(document):
            if shows_cards(leaf.value):
                report.card_fields += 1
                report.leaks.append(
                    Leak(name, 0, leaf.path, "a card in an answer about a live hand", leaf.value)
                )
        report.leaks.extend(self._forbidden(name, 0, document))
        return report

    # --- one frame ---------------------------------------------------------------------------

    def _contexts(self, frames: list[dict[str, Any]]) -> list[Key | None]:
        """Each frame's (hand, seq): its own, or the next hand frame's (else the last seen)."""
        contexts: list[Key | None] = [None] * len(frames)
        following: Key | None = None
        for index in range(len(frames) - 1, -1, -1):
            own = frame_key(frames[index])
            following = own or following
            contexts[index] = following
        last: Key | None = None
        for index, frame in enumerate(frames):
            last = frame_key(frame) or last
            contexts[index] = contexts[index] or last
        return contexts

    def _check_frame(
        self, receiver: Receiver, index: int, frame: dict[str, Any], context: Key | None
    ) -> tuple[int, list[Leak]]:
        leaks = self._forbidden(receiver.name, index, frame)
        self._lines = {id(line["params"]): line for line in _chat_lines(frame)}
        own = frame_key(frame)
        if own is not None and not self._played(own):
            leaks.append(Leak(receiver.name, index, "hand", f"a hand or seq never played: {own}"))
            return 0, leaks
        checked = 0
        for leaf in leaves(frame):
            if shows_cards(leaf.value):
                checked += 1
                spot = Spot(receiver, index, str(frame.get("type")), leaf)
                leaks.extend(self._check_field(spot, own, context))
        view = _view_of(frame)
        if own is not None and view is not None:
            truth = self.truths[own[0]]
            leaks.extend(self._friend_hints(receiver, index, view, truth, own[1]))
        return checked, leaks

    def _friend_hints(
        self, receiver: Receiver, index: int, view: dict[str, Any], truth: HandTruth, seq: int
    ) -> list[Leak]:
        """RULES-SPEC.md §9.4 beyond cards: the calls only to whom may see them, each naming a
        seat only once filled; the side and the points only as the public side has them (no
        hint of who holds a called card)."""
        known = truth.at(seq)
        may_see_calls = known.calls_shown or (
            known.dealer is not None and known.dealer in receiver.entitled(truth, seq)
        )
        leaks: list[Leak] = []

        def leak(path: str, reason: str, shown: Any) -> None:
            leaks.append(Leak(receiver.name, index, path, reason, str(shown)))

        for path in CALL_LISTS:
            shown = _at_path(view, path)
            if shown is None:
                continue
            if not may_see_calls:
                leak(path, "the calls before the first lead", shown)
                continue
            if not isinstance(shown, list) or _calls_of(shown) != list(known.calls):
                leak(path, "calls other than the truth's (a seat named for an open call?)", shown)
        for path in SIDE_FIELDS:
            shown = _at_path(view, path)
            if shown is not None and _seats(shown) != known.side:
                leak(path, f"a side other than the public one {sorted(known.side)}", shown)
        for path in ATTACKER_FIELDS:
            shown = _at_path(view, path)
            others = frozenset(range(truth.players)) - known.side
            if shown is not None and _seats(shown) != others:
                leak(path, f"attackers other than the public ones {sorted(others)}", shown)
        points = view.get("points")
        if isinstance(points, dict):
            shown_points = (points.get("attackers"), points.get("defenders"))
            if shown_points != known.points:
                leak("points", f"points other than the public sides' {known.points}", points)
        return leaks

    def _played(self, key: Key) -> bool:
        truth = self.truths.get(key[0])
        return truth is not None and 0 <= key[1] <= truth.final_seq

    def _forbidden(self, name: str, index: int, document: Any) -> list[Leak]:
        found = [
            Leak(name, index, key, "a key only replays of finished hands have")
            for key in keys(document)
            if key in REPLAY_ONLY_KEYS
        ]
        for leaf in leaves(document):
            if type(leaf.value) is int and leaf.value in self.seeds:
                found.append(Leak(name, index, leaf.path, "the hand's seed (it deals every card)"))
        return found

    def _check_field(self, spot: Spot, own: Key | None, context: Key | None) -> list[Leak]:
        root = VIEW_ROOTS.get(spot.kind)
        path = spot.leaf.path
        if root is not None and own is not None and path.startswith(root):
            return self._view_field(spot, path[len(root) :], self.truths[own[0]], own[1])
        if path == CHAT_FIELDS.get(spot.kind):
            return self._chat_line(spot, context)
        if path == CHAT_PARAMS.get(spot.kind):
            return self._chat_params(spot, context)
        if path in MESSAGE_FIELDS.get(spot.kind, ()):
            return self._message(spot, context)
        return spot.leak("cards in a field that is not known to carry cards")

    def _view_field(self, spot: Spot, path: str, truth: HandTruth, seq: int) -> list[Leak]:
        known = truth.at(seq)
        entitled = spot.receiver.entitled(truth, seq)
        cards = spot.cards
        seat = spot.leaf.parent.get("seat")
        if path == CALL_DEFAULTS_FIELD:
            if known.dealer is None or known.dealer not in entitled:
                return spot.leak("the calls offered to the dealer, to another receiver")
            return []  # made from the dealer's own hand, for the dealer
        if CALL_TOKEN.search(spot.leaf.value):
            return spot.leak("a friend call in a view field that is not known to carry one")
        if path in CALL_FIELDS:
            return self._call_card(spot, truth, seq)
        if path == HAND_FIELD:
            if seat not in entitled:
                return spot.leak(f"the hand of seat {seat}, which this receiver may not see")
            return spot.beyond(cards, known.holding[seat], f"cards seat {seat} does not hold")
        if path in SEAT_FIELDS:
            if type(seat) is not int or not 0 <= seat < truth.players:
                return spot.leak("cards of no seat")
            allowed = self._seat_allowed(known, seat, entitled)
            return spot.beyond(cards, allowed, f"seat {seat}'s hidden cards")
        if path in KITTY_FIELDS:
            allowed = self._kitty_allowed(known, entitled)
            return spot.beyond(cards, allowed, "hidden kitty cards")
        if path in PLAYED_FIELDS:
            return spot.beyond(cards, known.played, "point cards that were never played")
        return spot.leak("cards in a view field that is not known to carry cards")

    def _chat_line(self, spot: Spot, context: Key | None) -> list[Leak]:
        """A system line may show cards only as the record of a public event of its hand: a
        bid, a throw that failed and was forced (exactly those cards, by that seat), in 找朋友
        the calls (from the first lead) and a call filled (by that seat, once filled)."""
        line = spot.leaf.parent
        if not line.get("system"):
            return []  # what a person typed is theirs to say
        text = str(spot.leaf.value)
        if match := BID_LINE.match(text):
            event: tuple[Any, ...] = ("bid", int(match[1]), _key_of(match[2]))
        elif match := THROW_LINE.match(text):
            event = ("throw", int(match[1]), _key_of(match[2]), _key_of(match[3]))
        elif match := CALLS_LINE.match(text):
            event = ("calls", int(match[1]), _calls_key(match[2].split()))
        elif match := FILLED_LINE.match(text):
            event = ("filled", int(match[1]), int(parse_cards(match[3])[0]), int(match[2]))
        else:
            return spot.leak("cards in a system line of an unknown kind")
        return self._line_judged(spot, line, event, context)

    def _chat_params(self, spot: Spot, context: Key | None) -> list[Leak]:
        """A system line's parameters may show cards as its text may: only the record of a
        public event of its hand (a bid, a throw that failed and was forced, the calls, a
        call filled)."""
        line = self._lines.get(id(spot.leaf.parent))
        if line is None:
            return spot.leak("cards in a field that is not known to carry cards")
        if not line.get("system"):
            return []
        event = _line_event(line.get("code"), line["params"])
        if event is None:
            return spot.leak("cards in a system line of an unknown kind")
        return self._line_judged(spot, line, event, context)

    def _line_judged(
        self, spot: Spot, line: dict[str, Any], event: tuple[Any, ...], context: Key | None
    ) -> list[Leak]:
        truth = self._chat_hand(line.get("at"))
        if truth is None or event not in truth.events:
            return spot.leak("a system line about no public event of its hand")
        if event[0] in ("calls", "filled") and not _happened(event, truth, context):
            return spot.leak("a 找朋友 line before what it reports was public")
        return []

    def _message(self, spot: Spot, context: Key | None) -> list[Leak]:
        truth = None if context is None else self.truths.get(context[0])
        if truth is None or context is None:
            return spot.leak("cards in a message with no hand to judge them by")
        known = truth.at(context[1])
        entitled = spot.receiver.entitled(truth, context[1])
        if CALL_TOKEN.search(spot.leaf.value) and not (
            known.calls_shown or known.dealer in entitled
        ):
            return spot.leak("a friend call in a message before the first lead")
        allowed = self._knowable(spot.receiver, truth, context[1])
        return spot.beyond(spot.cards, allowed, "a card the receiver may not know")

    def _call_card(self, spot: Spot, truth: HandTruth, seq: int) -> list[Leak]:
        """A call's card: only where the calls may be seen (``_friend_hints`` judges that and
        the rest of the call), and one of the truth's calls."""
        called = Counter(int(c) for c in parse_cards(" ".join(c[0] for c in truth.at(seq).calls)))
        return spot.beyond(spot.cards, called, "a called card the dealer did not call")

    def _chat_hand(self, at: Any) -> HandTruth | None:
        """The hand a chat line belongs to: the latest that started before it was written
        (any hand of the table when the line has no time)."""
        when = datetime.fromisoformat(at) if isinstance(at, str) else None
        if when is None:
            return max(self.truths.values(), key=lambda t: t.hand_id, default=None)
        earlier = [
            truth
            for truth in self.truths.values()
            if truth.started_at is not None and truth.started_at <= when
        ]
        return max(earlier, key=lambda t: t.hand_id, default=None)

    # --- what a receiver may know -----------------------------------------------------------

    @staticmethod
    def _seat_allowed(known: Knowledge, seat: int, entitled: set[int]) -> Counter[int]:
        if seat in entitled:
            return union(known.public[seat], known.held[seat])
        return known.public[seat]

    @staticmethod
    def _kitty_allowed(known: Knowledge, entitled: set[int]) -> Counter[int]:
        if known.dealer is not None and known.dealer in entitled:
            return union(known.kitty_public, known.held[known.dealer])
        return known.kitty_public

    def _knowable(self, receiver: Receiver, truth: HandTruth, seq: int) -> Counter[int]:
        known = truth.at(seq)
        entitled = receiver.entitled(truth, seq)
        seats = [self._seat_allowed(known, seat, entitled) for seat in range(truth.players)]
        return sum(seats, Counter()) + self._kitty_allowed(known, entitled)


def _happened(event: tuple[Any, ...], truth: HandTruth, context: Key | None) -> bool:
    """Whether a 找朋友 event (the calls shown, a call filled by a seat) had happened by the
    receiver's ``context``: its next hand frame, else its last (a later hand: it had)."""
    if context is None or context[0] < truth.hand_id:
        return False
    if context[0] > truth.hand_id:
        return True
    known = truth.at(context[1])
    if event[0] == "calls":
        return known.calls_shown
    _, seat, card, ordinal = event
    return any(
        int(parse_cards(c[0])[0]) == card and c[1] == ordinal and c[3] == seat for c in known.calls
    )


@dataclass(frozen=True)
class Spot:
    """One card-bearing string of one frame, and how to report it."""

    receiver: Receiver
    index: int
    kind: str
    leaf: Leaf

    @property
    def cards(self) -> Counter[int]:
        return cards_of(card_tokens(self.leaf.value))

    def leak(self, reason: str, cards: str | None = None) -> list[Leak]:
        shown = self.leaf.value if cards is None else cards
        return [Leak(self.receiver.name, self.index, self.leaf.path, reason, shown)]

    def beyond(self, cards: Counter[int], allowed: Counter[int], reason: str) -> list[Leak]:
        """A leak of the cards beyond ``allowed``, if any."""
        extra = cards - allowed
        return self.leak(reason, _text(extra)) if extra else []


def check_frames(truths: Iterable[HandTruth], receivers: Iterable[Receiver]) -> Report:
    """Check every receiver's frames at one table; the report lists every leak found."""
    checker = Checker(truths)
    report = Report()
    for receiver in receivers:
        report.add(checker.check(receiver))
    return report
