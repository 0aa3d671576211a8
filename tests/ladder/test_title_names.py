"""Words of issue 16: titles in the page's script (菜鸟 in 简体, 菜鳥 in 繁體, Rookie), quick-match
table names in the reader's language, the admin's model names, and charts of one point."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from accounts.models import User
from games import matchmaking, services
from games.models import Match, Table
from ladder.api import title_data
from ladder.charts import line_chart
from ladder.selectors import HistoryPoint
from ladder.services import ladder_points_adjust
from ladder.titles import TITLES, title_for
from tests.games.helpers import make_users
from tests.https import HTTPS

LABELS = {
    "zh-hans": "菜鸟 平凡 努力 拼命 幸运 勇士 高手 强者 王牌 超人 高级 顶级 超级",
    "zh-hant": "菜鳥 平凡 努力 拼命 幸運 勇士 高手 強者 王牌 超人 高級 頂級 超級",
    "en": "Rookie Ordinary Diligent Relentless Lucky Warrior Expert Strong Ace Superhuman Senior "
    "Top Super",
}
BROWSERS = {"zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9", "en": "en-US,en;q=0.9"}
QUICK = {"zh-hans": "快速匹配 · ", "zh-hant": "快速配對 · ", "en": "Quick match · "}


def page(url: str, language: str) -> str:
    response = Client(**HTTPS).get(url, HTTP_ACCEPT_LANGUAGE=BROWSERS[language])
    assert response.status_code == 200, url
    return response.content.decode()


@pytest.mark.parametrize("language", sorted(LABELS))
def test_every_title_is_written_in_the_readers_script(language: str) -> None:
    with translation.override(language):
        assert " ".join(t.label for t in TITLES) == LABELS[language]


def test_the_stored_key_and_the_api_keep_the_seeds_name() -> None:
    with translation.override("zh-hans"):
        assert title_for(0).name == "菜鳥" and title_for(1000).name == "超級"
        assert title_data(title_for(0)) == {
            "code": "cainiao",
            "name": "菜鳥",
            "english": "Rookie",
            "min_points": 0,
        }


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(LABELS))
def test_the_ladder_and_player_pages_show_titles_in_the_readers_script(language: str) -> None:
    user = make_users(1, prefix="zhang")[0]
    ladder_points_adjust(user=user, account="title", amount=180, reason="t", by=None)
    rookie, lucky, brave = (LABELS[language].split()[i] for i in (0, 4, 5))

    board = page("/ladder/", language)
    assert lucky in board and rookie in board  # the row, and the list of titles
    profile = page(f"/players/{user.username}/", language)
    assert f'<span class="title-badge">{lucky}</span>' in profile
    assert f"{brave} (230)" in profile  # the next title
    if language == "zh-hans":
        assert "菜鳥" not in board and "幸運" not in profile  # no Traditional in 简体


# --- quick-match table names --------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(QUICK))
def test_a_quick_match_table_is_named_in_the_readers_language(language: str) -> None:
    users = make_users(4, prefix="li")
    table = services.ranked_table_open(users=users, name="李雷", stake=50)
    casual = services.table_create(creator=make_users(1, prefix="han")[0], name="韩梅梅的桌")
    with translation.override(language):
        assert table.display_name == f"{QUICK[language]}李雷"
        assert str(table) == table.display_name
        assert casual.display_name == "韩梅梅的桌"

    html = page(f"/tables/{table.pk}/", language)
    assert f'<h1 id="table-name">{QUICK[language]}李雷</h1>' in html
    words = json.loads(re.findall(r'id="table-labels" type="application/json">(.*?)<', html)[0])
    assert words["quick_match_name"] == f"{QUICK[language]}{{name}}"  # for the script
    lobby = page("/tables/", language)
    lobby_words = json.loads(
        re.findall(r'id="lobby-labels" type="application/json">(.*?)<', lobby)[0]
    )
    assert lobby_words["quick_match_name"] == f"{QUICK[language]}{{name}}"


@pytest.mark.django_db
def test_quick_match_stores_the_players_name_not_english() -> None:
    users = make_users(4, prefix="wang")
    for user in users:
        matchmaking.queue_join(user=user)
    made = matchmaking.queue_match()
    assert len(made) == 1 and made[0].table is not None
    table = Table.objects.get(pk=made[0].table.pk)
    assert table.ranked and "Quick match" not in table.name
    assert table.name in {str(u) for u in users}


# --- the admin's own words ----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_admin_names_models_in_the_readers_language() -> None:
    with translation.override("en"):
        assert str(Match._meta.verbose_name_plural) == "matches"
    staff = User.objects.create_superuser("guanli", "", "tractor-pairs-88")
    client = Client(**HTTPS)
    client.force_login(staff)
    english = client.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Matchs" not in english and "Matches" in english
    chinese = client.get("/admin/games/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "Matchs" not in chinese and ">盘<" in chinese and ">局<" in chinese


@pytest.mark.django_db
def test_the_ban_confirmation_says_banned_in_the_readers_language() -> None:
    staff = User.objects.create_superuser("guanli", "", "tractor-pairs-88")
    target = make_users(1, prefix="zhao")[0]
    client = Client(**HTTPS)
    client.force_login(staff)
    response = client.post(
        "/admin/accounts/user/",
        {"action": "ban_users", "_selected_action": [target.pk]},
        HTTP_ACCEPT_LANGUAGE="zh-CN",
    )
    html = response.content.decode()
    assert "以下用户将被封禁" in html and "banned" not in html


# --- charts -------------------------------------------------------------------------------------


def test_a_chart_of_one_point_shows_a_dot_with_its_value() -> None:
    chart = line_chart([HistoryPoint(datetime(2026, 1, 1, tzinfo=UTC), 40.0)])
    assert chart is not None and chart.count == 1
    with translation.override("en"):
        html = render_to_string("ladder/_chart.html", {"chart": chart, "label": "Title points"})
    assert "<polyline" not in html  # one point draws no line
    assert f'<circle class="chart-last" cx="{chart.last_x}" cy="{chart.last_y}"' in html
    assert ">40</text>" in html and "One hand so far" in html
    two = line_chart(
        [
            HistoryPoint(datetime(2026, 1, 1, tzinfo=UTC), 40.0),
            HistoryPoint(datetime(2026, 1, 2, tzinfo=UTC), 43.0),
        ]
    )
    with translation.override("en"):
        html = render_to_string("ladder/_chart.html", {"chart": two, "label": "Title points"})
    assert "<polyline" in html and "<circle" in html and "<text" not in html
