"""daphne, run on uvloop: ``python -m shengji_site.daphne_uvloop`` takes daphne's own arguments
(``python -m daphne --help``) and is what ``manage.py serve`` runs (``launcher.asgi_command``).

daphne runs on Twisted's asyncio reactor, over an event loop it makes when ``daphne.server`` is
first imported. With uvloop's policy set before that import the loop is libuv's: each frame's
callbacks, the sockets' readiness and the timers cost less of the process's CPU than on asyncio's
pure-Python loop (11–15 % of daphne's CPU per action in alternated runs: docs/proof/LOAD.md,
*daphne on uvloop, and uvicorn*).
Its TCP writes go to the socket at once when nothing waits before them (``writethrough``: a
frame no longer waits for the loop's next turn). Each WebSocket connection's frames in and
unread bytes out are bounded (``socketguard``). Everything else is daphne's as it comes.
``SHENGJI_DAPHNE_LOOP=asyncio`` keeps asyncio's loop (to measure one against the other, or
should a platform lack uvloop); ``SHENGJI_WRITE_THROUGH=0`` keeps Twisted's buffered writes.
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


def writes_through() -> bool:
    """Whether daphne's writes go out at once (``writethrough``); ``SHENGJI_WRITE_THROUGH=0``
    keeps Twisted's own buffered writes, to measure one against the other."""
    setting = os.environ.get("SHENGJI_WRITE_THROUGH") or "1"
    if setting not in {"0", "1"}:
        raise SystemExit(f"SHENGJI_WRITE_THROUGH must be 0 or 1, not {setting!r}")
    return setting == "1"


def prepare() -> None:
    """Before daphne starts: the loop its reactor runs on, how its sockets are written, and
    each WebSocket connection's bounds (``socketguard``)."""
    use_loop(chosen_loop())
    if writes_through():
        from shengji_site import writethrough

        writethrough.install()
    from shengji_site import socketguard

    socketguard.install()


def main() -> None:
    prepare()
    from daphne.cli import CommandLineInterface

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
