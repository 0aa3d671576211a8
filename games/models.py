"""Tables, seats, matches, hands and the append-only move log.

The database row of a hand is the authority: its engine snapshot and `seq` are only changed by
services under a row lock, and every acknowledged action is an `Action` row.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext, pgettext_lazy

from games import chat_words
from shengji.engine import RuleSet, preset

SEATS = 4  # a classic table's seats: every ranked table (quick match) has four
MAX_SEATS = 8  # the most seats a table may have (RULES-SPEC.md §9.1)

# The table-shape options a casual table keeps among its house rules (RULES-SPEC.md §9.1, §3;
# docs/PROTOCOL.md, "Tables of every shape"); ``Table.players`` is a field of its own.
SHAPE_HOUSE_RULES = (
    "mode",
    "decks",
    "friends",
    "friend_cards",
    "join_policy",
    "small_side_bonus",
    "draw_policy",
)
_WHOLE_NUMBER_OPTIONS = ("decks", "friends")
_TRUE_WORDS = ("on", "true", "1", "yes")


def engine_options(house_rules: dict[str, Any]) -> dict[str, Any]:
    """A table's house rules as the engine's option values: the one place where the form's
    strings become numbers (``decks``, ``friends``) and a flag (``small_side_bonus``). A
    value that cannot be read raises ``ValueError``."""
    options: dict[str, Any] = {}
    for option, value in house_rules.items():
        if option in _WHOLE_NUMBER_OPTIONS:
            if isinstance(value, bool) or not str(value).strip().isdigit():
                raise ValueError(f"{option} {value!r} is not a whole number")
            options[option] = int(str(value).strip())
        elif option == "small_side_bonus":
            options[option] = value if isinstance(value, bool) else str(value) in _TRUE_WORDS
        else:
            options[option] = value
    return options


def quick_match_name(player: str) -> str:
    """A quick-match table's name in the active language (the table stores ``player``)."""
    return pgettext("table name", "Quick match · %(name)s") % {"name": player}


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("open")
        PLAYING = "playing", pgettext_lazy("status", "playing")
        CLOSED = "closed", _("closed")

    name = models.CharField(max_length=60, verbose_name=_("name"))
    preset = models.CharField(max_length=20, default="ranked", verbose_name=_("rule preset"))
    ranked = models.BooleanField(default=True, verbose_name=_("ranked"))
    stake = models.PositiveIntegerField(default=100, verbose_name=_("stake"))
    players = models.PositiveSmallIntegerField(
        default=SEATS,
        help_text=_("the number of seats, 4 to 8"),
        verbose_name=_("players"),
    )
    min_balance = models.PositiveIntegerField(default=0, verbose_name=_("minimum table points"))
    play_seconds = models.PositiveIntegerField(
        default=20, help_text=_("time per play"), verbose_name=_("seconds per play")
    )
    bury_seconds = models.PositiveIntegerField(default=30, verbose_name=_("seconds to bury"))
    bid_window_seconds = models.PositiveIntegerField(default=8, verbose_name=_("seconds to bid"))
    deal_interval_ms = models.PositiveIntegerField(
        default=100, help_text=_("pace of the deal"), verbose_name=_("deal interval (ms)")
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.OPEN, verbose_name=_("status")
    )
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_tables",
        verbose_name=_("creator"),
    )
    house_rules = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("casual tables: rule options chosen on top of the preset"),
        verbose_name=_("house rules"),
    )
    unlisted = models.BooleanField(
        default=False,
        help_text=_("casual tables: not in the lobby, joined by the invite link"),
        verbose_name=_("unlisted"),
    )
    invite_code = models.CharField(
        max_length=32, blank=True, db_index=True, verbose_name=_("invite code")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # Counts the table's changes (seats, readiness, hands starting and ending): a socket
    # keeps the newest of the table changes it hears (``TableConsumer.table_changed``).
    rev = models.PositiveBigIntegerField(default=0, editable=False, verbose_name=_("revision"))

    class Meta:
        indexes = [models.Index(fields=["status", "-created_at"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(players__gte=SEATS, players__lte=MAX_SEATS),
                name="table_players_4_8",
            ),
        ]
        verbose_name = _("table")
        verbose_name_plural = _("tables")

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        """The name shown, in the reader's language: a quick-match table (the only ranked
        tables) stores its first player's name and is shown as "Quick match · <name>"."""
        return quick_match_name(self.name) if self.ranked else self.name

    def rules(self) -> RuleSet:
        """The rules in force: the preset, with the table's shape (``players``, and the shape
        options among the house rules: ``SHAPE_HOUSE_RULES``) and the house rules on top (named
        ``<preset>+house`` when there are any, so a stored hand says it was not the preset).
        Decks and the number of calls not chosen are the defaults for the players
        (RULES-SPEC.md §9.1, §3.3)."""
        base = preset(self.preset)
        options = engine_options(self.house_rules or {})
        if self.players != SEATS:
            options["players"] = self.players
        if not options:
            return base
        name = f"{self.preset}+house" if self.house_rules else self.preset
        return base.with_options(**options, name=name)


class Seat(models.Model):
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="seats", verbose_name=_("table")
    )
    index = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
        verbose_name=_("player"),
    )
    ready = models.BooleanField(default=False, verbose_name=_("ready"))
    connected = models.BooleanField(default=False, verbose_name=_("connected"))
    bot = models.BooleanField(
        default=False, help_text=_("the bot is playing this seat"), verbose_name=_("bot plays")
    )
    disconnected_at = models.DateTimeField(null=True, blank=True, verbose_name=_("disconnected at"))
    show_hand_to_spectators = models.BooleanField(
        default=False,
        help_text=_("casual tables: spectators watching this seat see its hand"),
        verbose_name=_("shows hand to spectators"),
    )
    auto_ready = models.BooleanField(
        default=True,
        help_text=_("ready again by itself for the next hand of the match"),
        verbose_name=_("auto-ready"),
    )
    autopilot = models.BooleanField(
        default=False,
        help_text=_("托管: the player asked the bot to play for them"),
        verbose_name=_("autopilot"),
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="seat_unique_index"),
            models.CheckConstraint(condition=models.Q(index__lt=MAX_SEATS), name="seat_index_0_7"),
        ]
        ordering = ["table", "index"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")

    def __str__(self) -> str:
        return f"{self.table} · {chat_words.seat_name(self.index, self.table.players)}"


class Match(models.Model):
    """Hands played by the same four in succession, from level 2 (seed 000 §1.4)."""

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="matches", verbose_name=_("table")
    )
    ruleset = models.JSONField(verbose_name=_("rules"))
    levels = models.JSONField(
        help_text=_("level of each side: [seats 0&2, seats 1&3]"), verbose_name=_("levels")
    )
    wrapped = models.JSONField(default=list, verbose_name=_("past A"))
    players = models.JSONField(
        default=list, help_text=_("user id per seat (null for a bot)"), verbose_name=_("players")
    )
    next_dealer = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("next dealer")
    )
    started_at = models.DateTimeField(auto_now_add=True, verbose_name=_("started at"))
    ended_at = models.DateTimeField(null=True, blank=True, verbose_name=_("ended at"))
    winner_side = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("winning side")
    )

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")

    def __str__(self) -> str:
        return _("match %(match)s at table %(table)s") % {"match": self.pk, "table": self.table_id}


