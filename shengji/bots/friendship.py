"""Who plays with whom in 找朋友 (RULES-SPEC.md §9.3), as one seat can work it out.

Everything here reads a seat's ``Knowledge`` only: the calls as its view shows them (card,
ordinal, copies seen, the seat that filled each), the defending side known now, its own hand
and the public memory of the tricks. Nobody's hidden cards are read.

- A seat that holds enough copies of an open call's card to fill it (``needed`` copies: the
  ordinal minus the copies seen) is a *hidden friend*: it plays for the dealer's side from
  the start, as people do, and reveals itself when that helps (``follow_bonus``).
- Every other unrevealed seat is a defender with a probability (``defender_odds``): each open
  call that others can still fill is held by one of the unrevealed seats that have not shown a
  void in its suit group, shared out by evidence from the cards played: points fed to tricks
  the known side won (a friend feeds its dealer) raise a seat's weight; taking a trick from a
  known defender's winning play, with points in it, lowers it.
- ``allies_of`` turns that into the set of seats a bot plays with: the known side, itself if
  it is a hidden friend, and the unrevealed seats more likely than not on its side.
- The dealer's calls while burying (``choose_calls``): off-trump aces (else kings, else the
  highest legal cards) it does not hold, the ordinal one more than the copies it holds, in a
  suit where it keeps a card or two to lead towards the friend, legal under the table's
  ``friend_cards`` policy. A card it keeps a copy of is called only when no legal call of a
  card it does not keep is left (ENGINE-PART2-DECISIONS.md F13).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol

from shengji.bots.memory import Memory
from shengji.engine.cards import SMALL_JOKER, format_cards, parse_cards
from shengji.engine.friends import friend_call_error
from shengji.engine.rules import RuleSet
from shengji.engine.scoring import card_points
from shengji.engine.trick import trick_winner
from shengji.engine.trump import TRUMP, Trump


class Knowledge(Protocol):
    """What this module reads of a seat's ``shengji.bots.knowledge.Knowledge`` (a protocol, so
    that knowledge.py, which asks this module for the seat's allies, is not imported here)."""

    seat: int
    trump: Trump
    rules: RuleSet
    dealer: int
    hand: list[int]
    plays: list[tuple[int, ...]]
    memory: Memory
    kitty: list[int] | None
    players: int
    decks: int
    side: frozenset[int]
    calls: list[Call] | None
    friend_aware: bool

    def after_me(self) -> tuple[int, ...]: ...


POINTS = tuple(card_points(c) for c in range(54))
FEED_WEIGHT = 0.06
"""Evidence (log-odds) per point a seat gave to a trick the known side won."""
OVERTAKE_WEIGHT = 0.05
"""Evidence against, per point of a trick a seat took from a known defender's winning play."""
REVEAL_GAIN = 6.0
"""What revealing oneself is worth, in points, on a trick the side takes (the dealer then
feeds the friend and stops overtaking it); as much is lost revealing on a trick lost."""
OWN_CALL_COST = 12.0
"""What a defender loses by filling an open call itself (under ``unrestricted`` the call is
used up and the side stays smaller)."""
FIND_FRIEND_LEAD = 8.0
"""What a side member gains by leading low into the suit of an open call it does not hold
(the friend can take the trick with the called card)."""


@dataclass(frozen=True, slots=True)
class Call:
    """One friend call as a view shows it: ``seat`` is None while the call is open."""

    card: int
    ordinal: int
    seen: int
    seat: int | None

    @property
    def needed(self) -> int:
        """Copies still to be played before (and including) the one that fills the call."""
        return self.ordinal - self.seen

    @property
    def open(self) -> bool:
        return self.seat is None and self.seen < self.ordinal


_PARSED: dict[str, int] = {}


def _card(text: str) -> int:
    found = _PARSED.get(text)
    if found is None:
        found = int(parse_cards(text)[0])
        _PARSED[text] = found
    return found


def calls_of(raw: Sequence[Mapping[str, Any]] | None) -> list[Call]:
    """The view's calls (``None`` while hidden: no calls)."""
    if not raw:
        return []
    return [
        Call(
            _card(str(c["card"])),
            int(c["ordinal"]),
            int(c.get("seen") or 0),
            None if c.get("seat") is None else int(c["seat"]),
        )
        for c in raw
    ]


def _seen_now(call: Call, plays: Sequence[Sequence[int]]) -> int:
    """Copies of the call's card seen, the current trick's plays so far included (the trick
    is read for reveals only when complete, RULES-SPEC.md §9.3.4)."""
    return call.seen + sum(p.count(call.card) for p in plays)


