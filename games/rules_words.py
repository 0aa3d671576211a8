"""The rules in players' words: each preset's name and one-line description, each option's values
(RULES-SPEC.md §4–§7), the rules card of a table or a stored hand, what leaving costs at a stake,
and
the data the create form's script needs to show the rules a choice of house rules gives.

The engine names presets and values in code (``seed003``, ``stake_steps``); players never see
those, only these words, in their language.
"""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from games import house_options
from ladder import selectors as ladder_selectors
from shengji.engine import HOUSE_RULE_OPTIONS, PRESETS, RuleSet
from shengji.engine.rules import default_decks, default_friends

HOUSE_SUFFIX = "+house"

PRESET_WORDS: dict[str, tuple[Promise, Promise]] = {
    "ranked": (
        pgettext_lazy("preset", "Standard"),
        gettext_lazy(
            "The ranked rules: bids by strength, a failed throw plays its smallest part, "
            "settlement by the level ratio, an escape pays three one-level losses."
        ),
    ),
    "seed000": (
        pgettext_lazy("preset", "Classic"),
        gettext_lazy(
            "No bid in the first hand means a new deal; a kitty turned over is read as bids; "
            "settlement by the levels gained."
        ),
    ),
    "seed002": (
        pgettext_lazy("preset", "Overcall"),
        gettext_lazy(
            "More level cards of another suit overcall (冲主); the first bidder deals; fixed "
            "amounts by the attackers' points; an escape pays 40."
        ),
    ),
    "seed003": (
        pgettext_lazy("preset", "Random level"),
        gettext_lazy(
            "A random level card every hand; the first level card names trump, pairs protect "
            "or overturn it; no bid means no trump; stake steps and fees; an escape pays 9 stakes."
        ),
    ),
    "seed004": (
        pgettext_lazy("preset", "Kitty flip"),
        gettext_lazy(
            "A failed throw is refused; nobody bids: the kitty is turned over; the kitty bonus "
            "counts pairs; past A starts again at 2; nobody pays for an escape."
        ),
    ),
}


def preset_label(name: str) -> str:
    """A rule set's name in players' words: ``seed003`` → 随机级牌, ``ranked+house`` → 标准 ·
    house rules, an unknown name as it is."""
    base, house, _rest = name.partition(HOUSE_SUFFIX)
    words = PRESET_WORDS.get(base)
    if words is None:
        return name
    label = str(words[0])
    return _("%(preset)s · house rules") % {"preset": label} if house else label


def preset_choices() -> list[tuple[str, str]]:
    return [(name, str(words[0])) for name, words in PRESET_WORDS.items()]


def option_words() -> dict[str, dict[str, str]]:
    """Each rule option of RULES-SPEC.md §8 with its values in words players use (the registry:
    games/house_options.py)."""
    return {
        name: {str(value): str(words) for value, words in house_options.option(name).values.items()}
        for name in house_options.RULES_OF_8
    }


def option_labels() -> dict[str, str]:
    """The options of RULES-SPEC.md §8 in the order of the rules card."""
    return {name: str(house_options.option(name).label) for name in house_options.RULES_OF_8}


def house_row_options() -> list[str]:
    """The other house options (RULES-SPEC.md §10, ``throw_penalty``), in the registry's order:
    a rules card shows each only when the table changes it."""
    return [o.name for o in house_options.OPTIONS if not o.in_rules_of_8]


def _no_bid_words(options: dict[str, Any], words: dict[str, str]) -> str:
    """``no_bid``, with seed 000's different first hand (``no_bid_first_hand``) when it is."""
    first, later = options["no_bid_first_hand"], options["no_bid"]
    if first == later:
        return words[later]
    return _("first hand: {first}; later hands: {later}").format(
        first=words[first], later=words[later]
    )


def escape_words(options: dict[str, Any], stake: int, *, ranked: bool = False) -> tuple[int, str]:
    """(the most an escaper pays here, what leaving a hand costs at this stake, who receives it
    and who else is touched; RULES-SPEC.md §7). A player still away when the hand ends pays the
    same. Only a ranked table (four players, two decks, 拖拉机) pays any of it to players; at
    every other table all of it goes to the house (docs/LADDER.md, "No faster than play")."""
    least, most = ladder_selectors.escape_cost(ruleset={"options": options}, stake=stake)
    penalty = options["escape_penalty"]
    friends = options.get("mode") == "friends"
    if penalty == "none":
        text = _("Leaving a hand in progress costs nothing under these rules.")
        return 0, text + (" " + _friends_leaving_words() if friends else "")
    shape = (options.get("players", 4), options.get("decks", 2))
    to_players = ranked and not friends and shape == (4, 2)
    if least != most:
        text = _(
            "Leaving a hand in progress is an escape: you pay three one-level losses, "
            "%(least)s table points at levels 2–3, up to %(most)s at A."
        ) % {"least": least, "most": most}
    elif penalty == "triple":
        text = _(
            "Leaving a hand in progress is an escape: you pay %(amount)s table points "
            "(three one-level losses)."
        ) % {"amount": most}
    elif penalty == "nine_stakes" and to_players:
        text = _(
            "Leaving a hand in progress is an escape: you pay %(amount)s table points "
            "(9 stakes), shared by the other three."
        ) % {"amount": most}
    elif penalty == "nine_stakes":
        text = _(
            "Leaving a hand in progress is an escape: you pay %(amount)s table points (9 stakes)."
        ) % {"amount": most}
    else:
        text = _("Leaving a hand in progress is an escape: you pay %(amount)s table points.") % {
            "amount": most
        }
    if not to_players:
        text += " " + _("All of it goes to the house: nobody at the table gains from an escape.")
    others = _friends_leaving_words() if friends else _tractor_leaving_words(options)
    return most, text + " " + others


