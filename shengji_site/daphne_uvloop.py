"""daphne, run on uvloop: ``python -m shengji_site.daphne_uvloop`` takes daphne's own arguments
(``python -m daphne --help``) and is what ``manage.py serve`` runs (``launcher.asgi_command``).

daphne runs on Twisted's asyncio reactor, over an event loop it makes when ``daphne.server`` is
first imported. With uvloop's policy set before that import the loop is libuv's: each frame's
callbacks, the sockets' readiness and the timers cost less of the process's CPU than on asyncio's
pure-Python loop (11–15 % of daphne's CPU per action in alternated runs: docs/proof/LOAD.md,
*daphne on uvloop, and uvicorn*).
Everything else is daphne's as it comes. ``SHENGJI_DAPHNE_LOOP=asyncio`` keeps asyncio's loop
(to measure one against the other, or should a platform lack uvloop).
"""

from __future__ import annotations

import asyncio
import os

LOOPS = ("uvloop", "asyncio")


def chosen_loop() -> str:
    loop = os.environ.get("SHENGJI_DAPHNE_LOOP") or "uvloop"
    if loop not in LOOPS:
        raise SystemExit(f"SHENGJI_DAPHNE_LOOP must be one of {', '.join(LOOPS)}, not {loop!r}")
    return loop


def use_loop(loop: str) -> None:
    """Before daphne.server is imported: the policy whose loop daphne's reactor will run on."""
    if loop == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


def main() -> None:
    use_loop(chosen_loop())
    from daphne.cli import CommandLineInterface

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
