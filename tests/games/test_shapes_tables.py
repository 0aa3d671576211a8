"""Tables of 4–8 players and 找朋友 (issue 32, items 1 and 6): the create form and practice take
the shape, refuse a bad one with a stable, translated code and change nothing, seat the player
with bots in every other seat; private tables and invite links work at every shape; the lobby,
the table page and the admin carry the shape; ranked quick match stays four players, two decks."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from accounts.errors import ApplicationError
from accounts.models import User
from games import rules_words, selectors, services
from games.handstate import load_state
from games.models import Hand, Seat, Table
from shengji.engine.hand import level_slots
from tests.games.helpers import logged_in, make_table, make_users, ranked_table

pytestmark = pytest.mark.django_db

NEW = "/tables/new/"
PRACTICE = "/tables/practice/"


def create_form(**fields: str) -> dict[str, str]:
    return {
        "name": "big",
        "preset": "ranked",
        "stake": "10",
        "min_balance": "0",
        "play_seconds": "20",
        **fields,
    }


def page_config(html: str) -> dict[str, Any]:
    found = re.search(r'id="table-config"[^>]*>(.*?)</script>', html, re.S)
    assert found is not None
    config: dict[str, Any] = json.loads(found[1])
    return config


def test_the_form_makes_a_six_seat_friends_table_with_its_options_as_house_rules() -> None:
    (user,) = make_users(1, "former")
    response = logged_in(user).post(
        NEW,
        create_form(players="6", mode="friends", friend_cards="no_points", small_side_bonus="off"),
    )
    assert response.status_code == 302
    table = Table.objects.get(creator=user)
    assert table.players == 6
    # Decks and calls left empty are the defaults for six (3 decks, 2 calls), not stored.
    assert table.house_rules == {
        "mode": "friends",
        "friend_cards": "no_points",
        "small_side_bonus": False,
    }
    rules = table.rules()
    assert (rules.players, rules.decks, rules.mode, rules.friends) == (6, 3, "friends", 2)
    assert rules.friend_cards == "no_points" and rules.small_side_bonus is False
    assert list(Seat.objects.filter(table=table).values_list("index", flat=True)) == list(range(6))
    assert selectors.table_summary(table)["players"] == 6
    assert selectors.table_summary(table)["mode"] == "friends"


def test_the_old_form_field_mode_casual_is_a_tractor_table_and_ranked_is_still_refused() -> None:
    (user,) = make_users(1, "oldform")
    client = logged_in(user)
    assert client.post(NEW, create_form(mode="casual")).status_code == 302
    table = Table.objects.get(creator=user)
    assert (table.players, table.house_rules, table.rules().mode) == (4, {}, "tractor")

    response = client.post(NEW, create_form(mode="ranked"), HTTP_ACCEPT="application/json")
    assert response.status_code == 409
    assert response.json()["code"] == "ranked_quick_match_only"
    assert Table.objects.filter(creator=user).count() == 1


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"players": "5", "mode": "tractor"}, "tractor_needs_even_players"),
        ({"players": "4", "mode": "friends"}, "friends_needs_5_to_8_players"),
        ({"players": "9"}, "players_out_of_range"),
        ({"players": "3"}, "players_out_of_range"),
        ({"players": "6", "decks": "5"}, "decks_out_of_range"),
        ({"players": "6", "mode": "friends", "friends": "3"}, "friends_out_of_range"),
        ({"players": "6", "mode": "tractor", "friends": "1"}, "friends_out_of_range"),
        (
            {"players": "6", "mode": "tractor", "join_policy": "no_double_join"},
            "friends_only_option",
        ),
        ({"players": "6", "mode": "solo"}, "invalid_mode"),
    ],
)
def test_a_bad_shape_is_refused_with_its_code_by_the_form_and_by_practice(
    fields: dict[str, str], code: str
) -> None:
    (user,) = make_users(1, "badshape")
    client = logged_in(user)
    response = client.post(NEW, create_form(**fields), HTTP_ACCEPT="application/json")
    assert response.status_code == 409
    assert response.json()["code"] == code
    response = client.post(PRACTICE, fields, HTTP_ACCEPT="application/json")
    assert response.json()["code"] == code
    assert not Table.objects.filter(creator=user).exists()
    assert not Seat.objects.filter(user=user).exists()


@pytest.mark.parametrize(
    "code",
    [
        "players_out_of_range",
        "decks_out_of_range",
        "tractor_needs_even_players",
        "friends_needs_5_to_8_players",
        "friends_out_of_range",
        "friends_only_option",
        "invalid_mode",
        "calls_missing",
        "calls_not_allowed",
    ],
)
def test_each_shape_refusal_is_put_in_chinese_words(code: str) -> None:
    from django.utils import translation

    english = ApplicationError(code).message
    with translation.override("zh-hans"):
        simplified = ApplicationError(code).message
    with translation.override("zh-hant"):
        traditional = ApplicationError(code).message
    assert english != code
    assert simplified != english and traditional != english
    assert not re.search(r"[A-Za-z]{4,}", simplified.replace("拖拉机", ""))


def test_practice_seats_the_player_with_five_bots_at_a_six_seat_friends_table() -> None:
    (user,) = make_users(1, "practiser")
    response = logged_in(user).post(PRACTICE, {"players": "6", "mode": "friends"})
    assert response.status_code == 302
    table = Table.objects.get(creator=user)
    assert response["Location"] == f"/tables/{table.pk}/"
    assert table.players == 6 and table.unlisted and table.rules().is_friends
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    assert seats[0].user == user
    assert [(s.user_id, s.bot) for s in seats[1:]] == [(None, True)] * 5
    hand = Hand.objects.get(match__table=table)
    assert len(hand.levels) == 6 == level_slots(table.rules())  # a level per player
    state = load_state(hand)
    assert (state.players, state.decks, state.kitty_size, state.draws) == (6, 3, 6, 156)


def test_the_home_pages_practice_choice_offers_every_shape_and_plays_the_one_picked() -> None:
    (user,) = make_users(1, "homepick")
    client = logged_in(user)
    home = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    form = home[home.index('id="practice-form"') :]
    form = form[: form.index("</form>")]
    assert '<option value="4-tractor">4人 · 2副 · 拖拉機</option>' in form
    assert '<option value="6-friends">6人 · 3副 · 找朋友</option>' in form
    assert form.count("<option ") == 7
    response = client.post(PRACTICE, {"shape": "6-friends"})
    table = Table.objects.get(creator=user)
    assert response["Location"] == f"/tables/{table.pk}/"
    assert table.players == 6 and table.rules().is_friends
    assert Seat.objects.filter(table=table, bot=True).count() == 5
    assert Hand.objects.filter(match__table=table).count() == 1


def test_a_practice_shape_not_on_offer_is_refused_and_makes_nothing() -> None:
    (user,) = make_users(1, "badpick")
    for shape in ("5-tractor", "9-friends", "6", "x-y"):
        response = logged_in(user).post(PRACTICE, {"shape": shape}, HTTP_ACCEPT="application/json")
        assert response.status_code == 400 and response.json()["code"] == "bad_message"
    assert not Table.objects.filter(creator=user).exists()


def test_practice_again_at_another_shape_opens_another_table() -> None:
    (user,) = make_users(1, "twoshapes")
    client = logged_in(user)
    client.post(PRACTICE, {"players": "6", "mode": "friends"})
    first = Table.objects.get(creator=user)
    hand = Hand.objects.get(match__table=first)
    services.hand_leave(hand_id=hand.pk, user=user)  # free at practice
    client.post(PRACTICE, {"players": "8", "mode": "tractor"})
    second = Table.objects.filter(creator=user).order_by("-pk").first()
    assert second is not None and second.pk != first.pk
    assert second.players == 8 and second.rules().decks == 4 and not second.rules().is_friends
    services.hand_leave(hand_id=Hand.objects.get(match__table=second).pk, user=user)
    client.post(PRACTICE, {"players": "6", "mode": "friends"})  # the first one, again
    assert Seat.objects.get(user=user).table_id == first.pk


def test_a_private_seven_seat_table_is_joined_by_its_invite_link_and_seated_anywhere() -> None:
    users = make_users(8, "seven")
    table = make_table(
        users[0], players=7, house_rules={"mode": "friends"}, unlisted=True, stake=10
    )
    assert table.pk not in [t["id"] for t in selectors.lobby_list()]
    guest = logged_in(users[6])
    assert guest.get(f"/tables/{table.pk}/").status_code == 404
    assert guest.get(f"/t/{table.invite_code}/").status_code == 302
    page = guest.get(f"/tables/{table.pk}/")
    assert page.status_code == 200
    config = page_config(page.content.decode())
    assert config["shape"]["players"] == 7 and config["shape"]["mode"] == "friends"
    assert len(config["shape"]["seat_names"]) == 7
    for index, user in enumerate(users[:7]):
        services.seat_take(table_id=table.pk, user=user, index=index)
    with pytest.raises(ApplicationError) as refused:
        services.seat_take(table_id=table.pk, user=users[7], index=7)  # no eighth seat
    assert refused.value.code == "invalid_seat"
    with pytest.raises(ApplicationError) as refused:
        services.seat_fill_bot(table_id=table.pk, user=users[0], index=7)
    assert refused.value.code == "invalid_seat"


def test_the_lobby_and_the_home_page_say_a_table_shape_in_words() -> None:
    from django.utils import translation

    users = make_users(2, "lobbyshape")
    make_table(users[0], players=6, house_rules={"mode": "friends"}, stake=10)
    with translation.override("zh-hans"):
        assert rules_words.shape_words({"players": 6, "decks": 3, "mode": "friends"}) == (
            "6人 · 3副 · 找朋友"
        )
    with translation.override("zh-hant"):
        assert rules_words.shape_words({"players": 8, "decks": 4, "mode": "tractor"}) == (
            "8人 · 4副 · 拖拉機"
        )
    with translation.override("en"):
        assert rules_words.shape_words(
            {"options": {"players": 6, "decks": 3, "mode": "friends"}}
        ) == ("6 players · 3 decks · Finding Friends")
    lobby = logged_in(users[1]).get("/tables/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert [row["shape_words"] for row in lobby.context["tables"]] == ["6人 · 3副 · 找朋友"]
    home = logged_in(users[1]).get("/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert home.context["practice_shapes"][0]["words"] == "4人 · 2副 · 拖拉机"
    assert any(s["words"] == "6人 · 3副 · 找朋友" for s in home.context["practice_shapes"])


def test_quick_match_tables_stay_four_players_and_two_decks() -> None:
    users = make_users(4, "ranked4")
    table = ranked_table(users)
    rules = table.rules()
    assert (table.players, rules.players, rules.decks, rules.mode) == (4, 4, 2, "tractor")
    assert Seat.objects.filter(table=table).count() == 4


def test_the_admin_lists_and_filters_tables_by_players_mode_and_decks() -> None:
    boss = User.objects.create_superuser("boss", "boss@example.com", "pw-long-enough-1")
    admin_client = logged_in(boss)
    (user,) = make_users(1, "adminshape")
    six = make_table(user, players=6, house_rules={"mode": "friends"}, stake=10)
    eight = make_table(user, players=8, stake=10)
    four = make_table(user, stake=10)
    page = admin_client.get("/admin/games/table/?players=6")
    assert page.status_code == 200
    ids = {t.pk for t in page.context["cl"].result_list}
    assert ids == {six.pk}
    ids = {
        t.pk for t in admin_client.get("/admin/games/table/?mode=friends").context["cl"].result_list
    }
    assert ids == {six.pk}
    ids = {t.pk for t in admin_client.get("/admin/games/table/?decks=4").context["cl"].result_list}
    assert ids == {eight.pk}
    ids = {t.pk for t in admin_client.get("/admin/games/table/?decks=2").context["cl"].result_list}
    assert ids == {four.pk}
    html = admin_client.get("/admin/games/table/").content.decode()
    assert "column-players" in html and "column-mode" in html and "column-decks" in html
    assert admin_client.get(f"/admin/games/table/{six.pk}/change/").status_code == 200
