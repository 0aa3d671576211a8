"""The audit's findings 1, 2, 3, 8 and 11, each tried the way a cheater would, through the
services, the pages and the socket, on real PostgreSQL (and Redis for the socket): bots, escapes,
empty balances, many accounts, races. docs/LADDER.md, "Invariants", names each test.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.db import OperationalError, connection
from django.test import Client

from accounts.errors import ApplicationError
from accounts.models import User
from games import matchmaking, services
from games.handstate import load_state
from games.models import ChatLine, Hand, Seat, Table
from games.services.tables import points_needed_for
from ladder.models import HandSettlement, LadderProfile, LedgerEntry, RatingChange
from ladder.services import ladder_points_adjust, ladder_profile_open, ladder_profiles_lock
from proof.fuzz import session_headers
from shengji_site.asgi import application
from tests.games.helpers import (
    act_as_bot_would,
    advance,
    deal_and_close,
    fresh,
    make_table,
    make_users,
    play_out,
    rows_locked_elsewhere,
)
from tests.https import HTTPS


def balance(user: User) -> int:
    return LadderProfile.objects.get(user=user).balance


def holding(amount: int, prefix: str, count: int = 1) -> list[User]:
    """Players holding exactly ``amount`` table points (the grant, then an adjustment)."""
    users = make_users(count, prefix=prefix, bankroll=0)
    for user in users:
        ladder_profile_open(user=user)
        change = amount - balance(user)
        if change:
            ladder_points_adjust(user=user, account="table", amount=change, reason="test", by=None)
    return users


def refused(code: str, call: Callable[[], Any]) -> None:
    with pytest.raises(ApplicationError) as error:
        call()
    assert error.value.code == code


def ladder_check_ok() -> None:
    out = StringIO()
    call_command("ladder_check", stdout=out)
    assert out.getvalue().startswith("ok:")


def play_with_bots(hand: Hand, player: User, seat: int) -> Hand:
    """The player plays their seat, the deadline moves the bots, until the hand ends."""
    users: list[User | None] = [None] * 4
    users[seat] = player
    for _ in range(500):
        hand = fresh(hand)
        if hand.status != Hand.Status.PLAYING:
            break
        if load_state(hand).to_act == seat:
            act_as_bot_would(hand, users)
        else:
            assert advance(hand)
    return fresh(hand)


def login(user: User) -> Client:
    client = Client(**HTTPS)
    client.force_login(user)
    return client


# --- finding 1: bots minted table points ------------------------------------------------------


@pytest.mark.slow  # several whole hands (README, "The fast lane")
@pytest.mark.django_db
def test_regression_bots_mint_table_points(settings: Any) -> None:
    """Casual table, three bots, stake 100,000, minimum balance 0: a win took a 1,000 balance to
    200,990 (the house paid for the bot seats) and a loss cost only the 1,000 held. Now the
    1,000 cannot sit at all, and for a player who can, a hand with bots is practice: played
    out or escaped (seed 004: escape free), it moves nothing for anyone."""
    settings.SHENGJI_BOT_DELAY_MS = 0
    (small,) = holding(1000, "small")
    big = make_table(small, ranked=False, stake=100_000, min_balance=0, bid_window_seconds=0)
    refused(
        "insufficient_balance", lambda: services.seat_take(table_id=big.pk, user=small, index=0)
    )

    (cheater,) = holding(2_000_000, "cheater")
    for preset_name in ("ranked", "seed004", "seed000"):
        table = make_table(
            cheater, ranked=False, preset_name=preset_name, stake=100_000, bid_window_seconds=0
        )
        services.seat_take(table_id=table.pk, user=cheater, index=0)
        for index in (1, 2, 3):
            services.seat_fill_bot(table_id=table.pk, user=cheater, index=index)
        played = services.seat_ready(table_id=table.pk, user=cheater)
        assert played is not None
        played = play_with_bots(deal_and_close(played), cheater, 0)
        assert played.status == Hand.Status.FINISHED
        assert "practice hand" in " ".join(
            ChatLine.objects.filter(table=table).values_list("text", flat=True)
        )
        escaped = services.seat_ready(table_id=table.pk, user=cheater)
        assert escaped is not None
        services.hand_leave(hand_id=escaped.pk, user=cheater)  # a bad hand: escape it
        assert fresh(escaped).status == Hand.Status.ESCAPED
        for hand in (played, escaped):
            assert HandSettlement.objects.get(hand=hand).practice
            assert not LedgerEntry.objects.filter(hand=hand).exists()
            assert not RatingChange.objects.filter(hand=hand).exists()
        assert not Seat.objects.filter(user=cheater).exists()  # an escaper leaves the seat
    assert balance(cheater) == 2_000_000  # nothing won, nothing lost, on every preset
    profile = LadderProfile.objects.get(user=cheater)
    assert (profile.hands_played, profile.escapes, profile.title_points) == (0, 0, 0)
    assert not LedgerEntry.objects.filter(hand__isnull=False).exists()  # the house paid nobody
    ladder_check_ok()


# --- finding 2: a broke player dodged losses --------------------------------------------------


@pytest.mark.slow  # several whole hands (README, "The fast lane")
@pytest.mark.django_db
def test_regression_broke_player_dodges_losses() -> None:
    """An account with 0 points sat at stake 100,000 and escaped: its penalty was cancelled by a
    shortfall, and so was the opponents' compensation. Now it cannot sit, queue or be seated
    by quick match; a player who can sit pays an escape in full (to the house at a casual
    table): no shortfall is ever written."""
    (broke,) = holding(0, "broke")
    rich = make_users(4, prefix="rich")
    for preset_name in ("ranked", "seed000", "seed003", "seed004"):
        table = make_table(rich[0], ranked=False, preset_name=preset_name, stake=100_000)
        with pytest.raises(ApplicationError) as error:
            services.seat_take(table_id=table.pk, user=broke, index=0)
        assert error.value.code == "insufficient_balance"
    refused("insufficient_balance", lambda: matchmaking.queue_join(user=broke))
    refused(
        "insufficient_balance",
        lambda: services.ranked_table_open(users=[broke, *rich[:3]], name="qm", stake=50),
    )
    assert not Seat.objects.filter(user=broke).exists()

    # Four players holding exactly what the table needs: the escaper pays the whole penalty.
    stake = 100_000
    needed = points_needed_for(preset_name="ranked", stake=stake)
    assert needed == 1_580_000
    four = holding(needed, "exact", 4)
    table = make_table(four[0], ranked=False, preset_name="ranked", stake=stake)
    for index, user in enumerate(four):
        services.seat_take(table_id=table.pk, user=user, index=index)
    hand = None
    for user in four:
        hand = services.seat_ready(table_id=table.pk, user=user) or hand
    assert hand is not None
    services.hand_leave(hand_id=hand.pk, user=four[2])
    lines = {(e.user_id, e.kind): e.amount for e in LedgerEntry.objects.filter(hand=hand)}
    assert lines[(four[2].pk, "escape_penalty")] == -3 * (100_000 + 100_000)  # 100 % + 1 level
    # A casual table: the whole penalty goes to the house (docs/LADDER.md, "No faster than play").
    assert lines[(None, "escape_penalty")] == 600_000
    assert not any(kind == "escape_compensation" for _user, kind in lines)
    assert not LedgerEntry.objects.filter(kind="shortfall").exists()
    assert balance(four[2]) == needed - 600_000
    ladder_check_ok()


# --- finding 3: the minimum balance was checked only when sitting -----------------------------


@pytest.mark.django_db
def test_regression_minimum_balance_checked_before_every_hand() -> None:
    """Seed 000 §1.4: a hand starts only if everyone seated still meets the table's conditions.
    Four players hold 50 more than the table needs; whoever loses the first hand (at least S)
    no longer does: they are stood up with a chat line, and the table waits."""
    stake = 100
    needed = points_needed_for(preset_name="ranked", stake=stake, min_balance=0)
    users = holding(needed + 50, "edge", 4)
    table = make_table(users[0], ranked=False, preset_name="ranked", stake=stake)
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    hand = None
    for user in users:
        hand = services.seat_ready(table_id=table.pk, user=user) or hand
    assert hand is not None
    for user in users:  # ready again during the hand: the next would start at once
        services.seat_ready(table_id=table.pk, user=user)
    hand = play_out(deal_and_close(hand), users)
    losers = [u for u in users if balance(u) < needed]
    assert len(losers) == 2 and all(balance(u) >= needed for u in users if u not in losers)
    assert not Seat.objects.filter(table=table, user__in=losers).exists()  # stood up
    lines = list(ChatLine.objects.filter(table=table, system=True).values_list("text", flat=True))
    assert sum("stands up" in line for line in lines) == 2
    assert Hand.objects.filter(match__table=table).count() == 1  # the table waits
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN
    # A loser cannot sit back down, and a balance lowered between hands is caught the same way.
    free = Seat.objects.filter(table=table, user=None).values_list("index", flat=True).first()
    assert free is not None
    refused(
        "insufficient_balance",
        lambda: services.seat_take(table_id=table.pk, user=losers[0], index=free),
    )
    winner = next(u for u in users if u not in losers)
    ladder_points_adjust(
        user=winner, account="table", amount=needed - balance(winner) - 1, reason="t", by=None
    )
    services.seat_ready(table_id=table.pk, user=winner)
    assert not Seat.objects.filter(table=table, user=winner).exists()
    ladder_check_ok()


@pytest.mark.django_db(transaction=True)
def test_a_ready_locks_the_others_ladder_rows_only_when_the_hand_starts() -> None:
    """A ready that leaves others to press theirs checks balances without locking the others'
    ladder rows (a table's four readies do not queue on each other's rows); the ready that
    starts the hand locks every player's row, so no balance moves between check and start."""
    users = make_users(4, prefix="rowlock")
    table = make_table(users[0], ranked=False, preset_name="ranked", stake=100)
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    last_players_row = LadderProfile.objects.select_for_update().filter(user=users[3])
    with rows_locked_elsewhere(last_players_row.get):  # another transaction holds it
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")
        for user in users[:3]:
            assert services.seat_ready(table_id=table.pk, user=user) is None
        with pytest.raises(OperationalError):
            services.seat_ready(table_id=table.pk, user=users[3])
        assert not Hand.objects.filter(match__table=table).exists()
        assert Seat.objects.filter(table=table, ready=True).count() == 3
    assert services.seat_ready(table_id=table.pk, user=users[3]) is not None


