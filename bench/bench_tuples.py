"""Micro-benchmark of the tuple mechanics: µs per call of follow_error, legal_follow,
trick_winner and throw_check on random 3- and 4-deck inputs (and 2-deck for comparison).

Run: ``.venv/bin/python -m bench.bench_tuples`` (prints one line per shape and function).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial

from shengji.engine import RANKS, SUITS, Trump, throw_check, trick_winner
from shengji.engine.cards import CARD_IDS, Card, card
from shengji.engine.follow import follow_error, legal_follow
from shengji.engine.tuples import tuple_lead_choices


def _deal(rng: random.Random, players: int, decks: int) -> list[list[Card]]:
    deck = [card(c) for c in CARD_IDS for _ in range(decks)]
    rng.shuffle(deck)
    each = min(26, (len(deck) - 5) // players)
    return [deck[i * each : (i + 1) * each] for i in range(players)]


def _lead(hand: list[Card], trump: Trump, rng: random.Random) -> list[Card]:
    if rng.random() < 0.5:
        return [rng.choice(hand)]
    choices = [c for c in tuple_lead_choices(hand, trump) if len(c) > 1] or [(hand[0],)]
    return [card(c) for c in rng.choice(choices)]


def _time(label: str, calls: list[Callable[[], object]]) -> None:
    for call in calls[:20]:
        call()  # warm the per-Trump caches
    best = float("inf")
    for _ in range(5):  # the best of five rounds: the machine is shared
        start = time.perf_counter()
        for call in calls:
            call()
        best = min(best, time.perf_counter() - start)
    elapsed = best
    print(f"{label:<40} {elapsed / len(calls) * 1e6:8.1f} µs per call ({len(calls)} calls)")


def main() -> None:
    for players, decks in ((4, 2), (6, 3), (8, 4)):
        rng = random.Random(7)
        follows: list[Callable[[], object]] = []
        legals: list[Callable[[], object]] = []
        winners: list[Callable[[], object]] = []
        throws: list[Callable[[], object]] = []
        for _ in range(400):
            trump = Trump(rng.choice(RANKS), rng.choice([*SUITS, None]))
            hands = _deal(rng, players, decks)
            lead = _lead(hands[0], trump, rng)
            plays = [lead] + [legal_follow(h, lead, trump, rng) for h in hands[1:]]
            for hand, play in zip(hands[1:], plays[1:], strict=True):
                follows.append(partial(follow_error, hand, lead, play, trump))
                legals.append(partial(legal_follow, hand, lead, trump))
            winners.append(partial(trick_winner, plays, trump))
            throws.append(partial(throw_check, lead, hands[1:], trump))
        shape = f"{players}p/{decks}d"
        _time(f"{shape} follow_error", follows)
        _time(f"{shape} legal_follow", legals)
        _time(f"{shape} trick_winner ({players} plays)", winners)
        _time(f"{shape} throw_check ({players - 1} hands)", throws)


if __name__ == "__main__":
    main()
