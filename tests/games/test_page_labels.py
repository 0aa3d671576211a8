"""Every word a page's script reads from its labels (``L.name``) is in the labels the view
sends: a missing one shows as "undefined" to the player (the 6-seat replay's per-player list
once did)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import translation

from games import page_labels

STATIC = Path(__file__).resolve().parents[2] / "static" / "games"


def used_labels(script: str) -> set[str]:
    text = (STATIC / script).read_text(encoding="utf-8")
    return set(re.findall(r"\bL\.([A-Za-z_][A-Za-z0-9_]*)", text))


@pytest.mark.parametrize(
    ("script", "labels"),
    [
        ("lobby.js", page_labels.lobby_labels),
        ("table.js", page_labels.table_labels),
        ("replay.js", page_labels.replay_labels),
    ],
)
@pytest.mark.parametrize("language", ["zh-hans", "zh-hant", "en"])
def test_every_label_a_script_reads_is_sent(script: str, labels: object, language: str) -> None:
    with translation.override(language):
        sent = labels()  # type: ignore[operator]
    missing = sorted(used_labels(script) - set(sent))
    assert not missing, f"{script} reads labels the page does not send: {missing}"