# --- finding 8: a ranked hand started with a player away ---------------------------------------


def ranked_four(prefix: str) -> tuple[list[User], Table]:
    users = make_users(4, prefix=prefix)
    table = services.ranked_table_open(
        users=users,
        name=f"{prefix} ranked",
        stake=50,
        play_seconds=30,
        bury_seconds=30,
        bid_window_seconds=0,
        deal_interval_ms=0,
    )
    return users, table


def grace_ends(table: Table, index: int) -> bool:
    seat = Seat.objects.get(table=table, index=index)
    assert seat.disconnected_at is not None
    return services.seat_takeover(seat_id=seat.pk, since=seat.disconnected_at.isoformat())


@pytest.mark.django_db
def test_regression_ranked_hand_starts_with_a_player_away() -> None:
    """Seat 3 pressed ready and left; after the grace the bot held the seat, the others pressed
    ready, and a ranked hand started and was settled. Now a ranked hand starts only with all
    four connected, and the away player's seat is freed after the grace."""
    users, table = ranked_four("away")
    for index, user in enumerate(users):
        services.seat_connected(table_id=table.pk, user=user, channel_name=f"away-{index}")
    services.seat_ready(table_id=table.pk, user=users[3])
    services.seat_disconnected(channel_name="away-3")  # pressed ready and left
    for user in users[:3]:
        assert services.seat_ready(table_id=table.pk, user=user) is None  # seat 3 is away
    assert grace_ends(table, 3)
    seat = Seat.objects.get(table=table, index=3)
    assert seat.user is None and not seat.bot  # freed, not held by the bot
    assert not Hand.objects.filter(match__table=table).exists()
    # Before the table's first hand that is a no-show: the table closes, the three who came
    # queue again (docs/LADDER.md, "Quick-match no-shows"); readying starts nothing.
    with pytest.raises(ApplicationError) as error:
        services.seat_ready(table_id=table.pk, user=users[0])
    assert error.value.code == "table_closed"
    assert not Hand.objects.filter(match__table=table).exists()


