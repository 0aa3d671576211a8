"""The one-statement move (games/services/optimistic.py): made against what the process
learnt from its last move at the table, written only if the hand, its seats and the mover's
session are still as learnt; otherwise nothing is written and the locking path decides.

Real PostgreSQL: the statement runs on a connection of its own, so these tests commit."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.errors import ApplicationError
from accounts.models import User
from games import services
from games.handstate import forget_states, kept_state, load_state, remember_state
from games.models import Action, Hand, Seat, Table
from games.services.hands import table_act
from games.services.movefacts import known_facts
from games.services.optimistic import Mover
from shengji.engine import HandState, legal_actions, view_for
from tests.games.helpers import (
    deal_and_close,
    fresh,
    hand_act,
    logged_in,
    make_table,
    make_users,
    seat_all,
    statement_move,
)

pytestmark = pytest.mark.django_db(transaction=True)


def mover(user: User) -> Mover:
    """The user on a logged-in socket, as its last full session check found them."""
    client = logged_in(user)
    password = User.objects.get(pk=user.pk).password
    return Mover(user.pk, password, client.session.session_key, str(user))


def in_play() -> tuple[Table, list[User], Hand]:
    users = make_users()
    table = make_table(users[0])
    return table, users, deal_and_close(seat_all(table, users))


def first_legal(hand: Hand, choice: int = 0) -> tuple[int, str, str, int]:
    """The seat in turn, a legal action's kind and cards, and the hand's seq."""
    hand = fresh(hand)
    state = load_state(hand)
    seat = state.to_act
    assert seat is not None
    actions = legal_actions(state, seat)
    kind, _seat, cards = str(actions[min(choice, len(actions) - 1)]).split(" ", 2)
    return seat, kind, cards, hand.seq


def locking_move(table: Table, users: list[User], hand: Hand) -> int:
    """The seat in turn moves by the locking path (which leaves the facts); the new seq."""
    seat, kind, cards, seq = first_legal(hand)
    table_act(table_id=table.pk, user=users[seat], kind=kind, cards=cards, seq=seq)
    return seq + 1


def optimistic(table: Table, users: list[User], hand: Hand, choice: int = 0) -> bool:
    seat, kind, cards, seq = first_legal(hand, choice)
    return async_to_sync(statement_move)(
        table_id=table.pk, mover=mover(users[seat]), kind=kind, cards=cards, seq=seq
    )


def log_of(hand: Hand) -> list[tuple[int, int | None, str]]:
    return list(Action.objects.filter(hand=hand).order_by("seq").values_list("seq", "seat", "text"))


def test_after_a_locking_move_the_next_is_one_statement_with_the_same_effects() -> None:
    table, users, hand = in_play()
    seq = locking_move(table, users, hand)
    facts = known_facts(table.pk)
    assert facts is not None and (facts.hand_id, facts.seq) == (hand.pk, seq)

    seat, kind, cards, _ = first_legal(hand)
    before = fresh(hand)
    who = mover(users[seat])
    started = timezone.now()
    with CaptureQueriesContext(connection) as django_queries:
        moved = async_to_sync(statement_move)(
            table_id=table.pk, mover=who, kind=kind, cards=cards, seq=seq
        )
    assert moved
    assert len(django_queries) == 0  # the statement went on the event loop's own connection

    after = fresh(hand)
    assert after.seq == seq + 1
    assert log_of(hand)[-1] == (seq, seat, f"{kind} {seat} {cards}")
    assert not Action.objects.get(hand=hand, seq=seq).auto
    state = load_state(after)
    play_s = state.rules.play_s
    assert after.deadline is not None
    assert timedelta(seconds=play_s - 5) < after.deadline - started < timedelta(seconds=play_s + 5)
    snapshot = after.snapshot
    assert snapshot is not None
    assert datetime.fromisoformat(snapshot["deadline"]) == after.deadline
    assert (snapshot["phase"], snapshot["to_act"]) == (state.phase, state.to_act)
    assert snapshot["tricks_played"] == len(state.tricks)
    # The timer: kept when due no later than the new deadline and not yet past, else this seq's.
    kept = (
        before.timer_seq is not None
        and before.timer_at is not None
        and before.timer_at <= after.deadline
        and after.timer_seq == before.timer_seq
    )
    assert kept or (after.timer_seq, after.timer_at) == (after.seq, after.deadline)
    # The state kept in memory is the log's: replayed from the database it gives every view.
    kept_now = kept_state(hand.pk, after.seq)
    assert kept_now is not None
    forget_states()
    replayed = load_state(after)
    assert all(view_for(replayed, s) == view_for(kept_now, s) for s in range(4))
    assert known_facts(table.pk).seq == after.seq  # type: ignore[union-attr]


def test_a_move_losing_its_race_to_another_process_writes_nothing() -> None:
    """Another process moved first: this one's facts and state are a seq behind, its
    statement finds the hand moved on and writes nothing; the locking path then refuses the
    stale move."""
    table, users, hand = in_play()
    seq = locking_move(table, users, hand)
    behind = kept_state(hand.pk, seq)
    assert behind is not None
    seat, kind, cards, _ = first_legal(hand)
    hand_act(hand_id=hand.pk, user=users[seat], text=f"{kind} {seat} {cards}", seq=seq)
    remember_state(hand.pk, behind)  # as the other process left this one: a seq behind
    log = log_of(hand)

    assert not optimistic_at(table, users[seat], behind, seat, seq)
    assert log_of(hand) == log
    assert fresh(hand).seq == seq + 1
    with pytest.raises(ApplicationError) as refused:
        table_act(table_id=table.pk, user=users[seat], kind=kind, cards=cards, seq=seq)
    assert refused.value.code == "stale_seq"
    assert log_of(hand) == log


def optimistic_at(table: Table, user: User, state: HandState, seat: int, seq: int) -> bool:
    kind, _seat, cards = str(legal_actions(state, seat)[-1]).split(" ", 2)
    return async_to_sync(statement_move)(
        table_id=table.pk, mover=mover(user), kind=kind, cards=cards, seq=seq
    )


def seats_rev(hand: Hand) -> int:
    return Hand.objects.values_list("seats_rev", flat=True).get(pk=hand.pk)


def test_a_seat_changed_since_sends_the_move_down_the_locking_path() -> None:
    """A seat shown to spectators after the facts were learnt: the statement's seats_rev no
    longer matches, nothing is written; the locking path takes the move and learns the new
    seats, and the move after is one statement again, sent with the new audience."""
    table, users, hand = in_play()
    locking_move(table, users, hand)
    rev = seats_rev(hand)
    services.seat_show_hand(table_id=table.pk, user=users[2], allow=True)
    assert seats_rev(hand) == rev + 1
    log = log_of(hand)

    assert not optimistic(table, users, hand)
    assert log_of(hand) == log

    locking_move(table, users, hand)
    facts = known_facts(table.pk)
    assert facts is not None and facts.seats_rev == rev + 1 and facts.watchable[2]
    assert optimistic(table, users, hand)
    assert len(log_of(hand)) == len(log) + 2


def test_the_trigger_counts_only_the_seat_changes_a_move_depends_on() -> None:
    table, users, hand = in_play()
    seat = Seat.objects.get(table=table, index=1)
    rev = seats_rev(hand)
    Seat.objects.filter(pk=seat.pk).update(ready=False, connected=True, auto_ready=False)
    assert seats_rev(hand) == rev
    for change in ({"bot": True}, {"autopilot": True}, {"show_hand_to_spectators": True}):
        Seat.objects.filter(pk=seat.pk).update(**change)
    Seat.objects.filter(pk=seat.pk).update(user=None)
    assert seats_rev(hand) == rev + 4
    other = make_table(users[0])
    Seat.objects.filter(table=other, index=0).update(bot=True)  # no hand there: nothing
    assert seats_rev(hand) == rev + 4


def test_an_ended_session_or_a_changed_password_is_refused_by_the_statement() -> None:
    """The socket's session is checked inside the statement: a session logged out, or a
    password changed since the socket's last full check, writes nothing (the locking path's
    full check then ends the socket's session)."""
    table, users, hand = in_play()
    seq = locking_move(table, users, hand)
    seat, kind, cards, _ = first_legal(hand)
    player = users[seat]
    log = log_of(hand)

    ended = mover(player)
    from django.contrib.sessions.models import Session

    Session.objects.filter(session_key=ended.session_key).delete()
    act: Any = async_to_sync(statement_move)
    assert not act(table_id=table.pk, mover=ended, kind=kind, cards=cards, seq=seq)

    stale = mover(player)
    player.set_password("another-long-password-2")
    player.save()
    assert not act(table_id=table.pk, mover=stale, kind=kind, cards=cards, seq=seq)

    player.is_active = False
    player.save()
    suspended = mover(player)
    assert not act(table_id=table.pk, mover=suspended, kind=kind, cards=cards, seq=seq)
    assert log_of(hand) == log
    assert fresh(hand).seq == seq


