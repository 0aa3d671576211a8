"""Ladder pages: leaderboards and player profiles, rendered by templates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import resolve, reverse

from games.services.wrap_up import hand_settle
from ladder.charts import line_chart
from ladder.selectors import HistoryPoint
from ladder.services import ladder_points_adjust
from tests.ladder.helpers import PASSWORD, make_hand, make_user, make_users


def test_line_chart_scales_into_the_box() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    chart = line_chart([HistoryPoint(at, v) for v in (0.0, 10.0, 5.0)], width=100, height=50, pad=0)
    assert chart is not None
    assert chart.points == "0.0,50.0 50.0,0.0 100.0,25.0"
    assert (chart.low, chart.high, chart.count, chart.last_value) == (0.0, 10.0, 3, 5.0)
    flat = line_chart([HistoryPoint(at, 7.0)], width=100, height=50, pad=0)
    assert flat is not None and flat.points == "50.0,25.0"
    assert line_chart([]) is None


@pytest.mark.django_db
def test_profile_page_shows_the_players_numbers_chart_and_hands(client: Client) -> None:
    users = make_users()
    ladder_points_adjust(user=users[0], account="title", amount=40, reason="t", by=None)
    hands = [make_hand(users, result={"attacker_points": p}) for p in (0, 200)]
    for hand in hands:
        hand_settle(hand_id=hand.pk)
    response = client.get(f"/players/{users[0].username}/")
    assert response.status_code == 200
    html = response.content.decode()
    profile = response.context["profile"]
    assert profile.title_points == 40 + 3 - 3  # won 3 levels, then lost 3 (200 points)
    assert response.context["title"].name == "平凡"
    # the title and the next one, in the page's language (English here: no Accept-Language)
    assert "Ordinary" in html and "Diligent (80)" in html
    assert profile.hands_played == 2 and profile.hands_won == 1
    assert html.count("<polyline") == 2
    for hand in hands:
        assert f'href="/hands/{hand.pk}/"' in html  # the replay page
    assert "50 %" in html  # win rate


@pytest.mark.parametrize(
    ("name", "kwargs", "path", "module"),
    [
        ("ladder:player", {"username": "ann"}, "/players/ann/", "games.player_page"),
        ("api-ladder:player-hands", {"username": "ann"}, "/api/players/ann/hands/",
         "games.history_api"),
        ("api-ladder:hand", {"hand_id": 7}, "/api/hands/7/", "games.history_api"),
        ("ladder:board", {"board": "title"}, "/ladder/title/", "ladder.views"),
        ("api-ladder:player", {"username": "ann"}, "/api/players/ann/", "ladder.api"),
    ],
)  # fmt: skip
def test_the_pages_that_show_hands_are_the_games_under_the_ladders_names(
    name: str, kwargs: dict[str, object], path: str, module: str
) -> None:
    """The player page and the API's hand views read hands, so they are the games' views
    (docs/ARCHITECTURE.md, "Floors"), under the ladder's URL names and paths as before."""
    assert reverse(name, kwargs=kwargs) == path
    view = resolve(path).func
    assert getattr(view, "view_class", view).__module__ == module


@pytest.mark.django_db
def test_profile_page_of_an_unknown_player_is_404(client: Client) -> None:
    assert client.get("/players/nobody/").status_code == 404


@pytest.mark.django_db
def test_board_page_marks_the_viewer_and_paginates(client: Client, settings: object) -> None:
    settings.LADDER_PAGE_SIZE = 2  # type: ignore[attr-defined]
    users = [make_user() for _ in range(3)]
    for points, user in zip((30, 20, 10), users, strict=True):
        ladder_points_adjust(user=user, account="title", amount=points, reason="t", by=None)
    client.login(username=users[2].username, password=PASSWORD)
    first = client.get("/ladder/title/")
    assert first.status_code == 200
    assert [row.rank for row in first.context["result"].rows] == [1, 2]
    assert 'class="me"' not in first.content.decode()
    jump = client.get("/ladder/title/?me=1")
    assert jump.status_code == 302 and jump["Location"] == "/ladder/title/?page=2#me"
    second = client.get("/ladder/title/?page=2")
    assert 'class="me" id="me"' in second.content.decode()
    for board in ("rating", "points"):
        assert client.get(f"/ladder/{board}/").status_code == 200
    assert client.get("/ladder/").context["board"] == "title"
    assert client.get("/ladder/elo/").status_code == 404
