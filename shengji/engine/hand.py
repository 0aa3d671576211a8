"""One hand (局) as a state machine: dealing → bidding → burying → playing → finished.

``new_hand(rules, seed, …)`` sets a hand up; ``apply(action)`` checks and applies one action
(``Action`` or its text, docs/NOTATION.md); ``check_action(seat, action)`` only checks. Every
refusal raises a ``ShengjiError`` with a stable code: the codes of ``action_errors`` and part 1's
play codes. Views and legal actions are ``views.py``'s functions (``view_for(state, seat)``,
``legal_actions(state, seat)`` …), records and replay ``record.py``'s.

Phases (RULES-SPEC.md §5): cards are drawn one at a time by ``draw`` (bids may come between draws);
after the last the bid window stays open until the server's ``close``; then the dealer takes the
kitty and buries as many cards (in 找朋友, after calling friends); under ``kitty_theft`` a bid
window follows each bury, whose standing bid's seat takes the kitty and buries in turn
(RULES-SPEC.md §10.24); then tricks until every hand is empty; then the result. ``leave N``
ends the hand at once from any phase (RULES-SPEC.md §7). Under the takeback options
``takeback N`` withdraws seat N's last bid or play (takeback.py).

Any table shape of RULES-SPEC.md §9.1 plays here: ``rules.players`` seats, ``rules.decks`` decks.
Sides are ``side`` (the defending seats known now): the dealer's parity in tractor mode, the
dealer and the revealed friends in 找朋友 (friends.py holds that mode's own rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from random import Random
from typing import Any

from shengji.engine.action_errors import (
    BURY_CARDS_NOT_HELD,
    BURY_WRONG_COUNT,
    CALLS_MISSING,
    CALLS_NOT_ALLOWED,
    SERVER_ONLY,
    TAKEBACK_NOT_ALLOWED,
    WRONG_SEAT,
    IllegalActionError,
    IllegalBidError,
    IllegalBuryError,
    IllegalCallError,
    IllegalTakebackError,
    InvalidActionError,
    InvalidSetupError,
    NotYourTurnError,
    WrongPhaseError,
)
from shengji.engine.actions import (
    BID,
    BURY,
    CALL,
    CLOSE,
    DRAW,
    DRAW_ACTION,
    LEAVE,
    PLAY,
    SEAT_KINDS,
    SERVER_KINDS,
    TAKEBACK,
    Action,
    as_action,
    parse_action,
)
from shengji.engine.bidding import Bid, bid_error, make_bid
from shengji.engine.bombs import bomb_allowed
from shengji.engine.cards import BIG_JOKER, Card, format_cards
from shengji.engine.deal import (
    check_deck,
    deck_shape,
    flip_kitty,
    random_level,
    shuffled_deck,
)
from shengji.engine.errors import LEAD_MIXED_SUITS, IllegalPlayError
from shengji.engine.follow import follow_error
from shengji.engine.friends import (
    FriendCall,
    friend_call_error,
    friend_calls_error,
    friends_next_dealer,
    reveal_friends,
    small_side_bonus_levels,
)
from shengji.engine.lead import holds, lead_error
from shengji.engine.levels import JACK, NT, advance, highest_level, level_ladder
from shengji.engine.rainbow import (
    first_rainbow_blocker,
    is_rainbow,
    rainbow_follow_error,
    rainbow_multiplier,
    rainbow_throw_failure,
)
from shengji.engine.rules import MAX_REDEALS as MAX_REDEALS
from shengji.engine.rules import RuleSet
from shengji.engine.scoring import (
    DEFENDERS,
    card_points,
    last_trick_multiplier,
    level_change,
    points,
)
from shengji.engine.takeback import bid_takeback_error, play_takeback_error, standing_indices
from shengji.engine.throw import REJECTED, STANDS, first_blocker, throw_outcome
from shengji.engine.trick import trick_winner
from shengji.engine.trump import Trump

NO_PROTECTIONS = "no_protections"
DEALING = "dealing"
BIDDING = "bidding"
BURYING = "burying"
PLAYING = "playing"
FINISHED = "finished"
PHASES = (DEALING, BIDDING, BURYING, PLAYING, FINISHED)
NO_WINDOW = -1
"""``theft_window`` while no bid window after a bury is open (RULES-SPEC.md §10.24)."""

PLAYED = "played"
ESCAPE = "escape"
TOTAL_POINTS = 200
"""Points in play with two decks; ``100 × decks`` in general (RULES-SPEC.md §9.2 Scoring)."""


def team_of(seat: int) -> int:
    """Team 0 is the even seats (0 and 2 at four players), team 1 the odd (RULES-SPEC.md §1)."""
    return seat % 2


@dataclass(frozen=True, slots=True)
class FailedThrow:
    """A throw that did not stand (RULES-SPEC.md §4 Throw check).

    ``played`` is what was played instead (empty when rejected); ``penalty`` is the points the
    thrower's side gave away (docs/ENGINE-PART2-DECISIONS.md D13); ``blocker`` the seat named as
    holding what beats it, under ``name_throw_blocker`` only (RULES-SPEC.md §10.10).
    """

    seat: int
    trick: int
    attempted: tuple[int, ...]
    played: tuple[int, ...]
    result: str
    penalty: int
    # Out of the repr, as out of ``to_dict`` when None: a stored hand's result reads as before.
    blocker: int | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "seat": self.seat,
            "trick": self.trick,
            "attempted": format_cards(self.attempted),
            "played": format_cards(self.played),
            "result": self.result,
            "penalty": self.penalty,
        }
        if self.blocker is not None:
            data["blocker"] = self.blocker  # RULES-SPEC.md §10.10
        return data


@dataclass(slots=True)
class Trick:
    """A trick: its leader, the plays in order from the leader, and when complete the winner."""

    leader: int
    plays: list[tuple[int, ...]] = field(default_factory=list)
    winner: int = -1
    points: int = 0
    players: int = 4

    def to_dict(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "plays": [
                {"seat": (self.leader + i) % self.players, "cards": format_cards(p)}
                for i, p in enumerate(self.plays)
            ],
            "winner": None if self.winner < 0 else self.winner,
            "points": self.points,
        }


@dataclass(frozen=True, slots=True)
class HandResult:
    """Everything settlement needs from a finished hand (RULES-SPEC.md §5.6, §6, §7).

    Teams are 0 (the even seats) and 1 (the odd); levels are per team in tractor mode and per
    seat in 找朋友. ``attacker_points`` is X of RULES-SPEC.md §5.6: trick points + kitty bonus +
    throw penalties, never below 0. ``ratio_level`` is the level settlement ``ratio`` reads: the
    highest held at the start, or ``A`` once anyone has wrapped past A (RULES-SPEC.md §5.7).
    ``defenders`` are the final defending side (in 找朋友 the dealer and the friends revealed by
    the end). The fields after ``flipped`` describe bigger tables and 找朋友; ``to_dict`` leaves
    them out of a four-player tractor hand, whose dict is the same as before they existed.
    """

    outcome: str
    dealer: int | None
    defenders: tuple[int, ...] | None
    attackers: tuple[int, ...] | None
    level: str
    trump_suit: str | None
    levels_at_start: tuple[str, ...]
    wrapped_at_start: tuple[bool, ...]
    highest_level_at_start: str
    ratio_level: str
    winner: str | None
    winning_team: int | None
    winning_seats: tuple[int, ...] | None
    levels_gained: int
    attacker_points: int
    trick_points: int
    defender_points: int
    kitty_points: int
    kitty_multiplier: int
    kitty_bonus: int
    penalty_points: int
    failed_throws: tuple[FailedThrow, ...]
    escaper: int | None
    levels_after: tuple[str, ...]
    wrapped_after: tuple[bool, ...]
    passed_ace: int | None
    match_over: bool
    match_winner: int | None
    next_dealer: int | None
    tricks: int
    redeals: int
    flipped: tuple[int, ...]
    players: int = 4
    decks: int = 2
    mode: str = "tractor"
    seat_points: tuple[int, ...] = ()
    calls: tuple[FriendCall, ...] = ()
    small_side_bonus: int = 0

    @property
    def is_classic(self) -> bool:
        return self.players == 4 and self.decks == 2 and self.mode == "tractor"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        classic = self.is_classic
        for name in self.__slots__:
            if classic and name in _SHAPE_RESULT_FIELDS:
                continue
            value = getattr(self, name)
            if name == "failed_throws":
                value = [f.to_dict() for f in value]
            elif name == "calls":
                value = [c.to_dict() for c in value]
            elif name == "flipped":
                value = format_cards(value)
            elif isinstance(value, tuple):
                value = list(value)
            data[name] = value
        return data


_SHAPE_RESULT_FIELDS = frozenset(
    ("players", "decks", "mode", "seat_points", "calls", "small_side_bonus")
)


class HandState:
    """A hand in progress. Build with ``new_hand``; mutate only through ``apply``.

    Public read-only attributes: ``phase``, ``rules``, ``seed``, ``levels``, ``wrapped``,
    ``first_hand``, ``level`` (the hand's level rank), ``dealer`` (None until known),
    ``trump`` (None until the bid window closes), ``hands`` (lists of card ids), ``kitty``
    (as dealt), ``buried``, ``bids``, ``flipped``, ``tricks`` (complete ones), ``trick`` (the
    one in progress), ``turn``, ``failed_throws``, ``actions``, ``result``; the table's shape
    ``players``, ``decks``, ``kitty_size``, ``draws``; ``side`` (the defending seats known
    now), ``seat_points`` and ``seat_cards`` (points and point cards each seat has taken) and,
    in 找朋友, ``calls``. ``burier`` is the seat that buries or buried last (the dealer, or under
    ``kitty_theft`` a thief) and ``kitty_taken`` the cards it took up (RULES-SPEC.md §10.24).
    """

    __slots__ = (
        "_decks",
        "_rng",
        "actions",
        "attacker_cards",
        "attacker_points",
        "bids",
        "buried",
        "burier",
        "calls",
        "copies",
        "deal_number",
        "dealer",
        "deck",
        "decks",
        "defender_cards",
        "defender_points",
        "drawn",
        "draws",
        "escaper",
        "failed_throws",
        "first_bidder",
        "first_hand",
        "flipped",
        "hands",
        "kitty",
        "kitty_size",
        "kitty_taken",
        "level",
        "levels",
        "penalty_points",
        "phase",
        "players",
        "removed",
        "result",
        "rules",
        "seat_cards",
        "seat_points",
        "seed",
        "side",
        "start_seat",
        "theft_window",
        "trick",
        "tricks",
        "trump",
        "turn",
        "wrapped",
    )

    rules: RuleSet
    seed: int
    players: int
    decks: int
    kitty_size: int
    draws: int
    copies: tuple[int, ...]
    removed: tuple[int, ...]
    levels: tuple[str, ...]
    wrapped: tuple[bool, ...]
    first_hand: bool
    dealer: int | None
    level: str
    phase: str
    deal_number: int
    deck: list[int]
    kitty: list[int]
    drawn: int
    start_seat: int
    hands: list[list[int]]
    bids: list[Bid]
    first_bidder: int | None
    trump: Trump | None
    flipped: list[int]
    buried: list[int]
    burier: int | None
    kitty_taken: list[int]
    theft_window: int
    trick: Trick
    tricks: list[Trick]
    turn: int
    attacker_points: int
    defender_points: int
    attacker_cards: list[int]
    defender_cards: list[int]
    penalty_points: int
    failed_throws: list[FailedThrow]
    side: frozenset[int]
    seat_points: list[int]
    seat_cards: list[list[int]]
    calls: list[FriendCall]
    escaper: int | None
    result: HandResult | None
    actions: list[Action]
    _rng: Random
    _decks: list[list[int]] | None

    # --- setup -----------------------------------------------------------------------------

    def _setup(
        self,
        rules: RuleSet,
        seed: int,
        levels: tuple[str, ...],
        dealer: int | None,
        wrapped: tuple[bool, ...],
        decks: Sequence[Sequence[int]] | None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.players = rules.players
        self.decks = rules.decks
        self.levels = levels
        self.wrapped = wrapped
        self.first_hand = dealer is None
        self.dealer = dealer
        self._rng = Random(seed)
        self._decks = None
        if rules.level_source == "random":
            self.level = random_level(self._rng, rules.deck_min_rank)
        elif dealer is None:
            self.level = levels[0]
        else:
            self.level = levels[self._level_index(dealer)]
        shape = deck_shape(rules, self.level)
        self.kitty_size = shape.kitty
        self.draws = shape.each * rules.players
        self.copies = shape.copies
        self.removed = shape.removed
        if decks is not None:
            self._decks = [check_deck(d, rules.decks, shape.copies) for d in decks]
        self.deal_number = 0
        self.flipped = []
        self.actions = []
        self.escaper = None
        self.result = None
        self._start_deal()

    def _start_deal(self) -> None:
        """RULES-SPEC.md §5.1; also after a redeal (same dealer, or seat 0 in a first hand)."""
        index = self.deal_number
        if self._decks is not None and index < len(self._decks):
            self.deck = list(self._decks[index])
        else:
            copies = self.copies if self.rules.has_deck_options else None
            self.deck = shuffled_deck(self._rng, self.decks, copies)
        self.kitty = self.deck[: self.kitty_size]
        self.drawn = 0
        self.start_seat = 0 if self.dealer is None else self.dealer
        self.hands = [[] for _ in range(self.players)]
        self.bids = []
        self.first_bidder = None
        self.trump = None
        self.buried = []
        self.burier = None
        self.kitty_taken = []
        self.theft_window = NO_WINDOW
        self.trick = Trick(self.start_seat, players=self.players)
        self.tricks = []
        self.turn = self.start_seat
        self.attacker_points = 0
        self.defender_points = 0
        self.attacker_cards = []
        self.defender_cards = []
        self.seat_points = [0] * self.players
        self.seat_cards = [[] for _ in range(self.players)]
        self.calls = []
        self.side = self._first_side()
        self.penalty_points = 0
        self.failed_throws = []
        self.phase = DEALING

    def _level_index(self, seat: int) -> int:
        """Where a seat's level is kept: its team's (tractor) or its own (找朋友)."""
        return seat if self.rules.is_friends else team_of(seat)

    def _first_side(self) -> frozenset[int]:
        """The defending seats once the dealer is known: the dealer's team in tractor mode,
        the dealer alone in 找朋友 until friends are revealed (RULES-SPEC.md §9.3.4)."""
        dealer = self.dealer
        if dealer is None:
            return frozenset()
        if self.rules.is_friends:
            return frozenset((dealer,))
        return frozenset(s for s in range(self.players) if s % 2 == dealer % 2)

    def copy(self) -> HandState:
        """An independent copy (lists copied; cards, bids and trump objects are immutable)."""
        other = HandState.__new__(HandState)
        for name in HandState.__slots__:
            setattr(other, name, getattr(self, name))
        other._rng = Random()
        other._rng.setstate(self._rng.getstate())
        other.hands = [list(h) for h in self.hands]
        other.deck = list(self.deck)
        other.kitty = list(self.kitty)
        other.bids = list(self.bids)
        other.flipped = list(self.flipped)
        other.buried = list(self.buried)
        other.trick = Trick(self.trick.leader, list(self.trick.plays), players=self.players)
        other.tricks = list(self.tricks)
        other.attacker_cards = list(self.attacker_cards)
        other.defender_cards = list(self.defender_cards)
        other.seat_points = list(self.seat_points)
        other.seat_cards = [list(c) for c in self.seat_cards]
        other.calls = list(self.calls)
        other.failed_throws = list(self.failed_throws)
        other.actions = list(self.actions)
        return other

    # --- reading ---------------------------------------------------------------------------

    @property
    def standing_bid(self) -> Bid | None:
        return self.bids[-1] if self.bids else None

    @property
    def to_act(self) -> int | None:
        """The seat whose move it is when one seat must move (burying, playing), else None."""
        if self.phase == BURYING:
            return self.burier
        if self.phase == PLAYING:
            return self.turn
        return None

    @property
    def defenders(self) -> tuple[int, ...] | None:
        """The defending seats known now, from the dealer round the table."""
        dealer = self.dealer
        if dealer is None:
            return None
        return _sides_in_order(dealer, self.players, self.side)[0]

    @property
    def attackers(self) -> tuple[int, ...] | None:
        dealer = self.dealer
        if dealer is None:
            return None
        return _sides_in_order(dealer, self.players, self.side)[1]

    def is_attacker(self, seat: int) -> bool:
        return self.dealer is not None and seat not in self.side

    @property
    def in_theft_window(self) -> bool:
        """RULES-SPEC.md §10.24: the bid window opened after a bury under ``kitty_theft``."""
        return self.theft_window != NO_WINDOW

    @property
    def calls_missing(self) -> bool:
        """RULES-SPEC.md §10.24: a 找朋友 dealer's first lead waits for calls a theft's trump
        made illegal (never true without ``kitty_theft``)."""
        return (
            not self.tricks
            and self.phase == PLAYING
            and not self.trick.plays
            and self.rules.kitty_theft == "on"
            and self.rules.is_friends
            and len(self.calls) < self.rules.friends
        )

    @property
    def calls_shown(self) -> bool:
        """RULES-SPEC.md §9.3.3: the calls are shown to all once the first trick is led."""
        return bool(self.tricks or self.trick.plays) and self.phase in (PLAYING, FINISHED)

    @property
    def lead(self) -> tuple[int, ...] | None:
        """The current trick's lead, or None when the next play leads."""
        return self.trick.plays[0] if self.trick.plays else None

    @property
    def last_trick(self) -> Trick | None:
        return self.tricks[-1] if self.tricks else None

    # --- checking --------------------------------------------------------------------------

    def check_action(self, seat: int | None, action: Action | str) -> Action:
        """Raise the reason the action is refused now, else return it parsed.

        ``seat`` is who sends it: a seat 0..players-1, or None for the server (which may also send
        any seat's action, e.g. a bot's move after a timeout).
        """
        action = as_action(action, self.players)
        self._check(seat, action)
        return action

    def _check(self, seat: int | None, action: Action) -> None:
        self._check_sender(seat, action)
        kind = action.kind
        if kind == PLAY:
            self._check_play(action)
        elif kind == DRAW:
            self._need_phase(DEALING)
        elif kind == BID:
            self._check_bid(action)
        elif kind == CLOSE:
            self._need_phase(BIDDING)
        elif kind == BURY:
            self._check_bury(action)
        elif kind == CALL:
            self._check_call(action)
        elif kind == TAKEBACK:
            self._check_takeback(action)
        elif kind == LEAVE and self.phase == FINISHED:
            raise WrongPhaseError("the hand is over")

    def _check_sender(self, seat: int | None, action: Action) -> None:
        if action.kind in SERVER_KINDS:
            if seat is not None:
                raise IllegalActionError(SERVER_ONLY, str(action))
            if action.seat is not None or action.cards:
                raise InvalidActionError(str(action), f"{action.kind} takes no seat and no cards")
            return
        if action.kind not in SEAT_KINDS:
            raise InvalidActionError(str(action), f"unknown action {action.kind!r}")
        if type(action.seat) is not int or not 0 <= action.seat < self.players:
            raise IllegalActionError(WRONG_SEAT, f"seat {action.seat!r} in {action}")
        if seat is not None and seat != action.seat:
            raise IllegalActionError(WRONG_SEAT, f"seat {seat} sent {action}")
        cards = action.cards
        if cards and (min(cards) < 0 or max(cards) > BIG_JOKER):
            raise InvalidActionError(f"{action.kind} {action.seat} {cards}", "card ids run 0..53")
        if action.kind in (LEAVE, TAKEBACK) and cards:
            raise InvalidActionError(str(action), f"{action.kind} takes no cards")
        if action.ordinals and action.kind != CALL:
            raise InvalidActionError(str(action), "only a call has ordinals")

    def _need_phase(self, *phases: str) -> None:
        if self.phase not in phases:
            raise WrongPhaseError(f"the hand is {self.phase}")

    def _check_bid(self, action: Action) -> None:
        self._need_phase(DEALING, BIDDING)
        assert action.seat is not None
        code = bid_error(
            self.rules.bidding,
            self.level,
            self.standing_bid,
            action.seat,
            action.cards,
            self.hands[action.seat],
            self.decks,
            self.rules.bid_options,
            self.bids,
        )
        if code is not None:
            raise IllegalBidError(code, format_cards(action.cards))

    def _check_bury(self, action: Action) -> None:
        self._need_phase(BURYING)
        if action.seat != self.burier:
            raise NotYourTurnError(f"seat {self.burier} buries")
        if len(action.cards) != self.kitty_size:
            raise IllegalBuryError(
                BURY_WRONG_COUNT, f"{len(action.cards)} cards, not {self.kitty_size}"
            )
        assert action.seat is not None
        if not holds(self.hands[action.seat], action.cards):
            raise IllegalBuryError(BURY_CARDS_NOT_HELD, format_cards(action.cards))
        if self.rules.is_friends and not self.calls:
            raise IllegalCallError(CALLS_MISSING)

    def _check_call(self, action: Action) -> None:
        """RULES-SPEC.md §9.3.3: the dealer of a 找朋友 hand, while burying."""
        if len(action.ordinals) != len(action.cards):
            raise InvalidActionError(str(action), "a call has one ordinal per card")
        if not self.rules.is_friends:
            raise IllegalCallError(CALLS_NOT_ALLOWED, "this table calls no friends")
        if self.calls_missing:  # RULES-SPEC.md §10.24: calls again before the first lead
            burier = self.dealer
        else:
            self._need_phase(BURYING)
            burier = self.burier
        if action.seat != self.dealer or burier != self.dealer:
            raise NotYourTurnError(f"seat {self.dealer} calls while burying")
        assert self.trump is not None
        rules = self.rules
        code = friend_calls_error(
            _calls_of(action),
            self.trump,
            self.decks,
            rules.friends,
            rules.friend_cards,
            copies=self.copies,
        )
        if code is not None:
            raise IllegalCallError(code, str(action))

    def _check_play(self, action: Action) -> None:
        self._need_phase(PLAYING)
        seat = action.seat
        if seat != self.turn:
            raise NotYourTurnError(f"seat {self.turn} plays")
        assert self.trump is not None and seat is not None
        hand = self.hands[seat]
        plays = self.trick.plays
        if plays:
            policy = self.rules.draw_policy
            rainbow = self.rules.rainbow_min
            if rainbow and is_rainbow(plays[0], self.trump, rainbow):
                code = rainbow_follow_error(hand, plays[0], action.cards, self.trump, rainbow)
            elif bomb_allowed(hand, plays[0], action.cards, self.trump, self.rules.bombs):
                code = None  # RULES-SPEC.md §10.16
            elif policy == NO_PROTECTIONS:
                code = follow_error(hand, plays[0], action.cards, self.trump)
            else:
                code = follow_error(hand, plays[0], action.cards, self.trump, draw_policy=policy)
        else:
            if not self.tricks and self.calls_missing:
                raise IllegalCallError(CALLS_MISSING, "the trump changed: call again")
            code = lead_error(action.cards, self.trump, hand)
            if code == LEAD_MIXED_SUITS and is_rainbow(
                action.cards, self.trump, self.rules.rainbow_min
            ):
                code = None  # RULES-SPEC.md §10.17
        if code is not None:
            raise IllegalPlayError(code, format_cards(action.cards))

    def _check_takeback(self, action: Action) -> None:
        """RULES-SPEC.md §10.22 in the bidding (before ``close``), §10.23 in play."""
        seat = action.seat
        assert seat is not None
        rules = self.rules
        if self.phase in (DEALING, BIDDING):
            allowed = rules.bid_takeback == "on"
        elif self.phase == PLAYING:
            allowed = rules.takeback == "on"
        elif rules.takes_back:
            raise WrongPhaseError(f"nothing is taken back while the hand is {self.phase}")
        else:
            allowed = False
        if not allowed:
            raise IllegalTakebackError(TAKEBACK_NOT_ALLOWED, str(action))
        if self.phase == PLAYING:
            failed = [
                f.attempted
                for f in self.failed_throws
                if f.seat == seat and f.trick == len(self.tricks)
            ]
            code = play_takeback_error(self.actions, seat, bool(self.trick.plays), failed)
        else:
            code = bid_takeback_error(self.actions, seat)
        if code is not None:
            raise IllegalTakebackError(code, str(action))

    # --- applying --------------------------------------------------------------------------

    def apply(self, action: Action | str, seat: int | None = None) -> None:
        """Check the action (as sent by ``seat``; None = the server) and apply it."""
        if isinstance(action, str):
            action = parse_action(action, self.players)
        if action is DRAW_ACTION and seat is None and self.phase == DEALING:
            # The fast path of the 100 draws of every deal.
            self.actions.append(action)
            self._apply_draw()
            return
        self._check(seat, action)
        self.actions.append(action)
        kind = action.kind
        if kind == PLAY:
            self._apply_play(action)
        elif kind == DRAW:
            self._apply_draw()
        elif kind == BID:
            self._apply_bid(action)
        elif kind == CLOSE:
            self._apply_close()
        elif kind == BURY:
            self._apply_bury(action)
        elif kind == CALL:
            self.calls = _calls_of(action)
        elif kind == TAKEBACK:
            self._apply_takeback()
        else:
            self._apply_leave(action)

    def _apply_draw(self) -> None:
        drawn = self.drawn
        self.hands[(self.start_seat + drawn) % self.players].append(
            self.deck[self.kitty_size + drawn]
        )
        self.drawn = drawn + 1
        if self.drawn == self.draws:
            self.phase = BIDDING

    def _apply_bid(self, action: Action) -> None:
        assert action.seat is not None
        rules = self.rules
        self.bids.append(
            make_bid(rules.bidding, self.standing_bid, action.seat, action.cards, rules.bid_options)
        )
        if self.first_bidder is None:
            self.first_bidder = action.seat

    def _apply_close(self) -> None:
        if self.in_theft_window:
            self._close_theft_window()
            return
        standing = self.standing_bid
        if standing is not None:
            if self.dealer is None:
                by_first = self.rules.first_hand_dealer == "first_bidder"
                self.dealer = self.first_bidder if by_first else standing.seat
                self.side = self._first_side()
            self._start_burying(standing.suit)
            return
        if self.level == NT:
            # RULES-SPEC.md §10.5: at NT nobody bids and nothing is turned over.
            self._start_no_bid_burying(None)
            return
        no_bid = self.rules.no_bid_for(self.first_hand)
        bound = self.rules.max_redeals
        if no_bid == "redeal" and (bound == 0 or self.deal_number < bound):
            self.deal_number += 1
            self._start_deal()
            return
        suit = None
        if no_bid == "flip_kitty":
            rules = self.rules
            self.flipped, suit = flip_kitty(
                self.kitty,
                self.level,
                rules.flip_rule,
                rules.bidding,
                self.decks,
                rules.bid_options,
            )
        self._start_no_bid_burying(suit)

    def _start_no_bid_burying(self, suit: str | None) -> None:
        if self.dealer is None:
            self.dealer = 0  # RULES-SPEC.md §5.2: no bid in the first hand, seat 0 deals.
            self.side = self._first_side()
        self._start_burying(suit)

    def _start_burying(self, suit: str | None) -> None:
        self.trump = Trump(self.level, suit, self.rules.tractor)
        assert self.dealer is not None
        self.burier = self.dealer
        self.kitty_taken = self.kitty
        self.hands[self.dealer].extend(self.kitty)
        self.phase = BURYING

    def _apply_bury(self, action: Action) -> None:
        assert self.burier is not None
        hand = self.hands[self.burier]
        for card in action.cards:
            hand.remove(card)
        self.buried = list(action.cards)
        if self.rules.kitty_theft == "on" and self.bids:
            # RULES-SPEC.md §10.24: a bid window against the standing bid.
            self.theft_window = len(self.bids)
            self.phase = BIDDING
            return
        self._start_playing()

    def _start_playing(self) -> None:
        assert self.dealer is not None
        self.phase = PLAYING
        self.turn = self.dealer
        self.trick = Trick(self.dealer, players=self.players)

    def _apply_takeback(self) -> None:
        """RULES-SPEC.md §10.22, §10.23: the hand its standing actions make, replayed from the
        start (takeback.py); the log keeps every action, the takeback included."""
        actions = self.actions
        fresh = new_hand(
            self.rules,
            self.seed,
            levels=self.levels,
            dealer=None if self.first_hand else self.dealer,
            wrapped=self.wrapped,
            decks=self._decks,
        )
        for index in standing_indices(actions):
            fresh.apply(actions[index])
        for name in HandState.__slots__:
            if name != "actions":
                setattr(self, name, getattr(fresh, name))

    def _close_theft_window(self) -> None:
        """RULES-SPEC.md §10.24: a bid made in the window stands: its bidder takes the kitty
        and buries under that bid's trump; none: play starts, the calls read the final trump."""
        opened, self.theft_window = self.theft_window, NO_WINDOW
        if len(self.bids) == opened:
            self._recheck_calls()
            self._start_playing()
            return
        thief = self.bids[-1]
        self.trump = Trump(self.level, thief.suit, self.rules.tractor)
        self.burier = thief.seat
        self.kitty_taken = self.buried
        self.hands[thief.seat].extend(self.buried)
        self.buried = []
        self.phase = BURYING

    def _recheck_calls(self) -> None:
        """RULES-SPEC.md §10.24: a call the final trump made illegal is dropped."""
        if not self.calls:
            return
        assert self.trump is not None
        rules = self.rules
        self.calls = [
            c
            for c in self.calls
            if friend_call_error(
                c.card, c.ordinal, self.trump, self.decks, rules.friend_cards, copies=self.copies
            )
            is None
        ]

    def _apply_leave(self, action: Action) -> None:
        self.escaper = action.seat
        self.phase = FINISHED
        self.result = self._escape_result()

    def _apply_play(self, action: Action) -> None:
        seat = action.seat
        assert seat is not None and self.trump is not None
        cards = action.cards
        plays = self.trick.plays
        if not plays and len(cards) > 1:
            played = self._resolve_throw(seat, cards)
            if played is None:
                return  # rejected: the same seat leads again
            cards = played
        hand = self.hands[seat]
        for card in cards:
            hand.remove(card)
        plays.append(cards)
        if len(plays) == self.players:
            self._finish_trick()
        else:
            self.turn = (seat + 1) % self.players

    def _resolve_throw(self, seat: int, cards: tuple[int, ...]) -> tuple[int, ...] | None:
        """RULES-SPEC.md §4 Throw check: what the leader plays, or None when the throw is
        rejected."""
        assert self.trump is not None
        others = [self.hands[s] for s in range(self.players) if s != seat]
        outcome = throw_outcome(
            cards,
            others,
            self.trump,
            failed_throw=self.rules.failed_throw,
            throw_penalty=self.rules.throw_penalty,
            forced_part=self.rules.forced_part,
            penalty_per=self.rules.throw_penalty_per,
            rainbow_min=self.rules.rainbow_min,
        )
        if outcome.result == STANDS:
            return cards
        # ENGINE-PART2-DECISIONS D13: the penalty goes to the thrower's opponents (the side as
        # known now; summed again when a friend is revealed, RULES-SPEC.md §10.3).
        self.penalty_points += -outcome.penalty if self.is_attacker(seat) else outcome.penalty
        played = tuple(outcome.played)
        blocker = self._blocker(seat, cards) if self.rules.name_throw_blocker else None
        self.failed_throws.append(
            FailedThrow(
                seat, len(self.tricks), cards, played, outcome.result, outcome.penalty, blocker
            )
        )
        return None if outcome.result == REJECTED else played

    def _blocker(self, seat: int, cards: tuple[int, ...]) -> int | None:
        """RULES-SPEC.md §10.10: the first seat after the thrower, in play order, holding what
        beats the failed throw's part that is (or, rejected, would be) played."""
        assert self.trump is not None
        order = [(seat + step) % self.players for step in range(1, self.players)]
        rainbow = self.rules.rainbow_min
        if is_rainbow(cards, self.trump, rainbow):
            hands = [self.hands[s] for s in order]
            forced = rainbow_throw_failure(cards, hands, self.trump, rainbow)
            at = None if forced is None else first_rainbow_blocker(forced, hands, self.trump)
            return None if at is None else order[at]
        found = first_blocker(
            cards, [self.hands[s] for s in order], self.trump, self.rules.forced_part
        )
        return None if found is None else order[found]

    def _finish_trick(self) -> None:
        trick = self.trick
        assert self.trump is not None
        players = self.players
        rules = self.rules
        found = trick_winner(
            trick.plays, self.trump, rules.throw_beat, rules.bombs, rules.rainbow_min
        )
        winner = (trick.leader + found) % players
        values = _CARD_POINTS
        counted = [c for play in trick.plays for c in play if values[c]]
        trick.winner = winner
        trick.points = sum([values[c] for c in counted])
        self.seat_points[winner] += trick.points
        self.seat_cards[winner] += counted
        if self.is_attacker(winner):
            self.attacker_points += trick.points
            self.attacker_cards += counted
        else:
            self.defender_points += trick.points
            self.defender_cards += counted
        if self.calls:
            self._reveal(trick)
        self.tricks.append(trick)
        self.turn = winner
        self.trick = Trick(winner, players=players)
        if not self.hands[winner]:
            self.phase = FINISHED
            self.result = self._played_result()

    def _reveal(self, trick: Trick) -> None:
        """RULES-SPEC.md §9.3.4: the trick's plays read in play order fill calls; a friend who
        joins brings the points taken so far to the defending side."""
        players = self.players
        plays = [((trick.leader + i) % players, p) for i, p in enumerate(trick.plays)]
        calls, side = reveal_friends(self.calls, self.side, plays, self.rules.join_policy)
        self.calls = list(calls)
        if side != self.side:
            self.side = frozenset(side)
            self._regroup_points()

    def _regroup_points(self) -> None:
        """Each side's points and point cards, summed again from the seats' after a reveal."""
        attackers = [s for s in range(self.players) if s not in self.side]
        defenders = [s for s in range(self.players) if s in self.side]
        self.attacker_points = sum(self.seat_points[s] for s in attackers)
        self.defender_points = sum(self.seat_points[s] for s in defenders)
        self.attacker_cards = [c for s in attackers for c in self.seat_cards[s]]
        self.defender_cards = [c for s in defenders for c in self.seat_cards[s]]
        self.penalty_points = sum(
            -f.penalty if self.is_attacker(f.seat) else f.penalty for f in self.failed_throws
        )

    # --- results ---------------------------------------------------------------------------

    def _kitty_bonus(self) -> tuple[int, int]:
        """(multiplier, bonus) of RULES-SPEC.md §5.5 (§9.2.10, §10.2); (0, 0) when the
        defenders took the last trick."""
        last = self.tricks[-1]
        if not self.is_attacker(last.winner):
            return 0, 0
        assert self.trump is not None
        winning = last.plays[(last.winner - last.leader) % self.players]
        rainbow = self.rules.rainbow_min
        if is_rainbow(last.plays[0], self.trump, rainbow):
            multiplier = rainbow_multiplier(last.plays[0], self.trump, rainbow)
            return multiplier, multiplier * points(self.buried)
        multiplier = last_trick_multiplier(
            last.plays[0], winning, self.trump, self.rules.kitty_multiplier, self.decks
        )
        return multiplier, multiplier * points(self.buried)

    def _played_result(self) -> HandResult:
        assert self.dealer is not None
        multiplier, bonus = self._kitty_bonus()
        x = max(0, self.attacker_points + bonus + self.penalty_points)
        side, gained = level_change(x, self.decks, self.rules.score_bands)
        if self.rules.is_friends:
            return self._friends_result(x, side, gained, multiplier, bonus)
        dealer_team = team_of(self.dealer)
        winning_team = dealer_team if side == DEFENDERS else 1 - dealer_team
        levels, wrapped = self._levels_at_result()
        raised = self._raise_level(levels, wrapped, winning_team, gained, side)
        passed = winning_team if raised else None
        over = passed is not None and self.rules.past_ace == "match_end"
        winning_seats = tuple(range(winning_team, self.players, 2))
        next_dealer = friends_next_dealer(self.dealer, self.players, winning_seats)
        return self._result(
            outcome=PLAYED,
            kitty_points=points(self.buried),
            winner=side,
            winning_team=winning_team,
            winning_seats=winning_seats,
            levels_gained=gained,
            attacker_points=x,
            kitty_multiplier=multiplier,
            kitty_bonus=bonus,
            levels_after=tuple(levels),
            wrapped_after=tuple(wrapped),
            passed_ace=passed,
            match_over=over,
            match_winner=passed if over else None,
            next_dealer=None if over else next_dealer,
        )

    def _friends_result(
        self, x: int, side: str, gained: int, multiplier: int, bonus: int
    ) -> HandResult:
        """RULES-SPEC.md §9.3.5–§3.7: the final sides, per-player levels, the small-side bonus
        and the next dealer (the first winner round from the dealer)."""
        assert self.dealer is not None
        defenders_won = side == DEFENDERS
        winners = self.defenders if defenders_won else self.attackers
        assert winners is not None
        rules = self.rules
        extra = small_side_bonus_levels(
            len(self.side), rules.friends, defenders_won, rules.small_side_bonus
        )
        levels, wrapped = self._levels_at_result()
        passed: list[int] = []
        for seat in winners:
            if self._raise_level(levels, wrapped, seat, gained + extra, side):
                passed.append(seat)
        over = bool(passed) and rules.past_ace == "match_end"
        first_passed = passed[0] if passed else None
        return self._result(
            outcome=PLAYED,
            kitty_points=points(self.buried),
            winner=side,
            winning_team=None,
            winning_seats=tuple(sorted(winners)),
            levels_gained=gained,
            attacker_points=x,
            kitty_multiplier=multiplier,
            kitty_bonus=bonus,
            levels_after=tuple(levels),
            wrapped_after=tuple(wrapped),
            passed_ace=first_passed,
            match_over=over,
            match_winner=first_passed if over else None,
            next_dealer=None if over else friends_next_dealer(self.dealer, self.players, winners),
            small_side_bonus=extra,
        )

    def _levels_at_result(self) -> tuple[list[str], list[bool]]:
        """The levels the hand's gains start from: those at the start, with the defending side
        back at 2 when a single J takes the last trick under ``jack_rule`` (RULES-SPEC.md
        §10.7)."""
        levels = list(self.levels)
        if self._jack_takes_last_trick():
            lowest = self.rules.deck_min_rank  # RULES-SPEC.md §10.12: the lowest level
            for index in {self._level_index(seat) for seat in self.side}:
                levels[index] = lowest
        return levels, list(self.wrapped)

    def _jack_takes_last_trick(self) -> bool:
        """RULES-SPEC.md §10.7 ``single_jack``: at level J, an attacker wins the last trick with
        one card, a J."""
        if self.rules.jack_rule == "off" or self.level != JACK:
            return False
        last = self.tricks[-1]
        winning = last.plays[(last.winner - last.leader) % self.players]
        return self.is_attacker(last.winner) and len(winning) == 1 and Card(winning[0]).rank == JACK

    def _raise_level(
        self, levels: list[str], wrapped: list[bool], index: int, by: int, side: str
    ) -> bool:
        """RULES-SPEC.md §5.7, §10.5, §10.6 on ``levels[index]``: up ``by`` levels, past the
        levels ``advancement`` gates only when ``side`` is the defenders'; True when it passed
        the top level (then wrapped round or held at the top by ``past_ace``)."""
        rules = self.rules
        moved = advance(
            levels[index],
            by,
            top_level=rules.top_level,
            advancement=rules.advancement,
            wrap=rules.past_ace == "wrap",
            defended=side == DEFENDERS,
            hand_level=self.level,
            min_rank=rules.deck_min_rank,
        )
        levels[index] = moved.level
        if moved.passed_top and rules.past_ace == "wrap":
            wrapped[index] = True
        return moved.passed_top

    def _escape_result(self) -> HandResult:
        """RULES-SPEC.md §7: the hand stops, no level changes, the match ends."""
        return self._result(
            outcome=ESCAPE,
            winner=None,
            winning_team=None,
            winning_seats=None,
            levels_gained=0,
            attacker_points=max(0, self.attacker_points + self.penalty_points),
            kitty_multiplier=0,
            kitty_bonus=0,
            kitty_points=0,  # the kitty stays hidden: not even its points (D19)
            levels_after=self.levels,
            wrapped_after=self.wrapped,
            passed_ace=None,
            match_over=True,
            match_winner=None,
            next_dealer=None,
        )

    def _result(self, **outcome: Any) -> HandResult:
        highest = highest_level(self.levels)
        return HandResult(
            dealer=self.dealer,
            defenders=self.defenders,
            attackers=self.attackers,
            level=self.level,
            trump_suit=None if self.trump is None else self.trump.suit,
            levels_at_start=self.levels,
            wrapped_at_start=self.wrapped,
            highest_level_at_start=highest,
            # RULES-SPEC.md §10.5: settlement reads NT as A.
            ratio_level="A" if any(self.wrapped) or highest == NT else highest,
            trick_points=self.attacker_points,
            defender_points=self.defender_points,
            penalty_points=self.penalty_points,
            failed_throws=tuple(self.failed_throws),
            escaper=self.escaper,
            tricks=len(self.tricks),
            redeals=self.deal_number,
            flipped=tuple(self.flipped),
            players=self.players,
            decks=self.decks,
            mode=self.rules.mode,
            seat_points=tuple(self.seat_points),
            calls=tuple(self.calls),
            **outcome,
        )

    # Views and legal actions are functions of views.py (``view_for(state, seat)`` …), records
    # and replay of record.py: both read a hand, and the hand imports neither.

    def __repr__(self) -> str:
        return (
            f"<HandState {self.rules.name} seed={self.seed} {self.phase} "
            f"dealer={self.dealer} actions={len(self.actions)}>"
        )


_CARD_POINTS: tuple[int, ...] = tuple(card_points(c) for c in range(54))


@lru_cache(maxsize=4096)
def _sides_in_order(
    dealer: int, players: int, side: frozenset[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(defenders, attackers), each from the dealer round the table (read for every view)."""
    order = [(dealer + i) % players for i in range(players)]
    return tuple(s for s in order if s in side), tuple(s for s in order if s not in side)


def _calls_of(action: Action) -> list[FriendCall]:
    return [FriendCall(Card(c), n) for c, n in zip(action.cards, action.ordinals, strict=True)]


def new_hand(
    rules: RuleSet,
    seed: int,
    *,
    levels: Sequence[str] | None = None,
    dealer: int | None = None,
    wrapped: Sequence[bool] | None = None,
    decks: Sequence[Sequence[int]] | None = None,
) -> HandState:
    """A hand ready for its first ``draw``.

    ``levels`` and ``wrapped`` hold one entry per team (tractor mode: 2) or per seat (找朋友:
    ``rules.players``); by default everyone is at 2, unwrapped. ``dealer`` None means a match's
    first hand: the deal starts at seat 0 and bidding picks the dealer (RULES-SPEC.md §5.2), so all
    must hold the same level. ``decks`` (tests, analysis) replaces the seeded shuffles:
    ``decks[k]`` is the deck of deal ``k`` (0 first, 1 after a redeal …), in the order of
    ``deal.py``; deals past the list are shuffled from the seed.
    """
    count = level_slots(rules)
    levels = tuple(levels) if levels is not None else (rules.deck_min_rank,) * count
    wrapped = tuple(wrapped) if wrapped is not None else (False,) * count
    _check_setup(levels, dealer, wrapped, rules)
    state = HandState.__new__(HandState)
    state._setup(rules, seed, levels, dealer, wrapped, decks)
    return state


def level_slots(rules: RuleSet) -> int:
    """How many levels a hand keeps: one per team, or one per player in 找朋友."""
    return rules.players if rules.is_friends else 2


def _check_setup(
    levels: tuple[str, ...], dealer: int | None, wrapped: tuple[bool, ...], rules: RuleSet
) -> None:
    count = level_slots(rules)
    ladder = level_ladder(rules.top_level, rules.deck_min_rank)
    if len(levels) != count or any(
        not isinstance(level, str) or level not in ladder for level in levels
    ):
        raise InvalidSetupError(f"levels {levels!r} are not {count} of {' '.join(ladder)}")
    if len(wrapped) != count or any(type(flag) is not bool for flag in wrapped):
        raise InvalidSetupError(f"wrapped {wrapped!r} is not {count} flags")
    if dealer is not None and (type(dealer) is not int or not 0 <= dealer < rules.players):
        raise InvalidSetupError(f"dealer {dealer!r} is not a seat 0..{rules.players - 1} or None")
    if dealer is None and rules.level_source == "team" and len(set(levels)) != 1:
        raise InvalidSetupError("a first hand (no dealer yet) needs everyone at one level")
