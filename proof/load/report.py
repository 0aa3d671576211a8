"""The figures of a load run (the bench's JSON line) and the table it prints."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from proof.load.latency import steady_window
from proof.load.options import Options
from proof.stats import ratio, summary_ms

GOAL_RATIO = 2.0  # issue 19 (issue 9 asked for 3)


def report(
    options: Options,
    echo: list[dict[str, Any]],
    echo_cpu: dict[str, Any],
    game: list[dict[str, Any]],
    game_cpu: dict[str, Any],
    steady: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every figure of a run, from the client processes' figures of each phase (``echo``,
    ``game``) and the server CPU measured during each; ``steady``: the CPU of the stretch of
    steady play (``steady_play``), if there was one."""
    latencies = [x for part in game for x in part["latencies"]]
    game_ms = summary_ms(latencies)
    kinds = [k for part in game for k in part["kinds"]]
    by_kind = {
        kind: summary_ms([x for x, k in zip(latencies, kinds, strict=True) if k == kind])
        for kind in ("call", "bury", "play", "hand_end")
    }
    starts_ms = summary_ms([x for part in game for x in part.get("hand_starts", [])])
    deals_ms = summary_ms([x for part in game for x in part.get("hand_deals", [])])
    alone_ms = summary_ms([x for part in echo for x in part["latencies"]])
    probes_ms = summary_ms([x for part in game for x in part["probe_latencies"]])
    errors = [e for part in echo + game for e in part["errors"]]
    firsts = [p["first_at"] for p in game if p["first_at"] is not None]
    lasts = [p["last_at"] for p in game if p["last_at"] is not None]
    span = max(lasts) - min(firsts) if firsts and lasts else None
    actions = len(latencies)
    ratio_probes = ratio(game_ms, probes_ms)
    samples = {}
    if options.keep_samples:
        samples = {
            "samples_s": {
                "game": latencies,
                "game_sent_at": [x for part in game for x in part.get("action_times", [])],
                "echo_alone": [x for part in echo for x in part["latencies"]],
                "echo_concurrent": [x for part in game for x in part["probe_latencies"]],
                "echo_concurrent_sent_at": [
                    x for part in game for x in part.get("probe_times", [])
                ],
            }
        }
    return {
        "server": options.server,
        "asgi_processes": options.daphnes,
        "routing": options.routing,
        "tables": options.tables,
        "players": options.players,
        "mode": options.mode,
        "sockets": options.players * options.tables,
        "probes": options.tables,
        "hands": options.hands,
        "hands_finished": sum(p["hands_finished"] for p in game),
        "think_s": options.think,
        "jitter": options.jitter,
        "bids": options.bids,
        "actions": actions,
        "offered_actions_per_s": round(options.tables / options.think, 1),
        "actions_per_s": round(actions / span, 1) if span else None,
        "game_ms": game_ms,
        "game_ms_by_kind": by_kind,
        "hand_start_ms": starts_ms,
        "hand_dealt_ms": deals_ms,
        "echo_alone_ms": alone_ms,
        "echo_concurrent_ms": probes_ms,
        "ratio_vs_concurrent": ratio_probes,
        "ratio_vs_alone": ratio(game_ms, alone_ms),
        "goal": f"p99(game) <= {GOAL_RATIO:g} x p99(echo concurrent), 0 errors",
        "goal_met": bool(ratio_probes is not None and ratio_probes <= GOAL_RATIO and not errors),
        "errors": len(errors),
        "error_samples": errors[:10],
        "bid_races": sum(p["bid_races"] for p in game),
        "client_procs": max(1, options.procs) if options.procs else 0,
        "client_nice": options.client_nice,
        "client_gc": options.client_gc,
        "client": client_cpu(game),
        "client_echo_phase": client_cpu(echo),
        "cpu_game": game_cpu,
        "server_cpu_ms_per_action": cpu_per_action(game_cpu, actions),
        "server_cpu_ms_per_action_net": cpu_per_action_net(game_cpu, echo_cpu, actions),
        "cpu_echo_alone": echo_cpu,
        "steady_play": steady_figures(steady, echo_cpu),
        **samples,
    }


