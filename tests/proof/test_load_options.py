"""The load bench's choice of ASGI server (bench/bench_ws_load.py ``--server``): the flags,
the site's processes it starts and finds for the CPU figures and ``--profile``, the report
that names the server, and the CPU of the steady play apart. No site is started here
(tests/proof/test_load_smoke.py runs one)."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.bench_ws_load import parse
from proof.cpu import CpuMeter, LoopMeter, asgi_pids, is_asgi, server_pids
from proof.livesite import LiveSite
from proof.load.latency import steady_window
from proof.load.options import Options
from proof.load.report import format_table, report, steady_figures, steady_play
from proof.profile import layer_of


def test_the_server_flag_defaults_to_daphne_and_takes_uvicorn() -> None:
    assert parse([]).server == "daphne"
    options = parse(["--server", "uvicorn", "--asgi-processes", "2", "--tables", "3"])
    assert (options.server, options.daphnes, options.tables) == ("uvicorn", 2, 3)
    assert parse(["--daphnes", "4"]).daphnes == 4  # the old spelling still works


def test_the_server_flag_refuses_another_server(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(["--server", "gunicorn"])
    assert "invalid choice: 'gunicorn'" in capsys.readouterr().err


class FakeProcess:
    def __init__(self, pid: int) -> None:
        self.pid = pid


def site_of(tmp_path: Path, server: str, processes: int) -> LiveSite:
    site = LiveSite(tmp_path, daphnes=processes, server=server)  # nothing started
    site._spawner.shutdown()
    return site


@pytest.mark.parametrize("server", ["daphne", "uvicorn"])
def test_the_site_starts_and_finds_its_asgi_processes_by_the_servers_name(
    tmp_path: Path, server: str
) -> None:
    site = site_of(tmp_path, server, 2)
    assert [site.asgi_name(i) for i in range(2)] == [f"{server}0", f"{server}1"]
    assert site.asgi_index(f"{server}1") == 1 and site.asgi_index("worker") is None
    command = site._command(f"{server}1")
    module = {"daphne": "shengji_site.daphne_uvloop", "uvicorn": "uvicorn"}[server]
    assert command[1:3] == ["-m", module] and str(site.http_ports[1]) in command
    with pytest.raises(ValueError):
        site._command("gunicorn0")

    pids = {f"{server}0": 11, f"{server}1": 12, "worker": 13, "beat": 14}
    site.processes = {name: FakeProcess(pid) for name, pid in pids.items()}  # type: ignore[misc]
    site.postgres.process = FakeProcess(15)  # type: ignore[assignment]
    site.redis.process = FakeProcess(16)  # type: ignore[assignment]
    assert server_pids(site) == {**pids, "postgres": 15, "redis": 16}
    assert asgi_pids(site) == {f"{server}0": 11, f"{server}1": 12}  # what --profile takes


def test_a_livesite_refuses_an_unknown_server(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no ASGI server 'hypercorn'"):
        LiveSite(tmp_path, server="hypercorn")


def test_asgi_process_names() -> None:
    assert is_asgi("daphne0") and is_asgi("uvicorn12")
    assert not is_asgi("uvicorn") and not is_asgi("worker") and not is_asgi("postgres")
    assert not is_asgi("uvicorn0 loop")


@pytest.mark.parametrize("name", ["daphne0", "uvicorn0"])
def test_the_cpu_meter_measures_an_asgi_process_loop_apart(name: str) -> None:
    meter = CpuMeter({name: os.getpid(), "worker": os.getpid()})
    meter.start()
    sum(range(200_000))
    figures = meter.stop()["server_percent_of_one_core"]
    assert set(figures) == {name, f"{name} loop", "worker"}


def test_the_profile_counts_either_servers_frames_as_the_server() -> None:
    loop = "_run_once (asyncio/base_events.py:1884)"
    uvicorn = "run_asgi (uvicorn/protocols/websockets/websockets_sansio_impl.py:250)"
    daphne = "dataReceived (twisted/internet/tcp.py:250)"
    service = "table_act (games/services/hands.py:70)"
    assert layer_of(f"{loop};{uvicorn}") == layer_of(f"{loop};{daphne}")
    assert layer_of(f"{loop};{uvicorn}").startswith("HTTP and WebSocket server")
    assert layer_of(f"{loop};{uvicorn};{service}") == "the site's own code"


def phase(latencies: list[float]) -> dict[str, Any]:
    return {
        "latencies": latencies,
        "kinds": ["play"] * len(latencies),
        "probe_latencies": latencies,
        "errors": [],
        "first_at": 0.0,
        "last_at": 1.0,
        "hands_finished": 1,
        "bid_races": 0,
        "client_cpu_s": 0.1,
        "client_wall_s": 1.0,
        "loop_lag_ms": {"p99": 1.0, "max": 2.0},
    }


@pytest.mark.parametrize("server", ["daphne", "uvicorn"])
def test_the_report_names_the_server(server: str) -> None:
    cpu = {
        "wall_s": 1.0,
        "server_percent_of_one_core": {f"{server}0": 50.0, f"{server}0 loop": 40.0},
        "machine_busy_percent_of_one_core": 60.0,
        "cores": 2,
        "load_average_1m_at_end": 0.5,
    }
    options = Options(tables=1, hands=1, server=server, daphnes=2, routing="table")
    result = report(options, [phase([0.01])], cpu, [phase([0.02, 0.03])], cpu)
    assert (result["server"], result["asgi_processes"]) == (server, 2)
    result["profile"] = {"process": f"{server}0", "layers": {"asyncio loop": 100.0}}
    table = format_table(result)
    assert f"server {server} × 2 (table), tables 1" in table
    assert f"{server}0's CPU by layer" in table
    assert f"'{server}0 loop': 40.0" in table


@pytest.mark.parametrize(("routing", "processes_used"), [("spread", 2), ("table", 1)])
def test_routing_puts_a_tables_sockets_on_one_process_or_spreads_them(
    routing: str, processes_used: int
) -> None:
    import random

    from proof.load.clients import seat_clients

    table = {"id": 7, "players": [{"session": f"s{i}", "username": f"u{i}"} for i in range(4)]}
    job = {
        "ws_bases": ["ws://127.0.0.1:1", "ws://127.0.0.1:2"],
        "routing": routing,
        "origin": "http://127.0.0.1:1",
        "think": 1.0,
        "jitter": 0.5,
        "bids": False,
    }
    clients = seat_clients(table, job, random.Random(1))
    assert all(c.url.endswith("/ws/table/7/") for c in clients)
    assert len({c.url for c in clients}) == processes_used


def test_cpu_per_action_net_leaves_out_what_the_echo_phase_cost_per_second() -> None:
    from proof.load.report import cpu_per_action_net

    game = {
        "wall_s": 100.0,
        "server_percent_of_one_core": {"daphne0": 12.0, "daphne0 loop": 8.0, "worker": 2.0},
    }
    echo = {"server_percent_of_one_core": {"daphne0": 2.0, "daphne0 loop": 1.0, "worker": 3.0}}
    net = cpu_per_action_net(game, echo, actions=1000)
    # daphne: 10 % of one core over 100 s is 10 s of CPU, over 1000 actions 10 ms each.
    assert net == {"daphne0": 10.0, "daphne0 loop": 7.0, "worker": 0.0, "total": 10.0}
    assert cpu_per_action_net(game, {}, actions=1000) == {}


BURNER = """
import sys, time
sys.stdin.readline()  # the meter has started
started = time.process_time()
while time.process_time() - started < 0.3:
    pass
