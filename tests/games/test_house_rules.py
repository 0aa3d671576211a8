"""House rules (issue 16): a casual table may change any rule option of its preset; the rules
in force are the preset with the house rules on top, in every hand, in the points needed to sit,
on the rules card (with what an escape and the fees cost at the table's stake) and in the leave
dialog's figure."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from accounts.errors import ApplicationError
from games import rules_words, services
from games.models import Table
from games.services.tables import points_needed_for
from ladder import selectors as ladder_selectors
from shengji.engine import HOUSE_OPTIONS, HOUSE_RULE_OPTIONS, PRESET_NAMES, PRESETS
from tests.games.helpers import logged_in, make_table, make_users, seat_all

pytestmark = pytest.mark.django_db


def english(client: Client, url: str) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert response.status_code == 200
    return response.content.decode()


def found(pattern: str, text: str) -> str:
    match = re.search(pattern, text, re.S)
    assert match is not None, pattern
    return match[1]


def page_config(html: str) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(found(r'id="table-config"[^>]*>(.*?)</script>', html))
    return config


def create_form(**fields: str) -> dict[str, str]:
    return {"name": "house", "stake": "100", "min_balance": "0", "play_seconds": "20", **fields}


def test_the_form_stores_only_the_options_that_differ_from_the_preset() -> None:
    user = make_users(1, "house")[0]
    response = logged_in(user).post(
        "/tables/new/",
        create_form(
            preset="seed004", rule_escape_penalty="triple", rule_bidding="strength", unlisted="on"
        ),
    )
    assert response.status_code == 302
    table = Table.objects.get(creator=user)
    assert table.house_rules == {"escape_penalty": "triple"}  # seed004 already bids by strength
    rules = table.rules()
    assert rules.escape_penalty == "triple" and rules.failed_throw == "reject"
    assert rules.name == "seed004+house"
    assert table.unlisted and len(table.invite_code) >= 12


@pytest.mark.parametrize(
    "field", [("rule_escape_penalty", "free_for_all"), ("rule_no_such_option", "x")]
)
def test_a_bad_house_rule_is_refused_and_creates_nothing(field: tuple[str, str]) -> None:
    user = make_users(1, "badhouse")[0]
    name, value = field
    response = logged_in(user).post("/tables/new/", create_form(preset="ranked", **{name: value}))
    if name == "rule_no_such_option":  # not a field of the form: ignored, the preset stands
        assert Table.objects.get(creator=user).house_rules == {}
        return
    assert response.status_code == 400
    assert not Table.objects.filter(creator=user).exists()


def test_the_service_refuses_an_unknown_option_or_value_with_a_stable_code() -> None:
    user = make_users(1, "svc")[0]
    for house_rules in ({"escape_penalty": "free"}, {"stake": "9"}, {"name": "ranked"}):
        with pytest.raises(ApplicationError) as raised:
            make_table(user, preset_name="ranked", house_rules=house_rules)
        assert raised.value.code == "invalid_house_rules"
    assert not Table.objects.filter(creator=user).exists()


def test_every_house_option_of_the_engine_is_a_field_of_the_create_form() -> None:
    assert set(HOUSE_RULE_OPTIONS) == {
        "bidding",
        "first_hand_dealer",
        "no_bid_first_hand",
        "no_bid",
        "failed_throw",
        "forced_part",
        "flip_rule",
        "kitty_multiplier",
        "past_ace",
        "level_source",
        "settlement",
        "escape_penalty",
    }
    form_fields = __import__("games.forms", fromlist=["x"]).TableCreateForm().fields
    fields = {name.removeprefix("rule_") for name in form_fields if name.startswith("rule_")}
    # draw_policy is also a shape field, named as the option (games/house_options.py).
    assert "draw_policy" in form_fields
    assert fields | {"draw_policy"} == set(HOUSE_OPTIONS)
    assert set(HOUSE_RULE_OPTIONS) < set(HOUSE_OPTIONS)


def test_a_hand_is_played_under_the_house_rules() -> None:
    users = make_users(4, "hh")
    table = make_table(
        users[0], preset_name="ranked", house_rules={"bidding": "count", "past_ace": "wrap"}
    )
    hand = seat_all(table, users)
    options = hand.ruleset["options"]
    assert options["bidding"] == "count" and options["past_ace"] == "wrap"
    assert options["settlement"] == "ratio"  # the preset's
    assert hand.ruleset["name"] == "ranked+house"


def test_the_points_needed_follow_the_house_settlement() -> None:
    plain = points_needed_for(preset_name="ranked", stake=100)
    house = points_needed_for(
        preset_name="ranked", stake=100, house_rules={"escape_penalty": "none"}
    )
    assert house < plain


def rules_rows(html: str) -> dict[str, str]:
    rows = re.findall(
        r'<div class="rules-row" data-option="(\w+)" data-value="\w*"><dt>[^<]*</dt>'
        r"<dd>([^<]*)</dd></div>",
        html,
    )
    return dict(rows)


@pytest.mark.parametrize(
    ("preset_name", "stake", "figures"),
    [
        ("ranked", 100, ("600", "960")),  # triple under ratio: 3 × (100 % … 220 % + 1) stakes
        ("seed003", 50, ("450",)),  # nine stakes
        ("seed002", 100, ("40",)),  # fixed 40
    ],
)
def test_the_rules_card_says_what_an_escape_costs_at_the_stake(
    preset_name: str, stake: int, figures: tuple[str, ...]
) -> None:
    user = make_users(1, f"esc{preset_name}")[0]
    table = make_table(user, preset_name=preset_name, stake=stake)
    html = english(logged_in(user), f"/tables/{table.pk}/")
    escape = rules_rows(html)["escape_penalty"]
    for figure in figures:
        assert re.search(rf"\b{figure}\b", escape), escape
    least, most = ladder_selectors.escape_cost(ruleset=table.rules().to_dict(), stake=stake)
    assert str(least) in escape and str(most) in escape
    config = page_config(html)
    assert config["rules"]["escape_cost"] == most
    assert config["rules"]["escape_text"] == escape.replace("&#x27;", "'")


def test_nobody_pays_under_seed004_and_the_leave_figure_is_zero() -> None:
    user = make_users(1, "s4")[0]
    table = make_table(user, preset_name="seed004", stake=100)
    html = english(logged_in(user), f"/tables/{table.pk}/")
    assert "costs nothing" in rules_rows(html)["escape_penalty"]
    config = page_config(html)
    assert config["rules"]["escape_cost"] == 0


def test_the_fees_row_gives_the_fees_at_the_stake() -> None:
    user = make_users(1, "fees")[0]
    ranked = make_table(user, preset_name="ranked", stake=100)
    steps = make_table(make_users(1, "fees2")[0], preset_name="seed003", stake=200)
    client = logged_in(user)
    ranked_fees = rules_rows(english(client, f"/tables/{ranked.pk}/"))
    steps_fees = rules_rows(english(client, f"/tables/{steps.pk}/"))
    fees = ladder_selectors.fee_schedule()
    assert f"fee of {fees.winner_fee} " in ranked_fees["fees"]
    service = 200 * fees.service_percent // 100
    assert f"table fee of {fees.table_fee} " in steps_fees["fees"]
    assert f"service fee of {service} " in steps_fees["fees"]


def test_every_preset_has_a_name_and_a_description_players_read() -> None:
    assert set(rules_words.PRESET_WORDS) == set(PRESET_NAMES) == set(PRESETS)
    for name, (label, description) in rules_words.PRESET_WORDS.items():
        assert str(label) and str(label) != name
        assert len(str(description)) > 30
    assert rules_words.preset_label("seed003+house").endswith("house rules")


def test_the_lobby_and_the_table_header_show_the_preset_by_its_name() -> None:
    user = make_users(1, "names")[0]
    table = make_table(user, preset_name="seed003")
    client = logged_in(user)
    lobby = english(client, "/tables/")
    assert "Random level" in lobby
    page = english(client, f"/tables/{table.pk}/")
    header = found(r'<span id="table-meta"[^>]*>(.*?)</span>', page)
    assert "Random level" in header and "seed003" not in header


def test_at_a_practice_table_the_card_and_the_dialog_say_leaving_costs_nothing() -> None:
    user = make_users(1, "prac")[0]
    table = services.practice_start(user=user)
    html = english(logged_in(user), f"/tables/{table.pk}/")
    assert rules_rows(html)["escape_penalty"] == rules_words.practice_words()
    config = page_config(html)
    assert config["rules"]["practice_text"] == rules_words.practice_words()
    assert "costs nothing" in rules_words.practice_words()