def fillable(k: Knowledge) -> list[Call]:
    """Open calls this seat can fill by itself (it holds the copies still needed)."""
    hand = k.hand
    out = []
    for call in k.calls or ():
        if not call.open:
            continue
        needed = call.ordinal - _seen_now(call, k.plays)
        if needed >= 1 and hand.count(call.card) >= needed:
            out.append(call)
    return out


def hidden_friend(k: Knowledge) -> bool:
    """Whether this seat, not on the side yet, holds what fills an open call."""
    return k.seat not in _side(k) and bool(fillable(k))


def _side(k: Knowledge) -> frozenset[int]:
    return k.side or frozenset((k.dealer,))


# --- inference ------------------------------------------------------------------------------

_WINNERS: dict[tuple[Trump, tuple[tuple[int, ...], ...], str, str, int], int] = {}


def _winner_index(
    plays: tuple[tuple[int, ...], ...],
    trump: Trump,
    throw_beat: str = "key_unit",
    bombs: str = "off",
    rainbow_min: int = 0,
) -> int:
    key = (trump, plays, throw_beat, bombs, rainbow_min)
    found = _WINNERS.get(key)
    if found is None:
        if len(_WINNERS) > 50_000:
            _WINNERS.clear()
        found = trick_winner(list(plays), trump, throw_beat, bombs, rainbow_min)
        _WINNERS[key] = found
    return found


def evidence(k: Knowledge, unknown: Sequence[int]) -> dict[int, float]:
    """Log-odds evidence that each unrevealed seat is a defender, from the tricks played."""
    side = _side(k)
    found = dict.fromkeys(unknown, 0.0)
    trump = k.trump
    beat, bombs, rainbow = k.rules.throw_beat, k.rules.bombs, k.rules.rainbow_min
    for trick in k.memory.tricks:
        cards = tuple(tuple(c) for _, c in trick)
        index = _winner_index(cards, trump, beat, bombs, rainbow)
        winner = trick[index][0]
        if winner in side:
            for seat, played in trick:
                if seat in found and seat != winner:
                    found[seat] += FEED_WEIGHT * sum(POINTS[c] for c in played)
        elif winner in found and index > 1:
            before = _winner_index(cards[:index], trump, beat, bombs, rainbow)
            if trick[before][0] in side:
                points = sum(POINTS[c] for p in cards for c in p)
                found[winner] -= OVERTAKE_WEIGHT * points
    return found


def defender_odds(k: Knowledge) -> list[float]:
    """Chance that each seat ends on the dealer's side, as this seat can tell."""
    players = k.players
    side = _side(k)
    odds = [1.0 if s in side else 0.0 for s in range(players)]
    mine = {c.card for c in fillable(k)} if k.seat not in side else set()
    if mine:
        odds[k.seat] = 1.0
    unknown = [s for s in k.after_me() if s not in side]
    calls = [c for c in (k.calls or ()) if c.open and c.card not in mine]
    if not unknown or not calls:
        return odds
    weights = {s: math.exp(max(-6.0, min(6.0, e))) for s, e in evidence(k, unknown).items()}
    voids = k.memory.voids
    groups = k.trump.groups
    played = k.memory.played
    outside = [1.0] * players
    for call in calls:
        copies = k.decks - played[call.card] - k.hand.count(call.card)
        if k.kitty is not None:
            copies -= k.kitty.count(call.card)
        if copies < 1:
            continue
        bit = 1 << groups[call.card]
        holders = [s for s in unknown if not voids[s] & bit]
        total = sum(weights[s] for s in holders)
        for s in holders:
            outside[s] *= 1.0 - weights[s] / total
    for s in unknown:
        odds[s] = 1.0 - outside[s]
    return odds


def allies_of(k: Knowledge, *, infer: bool = True) -> frozenset[int]:
    """The seats this seat plays with, itself included (see the module doc). Without
    ``infer`` (the baseline): the known side, or everyone off it. A seat that is not
    ``friend_aware`` (the ablation) and not the dealer takes itself for an attacker: everyone
    off the known side, itself included."""
    side = _side(k)
    seat = k.seat
    everyone = frozenset(range(k.players))
    if _blind_friend(k):
        return everyone - (side - {seat})
    if not infer:
        return side if seat in side else everyone - side
    odds = defender_odds(k)
    if seat in side or odds[seat] >= 1.0:
        return side | {seat} | {s for s in everyone if odds[s] >= 0.5}
    return frozenset({seat} | {s for s in everyone - side if odds[s] < 0.5})


# --- playing --------------------------------------------------------------------------------


def _fills(k: Knowledge, play: Sequence[int]) -> bool:
    """Whether the play fills an open call (this seat's copy reaches the ordinal)."""
    for call in k.calls or ():
        copies = play.count(call.card)
        if call.open and copies and _seen_now(call, k.plays) + copies >= call.ordinal:
            return True
    return False


