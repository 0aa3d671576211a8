"""Issue 33, point 3: the escape warning quoted 480 at 打2 in ranked while the ledger charged
300. What a player is told an escape costs (the table's ``state`` frame, which the page's
warning reads, and the rules card) is computed by the settlement's own code (docs/LADDER.md,
"What an escape costs"); these tests compare the quote with the charge, for every preset,
level 2..A and stake, at four seats and at a bigger table."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import selectors, services
from games.models import Hand, Match, Seat, Table
from games.services.start import _rules_for
from ladder import selectors as ladder_selectors
from ladder.models import LedgerEntry
from shengji.engine import PRESET_NAMES, preset
from shengji.engine.cards import RANKS
from shengji.settlement import RATIO_PERCENT, percent_of
from tests.games.helpers import make_table, make_users, ranked_table, ready_all
from tests.https import HTTPS

STAKES = (1, 7, 50, 100, 1000)


@pytest.fixture(autouse=True)
def fast_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def documented_charge(options: dict[str, Any], stake: int, level: str) -> int:
    """The escaper's charge as docs/LADDER.md's table of escapes writes it, at ``level``."""
    penalty, scheme = options["escape_penalty"], options["settlement"]
    if penalty == "triple":
        if scheme == "ratio":
            return 3 * (percent_of(stake, RATIO_PERCENT[level]) + stake)
        return 3 * (10 if scheme == "table" else stake)
    if penalty == "fixed_40":
        return 40
    if penalty == "nine_stakes":
        return 9 * stake
    return 0


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_the_quote_is_the_documented_charge_and_the_rules_card_is_its_range(name: str) -> None:
    """Every preset, level and stake, at four seats (ranked or not) and at six and five (找朋友)
    seats: the quote is what docs/LADDER.md says the escaper pays, and the rules card's least
    and most are the quotes at levels 2 and A."""
    options = dict(preset(name).to_dict()["options"])
    shapes: list[dict[str, Any]] = [
        {"players": 4, "mode": "tractor"},
        {"players": 6, "mode": "tractor"},
        {"players": 5, "mode": "friends"},
    ]
    for stake in STAKES:
        least, most = ladder_selectors.escape_cost(ruleset={"options": options}, stake=stake)
        for shape in shapes:
            ruleset = {"options": {**options, **shape}}
            slots = shape["players"] if shape["mode"] == "friends" else 2
            quotes = []
            for level in RANKS:
                for ranked in (True, False):
                    quote = ladder_selectors.escape_cost_now(
                        ruleset=ruleset, stake=stake, levels=[level] * slots, ranked=ranked
                    )
                    assert quote == documented_charge(options, stake, level), (shape, level)
                    quotes.append(quote)
            assert (min(quotes), max(quotes)) == (least, most)
            # The highest level held sets the ratio: 2 and A held, A's.
            mixed = ["2"] * slots
            mixed[-1] = "A"
            assert ladder_selectors.escape_cost_now(
                ruleset=ruleset, stake=stake, levels=mixed
            ) == documented_charge(options, stake, "A")


def start_at_level(table: Table, users: list[User], level: str) -> Hand:
    """Seat ``users`` (a ranked table is seated already) and deal a hand at ``level``: the
    match the table would open, at that level."""
    if not table.ranked:
        for index, user in enumerate(users):
            services.seat_take(table_id=table.pk, user=user, index=index)
    ruleset = _rules_for(table)
    slots = table.players if ruleset["options"].get("mode") == "friends" else 2
    Match.objects.create(
        table=table,
        ruleset=ruleset,
        levels=[level] * slots,
        wrapped=[False] * slots,
        players=[u.pk for u in users],
    )
    hand = ready_all(table, users)
    assert hand.levels == [level] * slots
    return hand


def quoted_then_charged(table: Table, users: list[User], level: str) -> tuple[int, int]:
    """What the escaper's ``state`` frame quotes during the hand, and what the ledger charged
    them once they left it."""
    hand = start_at_level(table, users, level)
    escaper = users[1]
    presence = selectors.presence_get(table_id=table.pk, user=escaper)
    assert presence is not None and presence.seat == 1
    quote = selectors.table_state_for(presence=presence)["table"]["escape_cost"]
    services.hand_leave(hand_id=hand.pk, user=escaper)
    rows = LedgerEntry.objects.filter(hand=hand, user=escaper, account="table")
    charged = -sum(row.amount for row in rows)
    for user in users:  # free them for the next table
        if Seat.objects.filter(table=table, user=user).exists():
            services.seat_leave(table_id=table.pk, user=user)
    return quote, charged


@pytest.mark.django_db
def test_regression_the_escape_warning_at_da2_in_ranked_quotes_what_the_ledger_charges() -> None:
    """The finding: ranked, stake 50, 打2. The page said 480 (the most, at A); the ledger
    charged 300. The state frame's quote is now the charge, at 打2 and at A."""
    for level, expected in (("2", 300), ("A", 480)):
        users = make_users(4, prefix=f"quote{level}")
        quote, charged = quoted_then_charged(ranked_table(users), users, level)
        assert quote == charged == expected


