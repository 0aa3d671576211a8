"""House options of leads, follows and tricks (RULES-SPEC.md §10.13 ``tractor_min_length`` and
``tractor_min_tuple``, §10.14 ``draw_policy``'s house values, §10.15 ``throw_beat``, §10.16
``bombs``, §10.17 ``rainbow_min``): what a lead is, what a follower owes, throws, who wins, the
kitty multiplier, views, records and the bots, at every table shape."""

from __future__ import annotations

from random import Random

import pytest

from shengji.bots import SearchBudget, make_bot
from shengji.bots.memory import new_memory
from shengji.bots.play import HandStats, play_hand
from shengji.engine import HOUSE_OPTIONS, new_hand, preset, view_for
from shengji.engine.cards import format_cards, parse_cards
from shengji.engine.errors import (
    MUST_FOLLOW_PAIR,
    MUST_FOLLOW_TRACTOR,
    IllegalPlayError,
    InvalidOptionError,
)
from shengji.engine.follow import follow_error, legal_follow
from shengji.engine.hand import HandState
from shengji.engine.lead import lead_info
from shengji.engine.random_play import RandomPolicy, play_random
from shengji.engine.record import record_of, replay_final
from shengji.engine.rules import RefusedOptionError, RuleSet
from shengji.engine.selfplay import check_invariants
from shengji.engine.trick import trick_winner
from shengji.engine.trump import Trump
from shengji.engine.tuples import lead_format
from shengji.engine.views import view_all
from tests.engine.house_helpers import house_rules, last_trick, play_out

cards = parse_cards


# --- §10.13 tractor_min_length, tractor_min_tuple ---------------------------------------------


def test_the_tractor_options_are_house_options_left_out_of_records_at_their_defaults() -> None:
    assert HOUSE_OPTIONS["tractor_min_length"] is None
    assert HOUSE_OPTIONS["tractor_min_tuple"] is None
    for name in ("ranked", "seed000", "seed002", "seed003", "seed004"):
        rules = preset(name)
        assert rules.tractor == (2, 2)
        options = rules.to_dict()["options"]
        assert "tractor_min_length" not in options and "tractor_min_tuple" not in options
    rules = preset("ranked").with_options(tractor_min_length=3)
    assert RuleSet.from_json(rules.to_json()) == rules


def test_a_tractor_of_two_pairs_is_two_pairs_under_a_minimum_of_three() -> None:
    three = Trump("2", "H", (3, 2))
    assert lead_info(cards("5S5S6S6S"), three).tractors == ()
    assert lead_info(cards("5S5S6S6S"), three).shape.pairs == 2
    assert lead_info(cards("5S5S6S6S7S7S"), three).tractors == (3,)
    assert lead_info(cards("5S5S6S6S"), Trump("2", "H")).tractors == (2,)


def test_followers_owe_two_pairs_not_a_tractor() -> None:
    hand = cards("9S9STSTS QSQS 3S 4S")
    lead = cards("5S5S6S6S")
    play = cards("QSQS9S9S")
    assert follow_error(hand, lead, play, Trump("2", "H")) == MUST_FOLLOW_TRACTOR
    assert follow_error(hand, lead, play, Trump("2", "H", (3, 2))) is None


def test_the_example_a_pair_of_9s_stops_the_thrown_pairs() -> None:
    hands = ("5S5S6S6S", "3C3C4C4C", "9S9S3D4D", "5C6C7C8C")
    state = last_trick(house_rules(tractor_min_length=3), hands, levels=("2", "2"), suit="H")
    state.apply("play 0 5S5S6S6S")
    assert format_cards(state.trick.plays[0]) == "5S 5S"
    assert state.failed_throws[0].played == tuple(cards("5S5S"))
    default = last_trick(house_rules(), hands, levels=("2", "2"), suit="H")
    default.apply("play 0 5S5S6S6S")
    assert not default.failed_throws


