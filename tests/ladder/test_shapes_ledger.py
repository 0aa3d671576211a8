"""Hands of 5–8 players and 找朋友 settled on real PostgreSQL through the games app's wrap-up
(`games.services.wrap_up.hand_wrap_up`), the way a cheater would try them: every shape, a
friend who escapes, a table marked ranked, a bot at the start, seven alts and a main at an
8-seat private table, two wrap-ups at once; `ladder_check` over all of it; the player page's
hands by mode and table size in 简体, 繁體 and English.

Hands are played by the engine (`play_random`) and stored as the games app stores them; the
alts' deliberately lost hands are stored with the result they aim for (the main deals alone
and the seven give up every point), taken from an engine-played 8-seat hand.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from io import StringIO
from random import Random
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, connections, transaction
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games.history import player_shape_stats
from games.models import Hand, HandPlayer, Match, Seat, Table
from games.services.wrap_up import hand_wrap_up
from ladder.models import HandSettlement, LadderProfile, LedgerEntry, RatingChange
from ladder.selectors import fee_schedule
from shengji.engine.actions import leave
from shengji.engine.hand import HandState, new_hand
from shengji.engine.random_play import play_random
from shengji.engine.rules import RuleSet, preset
from shengji.settlement import SeatState, outcome_from_record, settle_hand
from tests.https import HTTPS
from tests.ladder.helpers import make_users

STAKE = 20  # what one hand can take at 8 seats stays below the sign-up grant (no shortfall)
GRANT = 1000
SHAPES = [("friends", 5), ("friends", 6), ("friends", 7), ("friends", 8), ("tractor", 6),
          ("tractor", 8)]  # fmt: skip


def rules_of(mode: str, players: int) -> RuleSet:
    return preset("ranked").with_options(players=players, mode=mode)


def played(rules: RuleSet, seed: int) -> HandState:
    state = play_random(new_hand(rules, seed), Random(seed))
    assert state.result is not None
    return state


def result_of(rules: RuleSet, seed: int) -> dict[str, Any]:
    """The stored result of a hand the engine plays to its end."""
    result = played(rules, seed).result
    assert result is not None
    return result.to_dict()


def stored_hand(
    users: Sequence[User | None],
    rules: RuleSet,
    result: dict[str, Any],
    *,
    ranked: bool = False,
    stake: int = STAKE,
) -> Hand:
    """A hand as the games app leaves it for its wrap-up: ended, its table playing, a seat and a
    HandPlayer per player (None: a bot seated at the start)."""
    players = rules.players
    assert len(users) == players
    table = Table.objects.create(
        name=f"{players} seats", preset="ranked", ranked=ranked, stake=stake, players=players,
        unlisted=not ranked, status=Table.Status.PLAYING,
        house_rules={} if rules.is_classic else {"mode": rules.mode},
    )  # fmt: skip
    Seat.objects.bulk_create(
        Seat(table=table, index=seat, user=user, bot=user is None)
        for seat, user in enumerate(users)
    )
    match = Match.objects.create(
        table=table, ruleset=rules.to_dict(), levels=list(result["levels_at_start"])
    )
    hand = Hand.objects.create(
        match=match, number=1, ruleset=rules.to_dict(), seed=1, dealer=None,
        levels=list(result["levels_at_start"]),
        status=Hand.Status.ESCAPED if result["escaper"] is not None else Hand.Status.FINISHED,
        result=result, finished_at=timezone.now(), awaiting_wrap_up=True,
    )  # fmt: skip
    HandPlayer.objects.bulk_create(
        HandPlayer(hand=hand, seat=seat, user=user, turns=20) for seat, user in enumerate(users)
    )
    return hand


def balance(user: User) -> int:
    return LadderProfile.objects.get(user=user).balance


def expected_nets(hand: Hand, users: Sequence[User]) -> dict[int, int]:
    """Each seat's table points from the pure arithmetic, read from the stored hand."""
    outcome = outcome_from_record(
        status=hand.status, result=hand.result, ruleset=hand.ruleset, stake=STAKE,
        dealer=None, hand_levels=hand.levels, escaped_seats=(), absent_seats=(),
        fees=fee_schedule(), ranked=False,
    )  # fmt: skip
    seats = {seat: SeatState(human=True, balance=GRANT) for seat in range(len(users))}
    lines = settle_hand(outcome, seats)
    return {
        seat: sum(line.amount for line in lines if line.seat == seat and not line.is_title)
        for seat in range(len(users))
    }