@pytest.mark.django_db
def test_regression_ranked_quick_match_player_who_never_comes_is_stood_up() -> None:
    users, table = ranked_four("never")
    for index, user in enumerate(users[:3]):
        services.seat_connected(table_id=table.pk, user=user, channel_name=f"never-{index}")
        services.seat_ready(table_id=table.pk, user=user)
    assert services.seat_ready(table_id=table.pk, user=users[3]) is None  # ready, never came
    assert (Seat.objects.get(table=table, index=3).pk, None) in [
        (pk, None) for pk, _ in services.seats_takeover_overdue(grace_s=-1)
    ]  # the sweeper finds them if the grace task is lost
    assert grace_ends(table, 3)
    assert Seat.objects.get(table=table, index=3).user is None
    assert not Hand.objects.filter(match__table=table).exists()


@pytest.mark.django_db
def test_ranked_hand_starts_when_all_four_are_connected_and_ready() -> None:
    users, table = ranked_four("here")
    for index, user in enumerate(users):
        services.seat_connected(table_id=table.pk, user=user, channel_name=f"here-{index}")
    hand = None
    for user in users:
        hand = services.seat_ready(table_id=table.pk, user=user) or hand
    assert hand is not None and not HandSettlement.objects.filter(hand=hand).exists()
    hand = play_out(deal_and_close(hand), users)
    settled = HandSettlement.objects.get(hand=hand)
    assert settled.ranked and not settled.practice
    assert RatingChange.objects.filter(hand=hand).count() == 4
    ladder_check_ok()


