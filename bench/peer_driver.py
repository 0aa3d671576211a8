"""The peer bot's side of bench/bench_peer.py: one process in the peer's own virtualenv, with the
peer checkout's ``server/`` directory first on ``sys.path`` (its package is also called
``shengji``, so it never shares a process with ours).

Reads one JSON object a line on stdin and answers one JSON line on stdout. Cards are the peer's
codes (``S10``, ``HA``, ``LJ``, ``BJ``); bench/peer_bridge.py translates. Requests:

- ``{"op": "hello"}``: ``{"ok": true, "fast": <the compiled kernels are active>}``;
- ``{"op": "new", "key": K, "policy": P, "seed": S}``: a fresh bot ``P`` under the name ``K``;
- ``{"op": "declare" | "bury" | "play", "key": K, "seat": N, ...}``: the bot's cards for that
  decision, ``{"cards": [...] | null, "seconds": <the bot's own time>}``; the other fields are
  the seat's knowledge as bench/peer_bridge.py writes it (``peer_request``);
- ``{"op": "drop", "key": K}``: forget a bot.

An exception answers ``{"error": "<type>: <message>"}`` and the process goes on.

Run by the bench only: ``python peer_driver.py <peer server dir>``. The peer's modules are loaded
with ``importlib`` (they are not this project's), so nothing here is typed more than ``Any``.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import sys
import time
from typing import Any


class Peer:
    """The peer's modules and the live bots."""

    def __init__(self) -> None:
        self.round_mod: Any = importlib.import_module("shengji.engine.round")
        self.cards_mod: Any = importlib.import_module("shengji.engine.cards")
        self.registry: Any = importlib.import_module("shengji.ai.registry")
        fast: Any = importlib.import_module("shengji.engine.fast")
        self.fast = bool(os.environ.get("SHENGJI_FAST") == "1" and fast.HAVE_FAST)
        self.bots: dict[str, Any] = {}

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "hello":
            return {"ok": True, "fast": self.fast}
        if op == "new":
            key = str(request["key"])
            self.bots[key] = self.registry.make_bot(
                str(request["policy"]), seed=int(request["seed"])
            )
            return {"ok": True}
        if op == "drop":
            self.bots.pop(str(request["key"]), None)
            return {"ok": True}
        if op in ("declare", "bury", "play"):
            return self.decide(str(op), request)
        raise ValueError(f"unknown op {op!r}")

    def decide(self, op: str, request: dict[str, Any]) -> dict[str, Any]:
        bot = self.bots[str(request["key"])]
        seat = int(request["seat"])
        rnd = self.round_for(op, request)
        started = time.perf_counter()
        if op == "declare":
            cards = bot.decide_declare(rnd, seat, final=bool(request.get("final")))
        elif op == "bury":
            cards = bot.decide_bury(rnd, seat)
        else:
            cards = bot.decide_play(rnd, seat)
        seconds = time.perf_counter() - started
        return {"cards": None if cards is None else list(cards), "seconds": seconds}

    def round_for(self, op: str, request: dict[str, Any]) -> Any:
        """A peer ``Round`` holding exactly what the request says (the hidden hands and kitty
        are the bench's random fill, never the real ones)."""
        trick_cls = self.round_mod.Trick
        play_cls = self.round_mod.TrickPlay
        rnd = self.round_mod.Round(str(request["level"]), request.get("banker"), random.Random(0))
        rnd.deck = self.cards_mod.make_deck()
        rnd.kitty = []
        rnd.hands = [list(h) for h in request["hands"]]
        declaration = request.get("declaration")
        rnd.declaration = None if declaration is None else dict(declaration)
        if op == "declare":
            rnd.phase = "declare" if request.get("final") else "deal"
            return rnd
        suit = request.get("trump_suit")
        rnd.trump_suit = suit
        rnd.trump_is_nt = suit is None
        rnd.ordering = self.cards_mod.Ordering(suit, str(request["level"]))
        rnd.turn = int(request["seat"])
        if op == "bury":
            rnd.phase = "bury"
            return rnd
        rnd.phase = "play"
        rnd.buried = list(request["buried"])
        rnd.history = [
            trick_cls(
                leader=int(t["leader"]),
                plays=[play_cls(int(p["seat"]), list(p["cards"])) for p in t["plays"]],
                winner=int(t["winner"]),
                points=int(t["points"]),
            )
            for t in request["history"]
        ]
        rnd.last_trick = rnd.history[-1] if rnd.history else None
        current = request["trick"]
        rnd.trick = trick_cls(
            leader=int(current["leader"]),
            plays=[play_cls(int(p["seat"]), list(p["cards"])) for p in current["plays"]],
        )
        rnd.attacker_points = int(request["attacker_points"])
        rnd.kitty_bonus = 0
        return rnd


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: peer_driver.py <peer server dir>", file=sys.stderr)
        return 2
    sys.path.insert(0, argv[1])
    peer = Peer()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = peer.handle(json.loads(line))
        except Exception as error:  # the bench records it as a refused move
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