def test_a_stranger_or_another_seat_never_moves_by_the_statement() -> None:
    table, users, hand = in_play()
    seq = locking_move(table, users, hand)
    seat, kind, cards, _ = first_legal(hand)
    log = log_of(hand)
    stranger = User.objects.create_user("stranger", password="pw-long-enough-1")
    act: Any = async_to_sync(statement_move)
    for who in (stranger, users[(seat + 1) % 4]):
        assert not act(table_id=table.pk, mover=mover(who), kind=kind, cards=cards, seq=seq)
    # A play of another seat's cards, in the mover's name: the engine refuses it here.
    other = (seat + 1) % 4
    state = kept_state(hand.pk, seq)
    assert state is not None
    # Two decks: the mover may hold the other copy of a card, so take one only the other holds.
    foreign = str(next(c for c in state.hands[other] if c not in state.hands[seat]))
    assert not act(table_id=table.pk, mover=mover(users[seat]), kind="play", cards=foreign, seq=seq)
    assert log_of(hand) == log


def move_connections() -> int:
    """Connections the optimistic move opened to this database (and keeps, idle)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE application_name = 'shengji-move' AND datname = current_database()"
        )
        return int(cursor.fetchone()[0])


async def test_sockets_move_by_the_statement_and_every_seat_gets_its_own_view(
    celery_worker: object, settings: Any
) -> None:
    """Four players on real sockets: after the bury (the locking path, which learns the facts)
    the plays go by the one statement, and each socket's last view is its seat's view of the
    state replayed from the log."""
    from channels.db import database_sync_to_async

    from tests.games.test_table_socket import choose, connect, setup_table, start_hand, whose_turn

    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id = await database_sync_to_async(setup_table)()
    peers = [await connect(table_id, user, f"seat-{i}") for i, user in enumerate(users)]
    try:
        await start_hand(peers, table_id)
        for _ in range(9):  # the bury, then two tricks
            peer = whose_turn(peers)
            kind, cards = choose(peer.hand_view)
            seq = peer.seq
            await peer.socket.send_json_to({"type": kind, "cards": cards, "seq": seq})
            for other in peers:
                await other.until(lambda f, s=seq: f["type"] == "view" and f["seq"] > s)
        assert await database_sync_to_async(move_connections)() >= 1

        def replayed() -> tuple[int, list[dict[str, Any]], str]:
            hand = Hand.objects.get(match__table_id=table_id, status=Hand.Status.PLAYING)
            forget_states()
            state = load_state(hand)
            assert hand.deadline is not None
            return hand.seq, [view_for(state, s) for s in range(4)], hand.deadline.isoformat()

        seq, views, deadline = await database_sync_to_async(replayed)()
        for index, peer in enumerate(peers):
            assert peer.seq == seq
            assert peer.hand_view == views[index]
            last = [f for f in peer.frames if f["type"] == "view"][-1]
            assert last["deadline"] == deadline  # the statement's deadline, as stored
    finally:
        for peer in peers:
            await peer.socket.disconnect()


async def test_the_movers_own_view_does_not_wait_for_the_deadline_tasks_publish(
    celery_worker: object, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bury 60 s, play 20 s: the first play's deadline comes before the bury's timer, so the
    bury by the statement sends a deadline task. Its publish is held here; the dealer's socket
    still gets its view at once (its handler does not wait for Celery), and once let go the
    task is sent for the bury's seq and is the hand's timer."""
    import threading

    from channels.db import database_sync_to_async

    from games import realtime
    from tests.games.test_table_socket import choose, connect, setup_table, start_hand, whose_turn

    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id = await database_sync_to_async(setup_table)(bury_seconds=60, play_seconds=20)
    peers = [await connect(table_id, user, f"seat-{i}") for i, user in enumerate(users)]
    gate, sent = threading.Event(), []
    publish = realtime.schedule_deadline
    buried_at: list[int] = []

    def held(hand_id: int, seq: int, deadline: datetime) -> None:
        if [seq] == buried_at:  # the bury's (the deal's own may still be on its way)
            gate.wait(30)
            sent.append(seq)
        publish(hand_id, seq, deadline)

    try:
        await start_hand(peers, table_id)
        monkeypatch.setattr(realtime, "schedule_deadline", held)
        dealer = whose_turn(peers)
        kind, cards = choose(dealer.hand_view)
        assert kind == "bury"
        seq = dealer.seq
        buried_at.append(seq + 1)
        await dealer.socket.send_json_to({"type": kind, "cards": cards, "seq": seq})
        await dealer.until(lambda f: f["type"] == "view" and f["seq"] > seq, timeout=5)
        assert sent == []  # the view came while the publish was held
        gate.set()
        for _ in range(100):
            if sent:
                break
            await asyncio.sleep(0.05)
        assert sent == [seq + 1]

        def timer() -> tuple[int | None, int]:
            hand = Hand.objects.get(match__table_id=table_id, status=Hand.Status.PLAYING)
            return hand.timer_seq, hand.seq

        assert await database_sync_to_async(timer)() == (seq + 1, seq + 1)
    finally:
        gate.set()
        for peer in peers:
            await peer.socket.disconnect()


