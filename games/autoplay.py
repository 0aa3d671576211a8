"""The move a bot makes for a seat: on a timeout, after a disconnect, or in a bot's seat.

The basic bot (shengji/bots, docs/BOTS.md) decides from the seat's view and the hand's public
history only, never from the other hands (``act_for_seat`` passes nothing else).
"""

from __future__ import annotations

import logging

from shengji.bots import act_for_seat
from shengji.engine import HandState, legal_actions

logger = logging.getLogger(__name__)


def bot_move(state: HandState, seat: int) -> str:
    """The action the bot plays for ``seat``, which must move now (burying or playing; in
    找朋友 a dealer without calls is given the calls first: ``bot_turn``)."""
    chosen = _ask_bot(state, seat)
    if chosen is not None and _accepted(state, seat, chosen):
        return chosen
    # The bots are always legal (tests/bots); should one ever err, the engine's own legal move
    # keeps the hand going rather than stalling the table.
    return str(legal_actions(state, seat)[0])


def bot_turn(state: HandState, seat: int) -> list[str]:
    """The bot's whole turn for ``seat``, applied to ``state``: its bury or play, and in
    找朋友 a dealer who has made no calls calls first (the bot's calls), then buries
    (RULES-SPEC.md §9.3.3: a bury is refused until the calls are made)."""
    texts: list[str] = []
    while state.to_act == seat and len(texts) < 2:
        text = bot_move(state, seat)
        state.apply(text, seat)
        texts.append(text)
        if not text.startswith("call "):
            break
    return texts


def bot_hint(state: HandState, seat: int) -> tuple[str, str]:
    """The basic bot's suggestion for ``seat`` now, as (kind, cards): its bid, bury or play
    chosen from the seat's own view and the public history (``act_for_seat``: never another
    hand), or ("none", "") when the seat has nothing to do now or the bot would not bid."""
    chosen = _ask_bot(state, seat)
    if chosen is None or not _accepted(state, seat, chosen):
        return "none", ""
    kind, _, rest = chosen.partition(" ")
    return kind, rest.partition(" ")[2]


def bot_bid(state: HandState, seat: int) -> str | None:
    """The bot's bid for ``seat`` during the deal, or None to wait."""
    chosen = _ask_bot(state, seat)
    if chosen is None or not chosen.startswith("bid ") or not _accepted(state, seat, chosen):
        return None
    return chosen


def _ask_bot(state: HandState, seat: int) -> str | None:
    try:
        return act_for_seat(state, seat, bot="basic")
    except Exception:  # a bot's failure must not stall the table: the fallback moves instead
        logger.exception("the bot failed for seat %s", seat)
        return None


def _accepted(state: HandState, seat: int, text: str) -> bool:
    try:
        state.check_action(seat, text)
    except ValueError:
        return False
    return True
