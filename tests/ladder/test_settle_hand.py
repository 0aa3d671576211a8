"""Settlement against real PostgreSQL: rows, balances, idempotence, the ledger's guarantees.
Most tests settle a stored hand by id (`games.services.wrap_up.hand_settle`, which locks it and
hands the ladder its plain record); the last ones hand `ladder_settle_hand` a record directly."""

from __future__ import annotations

import dataclasses

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from django.test import override_settings

from accounts.models import User
from games.models import Hand
from games.services.wrap_up import finished_hand, hand_settle
from ladder.errors import ApplicationError
from ladder.models import HandSettlement, LadderProfile, LedgerEntry, RatingChange
from ladder.services import (
    FinishedHand,
    FinishedSeat,
    ladder_points_adjust,
    ladder_profile_open,
    ladder_settle_hand,
)
from tests.ladder.helpers import make_hand, make_user, make_users

pytestmark = pytest.mark.django_db


def balances(users: list[User]) -> list[int]:
    return [LadderProfile.objects.get(user=u).balance for u in users]


def title_points(users: list[User]) -> list[int]:
    return [LadderProfile.objects.get(user=u).title_points for u in users]


def nets(hand: Hand) -> dict[str | None, int]:
    result: dict[str | None, int] = {}
    for entry in LedgerEntry.objects.filter(hand=hand, account="table").select_related("user"):
        key = entry.user.username if entry.user else None
        result[key] = result.get(key, 0) + entry.amount
    return result


def test_new_account_gets_the_configured_grant() -> None:
    user = make_user()
    profile = LadderProfile.objects.get(user=user)
    assert profile.balance == 1000
    grant = LedgerEntry.objects.get(user=user)
    assert (grant.kind, grant.amount, grant.balance_after, grant.hand_id) == (
        "grant",
        1000,
        1000,
        None,
    )


@override_settings(LADDER_SIGNUP_GRANT=250)
def test_grant_follows_the_setting_and_is_given_once() -> None:
    user = make_user()
    ladder_profile_open(user=user)
    ladder_profile_open(user=user)
    assert LedgerEntry.objects.filter(user=user, kind="grant").count() == 1
    assert LadderProfile.objects.get(user=user).balance == 250


def test_ranked_590_example_end_to_end() -> None:
    users = make_users()
    for user in users:  # enough title points to lose 4
        ladder_points_adjust(user=user, account="title", amount=10, reason="setup", by=None)
    hand = make_hand(users, result={"attacker_points": 240}, levels=("K", "5"))
    result = hand_settle(hand_id=hand.pk)
    assert result.created
    assert balances(users) == [400, 1590, 400, 1590]
    assert title_points(users) == [6, 14, 6, 14]
    assert nets(hand)[None] == 20
    row = LedgerEntry.objects.get(hand=hand, user=users[1], kind="table_points")
    assert (row.amount, row.balance_after) == (600, 1600)
    fee = LedgerEntry.objects.get(hand=hand, user=users[1], kind="fee")
    assert (fee.amount, fee.balance_after) == (-10, 1590)
    settlement = HandSettlement.objects.get(hand=hand)
    assert settlement.outcome["winner_side"] == 1
    assert settlement.outcome["fees"]["winner_fee"] == 10


def test_settling_twice_changes_nothing() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0})
    first = hand_settle(hand_id=hand.pk)
    rows = LedgerEntry.objects.count()
    ratings = list(LadderProfile.objects.order_by("user_id").values_list("rating_mu", flat=True))
    second = hand_settle(hand_id=hand.pk)
    assert first.created and not second.created
    assert LedgerEntry.objects.count() == rows
    assert RatingChange.objects.filter(hand=hand).count() == 4
    assert (
        list(LadderProfile.objects.order_by("user_id").values_list("rating_mu", flat=True))
        == ratings
    )
    assert sorted(e.pk for e in second.entries) == sorted(e.pk for e in first.entries)
    assert LadderProfile.objects.get(user=users[0]).hands_played == 1