async def test_the_movers_own_view_does_not_wait_for_the_rest_of_its_handler(
    celery_worker: object, settings: Any
) -> None:
    """A move also touches its socket's row when due (``_moved_is_presence``), in the same
    handler, after the statement. Here that row is locked by another connection, so the
    handler cannot finish; the mover still has its view at once, and exactly once (the group's
    copy, read after the handler, is not sent again)."""
    from channels.db import database_sync_to_async

    from games.models import SeatConnection
    from tests.games.helpers import rows_locked_elsewhere
    from tests.games.test_table_socket import choose, connect, setup_table, start_hand, whose_turn

    timeout_s = 3
    settings.SHENGJI_CONNECTION_TIMEOUT_S = timeout_s
    settings.SHENGJI_SOCKET_BURST = 1000
    users, table_id = await database_sync_to_async(setup_table)(bury_seconds=60, play_seconds=60)
    peers = [await connect(table_id, user, f"seat-{i}") for i, user in enumerate(users)]
    try:
        await start_hand(peers, table_id)
        dealer = whose_turn(peers)
        kind, cards = choose(dealer.hand_view)
        seq = dealer.seq
        await asyncio.sleep(timeout_s / 2)  # the move's touch of the socket's row is due
        index = peers.index(dealer)

        def lock_row() -> object:
            rows = SeatConnection.objects.select_for_update().filter(
                seat__table_id=table_id, seat__index=index
            )
            return list(rows)

        with rows_locked_elsewhere(lock_row, hold_s=20):
            await dealer.socket.send_json_to({"type": kind, "cards": cards, "seq": seq})
            await dealer.until(lambda f: f["type"] == "view" and f["seq"] > seq, timeout=5)
            assert await database_sync_to_async(move_connections)() >= 1  # by the statement
        for peer in peers:
            if peer.seq <= seq:
                await peer.until(lambda f: f["type"] == "view" and f["seq"] > seq)
        await asyncio.sleep(0.5)  # the handler has ended: the group's copy was read
        while not dealer.socket.output_queue.empty():
            await dealer.receive(1)
        views = [f for f in dealer.frames if f["type"] == "view" and f["seq"] == seq + 1]
        assert len(views) == 1
    finally:
        for peer in peers:
            await peer.socket.disconnect()


