"""The words each page's script writes, translated here in the request's language and handed
to the page as its labels (``L.name`` in static/games/lobby.js, table.js and replay.js): no build
step and no JavaScript catalogue. The views (games/views.py) put ``lobby_labels()``,
``table_labels()`` or ``replay_labels()`` in the page; tests/games/test_page_labels.py checks
every ``L.name`` a script reads is sent.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from accounts.errors import error_details, error_messages
from games import call_words, chat_words, moment_words, rules_words, table_words
from games.models import quick_match_name

# --- words the table and the replay share ----------------------------------------------------


def _card_words() -> dict[str, Any]:
    """How cards are named aloud in the active language (aria-labels: "黑桃A", "A of spades")."""
    return {
        "suit_names": chat_words.suit_names(),
        "rank_names": {"T": "10"},
        # Translators: a card's spoken name; keep {rank} and {suit} ("黑桃A" is "{suit}{rank}").
        "card_format": _("{rank} of {suit}"),
        "big_joker": _("big joker"),
        "small_joker": _("small joker"),
        "list_separator": _(", "),
        "none": _("none"),
    }


def _bid_kinds() -> dict[str, str]:
    """The kinds of bid (docs/NOTATION.md, views: bids) as players call them."""
    return {
        "first": _("bid"),
        "self_reinforce": _("reinforce"),
        "overturn": _("overturn"),
        "self_overturn": _("self-overturn"),
        "no_trump_overturn": _("no-trump overturn"),
    }


def _seat_words() -> dict[str, Any]:
    """Seats by compass (seat 0 East, play goes East → South → West → North, docs/RULES-
    DECISIONS.md) and relative to the viewer (下家 sits on your right, play goes that way)."""
    return {
        "compass": chat_words.seat_compass(),
        # Translators: a seat named inside a sentence; {compass} is East, South… ("南家").
        "seat_called": pgettext("a seat in a sentence", "{compass}"),
        "relative": [
            pgettext("relative seat: the viewer", "you"),
            pgettext("relative seat: 下家, the next to play", "right"),
            pgettext("relative seat: 对家, the partner", "partner"),
            pgettext("relative seat: 上家, the one who played before you", "left"),
        ],
        "bot_at": _("bot ({seat})"),
        "team_02": _("East–West"),
        "team_13": _("South–North"),
    }


def _plays_level() -> str:
    # Translators: the level a side plays at, 打5 ("level 5"); {rank} is 2…10, J, Q, K, A.
    return _("level {rank}")


# --- the lobby -------------------------------------------------------------------------------


def lobby_labels() -> dict[str, Any]:
    """The words the lobby's script writes, translated here (no build step, no catalogue)."""
    return {
        "presets": dict(rules_words.preset_choices()),
        "compass": _seat_words()["compass"],
        **_shape_labels(),
        "quick_match_name": quick_match_name("{name}"),
        "house_rules": _("house rules"),
        "ranked": _("ranked"),
        "casual": _("casual"),
        "open": _("open"),
        "playing": _("hand in progress"),
        "stake": _("stake"),
        "min_balance": _("minimum balance"),
        "seconds": _("s per play"),
        "empty": _("empty"),
        "bot": _("bot"),
        "autopilot": pgettext("seat badge", "autopilot"),
        "ready": _("ready"),
        "sit": _("Sit"),
        "leave": _("Leave seat"),
        "press_ready": _("Ready"),
        "unready": _("Not ready"),
        "add_bot": _("Bot"),
        "watch": _("Open table"),
        "you": _("you"),
        "no_tables": _("No open tables yet: create one."),
        "queue_size": _("waiting"),
        "expected": _("expected wait"),
        "no_estimate": _("no estimate yet"),
        "waiting_for": _("You have waited"),
        "gap": _("looking for players near your level: the longer you wait, the wider the range"),
        "join": _("Find a ranked match"),
        "leave_queue": _("Leave the queue"),
        "matched": _("Matched! Your table:"),
        "live": _("live"),
        "offline": _("reconnecting…"),
        "seat": _("Seat"),
        "stake_first": _("stake (you are first)"),
    }


def _shape_labels() -> dict[str, Any]:
    """How the lobby's script says a table's shape from its codes (``players``, ``decks``,
    ``mode`` of the lobby feed): "{players}人 · {decks}副 · {mode}", and the seats of a bigger
    table ("seat {n}", numbered from 1)."""
    return {
        "shape": rules_words.shape_pattern(),
        "modes": rules_words.mode_words(),
        "seat_numbered": _("seat %(n)s") % {"n": "{n}"},
    }


# --- the table -------------------------------------------------------------------------------