def test_the_unique_key_refuses_a_second_row_for_the_same_hand_user_and_kind() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0})
    hand_settle(hand_id=hand.pk)
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerEntry.objects.create(
            user=users[0], hand=hand, kind="table_points", account="table", amount=1,
            balance_after=1,
        )  # fmt: skip
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerEntry.objects.create(hand=hand, kind="fee", account="table", amount=1)


def test_the_ledger_refuses_updates_and_deletes() -> None:
    user = make_user()
    entry = LedgerEntry.objects.get(user=user)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        LedgerEntry.objects.filter(pk=entry.pk).update(amount=5)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        LedgerEntry.objects.filter(pk=entry.pk).delete()
    assert LedgerEntry.objects.get(pk=entry.pk).amount == 1000


def test_settlement_is_part_of_the_callers_transaction() -> None:
    """Called from the transaction that records the result: a rollback undoes it all."""
    users = make_users()
    hand = make_hand(users, status=Hand.Status.PLAYING)

    class Abort(Exception):
        pass

    with pytest.raises(Abort), transaction.atomic():
        Hand.objects.filter(pk=hand.pk).update(
            status=Hand.Status.FINISHED, result={"attacker_points": 0}
        )
        hand_settle(hand_id=hand.pk)
        assert balances(users)[0] == 1390
        raise Abort
    assert balances(users) == [1000] * 4
    assert not HandSettlement.objects.filter(hand=hand).exists()
    assert not LedgerEntry.objects.filter(hand=hand).exists()


def test_a_bot_seat_gets_no_rows() -> None:
    """A bot seated at the start: a practice hand, no rows for anyone (the house used to pay
    the humans for the bot's seat: finding 1)."""
    users = make_users(3)
    hand = make_hand([users[0], users[1], None, users[2]], result={"attacker_points": 0})
    result = hand_settle(hand_id=hand.pk)
    assert result.created and result.entries == [] and result.rating_changes == []
    assert not LedgerEntry.objects.filter(hand=hand).exists()
    assert HandSettlement.objects.get(hand=hand).practice


def test_an_unfinished_hand_is_refused() -> None:
    hand = make_hand(make_users(), status=Hand.Status.PLAYING)
    with pytest.raises(ApplicationError) as error:
        hand_settle(hand_id=hand.pk)
    assert error.value.code == "hand_not_finished"
    with pytest.raises(ApplicationError) as missing:
        hand_settle(hand_id=10**9)
    assert missing.value.code == "hand_not_found"


def test_a_hand_without_four_seats_is_refused() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0})
    hand.players.filter(seat=3).delete()
    with pytest.raises(ApplicationError) as error:
        hand_settle(hand_id=hand.pk)
    assert error.value.code == "seats_incomplete"


@pytest.mark.parametrize(
    ("preset", "stake", "result", "expected"),
    [
        # seed 000, levels: attackers +1 at 120 → 2 steps of 50.
        ("seed000", 50, {"attacker_points": 120}, [-100, 100, -100, 100]),
        # seed 002, table: defenders +1 from 7 → first to 8: ±10, and the 25 / 15 bonus
        # settled between the sides (the other side pays 10 a player; the house pays nothing).
        ("seed002", 100, {"attacker_points": 40}, [20, -20, 20, -20]),
        # seed 003, stake_steps: attackers take over: S × 1, fees 10 + 10 from everyone.
        ("seed003", 100, {"attacker_points": 80}, [-120, 80, -120, 80]),
        # seed 004, ratio at level 7/5 (140 %): defenders +2 → 140 + 200 − 10.
        ("seed004", 100, {"attacker_points": 20}, [330, -340, 330, -340]),
    ],
)
def test_each_scheme_end_to_end(
    preset: str, stake: int, result: dict[str, int], expected: list[int]
) -> None:
    users = make_users()
    hand = make_hand(users, preset=preset, stake=stake, result=result, levels=("7", "5"))
    hand_settle(hand_id=hand.pk)
    assert [b - 1000 for b in balances(users)] == expected
    assert sum(nets(hand).values()) == 0


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("ranked", [0, 190, -600, 190]),  # triple at 100 %: 3 × 200; opponents 200 − 10
        ("seed000", [0, 100, -300, 100]),  # triple under levels
        ("seed002", [0, 0, -40, 0]),  # fixed_40
        ("seed003", [300, 300, -900, 300]),  # nine_stakes: 3 × S to each of the other three
        ("seed004", [0, 0, 0, 0]),  # none
    ],
)
def test_escapes_end_to_end(preset: str, expected: list[int]) -> None:
    users = make_users()
    hand = make_hand(users, preset=preset, status=Hand.Status.ESCAPED, escaped=[2])
    hand_settle(hand_id=hand.pk)
    assert [b - 1000 for b in balances(users)] == expected
    assert LadderProfile.objects.get(user=users[2]).escapes == 1
    assert LadderProfile.objects.get(user=users[2]).hands_played == 0
    assert sum(nets(hand).values()) == 0


