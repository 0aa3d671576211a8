"""The table page's words for 找朋友's calls step (merged into games/page_labels.py
``table_labels``): the button that makes the calls on their own, the clock of each of the
dealer's steps, what a call of a card the dealer holds means (ENGINE-PART2-DECISIONS.md F13) and
the note when the calls step ran out (docs/PROTOCOL.md, "Time")."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext


def call_step_words() -> dict[str, Any]:
    return {
        # Translators: 找朋友, the button that makes the dealer's calls before the bury.
        "call_send": _("Call these friends"),
        "call_change": _("Change the calls"),
        # Translators: the big clock while the 找朋友 dealer calls friends (叫朋友).
        "clock_calls": pgettext("the clock's step", "Calls"),
        # Translators: the big clock while the dealer buries the kitty (扣底).
        "clock_bury": pgettext("the clock's step", "Bury"),
        "call_warnings": {
            # Translators: {n} copies held; {call} is a call in words ("第1张黑桃A").
            "call_held": _(
                "You hold {n} of this card: whoever plays {call} is the friend, so if that copy"
                " is yours the call is used up and finds you no friend."
            ),
            # Translators: {n} copies held, every copy the table's decks have.
            "call_held_all": _(
                "You hold all {n} of this card: {call} can only be played by you, so the call"
                " finds you no friend."
            ),
        },
        "timeout_me_call": _(
            "Time's up: the system called the friends for you. You have your time to bury."
        ),
    }
