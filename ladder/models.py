"""The ladder: an append-only ledger of table points and title points, each user's standing
(balances denormalised from the ledger, rating, counters), settled hands and rating changes.

Balances are what the ledger sums to: they change only in `ladder.services`, in the same
transaction that appends the ledger rows, and `manage.py ladder_check` proves it for every user.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ladder.rating import MODEL
from ladder.titles import Title, title_for
from shengji import settlement


class LadderProfile(models.Model):
    """A user's standing. `balance` and `title_points` always equal the sums of their ledger."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="ladder",
        verbose_name=_("player"),
    )
    balance = models.BigIntegerField(_("table points"), default=0)
    title_points = models.IntegerField(_("title points"), default=0)
    rating_mu = models.FloatField(default=MODEL.mu, verbose_name=_("rating μ"))
    rating_sigma = models.FloatField(default=MODEL.sigma, verbose_name=_("rating σ"))
    rating_ordinal = models.FloatField(_("skill rating"), default=MODEL.mu - 3 * MODEL.sigma)
    rating_provisional = models.BooleanField(default=True, verbose_name=_("provisional rating"))
    rated_hands = models.PositiveIntegerField(default=0, verbose_name=_("rated hands"))
    hands_played = models.PositiveIntegerField(default=0, verbose_name=_("hands played"))
    hands_won = models.PositiveIntegerField(default=0, verbose_name=_("hands won"))
    escapes = models.PositiveIntegerField(default=0, verbose_name=_("escapes"))
    last_played_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last played at"))
    listed = models.BooleanField(
        default=True,
        help_text=_("shown on the leaderboards (off while the user is banned)"),
        verbose_name=_("listed"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("ladder profile")
        verbose_name_plural = _("ladder profiles")
        constraints = [
            models.CheckConstraint(condition=Q(balance__gte=0), name="ladder_balance_not_negative"),
            models.CheckConstraint(
                condition=Q(title_points__gte=0), name="ladder_title_points_not_negative"
            ),
        ]
        indexes = [
            models.Index(
                fields=["-title_points", "user"],
                name="ladder_board_title",
                condition=Q(listed=True),
            ),
            models.Index(
                fields=["-balance", "user"], name="ladder_board_points", condition=Q(listed=True)
            ),
            models.Index(
                fields=["-rating_ordinal", "user"],
                name="ladder_board_rating",
                condition=Q(listed=True, rating_provisional=False),
                include=["last_played_at"],
            ),
        ]

    def __str__(self) -> str:
        return _("ladder of %(player)s") % {"player": self.user}

    @property
    def title(self) -> Title:
        return title_for(self.title_points)

    @property
    def win_rate(self) -> float | None:
        return self.hands_won / self.hands_played if self.hands_played else None


class LedgerEntry(models.Model):
    """One append-only movement of a user's (or, with no user, the house's) points.

    Unique per (hand, user, kind): a hand can never be settled twice. A database trigger refuses
    every UPDATE and DELETE (migration 0002).
    """

    class Kind(models.TextChoices):
        GRANT = "grant", _("sign-up grant")
        RELIEF = "relief", _("daily relief grant")
        TABLE_POINTS = settlement.TABLE_POINTS, _("hand result")
        BONUS = settlement.BONUS, _("level bonus")
        ESCAPE_COMPENSATION = settlement.ESCAPE_COMPENSATION, _("escape compensation")
        ESCAPE_PENALTY = settlement.ESCAPE_PENALTY, _("escape penalty")
        FEE = settlement.FEE, _("table fee")
        SERVICE_FEE = settlement.SERVICE_FEE, _("service fee")
        BOT_SEAT = settlement.BOT_SEAT, _("bot seat")
        WAIVED = settlement.WAIVED, _("waived")
        SHORTFALL = settlement.SHORTFALL, _("shortfall")
        TITLE_POINTS = settlement.TITLE_POINTS, _("title points")
        ADMIN_ADJUST = "admin_adjust", _("adjustment")
        TITLE_ADJUST = "title_adjust", _("title adjustment")
        NO_SHOW = settlement.NO_SHOW, _("quick-match no-show")

    class Account(models.TextChoices):
        TABLE = "table", _("table points")
        TITLE = "title", _("title points")

    TITLE_KINDS = (Kind.TITLE_POINTS, Kind.TITLE_ADJUST)
    ADJUST_KINDS = (Kind.ADMIN_ADJUST, Kind.TITLE_ADJUST)
    HANDLESS_KINDS = (Kind.GRANT, Kind.RELIEF, Kind.ADMIN_ADJUST, Kind.TITLE_ADJUST, Kind.NO_SHOW)
    # Where table points enter the ladder (docs/LADDER.md, "Invariants"); staff adjustments
    # (with a reason) are the only other hand-less rows.
    SOURCE_KINDS = (Kind.GRANT, Kind.RELIEF)

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_entries",
        help_text=_("empty: the house"),
        verbose_name=_("player"),
    )
    hand = models.ForeignKey(
        "games.Hand",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_entries",
        verbose_name=_("hand"),
    )
    kind = models.CharField(max_length=24, choices=Kind.choices, verbose_name=_("kind"))
    account = models.CharField(max_length=8, choices=Account.choices, verbose_name=_("account"))
    amount = models.BigIntegerField(verbose_name=_("amount"))
    balance_after = models.BigIntegerField(null=True, blank=True, verbose_name=_("balance after"))
    reason = models.CharField(max_length=200, blank=True, verbose_name=_("reason"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("staff member"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        constraints = [
            models.UniqueConstraint(
                fields=["hand", "user", "kind"], name="ledger_unique_hand_user_kind"
            ),
            models.UniqueConstraint(
                fields=["hand", "kind"],
                condition=Q(user__isnull=True),
                name="ledger_unique_house_hand_kind",
            ),
            models.UniqueConstraint(
                fields=["user"], condition=Q(kind="grant"), name="ledger_one_grant_per_user"
            ),
            models.CheckConstraint(condition=~Q(amount=0), name="ledger_amount_not_zero"),
            models.CheckConstraint(
                condition=Q(user__isnull=True, balance_after__isnull=True)
                | Q(user__isnull=False, balance_after__isnull=False),
                name="ledger_balance_after_iff_user",
            ),
            models.CheckConstraint(
                condition=Q(account="title", kind__in=["title_points", "title_adjust"])
                | (Q(account="table") & ~Q(kind__in=["title_points", "title_adjust"])),
                name="ledger_account_matches_kind",
            ),
            models.CheckConstraint(
                condition=Q(hand__isnull=False)
                | Q(kind__in=["grant", "relief", "admin_adjust", "title_adjust", "no_show"]),
                name="ledger_hand_kinds_have_hand",
            ),
            models.CheckConstraint(
                condition=~Q(kind="no_show")
                | Q(amount__lt=0, hand__isnull=True, user__isnull=False),
                name="ledger_no_show_is_a_charge",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=["admin_adjust", "title_adjust"]) | ~Q(reason=""),
                name="ledger_adjust_has_reason",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=["grant", "relief"]) | Q(amount__gt=0, hand__isnull=True),
                name="ledger_grants_are_positive",
            ),
        ]
        indexes = [models.Index(fields=["user", "account", "id"], name="ledger_user_history")]

    def __str__(self) -> str:
        return _("%(player)s %(kind)s %(amount)s (hand %(hand)s)") % {
            "player": self.user_id or _("house"),
            "kind": self.get_kind_display(),
            "amount": f"{self.amount:+d}",
            "hand": self.hand_id or "—",
        }


class HandSettlement(models.Model):
    """Marks a hand as settled, with every input of the arithmetic (fees included), and whether
    it was practice (a bot seated at its start: no ledger rows, no rating changes)."""

    hand = models.OneToOneField(
        "games.Hand",
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="settlement",
        verbose_name=_("hand"),
    )
    outcome = models.JSONField(verbose_name=_("outcome"))
    ranked = models.BooleanField(
        help_text=_("title points and ratings moved (a ranked table)"), verbose_name=_("ranked")
    )
    practice = models.BooleanField(
        default=False,
        help_text=_("a bot sat at the hand's start: nothing moved for anyone"),
        verbose_name=_("practice"),
    )
    settled_at = models.DateTimeField(default=timezone.now, verbose_name=_("settled at"))

    class Meta:
        verbose_name = _("hand settlement")
        verbose_name_plural = _("hand settlements")

    def __str__(self) -> str:
        return _("settlement of hand %(hand)s") % {"hand": self.hand_id}


class RatingChange(models.Model):
    """A user's rating before and after one hand (the history the profile chart draws)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="rating_changes",
        verbose_name=_("player"),
    )
    hand = models.ForeignKey(
        "games.Hand",
        on_delete=models.PROTECT,
        related_name="rating_changes",
        verbose_name=_("hand"),
    )
    mu_before = models.FloatField(verbose_name=_("μ before"))
    sigma_before = models.FloatField(verbose_name=_("σ before"))
    mu_after = models.FloatField(verbose_name=_("μ after"))
    sigma_after = models.FloatField(verbose_name=_("σ after"))
    ordinal_after = models.FloatField(verbose_name=_("rating after"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "user"], name="rating_change_unique_hand_user")
        ]
        indexes = [models.Index(fields=["user", "id"], name="rating_change_user_history")]
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")

    def __str__(self) -> str:
        return _("%(player)s: rating %(rating)s after hand %(hand)s") % {
            "player": self.user_id,
            "rating": f"{self.ordinal_after:.2f}",
            "hand": self.hand_id,
        }


class ReliefClaim(models.Model):
    """Where a daily relief grant was claimed from: the client's network address (an IPv4
    address, or an IPv6 address's /64) and the site's day, so that the grants to the accounts
    of one address are bounded per day (`SHENGJI_RELIEF_PER_IP_PER_DAY`; docs/LADDER.md,
    "Relief per address"). ``address`` is empty for a grant made with no client (staff, the
    shell) and for the grants made before addresses were kept. Append-only (migration 0007)."""

    entry = models.OneToOneField(
        LedgerEntry,
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="relief_claim",
        verbose_name=_("ledger entry"),
    )
    address = models.CharField(max_length=64, blank=True, verbose_name=_("network address"))
    day = models.DateField(verbose_name=_("day"))

    class Meta:
        indexes = [models.Index(fields=["address", "day"], name="relief_claim_address_day")]
        verbose_name = _("relief claim")
        verbose_name_plural = _("relief claims")

    def __str__(self) -> str:
        return f"{self.entry_id} {self.address or '—'} {self.day}"
