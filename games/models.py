"""Tables, seats, matches, hands and the append-only move log.

The database row of a hand is the authority: its engine snapshot and `seq` are only changed by
services under a row lock, and every acknowledged action is an `Action` row.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.engine import RuleSet, preset

SEATS = 4


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "open"
        PLAYING = "playing", "playing"
        CLOSED = "closed", "closed"

    name = models.CharField(max_length=60)
    preset = models.CharField(max_length=20, default="ranked")
    ranked = models.BooleanField(default=True)
    stake = models.PositiveIntegerField(default=100)
    min_balance = models.PositiveIntegerField(default=0)
    play_seconds = models.PositiveIntegerField(default=20, help_text="time per play")
    bury_seconds = models.PositiveIntegerField(default=30)
    bid_window_seconds = models.PositiveIntegerField(default=8)
    deal_interval_ms = models.PositiveIntegerField(default=100, help_text="pace of the deal")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_tables",
    )
    house_rules = models.JSONField(
        default=dict,
        blank=True,
        help_text="casual tables: rule options chosen on top of the preset (RULES.md §8)",
    )
    unlisted = models.BooleanField(
        default=False, help_text="casual tables: not in the lobby, joined by the invite link"
    )
    invite_code = models.CharField(max_length=32, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.preset})"

    def rules(self) -> RuleSet:
        """The rules in force: the preset, with the house rules on top (named
        ``<preset>+house`` when there are any, so a stored hand says it was not the preset)."""
        base = preset(self.preset)
        if not self.house_rules:
            return base
        return base.with_options(**self.house_rules, name=f"{self.preset}+house")


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    ready = models.BooleanField(default=False)
    connected = models.BooleanField(default=False)
    bot = models.BooleanField(default=False, help_text="the bot is playing this seat")
    disconnected_at = models.DateTimeField(null=True, blank=True)
    show_hand_to_spectators = models.BooleanField(
        default=False, help_text="casual tables: spectators watching this seat see its hand"
    )
    auto_ready = models.BooleanField(
        default=True, help_text="ready again by itself for the next hand of the match"
    )
    autopilot = models.BooleanField(
        default=False, help_text="托管: the player asked the bot to play for them"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="seat_unique_index"),
            models.CheckConstraint(condition=models.Q(index__lt=SEATS), name="seat_index_0_3"),
        ]
        ordering = ["table", "index"]

    def __str__(self) -> str:
        return f"{self.table_id}/{self.index}"


class Match(models.Model):
    """Hands played by the same four in succession, from level 2 (seed 000 §1.4)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="matches")
    ruleset = models.JSONField()
    levels = models.JSONField(help_text="level of each side: [seats 0&2, seats 1&3]")
    wrapped = models.JSONField(default=list)
    players = models.JSONField(default=list, help_text="user id per seat (null for a bot)")
    next_dealer = models.PositiveSmallIntegerField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"match {self.pk} at table {self.table_id}"


class Hand(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", "playing"
        FINISHED = "finished", "finished"
        ESCAPED = "escaped", "escaped"
        VOID = "void", "void"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    ruleset = models.JSONField()
    seed = models.BigIntegerField()
    dealer = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="dealer at the start; empty when bidding chooses"
    )
    levels = models.JSONField()
    wrapped = models.JSONField(default=list, help_text="each side past A already (wrap)")
    seq = models.PositiveIntegerField(default=0, help_text="number of actions applied")
    deal_started_at = models.DateTimeField(null=True, blank=True)
    snapshot = models.JSONField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    # The deadline task in flight: the seq it was sent with, and when it is due. A move whose
    # deadline is no earlier than it sends none (the task sends itself again when it finds the
    # deadline moved on): one task per clock period, not one per move.
    timer_seq = models.PositiveIntegerField(null=True, blank=True)
    timer_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    result = models.JSONField(null=True, blank=True)
    # Ended, not yet settled and its table not yet opened (services.hand_wrap_up).
    awaiting_wrap_up = models.BooleanField(default=False)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="hand_unique_number"),
        ]
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
        return f"hand {self.pk} (match {self.match_id} #{self.number})"


class HandPlayer(models.Model):
    """Who sat where in one hand, and how much of it the bot played for them."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="hand_seats",
    )
    turns = models.PositiveIntegerField(default=0)
    auto_turns = models.PositiveIntegerField(default=0)
    escaped = models.BooleanField(default=False)
    absent_at_end = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="handplayer_unique_seat"),
        ]
        indexes = [models.Index(fields=["user", "hand"])]

    def __str__(self) -> str:
        return f"hand {self.hand_id} seat {self.seat}"


class Action(models.Model):
    """One move of the log, append-only: (hand, seq) is unique and rows are never updated."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="actions")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    text = models.CharField(max_length=200)
    auto = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "seq"], name="action_unique_seq"),
        ]
        ordering = ["hand", "seq"]

    def __str__(self) -> str:
        return f"{self.hand_id}#{self.seq} {self.text}"


class SeatConnection(models.Model):
    """One open socket of a seated player; none left means the player is away."""

    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="connections")
    channel_name = models.CharField(max_length=200, unique=True)
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return self.channel_name


class ChatLine(models.Model):
    """A table's chat: players' lines and system lines (bids, failed throws, takeovers …)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_lines")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    system = models.BooleanField(default=False)
    text = models.CharField(max_length=200)
    code = models.CharField(
        max_length=32, blank=True, help_text="system lines: the kind, shown in the reader's words"
    )
    params = models.JSONField(default=list, blank=True, help_text="system lines: the parts")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["table", "-created_at"])]

    def __str__(self) -> str:
        return self.text


class AdminLog(models.Model):
    """Every admin action on tables and seats, append-only."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    table = models.ForeignKey(Table, null=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=40)
    detail = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.action} by {self.actor_id}"


class QueueEntry(models.Model):
    """A player waiting for a ranked quick match (games/matchmaking.py); one row per player.

    The matcher locks these rows (``select_for_update(skip_locked=True)``) while it seats them,
    so two matchers never take the same player.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_entry"
    )
    rating = models.FloatField(help_text="the player's rating ordinal when joining")
    joined_at = models.DateTimeField(help_text="the wait is counted from here")
    last_seen = models.DateTimeField(help_text="the player's page last asked for the queue")

    class Meta:
        indexes = [models.Index(fields=["joined_at"])]
        verbose_name_plural = "queue entries"

    def __str__(self) -> str:
        return f"{self.user_id} waiting since {self.joined_at:%H:%M:%S}"


class QuickMatch(models.Model):
    """Four players seated by quick match: who, their ratings and how long each waited."""

    table = models.ForeignKey(
        Table, null=True, on_delete=models.SET_NULL, related_name="quick_matches"
    )
    players = models.JSONField(help_text="user id per seat")
    ratings = models.JSONField(help_text="rating ordinal per seat")
    waits = models.JSONField(help_text="seconds each seat's player waited")
    gap = models.FloatField(help_text="the rating gap accepted when they were matched")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["-created_at"])]
        verbose_name_plural = "quick matches"

    def __str__(self) -> str:
        return f"quick match {self.pk} (table {self.table_id})"