def steady_play(
    game: list[dict[str, Any]], cpu_between: Callable[[float, float], dict[str, float]]
) -> dict[str, Any] | None:
    """The stretch in which every table was playing (``latency.steady_window``: no hand
    starting or ending, no socket opening or closing), its moves, their latencies and the
    echo probes' sent in it, and the CPU seconds each process spent in it (``cpu_between``:
    ``CpuMeter.between``). None if no such stretch."""
    window = steady_window([span for part in game for span in part.get("steady", [])])
    if window is None:
        return None
    start, end = window
    latencies = _sent_within(game, "action_times", "latencies", start, end)
    return {
        "window_s": end - start,
        "moves": len(latencies),
        "latencies": latencies,
        "probe_latencies": _sent_within(game, "probe_times", "probe_latencies", start, end),
        "cpu_s": cpu_between(start, end),
    }


def _sent_within(
    game: list[dict[str, Any]], times: str, latencies: str, start: float, end: float
) -> list[float]:
    """The latencies (``latencies``, each sent at its ``times``) of what was sent in [start,
    end]."""
    return [
        latency
        for part in game
        for at, latency in zip(part.get(times, []), part.get(latencies, []), strict=True)
        if start <= at <= end
    ]


def steady_figures(steady: dict[str, Any] | None, echo: dict[str, Any]) -> dict[str, Any] | None:
    """Milliseconds of CPU per move in steady play, for each process, as measured and less the
    echo phase's rate over the same stretch (as ``cpu_per_action_net``): what a move costs
    apart from the hands' starts and ends and the sockets' opening and closing. Beside them,
    the moves' latencies and the echo probes' in the same stretch, and their p99s' ratio."""
    if steady is None or not steady["moves"]:
        return None
    moves, window = steady["moves"], steady["window_s"]
    idle = echo.get("server_percent_of_one_core", {})
    per_move = {name: 1000 * cpu / moves for name, cpu in steady["cpu_s"].items()}
    net = {
        name: max(0.0, cpu - idle.get(name, 0.0) / 100 * window) * 1000 / moves
        for name, cpu in steady["cpu_s"].items()
    }
    game_ms = summary_ms(steady.get("latencies", []))
    probes_ms = summary_ms(steady.get("probe_latencies", []))
    return {
        "window_s": round(window, 1),
        "moves": moves,
        "cpu_ms_per_move": _with_total(per_move),
        "cpu_ms_per_move_net": _with_total(net),
        "game_ms": game_ms,
        "echo_ms": probes_ms,
        "ratio": ratio(game_ms, probes_ms),
    }


def _with_total(figures: dict[str, float]) -> dict[str, float]:
    """Each rounded, and their ``total`` (an event loop's figure is part of its process's)."""
    total = sum(v for name, v in figures.items() if not name.endswith(" loop"))
    return {**{name: round(v, 2) for name, v in figures.items()}, "total": round(total, 2)}


def cpu_per_action(cpu: dict[str, Any], actions: int) -> dict[str, float]:
    """Milliseconds of CPU per game action, for each server process (the whole game phase,
    hand starts and pings included, divided by the bury and play actions)."""
    if not actions:
        return {}
    return {
        name: round(percent / 100 * cpu["wall_s"] * 1000 / actions, 2)
        for name, percent in cpu["server_percent_of_one_core"].items()
    }


def cpu_per_action_net(
    game: dict[str, Any], echo: dict[str, Any], actions: int
) -> dict[str, float]:
    """``cpu_per_action`` less what the echo phase alone cost per second over the game's wall
    time: the echo phase sends as many messages a second as the game's probes do, so this
    leaves out the probes and what the processes spend idle (beat, the worker's polling),
    and keeps the moves, hand starts and pings. Each process's ``total`` is the sum (the event
    loop's figure is part of its process's and is not added again)."""
    if not actions or not echo:
        return {}
    busy_before = echo["server_percent_of_one_core"]
    net = {
        name: round(
            max(0.0, percent - busy_before.get(name, 0.0)) / 100 * game["wall_s"] * 1000 / actions,
            2,
        )
        for name, percent in game["server_percent_of_one_core"].items()
    }
    net["total"] = round(sum(v for name, v in net.items() if not name.endswith(" loop")), 2)
    return net


