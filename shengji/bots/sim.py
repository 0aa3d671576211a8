"""Determinization and fast playouts for the search bot.

``sample_world`` deals the cards a seat cannot see to the other seats (and to the kitty when the
seat is not the dealer) consistently with everything public: how many cards each seat holds,
the groups each has shown void in, cards certainly in a hand (bid cards not played, the
taken-back part of a forced throw), and cards certainly with the dealer or in the kitty (the
dealer's bid cards, flipped kitty cards). It reads the seat's ``Knowledge`` only.

``SimHand`` plays a sampled world to its end much faster than ``HandState``: no action texts,
no checks (the basic policy only makes legal plays; throws still go through the engine's throw
check against the sampled hands). Every simulated seat decides with the basic policy from
its own ``Knowledge`` (its own sampled hand and the public memory), never from the other
sampled hands. A playout may stop after a number of tricks (the search does so at tables of
more than four seats) and estimate the rest (``SimHand.estimated_points``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random

from shengji.bots.friendship import Call, allies_of
from shengji.bots.knowledge import FRIENDS, Knowledge
from shengji.bots.memory import Memory
from shengji.engine.lead import lead_info
from shengji.engine.rainbow import is_rainbow
from shengji.engine.rules import RuleSet
from shengji.engine.scoring import ScoreBands, card_points, level_change
from shengji.engine.shapes import Split
from shengji.engine.throw import REJECTED, STANDS, throw_outcome
from shengji.engine.trick import trick_winner
from shengji.engine.trump import TRUMP, Trump

POINTS = tuple(card_points(c) for c in range(54))
KITTY = 4
"""Index of the kitty among the holders of a classic sampled world (seats 0..3); at a table of
``players`` seats the kitty is holder ``players``."""
SAMPLE_TRIES = 30

Policy = Callable[[Knowledge], tuple[int, ...]]


@dataclass(slots=True)
class World:
    """A sampled deal of the unseen cards: ``hands[s]`` for every seat (the deciding seat's
    own hand included) and the buried ``kitty``."""

    hands: list[list[int]]
    kitty: list[int]


def sample_world(k: Knowledge, rng: Random) -> World | None:
    """One deal of the unseen cards consistent with the public facts, or None when none was
    found (the voids are then dropped before giving up)."""
    for attempt in range(SAMPLE_TRIES):
        world = _try_sample(k, rng, respect_voids=attempt < SAMPLE_TRIES - 1)
        if world is not None:
            return world
    return None


def _try_sample(k: Knowledge, rng: Random, *, respect_voids: bool) -> World | None:
    seat = k.seat
    players = k.players
    kitty_at = players
    groups = k.trump.groups
    unseen = k.unseen()
    pool_counts = list(unseen)
    holders: list[list[int]] = [[] for _ in range(players + 1)]
    capacity = [0] * (players + 1)
    for s in range(players):
        if s != seat:
            capacity[s] = k.card_counts[s]
    if k.kitty is None:
        capacity[kitty_at] = k.kitty_size
    memory = k.memory
    # Certain cards first.
    for s in range(players):
        if s == seat:
            continue
        known = memory.known[s]
        for c in range(54):
            take = min(known[c], pool_counts[c], capacity[s] - len(holders[s]))
            for _ in range(take):
                holders[s].append(c)
                pool_counts[c] -= 1
    if k.dealer != seat:
        dealer = k.dealer
        for c in range(54):
            for _ in range(min(memory.dealer_or_kitty[c], pool_counts[c])):
                room_d = capacity[dealer] - len(holders[dealer])
                room_k = capacity[kitty_at] - len(holders[kitty_at])
                if room_d + room_k <= 0:
                    break
                weight = room_k * kitty_bias(k.trump)[c]
                target = dealer if rng.random() * (room_d + weight) < room_d else kitty_at
                holders[target].append(c)
                pool_counts[c] -= 1
    pool = [c for c in range(54) for _ in range(pool_counts[c])]
    room = sum(capacity) - sum(len(h) for h in holders)
    if len(pool) < room:
        return None
    rng.shuffle(pool)
    if len(pool) > room:
        # The memory missed some plays (no history): drop random extra cards.
        pool = pool[:room]
    voids = memory.voids
    bias = kitty_bias(k.trump)

    def eligible(c: int) -> list[int]:
        bit = 1 << groups[c]
        out = [kitty_at] if capacity[kitty_at] else []
        for s in range(players):
            if s != seat and capacity[s] and (not respect_voids or not voids[s] & bit):
                out.append(s)
        return out

    pool.sort(key=lambda c: len(eligible(c)))
    for c in pool:
        targets = [t for t in eligible(c) if len(holders[t]) < capacity[t]]
        if not targets:
            return None
        weights = [float(capacity[t] - len(holders[t])) for t in targets]
        if targets[0] == kitty_at:
            weights[0] *= bias[c]
        holders[_weighted(targets, weights, rng)].append(c)
    hands = [list(k.hand) if s == seat else holders[s] for s in range(players)]
    kitty = list(k.kitty) if k.kitty is not None else holders[kitty_at]
    return World(hands, kitty)


_BIASES: dict[Trump, tuple[float, ...]] = {}


def kitty_bias(trump: Trump) -> tuple[float, ...]:
    """How much likelier than a random card each card is to have been buried: the dealer keeps
    trumps, point cards and high cards (the basic bot's burying, and common play)."""
    found = _BIASES.get(trump)
    if found is None:
        found = tuple(_bias(c, trump) for c in range(54))
        _BIASES[trump] = found
    return found


def _bias(card: int, trump: Trump) -> float:
    if trump.groups[card] == TRUMP:
        return 0.05
    if POINTS[card]:
        return 0.3
    return 0.4 if trump.orders[card] >= 10 else 1.5


def _weighted(targets: Sequence[int], weights: Sequence[float], rng: Random) -> int:
    pick = rng.random() * sum(weights)
    for target, weight in zip(targets, weights, strict=True):
        pick -= weight
        if pick < 0:
            return target
    return targets[-1]


class SimHand:
    """A hand in the playing phase on a sampled world, played without checks."""

    __slots__ = (
        "attacker_points",
        "calls",
        "copies",
        "dealer",
        "decks",
        "friends",
        "hands",
        "kitty",
        "kitty_size",
        "leader",
        "memory",
        "mode",
        "players",
        "plays",
        "rules",
        "scored_side",
        "seat_points",
        "side",
        "tricks_played",
        "trump",
    )

    def __init__(
        self,
        k: Knowledge,
        world: World,
    ) -> None:
        self.trump: Trump = k.trump
        self.rules: RuleSet = k.rules
        self.dealer = k.dealer
        self.hands = [list(h) for h in world.hands]
        self.kitty = list(world.kitty)
        self.leader = k.leader
        self.plays: list[tuple[int, ...]] = list(k.plays)
        self.memory: Memory = k.memory.copy()
        self.attacker_points = k.attacker_points
        self.tricks_played = k.tricks_played
        self.players = k.players
        self.decks = k.decks
        self.mode = k.mode
        self.kitty_size = k.kitty_size
        self.copies = k.copies
        self.friends = k.mode == FRIENDS
        self.side = k.side or frozenset((k.dealer,))
        self.calls: list[Call] = list(k.calls or ())
        self.seat_points = list(k.seat_points or [0] * k.players)
        self.scored_side = self.side
        if self.friends:
            # Penalties apart from the points the attackers known now have taken.
            self.attacker_points = k.attacker_points - sum(
                n for s, n in enumerate(self.seat_points) if s not in self.side
            )

    def knowledge(self, seat: int) -> Knowledge:
        """What ``seat`` knows in this world: its hand and the public memory."""
        k = Knowledge(
            seat=seat,
            trump=self.trump,
            rules=self.rules,
            dealer=self.dealer,
            hand=self.hands[seat],
            leader=self.leader,
            plays=self.plays,
            memory=self.memory,
            kitty=self.kitty if seat == self.dealer else None,
            card_counts=[len(h) for h in self.hands],
            attacker_points=self.attacker_points,
            tricks_played=self.tricks_played,
            players=self.players,
            decks=self.decks,
            mode=self.mode,
            kitty_size=self.kitty_size,
            side=self.side,
            calls=self.calls,
            seat_points=self.seat_points,
            copies=self.copies,
        )
        if self.friends:
            k.allies = allies_of(k)
        return k

    @property
    def to_act(self) -> int:
        return (self.leader + len(self.plays)) % self.players

    def is_attacker(self, seat: int) -> bool:
        if self.friends:
            return seat not in self.side
        return (seat - self.dealer) % 2 == 1

    def play(self, seat: int, cards: Sequence[int]) -> None:
        """Apply a play of the seat in turn (throws resolved against the sampled hands)."""
        trump = self.trump
        rainbow = self.rules.rainbow_min
        if (
            not self.plays
            and len(cards) > 1
            and not (rainbow and is_rainbow(cards, trump, rainbow))
            and lead_info(cards, trump).shape.is_throw
        ):
            others = [self.hands[s] for s in range(self.players) if s != seat]
            outcome = throw_outcome(
                cards,
                others,
                trump,
                failed_throw=self.rules.failed_throw,
                throw_penalty=self.rules.throw_penalty,
                forced_part=self.rules.forced_part,
                penalty_per=self.rules.throw_penalty_per,
            )
            if outcome.result != STANDS:
                penalty = -outcome.penalty if self.is_attacker(seat) else outcome.penalty
                self.attacker_points += penalty
                if outcome.result == REJECTED:
                    # A rejected throw would be led again; a playout leads its lowest part.
                    cards = _lowest_part(lead_info(cards, trump).split)
                else:
                    cards = tuple(outcome.played)
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        lead = self.plays[0] if self.plays else None
        self.memory.note_play(seat, cards, lead, trump)
        self.plays.append(tuple(cards))
        if len(self.plays) == self.players:
            self._finish_trick()

    def _finish_trick(self) -> None:
        plays = self.plays
        players = self.players
        rules = self.rules
        found = trick_winner(plays, self.trump, rules.throw_beat, rules.bombs, rules.rainbow_min)
        winner = (self.leader + found) % players
        if self.friends:
            self.memory.tricks.append(
                tuple(((self.leader + i) % players, cards) for i, cards in enumerate(plays))
            )
            self.seat_points[winner] += sum(POINTS[c] for p in plays for c in p)
            if any(call.open for call in self.calls):
                self._reveal()
        elif self.is_attacker(winner):
            self.attacker_points += sum(POINTS[c] for p in plays for c in p)
        self.tricks_played += 1
        self.leader = winner
        self.plays = []

    def _reveal(self) -> None:
        """RULES-SPEC.md §9.3.4, by the engine's ``reveal_friends``."""
        from shengji.engine.cards import Card
        from shengji.engine.friends import FriendCall, reveal_friends

        leader, players = self.leader, self.players
        plays = [((leader + i) % players, cards) for i, cards in enumerate(self.plays)]
        found = [FriendCall(Card(c.card), c.ordinal, c.seen, c.seat) for c in self.calls]
        policy = str(getattr(self.rules, "join_policy", "unrestricted"))
        calls, self.side = reveal_friends(found, self.side, plays, policy)
        self.calls = [Call(int(c.card), c.ordinal, c.seen, c.seat) for c in calls]

    @property
    def finished(self) -> bool:
        return not self.plays and not self.hands[self.leader]

    def playout(self, policy: Policy, tricks: int | None = None) -> int:
        """Play to the end with ``policy`` for every seat; the attackers' final points X.
        With ``tricks``, stop once that many tricks are complete (the current one counted)
        and return ``estimated_points()`` for the rest."""
        last: list[tuple[int, ...]] = []
        last_leader = last_winner = -1
        stop_at = None if tricks is None else self.tricks_played + tricks
        while self.plays or self.hands[self.leader]:
            if stop_at is not None and not self.plays and self.tricks_played >= stop_at:
                return self.estimated_points()
            seat = self.to_act
            cards = policy(self.knowledge(seat))
            if len(self.plays) == self.players - 1:
                last = [*self.plays, tuple(cards)]
                last_leader = self.leader
                self.play(seat, cards)
                last_winner = self.leader
            else:
                self.play(seat, cards)
        self.scored_side = self.side
        return self.final_points(last, last_leader, last_winner)

    def expected_side(self) -> frozenset[int]:
        """The dealer's side as it will likely end: the known side and, in 找朋友, every seat
        holding a copy of an open call's card in this world (it will most likely fill it)."""
        if not self.friends:
            return self.side
        open_cards = {call.card for call in self.calls if call.open}
        holders = {s for s, hand in enumerate(self.hands) if open_cards.intersection(hand)}
        return self.side | holders

    def estimated_points(self) -> int:
        """A cheap estimate of X at a trick's end, for a playout stopped early: the points
        taken so far (penalties included), plus the points still in the hands shared by each
        side's strength (``keep_value`` summed over its cards: trumps and high cards take
        tricks), plus the kitty at the single-card multiplier (2) shared by each side's trumps
        (the last trick goes to trumps). Seats of ``expected_side`` count as defenders."""
        from shengji.bots.basic import keep_value

        trump = self.trump
        side = self.expected_side()
        self.scored_side = side
        x = self.attacker_points
        if self.friends:
            x += sum(n for s, n in enumerate(self.seat_points) if s not in side)
        strength = [0.0, 0.0]
        trumps = [0, 0]
        remaining = 0
        for seat, hand in enumerate(self.hands):
            attacking = seat not in side if self.friends else self.is_attacker(seat)
            for c in hand:
                strength[attacking] += keep_value(c, trump)
                trumps[attacking] += trump.groups[c] == TRUMP
                remaining += POINTS[c]
        share = strength[1] / (strength[0] + strength[1]) if strength[0] + strength[1] else 0.5
        ruff = trumps[1] / (trumps[0] + trumps[1]) if trumps[0] + trumps[1] else share
        kitty = sum(POINTS[c] for c in self.kitty)
        return max(0, round(x + share * remaining + ruff * 2 * kitty))

    def final_points(self, last: list[tuple[int, ...]], leader: int, winner: int) -> int:
        """X of RULES-SPEC.md §5.6: trick points, penalties, and the kitty bonus when the attackers
        take the last trick (``last``, led by ``leader``, won by ``winner``)."""
        x = self.attacker_points
        if self.friends:
            x += sum(n for s, n in enumerate(self.seat_points) if s not in self.side)
        if last and self.is_attacker(winner):
            winning = last[(winner - leader) % self.players]
            from shengji.bots.basic import table_multiplier

            multiplier = table_multiplier(last[0], winning, self.trump, self.rules, self.decks)
            x += multiplier * sum(POINTS[c] for c in self.kitty)
        return max(0, x)


def _lowest_part(split: Split) -> tuple[int, ...]:
    """The lowest single, else the lowest pair, else the last (shortest, lowest) tractor."""
    if split.singles:
        return (split.singles[-1],)
    return tuple(split.pairs[-1] if split.pairs else split.tractors[-1])


def side_levels(x: int, defending: bool, decks: int = 2, bands: ScoreBands | None = None) -> int:
    """Levels gained by one side (negative when the other side goes up), by the table's level
    bands (RULES-SPEC.md §10.4) when it sets them."""
    if bands is not None:
        side, gained = level_change(x, decks, bands)
    else:
        side, gained = level_change(x) if decks == 2 else level_change(x, decks)  # type: ignore[call-arg,unused-ignore]
    defenders_up = gained if side == "defenders" else -gained
    return defenders_up if defending else -defenders_up