def table_rows_sum(hand: Hand) -> int:
    return sum(
        LedgerEntry.objects.filter(hand=hand, account="table").values_list("amount", flat=True)
    )


@pytest.mark.django_db
@pytest.mark.parametrize(("mode", "players"), SHAPES)
def test_every_shape_settles_once_through_the_wrap_up(mode: str, players: int) -> None:
    """A hand of each shape, played by the engine, wrapped up by the games app: every player's
    balance moves as the arithmetic says, the hand's rows sum to 0, the winners' counters
    move, the table is marked ranked yet nothing is rated and no title points move (ranked is
    four players, two decks), a second wrap-up does nothing, and `ladder_check` passes."""
    users = make_users(players)
    rules = rules_of(mode, players)
    hand = stored_hand(users, rules, result_of(rules, players), ranked=True)
    assert hand_wrap_up(hand_id=hand.pk) is True
    assert hand_wrap_up(hand_id=hand.pk) is False

    nets = expected_nets(hand, users)
    assert any(nets.values())
    assert [balance(user) - GRANT for user in users] == [nets[s] for s in range(players)]
    assert table_rows_sum(hand) == 0
    assert hand.result is not None
    winners = set(hand.result["winning_seats"])
    for seat, user in enumerate(users):
        profile = LadderProfile.objects.get(user=user)
        assert (profile.hands_played, profile.hands_won) == (1, int(seat in winners))
        assert profile.title_points == 0 and profile.rated_hands == 0
    assert not RatingChange.objects.filter(hand=hand).exists()
    assert not LedgerEntry.objects.filter(hand=hand, account="title").exists()
    settlement = HandSettlement.objects.get(hand=hand)
    assert settlement.ranked is False and settlement.outcome["players"] == players
    assert sorted(settlement.outcome["winning_seats"]) == sorted(winners)
    call_command("ladder_check", stdout=StringIO())


def escaped_by_a_friend(rules: RuleSet) -> tuple[dict[str, Any], int]:
    """An engine-played 找朋友 hand left by a revealed friend of the dealer before its last
    trick: (the result, the friend's seat)."""
    for seed in range(200):
        full = played(rules, seed)
        actions = full.actions[: -rules.players]
        state = new_hand(rules, seed)
        for action in actions:
            state.apply(action)
        friends = sorted(set(state.side) - {state.dealer})
        if friends:
            state.apply(leave(friends[0]))
            assert state.result is not None
            return state.result.to_dict(), friends[0]
    raise AssertionError("no hand with a friend revealed before its last trick")


@pytest.mark.django_db
def test_a_friend_who_escapes_pays_the_house_and_nobody_at_the_table_gains() -> None:
    """At a six-seat 找朋友 table (marked ranked, to try), a friend the dealer revealed leaves:
    they pay the preset's penalty (`triple`: 3 × a one-level loss, 3 × 2S = 120 at S = 20) to
    the house; the dealer and the others get nothing; no rating moves."""
    users = make_users(6)
    rules = rules_of("friends", 6)
    result, friend = escaped_by_a_friend(rules)
    hand = stored_hand(users, rules, result, ranked=True)
    assert hand_wrap_up(hand_id=hand.pk) is True
    assert [balance(user) - GRANT for user in users] == [
        -120 if seat == friend else 0 for seat in range(6)
    ]
    house = LedgerEntry.objects.filter(hand=hand, user=None)
    assert list(house.values_list("kind", "amount")) == [("escape_penalty", 120)]
    assert LadderProfile.objects.get(user=users[friend]).escapes == 1
    assert not RatingChange.objects.filter(hand=hand).exists()
    call_command("ladder_check", stdout=StringIO())


@pytest.mark.django_db
def test_a_bot_at_the_start_of_a_big_hand_makes_it_practice() -> None:
    users: list[User | None] = [*make_users(7), None]
    rules = rules_of("friends", 8)
    hand = stored_hand(users, rules, result_of(rules, 3))
    assert hand_wrap_up(hand_id=hand.pk) is True
    assert HandSettlement.objects.get(hand=hand).practice is True
    assert not LedgerEntry.objects.filter(hand=hand).exists()
    assert all(balance(u) == GRANT for u in users if u is not None)
    assert all(LadderProfile.objects.get(user=u).hands_played == 0 for u in users if u is not None)
    call_command("ladder_check", stdout=StringIO())


def leaving(seat: int) -> Callable[[HandState], None]:
    """``seat`` leaves the hand at its first lead (an escape, RULES-SPEC.md §7)."""

    def leave_now(state: HandState) -> None:
        state.apply(leave(seat))

    return leave_now


