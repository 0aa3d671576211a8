"""The names the Celery tasks of ``games.tasks`` are registered under.

``games.tasks`` registers each task under its name here, and whoever sends one without importing
the task (``games.realtime``, which ``games.services`` calls, which ``games.tasks`` calls) sends
it by this name, so the two cannot drift apart. This module imports nothing.
"""

HAND_DEADLINE = "games.tasks.hand_deadline"
HAND_WRAP_UP = "games.tasks.hand_wrap_up"
SEAT_GRACE = "games.tasks.seat_grace"
TABLE_NEXT_HAND = "games.tasks.table_next_hand"
SWEEP = "games.tasks.sweep"  # sent by beat (CELERY_BEAT_SCHEDULE)