def test_the_same_move_sent_twice_at_once_is_logged_once() -> None:
    """A script firing its play on two sockets at the same instant: both statements target
    the same seq, one moves the hand, the other finds it moved and writes nothing."""

    table, users, hand = in_play()
    seq = locking_move(table, users, hand)
    seat, kind, cards, _ = first_legal(hand)
    who = mover(users[seat])
    log = log_of(hand)

    async def twice() -> list[bool]:
        return list(
            await asyncio.gather(
                *(
                    statement_move(table_id=table.pk, mover=who, kind=kind, cards=cards, seq=seq)
                    for _ in range(2)
                )
            )
        )

    results = async_to_sync(twice)()
    assert sorted(results) == [False, True]
    assert log_of(hand) == [*log, (seq, seat, f"{kind} {seat} {cards}")]
    assert fresh(hand).seq == seq + 1


def test_the_views_are_encoded_while_the_statement_is_on_its_way(monkeypatch: Any) -> None:
    """The move's views are made while PostgreSQL works on its statement, not after: here the
    hand's row is locked by another connection, and when the first view is made the statement
    is already waiting for that lock. Released, the move completes as ever."""
    import threading

    import psycopg

    from games import asyncdb
    from games.services import optimistic as optimistic_module

    table, users, hand = in_play()
    seq = locking_move(table, users, hand)
    seat, kind, cards, _ = first_legal(hand)
    who = mover(users[seat])
    locked, release = threading.Event(), threading.Event()

    def hold_the_hand() -> None:
        with psycopg.connect(**asyncdb._conninfo()) as conn:
            conn.execute("SELECT 1 FROM games_hand WHERE id = %s FOR UPDATE", [hand.pk])
            locked.set()
            release.wait(10)

    def statement_waiting() -> str | None:
        with psycopg.connect(**asyncdb._conninfo(), autocommit=True) as conn:
            for _ in range(200):
                row = conn.execute(
                    "SELECT wait_event_type FROM pg_stat_activity WHERE state = 'active'"
                    " AND application_name = 'shengji-move' AND datname = current_database()"
                ).fetchone()
                if row is not None and row[0] == "Lock":
                    return "Lock"
                time.sleep(0.001)  # the statement may still be on its way in
        return None

    seen: list[str | None] = []
    real_view_for = view_for  # the engine's, which the optimistic module imported

    def view_for_noting(state: HandState, seat: int) -> dict[str, Any]:
        if not seen:
            seen.append(statement_waiting())
            release.set()
        return real_view_for(state, seat)

    monkeypatch.setattr(optimistic_module, "view_for", view_for_noting)

    async def move_on_a_warm_pool() -> bool:
        async with asyncdb.pool().connection() as conn:
            await conn.execute("SELECT 1")  # the loop's connection open, as after a first move
        return await statement_move(table_id=table.pk, mover=who, kind=kind, cards=cards, seq=seq)

    holder = threading.Thread(target=hold_the_hand)
    holder.start()
    try:
        assert locked.wait(10)
        moved = async_to_sync(move_on_a_warm_pool)()
    finally:
        release.set()
        holder.join(10)
    assert seen == ["Lock"]
    assert moved
    assert fresh(hand).seq == seq + 1
    assert log_of(hand)[-1] == (seq, seat, f"{kind} {seat} {cards}")