print(time.process_time(), flush=True)
sys.stdin.read()  # alive until the meter has stopped
"""


def test_the_cpu_meter_reads_the_cpu_a_process_burned() -> None:
    """CPU seconds, not a share of the wall clock: a busy machine only makes the burn take
    longer, not read differently."""
    process = subprocess.Popen(
        [sys.executable, "-c", BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdin is not None and process.stdout is not None
    meter = CpuMeter({"worker": process.pid}, every=0.05)
    meter.start()
    process.stdin.write("go\n")
    process.stdin.flush()
    burned = float(process.stdout.readline())  # the child's own CPU seconds, start-up included
    meter.stop()
    process.stdin.close()
    process.wait()
    readings = [sample["worker"] for _, sample in meter.timeline]
    assert readings == sorted(readings)  # the CPU of a living process only grows
    assert abs(readings[-1] - burned) < 0.05  # /proc counts in ticks of 10 ms
    assert readings[-1] - readings[0] >= 0.25  # the 0.3 s burned after the meter started
    whole = meter.between(meter.timeline[0][0], meter.timeline[-1][0])["worker"]
    assert whole == pytest.approx(readings[-1] - readings[0])


def test_the_cpu_meter_reads_a_stretch_between_its_samples() -> None:
    meter = CpuMeter({}, every=1.0)
    meter.timeline = [(10.0, {"w": 1.0}), (11.0, {"w": 1.5}), (13.0, {"w": 1.5})]
    assert meter.between(10.0, 13.0) == {"w": 0.5}
    assert meter.between(10.5, 12.0) == {"w": 0.25}  # half of the first second's 0.5 s
    assert meter.between(11.0, 13.0) == {"w": 0.0}  # idle
    assert meter.between(5.0, 20.0) == {"w": 0.5}  # read within the run


def test_steady_play_is_the_stretch_every_table_is_mid_hand() -> None:
    assert steady_window([[10.0, 80.0], [14.0, 90.0], [12.0, 70.0]]) == (14.0, 70.0)
    assert steady_window([[10.0, 20.0], [30.0, 40.0]]) is None
    game = [
        {
            "steady": [[10.0, 80.0]],
            "action_times": [9.0, 11.0, 50.0, 79.0],
            "latencies": [0.9, 0.011, 0.050, 0.079],
            "probe_times": [15.0, 30.0],
            "probe_latencies": [0.5, 0.010],
        },
        {
            "steady": [[20.0, 60.0]],
            "action_times": [21.0, 61.0],
            "latencies": [0.021, 0.61],
            "probe_times": [59.0],
            "probe_latencies": [0.020],
        },
    ]
    asked: list[tuple[float, float]] = []

    def cpu_between(start: float, end: float) -> dict[str, float]:
        asked.append((start, end))
        return {"daphne0": 0.4, "daphne0 loop": 0.3, "postgres": 0.2}

    steady = steady_play(game, cpu_between)
    assert asked == [(20.0, 60.0)]
    assert steady is not None and steady["moves"] == 2  # 21.0 and 50.0
    assert sorted(steady["latencies"]) == [0.021, 0.050]
    assert sorted(steady["probe_latencies"]) == [0.010, 0.020]  # sent at 30.0 and 59.0
    echo = {"server_percent_of_one_core": {"daphne0": 0.5, "postgres": 0.0}}
    figures = steady_figures(steady, echo)
    assert figures is not None
    assert figures["cpu_ms_per_move"] == {
        "daphne0": 200.0,
        "daphne0 loop": 150.0,
        "postgres": 100.0,
        "total": 300.0,
    }
    # the echo phase's rate over the 40 s: 0.2 s of daphne0's 0.4
    assert figures["cpu_ms_per_move_net"]["daphne0"] == 100.0
    assert figures["cpu_ms_per_move_net"]["total"] == 200.0
    # the moves' and the probes' latencies in the stretch only (not the 0.9 s and 0.61 s
    # outside it), and their p99s' ratio
    assert figures["game_ms"]["n"] == 2 and figures["game_ms"]["max"] == 50.0
    assert figures["echo_ms"]["n"] == 2 and figures["echo_ms"]["max"] == 20.0
    assert figures["ratio"] == round(figures["game_ms"]["p99"] / figures["echo_ms"]["p99"], 2)


def test_the_loop_meter_times_the_clients_own_garbage_collections() -> None:
    async def run() -> dict[str, Any]:
        with LoopMeter() as meter:
            gc.collect()
            gc.collect()
            await asyncio.sleep(0.06)
        return meter.figures()

    figures = asyncio.run(run())
    pauses = figures["gc_pauses_ms"]
    assert pauses["count"] >= 2 and pauses["total"] >= pauses["max"] > 0
    # the meter's callback is gone once it is done
    assert not any(isinstance(getattr(c, "__self__", None), LoopMeter) for c in gc.callbacks)


def test_the_clients_collector_is_off_while_they_measure_unless_asked() -> None:
    async def run(collect: bool) -> tuple[dict[str, Any], bool]:
        with LoopMeter(collect=collect) as meter:
            on = gc.isenabled()
            for _ in range(50_000):  # cycles enough to set off collections, were it on
                node: list[Any] = []
                node.append(node)
            await asyncio.sleep(0.01)
        return meter.figures(), on

    off, was_on = asyncio.run(run(collect=False))
    assert not was_on and off["gc_pauses_ms"]["count"] == 0
    assert gc.isenabled() and not gc.get_freeze_count()  # as it was, once the block ends
    kept, was_on = asyncio.run(run(collect=True))
    assert was_on and kept["gc_pauses_ms"]["count"] > 0
    assert parse([]).client_gc is False and parse(["--client-gc"]).client_gc is True