def _friends_leaving_words() -> str:
    """找朋友 has no partner: every player has a level of their own, and the match goes on."""
    return _(
        "Nobody else pays: the others keep their levels and the match goes on; a bot or a new "
        "player takes your seat, starting at level 2."
    )


def _tractor_leaving_words(options: dict[str, Any]) -> str:
    """拖拉机's sides are fixed: the escaper's partners pay nothing, and the match ends."""
    if int(options.get("players") or 4) > 4:
        return _("Your partners pay nothing; the match ends.")
    return _("Your partner pays nothing; the match ends.")


def fee_words(options: dict[str, Any], stake: int) -> str:
    """The house's fees at this stake (RULES-SPEC.md §6)."""
    fees = ladder_selectors.fee_schedule()
    if options["settlement"] == "ratio":
        return _("each winner pays a fee of %(fee)s table points a hand") % {"fee": fees.winner_fee}
    if options["settlement"] == "stake_steps":
        service = (stake * fees.service_percent + 50) // 100
        return _(
            "every player pays a table fee of %(table)s and a service fee of %(service)s "
            "(%(percent)s%% of the stake) a hand"
        ) % {"table": fees.table_fee, "service": service, "percent": fees.service_percent}
    return _("no fees")


def practice_words() -> str:
    return _("A practice hand (a bot is seated): leaving costs nothing and moves no points.")


def ended_table_words() -> dict[str, str]:
    """The table page's words for a ranked table closed because it lost a player (it can never
    refill): why, and the offer of a new quick match (docs/LADDER.md, "A ranked table that
    loses a player")."""
    return {
        "quick_match_again": _("Quick match"),
        "dead_ranked_text": _(
            "A player left this ranked table, which can never be refilled: it is closed and "
            "you are free. Quick match finds you a new table."
        ),
        "dead_escape_text": _(
            "A player escaped: this ranked table can never be refilled, so it is closed and "
            "you are free. Quick match finds you a new table."
        ),
    }


def kitty_many_decks_words() -> str:
    """The kitty bonus of a table of three or four decks (RULES-SPEC.md §9.2.10): by the largest
    unit of the last trick's lead, whatever ``kitty_multiplier`` says."""
    return _(
        "2 × the cards in the largest unit of the last trick's lead: a single 2, a pair 4, "
        "a triple 6, a quad 8; a tractor of two pairs 8, of two triples 12"
    )


def _option_read(option: str, decks: int) -> bool:
    """Whether the engine reads this option at a table of ``decks`` decks: more than two decks
    set the kitty bonus by their own rule (RULES-SPEC.md §9.2.10)."""
    return not (option == "kitty_multiplier" and decks > 2)


def rule_changes(preset_name: str, options: dict[str, Any]) -> list[str]:
    """The rule options whose value differs from the preset's, in the order of the rules card
    (RULES-SPEC.md §8's, then the other house options of games/house_options.py): what a
    table's house rules really change. The table's shape (players, mode, decks, the 找朋友
    options, ``draw_policy``'s two shape values) is no change of the preset's rules, and an
    option the table's decks do not read is none either. An option missing from ``options``
    (``RuleSet.to_dict`` leaves out a house option at its default) holds the preset's value."""
    base = PRESETS.get(preset_name.partition(HOUSE_SUFFIX)[0])
    if base is None:
        return []
    decks = int(options.get("decks", 2))
    changed = [
        option
        for option in option_labels()
        if option in options
        and options[option] != getattr(base, option)
        and _option_read(option, decks)
    ]
    for option in house_row_options():
        value = options.get(option, getattr(base, option))
        if house_options.is_house_change(option, value, getattr(base, option)):
            changed.append(option)
    return changed


