"""Helpers for the bot tests: hands played by bots, and states at chosen decision points."""

from __future__ import annotations

from collections.abc import Iterator

from shengji.bots import BasicBot, play_hand
from shengji.bots.match import deal_hand
from shengji.bots.memory import public_history
from shengji.engine.hand import HandState
from shengji.engine.rules import RuleSet, preset
from shengji.engine.views import view_for

RANKED = preset("ranked")


def played_hand(index: int, rules: RuleSet = RANKED, seed: int = 11) -> HandState:
    """Deal ``index`` of a run, played to its end by basic bots."""
    state = deal_hand(rules, seed, index)
    play_hand(state, [BasicBot()] * state.players)
    return state


def states_at_plays(
    index: int, cuts: tuple[int, ...], rules: RuleSet = RANKED, seed: int = 11
) -> Iterator[tuple[HandState, list[str]]]:
    """The hand of ``played_hand`` just before its ``cut``-th play (1-based), for each cut,
    with the public history of the seat to act."""
    texts = [str(a) for a in played_hand(index, rules, seed).actions]
    plays = [i for i, text in enumerate(texts) if text.startswith("play")]
    for cut in cuts:
        if cut > len(plays):
            continue
        state = deal_hand(rules, seed, index)
        for text in texts[: plays[cut - 1]]:
            state.apply(text)
        seat = state.to_act
        assert seat is not None
        log = [t for t in texts[: plays[cut - 1]] if t != "draw"]
        yield state, public_history(log, view_for(state, seat))