# --- ranked tables come only from quick match -------------------------------------------------


@pytest.mark.django_db
def test_regression_ranked_table_only_through_quick_match() -> None:
    """Nobody picks their ranked opponents or partner: no ranked table from the service's
    public face, the form or the page; no seat at one except through quick match."""
    _users, table = ranked_four("picked")
    (friend,) = make_users(1, prefix="friend")
    refused(
        "ranked_quick_match_only",
        lambda: services.table_create(creator=friend, name="mine", ranked=True),
    )
    page = login(friend).post(
        "/tables/new/",
        {"name": "mine", "mode": "ranked", "preset": "ranked", "stake": "50",
         "min_balance": "0", "play_seconds": "20"},
    )  # fmt: skip
    assert page.status_code == 400 and not Table.objects.filter(name="mine").exists()
    # A seat comes free, however (leaving it closes the table: test_dead_ranked_table.py).
    Seat.objects.filter(table=table, index=1).update(user=None, ready=False)
    refused(
        "ranked_quick_match_only",
        lambda: services.seat_take(table_id=table.pk, user=friend, index=1),
    )
    html = login(friend).post(f"/tables/{table.pk}/sit/", {"seat": "1"}, follow=True)
    assert "(ranked_quick_match_only)" in html.content.decode()
    assert Seat.objects.get(table=table, index=1).user is None


# --- finding 11: two tables at once ---------------------------------------------------------


