"""The words the table and replay scripts write for tables of 5–8 seats and 找朋友 (issue 32)
and for the house options (RULES-SPEC.md §10),
translated here and merged into the pages' labels (games/page_labels.py ``table_labels`` and
``replay_labels``): seats by number past four, the dealer's calls, reveals, each player's
points and level (RULES-SPEC.md §9.3–§4)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext


def _call_words() -> dict[str, Any]:
    """A call as players say it: "第2张♠A的人是朋友 · 已出1张"."""
    return {
        # Translators: a friend call; {nth} is "第2张" / "2nd", {card} the card ("♠A").
        "call_text": _("whoever plays the {nth} {card} is a friend"),
        "call_nth": [
            pgettext("friend call: which copy", "1st"),
            pgettext("friend call: which copy", "2nd"),
            pgettext("friend call: which copy", "3rd"),
            pgettext("friend call: which copy", "4th"),
        ],
        "call_seen": _("{n} played"),
        "call_filled": _("friend: {name}"),
        "call_used": _("{name} played it (already on the dealer's side)"),
        "calls_title": _("Friends called"),
        "calls_waiting": _("The dealer calls the friends while burying."),
        "calls_at_lead": _("The calls are shown when the first trick is led."),
        "calls_none_yet": _("No friend has shown yet."),
        "friend_badge": pgettext("seat badge: a friend of the dealer, revealed", "friend"),
        "friend_revealed": _("{name} is a friend of the dealer!"),
        "friend_revealed_line": _("{name} plays the {nth} {card}: a friend of the dealer"),
        "call_pick_title": _("Call your friends"),
        "call_pick_n": _("Friend {n}"),
        "call_rank": _("Card"),
        "call_suit": _("Suit"),
        "call_ordinal": _("Which copy"),
        "call_checking": _("Checking the calls…"),
        "call_ok": _("These calls stand."),
        "calls_sent": _("Your calls: {calls}"),
        "bury_and_call": _("Call and bury ({n}/{k})"),
        "bury_pick_call": _("Choose your calls and {k} cards to bury ({n} chosen)."),
    }


def shape_table_words() -> dict[str, Any]:
    """The table page's words for every table shape (merged into ``page_labels.table_labels``)."""
    return {
        **_call_words(),
        **_shape_words(),
        **_house_words(),
        "bury_nk": _("Bury ({n}/{k})"),
        "bury_pick_k": _("Choose {k} cards to bury ({n} chosen)."),
        "dealing_nt": _("Dealing: {n}/{total}"),
        "waiting_players_n": _("Waiting for {n} players (or bots)."),
        "seat_points": _("{n} pts"),
        "seat_points_title": _("Points each player has taken"),
        "levels_each": _("Each player's level"),
        "my_level": _("me"),
        "dealer_level": _("dealer"),
        "side_now": _("Dealer's side so far"),
        "side_final": _("Dealer's side"),
        "small_side_bonus": _("Small side: +{n} level"),
    }


def shape_replay_words() -> dict[str, Any]:
    """The replay page's words for every table shape (merged into ``_replay_labels``)."""
    return {
        **_call_words(),
        **_shape_words(),
        "seat_n": _("Seat {n}"),
        "seat_points": _("{n} pts"),
        "deal_nt": _("{n} cards dealt ({drawn}/{total})."),
        "call_by": _("{name} calls: {calls}."),
        "levels_after_each": _("Levels after: {levels}"),
        "defenders": _("defenders"),
        "side_final": _("Dealer's side"),
        "seat_points_title": _("Points each player has taken"),
        "levels_each": _("Each player's level"),
    }


def _house_words() -> dict[str, Any]:
    """What the house options add to the table page (RULES-SPEC.md §10.9–§10.11): who stopped
    a throw, the cards taken out of the deal, every trick of the hand."""
    return {
        # Translators: after "X's throw fails …" under the option naming who stopped it.
        "throw_blocker": _("{name} stopped it."),
        "removed_cards": _("Cards taken out of the deal"),
        "all_tricks": _("Every trick of the hand ({n})"),
        "trick_taken_by": _("{name} takes it"),
        # Translators: the level after A under the top-level option (RULES-SPEC.md §10.5), in
        # "level NT" (打无主); no level cards, only the jokers are trump.
        "level_nt": _("NT"),
        "no_bids_at_nt": _("A hand at NT: nobody bids, only the jokers are trump."),
    }


def _shape_words() -> dict[str, Any]:
    """The table's shape in a header ("6人 · 3副 · 找朋友"), when the server sends none."""
    return {
        "shape": _("{players} players · {decks} decks · {mode}"),
        "modes": {"tractor": _("Tractor"), "friends": _("Finding Friends")},
    }
