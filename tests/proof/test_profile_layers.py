"""The bench's profile summary (proof/profile.py, ``bench_ws_load.py --profile``): each sample
counts for the deepest frame's layer, and the shares add up to the whole."""

from __future__ import annotations

from proof.profile import OTHER, layer_of, summarize

SERVICE = "table_act (games/services/hands.py:70)"
ORM = "execute_sql (django/db/models/sql/compiler.py:1623)"
DRIVER = "execute (psycopg/cursor.py:113)"
LOOP = "_run_once (asyncio/base_events.py:1884)"
LAYER = "group_send (channels_redis/core.py:600)"


def test_the_deepest_frame_of_a_layer_names_the_sample() -> None:
    assert layer_of(f"{LOOP};{SERVICE};{ORM};{DRIVER}") == "database driver (psycopg)"
    assert layer_of(f"{LOOP};{SERVICE};{ORM}") == "Django ORM"
    assert layer_of(f"{LOOP};{SERVICE}") == "the site's own code"
    assert layer_of(f"{LOOP};{LAYER}") == "channel layer (channels-redis, redis)"
    assert layer_of("main (<frozen runpy>:1)") == OTHER


def test_shares_of_collapsed_stacks_sum_to_the_whole() -> None:
    lines = [
        f"{LOOP};{SERVICE};{ORM};{DRIVER} 30\n",
        f"{LOOP};{LAYER} 50\n",
        f"{LOOP} 20\n",
        "not a stack line\n",
    ]
    shares = summarize(lines)
    assert shares == {
        "channel layer (channels-redis, redis)": 50.0,
        "database driver (psycopg)": 30.0,
        "asyncio loop": 20.0,
    }
    assert summarize([]) == {}