def house_rules_change_preset(
    preset_name: str, house_rules: dict[str, Any] | None, *, decks: int = 2
) -> bool:
    """Whether a table's stored house rules change any rule of its preset (not only its shape):
    the lobby names it "<preset> · house rules" only then."""
    chosen = {k: v for k, v in (house_rules or {}).items() if k in house_options.BY_NAME}
    return bool(rule_changes(preset_name, {**chosen, "decks": decks}))


def _changes_words(changed: list[str]) -> str:
    """The description of what changed ("Changed from the preset: Settlement."), or ""."""
    if not changed:
        return ""
    # Translators: the separator of a list of rule names (、 in Chinese).
    separator = pgettext("list separator", ", ")
    return _("Changed from the preset: %(rules)s.") % {
        "rules": separator.join(str(house_options.option(option).label) for option in changed)
    }


def house_rows(options: dict[str, Any], changed: list[str]) -> list[dict[str, Any]]:
    """A rules card's rows of the house options beyond RULES-SPEC.md §8 that the table changes
    (only those: the others play as the preset)."""
    rows = []
    for name in house_row_options():
        if name not in changed:
            continue
        entry = house_options.option(name)
        value = options[name]
        rows.append(
            {
                "option": name,
                "value": entry.form_value(value),
                "label": str(entry.label),
                "text": entry.words(value),
                "changed": True,
            }
        )
    return rows


def rules_card(
    rules: dict[str, Any],
    *,
    stake: int | None = None,
    practice: bool = False,
    ranked: bool = False,
) -> dict[str, Any]:
    """The rules card (templates/games/_rules_card.html) of a rule set's ``to_dict()``: one row
    per option, its value in words, and, given the table's stake, what an escape and the fees
    cost in table points (nothing at a ``practice`` table: a bot of its own sits there)."""
    options = rules["options"]
    words = option_words()
    name = str(rules["name"])
    changed = rule_changes(name, options)
    rows = []
    for option, label in option_labels().items():
        if option == "no_bid_first_hand":
            continue
        value = options[option]
        if option == "no_bid":
            text = _no_bid_words(options, words["no_bid"])
        elif option == "escape_penalty" and practice:
            text = practice_words()
        elif option == "escape_penalty" and stake is not None:
            text = escape_words(options, stake, ranked=ranked)[1]
        elif not _option_read(option, int(options.get("decks", 2))):
            text = kitty_many_decks_words()
        else:
            text = words[option][value]
        changes = option in changed or (option == "no_bid" and "no_bid_first_hand" in changed)
        rows.append(
            {"option": option, "value": value, "label": label, "text": text, "changed": changes}
        )
    full = {**{n: getattr(RuleSet(), n) for n in house_row_options()}, **options}
    rows.extend(house_rows(full, changed))
    if stake is not None:
        rows.append(
            {
                "option": "fees",
                "value": "",
                "label": _("Fees"),
                "text": fee_words(options, stake),
                "changed": False,
            }
        )
    base = name.partition(HOUSE_SUFFIX)[0]
    description = PRESET_WORDS[base][1] if base in PRESET_WORDS else ""
    return {
        # "<preset> · house rules" only when a rule differs from the preset's: a 找朋友 table's
        # shape alone changes none (its name still ends in +house: games/models.py).
        "name": preset_label(base + (HOUSE_SUFFIX if changed else "")),
        "preset": base,
        "description": _changes_words(changed) or str(description),
        "rows": rows,
    }


def form_rules_data() -> dict[str, Any]:
    """What the create form's script needs to show the rules a preset and house rules give."""
    words = option_words()
    return {
        "presets": {
            name: {
                "label": str(label),
                "description": str(description),
                "options": PRESETS[name].to_dict()["options"],
            }
            for name, (label, description) in PRESET_WORDS.items()
        },
        "options": {
            option: {"label": label, "words": words[option]}
            for option, label in option_labels().items()
            if option in HOUSE_RULE_OPTIONS
        },
        "house": house_form_data(),
        "house_label": _("house rules"),
        "kitty_many_decks": kitty_many_decks_words(),  # decks > 2 (RULES-SPEC.md §9.2.10)
        "changes_label": _("Changed from the preset: %(rules)s."),
        "list_separator": pgettext("list separator", ", "),
    }


def house_form_data() -> dict[str, Any]:
    """The create form script's words for the house options beyond RULES-SPEC.md §8: each one's
    label, its default as the form sends it, and its values' words (a number's in a pattern,
    ``{n}``, and its words for 0); the summary shows one only when it is changed."""
    data: dict[str, Any] = {}
    for name in house_row_options():
        entry = house_options.option(name)
        shown: dict[str, Any] = {
            "label": str(entry.label),
            "field": house_options.field_name(name),
            "default": entry.form_value(getattr(RuleSet(), name)),
            "shape_values": list(entry.shape_values),
        }
        if entry.number is not None:
            shown["number"] = str(entry.number.words).replace("%(n)s", "{n}")
            shown["zero"] = str(entry.number.zero) if entry.number.zero is not None else None
        else:
            shown["words"] = {entry.form_value(v): str(w) for v, w in entry.values.items()}
        data[name] = shown
    return data


