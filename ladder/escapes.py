"""What an escape costs now and the house's fees in force: the settlement's own arithmetic
(``shengji.settlement``) read with the site's settings, for the table page's escape warning
(``games.selectors``) and for the ladder's selectors and services. Imports nothing of
``games``, so the table's reads may use it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings

from ladder.errors import settlement_refusals
from shengji.settlement import FeeSchedule, escaper_charge, outcome_from_record


def fee_schedule() -> FeeSchedule:
    """The house's fees in force (settings)."""
    return FeeSchedule(
        winner_fee=settings.LADDER_WINNER_FEE,
        table_fee=settings.LADDER_TABLE_FEE,
        service_percent=settings.LADDER_SERVICE_FEE_PERCENT,
        fixed_escape=settings.LADDER_FIXED_ESCAPE_PENALTY,
    )


def escape_cost_now(
    *,
    ruleset: Mapping[str, Any],
    stake: int,
    levels: Any,
    wrapped: Any = None,
    ranked: bool = False,
    practice: bool = False,
) -> int:
    """What leaving the hand in progress costs its escaper now, as the settlement will charge
    it: the hand's stored rules, the table's stake and rankedness and the levels held at the
    hand's start read by `outcome_from_record`, charged by `escaper_charge` (`settle_hand`),
    exactly as `ladder_settle_hand` reads and charges an escaped hand. 0 for a practice hand
    (a bot seated at its start: nothing moves). The table page's escape warning quotes this
    (docs/LADDER.md, "What an escape costs")."""
    if practice:
        return 0
    with settlement_refusals():
        outcome = outcome_from_record(
            status="escaped",
            result={},
            ruleset=ruleset,
            stake=stake,
            dealer=None,
            hand_levels=levels,
            hand_wrapped=wrapped,
            escaped_seats=[0],
            absent_seats=[],
            fees=fee_schedule(),
            ranked=ranked,
        )
        return escaper_charge(outcome)
