"""Issue 34, finding 3 (the ladder's half): 托管 (autopilot) or absence never shields a rating
nor earns title points a player did not play for (docs/LADDER.md, "Seats the bot played").

The audit's way: a ranked table as quick match seats it, a player turns 托管 on as the hand
starts and the bot plays the rest of their seat; their side's ratings stayed frozen while the
opponents' moved, and title points went to the seat the bot played. Played here on real
PostgreSQL with one 托管 seat on each side, so that whichever side wins, one seat the bot
played is among the winners and one among the losers.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from games import services
from games.models import Hand, HandPlayer, Seat
from games.services.wrap_up import hand_settle
from ladder.models import LadderProfile, RatingChange
from ladder.services import ladder_points_adjust
from tests.games.helpers import make_users, ranked_table, ready_all
from tests.games.test_table_features import play_out_with_bots
from tests.ladder.helpers import make_hand

TITLE_START = 50  # every player holds some, so that a loss of title points shows


def profile(user: Any) -> LadderProfile:
    return LadderProfile.objects.get(user=user)


@pytest.mark.django_db
def test_finding3_autopilot_never_shields_a_rating_nor_earns_title_points(settings: Any) -> None:
    settings.SHENGJI_BOT_DELAY_MS = 0
    users = make_users(prefix="tp")
    for user in users:
        ladder_points_adjust(user=user, account="title", amount=TITLE_START, reason="t", by=None)
    table = ranked_table(users)
    hand = ready_all(table, users)
    # Seats 0 and 1 (one on each side) hand their seat to the bot as the hand starts.
    for user in users[:2]:
        services.seat_autopilot(table_id=table.pk, user=user, on=True)
    hand = play_out_with_bots(hand, users)
    assert hand.status == Hand.Status.FINISHED

    players = {p.seat: p for p in HandPlayer.objects.filter(hand=hand)}
    assert players[0].auto_turns == players[0].turns > 0  # the bot played every turn of 0 and 1
    assert players[1].auto_turns == players[1].turns > 0
    assert players[2].auto_turns * 2 <= players[2].turns  # 2 and 3 played their own hands
    assert players[3].auto_turns * 2 <= players[3].turns
    assert not any(p.absent_at_end for p in players.values())  # connected: present at the end

    # The rating: all four move, those who handed over and their partners who played.
    rated = set(RatingChange.objects.filter(hand=hand).values_list("user_id", flat=True))
    assert rated == {u.pk for u in users}
    winner = hand.settlement.outcome["winner_side"]
    levels = hand.settlement.outcome["levels_gained"]
    for seat, user in enumerate(users):
        mu = profile(user).rating_mu
        assert (mu > 25) if seat % 2 == winner else (mu < 25), (seat, mu)

    # Title points: the winner the bot played gains none, the partner who played gains them;
    # the loser the bot played loses them as if played, as does the partner.
    bot_winner, bot_loser = (0, 1) if winner == 0 else (1, 0)
    assert profile(users[bot_winner]).title_points == TITLE_START
    assert profile(users[bot_winner + 2]).title_points == TITLE_START + levels
    assert profile(users[bot_loser]).title_points == TITLE_START - levels
    assert profile(users[bot_loser + 2]).title_points == TITLE_START - levels
    # Table points: every seat settled as played (the seat that handed over pays in full).
    assert Seat.objects.filter(table=table, autopilot=True).count() == 2
    call_command("ladder_check")


@pytest.mark.django_db
def test_finding3_title_points_for_a_win_only_to_seats_a_human_played() -> None:
    """The same rule on a stored hand whose result is known: dealer side 0 holds the attackers
    to 0 (up 3 levels). Seat 0 (winner) and seat 1 (loser) were played by the bot for more
    than half their turns; seats 2 and 3 by their humans."""
    users = make_users(prefix="tw")
    for user in users:
        ladder_points_adjust(user=user, account="title", amount=TITLE_START, reason="t", by=None)
    hand = make_hand(users, result={"attacker_points": 0}, auto_turns={0: 13, 1: 25})
    hand_settle(hand_id=hand.pk)
    titles = [profile(u).title_points for u in users]
    assert titles == [TITLE_START, TITLE_START - 3, TITLE_START + 3, TITLE_START - 3]
    mus = [profile(u).rating_mu for u in users]
    assert mus[0] > 25 and mus[2] > 25 and mus[1] < 25 and mus[3] < 25
    # Table points as played: the winner the bot played gains, the loser it played pays.
    balances = [profile(u).balance for u in users]
    assert balances[0] == balances[2] > balances[1] == balances[3]
    call_command("ladder_check")