def _blind_friend(k: Knowledge) -> bool:
    """The ablation's seats (``make_bot("friendblind")``): all but the dealer play as attackers."""
    return not k.friend_aware and k.seat != k.dealer


def follow_bonus(k: Knowledge, play: Sequence[int], p_side: float) -> float:
    """Extra value of a follow in 找朋友: a hidden friend reveals itself when its side is
    likely to take the trick (``p_side``), not when the card would be lost; a defender does
    not fill its own side's call."""
    if _blind_friend(k) or not _fills(k, play):
        return 0.0
    if k.seat in _side(k):
        return -OWN_CALL_COST
    return REVEAL_GAIN * (2.0 * p_side - 1.0)


def lead_bonus(k: Knowledge, play: Sequence[int]) -> float:
    """Extra value of a lead in 找朋友: a side member leads low into the suit of an open call
    it does not hold; a hidden friend leading the called card reveals itself (worth half the
    gain: the lead may still be beaten)."""
    if _blind_friend(k):
        return 0.0
    if _fills(k, play):
        return -OWN_CALL_COST if k.seat in _side(k) else 0.5 * REVEAL_GAIN
    if k.seat not in _side(k) or len(play) != 1:
        return 0.0
    groups = k.trump.groups
    card = play[0]
    for call in k.calls or ():
        if (
            call.open
            and groups[card] == groups[call.card] != TRUMP
            and call.card not in k.hand
            and k.trump.orders[card] < k.trump.orders[call.card]
            and not POINTS[card]
        ):
            return FIND_FRIEND_LEAD
    return 0.0


# --- calling --------------------------------------------------------------------------------


def call_candidates(
    hand: Sequence[int],
    buried: Sequence[int],
    trump: Trump,
    decks: int,
    policy: str,
    copies: Sequence[int] | None = None,
) -> list[tuple[float, int, int]]:
    """Every legal call ``(score, card, ordinal)`` with the ordinal one more than the copies
    the dealer keeps, best first (see the module doc): every card the dealer keeps no copy of
    before any it keeps (F13); never a card the dealer holds or buried every copy of."""
    groups, orders = trump.groups, trump.orders
    length = [0] * 5
    for c in hand:
        length[groups[c]] += 1
    out: list[tuple[float, int, int]] = []
    for card in range(SMALL_JOKER):
        held = hand.count(card)
        ordinal = held + 1
        if ordinal > (decks if copies is None else copies[card]) - buried.count(card):
            continue
        if friend_call_error(card, ordinal, trump, decks, policy, copies=copies) is not None:
            continue
        group = groups[card]
        score = 3.0 * orders[card] - 6.0 * held
        if group == TRUMP:
            score -= 12.0
        elif 0 < length[group] <= 6:
            score += 4.0
        elif length[group] == 0:
            score -= 2.0
        score -= 0.5 * POINTS[card]
        out.append((score, card, ordinal))
    out.sort(key=lambda item: (item[2] > 1, -item[0], item[1]))
    return out


def choose_calls(
    hand: Sequence[int],
    buried: Sequence[int],
    trump: Trump,
    decks: int,
    count: int,
    policy: str,
    copies: Sequence[int] | None = None,
) -> list[tuple[int, int]]:
    """``count`` calls ``(card, ordinal)``: the best candidates, distinct cards first."""
    ranked = call_candidates(hand, buried, trump, decks, policy, copies)
    chosen: list[tuple[int, int]] = []
    for _, card, ordinal in ranked:
        if len(chosen) == count:
            break
        if all(card != c for c, _ in chosen):
            chosen.append((card, ordinal))
    for _, card, ordinal in ranked:
        # Too few distinct cards: later copies of the chosen ones.
        while len(chosen) < count and (card, ordinal) in chosen and ordinal < decks:
            ordinal += 1
            if (card, ordinal) not in chosen and friend_call_error(
                card, ordinal, trump, decks, policy, copies=copies
            ) is None:
                chosen.append((card, ordinal))
    return chosen


def random_calls(
    trump: Trump,
    decks: int,
    count: int,
    policy: str,
    rng: Random,
    copies: Sequence[int] | None = None,
) -> list[tuple[int, int]]:
    """``count`` distinct legal calls drawn at random (the baseline's)."""
    legal = [
        (card, ordinal)
        for card in range(SMALL_JOKER)
        for ordinal in range(1, decks + 1)
        if friend_call_error(card, ordinal, trump, decks, policy, copies=copies) is None
    ]
    return rng.sample(legal, min(count, len(legal)))


def call_text(seat: int, calls: Sequence[tuple[int, int]]) -> str:
    """The ``call`` action (docs/NOTATION.md): ``call 0 2AS 1KH``."""
    return f"call {seat} " + " ".join(f"{n}{format_cards([c])}" for c, n in calls)