@pytest.mark.django_db
def test_an_opponents_ledger_line_carries_its_breakdown_in_words() -> None:
    """The finding's +90 (100 − 10 fee) was explained only in a hover tooltip: the result
    panel's ledger rows (which the page now prints under the total when there are several)
    name each part in the reader's language."""
    users = make_users(4, prefix="breakdown")
    table = ranked_table(users)
    hand = start_at_level(table, users, "2")
    services.hand_leave(hand_id=hand.pk, user=users[1])
    client = Client(**HTTPS)
    client.force_login(users[0])
    rows = {
        row["seat"]: row for row in client.get(f"/hands/{hand.pk}/ledger.json").json()["players"]
    }
    opponent = rows[0]
    parts = [(e["kind"], e["amount"]) for e in opponent["entries"] if e["account"] == "table"]
    assert opponent["table_points"] == 90
    assert sorted(parts) == [("escape compensation", 100), ("table fee", -10)]
    client.cookies["django_language"] = "zh-hans"
    chinese = client.get(f"/hands/{hand.pk}/ledger.json").json()["players"]
    kinds = {e["kind"] for row in chinese for e in row["entries"]}
    assert not kinds & {"escape compensation", "table fee", "escape penalty"}


@pytest.mark.slow  # a sweep of every preset and level (README, "The fast lane")
@pytest.mark.django_db
@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [4, 6])
def test_the_state_frame_quotes_what_the_ledger_charges_at_every_level(
    name: str, players: int
) -> None:
    """Casual tables of every preset, at four and six seats, every level 2..A (stakes varied
    with the level): played on PostgreSQL, escaped by seat 1, its ledger rows summed."""
    for number, level in enumerate(RANKS):
        stake = STAKES[number % len(STAKES)]
        users = make_users(players, prefix=f"q{name}{players}{level}")
        table = make_table(users[0], preset_name=name, stake=stake, players=players)
        quote, charged = quoted_then_charged(table, users, level)
        assert quote == charged, (name, players, level, stake)
        options = preset(name).to_dict()["options"]
        assert quote == documented_charge(options, stake, level)


@pytest.mark.django_db
def test_no_quote_without_a_hand_in_progress_and_none_at_practice() -> None:
    users = make_users(4, prefix="noquote")
    table = make_table(users[0], preset_name="seed000", stake=50)
    services.seat_take(table_id=table.pk, user=users[0], index=0)
    presence = selectors.presence_get(table_id=table.pk, user=users[0])
    assert presence is not None
    assert selectors.table_state_for(presence=presence)["table"]["escape_cost"] is None
    for index in (1, 2, 3):
        services.seat_fill_bot(table_id=table.pk, user=users[0], index=index)
    services.seat_ready(table_id=table.pk, user=users[0])
    assert Hand.objects.filter(match__table=table, status=Hand.Status.PLAYING).exists()
    assert selectors.table_state_for(presence=presence)["table"]["escape_cost"] == 0
