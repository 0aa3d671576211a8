"""Issue 33, point 5: a newcomer who escaped and lost at ranked was locked out of quick match
(660 of the 790 it needs) with the English code in the refusal and no word of relief; relief
then took them from 660 to 1,460, above the players who stayed. The rule (docs/LADDER.md,
"Relief never rewards an escape"): relief tops a balance up to the threshold, so whoever held
less before relief never holds more after it; at a ranked table an escape costs more than any
loss of the hand, so escaping never leaves a player better off than staying and losing,
relief included. These tests try to profit from it."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from accounts.errors import ApplicationError
from accounts.models import User
from games import matchmaking
from games.models import Hand
from games.services.wrap_up import hand_settle
from ladder.models import LadderProfile, LedgerEntry
from ladder.selectors import escape_cost_now, player_balance
from ladder.services import ladder_points_adjust, ladder_relief_claim
from shengji.engine.cards import RANKS
from shengji.settlement import HandOutcome, SeatState, relief_grant, settle_hand, table_net
from tests.https import HTTPS
from tests.ladder.helpers import RULESETS, make_hand, make_users

THRESHOLD = AMOUNT = 800  # the settings' defaults (docs/LADDER.md, "Settings")
HUMANS = {seat: SeatState(human=True, balance=10**9) for seat in range(4)}


@pytest.fixture(autouse=True)
def relief_numbers(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.LADDER_SIGNUP_GRANT = 1000
    settings.LADDER_RELIEF_THRESHOLD = THRESHOLD
    settings.LADDER_RELIEF_AMOUNT = AMOUNT
    settings.LADDER_RELIEF_PER_DAY = 1


def after_relief(balance: int, grant: Callable[[int], int]) -> int:
    return balance + grant(balance)


def top_up(balance: int) -> int:
    return relief_grant(balance, THRESHOLD, AMOUNT)


def fixed_grant(balance: int) -> int:
    """The rule before: 800 to any balance below 800."""
    return AMOUNT if balance < THRESHOLD else 0


def losses_of_seat_0(options: dict[str, Any], stake: int, level: str) -> set[int]:
    """Every table-point loss a hand played to its end at ``level`` can cost seat 0."""
    losses = set()
    for dealer_side, points in itertools.product((0, 1), range(0, 400, 5)):
        outcome = HandOutcome(
            kind="normal",
            settlement=options["settlement"],
            escape_penalty=options["escape_penalty"],
            stake=stake,
            dealer_side=dealer_side,
            attacker_points=points,
            levels_at_start=(level, level),
        )
        net = table_net(settle_hand(outcome, HUMANS), 0)
        if net < 0:
            losses.add(-net)
    return losses


def profits(grant: Callable[[int], int], options: dict[str, Any], stake: int) -> list[str]:
    """Every way, at every level and balance near the threshold, that escaping and claiming
    relief leaves seat 0 with more than staying, losing and claiming relief, where the escape
    itself cost at least the loss (relief turned a costlier escape into a gain)."""
    found = []
    for level in RANKS:
        escape = escape_cost_now(
            ruleset={"options": options}, stake=stake, levels=[level, level], ranked=True
        )
        for loss in losses_of_seat_0(options, stake, level):
            if escape < loss:
                continue
            for start in range(THRESHOLD - 100, THRESHOLD + escape + 100, 7):
                if start < escape:
                    continue
                escaped = after_relief(start - escape, grant)
                stayed = after_relief(start - loss, grant)
                if escaped > stayed:
                    found.append(f"{level} from {start}: escape {escaped} > stay {stayed}")
    return found


@pytest.mark.parametrize("preset", sorted(RULESETS))
def test_escape_and_relief_never_beats_stay_lose_and_relief(preset: str) -> None:
    """Every preset, stake 1, 50, 100, every level and band of points: no balance profits from
    escaping and claiming relief over staying, losing and claiming it. The same search finds
    the profit under the fixed grant of before (the finding)."""
    options = RULESETS[preset]
    for stake in (1, 50, 100):
        assert profits(top_up, options, stake) == [], (preset, stake)
    assert profits(fixed_grant, RULESETS["ranked"], 50)  # the old rule: escaping paid


def test_at_a_ranked_table_an_escape_costs_more_than_any_loss_of_the_hand() -> None:
    """So at ranked play, where relief is what lets a player queue again, no loss is ever
    dearer than the escape: escaping never pays, relief or not (docs/LADDER.md)."""
    options = RULESETS["ranked"]
    for stake, level in itertools.product((1, 50, 100, 1000), RANKS):
        escape = escape_cost_now(
            ruleset={"options": options}, stake=stake, levels=[level, level], ranked=True
        )
        assert escape > max(losses_of_seat_0(options, stake, level)), (stake, level)


def test_relief_is_monotone_and_tops_up_to_the_threshold() -> None:
    for balance in range(0, 2000):
        after = after_relief(balance, top_up)
        assert after == max(balance, THRESHOLD)
        assert after_relief(balance + 1, top_up) >= after


def balance_of(user: User) -> int:
    return LadderProfile.objects.get(user=user).balance


@pytest.mark.django_db
@pytest.mark.parametrize("preset", sorted(RULESETS))
def test_finding_an_escaper_with_relief_ends_no_higher_than_a_stayer_on_postgresql(
    preset: str,
) -> None:
    """On PostgreSQL, as the issue's newcomers: four at a ranked table (stake 50, 打2) of each
    preset's rules; seat 0 escapes and claims relief. At a second table the same four play the
    hand out, seat 0's side losing as badly as the hand can (the attackers go up 4): seat 0
    claims relief if it may. The escaper ends no higher."""
    stake = 50
    escaper_table = make_users(4)
    stayer_table = make_users(4)
    make_hand(escaper_table, preset=preset, stake=stake, status=Hand.Status.ESCAPED,
              result={"kind": "escape", "escaper_seat": 0}, escaped=[0])  # fmt: skip
    worst = {"attacker_points": 240}  # dealer seat 0: the attackers go up 4, seat 0 loses
    make_hand(stayer_table, preset=preset, stake=stake, result=worst)
    for hand in Hand.objects.all():
        hand_settle(hand_id=hand.pk)
    escaper, stayer = escaper_table[0], stayer_table[0]
    for user in (escaper, stayer):
        if balance_of(user) < THRESHOLD:
            ladder_relief_claim(user=user)
    escape = 1000 - (balance_of(escaper) - sum(
        e.amount for e in LedgerEntry.objects.filter(user=escaper, kind="relief")
    ))  # fmt: skip
    loss = 1000 - (balance_of(stayer) - sum(
        e.amount for e in LedgerEntry.objects.filter(user=stayer, kind="relief")
    ))  # fmt: skip
    if escape >= loss:
        assert balance_of(escaper) <= balance_of(stayer), (escape, loss)
    if preset == "ranked":
        assert (escape, loss, balance_of(escaper), balance_of(stayer)) == (300, 250, 800, 800)
    call_command("ladder_check")


# --- the refusal a newcomer meets ----------------------------------------------------------


def newcomer_after_an_escape_and_a_loss() -> User:
    """The issue's newcomer: the sign-up grant, an escape at ranked 打2 (300), a one-level loss
    (40 at stake 20: any loss that leaves them short of quick match)."""
    users = make_users(4)
    make_hand(users, stake=50, status=Hand.Status.ESCAPED,
              result={"kind": "escape", "escaper_seat": 0}, escaped=[0])  # fmt: skip
    make_hand(users, stake=20, result={"attacker_points": 80})  # dealer seat 0 loses the deal
    for hand in Hand.objects.all():
        hand_settle(hand_id=hand.pk)
    newcomer = users[0]
    assert player_balance(user=newcomer) < matchmaking.quick_match_minimum()
    return newcomer


@pytest.mark.django_db
def test_finding_the_refusal_tells_a_newcomer_how_to_play_again() -> None:
    newcomer = newcomer_after_an_escape_and_a_loss()
    balance = player_balance(user=newcomer)
    needed = matchmaking.quick_match_minimum()
    client = Client(**HTTPS)
    client.force_login(newcomer)
    page = client.post("/tables/quick/join/", follow=True).content.decode()
    assert "(insufficient_balance)" not in page
    assert f"needs at least {needed} table points and you hold {balance}" in page
    assert "Your daily relief is ready" in page and f"brings you to {THRESHOLD}" in page
    assert "practise against bots" in page and "casual table with a lower stake" in page
    assert f'href="/players/{newcomer.username}/"' in page  # where relief is claimed
    refused = client.post("/tables/quick/join/", HTTP_ACCEPT="application/json").json()
    assert refused["code"] == "insufficient_balance" and refused["plain"] is True
    assert refused["link_url"] == f"/players/{newcomer.username}/"
    with translation.override("zh-hans"):
        with pytest.raises(ApplicationError) as chinese:
            matchmaking.queue_join(user=newcomer)
        assert "每日救济" in chinese.value.message and str(needed) in chinese.value.message
    with translation.override("zh-hant"):
        with pytest.raises(ApplicationError) as traditional:
            matchmaking.queue_join(user=newcomer)
        assert "每日救濟" in traditional.value.message
    # Relief brings them back to what quick match needs: they may queue.
    entry = ladder_relief_claim(user=newcomer)
    assert entry.amount == THRESHOLD - balance and player_balance(user=newcomer) == THRESHOLD
    matchmaking.queue_join(user=newcomer)
    matchmaking.queue_leave(user=newcomer)
    # Short again the same day: the refusal says when the next relief comes.
    ladder_points_adjust(user=newcomer, account="table", amount=-200, reason="test", by=None)
    with pytest.raises(ApplicationError) as later:
        matchmaking.queue_join(user=newcomer)
    assert "the next is yours tomorrow from 00:00" in later.value.message
    assert settings.LADDER_RELIEF_PER_DAY == 1
