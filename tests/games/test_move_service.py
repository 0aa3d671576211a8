"""``services.move`` (games/services/moves.py), the one service a socket's move goes through:
the one statement when the process knows the hand, else the locking path in the caller's
database thread, which also decides every refusal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection

from accounts.errors import ApplicationError
from accounts.models import User
from games import services
from games.models import Action, Hand, Table
from games.services.hands import table_act
from games.services.moves import MoveMade
from tests.games.helpers import fresh
from tests.games.test_optimistic_move import first_legal, in_play, locking_move, mover

pytestmark = pytest.mark.django_db(transaction=True)


class Threads:
    """An ``in_thread`` that notes each service it runs."""

    def __init__(self) -> None:
        self.ran: list[Callable[..., Any]] = []

    async def __call__(self, function: Callable[..., Any], /, **kwargs: Any) -> Any:
        self.ran.append(function)

        def closing() -> Any:
            try:
                return function(**kwargs)
            finally:
                connection.close()  # the thread's own: none left open when the test ends

        return await sync_to_async(closing, thread_sensitive=False)()


def move_now(
    table: Table, users: list[User], hand: Hand, *, by_session: bool = True, stale: bool = False
) -> tuple[MoveMade, Threads, int]:
    """The seat in turn's first legal move through ``services.move``; what it made, the
    threads it ran, and the seq it was made at."""
    seat, kind, cards, seq = first_legal(hand)
    threads = Threads()
    made = async_to_sync(services.move)(
        table_id=table.pk,
        user=users[seat],
        mover=mover(users[seat]) if by_session else None,
        kind=kind,
        cards=cards,
        seq=seq - 1 if stale else seq,
        in_thread=threads,
    )
    return made, threads, seq


def logged(hand: Hand) -> int:
    return Action.objects.filter(hand=hand).count()


def test_a_move_the_process_knows_goes_by_the_statement_with_its_views_and_task() -> None:
    table, users, hand = in_play()
    locking_move(table, users, hand)  # the process learns the hand
    before = logged(hand)
    made, threads, seq = move_now(table, users, hand)
    assert threads.ran == []  # no database thread
    assert made.views is not None
    assert (made.views["hand"], made.views["seq"], made.views["prev"]) == (hand.pk, seq + 1, seq)
    assert len(made.views["frames"]) == 4
    assert (logged(hand), fresh(hand).seq) == (before + 1, seq + 1)
    timer = fresh(hand)
    assert (made.task is not None) == (timer.timer_seq == timer.seq)  # a task only when due


def test_without_a_checked_session_the_move_takes_the_locking_path() -> None:
    table, users, hand = in_play()
    locking_move(table, users, hand)
    before = logged(hand)
    made, threads, seq = move_now(table, users, hand, by_session=False)
    assert threads.ran == [table_act]
    assert (made.views, made.task) == (None, None)  # its views and task leave on its commit
    assert (logged(hand), fresh(hand).seq) == (before + 1, seq + 1)


def test_a_move_the_statement_does_not_take_is_made_once_by_the_locking_path() -> None:
    """The seats changed since the process learnt them: the statement writes nothing, and the
    locking path makes the move."""
    table, users, hand = in_play()
    locking_move(table, users, hand)
    services.seat_show_hand(table_id=table.pk, user=users[2], allow=True)
    before = logged(hand)
    made, threads, seq = move_now(table, users, hand)
    assert threads.ran == [table_act]
    assert made.views is None
    assert (logged(hand), fresh(hand).seq) == (before + 1, seq + 1)


def test_a_refused_move_is_the_locking_paths_refusal() -> None:
    table, users, hand = in_play()
    locking_move(table, users, hand)
    before = logged(hand)
    with pytest.raises(ApplicationError) as refused:
        move_now(table, users, hand, stale=True)
    assert refused.value.code == "stale_seq"
    assert logged(hand) == before
