"""The socket fuzzer (proof/fuzz.py) at casual tables of 6 and 8 seats in tractor and 找朋友
mode (issue 32, item 3; docs/proof/BAD-INPUT.md, "Tables of 6 and 8 seats"): malformed and
hostile messages, the ``call`` message among them (bad calls, from other seats, out of turn,
oversized, at a table without calls), each refused with its stable code; no socket dies; the
table moves only by the legal moves sent, the dealer's calls among them."""

from __future__ import annotations

import json

import pytest

from proof.fuzz import run_fuzz
from proof.fuzz_messages import Shape
from shengji_site.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True)]

SHAPES = [
    Shape(players=6, mode="friends", ranked=False),
    Shape(players=8, mode="friends", ranked=False),
    Shape(players=6, mode="tractor", ranked=False),
    Shape(players=8, mode="tractor", ranked=False),
]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s.players}-{s.mode}")
async def test_hostile_messages_at_a_bigger_table_are_refused_and_change_nothing(
    celery_worker: object, shape: Shape
) -> None:
    fuzzer = await run_fuzz(application, messages=500, seed=3, shape=shape)
    report = fuzzer.report
    print(json.dumps({"shape": str(shape), **report.figures()}, ensure_ascii=False))
    assert report.messages >= 500
    assert report.deaths == []
    assert report.unexpected == [] and report.unexpected_count == 0
    assert report.leaks == []
    assert report.wrong_state_changes == [] and report.limits_missed == []
    assert report.legal_moves > 20 and report.hands >= 1
    calls = {
        category: sum(answers.values())
        for category, answers in report.categories.items()
        if category.startswith("call")
    }
    for category in ("call_oversized", "call_wrong_type", "call_notation", "call_stale"):
        assert calls.get(category, 0) > 0, category
    if shape.friends:
        # The dealer's calls were a legal move, and bad calls were refused by their codes.
        logged = [text for moves in fuzzer.legal.values() for text in moves]
        assert any(text.startswith("call ") for text in logged)
        refused = report.categories["bad_call"]
        assert sum(refused.values()) > 0
        assert all(code.startswith("friend_") or code == "invalid_action" for code in refused)
    else:
        assert sum(report.categories["call_no_friends"].values()) > 0
