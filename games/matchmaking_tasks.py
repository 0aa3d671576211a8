"""Celery: the quick-match matcher, run by beat every SHENGJI_QUICK_MATCH_EVERY_S seconds
(the accepted rating gap widens while players wait, so a run may match who could not be before).
"""

from __future__ import annotations

from celery import shared_task

from games import matchmaking


@shared_task(ignore_result=True)
def quick_match_run() -> int:
    """Seat every group of four waiting players that fits now; the number of tables made."""
    return len(matchmaking.queue_match())
