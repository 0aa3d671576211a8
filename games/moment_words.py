"""The words the table page writes around a hand's moments (issue 33): the result shown over
the table until the next deal, the clock of whoever acts, a move the server made when a
player's time ran out, a table an admin closed, the trick's leader, trumps set apart in the
hand, and a bury of the wrong number of cards. Merged into the page's labels
(games/page_labels.py ``table_labels``)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext


def moment_table_words() -> dict[str, Any]:
    return {
        # Translators: under the hand's result, a countdown to the next deal.
        "next_hand_in": _("The next hand starts in {n}s."),
        "next_hand_soon": _("The next hand starts in a moment."),
        "next_hand_waiting": _("The next hand starts when every player is ready."),
        # Translators: a button that closes the result sheet and shows the table.
        "result_close": _("Back to the table"),
        # Translators: a button that shows the last hand's result again.
        "result_show": _("Show the result"),
        # Translators: the big clock while the players may still bid (亮主).
        "clock_bidding": _("Bid"),
        # Translators: a note to the player whose time ran out (超时代出).
        "timeout_me_play": _("Time's up: the system played {cards} for you."),
        "timeout_me_bury": _("Time's up: the system buried the kitty for you."),
        "closed_title": _("This table is closed."),
        "closed_lobby": _("Other tables"),
        "closed_text": _("No one can sit here any more. Pick another table in the lobby."),
        # Translators: the mark on the seat that led the current trick (首出).
        "leads": pgettext("the trick's first play", "leads"),
        "trumps_group": _("Trumps"),
        # Translators: the dealer picked more cards than the kitty takes.
        "bury_too_many": _("{n} picked: the kitty takes {k}. Put {extra} back."),
    }