def test_three_decks_a_minimum_tuple_of_three() -> None:
    three = Trump("2", "H", (2, 3))
    assert lead_format(cards("5S5S6S6S"), three).units == ((2, 1), (2, 1))
    assert lead_format(cards("5S5S5S6S6S6S"), three).units == ((3, 2),)
    assert lead_format(cards("5S5S6S6S"), Trump("2", "H")).units == ((2, 2),)


def test_a_run_of_thinner_tuples_is_not_owed_as_a_tractor() -> None:
    """RULES-DECISIONS 39: four decks, a led tractor of quads; pairs are no tractor when
    tractors need triples, so any four pairs answer it."""
    hand = cards("7S7S8S8S9S9STSTS QSQS 3S 4S")
    lead = cards("5S5S5S5S6S6S6S6S")
    play = cards("QSQS 9S9S TSTS 7S7S")
    assert follow_error(hand, lead, play, Trump("2", "H")) == MUST_FOLLOW_TRACTOR
    assert follow_error(hand, lead, play, Trump("2", "H", (2, 3))) is None


def test_the_kitty_multiplier_reads_the_lead_as_the_option_reads_it() -> None:
    hands = ("5S5S6S6S", "3H3H4H4H", "7C8C9CTC", "7D8D9DTD")
    for rules, multiplier in ((house_rules(), 8), (house_rules(tractor_min_length=3), 4)):
        state = last_trick(rules, hands, levels=("2", "2"), suit="H", buried="5D")
        result = play_out(state, hands).result
        assert result is not None and result.kitty_multiplier == multiplier


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"tractor_min_length": 1}, "tractor_min_length_out_of_range"),
        ({"tractor_min_length": 13}, "tractor_min_length_out_of_range"),
        ({"tractor_min_tuple": 3}, "tractor_min_tuple_out_of_range"),  # 2 decks
        ({"tractor_min_tuple": 1}, "tractor_min_tuple_out_of_range"),
    ],
)
def test_tractor_options_out_of_range_are_refused(options: dict[str, object], reason: str) -> None:
    with pytest.raises(RefusedOptionError) as refused:
        house_rules(4, "tractor", **options)
    assert refused.value.reason == reason


def test_fewer_decks_than_the_minimum_tuple_is_refused() -> None:
    rules = house_rules(6, tractor_min_tuple=3)
    with pytest.raises(RefusedOptionError) as refused:
        rules.with_options(decks=2)
    assert refused.value.reason == "tractor_min_tuple_out_of_range"


def test_the_views_show_the_tractor_rule_with_the_trump() -> None:
    hands = ("5S5S6S6S", "3C3C4C4C", "9S9S3D4D", "5C6C7C8C")
    state = last_trick(house_rules(tractor_min_length=3), hands, levels=("2", "2"), suit="H")
    assert view_for(state, 1)["trump"] == {"level": "2", "suit": "H", "tractor": [3, 2]}
    default = last_trick(house_rules(), hands, levels=("2", "2"), suit="H")
    assert view_for(default, 1)["trump"] == {"level": "2", "suit": "H"}


def test_six_seats_three_decks_triples_only() -> None:
    hands = (
        "5S5S6S6S",
        "3C3C4C4C",
        "9S9S3D4D",
        "5C6C7C8C",
        "5D6D7D8D",
        "9C9CTCTC",
    )
    state = last_trick(house_rules(6, tractor_min_tuple=3), hands, levels=("2", "2"), suit="H")
    state.apply("play 0 5S5S6S6S")
    assert format_cards(state.trick.plays[0]) == "5S 5S"  # two pairs thrown, s2's 9S9S beats


