"""The WebSocket load benchmark's parts (``bench/bench_ws_load.py``; docs/proof/LOAD.md,
*Method*).

- ``options``: the knobs of a run (the bench's flags and their defaults);
- ``clients``: one client process's share: echo sockets alone, or tables of four
  ``botclient.SeatClient`` with an echo probe each, under a ``cpu.LoopMeter``;
- ``processes``: a phase's shares run in separate client processes (or in this one);
- ``latency``: from the seats' frames to the latency of every action, and the errors;
- ``report``: the figures of a run (the JSON line) and the table the bench prints.
"""