@pytest.mark.django_db
def test_regression_two_tables_at_once_over_http_and_quick_match() -> None:
    (user,) = make_users(1, prefix="twice")
    first, second = (make_table(user, ranked=False, preset_name="seed002") for _ in range(2))
    client = login(user)
    assert (
        "You sit at seat 0."
        in client.post(f"/tables/{first.pk}/sit/", {"seat": "0"}, follow=True).content.decode()
    )
    html = client.post(f"/tables/{second.pk}/sit/", {"seat": "0"}, follow=True).content.decode()
    # Named, with a link to it (issue 33), and no code.
    assert f"leave your seat at table {first.pk}, “test table”, first" in html
    assert f'<a href="/tables/{first.pk}/">test table</a>' in html
    assert "(seated_elsewhere)" not in html
    refused("seated_elsewhere", lambda: services.seat_take(table_id=second.pk, user=user, index=1))
    refused("seated_elsewhere", lambda: matchmaking.queue_join(user=user))
    refused(
        "seated_elsewhere",
        lambda: services.ranked_table_open(
            users=[user, *make_users(3, prefix="qm")], name="qm", stake=50
        ),
    )
    assert list(Seat.objects.filter(user=user).values_list("table_id", flat=True)) == [first.pk]


@pytest.mark.django_db
def test_a_hand_not_yet_wrapped_up_elsewhere_counts_as_seated() -> None:
    """Removed from a seat by an admin mid-hand, a player is still in that hand (settled as if
    present at its end): no second table until it is over."""
    users = make_users(4, prefix="removed")
    (admin,) = make_users(1, prefix="admin")
    table = make_table(users[0], ranked=False)
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    for user in users:
        services.seat_ready(table_id=table.pk, user=user)
    services.seat_remove(table_id=table.pk, index=2, actor=admin)
    other = make_table(admin, ranked=False)
    refused(
        "seated_elsewhere", lambda: services.seat_take(table_id=other.pk, user=users[2], index=0)
    )


@pytest.mark.django_db(transaction=True)
def test_regression_two_tables_at_once_race(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two sits by one user at two tables at the same moment, each on its own connection: both
    pass their table's locks before either checks the other table; the ladder row lock makes
    the second see the first. At most one seat."""
    (user,) = make_users(1, prefix="racer")
    tables = [make_table(user, ranked=False, preset_name="seed002") for _ in range(2)]
    together = threading.Barrier(2, timeout=10)
    lock = ladder_profiles_lock

    def both_then_lock(**kwargs: Any) -> Any:
        together.wait()  # both sits hold their own table and seats here
        return lock(**kwargs)

    monkeypatch.setattr("games.services.tables.ladder_profiles_lock", both_then_lock)
    codes: list[str] = []

    def sit(table: Table) -> None:
        try:
            services.seat_take(table_id=table.pk, user=user, index=0)
            codes.append("seated")
        except ApplicationError as error:
            codes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=sit, args=(table,)) for table in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(codes) == ["seated", "seated_elsewhere"]
    assert Seat.objects.filter(user=user).count() == 1


@pytest.mark.django_db(transaction=True)
async def test_regression_two_tables_at_once_over_the_socket(redis_url: str) -> None:
    def setup() -> tuple[User, Table, Table]:
        (user,) = make_users(1, prefix="sock")
        first, second = (make_table(user, ranked=False, preset_name="seed002") for _ in range(2))
        services.seat_take(table_id=first.pk, user=user, index=0)
        return user, first, second

    user, first, second = await database_sync_to_async(setup)()
    headers = await database_sync_to_async(session_headers)(user)
    socket = WebsocketCommunicator(application, f"/ws/table/{second.pk}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    await socket.send_json_to({"type": "sit", "seat": 1})
    for _ in range(20):
        frame = await socket.receive_json_from(timeout=10)
        if frame["type"] == "error":
            break
    assert frame["code"] == "seated_elsewhere"
    await socket.disconnect()
    seats = await database_sync_to_async(
        lambda: list(Seat.objects.filter(user=user).values_list("table_id", flat=True))
    )()
    assert seats == [first.pk]