@pytest.mark.parametrize(
    ("players", "mode", "options"),
    [
        (4, "tractor", {"tractor_min_length": 3}),
        (5, "friends", {"tractor_min_length": 3}),
        (6, "tractor", {"tractor_min_tuple": 3}),
        (8, "tractor", {"tractor_min_length": 3, "tractor_min_tuple": 3}),
    ],
)
def test_hands_under_the_tractor_options_play_and_replay(
    players: int, mode: str, options: dict[str, int]
) -> None:
    rules = house_rules(players, mode, **options)
    slots = players if mode == "friends" else 2
    for seed in range(3):
        state = new_hand(rules, seed, levels=("2",) * slots, dealer=seed % players)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        check_invariants(state)
        assert state.result is not None
        replayed = replay_final(record_of(state))
        assert view_all(replayed) == view_all(state)


# --- §10.14 draw_policy: tractors_only_from_tractors, protected_tractors_only, suit_only -----

POLICIES = (
    "no_protections",
    "longer_tuples_protected",
    "tractors_only_from_tractors",
    "protected_tractors_only",
    "suit_only",
)


def test_the_new_draw_policies_are_house_values() -> None:
    assert HOUSE_OPTIONS["draw_policy"] == POLICIES
    rules = preset("ranked").with_options(draw_policy="suit_only")
    assert RuleSet.from_json(rules.to_json()) == rules
    assert "draw_policy" not in preset("ranked").to_dict()["options"]


def verdicts(hand: str, lead: str, play: str, trump: Trump) -> dict[str, str | None]:
    return {
        policy: follow_error(cards(hand), cards(lead), cards(play), trump, policy)
        for policy in POLICIES
    }


def test_suit_only_owes_no_pair() -> None:
    found = verdicts("2S2S 5S5S 7S", "3S3S", "2S 5S", Trump("4", "S"))
    assert found.pop("suit_only") is None
    assert set(found.values()) == {MUST_FOLLOW_PAIR}


def test_a_led_quad_owes_no_tractor_under_tractors_only_from_tractors() -> None:
    found = verdicts("5S5S 6S6S 9S9S JS", "QSQSQSQS", "5S5S 9S9S", Trump("4", "S"))
    assert found["no_protections"] == MUST_FOLLOW_TRACTOR
    assert found["longer_tuples_protected"] == MUST_FOLLOW_TRACTOR
    assert found["tractors_only_from_tractors"] is None
    assert found["protected_tractors_only"] is None
    assert found["suit_only"] is None


def test_triples_kept_whole_under_the_protecting_policies() -> None:
    found = verdicts("2S2S2S 3S3S3S 5S 6S 7S 8S", "6S6S7S7S", "5S 6S 7S 8S", Trump("4", "S"))
    assert found["longer_tuples_protected"] is None
    assert found["protected_tractors_only"] is None
    assert found["no_protections"] is not None
    assert found["tractors_only_from_tractors"] is not None
    assert found["suit_only"] is None


@pytest.mark.parametrize("policy", POLICIES)
def test_legal_follow_is_legal_under_each_policy(policy: str) -> None:
    trump = Trump("4", "S")
    for hand, lead in (
        ("5S5S 6S6S 9S9S JS", "QSQSQSQS"),
        ("2S2S2S 3S3S3S 5S 6S 7S 8S", "6S6S7S7S"),
        ("2S2S 5S5S 7S", "3S3S"),
    ):
        for seed in range(5):
            play = legal_follow(cards(hand), cards(lead), trump, Random(seed), policy)
            assert follow_error(cards(hand), cards(lead), play, trump, policy) is None


def test_eight_seats_the_table_reads_its_policy() -> None:
    base = house_rules(8, draw_policy="tractors_only_from_tractors")
    plays = ("QSQSQSQS", "5S5S9S9S")
    hands8 = (
        "QSQSQSQS 3C",
        "5S5S6S6S9S9S JS",
        "3H4H5H6H7H",
        "7D8D9DTD3D",
        "7H8H9HTHJH",
        "3D4D5D6D8D",
        "6C7C8C9CTC",
        "3C4C5C6CJC",
    )
    for rules, legal in ((base, True), (house_rules(8), False)):
        state = last_trick(rules, hands8, levels=("4", "4"), suit="S")
        state.apply(f"play 0 {plays[0]}")
        if legal:
            state.apply(f"play 1 {plays[1]}")
        else:
            with pytest.raises(IllegalPlayError):
                state.apply(f"play 1 {plays[1]}")