def client_cpu(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "cpu_percent_of_one_core": [
            round(100 * p["client_cpu_s"] / p["client_wall_s"], 1) for p in parts
        ],
        "loop_lag_ms": [p["loop_lag_ms"] for p in parts],
        "gc_pauses_ms": [p.get("gc_pauses_ms") for p in parts],
    }


def format_table(result: dict[str, Any]) -> str:
    """The human summary of a ``report``: the latency table, then the run's totals, the
    ratios, the CPU and the first errors."""
    rows = [
        (f"game: action → {result.get('players', 4)} views", result["game_ms"]),
        ("  call (找朋友)", result["game_ms_by_kind"]["call"]),
        ("  bury", result["game_ms_by_kind"]["bury"]),
        ("  play", result["game_ms_by_kind"]["play"]),
        ("  play that ends a hand", result["game_ms_by_kind"]["hand_end"]),
        ("hand start: readies → seen", result["hand_start_ms"]),
        ("  readies → dealt, bids shut", result["hand_dealt_ms"]),
        ("echo alone", result["echo_alone_ms"]),
        ("echo during the game", result["echo_concurrent_ms"]),
    ]
    lines = [f"\n{'latency (ms)':<26}{'n':>8}{'p50':>9}{'p95':>9}{'p99':>9}{'max':>9}"]
    for name, row in rows:
        cells = "".join(f"{'-' if row[k] is None else row[k]:>9}" for k in ("p50", "p95", "p99"))
        lines.append(
            f"{name:<26}{row['n']:>8}{cells}{'-' if row['max'] is None else row['max']:>9}"
        )
    lines.append(
        f"\nserver {result['server']} × {result['asgi_processes']} ({result['routing']}),"
        f" tables {result['tables']}, sockets {result['sockets']} (+{result['probes']} probes),"
        f" hands {result['hands_finished']}/{result['tables'] * result['hands']},"
        f" actions {result['actions']}, offered {result['offered_actions_per_s']}/s,"
        f" achieved {result['actions_per_s']}/s"
    )
    lines.append(
        f"p99 ratio: {result['ratio_vs_concurrent']} vs echo during the game"
        f" (the goal, ≤ {GOAL_RATIO:g}),"
        f" {result['ratio_vs_alone']} vs echo alone; errors {result['errors']}"
        f" (bid races apart: {result['bid_races']}); goal met: {result['goal_met']}"
    )
    cpu = result["cpu_game"]
    lines.append(
        f"CPU during the game (% of one core, {cpu['cores']} cores): server"
        f" {cpu['server_percent_of_one_core']}, clients"
        f" {result['client']['cpu_percent_of_one_core']}, whole machine"
        f" {cpu['machine_busy_percent_of_one_core']}; client loop lag"
        f" {result['client']['loop_lag_ms']}, garbage collections"
        f" {result['client']['gc_pauses_ms']}"
    )
    lines.append(f"server CPU ms per action: {result['server_cpu_ms_per_action']}")
    lines.append(
        "server CPU ms per action, less the echo phase's rate (probes, idle):"
        f" {result['server_cpu_ms_per_action_net']}"
    )
    steady = result.get("steady_play")
    if steady:
        lines.append(
            f"steady play ({steady['window_s']} s with every table mid-hand, {steady['moves']}"
            f" moves): server CPU ms per move {steady['cpu_ms_per_move']}; less the echo"
            f" phase's rate: {steady['cpu_ms_per_move_net']}; moves p50/p99"
            f" {_p50_p99(steady['game_ms'])} ms, echo {_p50_p99(steady['echo_ms'])} ms, p99"
            f" ratio {steady['ratio']}"
        )
    profile = result.get("profile")
    if profile:
        shares = ", ".join(f"{layer} {share}" for layer, share in profile["layers"].items())
        lines.append(
            f"{profile['process']}'s CPU by layer (% of samples holding the GIL): {shares}"
        )
    lines += [f"  error: {line}" for line in result["error_samples"]]
    return "\n".join(lines)


def _p50_p99(figures: dict[str, Any]) -> str:
    return f"{figures.get('p50')}/{figures.get('p99')}"
