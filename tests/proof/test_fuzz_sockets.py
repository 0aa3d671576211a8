"""The socket fuzzer (proof/fuzz.py) at a live table: 1,500 hostile messages,
each refused with its stable code; no socket dies; the table moves only by the legal moves."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from proof.fuzz import run_fuzz
from shengji_site.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True)]


async def test_fuzzed_sockets_refuse_everything_and_the_table_moves_only_by_legal_moves(
    celery_worker: object,
) -> None:
    fuzzer = await run_fuzz(application, messages=1500, seed=1)
    report = fuzzer.report
    figures = report.figures()
    print(json.dumps(figures, ensure_ascii=False))
    assert report.messages >= 1500
    assert report.deaths == []
    assert report.unexpected == [] and report.unexpected_count == 0
    assert report.leaks == []
    assert report.wrong_state_changes == [] and report.limits_missed == []
    assert report.legal_moves > 50 and report.hands >= 1
    # Each family of bad input was tried and answered with its own code.
    for code in ["bad_message", "unknown_type", "stale_seq", "not_your_turn", "login_required",
                 "not_seated", "invalid_action", "rate_limited", "chat_rate_limited"]:  # fmt: skip
        assert report.outcomes[code] > 0, code

    # The checks of the state can fail: a move or a chat line the fuzzer did not send is seen.
    hand = next(iter(fuzzer.legal))
    fuzzer.legal[hand].pop()
    fuzzer.chats_accepted += 1
    await database_sync_to_async(fuzzer.verify)()
    assert len(report.wrong_state_changes) == 2


async def test_regression_braces_in_cards_were_formatted_into_the_action_text(
    celery_worker: object,
) -> None:
    """The consumer built `play {seat} <cards>` with str.format *after* putting the client's
    cards in: "{" and "{0}" made it fail ("internal"), and "{seat}S" became the seat's own
    number, e.g. "2S" for seat 2, a real card. Cards are text, never a template."""
    from games import services
    from games.models import Hand
    from proof.fuzz import Peer, build_world

    world = await database_sync_to_async(build_world)("braces")
    peers = [
        await Peer.open(application, world.table_id, user, f"seat {i}", i)
        for i, user in enumerate(world.players)
    ]
    for peer in peers:
        await peer.send('{"type": "ready"}')
    for peer in peers:
        await peer.until_burying()
    hand_id = await database_sync_to_async(services.playing_hand_id)(table_id=world.table_id)
    hand = await database_sync_to_async(Hand.objects.get)(pk=hand_id)
    for peer in peers:
        for cards in ["{", "{0}", "{seat}", "{seat}S {seat}S", "{seat.__class__}"]:
            await peer.send(json.dumps({"type": "play", "seq": hand.seq, "cards": cards}))
            error = await peer.until(lambda f: f["type"] == "error")
            assert error["code"] == "invalid_action", (cards, error)
        await peer.send('{"type": "ping"}')
        await peer.until(lambda f: f["type"] == "pong")
    after = await database_sync_to_async(Hand.objects.get)(pk=hand_id)
    assert after.seq == hand.seq
    for peer in peers:
        await peer.socket.disconnect()
