"""Fault drills against a ``LiveSite``: daphne killed mid-hand, the Celery worker killed with a
deadline pending, Redis restarted without its data, and one table played across two daphne
processes. Used by ``tests/proof`` (small numbers) and ``bench/fault_drills.py`` (bigger ones).

Each seat is a ``drill_seat.DrillSeat`` (the basic bot over a WebSocket that survives its
socket); every action the seats sent is judged against the database log (``drill_seat.audit``:
acknowledged, lost, overtaken by a deadline, applied unacknowledged, not applied). A drill
returns its figures as a dict; the invariants are in the tests and the bench.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import redis

from proof.drill_seat import DrillSeat, audit
from proof.livesite import LiveSite

# Short timings for a drill's site, so a drill takes seconds: a socket not heard from for 15 s
# is forgotten (drill seats ping every second), the bot takes a seat 20 s after its player
# left, beat sweeps every second, each daphne checks its Redis groups every second. Not
# shorter: on a loaded machine (load average 20 on 2 cores) a daphne noted no ping of a live
# socket for 5 s, and a killed daphne took 16 s to serve again; with 5 s and 10 s the sweep
# forgot live sockets and the bot took seats whose players were there (docs/proof/FAULTS.md).
DRILL_ENV = {
    "SHENGJI_CONNECTION_TIMEOUT_S": "15",
    "SHENGJI_DISCONNECT_GRACE_S": "20",
    "SHENGJI_SWEEP_EVERY_S": "1",
    "SHENGJI_BOT_DELAY_MS": "100",
    "SHENGJI_GROUPS_CHECK_S": "1",
}
SETUP = "proof.livesetup"


# --- the site ------------------------------------------------------------------------------


def make_tables(site: LiveSite, count: int, **timings: Any) -> list[dict[str, Any]]:
    """``count`` tables of four new players (names of their own: a site serves many drills)."""
    prefix = f"d{uuid.uuid4().hex[:6]}t"
    found: list[dict[str, Any]] = site.call(
        f"{SETUP}.tables", count=count, prefix=prefix, **timings
    )
    return found


def seats_for(
    site: LiveSite,
    table: dict[str, Any],
    *,
    daphne_of: Callable[[int], int] = lambda seat: 0,
    **options: Any,
) -> list[DrillSeat]:
    """The four seats of ``table``; seat n talks to daphne ``daphne_of(n)``."""
    path = f"/ws/table/{table['id']}/"
    return [
        DrillSeat(
            site.ws_url(path, daphne_of(index)),
            person["session"],
            site.origin,
            name=person["username"],
            **options,
        )
        for index, person in enumerate(table["players"])
    ]


async def wait_until(test: Callable[[], bool], timeout: float, what: str) -> float:
    """Wait for ``test()``; the seconds it took."""
    started = time.monotonic()
    while not test():
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{what}: not within {timeout:.0f} s")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def restart(site: LiveSite, name: str) -> None:
    """Start a killed child again and wait until it serves (an ASGI process) or has started."""
    await asyncio.to_thread(site.start_process, name)
    index = site.asgi_index(name)
    if index is not None:
        await asyncio.to_thread(site.wait_for_http, index)


def in_hand(seat: DrillSeat, phases: Iterable[str] = ("playing",)) -> bool:
    return seat.view is not None and seat.view.get("phase") in set(phases)


def hand_ids(seats: Iterable[DrillSeat]) -> list[int]:
    return sorted({hand for s in seats for hand in s.finished} | {s.hand_id or 0 for s in seats})


def timing(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "max": None}
    return {"p50": round(statistics.median(values), 3), "max": round(max(values), 3)}


def broker_tasks(redis_url: str, queue: str = "celery") -> Counter[Any]:
    """The tasks waiting in the broker, queued or delivered to a worker that never acknowledged
    them (kombu's ``unacked`` hash: a worker killed holding a task leaves it there): a count
    per ``("hand_deadline", hand, seq)`` and per other task's short name (``"sweep"``)."""
    client = redis.Redis.from_url(redis_url)
    messages = [json.loads(raw) for raw in client.lrange(queue, 0, -1)]
    messages += [json.loads(raw)[0] for raw in client.hvals("unacked")]
    found: Counter[Any] = Counter()
    for message in messages:
        task = message.get("headers", {}).get("task", "").rsplit(".", 1)[-1]
        if task == "hand_deadline":
            args = json.loads(base64.b64decode(message["body"]))[0]
            found[(task, int(args[0]), int(args[1]))] += 1
        else:
            found[task] += 1
    return found


# --- the drills ----------------------------------------------------------------------------

# Long enough that no deadline fires while a seat's socket is down: every move in the log is
# then a player's, and a view with a higher seq acknowledges exactly the seat's own action.
SLOW_TIMINGS = {
    "play_seconds": 60,
    "bury_seconds": 60,
    "bid_window_seconds": 1,
    "deal_interval_ms": 0,
}
MID_HAND_WAIT_S = 180.0
AWAY_SEAT = 2  # on daphne0 with one daphne or two
STALL_SPREAD_S = 2.0
BACK_WAIT_S = 180.0
FINISH_WAIT_S = 120.0  # and as much again per hand still to play
CLOSE_SETTLE_S = 15.0


@dataclass
class DrillTable:
    id: int
    seats: list[DrillSeat]
    spectators: list[DrillSeat] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return all(s.away or len(s.finished) >= s.goal for s in self.seats)

    def mid_hand(self) -> bool:
        present = [s for s in self.seats if not s.away]
        return bool(present) and in_hand(present[0], ("burying", "playing"))


def drill_tables(
    site: LiveSite,
    count: int,
    *,
    hands: int,
    think: float,
    ranked: bool = False,
    timings: dict[str, Any] | None = None,
) -> list[DrillTable]:
    """``count`` new tables; seat n of each talks to daphne n mod (number of daphnes)."""
    made = make_tables(site, count, ranked=ranked, **{**SLOW_TIMINGS, **(timings or {})})
    daphnes = len(site.http_ports)
    return [
        DrillTable(
            table["id"],
            seats_for(site, table, daphne_of=lambda n: n % daphnes, think=think, goal=hands),
        )
        for table in made
    ]


def start(tables: list[DrillTable]) -> list[asyncio.Task[None]]:
    loop = asyncio.get_running_loop()
    return [loop.create_task(seat.run()) for table in tables for seat in table.seats]


async def finish(runs: list[asyncio.Task[None]], hands: int = 1) -> None:
    await asyncio.wait_for(asyncio.gather(*runs), FINISH_WAIT_S * (1 + hands))


def all_seats(tables: list[DrillTable]) -> list[DrillSeat]:
    return [seat for table in tables for seat in table.seats]


async def all_mid_hand(tables: list[DrillTable]) -> None:
    await wait_until(
        lambda: all(t.mid_hand() for t in tables if not t.done), MID_HAND_WAIT_S, "mid-hand"
    )


def on_daphne(site: LiveSite, seats: list[DrillSeat], daphne: int) -> list[DrillSeat]:
    port = f":{site.http_ports[daphne]}/"
    return [s for s in seats if port in s.url]


def back_after(seat: DrillSeat, moment: float) -> bool:
    return any(d.at >= moment and d.back_at is not None for d in seat.drops)


def everyone_back(seats: list[DrillSeat], since: float) -> Callable[[], bool]:
    return lambda: all(back_after(s, since) for s in seats)


def all_moved_on(stalled: list[tuple[DrillSeat, int, int]]) -> Callable[[], bool]:
    return lambda: all(moved_on_at(s, hand, seq) for s, hand, seq in stalled)


def resume_times(seats: list[DrillSeat], since: float = 0.0) -> list[float]:
    return [d.resume_s for s in seats for d in s.drops if d.at >= since and d.resume_s is not None]


async def collect(
    site: LiveSite, tables: list[DrillTable]
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The logs of every hand the drill's seats took part in, and each table's report."""
    ids = hand_ids(s for t in tables for s in [*t.seats, *t.spectators])
    logs = await asyncio.to_thread(site.call, f"{SETUP}.hand_logs", hand_ids=ids)
    reports = {}
    for table in tables:
        reports[table.id] = await asyncio.to_thread(
            site.call, f"{SETUP}.table_report", table_id=table.id
        )
    return logs, reports


def open_sockets(reports: dict[int, dict[str, Any]]) -> int:
    """Socket rows still in the database (a socket the server has not forgotten)."""
    return sum(seat["sockets"] for report in reports.values() for seat in report["seats"])


async def collect_when_closed(
    site: LiveSite, tables: list[DrillTable]
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """``collect`` once the server has handled the last closes: a client's close completes
    before the server's disconnect handler has deleted the socket's row (up to
    ``CLOSE_SETTLE_S``; a row left after that is reported as an open socket)."""
    deadline = time.monotonic() + CLOSE_SETTLE_S
    logs, reports = await collect(site, tables)
    while open_sockets(reports) and time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        logs, reports = await collect(site, tables)
    return logs, reports


def takeovers(report: dict[str, Any]) -> int:
    """Bot takeovers before the table's last hand ended (after it, the drill's sockets are
    closed and the seats' players are away for good)."""
    lines = report["system_lines"]
    ends = [i for i, line in enumerate(lines) if re.match(r"hand \d+: ", line)]
    during = lines[: ends[-1]] if ends else lines
    return sum("the bot plays seat" in line for line in during)


def hands_summary(reports: dict[int, dict[str, Any]]) -> dict[str, int]:
    hands = [h for report in reports.values() for h in report["hands"]]
    ended = [h for h in hands if h["status"] in ("finished", "escaped")]
    return {
        "hands_played": len(ended),
        "hands_settled_once": sum(h["settlements"] == 1 for h in ended),
        "hands_unfinished": sum(h["status"] == "playing" for h in hands),
    }


async def daphne_kill_drill(
    site: LiveSite,
    *,
    tables: int = 3,
    kills: int = 1,
    hands: int = 2,
    think: float = 0.05,
    away_tables: int = 0,
    timings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """kill -9 a daphne in the middle of hands and start it again, ``kills`` times (taking the
    daphnes in turn). At the first ``away_tables`` tables seat 2 (on daphne0, killed first)
    does not come back after the first kill; those tables play only the hand then in
    progress."""
    drill = drill_tables(site, tables, hands=hands, think=think, timings=timings)
    for table in drill[:away_tables]:
        table.seats[AWAY_SEAT].come_back = False
    runs = start(drill)
    restarts: list[float] = []
    for number in range(kills):
        await all_mid_hand(drill)
        if number == 0:
            for table in drill[:away_tables]:
                for seat in table.seats:
                    seat.goal = len(seat.finished) + 1
        daphne = number % len(site.http_ports)
        live = [s for s, run in zip(all_seats(drill), runs, strict=True) if not run.done()]
        hit = on_daphne(site, live, daphne)
        killed_at = time.monotonic()
        await asyncio.to_thread(site.kill, site.asgi_name(daphne))
        await restart(site, site.asgi_name(daphne))
        restarts.append(time.monotonic() - killed_at)
        coming = [s for s in hit if s.come_back]
        await wait_until(everyone_back(coming, killed_at), BACK_WAIT_S, "seats back")
    await finish(runs, hands)
    logs, reports = await collect_when_closed(site, drill)
    seats = all_seats(drill)
    away_reports = [reports[t.id] for t in drill[:away_tables]]
    return {
        "drill": "daphne_kill",
        "tables": tables,
        "daphnes": len(site.http_ports),
        **hands_summary(reports),
        "daphne_kills": kills,
        "daphne_restart_s": timing(restarts),
        "drops": sum(len(s.drops) for s in seats),
        "close_codes": dict(Counter(d.code or 0 for s in seats for d in s.drops)),
        "resumes": sum(d.back_at is not None for s in seats for d in s.drops),
        "stayed_away": sum(s.away for s in seats),
        "time_to_resume_s": timing(resume_times(seats)),
        "actions": audit(seats, logs),
        "takeovers_of_returning_seats": sum(takeovers(reports[t.id]) for t in drill[away_tables:]),
        "takeovers_of_absent_seats": sum(takeovers(r) for r in away_reports),
        "absent_at_end": sum(
            p["absent_at_end"] for r in away_reports for h in r["hands"] for p in h["players"]
        ),
        "sockets_left_open": open_sockets(reports),
        "auto_moves": sum(a["auto"] for log in logs.values() for a in log["actions"]),
    }


def moved_on_at(seat: DrillSeat, hand: int, seq: int) -> float | None:
    """When the seat first heard of its hand past ``seq``."""
    for at, _epoch, frame in seat.frames:
        if frame.get("type") == "view" and frame["hand"] == hand and frame["seq"] > seq:
            return at
        state_hand = frame.get("hand") if frame.get("type") == "state" else None
        if state_hand and state_hand["id"] == hand and state_hand["seq"] > seq:
            return at
    return None


def fires(logs: dict[str, Any], pending: list[tuple[int, int, int]]) -> list[int]:
    """For each pending deadline (hand, seq, seat): how many automatic moves it made."""
    counts = []
    for hand, seq, seat in pending:
        actions = logs[str(hand)]["actions"]
        counts.append(sum(a["seq"] == seq and a["auto"] and a["seat"] == seat for a in actions))
    return counts


def extra_auto_moves(logs: dict[str, Any], pending: list[tuple[int, int, int]]) -> list[str]:
    """Automatic moves that no pending deadline explains (a duplicate would show here)."""
    expected = {(hand, seq) for hand, seq, _seat in pending}
    return [
        f"hand {hand} #{a['seq']}: {a['text']}"
        for hand, log in logs.items()
        for a in log["actions"]
        if a["auto"] and (int(hand), a["seq"]) not in expected
    ]


async def stall(
    tables: list[DrillTable], seat: int, *, within: float
) -> list[tuple[DrillSeat, int, int]]:
    """Seat ``seat`` of every table lets its next turn of play pass. After the first stall the
    others get ``within`` seconds (an older stall's deadline could fire before the fault comes);
    returns the stalls still pending, as (seat, hand, seq)."""
    stallers = [t.seats[seat] for t in tables]
    before = [len(s.stalled) for s in stallers]
    for staller in stallers:
        staller.stall_next = True

    def stalled() -> list[DrillSeat]:
        return [s for s, n in zip(stallers, before, strict=True) if len(s.stalled) > n]

    await wait_until(lambda: bool(stalled()), MID_HAND_WAIT_S, "a stall")
    with contextlib.suppress(TimeoutError):
        await wait_until(lambda: len(stalled()) == len(stallers), within, "every stall")
    for staller in stallers:
        staller.stall_next = False
    return [(s, *s.stalled[-1]) for s in stalled() if (s.hand_id, s.seq) == s.stalled[-1]]


async def worker_kill_drill(
    site: LiveSite,
    *,
    tables: int = 1,
    rounds: tuple[bool, ...] = (True, False),
    think: float = 0.05,
    play_seconds: int = 8,
    sweep_s: float = 1.0,
) -> dict[str, Any]:
    """A seat lets its turn pass; the worker is killed (kill -9) before the deadline and
    started again after it (round True) or before it (round False).

    After the deadline, with no worker, beat keeps queueing the sweep; the restarted worker
    runs every queued sweep, each of which sends the overdue deadline again, so one deadline
    is delivered several times. The worker's log says how often it ran and how often it moved
    the hand (``deadline hand=… seq=… moved|no-op``); the database, how many moves it made."""
    drill = drill_tables(
        site,
        tables,
        hands=1,
        think=think,
        timings={"play_seconds": play_seconds, "bury_seconds": play_seconds},
    )
    runs = start(drill)
    pending: list[tuple[int, int, int]] = []
    waiting: list[dict[str, int]] = []
    delays: dict[str, list[float]] = {"restarted_after_deadline": [], "restarted_before": []}
    killed_after: list[float] = []
    for number, after_deadline in enumerate(rounds):
        stalled = await stall(drill, seat=number % 4, within=STALL_SPREAD_S)
        await asyncio.to_thread(site.kill, "worker")
        killed_after += [time.monotonic() - s.stalled_at[(h, q)] for s, h, q in stalled]
        if after_deadline:
            await asyncio.sleep(play_seconds + 3 * sweep_s)
            queued = broker_tasks(site.redis.url)
            for _seat, hand, seq in stalled:
                waiting.append(
                    {"deadline": queued[("hand_deadline", hand, seq)], "sweeps": queued["sweep"]}
                )
        await restart(site, "worker")
        await wait_until(all_moved_on(stalled), BACK_WAIT_S, "deadline fired")
        # The delivery that moved the hand writes its line after the commit and after sending
        # the views: on a loaded machine the seats heard the move, the next round's stall came
        # and its kill took the worker before that line (a move in the log, none in the worker's).
        with contextlib.suppress(TimeoutError):
            await wait_until(moves_logged(site, stalled), LINE_WAIT_S, "moves logged")
        key = "restarted_after_deadline" if after_deadline else "restarted_before"
        for seat, hand, seq in stalled:
            pending.append((hand, seq, seat.seat or 0))
            turn_started = seat.stalled_at[(hand, seq)]
            delays[key].append((moved_on_at(seat, hand, seq) or 0) - turn_started - play_seconds)
    await finish(runs)
    await asyncio.sleep(2 * sweep_s)  # the last duplicates run (and do nothing)
    logs, reports = await collect(site, drill)
    ran = deadline_runs(site)
    moved, fired = per_deadline(ran, pending, "moved"), fires(logs, pending)
    return {
        "drill": "worker_kill",
        "tables": tables,
        **hands_summary(reports),
        "worker_kills": len(rounds),
        "pending_deadlines": len(pending),
        "waiting_in_broker_at_restart": waiting,
        "deadline_runs_per_pending_deadline": per_deadline(ran, pending, "runs"),
        "moves_logged_per_pending_deadline": moved,
        "fires_per_pending_deadline": fired,
        "extra_auto_moves": extra_auto_moves(logs, pending),
        # A seat the bot plays has a 0.1 s deadline, not play_seconds: the drill is void then.
        "takeovers": sum(takeovers(r) for r in reports.values()),
        "fired_after_deadline_s": {k: timing(v) for k, v in delays.items() if v},
        "killed_after_turn_s": [round(s, 3) for s in killed_after],
        "actions": audit(all_seats(drill), logs),
        # When a count is off: the log rows and the worker's lines of each pending deadline.
        "pending_samples": (
            deadline_samples(site, logs, pending) if {*moved, *fired} != {1} else []
        ),
    }


def deadline_samples(
    site: LiveSite, logs: dict[str, Any], pending: list[tuple[int, int, int]]
) -> list[str]:
    """What a failed count prints: for each pending deadline, the log rows around its seq and
    the worker's lines about it."""
    text = (site.base / "worker.log").read_text(errors="replace").splitlines()
    samples = []
    for hand, seq, seat in pending:
        near = [a for a in logs[str(hand)]["actions"] if seq - 1 <= a["seq"] <= seq + 1]
        lines = [line for line in text if f"deadline hand={hand} seq={seq} " in line]
        samples.append(f"hand {hand} seq {seq} seat {seat}: log {near}; worker {lines[:6]}")
    return samples


DEADLINE_LINE = re.compile(r"deadline hand=(\d+) seq=(\d+) (moved|rearmed|no-op)")
LINE_WAIT_S = 30.0


def moves_logged(site: LiveSite, stalled: list[tuple[DrillSeat, int, int]]) -> Callable[[], bool]:
    def logged() -> bool:
        ran = deadline_runs(site)
        return all(ran.get((hand, seq), Counter())["moved"] for _s, hand, seq in stalled)

    return logged


def per_deadline(
    ran: dict[tuple[int, int], Counter[str]], pending: list[tuple[int, int, int]], what: str
) -> list[int]:
    return [ran.get((hand, seq), Counter())[what] for hand, seq, _seat in pending]


def deadline_runs(site: LiveSite) -> dict[tuple[int, int], Counter[str]]:
    """From the worker's log (level INFO): for each (hand, seq), how many deliveries of its
    deadline ran (``runs``) and how many moved the hand (``moved``)."""
    found: dict[tuple[int, int], Counter[str]] = {}
    path = site.base / "worker.log"
    for match in DEADLINE_LINE.finditer(path.read_text(errors="replace")):
        counts = found.setdefault((int(match[1]), int(match[2])), Counter())
        counts["runs"] += 1
        counts["moved"] += match[3] == "moved"
    return found


async def redis_restart_drill(
    site: LiveSite,
    *,
    tables: int = 2,
    restarts: int = 1,
    hands: int = 1,
    think: float = 0.05,
    play_seconds: int = 8,
) -> dict[str, Any]:
    """Redis is killed (kill -9, nothing persisted) and started again mid-hand, while one seat
    per table lets its turn pass (its deadline task was queued in the lost Redis)."""
    drill = drill_tables(
        site,
        tables,
        hands=hands,
        think=think,
        timings={"play_seconds": play_seconds, "bury_seconds": play_seconds},
    )
    runs = start(drill)
    restarts_before = Counter(site.restarts)
    pending: list[tuple[int, int, int]] = []
    resync: list[float] = []
    codes: Counter[int] = Counter()
    resynced = clients = 0
    for number in range(restarts):
        await all_mid_hand(drill)
        live = [s for s, run in zip(all_seats(drill), runs, strict=True) if not run.done()]
        unfinished = [t for t in drill if not t.done]
        stalled = await stall(unfinished, seat=number % 4, within=STALL_SPREAD_S)
        restarted_at = time.monotonic()
        await asyncio.to_thread(site.restart_redis, kill=True)
        await wait_until(everyone_back(live, restarted_at), BACK_WAIT_S, "resync")
        await wait_until(all_moved_on(stalled), BACK_WAIT_S, "lost deadline fired")
        pending += [(hand, seq, s.seat or 0) for s, hand, seq in stalled]
        clients += len(live)
        for seat in live:
            drops = [d for d in seat.drops if d.at >= restarted_at]
            codes.update(d.code or 0 for d in drops)
            resynced += any(d.back_at for d in drops)
            resync.append(max(d.back_at or 0 for d in drops) - restarted_at)
    await finish(runs, hands)
    logs, reports = await collect(site, drill)
    ran = deadline_runs(site)
    return {
        "drill": "redis_restart",
        "tables": tables,
        **hands_summary(reports),
        "redis_restarts": restarts,
        "clients": clients,
        "clients_resynced": resynced,
        # Views lost on the way (channels-redis after a restart) and caught by a pong.
        "resyncs_by_pong": sum(s.resyncs_by_pong for s in all_seats(drill)),
        "close_codes": dict(sorted(codes.items())),
        "time_to_resync_s": timing(resync),
        # A Celery worker holding tasks when Redis goes exits (kombu); supervision restarts it.
        "restarted_by_supervisor": dict(Counter(site.restarts) - restarts_before),
        "pending_deadlines": len(pending),
        "deadline_runs_per_pending_deadline": per_deadline(ran, pending, "runs"),
        "fires_per_pending_deadline": fires(logs, pending),
        "extra_auto_moves": extra_auto_moves(logs, pending),
        "actions": audit(all_seats(drill), logs),
    }


async def two_daphne_drill(
    site: LiveSite, *, hands: int = 1, think: float = 0.05
) -> dict[str, Any]:
    """One ranked table: seats 0 and 2 and a spectator on daphne0, seats 1 and 3 and a
    spectator on daphne1. Returns the figures and the drill's table (for closer checks)."""
    assert len(site.http_ports) >= 2
    table = drill_tables(site, 1, hands=hands, think=think, ranked=True)[0]
    path = f"/ws/table/{table.id}/"
    table.spectators = [
        DrillSeat(site.ws_url(path, d), None, site.origin, name=f"spectator{d}") for d in (0, 1)
    ]
    loop = asyncio.get_running_loop()
    watching = [
        loop.create_task(s.watch(lambda w: len(w.finished) >= hands)) for s in table.spectators
    ]
    await wait_until(lambda: all(s.epoch for s in table.spectators), 30, "spectators")
    runs = start([table])
    await wait_until(lambda: all(s.epoch for s in table.seats), 30, "seats")
    await table.seats[0].send({"type": "chat", "text": "加油 from daphne0"})
    await finish([*runs, *watching])
    logs, reports = await collect(site, [table])
    everyone = [*table.seats, *table.spectators]
    return {
        "drill": "two_daphnes",
        **hands_summary(reports),
        "views_per_client": [len(views_heard(s)) for s in everyone],
        "views_across_processes": crossed(site, table, logs),
        "chat_heard_on_daphne1": any(
            f.get("type") == "chat" and "daphne0" in f["line"]["text"]
            for _at, _e, f in table.spectators[1].frames
        ),
        "settlements": [h["settlements"] for h in reports[table.id]["hands"]],
        "rating_changes": [h["rating_changes"] for h in reports[table.id]["hands"]],
        "actions": audit(table.seats, logs),
        "_table": table,
        "_logs": logs,
    }


def views_heard(seat: DrillSeat) -> set[tuple[int, int]]:
    """(hand, seq) of every view frame the socket received."""
    return {(f["hand"], f["seq"]) for _at, _e, f in seat.frames if f.get("type") == "view"}


def crossed(site: LiveSite, table: DrillTable, logs: dict[str, Any]) -> int:
    """View frames made by a seat's move on one daphne and received on the other."""
    daphne_of_seat = {
        s.seat: next(d for d in range(len(site.http_ports)) if s in on_daphne(site, [s], d))
        for s in table.seats
    }
    count = 0
    for client in [*table.seats, *table.spectators]:
        here = next(d for d in range(len(site.http_ports)) if on_daphne(site, [client], d))
        for hand, seq in views_heard(client):
            mover = next(
                (a["seat"] for a in logs[str(hand)]["actions"] if a["seq"] == seq - 1), None
            )
            if mover is not None and daphne_of_seat.get(mover, here) != here:
                count += 1
    return count
