"""Random legal play, for self-play, tests and load: bids, burying, leads (throws included),
follows, and rare escapes. Every choice comes from the ``random.Random`` passed in.

Follows are built directly from the obligations (RULES-SPEC.md §4 Following), not by trying
candidates: singles and pairs here, longer leads by part 1's ``legal_follow``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random

from shengji.engine.actions import (
    CLOSE_ACTION,
    DRAW_ACTION,
    PLAY,
    Action,
    bid,
    bury,
    call,
    leave,
    play,
)
from shengji.engine.bidding import legal_bids
from shengji.engine.bombs import BOMB_SIZE, OFF, bomb_allowed
from shengji.engine.cards import RANKS, SMALL_JOKER
from shengji.engine.follow import legal_follow
from shengji.engine.friends import friend_call_error
from shengji.engine.hand import BIDDING, BURYING, DEALING, PLAYING, HandState
from shengji.engine.patterns import pair_ids
from shengji.engine.rainbow import is_rainbow, rainbow_legal_follow
from shengji.engine.trump import Trump
from shengji.engine.views import lead_choices


@dataclass(frozen=True, slots=True)
class RandomPolicy:
    """How often the random player does things.

    ``bid_rate``: a seat bids when it draws a level card or joker and can bid; ``silent_rate``:
    nobody bids in a hand's first deal (to reach the ``no_bid`` options); ``throw_rate`` and
    ``structure_rate``: a lead is a throw, or a pair or tractor; ``last_lead_rate``: a leader
    whose cards are all of one suit group leads them all at once (multi-card last tricks, for
    the kitty multipliers); ``escape_rate``: a hand has a ``leave`` at a random moment;
    ``rainbow_rate``: a leader holding a rainbow leads it (``rainbow_min``, RULES-SPEC.md
    §10.17); ``bomb_rate``: under ``bombs`` (§10.16) a leader leads four cards when it can
    (a quad, two pairs in a row …) and a follower allowed a bomb plays one.
    """

    bid_rate: float = 0.3
    silent_rate: float = 0.05
    throw_rate: float = 0.1
    structure_rate: float = 0.3
    last_lead_rate: float = 0.5
    escape_rate: float = 0.0
    rainbow_rate: float = 0.5
    bomb_rate: float = 0.5


def random_lead(
    hand: Sequence[int], trump: Trump, rng: Random, policy: RandomPolicy
) -> tuple[int, ...]:
    """A random lead: usually a single, sometimes a pair or tractor, sometimes a throw."""
    if len(hand) > 1 and rng.random() < policy.last_lead_rate:
        group = trump.groups[hand[0]]
        if all(trump.groups[c] == group for c in hand):
            return tuple(hand)
    roll = rng.random()
    if roll < policy.throw_rate:
        return _random_throw(hand, trump, rng)
    if roll < policy.throw_rate + policy.structure_rate:
        choices = [c for c in lead_choices(list(hand), trump) if len(c) > 1]
        if choices:
            return rng.choice(choices)
    return (hand[int(rng.random() * len(hand))],)


def _random_throw(hand: Sequence[int], trump: Trump, rng: Random) -> tuple[int, ...]:
    groups = trump.groups
    group = groups[hand[rng.randrange(len(hand))]]
    suit = [c for c in hand if groups[c] == group]
    size = rng.randint(1, len(suit))
    if rng.random() < 0.5:
        return tuple(rng.sample(suit, size))
    orders = trump.orders
    return tuple(sorted(suit, key=lambda c: -orders[c])[:size])


def random_follow(
    hand: Sequence[int],
    lead: Sequence[int],
    trump: Trump,
    rng: Random,
    draw_policy: str = "no_protections",
) -> tuple[int, ...]:
    """A random legal follow of ``lead`` from ``hand``."""
    size = len(lead)
    if size > 2:
        return tuple(legal_follow(hand, lead, trump, rng, draw_policy=draw_policy))
    group = trump.groups[lead[0]]
    # bytes.translate deletes every card outside the led group (part 1's keep_group tables).
    suited = bytes(hand).translate(None, trump.keep_group[group])
    if len(suited) < size:
        others = [c for c in hand if trump.groups[c] != group]
        return (*suited, *rng.sample(others, size - len(suited)))
    if size == 1:
        return (suited[int(rng.random() * len(suited))],)
    if lead[0] == lead[1]:
        pairs = pair_ids(suited)
        if pairs:
            pair = pairs[int(rng.random() * len(pairs))]
            return pair, pair
    return tuple(rng.sample(list(suited), 2))


def random_bury(hand: Sequence[int], rng: Random, count: int = 8) -> list[int]:
    return rng.sample(list(hand), count)


def random_calls(state: HandState, rng: Random) -> list[tuple[int, int]]:
    """Random legal friend calls ``(card, ordinal)`` for the dealer (RULES-SPEC.md §9.3.3)."""
    trump = state.trump
    assert trump is not None
    rules = state.rules
    decks = state.decks
    chosen: list[tuple[int, int]] = []
    while len(chosen) < rules.friends:
        card, ordinal = rng.randrange(54), rng.randint(1, decks)
        if (card, ordinal) in chosen:
            continue
        error = friend_call_error(
            card, ordinal, trump, decks, rules.friend_cards, copies=state.copies
        )
        if error is None:
            chosen.append((card, ordinal))
    return chosen


def _random_bury_step(state: HandState, rng: Random) -> None:
    burier = state.burier
    assert burier is not None
    if state.rules.is_friends and burier == state.dealer:
        state.apply(call(burier, random_calls(state, rng)))
    state.apply(bury(burier, random_bury(state.hands[burier], rng, state.kitty_size)))


def _is_bid_card(card: int, level_rank: int) -> bool:
    return card >= SMALL_JOKER or card % 13 == level_rank


def _maybe_bid(state: HandState, seat: int, rng: Random, rate: float) -> None:
    if rng.random() >= rate:
        return
    showings = legal_bids(
        state.rules.bidding,
        state.level,
        state.standing_bid,
        seat,
        state.hands[seat],
        state.decks,
        state.rules.bid_options,
        state.bids,
    )
    if showings:
        state.apply(bid(seat, rng.choice(showings)))


def _deal_and_bid(state: HandState, rng: Random, policy: RandomPolicy) -> None:
    """Draw every card; a seat that just drew a level card or joker may bid. Then a last
    chance for every seat, and close (after a redeal every seat bids when it can)."""
    level_rank = RANKS.index(state.level) if state.level in RANKS else -1  # NT: no level cards
    rate = policy.bid_rate if state.deal_number == 0 else 1.0
    if state.deal_number == 0 and rng.random() < policy.silent_rate:
        rate = 0.0
    players = state.players
    while state.phase == DEALING:
        seat = (state.start_seat + state.drawn) % players
        state.apply(DRAW_ACTION)
        if _is_bid_card(state.hands[seat][-1], level_rank):
            _maybe_bid(state, seat, rng, rate)
    for seat in rng.sample(range(players), players):
        _maybe_bid(state, seat, rng, rate / 2)
    state.apply(CLOSE_ACTION)


def play_random(
    state: HandState,
    rng: Random,
    policy: RandomPolicy | None = None,
    at_first_lead: Callable[[HandState], None] | None = None,
    at_trick: Callable[[HandState], None] | None = None,
) -> HandState:
    """Play the hand to its end with random legal actions (from any phase); ``at_first_lead``
    is called once, when the kitty is buried and nobody has led yet, and ``at_trick`` after
    every completed trick but the last (for checks)."""
    policy = policy or RandomPolicy()
    escape_at = -1
    if policy.escape_rate and rng.random() < policy.escape_rate:
        escape_at = rng.randrange(180)
    while state.result is None:
        if len(state.actions) >= escape_at >= 0:
            state.apply(leave(rng.randrange(state.players)))
            break
        phase = state.phase
        if phase == PLAYING:
            tricks = len(state.tricks)
            _random_play_step(state, rng, policy)
            if at_trick is not None and len(state.tricks) > tricks and state.phase == PLAYING:
                at_trick(state)
        elif phase in (DEALING, BIDDING):
            _deal_and_bid(state, rng, policy)
        elif phase == BURYING:
            _random_bury_step(state, rng)
            if at_first_lead is not None and state.phase == PLAYING:
                at_first_lead(state)
    return state


def _random_play_step(state: HandState, rng: Random, policy: RandomPolicy) -> None:
    seat = state.turn
    if not state.tricks and state.calls_missing:  # RULES-SPEC.md §10.24
        state.apply(call(seat, random_calls(state, rng)))
        return
    state.apply(Action(PLAY, seat, random_play_for(state, seat, rng, policy)))


def random_play_for(
    state: HandState, seat: int, rng: Random, policy: RandomPolicy
) -> tuple[int, ...]:
    """A random legal play of ``seat``, whose turn it is (a lead or a follow)."""
    trump = state.trump
    assert trump is not None
    hand = state.hands[seat]
    lead = state.lead
    rules = state.rules
    if lead is None:
        if rules.rainbow_min and rng.random() < policy.rainbow_rate:
            rainbows = rainbow_leads(hand, trump, rules.rainbow_min)
            if rainbows:
                return rng.choice(rainbows)
        if rules.bombs != OFF and rng.random() < policy.bomb_rate:
            fours = [c for c in lead_choices(list(hand), trump) if len(c) == BOMB_SIZE]
            if fours:
                return rng.choice(fours)
            groups = trump.groups
            group = groups[hand[rng.randrange(len(hand))]]
            suit = [c for c in hand if groups[c] == group]
            if len(suit) >= BOMB_SIZE:
                return tuple(rng.sample(suit, BOMB_SIZE))  # a throw, which may fail
        return random_lead(hand, trump, rng, policy)
    if rules.rainbow_min and is_rainbow(lead, trump, rules.rainbow_min):
        return tuple(rainbow_legal_follow(hand, lead, trump, rules.rainbow_min))
    if rules.bombs != OFF and len(lead) == BOMB_SIZE and rng.random() < policy.bomb_rate:
        bombs = [b for b in quads(hand) if bomb_allowed(hand, lead, b, trump, rules.bombs)]
        if bombs:
            return rng.choice(bombs)
    return random_follow(hand, lead, trump, rng, rules.draw_policy)


def quads(hand: Sequence[int]) -> list[tuple[int, ...]]:
    """Every bomb the hand holds: four copies of one card (RULES-SPEC.md §10.16)."""
    counts = Counter(hand)
    return [(c,) * BOMB_SIZE for c in sorted(counts) if counts[c] >= BOMB_SIZE]


def rainbow_leads(hand: Sequence[int], trump: Trump, minimum: int) -> list[tuple[int, ...]]:
    """Every rank's cards the hand holds that make a rainbow lead (RULES-SPEC.md §10.17):
    all of the rank's non-joker cards, when they are enough and span four suit groups."""
    by_rank: dict[int, list[int]] = {}
    for c in hand:
        if c < SMALL_JOKER:
            by_rank.setdefault(c % 13, []).append(c)
    found = [tuple(sorted(cards)) for _, cards in sorted(by_rank.items())]
    return [cards for cards in found if is_rainbow(cards, trump, minimum)]


def random_action(state: HandState, rng: Random) -> Action | None:
    """One random legal next action (server actions included), or None when finished."""
    if state.result is not None:
        return None
    phase = state.phase
    if phase == DEALING:
        return DRAW_ACTION
    if phase == BIDDING:
        return CLOSE_ACTION
    if phase == BURYING:
        burier = state.burier
        assert burier is not None
        if state.rules.is_friends and not state.calls:
            return call(burier, random_calls(state, rng))
        return bury(burier, random_bury(state.hands[burier], rng, state.kitty_size))
    if state.calls_missing:  # RULES-SPEC.md §10.24
        return call(state.turn, random_calls(state, rng))
    assert phase == PLAYING
    return play(state.turn, random_play_for(state, state.turn, rng, RandomPolicy()))
