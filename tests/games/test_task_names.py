"""The names tasks are sent by (games/task_names.py, the beat schedule) are the names they are
registered under: a task sent by a name no worker knows would be lost without a word."""

from __future__ import annotations

from django.conf import settings

from games import task_names, tasks
from shengji_site.celery import app


def test_every_name_is_a_task_of_games_tasks() -> None:
    names = {value for key, value in vars(task_names).items() if key.isupper()}
    registered = {
        tasks.hand_deadline.name,
        tasks.hand_wrap_up.name,
        tasks.seat_grace.name,
        tasks.table_next_hand.name,
    }
    assert names == registered | {tasks.sweep.name}
    app.loader.import_default_modules()  # what a worker imports when it starts
    assert names <= set(app.tasks)


def test_beat_sends_only_registered_tasks() -> None:
    app.loader.import_default_modules()
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in app.tasks
