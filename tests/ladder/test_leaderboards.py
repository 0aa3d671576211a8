"""Leaderboards: order, competition ranks across pages, the viewer's rank, filters, indexes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import User
from accounts.services import user_ban
from ladder.models import LadderProfile
from ladder.selectors import (
    BOARDS,
    leaderboard_page,
    leaderboard_queryset,
    leaderboard_rank,
    leaderboard_viewer,
)
from ladder.services import ladder_points_adjust
from tests.ladder.helpers import make_user

pytestmark = pytest.mark.django_db


def with_titles(points: list[int]) -> list[User]:
    users = []
    for value in points:
        user = make_user()
        if value:
            ladder_points_adjust(user=user, account="title", amount=value, reason="t", by=None)
        users.append(user)
    return users


def test_title_board_orders_and_shares_ranks_between_equal_scores() -> None:
    users = with_titles([50, 300, 50, 1000, 0])
    page = leaderboard_page(board="title", page=1, page_size=10)
    assert [row.user_id for row in page.rows] == [
        users[3].pk, users[1].pk, users[0].pk, users[2].pk, users[4].pk,
    ]  # fmt: skip
    assert [row.rank for row in page.rows] == [1, 2, 3, 3, 5]
    assert [row.title.name for row in page.rows] == ["超級", "高手", "平凡", "平凡", "菜鳥"]
    assert page.total == 5 and page.num_pages == 1


def test_ranks_carry_across_pages_even_inside_a_tie() -> None:
    users = with_titles([90, 80, 80, 80, 70])
    second = leaderboard_page(board="title", page=2, page_size=2)
    assert [row.user_id for row in second.rows] == [users[2].pk, users[3].pk]
    assert [row.rank for row in second.rows] == [2, 2]  # the tie began on page 1
    third = leaderboard_page(board="title", page=3, page_size=2)
    assert [row.rank for row in third.rows] == [5]
    assert not third.has_next and third.has_previous


def test_viewer_rank_and_page() -> None:
    users = with_titles([10, 20, 30, 40, 50])
    page = leaderboard_page(board="title", page=1, page_size=2, viewer=users[1])
    assert (page.viewer_rank, page.viewer_page) == (4, 2)
    assert leaderboard_rank(board="title", user=users[4]) == 1
    assert leaderboard_viewer(board="title", user=users[0], page_size=2) == (5, 3)


def test_points_board() -> None:
    users = [make_user() for _ in range(3)]
    ladder_points_adjust(user=users[2], account="table", amount=500, reason="t", by=None)
    ladder_points_adjust(user=users[0], account="table", amount=-300, reason="t", by=None)
    page = leaderboard_page(board="points", page_size=10)
    assert [(row.user_id, row.balance, row.rank) for row in page.rows] == [
        (users[2].pk, 1500, 1),
        (users[1].pk, 1000, 2),
        (users[0].pk, 700, 3),
    ]


def test_rating_board_lists_settled_recent_players_only() -> None:
    users = [make_user() for _ in range(4)]
    now = timezone.now()
    LadderProfile.objects.filter(user=users[0]).update(
        rating_ordinal=12.5, rating_provisional=False, last_played_at=now
    )
    LadderProfile.objects.filter(user=users[1]).update(
        rating_ordinal=20.0,
        rating_provisional=True,
        last_played_at=now,  # provisional
    )
    LadderProfile.objects.filter(user=users[2]).update(
        rating_ordinal=30.0, rating_provisional=False, last_played_at=now - timedelta(days=31)
    )
    LadderProfile.objects.filter(user=users[3]).update(
        rating_ordinal=5.0, rating_provisional=False, last_played_at=now - timedelta(days=29)
    )
    page = leaderboard_page(board="rating", page_size=10, viewer=users[2])
    assert [row.user_id for row in page.rows] == [users[0].pk, users[3].pk]
    assert page.viewer_rank is None
    assert leaderboard_rank(board="rating", user=users[3]) == 2


def test_banned_players_leave_the_boards() -> None:
    users = with_titles([100, 200])
    user_ban(user=users[1], reason="cheating", by=None)
    page = leaderboard_page(board="title", page_size=10)
    assert [row.user_id for row in page.rows] == [users[0].pk]
    assert leaderboard_rank(board="title", user=users[1]) is None


def test_an_unknown_board_is_an_error() -> None:
    from ladder.errors import ApplicationError

    with pytest.raises(ApplicationError) as error:
        leaderboard_page(board="elo")
    assert error.value.code == "board_unknown"


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_board_queries_can_use_their_partial_index(board: str) -> None:
    """With sequential scans off, the page and the rank count are index scans of the board's
    index (the planner may prefer a sequential scan on a small table; the benchmark checks the
    real sizes)."""
    make_user()
    spec = BOARDS[board]
    listed = leaderboard_queryset(board=spec)
    page_sql = listed.order_by(f"-{spec.field}", "user_id")[:50]
    count_sql = listed.filter(**{f"{spec.field}__gt": 0})
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for queryset in (page_sql, count_sql):
            sql, params = queryset.query.sql_with_params()
            cursor.execute(f"EXPLAIN {sql}", params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert f"ladder_board_{board}" in plan, plan
