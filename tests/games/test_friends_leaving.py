"""Leaving a 找朋友 table, as a group of six meets it: an escape keeps the match and everyone
else's level (the escaper's seat is freed, back at 2, and a bot or a new player takes it), the
result and the log name the escaper, the escaper's payment goes to the house and nobody at the
table gains (so alts escaping in turn feed no one), the match ends only when its players all
stand up; and a 4-seat 拖拉机 table keeps ending its match at an escape (docs/RULES-DECISIONS.md,
"Leaving a 找朋友 table"; docs/LADDER.md, "No faster than play")."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from accounts.models import User
from games import rules_words, services
from games.models import ChatLine, Hand, Match, Seat, Table
from games.services.start import _rules_for
from ladder.models import LedgerEntry
from ladder.selectors import player_balance
from shengji.engine import RuleSet
from tests.games.helpers import (
    deal_and_close,
    fresh,
    make_table,
    make_users,
    play_out,
    ready_all,
    seat_all,
)
from tests.https import HTTPS

pytestmark = pytest.mark.django_db
SIX = 6
LEVELS = ["4", "4", "3", "2", "2", "5"]


def friends_table(users: list[User], **options: object) -> Table:
    return make_table(users[0], players=SIX, house_rules={"mode": "friends"}, stake=10, **options)


def seated_at_levels(table: Table, users: list[User], levels: list[str]) -> Hand:
    """The six seated, their match already at ``levels`` (as after some hands), then ready:
    the hand dealt and the bidding closed."""
    for index, user in enumerate(users):
        services.seat_take(table_id=table.pk, user=user, index=index)
    Match.objects.create(
        table=table,
        ruleset=_rules_for(table),
        levels=levels,
        wrapped=[False] * SIX,
        players=[u.pk for u in users],
        next_dealer=3,
    )
    return deal_and_close(ready_all(table, users))


def current_match(table: Table) -> Match:
    return Match.objects.filter(table=table).order_by("-pk").first()  # type: ignore[return-value]


def test_an_escape_at_six_friends_keeps_the_match_and_the_others_levels() -> None:
    """Seat 5 (at 打5) escapes: the match goes on, the five others keep 4, 4, 3, 2, 2 and the
    seat goes back to 2; the same seat deals again; a new player sits there and the next hand
    of the same match is dealt at those levels."""
    users = make_users(SIX + 1, "six")
    table = friends_table(users)
    hand = seated_at_levels(table, users[:SIX], LEVELS)
    dealer = fresh(hand).dealer
    services.hand_leave(hand_id=hand.pk, user=users[5])

    hand = fresh(hand)
    match = current_match(table)
    assert hand.status == Hand.Status.ESCAPED and not hand.awaiting_wrap_up
    assert match.pk == hand.match_id and match.ended_at is None
    assert match.levels == ["4", "4", "3", "2", "2", "2"]
    assert match.next_dealer == dealer == 3
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    assert seats[5].user_id is None
    assert [s.user_id for s in seats[:5]] == [u.pk for u in users[:5]]
    assert all(s.ready for s in seats[:5])  # auto-ready: the match goes on

    services.seat_take(table_id=table.pk, user=users[6], index=5)
    second = services.seat_ready(table_id=table.pk, user=users[6])
    assert second is not None and second.match_id == match.pk
    assert second.levels == ["4", "4", "3", "2", "2", "2"] and second.dealer == 3
    assert current_match(table).players == [u.pk for u in users[:5]] + [users[6].pk]


@pytest.mark.slow  # a whole six-seat hand (README, "The fast lane")
def test_a_player_away_at_the_end_starts_again_at_two_as_an_escaper_does() -> None:
    """Seat 1 (at 打4) is taken over by the bot and still away when the hand ends: charged as
    an escaper, freed, and back at 2 like one, even on sitting down again; the match goes on."""
    users = make_users(SIX, "sixaway")
    table = friends_table(users)
    hand = seated_at_levels(table, users, LEVELS)
    services.seat_connected(table_id=table.pk, user=users[1], channel_name="away-1")
    seat = services.seat_disconnected(channel_name="away-1")
    assert seat is not None and seat.disconnected_at is not None
    assert services.seat_takeover(seat_id=seat.pk, since=seat.disconnected_at.isoformat())
    hand = play_out(hand, users)

    match = current_match(table)
    assert match.pk == hand.match_id and match.ended_at is None
    assert match.levels[1] == "2"
    assert Seat.objects.get(table=table, index=1).user_id is None
    services.seat_take(table_id=table.pk, user=users[1], index=1)
    second = services.seat_ready(table_id=table.pk, user=users[1])
    assert second is not None and second.match_id == match.pk and second.levels[1] == "2"


def test_a_bot_in_the_escapers_seat_plays_on_in_the_same_match() -> None:
    users = make_users(SIX, "sixbot")
    table = friends_table(users)
    hand = seated_at_levels(table, users, LEVELS)
    services.hand_leave(hand_id=hand.pk, user=users[2])
    services.seat_fill_bot(table_id=table.pk, user=users[0], index=2)
    second = Hand.objects.filter(match__table=table).order_by("-pk").first()
    assert second is not None and second.pk != hand.pk and second.match_id == hand.match_id
    assert second.levels == ["4", "4", "2", "2", "2", "5"]


def test_the_escape_line_and_the_result_name_the_escaper() -> None:
    """The seat is free once the hand is wrapped up, so the line stores the escaper's name:
    "晓东 escaped", never "6号位" (简体, 繁體, English)."""
    users = make_users(SIX, "sixname")
    User.objects.filter(pk=users[5].pk).update(display_name="晓东")
    table = friends_table(users)
    hand = seated_at_levels(table, users, LEVELS)
    services.hand_leave(hand_id=hand.pk, user=users[5])
    line = ChatLine.objects.get(table=table, code="escaped")
    assert line.params == [1, 5, "晓东"]
    expected = {"zh-hans": "第 1 局：晓东逃跑", "zh-hant": "晓东", "en": "hand 1: 晓东 escaped"}
    for language, words in expected.items():
        with translation.override(language):
            text = str(line)
        assert words in text and "6" not in text, (language, text)


def test_an_escape_pays_the_house_and_no_one_at_the_table_gains() -> None:
    """``nine_stakes`` (9 × S) at a six-seat 找朋友 table of alts: the escaper pays 90, the house
    gets all of it, the five others exactly nothing; escaping in turn feeds nobody."""
    users = make_users(SIX, "sixalt")
    table = make_table(
        users[0],
        players=SIX,
        house_rules={"mode": "friends", "escape_penalty": "nine_stakes"},
        stake=10,
    )
    before = {u.pk: player_balance(user=u) for u in users}
    hand = seated_at_levels(table, users, LEVELS)
    for escaper in (5, 4):
        services.hand_leave(hand_id=hand.pk, user=users[escaper])
        house = LedgerEntry.objects.filter(hand=hand, user=None)
        assert list(house.values_list("kind", "amount")) == [("escape_penalty", 90)]
        services.seat_take(table_id=table.pk, user=users[escaper], index=escaper)
        hand = services.seat_ready(table_id=table.pk, user=users[escaper])  # type: ignore[assignment]
        assert hand is not None
        hand = deal_and_close(hand)
    after = {u.pk: player_balance(user=u) for u in users}
    gains = {pk: after[pk] - before[pk] for pk in before}
    assert gains[users[5].pk] == gains[users[4].pk] == -90
    assert all(gains[u.pk] == 0 for u in users[:4])
    call_command("ladder_check", stdout=StringIO())


def test_the_match_ends_when_all_its_players_stand_up() -> None:
    """How a table chooses to end a 找朋友 match: its players all stand up. The same six
    sitting down again start a new match at 2."""
    users = make_users(SIX, "sixend")
    table = friends_table(users)
    hand = seated_at_levels(table, users, LEVELS)
    services.hand_leave(hand_id=hand.pk, user=users[5])
    match = current_match(table)
    for user in users[:4]:
        services.seat_leave(table_id=table.pk, user=user)
        assert fresh_match(match).ended_at is None  # one of its players still sits
    services.seat_leave(table_id=table.pk, user=users[4])
    assert fresh_match(match).ended_at is not None
    hand = seat_all(table, users)
    assert hand.match_id != match.pk and hand.levels == ["2"] * SIX


def fresh_match(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def test_a_four_seat_tractor_escape_still_ends_the_match() -> None:
    """拖拉机's levels are the sides': an escape ends the match, as before."""
    users = make_users(4, "four")
    table = make_table(users[0], stake=10)
    hand = deal_and_close(seat_all(table, users))
    services.hand_leave(hand_id=hand.pk, user=users[1])
    match = current_match(table)
    assert match.ended_at is not None
    assert Seat.objects.get(table=table, index=1).user_id is None
    services.seat_take(table_id=table.pk, user=users[1], index=1)
    second = ready_all(table, users)
    assert second.match_id != match.pk


HOUSE = {"zh-hans": "归系统", "zh-hant": "歸系統", "en": "to the house"}
KEPT = {"zh-hans": "保留各自的级数", "zh-hant": "保留各自的級數", "en": "keep their levels"}
PARTNER = {"zh-hans": "对家", "zh-hant": "對家", "en": "partner"}
SHARED = {"zh-hans": "平分", "zh-hant": "平分", "en": "shared"}
BROWSERS = {"zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9", "en": "en-US,en;q=0.9"}


@pytest.mark.parametrize("language", list(HOUSE))
def test_the_texts_say_what_the_ledger_does(language: str) -> None:
    """The escape warning and the rules card of a six-seat 找朋友 table name no partner, say
    the payment goes to the house (what the ledger writes) and that the others keep their
    levels; a 4-seat casual 拖拉机 table's says the house too, a ranked one's does not; the
    /rules/ page's 找朋友 escapes share nothing out among the others."""
    users = make_users(1, f"texts{language[-2:]}")
    friends = make_table(
        users[0],
        players=SIX,
        house_rules={"mode": "friends", "escape_penalty": "nine_stakes"},
        stake=10,
    )
    with translation.override(language):
        most, text = rules_words.escape_words(friends.rules().to_dict()["options"], 10)
        card = rules_words.rules_card(friends.rules().to_dict(), stake=10)
        casual = rules_words.escape_words(RuleSet().to_dict()["options"], 50)[1]
    assert most == 90 and "90" in text
    assert PARTNER[language] not in text.lower() and SHARED[language] not in text
    assert HOUSE[language] in text and KEPT[language] in text
    row = next(r for r in card["rows"] if r["option"] == "escape_penalty")
    assert row["text"] == text
    assert HOUSE[language] in casual and PARTNER[language] in casual.lower()
    with translation.override(language):
        ranked = rules_words.escape_words(RuleSet().to_dict()["options"], 50, ranked=True)[1]
    assert HOUSE[language] not in ranked and PARTNER[language] in ranked.lower()

    page = Client(**HTTPS).get("/rules/", HTTP_ACCEPT_LANGUAGE=BROWSERS[language])
    body = page.content.decode()
    friends_part = body[body.index('id="friends"') : body.index('id="options"')]
    escapes = next(p for p in friends_part.split("<p>") if "opt-escape_penalty" in p)
    assert SHARED[language] not in escapes and HOUSE[language] in escapes
    assert KEPT[language] in escapes