class Hand(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", pgettext_lazy("status", "playing")
        FINISHED = "finished", pgettext_lazy("status", "finished")
        ESCAPED = "escaped", _("escaped")
        VOID = "void", _("void")

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="hands", verbose_name=_("match")
    )
    number = models.PositiveIntegerField(verbose_name=_("hand number"))
    ruleset = models.JSONField(verbose_name=_("rules"))
    seed = models.BigIntegerField(verbose_name=_("seed"))
    dealer = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text=_("dealer at the start; empty when bidding chooses"),
        verbose_name=_("dealer"),
    )
    levels = models.JSONField(verbose_name=_("levels"))
    wrapped = models.JSONField(
        default=list, help_text=_("each side past A already (wrap)"), verbose_name=_("past A")
    )
    seq = models.PositiveIntegerField(
        default=0, help_text=_("number of actions applied"), verbose_name=_("actions applied")
    )
    deal_started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("deal started at"))
    snapshot = models.JSONField(null=True, blank=True, verbose_name=_("snapshot"))
    deadline = models.DateTimeField(null=True, blank=True, verbose_name=_("deadline"))
    # The deadline task in flight: the seq it was sent with, and when it is due. A move whose
    # deadline is no earlier than it sends none (the task sends itself again when it finds the
    # deadline moved on): one task per clock period, not one per move.
    timer_seq = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("timer seq"))
    timer_at = models.DateTimeField(null=True, blank=True, verbose_name=_("timer due at"))
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PLAYING, verbose_name=_("status")
    )
    result = models.JSONField(null=True, blank=True, verbose_name=_("result"))
    # Ended, not yet settled and its table not yet opened (services.hand_wrap_up).
    awaiting_wrap_up = models.BooleanField(default=False, verbose_name=_("awaiting wrap-up"))
    # Counts the changes of the table's seats during the hand (who sits, bot, 托管, shown hand),
    # bumped by a database trigger (migration 0007), so that a move made against seats kept in
    # memory (games/services/optimistic.py) is refused by its own UPDATE when they changed.
    seats_rev = models.PositiveIntegerField(default=0, verbose_name=_("seat changes"))
    started_at = models.DateTimeField(auto_now_add=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="hand_unique_number"),
        ]
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        indexes = [
            models.Index(fields=["status", "deadline"]),
            models.Index(fields=["-finished_at"]),
            models.Index(
                fields=["awaiting_wrap_up"],
                condition=models.Q(awaiting_wrap_up=True),
                name="hand_awaiting_wrap_up",
            ),
        ]

    def __str__(self) -> str:
        return _("hand %(hand)s (match %(match)s, hand %(number)s)") % {
            "hand": self.pk,
            "match": self.match_id,
            "number": self.number,
        }