def test_absent_player_charged_as_escaper_and_partner_spared() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 60}, absent=[1])
    hand_settle(hand_id=hand.pk)
    # normal: side 0 +1 at level 2: +190 / −200; triple on seat 1: −600, seats 0 and 2 +190.
    assert [b - 1000 for b in balances(users)] == [380, -800, 380, -200]
    assert LadderProfile.objects.get(user=users[1]).escapes == 1


def test_absent_player_waived_under_004() -> None:
    users = make_users()
    hand = make_hand(users, preset="seed004", result={"attacker_points": 0}, absent=[0])
    hand_settle(hand_id=hand.pk)
    # The absent winner's 400 is not paid: the losers pay only the winner still in the hand.
    assert [b - 1000 for b in balances(users)] == [0, -200, 390, -200]
    assert not LedgerEntry.objects.filter(hand=hand, user=users[0]).exists()
    assert not LedgerEntry.objects.filter(hand=hand, user=None, amount__lt=0).exists()


def test_a_loser_who_cannot_pay_ends_at_zero() -> None:
    users = make_users()
    ladder_points_adjust(user=users[0], account="table", amount=-900, reason="test", by=None)
    hand = make_hand(users, result={"attacker_points": 240}, levels=("K", "5"))
    hand_settle(hand_id=hand.pk)
    assert balances(users)[0] == 0
    assert balances(users)[1] == 1000 + 590 - 246
    assert sum(nets(hand).values()) == 0


def test_unranked_tables_move_table_points_only() -> None:
    users = make_users()
    hand = make_hand(users, ranked=False, result={"attacker_points": 0})
    hand_settle(hand_id=hand.pk)
    assert balances(users) == [1390, 600, 1390, 600]
    assert title_points(users) == [0, 0, 0, 0]
    assert not RatingChange.objects.filter(hand=hand).exists()
    assert LadderProfile.objects.get(user=users[0]).rating_provisional


def test_void_hand_writes_no_rows_but_is_marked_settled() -> None:
    users = make_users()
    hand = make_hand(users, status=Hand.Status.VOID)
    result = hand_settle(hand_id=hand.pk)
    assert result.created and result.entries == []
    assert HandSettlement.objects.filter(hand=hand).exists()
    assert balances(users) == [1000] * 4


def test_ladder_check_passes_and_catches_a_tampered_balance(
    capsys: pytest.CaptureFixture[str],
) -> None:
    users = make_users()
    for points in (0, 240, 120):
        hand_settle(hand_id=make_hand(users, result={"attacker_points": points}).pk)
    call_command("ladder_check")
    assert "ok: 4 users" in capsys.readouterr().out
    with connection.cursor() as cursor:  # a balance edited behind the ledger's back
        cursor.execute(
            "UPDATE ladder_ladderprofile SET balance = balance + 1 WHERE user_id = %s",
            [users[2].pk],
        )
    with pytest.raises(CommandError, match="1 problem"):
        call_command("ladder_check")
    assert f"user {users[2].pk}: balance" in capsys.readouterr().err


