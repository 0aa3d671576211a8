"""Fault drills on a whole site in separate processes (proof/drills.py; the
method and the figures at scale are in docs/proof/FAULTS.md, the bench is
bench/fault_drills.py): daphne killed mid-hand, the Celery worker killed with a deadline
pending, Redis restarted empty mid-hand or losing its data under live sockets, and a grace
period whose task was lost."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from django.utils import timezone

from games.models import Seat
from games.tasks import sweep
from proof import drills
from proof.drill_seat import DrillSeat
from proof.livesite import LiveSite
from tests.games.helpers import make_table, make_users, seat_all


# The module's tests share one site (the README's command runs a module on one process): the
# ladder check at the end reads what the drills settled.
@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSite]:
    base: Path = tmp_path_factory.mktemp("faults")
    live = LiveSite(base, env=drills.DRILL_ENV, supervise=True, worker_loglevel="INFO")
    try:
        live.start()
        yield live
    finally:
        live.stop()


def show(figures: dict[str, Any]) -> None:
    print(json.dumps(figures))


@pytest.mark.slow
@pytest.mark.site
def test_daphne_killed_mid_hand_loses_no_acknowledged_action(site: LiveSite) -> None:
    figures = asyncio.run(drills.daphne_kill_drill(site, tables=3, kills=1, hands=2, away_tables=1))
    show(figures)
    # Every socket saw its daphne die; all but the one that stays away came back to a state.
    assert figures["drops"] == 12 and figures["stayed_away"] == 1
    assert figures["resumes"] == figures["drops"] - figures["stayed_away"]
    assert figures["time_to_resume_s"]["max"] < 30
    # Nothing a player saw acknowledged is missing from the log.
    assert figures["actions"]["acknowledged"] > 100
    assert figures["actions"]["lost"] == 0, figures["actions"]["lost_samples"]
    # Two hands at the two full tables, the interrupted one at the third; each settled once.
    assert figures["hands_played"] == 5 and figures["hands_unfinished"] == 0
    assert figures["hands_settled_once"] == 5
    # The killed server left its socket rows behind: the one of the player who came back did
    # not stand for the player, the one of the player who stayed away did not keep the bot
    # out: it was forgotten, the grace period ran, the bot finished the hand for the seat.
    assert figures["takeovers_of_returning_seats"] == 0
    assert figures["takeovers_of_absent_seats"] == 1 and figures["absent_at_end"] == 1
    assert figures["sockets_left_open"] == 0


@pytest.mark.slow
@pytest.mark.site
def test_worker_killed_with_a_deadline_pending_fires_it_exactly_once(site: LiveSite) -> None:
    figures = asyncio.run(drills.worker_kill_drill(site, tables=1, rounds=(True, False)))
    show(figures)
    assert figures["pending_deadlines"] == 2
    # Every seat was played by its player (a seat the bot plays moves 0.1 s after its turn,
    # so its "pending" deadline would fire around the kill, not after it).
    assert figures["takeovers"] == 0
    after, before = figures["deadline_runs_per_pending_deadline"]
    # Restarted after the deadline: beat's queued sweeps sent it again and again; it ran many
    # times and moved the hand once. Restarted before: it ran when due, once.
    assert after >= 3 and before >= 1
    samples = figures["pending_samples"]
    assert figures["moves_logged_per_pending_deadline"] == [1, 1], samples
    assert figures["fires_per_pending_deadline"] == [1, 1], samples
    assert figures["extra_auto_moves"] == []
    assert figures["hands_played"] == 1 == figures["hands_settled_once"]
    assert figures["actions"]["lost"] == 0, figures["actions"]["lost_samples"]


@pytest.mark.slow
@pytest.mark.site
def test_redis_restarted_empty_mid_hand_every_client_resyncs(site: LiveSite) -> None:
    figures = asyncio.run(drills.redis_restart_drill(site, tables=2, restarts=1))
    show(figures)
    assert figures["clients"] == 8 and figures["clients_resynced"] == 8
    assert set(figures["close_codes"]) <= {1011, 4012}
    # The deadlines queued in the lost Redis came back through the sweeper, once each.
    assert figures["pending_deadlines"] >= 1
    assert set(figures["fires_per_pending_deadline"]) == {1}
    assert figures["extra_auto_moves"] == []
    assert figures["hands_played"] == 2 == figures["hands_settled_once"]
    assert figures["actions"]["lost"] == 0, figures["actions"]["lost_samples"]


@pytest.mark.slow
@pytest.mark.site
def test_sockets_that_outlive_redis_losing_its_data_are_closed_and_resync(site: LiveSite) -> None:
    async def drill() -> tuple[list[DrillSeat], float, dict[str, Any]]:
        table = drills.drill_tables(site, 1, hands=1, think=0.02)[0]
        runs = drills.start([table])
        # Wait for every socket's state: it is sent once the socket has joined its groups.
        await drills.wait_until(lambda: all(greeted(s) for s in table.seats), 30, "connected")
        flushed = time.monotonic()
        # Redis forgets every group, but no socket breaks: without the group watch they would
        # stay open and deaf (this is what a restart looks like to a socket that survived it).
        # Celery's keys stay: a worker that never lost its connection would not declare its
        # queue again.
        client = redis.Redis.from_url(site.redis.url)
        client.delete(*client.keys(f"{site.env['CHANNELS_PREFIX']}*"))
        back = drills.everyone_back(table.seats, flushed)
        with contextlib.suppress(TimeoutError):
            await drills.wait_until(back, 20, "resync")
        if not back():  # fail below, showing every drop
            for run in runs:
                run.cancel()
            return table.seats, flushed, {}
        await drills.finish(runs)
        pong = await table.seats[0].ask({"type": "ping"}, "pong")
        return table.seats, flushed, pong

    seats, flushed, pong = asyncio.run(drill())
    closes = [d for s in seats for d in s.drops if d.at >= flushed]
    drops = [(round(d.at - flushed, 2), d.code, d.back_at) for s in seats for d in s.drops]
    assert [d.code for d in closes] == [4012] * 4, drops
    assert all(d.back_at for d in closes), drops
    assert max(d.at - flushed for d in closes) < 5
    assert all(len(s.finished) == 1 for s in seats)  # and the hand played on to the end
    # The pong says where the table is, so a client can tell it missed a frame.
    assert pong["hand"] == seats[0].hand_id and pong["seq"] == seats[0].seq


def greeted(seat: DrillSeat) -> bool:
    return any(frame.get("type") == "state" for _at, _epoch, frame in seat.frames)


@pytest.mark.slow
@pytest.mark.site
def test_the_ladder_checks_clean_after_the_drills(site: LiveSite) -> None:
    """Every hand the drills above played, killed processes and a lost Redis included, was
    settled within the ladder's invariants (docs/LADDER.md): `manage.py ladder_check` exits 0."""
    hands = int(site.manage("shell", "-c", _SETTLED_HANDS).strip().splitlines()[-1])
    assert hands > 0  # the drills settled hands for the check to look at
    assert site.manage("ladder_check").startswith("ok:")


_SETTLED_HANDS = "from ladder.models import HandSettlement; print(HandSettlement.objects.count())"


@pytest.mark.django_db(transaction=True)
def test_the_sweeper_takes_a_seat_whose_grace_task_was_lost(
    celery_worker: object, settings: Any
) -> None:
    settings.SHENGJI_DISCONNECT_GRACE_S = 5
    users = make_users()
    table = make_table(users[0], play_seconds=60, bury_seconds=60)
    seat_all(table, users)
    away = Seat.objects.get(table=table, index=1)
    # Away for longer than the grace period, and no grace task ever ran (lost with Redis).
    Seat.objects.filter(pk=away.pk).update(
        connected=False, disconnected_at=timezone.now() - timedelta(seconds=7)
    )
    Seat.objects.filter(table=table).exclude(pk=away.pk).update(
        disconnected_at=timezone.now() - timedelta(seconds=2)  # still within the grace period
    )
    sweep()
    deadline = time.monotonic() + 20
    while not Seat.objects.get(pk=away.pk).bot and time.monotonic() < deadline:
        time.sleep(0.1)
    assert Seat.objects.get(pk=away.pk).bot
    assert not Seat.objects.filter(table=table, bot=True).exclude(pk=away.pk).exists()
