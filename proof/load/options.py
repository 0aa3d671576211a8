"""The knobs of one load run: ``bench/bench_ws_load.py``'s flags, with their defaults."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Options:
    tables: int = 10
    players: int = 4  # seats per table (4–8)
    mode: str = "tractor"  # or "friends" (找朋友, 5–8 players)
    hands: int = 2
    think: float = 1.0
    jitter: float = 0.5
    echo_seconds: float = 30.0
    procs: int = 1
    daphnes: int = 1  # ASGI processes of the site (of ``server``)
    # How a table's sockets find the ASGI processes: "spread" (in turn, as a round-robin
    # balancer), "table" (all on one, as a proxy hashing on the table id would) or "proxy"
    # (through haproxy with serve's own configuration: what ``serve --processes N`` runs).
    routing: str = "spread"
    server: str = "daphne"  # the ASGI server: daphne or uvicorn (shengji_site.launcher)
    client_nice: int = 0
    client_gc: bool = False  # keep the clients' garbage collector on during the phases
    bids: bool = False
    ramp: float = 5.0
    hand_budget: float = 900.0
    play_seconds: int = 20
    bury_seconds: int = 30
    bid_window_seconds: int = 0
    deal_interval_ms: int = 0
    url: str | None = None
    base: str | None = None
    site_env: dict[str, str] = field(default_factory=dict)
    seed: int = 1
    profile: bool = False  # py-spy on the first ASGI process during the game: its CPU by layer
    trace: bool = False  # each one-statement move's time by part (proof/load/traced_asgi.py)
    keep_samples: bool = False  # every latency in the result (seconds), for tests
