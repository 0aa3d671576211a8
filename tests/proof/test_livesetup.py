"""The load bench's tables (proof/livesetup.py): four new players seated at each, and the
seats' auto-ready as asked, so that the clients need not turn it off over their sockets."""

from __future__ import annotations

import pytest

from games.models import Seat
from proof.livesetup import tables

pytestmark = pytest.mark.django_db


def test_tables_are_made_with_the_seats_auto_ready_off_when_asked() -> None:
    (made,) = tables(count=1, prefix="lsoff", auto_ready=False)
    seats = Seat.objects.filter(table_id=made["id"]).order_by("index")
    assert [s.user_id for s in seats] == [p["id"] for p in made["players"]]
    assert not any(s.auto_ready or s.ready for s in seats)
    assert made["auto_ready"] is False


def test_tables_keep_the_seats_auto_ready_on_by_default() -> None:
    (made,) = tables(count=1, prefix="lson")
    assert all(Seat.objects.filter(table_id=made["id"]).values_list("auto_ready", flat=True))
    assert made["auto_ready"] is True
