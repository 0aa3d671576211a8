"""Random legal play, for self-play, tests and load: bids, burying, leads (throws included),
follows, and rare escapes. Every choice comes from the ``random.Random`` passed in.

Follows are built directly from the obligations (RULES-SPEC.md §4 Following), not by trying
candidates: singles and pairs here, longer leads by part 1's ``legal_follow``.
"""

from __future__ import annotations

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
from shengji.engine.cards import RANKS, SMALL_JOKER
from shengji.engine.follow import legal_follow
from shengji.engine.friends import friend_call_error
from shengji.engine.hand import BIDDING, BURYING, DEALING, PLAYING, HandState
from shengji.engine.patterns import pair_ids
from shengji.engine.trump import Trump
from shengji.engine.views import lead_choices


@dataclass(frozen=True, slots=True)
class RandomPolicy:
    """How often the random player does things.

    ``bid_rate``: a seat bids when it draws a level card or joker and can bid; ``silent_rate``:
    nobody bids in a hand's first deal (to reach the ``no_bid`` options); ``throw_rate`` and
    ``structure_rate``: a lead is a throw, or a pair or tractor; ``last_lead_rate``: a leader
    whose cards are all of one suit group leads them all at once (multi-card last tricks, for
    the kitty multipliers); ``escape_rate``: a hand has a ``leave`` at a random moment.
    """

    bid_rate: float = 0.3
    silent_rate: float = 0.05
    throw_rate: float = 0.1
    structure_rate: float = 0.3
    last_lead_rate: float = 0.5
    escape_rate: float = 0.0


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
        if friend_call_error(card, ordinal, trump, decks, rules.friend_cards) is None:
            chosen.append((card, ordinal))
    return chosen


def _random_bury_step(state: HandState, rng: Random) -> None:
    dealer = state.dealer
    assert dealer is not None
    if state.rules.is_friends:
        state.apply(call(dealer, random_calls(state, rng)))
    state.apply(bury(dealer, random_bury(state.hands[dealer], rng, state.kitty_size)))


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
        decks=state.decks,
    )
    if showings:
        state.apply(bid(seat, rng.choice(showings)))


def _deal_and_bid(state: HandState, rng: Random, policy: RandomPolicy) -> None:
    """Draw every card; a seat that just drew a level card or joker may bid. Then a last
    chance for every seat, and close (after a redeal every seat bids when it can)."""
    level_rank = RANKS.index(state.level)
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
) -> HandState:
    """Play the hand to its end with random legal actions (from any phase); ``at_first_lead``
    is called once, when the kitty is buried and nobody has led yet (for checks)."""
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
            _random_play_step(state, rng, policy)
        elif phase in (DEALING, BIDDING):
            _deal_and_bid(state, rng, policy)
        elif phase == BURYING:
            _random_bury_step(state, rng)
            if at_first_lead is not None and state.phase == PLAYING:
                at_first_lead(state)
    return state


def _random_play_step(state: HandState, rng: Random, policy: RandomPolicy) -> None:
    seat = state.turn
    trump = state.trump
    assert trump is not None
    hand = state.hands[seat]
    lead = state.lead
    if lead is None:
        cards = random_lead(hand, trump, rng, policy)
    else:
        cards = random_follow(hand, lead, trump, rng, state.rules.draw_policy)
    state.apply(Action(PLAY, seat, cards))


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
        dealer = state.dealer
        assert dealer is not None
        if state.rules.is_friends and not state.calls:
            return call(dealer, random_calls(state, rng))
        return bury(dealer, random_bury(state.hands[dealer], rng, state.kitty_size))
    trump = state.trump
    assert trump is not None and phase == PLAYING
    hand = state.hands[state.turn]
    lead = state.lead
    if lead is None:
        return play(state.turn, random_lead(hand, trump, rng, RandomPolicy()))
    return play(state.turn, random_follow(hand, lead, trump, rng, state.rules.draw_policy))