def test_adjustments_need_a_reason_and_never_go_below_zero() -> None:
    user = make_user()
    with pytest.raises(ApplicationError) as no_reason:
        ladder_points_adjust(user=user, account="table", amount=5, reason="  ", by=None)
    assert no_reason.value.code == "reason_required"
    with pytest.raises(ApplicationError) as negative:
        ladder_points_adjust(user=user, account="table", amount=-1001, reason="x", by=None)
    assert negative.value.code == "balance_negative"
    entry = ladder_points_adjust(user=user, account="table", amount=-1000, reason="x", by=None)
    assert (entry.kind, entry.balance_after) == ("admin_adjust", 0)
    title = ladder_points_adjust(user=user, account="title", amount=45, reason="migrated", by=None)
    assert (title.kind, title.account, title.balance_after) == ("title_adjust", "title", 45)
    assert LadderProfile.objects.get(user=user).title.name == "平凡"


def test_a_hand_stored_as_the_engine_and_the_games_app_store_it() -> None:
    """Nested ruleset, the engine's result names, no Hand.dealer (the first hand's bidding)."""
    users = make_users()
    hand = make_hand(
        users,
        dealer=0,
        result={
            "outcome": "played",
            "dealer": 1,
            "winning_team": 1,
            "winner": "defenders",
            "levels_gained": 2,
            "attacker_points": 20,
            "levels_at_start": ["2", "2"],
            "wrapped_at_start": [False, False],
            "escaper": None,
        },
    )
    Hand.objects.filter(pk=hand.pk).update(
        dealer=None,
        ruleset={"version": 1, "name": "ranked", "options": {
            "settlement": "ratio", "escape_penalty": "triple", "past_ace": "match_end"}},
    )  # fmt: skip
    hand_settle(hand_id=hand.pk)
    assert balances(users) == [700, 1290, 700, 1290]
    assert HandSettlement.objects.get(hand=hand).outcome["dealer_side"] == 1


# --- the ladder settles the plain record it is handed, never the stored hand ------------------


def _record(hand: Hand) -> FinishedHand:
    with transaction.atomic():
        return finished_hand(Hand.objects.select_related("match__table").get(pk=hand.pk))


def test_the_record_carries_the_hand_its_table_and_its_seats() -> None:
    users = make_users()
    hand = make_hand(users, stake=50, ranked=False, result={"attacker_points": 60}, absent=[1])
    record = _record(hand)
    assert (record.hand_id, record.status, record.stake, record.ranked) == (
        hand.pk,
        "finished",
        50,
        False,
    )
    assert record.result == {"attacker_points": 60}
    assert [(s.seat, s.user_id, s.absent_at_end) for s in record.seats] == [
        (seat, user.pk, seat == 1) for seat, user in enumerate(users)
    ]


def test_the_ladder_settles_what_the_record_says() -> None:
    """A seat the record marks away at the end is charged as an escaper though the stored
    hand says nothing of it: the ladder reads the record alone."""
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 60})
    record = _record(hand)
    seats = tuple(dataclasses.replace(s, absent_at_end=s.seat == 1) for s in record.seats)
    result = ladder_settle_hand(hand=dataclasses.replace(record, seats=seats))
    assert result.created
    assert [b - 1000 for b in balances(users)] == [380, -800, 380, -200]
    assert HandSettlement.objects.get(hand=hand).outcome["absent_seats"] == [1]


def test_a_record_with_a_user_at_two_seats_is_refused() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0})
    record = _record(hand)
    twice = (*record.seats[:3], dataclasses.replace(record.seats[3], user_id=users[0].pk))
    with pytest.raises(ApplicationError) as error:
        ladder_settle_hand(hand=dataclasses.replace(record, seats=twice))
    assert error.value.code == "duplicate_player"
    assert not HandSettlement.objects.filter(hand=hand).exists()


def test_a_record_naming_one_seat_twice_is_refused() -> None:
    users = make_users()
    hand = make_hand(users, result={"attacker_points": 0})
    record = _record(hand)
    seats = (*record.seats, FinishedSeat(3, None, False, False, 0, 0))
    with pytest.raises(ApplicationError) as error:
        ladder_settle_hand(hand=dataclasses.replace(record, seats=seats))
    assert error.value.code == "seats_incomplete"