@pytest.mark.parametrize(
    ("players", "mode", "policy"),
    [
        (4, "tractor", "suit_only"),
        (5, "friends", "suit_only"),
        (8, "tractor", "protected_tractors_only"),
        (8, "tractor", "tractors_only_from_tractors"),
    ],
)
def test_hands_under_the_draw_policies_play_and_replay(
    players: int, mode: str, policy: str
) -> None:
    rules = house_rules(players, mode, draw_policy=policy)
    slots = players if mode == "friends" else 2
    for seed in range(3):
        state = new_hand(rules, seed, levels=("2",) * slots, dealer=seed % players)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        check_invariants(state)
        replayed = replay_final(record_of(state))
        assert view_all(replayed) == view_all(state)


@pytest.mark.parametrize(
    ("players", "mode", "policy"),
    [(5, "friends", "suit_only"), (8, "tractor", "tractors_only_from_tractors")],
)
def test_bots_play_the_draw_policies(players: int, mode: str, policy: str) -> None:
    rules = house_rules(players, mode, draw_policy=policy)
    slots = players if mode == "friends" else 2
    budget = SearchBudget(max_samples=4, max_ms=None)
    for name in ("basic", "search"):
        state = new_hand(rules, 5, levels=("2",) * slots, dealer=1)
        stats = HandStats()
        bots = [make_bot(name, seed=seat, budget=budget) for seat in range(players)]
        play_hand(state, bots, stats)
        assert state.result is not None and stats.refused == []


# --- §10.15 throw_beat -------------------------------------------------------------------------

BEATS = ("key_unit", "all_units", "highest_card", "largest_units")


def winners(plays: tuple[str, ...], trump: Trump) -> dict[str, int]:
    return {beat: trick_winner([cards(p) for p in plays], trump, beat) for beat in BEATS}


def test_throw_beat_is_a_house_option() -> None:
    assert HOUSE_OPTIONS["throw_beat"] == BEATS
    assert "throw_beat" not in preset("ranked").to_dict()["options"]
    with pytest.raises(InvalidOptionError):
        preset("ranked").with_options(throw_beat="all")


def test_the_first_example_two_singles_thrown() -> None:
    found = winners(("4C 6C", "2S 3S", "3S 4S", "2S BJ"), Trump("K", "S"))
    assert found == {"all_units": 2, "highest_card": 3, "key_unit": 3, "largest_units": 3}


def test_the_second_example_a_triple_and_a_pair_thrown() -> None:
    """RULES-DECISIONS 41: at level 2 `AHAHAH KHKH` is a tractor of pairs and an A (A and K
    are adjacent), so the example throws `AHAHAH QHQH`."""
    assert lead_format(cards("AHAHAH KHKH"), Trump("2", "S")).units == ((2, 2), (1, 1))
    found = winners(("AHAHAH QHQH", "5S5S5S QSQS", "6S6S6S 3S3S"), Trump("2", "S"))
    assert found == {"all_units": 1, "highest_card": 1, "key_unit": 2, "largest_units": 2}


def test_a_single_unit_lead_is_judged_alike_by_every_value() -> None:
    for plays in (("5H5H6H6H", "9H9HTHTH", "3S3S4S4S", "KHKHAHAH"), ("7D", "9D", "2S", "AD")):
        assert len(set(winners(plays, Trump("2", "S")).values())) == 1


def test_all_units_beats_every_reading_of_the_best_so_far() -> None:
    """RULES-DECISIONS 40: `8S8S 9S9S` reads as a pair of 8s and two 9s or a pair of 9s and
    two 8s; `TSTS JS 9S` beats only the second reading, so the earlier play stands."""
    plays = ("KHKH QH JH", "8S8S 9S9S", "TSTS JS 9S")
    assert winners(plays, Trump("2", "S"))["all_units"] == 1


