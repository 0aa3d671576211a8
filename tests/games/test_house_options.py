"""House options on the site (RULES-SPEC.md §10; games/house_options.py): one registry offers
every engine house option in groups, in three languages; the create form and practice take
them, a combination the engine refuses is refused in the player's language and nothing is
made; the rules card says only what changed; /rules/ explains each; a ranked table plays the
``ranked`` preset unchanged; a shortened deck's match starts at its lowest rank."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from accounts.errors import ApplicationError, is_known_code, message_for
from games import house_options, rules_words, services
from games.forms import PracticeForm, TableCreateForm
from games.handstate import load_state
from games.models import Hand, Match, Table
from games.services.start import lowest_level
from games.services.tables import house_rules_checked
from shengji.engine import HOUSE_OPTIONS, PRESETS, preset, view_for
from shengji.engine.action_errors import HOUSE_ACTION_REASON_CODES
from tests.games.helpers import logged_in, make_users
from tests.https import HTTPS

ROOT = Path(__file__).resolve().parents[2]
CHINESE = ("zh-hans", "zh-hant")
BROWSERS = {"zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9", "en": "en-US,en;q=0.9"}


def create_form(**fields: str) -> dict[str, str]:
    base = {"name": "house", "preset": "ranked", "stake": "20", "min_balance": "0"}
    return {**base, "play_seconds": "20", **fields}


# --- the registry -------------------------------------------------------------------------------


def test_every_engine_house_option_has_one_entry_with_the_engines_values() -> None:
    assert house_options.missing_options() == []
    for name, values in HOUSE_OPTIONS.items():
        entry = house_options.option(name)
        if values is None:
            assert entry.number is not None and not entry.values, name
            assert entry.number.least <= getattr(PRESETS["ranked"], name) <= entry.number.most
        else:
            assert set(entry.values) == set(values), name
    assert set(house_options.BY_NAME) <= set(HOUSE_OPTIONS)
    grouped = [o.name for _group, options in house_options.grouped() for o in options]
    assert sorted(grouped) == sorted(house_options.BY_NAME)  # each option in one group


@pytest.mark.parametrize("language", CHINESE)
def test_every_label_explanation_and_value_is_in_chinese(language: str) -> None:
    def words_of(entry: house_options.HouseOption) -> list[Any]:
        words: list[Any] = [entry.label, entry.explanation, *entry.values.values()]
        if entry.number is not None:
            words += [entry.number.words] + ([entry.number.zero] if entry.number.zero else [])
        return words

    with translation.override("en"):
        english = {o.name: [str(w) for w in words_of(o)] for o in house_options.OPTIONS}
        groups_en = [str(g.label) for g in house_options.GROUPS]
    with translation.override(language):
        for entry in house_options.OPTIONS:
            for word, in_english in zip(words_of(entry), english[entry.name], strict=True):
                assert str(word) != in_english, (entry.name, in_english)
                assert not re.search(r"[a-z]{3,}", str(word)), (entry.name, str(word))
        assert all(str(g.label) not in groups_en for g in house_options.GROUPS)


# --- the create form ------------------------------------------------------------------------------


def test_the_form_offers_every_option_in_its_group_numbers_with_their_ranges() -> None:
    form = TableCreateForm()
    grouped = {field.name for group in form.house_groups_bound() for field in group["fields"]}
    assert grouped == {house_options.field_name(name) for name in HOUSE_OPTIONS}
    main = {field.name for field in form.main_fields_bound()}
    assert not main & grouped
    html = str(form["rule_step_points"])
    assert 'type="number"' in html and 'min="0"' in html and 'max="400"' in html
    assert 'step="5"' in html
    assert 'max="12"' in str(form["rule_tractor_min_length"])
    assert "NT" in str(form["rule_top_level"])
    # draw_policy is the shape's field, with its house values too.
    assert "suit_only" in str(form["draw_policy"])


@pytest.mark.django_db
def test_a_table_is_made_with_house_options_stored_typed() -> None:
    (user,) = make_users(1, "hopt")
    response = logged_in(user).post(
        "/tables/new/",
        create_form(
            rule_top_level="NT",
            rule_hide_defender_points="on",
            rule_play_history="full",
            rule_throw_penalty="10",
            rule_rainbow_min="0",  # the preset's: not stored
            rule_zero_bonus="off",
            draw_policy="suit_only",
        ),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    table = Table.objects.get(creator=user)
    assert table.house_rules == {
        "top_level": "NT",
        "hide_defender_points": True,
        "play_history": "full",
        "throw_penalty": 10,
        "zero_bonus": False,
        "draw_policy": "suit_only",
    }
    rules = table.rules()
    assert (rules.top_level, rules.hide_defender_points, rules.throw_penalty) == ("NT", True, 10)
    assert rules.zero_bonus is False and rules.draw_policy == "suit_only"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"rule_bombs": "any_suit"}, "bombs_need_4_decks"),
        ({"preset": "seed003", "rule_top_level": "NT"}, "needs_team_level"),
        ({"rule_step_points": "15", "rule_takeover_steps": "20"}, "score_bands_out_of_range"),
        ({"preset": "seed002", "rule_deadzone_steps": "0"}, "score_bands_with_table_settlement"),
        ({"rule_rainbow_min": "3"}, "rainbow_min_out_of_range"),
        ({"rule_tractor_min_tuple": "3"}, "tractor_min_tuple_out_of_range"),
        ({"rule_kitty_size": "150"}, "kitty_size_out_of_range"),
    ],
)
def test_a_refused_combination_is_shown_in_the_players_language_and_nothing_is_made(
    fields: dict[str, str], code: str
) -> None:
    (user,) = make_users(1, "href")
    client = logged_in(user)
    response = client.post(
        "/tables/new/", create_form(**fields), HTTP_ACCEPT_LANGUAGE=BROWSERS["zh-hans"]
    )
    assert response.status_code == 400
    page = response.content.decode()
    with translation.override("zh-hans"):
        message = message_for(code)
    assert re.search(r"[\u4e00-\u9fff]", message)
    assert message in page and f"({code})" in page
    assert not Table.objects.filter(creator=user).exists()


@pytest.mark.django_db
def test_a_number_out_of_the_forms_range_is_a_field_error() -> None:
    (user,) = make_users(1, "hnum")
    response = logged_in(user).post("/tables/new/", create_form(rule_tractor_min_length="13"))
    assert response.status_code == 400
    form = response.context["form"]
    assert "rule_tractor_min_length" in form.errors
    assert not Table.objects.filter(creator=user).exists()


def test_the_service_refuses_a_value_of_the_wrong_type_or_an_unknown_option() -> None:
    for house_rules in (
        {"hide_defender_points": 1},  # a flag is True / False
        {"throw_penalty": "10"},  # a number is an int
        {"throw_penalty": True},
        {"top_level": "K"},
        {"no_such_option": "x"},
    ):
        with pytest.raises(ApplicationError) as raised:
            house_rules_checked("ranked", house_rules)
        assert raised.value.code == "invalid_house_rules", house_rules
    assert house_rules_checked("ranked", {"throw_penalty": 0, "top_level": "NT"}) == {
        "top_level": "NT"
    }


def test_the_practice_form_reads_house_options_too() -> None:
    form = PracticeForm({"shape": "4-tractor", "rule_top_level": "NT", "rule_kitty_size": "6"})
    assert form.is_valid(), form.errors
    arguments = form.shape_arguments()
    assert arguments["house_rules"]["top_level"] == "NT"
    assert arguments["house_rules"]["kitty_size"] == 6


@pytest.mark.django_db
def test_a_practice_table_plays_its_house_options_and_starts_at_the_decks_lowest_rank() -> None:
    (user,) = make_users(1, "hprac")
    response = logged_in(user).post(
        "/tables/practice/", {"rule_deck_min_rank": "3", "rule_play_history": "full"}
    )
    assert response.status_code == 302
    table = Table.objects.get(creator=user)
    assert table.house_rules == {"deck_min_rank": "3", "play_history": "full"}
    match = Match.objects.get(table=table)
    assert match.levels == ["3", "3"]
    hand = Hand.objects.get(match=match)
    assert hand.levels == ["3", "3"]
    state = load_state(hand)
    assert state.levels[0] == "3" and state.rules.deck_min_rank == "3"
    assert view_for(state, 0)["tricks"] == []  # play_history full: every trick, none yet


# --- ranked -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_ranked_table_carries_no_house_options() -> None:
    users = make_users(4, "hrank")
    with pytest.raises(ApplicationError) as raised:
        services.table_create(
            creator=users[0], name="r", ranked=True, house_rules={"top_level": "NT"}
        )
    assert raised.value.code == "ranked_quick_match_only"
    table = services.ranked_table_open(users=users, name="r", stake=20)
    assert table.ranked and table.house_rules == {}
    assert table.rules() == preset("ranked")
    # And the form cannot ask for a ranked table with them.
    response = logged_in(users[0]).post(
        "/tables/new/", create_form(mode="ranked", rule_top_level="NT")
    )
    assert response.status_code == 400
    assert not Table.objects.filter(creator=users[0], ranked=False).exists()


# --- the words: the rules card and the summary ------------------------------------------------


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant", "en"])
def test_the_rules_card_says_only_what_changed(language: str) -> None:
    rules = preset("ranked").with_options(
        top_level="NT", hide_defender_points=True, rainbow_min=0, name="ranked+house"
    )
    with translation.override(language):
        card = rules_words.rules_card(rules.to_dict())
        labels = [str(house_options.option(n).label) for n in ("top_level", "hide_defender_points")]
        nt = house_options.option("top_level").words("NT")
        changed_words = rules_words._changes_words(["top_level", "hide_defender_points"])
    house = [row for row in card["rows"] if row["option"] not in rules_words.option_labels()]
    assert [row["option"] for row in house] == ["top_level", "hide_defender_points"]
    assert all(row["changed"] for row in house)
    assert house[0]["text"] == nt and house[1]["value"] == "on"
    assert card["description"] == changed_words
    assert all(label in card["description"] for label in labels)
    # The preset alone: no house row at all.
    plain = rules_words.rules_card(preset("ranked").to_dict())
    rows_of_8 = [o for o in rules_words.option_labels() if o != "no_bid_first_hand"]
    assert [r["option"] for r in plain["rows"]] == rows_of_8


def test_draw_policys_shape_values_are_no_house_rule_its_house_values_are() -> None:
    assert not rules_words.house_rules_change_preset(
        "ranked", {"draw_policy": "longer_tuples_protected"}, decks=3
    )
    assert rules_words.house_rules_change_preset("ranked", {"draw_policy": "suit_only"})
    assert rules_words.house_rules_change_preset("ranked", {"throw_penalty": 5})
    assert not rules_words.house_rules_change_preset("ranked", {"throw_penalty": 0})


def test_the_form_script_gets_each_house_options_words_and_default() -> None:
    with translation.override("zh-hans"):
        data = rules_words.form_rules_data()["house"]
    assert set(data) == set(rules_words.house_row_options())
    assert data["top_level"]["default"] == "A" and data["top_level"]["field"] == "rule_top_level"
    assert data["hide_defender_points"]["words"]["on"] == "本局结束前不显示"
    assert data["step_points"]["number"] == "{n} 分" and data["step_points"]["default"] == "0"
    assert data["draw_policy"]["field"] == "draw_policy"
    assert data["draw_policy"]["shape_values"] == ["no_protections", "longer_tuples_protected"]


# --- /rules/ ----------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["zh-hans", "zh-hant", "en"])
def test_the_rules_page_explains_every_house_option(language: str) -> None:
    response = Client(**HTTPS).get("/rules/", HTTP_ACCEPT_LANGUAGE=BROWSERS[language])
    page = response.content.decode()
    section = page[page.index('id="house-options"') :]
    with translation.override(language):
        for entry in house_options.OPTIONS:
            assert f'data-option="{entry.name}"' in section, entry.name
            assert str(entry.explanation).replace("'", "&#x27;") in section, entry.name
        for group in house_options.GROUPS:
            assert str(group.label) in section
    # Each anchor once: the §10 options get theirs here, the §8 ones link to the body's.
    for name in ("top_level", "bombs", "kitty_size"):
        assert page.count(f'id="opt-{name}"') == 1
    assert page.count('id="opt-bidding"') == 1 and 'href="#opt-bidding"' in section


# --- refusal codes ------------------------------------------------------------------------------


def _refusal_reasons() -> set[str]:
    """The reasons ``RefusedOptionError`` is raised with in the engine's rules (not the shape's,
    which ``shape_checked`` maps as before)."""
    text = (ROOT / "shengji" / "engine" / "rules.py").read_text(encoding="utf-8")
    return set(re.findall(r'RefusedOptionError\(\s*"([a-z_0-9]+)"', text))


@pytest.mark.parametrize("language", CHINESE)
def test_every_refusal_reason_and_house_action_code_has_a_translated_message(
    language: str,
) -> None:
    codes = _refusal_reasons() | set(HOUSE_ACTION_REASON_CODES)
    assert {"bombs_need_4_decks", "needs_team_level", "friend_card_not_in_deck"} <= codes
    for code in sorted(codes):
        assert is_known_code(code), code
        with translation.override("en"):
            english = message_for(code)
        with translation.override(language):
            assert message_for(code) != english, code


def test_a_seat_starting_again_starts_at_the_decks_lowest_rank() -> None:
    """An escaper's or a new player's level in 找朋友 goes back to the lowest level
    (games/services/wrap_up.py, start.py): 2, or ``deck_min_rank``."""
    shortened = preset("ranked").with_options(deck_min_rank="4").to_dict()
    assert lowest_level(Match(ruleset=shortened)) == "4"
    assert lowest_level(Match(ruleset=preset("ranked").to_dict())) == "2"
