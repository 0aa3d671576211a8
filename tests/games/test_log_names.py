"""The log names people, not seats: a line about what a seat did stores its player's name
(``chat_words.NAMED_SEATS``; "" for a bot's seat), the table page, the admin and the replay show
the name ("小红打出第1张黑桃A：庄家的朋友", "时间到，系统替大伟出了黑桃K"), a line stored before
names still shows its seat, English writes "1st A of clubs" with its space, and every 托管 change
is logged once (docs/PROTOCOL.md, "System lines")."""

from __future__ import annotations

import json
import subprocess
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from accounts.models import User
from games import chat_words, services
from games.handstate import load_state
from games.models import ChatLine, Hand, Seat, Table
from games.page_labels import replay_labels, table_labels
from games.services._common import db_now
from games.services.deadlines import hand_advance
from tests.games.helpers import (
    act_as_bot_would,
    deal_and_close,
    fresh,
    make_table,
    make_users,
    seat_all,
)

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("zh-hans", "zh-hant", "en")


def named_lines(table: Table) -> list[ChatLine]:
    lines = ChatLine.objects.filter(table=table, code__in=list(chat_words.NAMED_SEATS))
    return list(lines.order_by("pk"))


def test_a_friends_hand_names_the_dealer_and_each_friend_in_its_lines() -> None:
    """A six-seat 找朋友 hand played to its end through the services: every line about a seat
    (the calls, each friend, failed throws) stores the name of the player sitting there."""
    users = make_users(6, "logsix")
    for user, name in zip(users, ("小明", "小红", "大伟", "丽丽", "阿强", "晓东"), strict=True):
        User.objects.filter(pk=user.pk).update(display_name=name)
    users = [User.objects.get(pk=u.pk) for u in users]
    table = make_table(users[0], players=6, house_rules={"mode": "friends"}, stake=10)
    hand = deal_and_close(seat_all(table, users))
    while fresh(hand).status == Hand.Status.PLAYING:
        act_as_bot_would(hand, users)
    lines = named_lines(table)
    codes = [line.code for line in lines]
    assert "friends_called" in codes and {"friend_joins", "call_spent"} & set(codes)
    for line in lines:
        seat_part, name_part = chat_words.NAMED_SEATS[line.code]
        assert len(line.params) == name_part + 1, line.params
        assert line.params[name_part] == str(users[int(line.params[seat_part])])
        with translation.override("zh-hans"):
            assert str(users[int(line.params[seat_part])]) in str(line)
            assert "号位" not in str(line)


def test_a_timeout_line_names_the_player_and_a_bots_seat_reads_as_the_bot() -> None:
    users = make_users(4, "logtime")
    User.objects.filter(pk=users[0].pk).update(display_name="大伟")
    table = make_table(users[0], stake=10)
    hand = deal_and_close(seat_all(table, users))
    seat = load_state(hand).to_act
    assert seat is not None
    Hand.objects.filter(pk=hand.pk).update(deadline=db_now() - timedelta(seconds=1))
    assert hand_advance(hand_id=hand.pk, seq=fresh(hand).seq)
    line = ChatLine.objects.get(table=table, code="timeout_bury")
    assert line.params == [seat, str(User.objects.get(pk=users[seat].pk))]
    with translation.override("zh-hans"):
        assert str(line) == f"时间到，系统替{line.params[1]}扣了底"
    bot_line = ChatLine(table=table, system=True, code="timeout_play", params=[2, "KS", ""])
    with translation.override("zh-hans"):
        assert str(bot_line) == "时间到，系统替电脑（西）出了KS"


def test_an_old_line_without_a_name_still_reads_by_its_seat() -> None:
    users = make_users(1, "logold")
    table = make_table(users[0], stake=10)
    old = ChatLine(table=table, system=True, code="friend_joins", params=[1, "A♠", 1], text="x")
    with translation.override("zh-hans"):
        assert str(old) == "南打出第1张A♠：庄家的朋友"
    with translation.override("en"):
        assert str(old) == "South plays copy 1 of A♠: a friend of the dealer"


def test_autopilot_on_then_the_players_own_move_logs_both() -> None:
    """托管 on, then the player plays themselves: both changes stay in the log (the line that
    turned it on is not merged away)."""
    users = make_users(4, "logauto")
    table = make_table(users[0], stake=10)
    hand = deal_and_close(seat_all(table, users))
    seat = load_state(hand).to_act
    assert seat is not None
    services.seat_autopilot(table_id=table.pk, user=users[seat], on=True)
    assert Seat.objects.get(table=table, index=seat).autopilot
    act_as_bot_would(hand, users)  # the player buries themselves: 托管 ends
    lines = ChatLine.objects.filter(table=table, code__in=["autopilot_on", "autopilot_off"])
    assert [(line.code, line.params[0]) for line in lines.order_by("pk")] == [
        ("autopilot_on", seat),
        ("autopilot_off", seat),
    ]


def test_the_nth_card_pattern_has_its_space_in_english_only() -> None:
    words = {}
    for language in LANGUAGES:
        with translation.override(language):
            words[language] = table_labels()["nth_card"]
            assert replay_labels()["nth_card"] == words[language]
    assert words == {"zh-hans": "{nth}{card}", "zh-hant": "{nth}{card}", "en": "{nth} {card}"}


# --- the table page's own rendering (static/games/table.js), run by Node --------------------