def table_labels() -> dict[str, Any]:
    """Every word the table's script writes, translated here (no build step, no catalogue)."""
    return {
        **_card_words(),
        "errors": error_messages(),
        "error_details": error_details(),
        "system": chat_words.system_line_patterns(),
        # Which part of a system line is the seat, and which its player's name (docs/PROTOCOL.md).
        "system_names": {code: list(parts) for code, parts in chat_words.NAMED_SEATS.items()},
        "nth_card": chat_words.nth_card_pattern(),
        "bid_kinds": _bid_kinds(),
        "live": _("live"),
        "offline": _("reconnecting…"),
        "connecting": _("connecting…"),
        "no_table": _("This table no longer exists."),
        "quick_match_name": quick_match_name("{name}"),
        "ranked": _("ranked"),
        "casual": _("casual"),
        "stake": _("stake"),
        "seconds": _("s per play"),
        "seat_n": _("Seat {n}"),
        "bot_n": _("Bot {n}"),
        "bot": _("bot"),
        "you": _("you"),
        "away": _("away"),
        "seat_numbered": _("seat %(n)s") % {"n": "{n}"},
        "ready": _("ready"),
        "dealer_short": pgettext("badge on the dealer's seat", "dealer"),
        "defenders_short": _("defending"),
        "attackers_short": _("attacking"),
        "cards_n": _("{n} cards"),
        "cards_n_one": _("1 card"),
        "level_n": _("level {level}"),
        "sit": _("Sit here"),
        "add_bot": _("Add a bot"),
        "login_to_sit": _("Log in to sit"),
        "press_ready": _("Ready"),
        "unready": _("Not ready"),
        "leave_seat": _("Leave seat"),
        "bid": _("Bid"),
        "bid_with": _("Bid with {cards}"),
        "no_bid_yet": _("No bid to make yet: bids show level cards or a pair of jokers."),
        "no_bid_now": _("You have no bid that beats the standing one."),
        "play": pgettext("button", "Play"),
        "bury_n": _("Bury ({n}/8)"),
        "clear": _("Clear"),
        "last_trick": _("Last trick"),
        "hide_last_trick": _("Back to this trick"),
        "escape": _("Escape"),
        # Translators: under the hand's result, for a player whose auto-ready is on.
        "auto_ready_waits": _(
            "Auto-ready waits for you: close the result (or press Ready) and you are ready "
            "for the next hand."
        ),
        "escape_confirm": _(
            "Leave this hand now? It is an escape: the hand stops and you pay the table's "
            "escape penalty."
        ),
        "show_hand": _("Let spectators see my hand"),
        "watch_seat": _("Watch a seat"),
        "watch_public": _("Public view"),
        "watch_n": _("Watch {name}"),
        "no_hand": _("No hand yet."),
        "wins": _("wins"),
        # Translators: a trick won by trumps over a led plain suit (毙).
        "ruffs": _("ruffs"),
        "trick_points": _("{n} points"),
        "dealing_n": _("Dealing: {n}/100"),
        "bidding": _("Last moments to bid"),
        "burying_by": _("{name} is burying the kitty"),
        "hand_over": _("The hand is over."),
        "pick_a_seat": _("Pick a free seat to play, or watch."),
        "spectating": _("You are watching. Log in to play."),
        "waiting_players": _("Waiting for four players (or bots)."),
        "waiting_ready": _("You are ready. Waiting for the others."),
        "press_ready_hint": _("Press Ready when you are ready for the hand."),
        "to_act_is": _("Waiting for {name}."),
        "dealing_hint": _("Cards are arriving. Bid for trump with a level card or a pair."),
        "bidding_hint": _("The deal is done: the last seconds to bid."),
        # Translators: 炒地皮 (RULES-SPEC.md §10.24), the bid window after a bury.
        "theft_window": _("Kitty theft: overcall to take the kitty"),
        "theft_hint": _("Kitty theft: a stronger bid now takes the kitty; the dealer still leads."),
        "bury_pick": _("Choose 8 cards to bury ({n} chosen)."),
        "your_turn_lead": _("Your turn: lead."),
        "your_turn_follow": _("Your turn: follow with {n} cards."),
        "your_turn_follow_one": _("Your turn: follow with 1 card."),
        "throw_forced": _("{name}'s throw fails: {cards} is played instead."),
        "throw_rejected_by": _("{name}'s throw fails and is taken back."),
        "trump": _("Trump"),
        "level": _("level"),
        "levels": _("Levels"),
        "trump_unknown": _("trump not set yet"),
        "no_trump": _("no trump"),
        "us": _("us"),
        "them": _("them"),
        "dealer": _("Dealer"),
        "attackers_points": _("Attackers' points"),
        "tricks": _("Tricks"),
        "point_cards": _("Point cards won by the attackers"),
        "your_kitty": _("Your kitty"),
        "bids": _("Bids"),
        "flipped": _("Kitty turned over"),
        "kitty": _("Kitty"),
        "result_title": _("Result of the hand"),
        "result_escape": _("{name} escaped: the hand stops."),
        "result_winner": _("The {side} win: level +{n}."),
        "result_take_deal": _("The attackers take the deal: no level is gained."),
        "attackers": _("attackers"),
        "defenders": _("defenders"),
        "trick_points_label": _("Points in tricks"),
        "kitty_bonus": _("Kitty bonus"),
        "kitty_bonus_value": _("{points} × {times} = {bonus}"),
        "penalty_points": _("Throw penalties"),
        "next_dealer": _("Next dealer"),
        "match_over": _("The match is over."),
        "watch_replay": _("Watch the replay"),
        "loading": _("loading…"),
        "ledger_title": _("Points changed"),
        "practice_hand": _("A practice hand: a bot sat at its start, so no points moved."),
        "player": _("Player"),
        "table_points": _("Table points"),
        "title_points": _("Title points"),
        **_seat_words(),
        **_first_contact_words(),
        **table_words.shape_table_words(),
        **rules_words.ended_table_words(),
        **moment_words.moment_table_words(),
        **call_words.call_step_words(),
    }