def test_the_table_reads_its_throw_beat() -> None:
    hands = ("4C6C", "2S3S", "3S4S", "2SBJ")
    for beat, winner in (("all_units", 2), ("key_unit", 3)):
        state = last_trick(house_rules(throw_beat=beat), hands, levels=("K", "K"), suit="S")
        play_out(state, hands)
        assert not state.failed_throws and state.tricks[-1].winner == winner


@pytest.mark.parametrize(
    ("players", "mode", "beat"),
    [(5, "friends", "all_units"), (6, "tractor", "largest_units"), (8, "tractor", "highest_card")],
)
def test_hands_under_throw_beat_play_and_replay(players: int, mode: str, beat: str) -> None:
    rules = house_rules(players, mode, throw_beat=beat)
    slots = players if mode == "friends" else 2
    for seed in range(3):
        state = new_hand(rules, seed, levels=("2",) * slots, dealer=seed % players)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        check_invariants(state)
        replayed = replay_final(record_of(state))
        assert view_all(replayed) == view_all(state)


# --- §10.16 bombs ------------------------------------------------------------------------------


def bomb_trick(bombs: str, hands: tuple[str, ...], suit: str, level: str = "4") -> HandState:
    rules = house_rules(4, "tractor", bombs=bombs, decks=4)
    return last_trick(rules, hands, levels=(level, level), suit=suit)


def test_bombs_are_a_house_option_for_four_decks() -> None:
    assert HOUSE_OPTIONS["bombs"] == ("off", "any_suit", "follow_suit")
    assert "bombs" not in preset("ranked").to_dict()["options"]
    for players, decks in ((4, 2), (6, 3), (4, 3)):
        with pytest.raises(RefusedOptionError) as refused:
            house_rules(players, bombs="any_suit", decks=decks)
        assert refused.value.reason == "bombs_need_4_decks"
    eight = house_rules(8, bombs="follow_suit")
    assert eight.decks == 4
    with pytest.raises(RefusedOptionError) as refused:
        eight.with_options(decks=3)
    assert refused.value.reason == "bombs_need_4_decks"


@pytest.mark.parametrize(("bombs", "winner"), [("off", 0), ("any_suit", 2), ("follow_suit", 2)])
def test_the_first_example_a_higher_bomb_beats_a_bomb(bombs: str, winner: int) -> None:
    hands = ("8S8S9S9S", "2S2S2S2S", "3S3S3S3S", "5C6C7C8C")
    state = bomb_trick(bombs, hands, "S")
    play_out(state, hands)
    assert state.tricks[-1].winner == winner


def test_the_second_example_an_off_suit_bomb_while_holding_the_led_suit() -> None:
    hands = ("8S8S9S9S 4C", "2D2D2D2D 3S", "5C6C7C8C 9C", "5C6C7C8C TC")
    refused = bomb_trick("follow_suit", hands, "H")
    refused.apply("play 0 8S8S9S9S")
    with pytest.raises(IllegalPlayError) as error:
        refused.apply("play 1 2D2D2D2D")
    assert error.value.code == "must_follow_suit"
    state = bomb_trick("any_suit", hands, "H")
    play_out(state, ("8S8S9S9S", "2D2D2D2D", "5C6C7C8C", "5C6C7C8C"))
    assert state.tricks[-1].winner == 1