# --- the table's shape (RULES-SPEC.md §9.1, §3) ------------------------------------------------

SHAPE_FORM_OPTIONS: dict[str, tuple[str, ...]] = {
    "friend_cards": ("unrestricted", "trumps_included", "no_highest", "no_points"),
    "join_policy": ("unrestricted", "no_double_join"),
    "small_side_bonus": ("on", "off"),
    "draw_policy": tuple(house_options.option("draw_policy").values),
}
"""The shape options a table may choose on top of its players, mode, decks and friends, with
their values as the form sends them (``small_side_bonus`` as ``on``/``off``)."""


def mode_words() -> dict[str, str]:
    """The modes in players' words (the table page's words: games/table_words.py)."""
    return {"tractor": _("Tractor"), "friends": _("Finding Friends")}


def shape_pattern() -> str:
    """A shape in words with its parts to fill: "{players}人 · {decks}副 · {mode}"."""
    return _("{players} players · {decks} decks · {mode}")


def shape_option_labels() -> dict[str, str]:
    return {
        "friend_cards": _("Cards that may be called"),
        "join_policy": _("A call filled by the dealer's side"),
        "small_side_bonus": _("Small-side bonus"),
        "draw_policy": str(house_options.option("draw_policy").label),
    }


def shape_option_words() -> dict[str, dict[str, str]]:
    """The shape options' values in players' words (RULES-SPEC.md §9.2, §3)."""
    return {
        "friend_cards": {
            "unrestricted": _("any card but jokers, level cards and trumps"),
            "trumps_included": _("any card"),
            "no_highest": _("not jokers, level cards, trumps, nor an A (a K when the level is A)"),
            "no_points": _("not jokers, level cards, trumps, nor a 5, 10 or K"),
        },
        "join_policy": {
            "unrestricted": _("the call is used up: the side stays smaller"),
            "no_double_join": _("passed over: the call waits for the next copy"),
        },
        "small_side_bonus": {
            "on": _("a smaller defending side that wins goes up one more level"),
            "off": _("no bonus"),
        },
        "draw_policy": {
            value: str(words) for value, words in house_options.option("draw_policy").values.items()
        },
    }


def _shape_of(rules: RuleSet | dict[str, Any]) -> tuple[int, int, str]:
    if isinstance(rules, RuleSet):
        return rules.players, rules.decks, rules.mode
    options = rules.get("options", rules)
    return (
        int(options.get("players", 4)),
        int(options.get("decks", 2)),
        str(options.get("mode", "tractor")),
    )


def shape_words(rules: RuleSet | dict[str, Any]) -> str:
    """A table's shape in players' words, for the lobby, the home page, the table's header
    and the replay: "6人 · 3副 · 找朋友", "6 players · 3 decks · Finding Friends". ``rules``
    is a rule set or its ``to_dict()`` (a stored hand's), whose missing shape keys are the
    classic ones."""
    players, decks, mode = _shape_of(rules)
    words = mode_words().get(mode, mode)
    return shape_pattern().format(players=players, decks=decks, mode=words)


def shape_form_data() -> dict[str, Any]:
    """What the create and practice forms' script needs to say a shape in words before the
    table is made: the defaults by players (decks, friends) and the words."""
    return {
        "defaults": {
            players: {
                "decks": default_decks(players),
                "friends": default_friends(players) if players >= 5 else 0,
            }
            for players in range(4, 9)
        },
        "modes": mode_words(),
        "shape": shape_pattern(),
        "options": {
            option: {"label": label, "words": shape_option_words()[option]}
            for option, label in shape_option_labels().items()
        },
    }


# The shapes the home page offers for practice, the classic one first (its form posts
# ``players`` and ``mode``: games.views.practice).
PRACTICE_SHAPES: tuple[tuple[int, str], ...] = (
    (4, "tractor"),
    (5, "friends"),
    (6, "friends"),
    (6, "tractor"),
    (7, "friends"),
    (8, "friends"),
    (8, "tractor"),
)


def practice_shapes() -> list[dict[str, Any]]:
    """Each practice shape with its words ("6人 · 3副 · 找朋友"), decks by the players."""
    return [
        {
            "players": players,
            "mode": mode,
            "value": f"{players}-{mode}",  # the home page's choice (games.forms.PracticeForm)
            "decks": default_decks(players),
            "words": shape_words(
                {"players": players, "decks": default_decks(players), "mode": mode}
            ),
        }
        for players, mode in PRACTICE_SHAPES
    ]