FUNCTIONS = (
    "fmt",
    "view",
    "seatCount",
    "seatInfo",
    "compass",
    "seatCalled",
    "seatName",
    "lineSeat",
    "escaperName",
    "nthText",
    "callsWords",
    "resultKey",
    "systemWords",
    "systemText",
)
CONSTANTS = (("SYSTEM_PARTS", "};"), ("SYSTEM_LINES", "];"))


def _piece(source: str, start: str, close: str = "}") -> str:
    """The top-level declaration of table.js that begins with ``start``, to its closing line
    (``close`` at the start of a line)."""
    begin = source.index(f"\n{start}") + 1
    end = source.index(f"\n{close}", begin) + 1
    return source[begin : source.index("\n", end) + 1]


def render_lines(labels: dict[str, Any], lines: list[dict[str, Any]], seats: int) -> list[str]:
    """Each line as table.js's ``systemText`` writes it, at a table of ``seats`` (all empty)."""
    source = (ROOT / "static/games/table.js").read_text()
    pieces = [_piece(source, f"function {name}(") for name in FUNCTIONS]
    pieces += [_piece(source, f"const {name} = ", close) for name, close in CONSTANTS]
    config = {"shape": {"players": seats, "seat_names": chat_words.seat_names(seats)}}
    game = {"seats": [], "you": None, "hand": {"number": 1, "view": None}, "chat": lines}
    script = "\n".join(
        [
            f'import {{ cardName, cardsName, parseCards }} from "{ROOT}/static/games/cards.js";',
            f"const L = {json.dumps(labels, ensure_ascii=False)};",
            f"const config = {json.dumps(config)};",
            f"const game = {json.dumps(game, ensure_ascii=False)};",
            *pieces,
            "console.log(JSON.stringify(game.chat.map(systemText)));",
            "console.log(JSON.stringify(escaperName(5)));",
        ]
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "render.mjs"
        path.write_text(script)
        done = subprocess.run(
            ["node", str(path)], capture_output=True, text=True, timeout=60, check=True
        )
    rendered, escaper = done.stdout.strip().splitlines()
    return [*json.loads(rendered), json.loads(escaper)]


def line(code: str, *params: object) -> dict[str, Any]:
    return {"user": None, "system": True, "code": code, "params": list(params), "text": "x"}


LINES = [
    line("friend_joins", 4, "AS", 1, "小红"),
    line("timeout_play", 2, "KS", "大伟"),
    line("friends_called", 0, "1AC 2KH", "小明"),
    line("bids", 3, "5H 5H", ""),
    line("friend_joins", 4, "AS", 1),  # stored before names: its seat
    line("escaped", 1, 5, "晓东"),
    line("autopilot_on", 1, "小红"),
]
EXPECTED = {
    "zh-hans": [
        "小红打出第1张黑桃A：庄家的朋友",
        "时间到，系统替大伟出了黑桃K",
        "小明叫朋友：第1张梅花A",
        "电脑（4号位）亮主",
        "5号位打出第1张黑桃A：庄家的朋友",
        "第 1 局：晓东逃跑",
        "小红（2号位）开启托管",
        "晓东",
    ],
    "zh-hant": ["小紅", "大伟", "小明", "電腦（4號位）", "5號位", "晓东", "小红", "晓东"],
    "en": [
        "小红 plays copy 1 of A of spades: a friend of the dealer",
        "Time's up: the system played K of spades for 大伟",
        "小明 calls friends: 1st A of clubs, 2nd K of hearts",
        "bot (seat 4) bids",
        "seat 5 plays copy 1 of A of spades: a friend of the dealer",
        "hand 1: 晓东 escaped",
        "小红 (seat 2) turns autopilot on",
        "晓东",
    ],
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_table_page_shows_each_line_with_its_players_name(language: str) -> None:
    with translation.override(language):
        labels = table_labels()
        rendered = render_lines(labels, LINES, seats=6)
    for text, expected in zip(rendered, EXPECTED[language], strict=True):
        if language == "zh-hant":
            expected = expected.replace("小紅", "小红")
        assert expected in text, (language, text, expected)
    assert "1stA" not in " ".join(rendered)


def test_a_disconnect_and_a_return_log_the_bot_taking_the_seat_and_giving_it_back_once() -> None:
    """托管 by a disconnect: the bot takes the seat after the grace period (``bot_plays``, the
    player named) and gives it back when they return (``back``), one line each."""
    users = make_users(4, "logaway")
    table = make_table(users[0], stake=10)
    hand = deal_and_close(seat_all(table, users))
    channel = f"t{table.pk}-away"
    services.seat_connected(table_id=table.pk, user=users[1], channel_name=channel)
    away = services.seat_disconnected(channel_name=channel)
    assert away is not None and away.disconnected_at is not None
    since = away.disconnected_at.isoformat()
    assert services.seat_takeover(seat_id=away.pk, since=since)
    assert not services.seat_takeover(seat_id=away.pk, since=since)  # once only
    services.seat_connected(table_id=table.pk, user=users[1], channel_name=f"{channel}-2")
    services.seat_connected(table_id=table.pk, user=users[1], channel_name=f"{channel}-3")
    lines = ChatLine.objects.filter(table=table, code__in=["bot_plays", "back"]).order_by("pk")
    assert [(line.code, line.params) for line in lines] == [
        ("bot_plays", [1, str(users[1])]),
        ("back", [str(users[1]), 1]),
    ]
    assert fresh(hand).status == Hand.Status.PLAYING
