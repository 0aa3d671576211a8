"""Issue 34, finding 7d: under ``no_bid = redeal`` a table could redeal forever (the audit: 4
redeals in 80 s, ~22,000 logged actions an hour). After ``MAX_REDEALS`` redeals in one hand the
next no-bid is played as ``no_trump`` (docs/ENGINE-PART2-DECISIONS.md)."""

from __future__ import annotations

import pytest

from games.handstate import load_state
from games.models import Action
from shengji.engine.hand import MAX_REDEALS
from tests.games.helpers import advance, fresh, make_table, make_users, seat_all

pytestmark = pytest.mark.django_db
STEPS = 200  # far more deadline runs than a bounded hand needs


def test_regression_no_bid_redeal_can_redeal_forever() -> None:
    """Classic (seed 000) redeals when nobody bids in a match's first hand. Four players who
    never bid, and the deadline runs as it would: the hand reaches the bury after
    ``MAX_REDEALS`` redeals, with no trump suit (the level's cards alone are trumps)."""
    users = make_users()
    hand = seat_all(make_table(users[0], preset_name="seed000"), users)
    assert load_state(hand).rules.no_bid_first_hand == "redeal"
    for _ in range(STEPS):
        if load_state(fresh(hand)).phase not in ("dealing", "bidding"):
            break
        assert advance(hand)
    state = load_state(fresh(hand))
    assert state.phase == "burying"
    closes = Action.objects.filter(hand=hand, text="close").count()
    assert closes == MAX_REDEALS + 1
    assert state.deal_number == MAX_REDEALS
    assert state.trump is not None and state.trump.suit is None
    assert state.dealer == 0  # RULES-SPEC.md §5.2: no bid in the first hand, seat 0 deals
    draws = Action.objects.filter(hand=hand, text="draw").count()
    assert draws == 100 * (MAX_REDEALS + 1)
