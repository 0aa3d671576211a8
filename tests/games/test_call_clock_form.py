"""The create form offers the table's time to bury (in 找朋友 the time of each of the dealer's
steps, the calls and the bury: docs/ENGINE-PART2-DECISIONS.md F14): chosen, left empty (the
default, 30 s) or out of range (refused, nothing made)."""

from __future__ import annotations

import pytest

from games.models import Table
from tests.games.helpers import logged_in, make_users

pytestmark = pytest.mark.django_db

FIELDS = {"mode": "friends", "players": "6", "preset": "ranked", "stake": "10",
          "min_balance": "0", "play_seconds": "20"}  # fmt: skip


def test_the_create_form_sets_the_time_to_bury() -> None:
    player = logged_in(make_users(1, "burytime")[0])
    form = player.get("/tables/new/").content.decode()
    assert 'name="bury_seconds"' in form and 'value="30"' in form
    player.post("/tables/new/", {**FIELDS, "name": "long calls", "bury_seconds": "75"})
    table = Table.objects.get(name="long calls")
    assert table.bury_seconds == 75
    assert table.rules().is_friends


def test_left_empty_it_is_the_default_and_out_of_range_it_is_refused() -> None:
    player = logged_in(make_users(1, "burytime2")[0])
    player.post("/tables/new/", {**FIELDS, "name": "no time given"})
    assert Table.objects.get(name="no time given").bury_seconds == 30
    refused = player.post("/tables/new/", {**FIELDS, "name": "too fast", "bury_seconds": "5"})
    assert refused.status_code == 400 and b"errorlist" in refused.content
    assert not Table.objects.filter(name="too fast").exists()
