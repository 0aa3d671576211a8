"""Card notation: parse, format, repr, errors (RULES-SPEC.md, card notation)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shengji.engine import (
    Card,
    InvalidCardError,
    InvalidNotationError,
    ShengjiError,
    format_cards,
    full_deck,
    parse_card,
    parse_cards,
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AS AS KS", "AS AS KS"),
        ("as ks", "AS KS"),
        ("4S4S6S6S", "4S 4S 6S 6S"),
        ("5H5H SJSJ BJBJ", "5H 5H SJ SJ BJ BJ"),
        ("THTH TSTS AHAH", "TH TH TS TS AH AH"),
        ("  td\tsj\nbj ", "TD SJ BJ"),
        ("9S 8S8S 4S4S", "9S 8S 8S 4S 4S"),
        ("", ""),
    ],
)
def test_parse_and_format(text: str, canonical: str) -> None:
    assert format_cards(parse_cards(text)) == canonical
    assert parse_cards(canonical) == parse_cards(text)


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("AS XX", "XX"),
        ("1S", "1S"),
        ("10S", "10S"),
        ("4S4SZZ", "ZZ"),
        ("ASK", "ASK"),
        ("SJ JJ", "JJ"),
        ("A", "A"),
    ],
)
def test_bad_notation_names_the_token(text: str, token: str) -> None:
    with pytest.raises(InvalidNotationError) as caught:
        parse_cards(text)
    assert caught.value.token == token
    assert caught.value.code == "invalid_notation"
    assert repr(token) in str(caught.value)
    assert isinstance(caught.value, ShengjiError)
    assert isinstance(caught.value, ValueError)


def test_card_ids_and_properties() -> None:
    assert Card("2S") == 0
    assert Card("AS") == 12
    assert Card("2H") == 13
    assert Card("AD") == 51
    assert Card("SJ") == 52
    assert Card("BJ") == 53
    assert Card(12) is Card("as")
    assert (Card("TD").rank, Card("TD").suit, Card("TD").is_joker) == ("T", "D", False)
    assert (Card("BJ").rank, Card("BJ").suit, Card("BJ").is_joker) == (None, None, True)
    assert str(Card("QC")) == "QC"
    assert Card("QC").text == "QC"


def test_card_repr_pastes_back() -> None:
    for card in set(full_deck()):
        assert eval(repr(card)) == card
    assert repr(parse_cards("AS BJ")) == "[Card('AS'), Card('BJ')]"


def test_bad_card_ids_and_text() -> None:
    with pytest.raises(InvalidCardError):
        Card(54)
    with pytest.raises(InvalidCardError):
        Card(-1)
    with pytest.raises(InvalidNotationError):
        parse_card("11")


def test_full_deck_has_two_copies_of_54_cards() -> None:
    deck = full_deck()
    assert len(deck) == 108
    assert all(deck.count(c) == 2 for c in set(deck))
    assert len(set(deck)) == 54


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.integers(0, 53), max_size=12))
def test_round_trip(ids: list[int]) -> None:
    played = [Card(i) for i in ids]
    text = format_cards(played)
    assert parse_cards(text) == played
    assert parse_cards(text.lower().replace(" ", "")) == played
    assert format_cards(parse_cards(text)) == text
