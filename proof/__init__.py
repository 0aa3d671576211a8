"""The proof kit: load, fault, fuzz and hidden-information tooling for ``tests/`` and ``bench/``.

Not part of the deployed site (``pyproject.toml`` packages ``shengji_site``, ``games``,
``accounts`` and ``ladder`` only, and none of them imports this package). It is importable
from the repository's root: pytest runs with ``pythonpath = ["."]`` and loads ``proof.plugin``;
the bench scripts put the root on ``sys.path``.

- ``plugin``: the pytest plugin (embedded PostgreSQL and Redis, a Celery worker fixture);
- ``benchenv``: the servers and settings of a bench that runs Django in its own process;
- ``livesite``: a whole site in separate processes (``LiveSite``), or one already running;
- ``livesetup``: players and tables made inside a live site (through ``manage.py shell``);
- ``botclient``: a player over a real WebSocket, played by the basic bot;
- ``echoclient``: sockets on the echo consumer, the floor of the load benchmark;
- ``load``: the load benchmark's client loops, latency and report (``bench/bench_ws_load.py``);
- ``cpu``, ``stats``: CPU and event-loop lag accounting; percentiles;
- ``drill_seat``, ``drills``: a seat that survives its socket, and the fault drills;
- ``fuzz_messages``, ``fuzz``: hostile socket messages, and the fuzzer that sends and checks them;
- ``leakcheck``, ``leakdrill``: the hidden-information checker, and hands played to feed it.
"""