def _first_contact_words() -> dict[str, Any]:
    """Levels as players say them (打5), per-table numbering, away, autopilot, hint, sound."""
    return {
        "plays_level": _plays_level(),
        "hand_level": _("This hand's level card: {rank}"),
        "match_hand": _("Match {match} · hand {hand}"),
        "match_only": _("Match {match}"),
        "away_mark": pgettext("seat badge: the player lost the connection", "away"),
        "away_countdown": _("bot in {n}s"),
        # Translators: between hands, an away player's seat is freed when the countdown ends.
        "away_countdown_free": _("seat freed in {n}s"),
        "autopilot_badge": pgettext("seat badge", "autopilot"),
        "autopilot": _("Autopilot"),
        "autopilot_stop": _("Stop autopilot"),
        "autopilot_title": _(
            "Let the bot play for you; you still watch. Acting yourself stops it."
        ),
        "autopilot_on_note": _("Autopilot is on: the bot plays for you."),
        "auto_ready": _("Auto-ready"),
        "auto_ready_title": _(
            "Ready for the next hand of this match by itself. Turn it off to stand up "
            "between hands."
        ),
        "hint": _("Hint"),
        "hint_title": _("Pick a suggested play (the basic bot, from your own cards)."),
        # Translators: 悔牌 / 撤回亮主, a house rule: withdraw your own last bid or play.
        "takeback": _("Take back"),
        # Translators: 撤回亮主, a house rule: withdraw your own bid while it is the last one.
        "takeback_bid": _("Withdraw bid"),
        "takeback_title": _("Take back your last bid, or your play while the trick is open."),
        "hint_none": _("No suggestion right now."),
        "hint_bid": _("Hint: bid {cards}."),
        "sound": _("Sound on your turn"),
        "escape_confirm_cost": _(
            "Leave this hand now? It counts as an escape: you pay {cost} table points."
        ),
        "escape_confirm_free": _(
            "Leave this hand now? It counts as an escape and the hand stops; under these "
            "rules nobody pays."
        ),
    }


# --- the replay ------------------------------------------------------------------------------


def replay_labels() -> dict[str, Any]:
    return {
        **_card_words(),
        "compass": chat_words.seat_compass(),
        "plays_level": _plays_level(),
        "bid_kinds": _bid_kinds(),
        "start": _("Start: the deck is shuffled."),
        "deal_n": _("{n} cards dealt ({drawn}/100)."),
        "bid_by": _("{name} bids {cards}."),
        "nth_card": chat_words.nth_card_pattern(),
        "close": _("Bidding closes."),
        "bury_by": _("{name} buries {cards}."),
        "play_by": _("{name} plays {cards}."),
        "leave_by": _("{name} escapes."),
        "takeback_by": _("{name} takes back {cards}."),
        "auto": _("(on time-out, by the bot)"),
        "move_n": _("Move {n} of {total}"),
        "trick_n": _("Trick {n}"),
        "deal": _("Deal"),
        "trump": _("Trump"),
        "level": _("level"),
        "no_trump": _("no trump"),
        # Translators: the level after A under the top-level option (RULES-SPEC.md §10.5), in
        # "level NT" (打无主).
        "level_nt": _("NT"),
        "trump_unknown": _("trump not set yet"),
        "dealer": _("Dealer"),
        "dealer_short": pgettext("badge on the dealer's seat", "dealer"),
        "attackers_points": _("Attackers' points"),
        "point_cards": _("Point cards won by the attackers"),
        "kitty_dealt": _("Kitty as dealt"),
        "buried": _("Buried"),
        "seat_n": _("Seat {n}"),
        "bot_n": _("Bot {n}"),
        "bot": _("bot"),
        "wins": _("wins"),
        # Translators: a trick won by trumps over a led plain suit (毙).
        "ruffs": _("ruffs"),
        "cards_n": _("{n} cards"),
        "cards_n_one": _("1 card"),
        "result_winner": _("The {side} win: level +{n}."),
        "result_take_deal": _("The attackers take the deal: no level is gained."),
        "result_escape": _("{name} escaped: the hand stops."),
        "void": _("This hand was made void by an admin."),
        "attackers": _("attackers"),
        "defenders": _("defenders"),
        "kitty_bonus_line": _("Kitty bonus: {points} × {times} = {bonus}"),
        "levels_after": _("Levels after: seats 0 & 2 {a} · seats 1 & 3 {b}"),
        "autoplay": _("Autoplay"),
        "pause": _("Pause"),
        **table_words.shape_replay_words(),
    }
