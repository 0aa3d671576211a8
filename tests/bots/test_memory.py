"""The memory rebuilt from the public history is true of the real hands: played cards, shown
voids, shown lack of pairs and cards known to be held (random bots throw, so forced and
rejected throws occur)."""

from __future__ import annotations

from collections import Counter

import pytest

from shengji.bots import RandomBot, play_hand, public_history, remember
from shengji.bots.match import deal_hand
from shengji.engine.hand import HandState
from shengji.engine.patterns import pair_ids
from shengji.engine.random_play import RandomPolicy
from shengji.engine.rules import preset
from shengji.engine.views import view_for


def random_states(name: str, hands: int) -> list[tuple[HandState, list[str]]]:
    """Every playing state of a few hands of throw-happy random bots, with the raw log."""
    rules = preset(name)
    out = []
    for index in range(hands):
        final = deal_hand(rules, 5, index)
        bots = [RandomBot(seat + 10 * index, RandomPolicy(throw_rate=0.4)) for seat in range(4)]
        play_hand(final, bots)
        state = deal_hand(rules, 5, index)
        texts = [str(a) for a in final.actions]
        for i, text in enumerate(texts):
            if state.phase == "playing":
                out.append((state.copy(), texts[:i]))
            state.apply(text)
    return out


def played_counts(state: HandState) -> Counter[int]:
    return Counter(c for t in [*state.tricks, state.trick] for p in t.plays for c in p)


@pytest.mark.parametrize("name", ["ranked", "seed004"])
def test_memory_is_true_of_the_real_hands(name: str) -> None:
    throws = 0
    for state, log in random_states(name, 3):
        throws += len(state.failed_throws)
        trump = state.trump
        assert trump is not None
        for seat in range(4):
            view = view_for(state, seat)
            memory = remember(view, public_history(log, view))
            assert memory.complete
            assert Counter({c: n for c, n in enumerate(memory.played) if n}) == played_counts(state)
            for other in range(4):
                hand = state.hands[other]
                groups = {trump.groups[c] for c in hand}
                for g in range(5):
                    if memory.voids[other] & (1 << g):
                        assert g not in groups
                    if memory.no_pairs[other] & (1 << g):
                        assert not pair_ids([c for c in hand if trump.groups[c] == g])
                for c, n in enumerate(memory.known[other]):
                    assert hand.count(c) >= n
    assert throws > 0


def test_failed_throws_are_read_from_the_view() -> None:
    forced = rejected = 0
    for name in ("ranked", "seed004"):
        for state, log in random_states(name, 4):
            for f in state.failed_throws:
                forced += f.result == "forced"
                rejected += f.result == "rejected"
            seat = (state.to_act or 0) if state.to_act is not None else 0
            view = view_for(state, seat)
            assert remember(view, public_history(log, view)).complete
    assert forced and rejected


def test_another_seats_rejected_throw_is_redacted() -> None:
    found = 0
    for state, log in random_states("seed004", 4):
        for f in state.failed_throws:
            if f.result != "rejected":
                continue
            viewer = (f.seat + 1) % 4
            view = view_for(state, viewer)
            history = public_history(log, view)
            own = public_history(log, view_for(state, f.seat))
            assert f"play {f.seat}" in history
            assert len(history) == len(own)
            found += 1
            break
    assert found


def test_without_history_memory_falls_back_to_the_view() -> None:
    for state, _ in random_states("ranked", 1)[10::15]:
        view = view_for(state, 0)
        memory = remember(view, None)
        assert memory.complete == (state.tricks == [])
        real = played_counts(state)
        assert all(memory.played[c] <= real[c] for c in range(54))


def test_a_history_that_does_not_match_the_view_is_not_trusted() -> None:
    state, log = random_states("ranked", 1)[30]
    view = view_for(state, 1)
    plays = [t for t in log if t.startswith("play")]
    memory = remember(view, plays[:-5])
    assert not memory.complete