class HandPlayer(models.Model):
    """Who sat where in one hand, and how much of it the bot played for them."""

    hand = models.ForeignKey(
        Hand, on_delete=models.CASCADE, related_name="players", verbose_name=_("hand")
    )
    seat = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="hand_seats",
        verbose_name=_("player"),
    )
    turns = models.PositiveIntegerField(default=0, verbose_name=_("turns"))
    auto_turns = models.PositiveIntegerField(default=0, verbose_name=_("turns played by the bot"))
    escaped = models.BooleanField(default=False, verbose_name=_("escaped"))
    absent_at_end = models.BooleanField(default=False, verbose_name=_("absent at the end"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="handplayer_unique_seat"),
        ]
        indexes = [models.Index(fields=["user", "hand"])]
        verbose_name = _("hand player")
        verbose_name_plural = _("hand players")

    def __str__(self) -> str:
        return _("hand %(hand)s, seat %(seat)s") % {"hand": self.hand_id, "seat": self.seat}


class Action(models.Model):
    """One move of the log, append-only: (hand, seq) is unique and rows are never updated."""

    hand = models.ForeignKey(
        Hand, on_delete=models.CASCADE, related_name="actions", verbose_name=_("hand")
    )
    seq = models.PositiveIntegerField(verbose_name=_("seq"))
    seat = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("seat"))
    text = models.CharField(max_length=200, verbose_name=_("text"))
    auto = models.BooleanField(default=False, verbose_name=_("automatic"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "seq"], name="action_unique_seq"),
        ]
        ordering = ["hand", "seq"]
        verbose_name = _("move")
        verbose_name_plural = _("moves")

    def __str__(self) -> str:
        return _("move %(seq)s of hand %(hand)s") % {"seq": self.seq, "hand": self.hand_id}