def main_deals_alone_and_the_alts_give_up(template: dict[str, Any]) -> dict[str, Any]:
    """The alts' best case for feeding the main (seat 0): the main deals, calls a card they
    buried (so no friend ever joins: 1 against 7), the seven alts take no point: the main goes
    up 3 levels and 1 more for the small side (RULES-SPEC.md §9.3.6)."""
    return {
        **template, "dealer": 0, "defenders": [0], "attackers": list(range(1, 8)),
        "winner": "defenders", "winning_seats": [0], "levels_gained": 3, "small_side_bonus": 1,
        "attacker_points": 0, "trick_points": 0, "kitty_bonus": 0, "penalty_points": 0,
        "escaper": None,
    }  # fmt: skip


@pytest.mark.django_db
def test_seven_alts_and_a_main_at_an_eight_seat_private_table_stay_within_the_bound() -> None:
    """Seven alts and a main (seat 0) at an 8-seat private 找朋友 table (ranked preset: ratio,
    triple; S = 20). Each alt escapes in turn: the main gains nothing, each escape puts 3 × 2S
    in the house. Then three hands the alts lose on purpose, the main dealing alone: the most
    one hand can give one account at 8 seats, ⌊7 × 2G / 8⌋ − the winner fee with G = S × 100 %
    + 4 S = 100: 175 − 10 = 165 a hand; each alt pays 2G / 8 = 25, a quarter of a lost hand
    at four players. A hand played out by the engine gives the main no more than that."""
    main, *alts = make_users(8)
    users = [main, *alts]
    rules = rules_of("friends", 8)
    template = result_of(rules, 11)
    for alt_seat in range(1, 8):
        state = new_hand(rules, 100 + alt_seat)
        play_random(state, Random(alt_seat), at_first_lead=leaving(alt_seat))
        assert state.result is not None and state.result.escaper == alt_seat
        hand = stored_hand(users, rules, state.result.to_dict())
        hand_wrap_up(hand_id=hand.pk)
        assert balance(main) == GRANT
        assert balance(alts[alt_seat - 1]) == GRANT - 3 * 2 * STAKE
    for number in range(3):
        hand = stored_hand(users, rules, main_deals_alone_and_the_alts_give_up(template))
        hand_wrap_up(hand_id=hand.pk)
        assert balance(main) == GRANT + 165 * (number + 1)
        assert all(balance(alt) == GRANT - 3 * 2 * STAKE - 25 * (number + 1) for alt in alts)
        assert table_rows_sum(hand) == 0
    before = balance(main)
    for seed in range(20, 30):
        hand = stored_hand(users, rules, result_of(rules, seed))
        hand_wrap_up(hand_id=hand.pk)
        assert balance(main) - before <= 165
        before = balance(main)
    call_command("ladder_check", stdout=StringIO())


