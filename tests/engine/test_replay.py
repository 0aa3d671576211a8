"""Hand records and replay (a record is a header plus moves, replayed exactly)."""

from __future__ import annotations

import json

import pytest

from shengji.engine.action_errors import InvalidRecordError
from shengji.engine.errors import ShengjiError
from shengji.engine.record import HandRecord, record_of, replay, replay_final
from shengji.engine.rules import PRESET_NAMES
from shengji.engine.selfplay import check_invariants
from tests.engine.hand_helpers import designed_deck, draw_all, hand_for, random_hand


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_replay_reproduces_every_state_and_the_result(name: str) -> None:
    for seed in range(4):
        state = random_hand(name, seed, dealer=seed % 4 if seed else None)
        record = HandRecord.from_json(record_of(state).to_json())
        assert record == record_of(state)
        states = list(replay(record))
        assert len(states) == len(record.actions) + 1
        for index, step in enumerate(states):
            assert [str(a) for a in step.actions] == list(record.actions[:index])
            check_invariants(step)  # 108 cards in their places at every step
        final = states[-1]
        assert final.result == state.result
        assert final.hands == state.hands and final.buried == state.buried
        assert replay_final(record).result == state.result


def test_record_json_shape() -> None:
    state = random_hand("seed004", 3)
    data = json.loads(record_of(state).to_json())
    assert data["version"] == 1
    assert data["rules"]["name"] == "seed004" and data["rules"]["version"] == 1
    assert data["seed"] == 3 and data["dealer"] is None and data["levels"] == ["2", "2"]
    assert data["actions"][0] == "draw"
    assert all(isinstance(a, str) for a in data["actions"])
    assert data["result"]["outcome"] in ("played", "escape")


def test_replay_under_the_recorded_rules() -> None:
    state = random_hand("seed002", 8)
    data = json.loads(record_of(state).to_json())
    record = HandRecord.from_dict(data)
    assert record.rules.bidding == "count" and record.rules.kitty_multiplier == "winner_shape"


def test_a_record_with_explicit_decks_replays() -> None:
    deck = designed_deck({0: "BJ BJ"}, fill_seed=4)
    state = draw_all(hand_for("ranked", decks=[deck]))
    state.apply("bid 0 BJ BJ")
    record = HandRecord.from_json(record_of(state).to_json())
    assert record.decks is not None and list(record.decks[0]) == deck
    assert replay_final(record).standing_bid == state.standing_bid


def test_a_tampered_record_is_refused() -> None:
    state = random_hand("ranked", 2)
    record = record_of(state)
    actions = list(record.actions)
    last_play = max(i for i, a in enumerate(actions) if a.startswith("play"))
    actions[last_play] = actions[last_play - 1]
    bad = HandRecord.from_dict({**record.to_dict(), "actions": actions, "result": None})
    with pytest.raises(InvalidRecordError) as caught:
        replay_final(bad)
    assert caught.value.code == "invalid_record"
    other = dict(record.to_dict())
    other["result"] = {**record.to_dict()["result"], "attacker_points": -1}
    with pytest.raises(InvalidRecordError):
        replay_final(HandRecord.from_dict(other))


@pytest.mark.parametrize(
    "data",
    [[], {"version": 2}, {"version": 1, "rules": {}}, {"version": 1, "seed": 1}],
)
def test_bad_records(data: object) -> None:
    with pytest.raises(ShengjiError):
        HandRecord.from_dict(data)  # type: ignore[arg-type]


def test_replay_is_deterministic_across_runs() -> None:
    one = random_hand("seed000", 10)
    two = random_hand("seed000", 10)
    assert record_of(one) == record_of(two)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("levels", [2, 2]),
        ("wrapped", ["false", "false"]),
        ("seed", 1.5),
        ("seed", True),
        ("dealer", "1"),
    ],
)
def test_regression_tampered_record_headers_get_stable_codes(field: str, value: object) -> None:
    from shengji.engine import HandRecord, ShengjiError, new_hand, preset, record_of, replay_final

    data = record_of(new_hand(preset("ranked"), 5, dealer=0)).to_dict()
    data[field] = value
    with pytest.raises(ShengjiError) as refused:
        replay_final(HandRecord.from_dict(data))
    assert refused.value.code in {"invalid_record", "invalid_setup"}


@pytest.mark.parametrize("action", [None, 5, ["play", 0]])
def test_regression_check_action_of_a_non_action_is_invalid_action(action: object) -> None:
    from shengji.engine import ShengjiError, new_hand, preset

    state = new_hand(preset("ranked"), 5, dealer=0)
    with pytest.raises(ShengjiError) as refused:
        state.check_action(0, action)  # type: ignore[arg-type]
    assert refused.value.code == "invalid_action"


def test_regression_hand_built_actions_that_would_not_replay_are_refused() -> None:
    from shengji.engine import Action, ShengjiError, new_hand, preset

    state = new_hand(preset("ranked"), 5, dealer=0)
    for action in [Action("draw", 0), Action("leave", 0, (0,)), Action("leave", True)]:
        with pytest.raises(ShengjiError) as refused:
            state.check_action(None, action)
        assert refused.value.code in {"invalid_action", "wrong_seat"}