def test_follow_suit_a_trump_bomb_only_when_void() -> None:
    """RULES-DECISIONS 42: a trump bomb is a ruff, so it needs a void in the led suit."""
    hands = ("8S8S9S9S 4C", "2H2H2H2H 3S", "2S2S2S2S 5C", "5C6C7C8C TC")
    state = bomb_trick("follow_suit", hands, "H", level="K")
    state.apply("play 0 8S8S9S9S")
    with pytest.raises(IllegalPlayError):
        state.apply("play 1 2H2H2H2H")
    void = ("8S8S9S9S 4C", "2H2H2H2H 3C", "2S2S2S2S 5C", "5C6C7C8C TC")
    state = bomb_trick("follow_suit", void, "H", level="K")
    play_out(state, ("8S8S9S9S", "2H2H2H2H", "2S2S2S2S", "5C6C7C8C"))
    assert state.tricks[-1].winner == 1  # trump above the led suit, whatever the rank


def test_equal_bombs_rank_trump_then_led_suit_then_others_then_order() -> None:
    trump = Trump("K", "H")
    plays = [cards(p) for p in ("8S8S9S9S", "3D3D3D3D", "5C5C5C5C", "4C4C4C4C")]
    assert trick_winner(plays, trump, bombs="any_suit") == 2
    led_quad = [cards(p) for p in ("QSQSQSQS", "ADADADAD", "3S3S3S3S", "4H4H4H4H")]
    assert trick_winner(led_quad, trump, bombs="any_suit") == 3
    assert trick_winner(led_quad[:3], trump, bombs="any_suit") == 0  # a led quad is a bomb
    assert trick_winner(led_quad[:2], trump, bombs="off") == 0


def test_eight_seats_and_friends_bombs() -> None:
    hands = (
        "8S8S9S9S",
        "2D2D2D2D",
        "5C6C7C8C",
        "3H3H3H3H",
        "9C9CTCTC",
        "5D6D7D8D",
        "JCJCQCKC",
        "4D4D4D4D",
    )
    for mode in ("tractor", "friends"):
        rules = house_rules(8, mode, bombs="any_suit")
        slots = 8 if mode == "friends" else 2
        state = last_trick(rules, hands, levels=("K",) * slots, suit="S")
        play_out(state, hands)
        assert state.tricks[-1].winner == 7  # other suits by rank: 4D over 3H and 2D


@pytest.mark.parametrize(("mode", "bombs"), [("tractor", "any_suit"), ("friends", "follow_suit")])
def test_bots_and_random_play_with_bombs_at_eight_seats(mode: str, bombs: str) -> None:
    rules = house_rules(8, mode, bombs=bombs)
    slots = 8 if mode == "friends" else 2
    for seed in range(2):
        state = new_hand(rules, seed, levels=("2",) * slots, dealer=seed)
        play_random(state, Random(seed), RandomPolicy(escape_rate=0.0))
        check_invariants(state)
        assert view_all(replay_final(record_of(state))) == view_all(state)
    budget = SearchBudget(max_samples=4, max_ms=None)
    for name in ("basic", "search"):
        state = new_hand(rules, 9, levels=("2",) * slots, dealer=1)
        stats = HandStats()
        play_hand(state, [make_bot(name, seed=s, budget=budget) for s in range(8)], stats)
        assert state.result is not None and stats.refused == []


# --- §10.17 rainbow_min ------------------------------------------------------------------------

RAINBOW_HANDS = ("5C5D5H5S 3C", "6C6D6H6S 4C", "7C8C9CTC JC", "7D8D9DTD JD")


def test_rainbow_min_is_a_house_option() -> None:
    assert HOUSE_OPTIONS["rainbow_min"] is None
    assert "rainbow_min" not in preset("ranked").to_dict()["options"]
    for players, value in ((4, 3), (4, 9), (4, -4), (8, 17)):
        with pytest.raises(RefusedOptionError) as refused:
            house_rules(players, rainbow_min=value)
        assert refused.value.reason == "rainbow_min_out_of_range"
    eight = house_rules(8, rainbow_min=12)
    with pytest.raises(RefusedOptionError) as refused:
        eight.with_options(decks=2)
    assert refused.value.reason == "rainbow_min_out_of_range"