def test_views_wanted_before_their_turn_are_made_then_and_only_once(monkeypatch: Any) -> None:
    """The statement answered before the loop's next turn: the views are made in the mover's
    task, and the turn that comes later makes nothing."""
    from games.services import optimistic as optimistic_module

    table, users, hand = in_play()
    seq = locking_move(table, users, hand)
    seat, kind, cards, _ = first_legal(hand)
    facts = known_facts(table.pk)
    assert facts is not None
    planned = optimistic_module.plan(facts, mover(users[seat]), kind, cards, seq)
    assert planned is not None
    made: list[int] = []
    real_views_of = optimistic_module._views_of

    def views_of_counted(planned: Any) -> Any:
        made.append(1)
        return real_views_of(planned)

    monkeypatch.setattr(optimistic_module, "_views_of", views_of_counted)

    async def wanted_at_once() -> tuple[Any, Any]:
        views = optimistic_module._ViewsSoon(planned)
        first = views.result()
        await asyncio.sleep(0.01)  # the turn they were due in has passed
        return first, views.result()

    first, again = async_to_sync(wanted_at_once)()
    assert first is again
    assert len(made) == 1
    encoded, shared = first
    assert encoded.seq == seq + 1 and len(encoded.frames) == 4
    assert shared["actions"] == [planned.action]