class SeatConnection(models.Model):
    """One open socket of a seated player; none left means the player is away."""

    seat = models.ForeignKey(
        Seat, on_delete=models.CASCADE, related_name="connections", verbose_name=_("seat")
    )
    channel_name = models.CharField(max_length=200, unique=True, verbose_name=_("channel"))
    last_seen = models.DateTimeField(verbose_name=_("last seen"))

    class Meta:
        verbose_name = _("seat connection")
        verbose_name_plural = _("seat connections")

    def __str__(self) -> str:
        return self.channel_name


class ChatLine(models.Model):
    """A table's chat: players' lines and system lines (bids, failed throws, takeovers …)."""

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="chat_lines", verbose_name=_("table")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("player"),
    )
    system = models.BooleanField(default=False, verbose_name=_("system line"))
    text = models.CharField(max_length=200, verbose_name=_("text"))
    code = models.CharField(
        max_length=32,
        blank=True,
        help_text=_("system lines: the kind, shown in the reader's words"),
        verbose_name=_("code"),
    )
    params = models.JSONField(
        default=list,
        blank=True,
        help_text=_("system lines: the parts"),
        verbose_name=_("parameters"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        indexes = [models.Index(fields=["table", "-created_at"])]
        verbose_name = _("chat line")
        verbose_name_plural = _("chat lines")

    def __str__(self) -> str:
        """A system line in the reader's language, a player's line as written."""
        if not self.system:
            return self.text
        params = self.params if isinstance(self.params, list) else []
        return chat_words.system_line_text(self.code, params, self.text)


class AdminLog(models.Model):
    """Every admin action on tables and seats, append-only."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("staff member"),
    )
    table = models.ForeignKey(
        Table, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("table")
    )
    action = models.CharField(max_length=40, verbose_name=_("action"))
    detail = models.JSONField(default=dict, verbose_name=_("detail"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("admin log entry")
        verbose_name_plural = _("admin log")

    def __str__(self) -> str:
        return _("admin log entry %(entry)s") % {"entry": self.pk}


class QueueEntry(models.Model):
    """A player waiting for a ranked quick match (games/matchmaking.py); one row per player.

    The matcher locks these rows (``select_for_update(skip_locked=True)``) while it seats them,
    so two matchers never take the same player.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="queue_entry",
        verbose_name=_("player"),
    )
    rating = models.FloatField(
        help_text=_("the player's rating ordinal when joining"), verbose_name=_("rating")
    )
    joined_at = models.DateTimeField(
        help_text=_("the wait is counted from here"), verbose_name=_("joined at")
    )
    last_seen = models.DateTimeField(
        help_text=_("the player's page last asked for the queue"), verbose_name=_("last seen")
    )

    class Meta:
        indexes = [models.Index(fields=["joined_at"])]
        verbose_name = _("queue entry")
        verbose_name_plural = _("queue entries")

    def __str__(self) -> str:
        return _("%(user)s waiting since %(time)s") % {
            "user": self.user_id,
            "time": f"{self.joined_at:%H:%M:%S}",
        }


class QuickMatch(models.Model):
    """Four players seated by quick match: who, their ratings and how long each waited."""

    table = models.ForeignKey(
        Table,
        null=True,
        on_delete=models.SET_NULL,
        related_name="quick_matches",
        verbose_name=_("table"),
    )
    players = models.JSONField(help_text=_("user id per seat"), verbose_name=_("players"))
    ratings = models.JSONField(help_text=_("rating ordinal per seat"), verbose_name=_("ratings"))
    waits = models.JSONField(
        help_text=_("seconds each seat's player waited"), verbose_name=_("waits")
    )
    gap = models.FloatField(
        help_text=_("the rating gap accepted when they were matched"), verbose_name=_("rating gap")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        indexes = [models.Index(fields=["-created_at"])]
        verbose_name = _("quick match")
        verbose_name_plural = _("quick matches")

    def __str__(self) -> str:
        return _("quick match %(match)s (table %(table)s)") % {
            "match": self.pk,
            "table": self.table_id,
        }
