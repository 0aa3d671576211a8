"""The move a bot makes for a seat: on a timeout, after a disconnect, or in a bot's seat.

The bot sees only what the seat may see (RULES.md; issue 5): it is given the seat's view and the
public history, never the other hands.
"""

from __future__ import annotations

from games.engine import HandState, legal_actions


def bot_move(state: HandState, seat: int) -> str | None:
    """The action text the bot plays for ``seat`` now, or None when the seat has nothing to do."""
    choices = legal_actions(state, seat)
    if not choices or state.to_act != seat:
        return None
    return str(choices[0])


def bot_bid(state: HandState, seat: int) -> str | None:
    """A bid for ``seat`` during the deal, or None to pass for now."""
    return None
