"""Building tables and driving hands in tests, through the services only."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from django.db import connection, transaction
from django.test import Client

from accounts.models import User
from games import services
from games.handstate import load_state
from games.models import Hand, Table
from games.services.deadlines import hand_advance
from games.services.hands import table_act
from games.services.optimistic import Mover, move_by_statement
from games.services.wrap_up import wrapped_up
from ladder.services import ladder_points_adjust
from shengji.engine import legal_actions
from tests.https import HTTPS

FAST = {"play_seconds": 30, "bury_seconds": 30, "bid_window_seconds": 0, "deal_interval_ms": 0}


# Table points each test player holds (besides the sign-up grant): enough for any table these
# tests open. A player needs what one hand can take to sit (docs/LADDER.md); the tests of that
# rule (tests/*/test_trust_*.py) make their players' balances themselves.
BANKROLL = 100_000


def make_users(n: int = 4, prefix: str = "player", bankroll: int = BANKROLL) -> list[User]:
    users = [
        User.objects.create_user(f"{prefix}{i}", password="pw-long-enough-1") for i in range(n)
    ]
    for user in users:
        if bankroll:
            ladder_points_adjust(
                user=user, account="table", amount=bankroll, reason="test bankroll", by=None
            )
    return users


def make_table(creator: User, **options: Any) -> Table:
    settings = {**FAST, **options}
    return services.table_create(creator=creator, name="test table", **settings)


def seat_all(table: Table, users: list[User]) -> Hand:
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    hand = None
    for user in users:
        hand = services.seat_ready(table_id=table.pk, user=user) or hand
    assert hand is not None
    return hand


def ranked_table(users: list[User], **options: Any) -> Table:
    """A ranked table as quick match makes one (the only way: docs/LADDER.md), its four
    players connected (a socket each, as the table page opens), not ready."""
    timings = {**FAST, **options}
    table = services.ranked_table_open(users=users, name="ranked test table", stake=50, **timings)
    for index, user in enumerate(users):
        services.seat_connected(table_id=table.pk, user=user, channel_name=f"t{table.pk}-{index}")
    return table


def ready_all(table: Table, users: list[User]) -> Hand:
    hand = None
    for user in users:
        hand = services.seat_ready(table_id=table.pk, user=user) or hand
    assert hand is not None
    return hand


def fresh(hand: Hand) -> Hand:
    return Hand.objects.get(pk=hand.pk)


def advance(hand: Hand) -> bool:
    hand = fresh(hand)
    return hand_advance(hand_id=hand.pk, seq=hand.seq)


def deal_and_close(hand: Hand) -> Hand:
    """Draw every card (deal interval 0), then close the bid window (window 0 s). With a Celery
    worker running, its deadline task may move the hand first: then the hand is further on."""
    while load_state(fresh(hand)).phase in ("dealing", "bidding"):
        before = fresh(hand).seq
        if not advance(hand) and not _moved_on_soon(hand, before):
            raise AssertionError("the hand did not move")
    return fresh(hand)


def _moved_on_soon(hand: Hand, seq: int, wait_s: float = 5.0) -> bool:
    """Whether the hand moves past ``seq`` within ``wait_s``: a worker's deadline task may be
    moving it (its transaction not yet committed) when the test's own advance finds nothing
    to do."""
    give_up = time.monotonic() + wait_s
    while fresh(hand).seq == seq:
        if time.monotonic() > give_up:
            return False
        time.sleep(0.05)
    return True


def hand_act(*, hand_id: int, user: User, text: str, seq: int) -> Hand:
    """``text`` as the hand's log writes it ("play 2 AS"), made by ``user`` through the socket's
    locking path (``table_act``: the seat is the user's own, as no message names one), then
    wrapped up here when it ended the hand, as the worker would."""
    kind, _, rest = text.partition(" ")
    table_id = Hand.objects.values_list("match__table_id", flat=True).get(pk=hand_id)
    hand = table_act(table_id=table_id, user=user, kind=kind, cards=rest.partition(" ")[2], seq=seq)
    return wrapped_up(hand)


def act_as_bot_would(hand: Hand, users: Sequence[User | None]) -> str:
    """The seat in turn plays the first legal action the engine offers, through hand_act (as
    its user: `users` may hold None for the seats the test never lets act)."""
    hand = fresh(hand)
    state = load_state(hand)
    seat = state.to_act
    assert seat is not None
    user = users[seat]
    assert user is not None
    text = str(legal_actions(state, seat)[0])
    hand_act(hand_id=hand.pk, user=user, text=text, seq=hand.seq)
    return text


def play_out(hand: Hand, users: list[User]) -> Hand:
    while fresh(hand).status == Hand.Status.PLAYING:
        act_as_bot_would(hand, users)
    return fresh(hand)


def logged_in(user: User) -> Client:
    """A browser-like client (HTTPS) logged in as ``user``."""
    client = Client(**HTTPS)
    client.force_login(user)
    return client


@contextlib.contextmanager
def rows_locked_elsewhere(lock: Callable[[], object], hold_s: float = 30) -> Iterator[None]:
    """While the block runs, another connection (a thread's) holds in an open transaction the
    rows ``lock`` takes with ``select_for_update``. Needs a transactional test."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                lock()
                locked.set()
                release.wait(hold_s)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(10), "the other connection never took the lock"
        yield
    finally:
        release.set()
        holder.join(hold_s)


async def statement_move(*, table_id: int, mover: Mover, kind: str, cards: str, seq: int) -> bool:
    """The move by the one statement and then its task, as ``services.move`` makes it before
    any locking path; False when the statement did not take it (nothing was written)."""
    moved = await move_by_statement(table_id=table_id, mover=mover, kind=kind, cards=cards, seq=seq)
    if moved is None:
        return False
    if moved.task_due:
        await moved.send_task()
    return True