def _wait_for_waiters(count: int, timeout: float = 10.0) -> None:
    """Until `count` other sessions of this database wait on a lock."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # else read once a transaction
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] >= count:
                return
            time.sleep(0.02)
    raise AssertionError(f"fewer than {count} sessions waited for the table's lock")


@pytest.mark.django_db(transaction=True)
def test_two_wrap_ups_of_one_big_hand_at_once_settle_it_once() -> None:
    """Two wrap-ups of one 7-seat hand race (the sweeper and the move's own): one settles, the
    other finds it done; the ledger has one row per player and kind, balances move once."""
    users = make_users(7)
    rules = rules_of("friends", 7)
    hand = stored_hand(users, rules, result_of(rules, 7))
    done: list[bool] = []
    errors: list[BaseException] = []
    waiting = threading.Barrier(3)

    def wrap_up() -> None:
        try:
            waiting.wait(timeout=10)
            done.append(hand_wrap_up(hand_id=hand.pk))
        except BaseException as error:  # reported by the assertion below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=wrap_up) for _ in range(2)]
    with transaction.atomic():  # hold the table's lock until both wait on it
        Table.objects.select_for_update().get(pk=hand.match.table_id)
        for thread in threads:
            thread.start()
        waiting.wait(timeout=10)
        _wait_for_waiters(2)
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert sorted(done) == [False, True]
    assert HandSettlement.objects.filter(hand=hand).count() == 1
    assert LedgerEntry.objects.filter(hand=hand, kind="table_points").count() == 7
    nets = expected_nets(hand, users)
    assert [balance(user) - GRANT for user in users] == [nets[s] for s in range(7)]
    assert all(LadderProfile.objects.get(user=u).hands_played == 1 for u in users)


def ladder_check_problems() -> str:
    errors = StringIO()
    with pytest.raises(CommandError):
        call_command("ladder_check", stdout=StringIO(), stderr=errors)
    return errors.getvalue()


@pytest.mark.django_db
def test_ladder_check_catches_a_bigger_hand_that_moved_title_points_or_paid_an_outsider() -> None:
    """`ladder_check` on 6-seat hands: it passes on what the wrap-up wrote; a title-point row,
    or a row to a user who did not play, written on such a hand is reported, and so is a
    hand whose rows do not sum to 0 whatever its number of seats."""
    users = make_users(7)
    rules = rules_of("friends", 6)
    hand = stored_hand(users[:6], rules, result_of(rules, 2))
    hand_wrap_up(hand_id=hand.pk)
    call_command("ladder_check", stdout=StringIO())

    profile = LadderProfile.objects.get(user=users[0])
    LedgerEntry.objects.create(
        user=users[0], hand=hand, kind="title_points", account="title", amount=2,
        balance_after=profile.title_points + 2, created_at=timezone.now(),
    )  # fmt: skip
    LadderProfile.objects.filter(user=users[0]).update(title_points=profile.title_points + 2)
    outsider = users[6]
    LedgerEntry.objects.create(
        user=outsider, hand=hand, kind="bonus", account="table", amount=5,
        balance_after=balance(outsider) + 5, created_at=timezone.now(),
    )  # fmt: skip
    LadderProfile.objects.filter(user=outsider).update(balance=balance(outsider) + 5)
    problems = ladder_check_problems()
    assert f"hand {hand.pk}: a bigger table's hand moved what only ranked moves" in problems
    assert f"hand {hand.pk}: bonus +5 to a user not in the hand" in problems
    assert f"hand {hand.pk}: table-point entries sum to 5, not 0" in problems


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("zh-CN,zh;q=0.9", ["各类牌桌的局数", "拖拉机", "找朋友", "胜局", "人数", "4人", "6人"]),
        ("zh-TW,zh;q=0.9", ["各類牌桌的局數", "拖拉機", "找朋友", "勝局", "人數", "4人", "6人"]),
        ("en-US,en;q=0.9", ["Hands by table", "Tractor", "Finding Friends", "Hands won",
                            "Table size", "4 players", "6 players"]),
    ],
)  # fmt: skip
def test_the_player_page_shows_hands_played_and_won_by_mode_and_table_size(
    language: str, words: list[str]
) -> None:
    """One player's hands: two 6-seat 找朋友 hands, one 6-seat tractor hand, one 4-seat hand
    (a stored classic result) and a practice hand (not counted). The selector counts each
    mode and size, the page shows them in the reader's language."""
    users = make_users(6)
    player = users[0]
    friends = rules_of("friends", 6)
    tractor = rules_of("tractor", 6)
    results = [
        (friends, result_of(friends, 1)),
        (friends, result_of(friends, 4)),
        (tractor, result_of(tractor, 5)),
    ]
    won: dict[str, int] = {"friends": 0, "tractor": 0}
    for rules, result in results:
        hand_wrap_up(hand_id=stored_hand(users, rules, result).pk)
        won[rules.mode] += 0 in result["winning_seats"]
    classic = preset("ranked")
    classic_result = result_of(classic, 9)
    hand_wrap_up(hand_id=stored_hand(users[:4], classic, classic_result).pk)
    won_classic = int(classic_result["winning_team"] == 0)  # seat 0 is on team 0
    practice = stored_hand([*users[:5], None], friends, result_of(friends, 6))
    hand_wrap_up(hand_id=practice.pk)

    stats = player_shape_stats(user=player)
    assert [(s.key, s.played, s.won) for s in stats.by_mode] == [
        ("tractor", 2, won["tractor"] + won_classic), ("friends", 2, won["friends"])
    ]  # fmt: skip
    assert [(s.players, s.played, s.won) for s in stats.by_size] == [
        (4, 1, won_classic), (6, 3, won["friends"] + won["tractor"])
    ]  # fmt: skip
    profile = LadderProfile.objects.get(user=player)
    assert profile.hands_played == sum(s.played for s in stats.by_mode)
    assert profile.hands_won == sum(s.won for s in stats.by_mode)

    page = Client(**HTTPS).get(f"/players/{player.username}/", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    text = page.content.decode()
    for word in words:
        assert word in text, word