def test_the_example_a_rainbow_of_5s_answered_by_the_6s() -> None:
    state = last_trick(house_rules(rainbow_min=4), RAINBOW_HANDS, levels=("2", "2"), suit="H")
    with pytest.raises(IllegalPlayError) as refused:
        state.apply("play 0 5C5H5S3C")
    assert refused.value.code == "lead_mixed_suits"
    state.apply("play 0 5C5D5H5S")
    with pytest.raises(IllegalPlayError) as refused:
        state.apply("play 1 6C6D6H4C")
    assert refused.value.code == "must_follow_pair"
    state.apply("play 1 6C6D6H6S")
    state.apply("play 2 7C8C9CTC")
    state.apply("play 3 7D8D9DTD")
    assert state.tricks[-1].winner == 1
    default = last_trick(house_rules(), RAINBOW_HANDS, levels=("2", "2"), suit="H")
    with pytest.raises(IllegalPlayError) as refused:
        default.apply("play 0 5C5D5H5S")
    assert refused.value.code == "lead_mixed_suits"


def test_a_rainbow_throw_is_forced_to_its_lowest_beaten_rank() -> None:
    hands = ("5C5D5H5S7C7D7H7S", "8C8D8H8S3C3D4C4D", "9C9CTCTCJCJCQCQC", "9D9DTDTDJDJDQDQD")
    state = last_trick(house_rules(rainbow_min=4), hands, levels=("2", "2"), suit="H")
    state.apply("play 0 5C5D5H5S7C7D7H7S")
    assert sorted(state.failed_throws[0].played) == sorted(cards("5C5D5H5S"))
    standing = ("5C5D5H5S7C7D7H7S", "6C6D3H4S3C3D4C4D", *hands[2:])
    state = last_trick(house_rules(rainbow_min=4), standing, levels=("2", "2"), suit="H")
    state.apply("play 0 5C5D5H5S7C7D7H7S")
    assert not state.failed_throws  # 6C6D…: two groups only, no rainbow


def test_a_last_trick_led_by_a_rainbow_multiplies_the_kitty_by_twice_its_cards() -> None:
    """RULES-DECISIONS 43."""
    last = ("5C5D5H5S", "6C6D6H6S", "7C8C9CJC", "7D8D9DJD")
    state = last_trick(house_rules(rainbow_min=4), last, levels=("2", "2"), suit="H", buried="TD")
    result = play_out(state, last).result
    assert result is not None and result.kitty_multiplier == 8 and result.kitty_bonus == 80


@pytest.mark.parametrize(("players", "mode"), [(5, "friends"), (8, "tractor"), (8, "friends")])
def test_bots_answer_a_rainbow_lead(players: int, mode: str) -> None:
    rules = house_rules(players, mode, rainbow_min=4)
    slots = players if mode == "friends" else 2
    fillers = ("7C8C9CTC JC", "7D8D9DTD JD", "3C4C8C9C QC", "3D4D8D9D QD")
    hands = (*RAINBOW_HANDS[:2], *(fillers * 2))[:players]
    budget = SearchBudget(max_samples=4, max_ms=None)
    for name in ("basic", "search"):
        state = last_trick(rules, hands, levels=("2",) * slots, suit="H")
        state.apply("play 0 5C5D5H5S")
        stats = HandStats()
        play_hand(state, [make_bot(name, seed=s, budget=budget) for s in range(players)], stats)
        assert state.result is not None and stats.refused == []
        assert state.tricks[0].winner == 1  # the 6s answer and win


def test_an_answer_to_a_rainbow_shows_no_void() -> None:
    """No suit is owed to a rainbow, so a follower's cards tell nothing of its suits."""
    memory = new_memory(4)
    trump = Trump("2", "H")
    memory.note_play(0, cards("5C5D5H5S"), None, trump)
    memory.note_play(1, cards("7D8D9DTD"), cards("5C5D5H5S"), trump)
    assert memory.voids[1] == 0 and memory.no_pairs[1] == 0
