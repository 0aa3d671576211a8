"""The site's ASGI application with each one-statement move's marks (games/movetrace.py)
written down in the folder ``SHENGJI_MOVE_TRACE`` names (``moveparts.marks_written_to``): what
the load bench's site serves with ``--trace``. The site itself never imports this."""

from __future__ import annotations

import os
from pathlib import Path

from games import movetrace
from proof.load.moveparts import FOLDER_ENV, marks_written_to

movetrace.mark = marks_written_to(Path(os.environ[FOLDER_ENV]))

from shengji_site.asgi import application  # noqa: E402

__all__ = ["application"]
