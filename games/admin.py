"""Admin of the live tables: tables with their live state, and two actions that go through the
services and are logged (``AdminLog``, plus Django's own history): close a table (the hand in
progress is void: no points move) and remove a player from a seat (not an escape). Everything
else is read-only; the move log (``Action``) is append-only and can be neither added, changed
nor deleted here."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from accounts.admin_readonly import ReadOnlyAdmin, ReadOnlyInline
from accounts.errors import ApplicationError
from games import chat_words, rules_words, services
from games.models import (
    MAX_SEATS,
    SEATS,
    Action,
    AdminLog,
    ChatLine,
    Hand,
    HandPlayer,
    Match,
    QueueEntry,
    QuickMatch,
    Seat,
    Table,
)
from shengji.engine.rules import MAX_DECKS, MIN_DECKS, default_decks


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=200,
        help_text=gettext_lazy("recorded in the admin log"),
    )


def _may_manage(request: HttpRequest) -> bool:
    return request.user.has_perm("games.change_table")


def _with_reason(
    modeladmin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    objects: Iterable[Any],
    *,
    action: str,
    title: str,
    apply: Callable[[Any, str], str],
) -> HttpResponse | None:
    """An admin action that asks for a reason on an intermediate page, then calls ``apply``
    (a service) for each object; refusals are shown with their code."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    objects = list(objects)
    if form.is_bound and form.is_valid():
        for obj in objects:
            try:
                done = apply(obj, form.cleaned_data["reason"])
            except ApplicationError as error:
                modeladmin.message_user(request, _refusal(obj, error), messages.ERROR)
            else:
                modeladmin.log_change(request, obj, done)
                modeladmin.message_user(
                    request,
                    _("%(table)s: %(done)s") % {"table": obj, "done": done},
                    messages.SUCCESS,
                )
        return None
    return TemplateResponse(
        request,
        "games/admin_confirm.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": title,
            "objects": objects,
            "form": form,
            "action": action,
            "opts": modeladmin.model._meta,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        },
    )


def _refusal(obj: object, error: ApplicationError) -> str:
    # The service's message in the page's language; the code is stable and shown as is.
    return _("%(object)s: %(message)s (%(code)s)") % {
        "object": obj,
        "code": error.code,
        "message": error.message,
    }


def _close(table: Table, actor: Any, reason: str) -> str:
    void = services.playing_hand_id(table_id=table.pk)
    services.table_close(table_id=table.pk, actor=actor, reason=reason)
    if void:
        return _("closed; hand %(hand)s is void") % {"hand": void}
    return _("closed")


def _remove(seat: Seat, actor: Any, reason: str) -> str:
    if seat.user_id is None:
        raise ApplicationError("not_seated", gettext_lazy("nobody sits there"))
    who = str(seat.user)
    services.seat_remove(table_id=seat.table_id, index=seat.index, actor=actor, reason=reason)
    return _("removed %(player)s from seat %(seat)s") % {"player": who, "seat": seat.index}


PHASES = {
    "dealing": pgettext_lazy("hand phase", "dealing"),
    "bidding": pgettext_lazy("hand phase", "bidding"),
    "burying": pgettext_lazy("hand phase", "burying"),
    "playing": pgettext_lazy("hand phase", "playing"),
    "finished": pgettext_lazy("hand phase", "finished"),
}


def _phase(code: str | None) -> str:
    return str(PHASES.get(code, code)) if code else "—"


def _snapshot_labels() -> tuple[tuple[str, str], ...]:
    """The live hand's snapshot keys shown on a table's page, with their labels."""
    return (
        ("to_act", _("to act")),
        ("level", _("level")),
        ("trump", _("trump")),
        ("tricks_played", _("tricks played")),
        ("attacker_points", _("attackers' points")),
    )


def _level_words(rank: object) -> str:
    """A level as players say it: 打5 / level 5 (T is written 10)."""
    return _("level {rank}").format(rank="10" if rank == "T" else rank)


def _snapshot_value(key: str, snapshot: dict[str, Any]) -> Any:
    """A snapshot value in words: the seat to act by compass, the level as 打N, the trump as
    "spades · 打2" (the table page's words)."""
    value = snapshot.get(key)
    if value is None:
        return _("trump not set yet") if key == "trump" else "—"
    if key == "to_act" and value in range(MAX_SEATS):
        return chat_words.seat_name(value, int(snapshot.get("players", SEATS)))
    if key == "level":
        return _level_words(value)
    if key == "trump" and isinstance(value, dict):
        suit = chat_words.suit_names().get(str(value.get("suit")), _("no trump"))
        return f"{suit} · {_level_words(value.get('level'))}"
    return value


# --- tables and seats ------------------------------------------------------------------------


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("index", "user", "ready", "bot", "connected", "disconnected_at", "remove")
    readonly_fields = fields

    @admin.display(description="")
    def remove(self, seat: Seat) -> str:
        if seat.user_id is None:
            return "—"
        url = reverse("admin:games_table_seat_remove", args=[seat.table_id, seat.index])
        return format_html('<a class="button" href="{}">{}</a>', url, _("Remove the player…"))


class PresetFilter(admin.SimpleListFilter):
    """The preset, by the name players know (not its code)."""

    title = gettext_lazy("rule preset")
    parameter_name = "preset"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return rules_words.preset_choices()

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return queryset.filter(preset=value) if value else queryset


class ModeFilter(admin.SimpleListFilter):
    """拖拉机 or 找朋友 (a house rule of the table: none is 拖拉机)."""

    title = gettext_lazy("mode")
    parameter_name = "mode"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(rules_words.mode_words().items())

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value == "friends":
            return queryset.filter(house_rules__mode="friends")
        if value == "tractor":
            return queryset.exclude(house_rules__mode="friends")
        return queryset


class DecksFilter(admin.SimpleListFilter):
    """The decks a table plays with: its house rule, else the default for its players
    (RULES-SPEC.md §9.1: 2 for 4–5, 3 for 6–7, 4 for 8)."""

    title = gettext_lazy("decks")
    parameter_name = "decks"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(decks), str(decks)) for decks in range(MIN_DECKS, MAX_DECKS + 1)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value or not value.isdigit():
            return queryset
        decks = int(value)
        by_default = [p for p in range(SEATS, MAX_SEATS + 1) if default_decks(p) == decks]
        chosen = Q(house_rules__decks=decks)
        default = ~Q(house_rules__has_key="decks") & Q(players__in=by_default)
        return queryset.filter(chosen | default)


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = (
        "id", "name", "status", "ranked", "rules", "players", "mode", "decks", "stake",
        "min_balance", "seats_summary", "hand_phase", "hand_seq", "hand_deadline", "created_at",
    )  # fmt: skip
    list_filter = ("status", "ranked", PresetFilter, "players", ModeFilter, DecksFilter)
    search_fields = ("name", "creator__username")
    inlines = [SeatInline]
    actions = ["close_tables"]
    readonly_fields = ("rules", "hand_summary")

    def get_fields(self, request: HttpRequest, obj: Table | None = None) -> list[str]:  # type: ignore[override]
        """The preset by its name (with its house rules), where the model has its code."""
        fields = [str(name) for name in super().get_fields(request, obj) if name != "rules"]
        return ["rules" if name == "preset" else name for name in fields]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        playing = Hand.objects.filter(
            match__table=OuterRef("pk"), status=Hand.Status.PLAYING
        ).order_by("-pk")
        tables: QuerySet[Table] = super().get_queryset(request)
        return tables.prefetch_related("seats__user").annotate(
            _hand_id=Subquery(playing.values("pk")[:1]),
            _hand_seq=Subquery(playing.values("seq")[:1]),
            _hand_deadline=Subquery(playing.values("deadline")[:1]),
            _hand_phase=Subquery(playing.values("snapshot__phase")[:1]),
        )

    def has_manage_permission(self, request: HttpRequest) -> bool:
        return _may_manage(request)

    @admin.display(description=gettext_lazy("rules"), ordering="preset")
    def rules(self, table: Table) -> str:
        return rules_words.preset_label(
            table.preset + (rules_words.HOUSE_SUFFIX if table.house_rules else "")
        )

    @admin.display(description=gettext_lazy("mode"))
    def mode(self, table: Table) -> str:
        return rules_words.mode_words()[table.rules().mode]

    @admin.display(description=gettext_lazy("decks"))
    def decks(self, table: Table) -> int:
        return table.rules().decks

    @admin.display(description=gettext_lazy("seats"))
    def seats_summary(self, table: Table) -> str:
        parts = []
        for seat in table.seats.all():
            who = "—" if seat.user is None else str(seat.user)
            if seat.bot:
                who = _("%(player)s (bot)") % {"player": who} if seat.user else _("bot")
            name = chat_words.seat_name(seat.index, table.players)
            parts.append(f"{name}: {who}{' ✓' if seat.ready else ''}")
        return " · ".join(parts)

    @admin.display(description=gettext_lazy("phase"))
    def hand_phase(self, table: Table) -> str:
        return _phase(getattr(table, "_hand_phase", None))

    @admin.display(description=gettext_lazy("actions applied"))
    def hand_seq(self, table: Table) -> Any:
        seq = getattr(table, "_hand_seq", None)
        return "—" if seq is None else seq

    @admin.display(description=gettext_lazy("deadline"))
    def hand_deadline(self, table: Table) -> Any:
        return getattr(table, "_hand_deadline", None) or "—"

    @admin.display(description=gettext_lazy("hand in progress"))
    def hand_summary(self, table: Table) -> str:
        hand = (
            Hand.objects.filter(match__table=table, status=Hand.Status.PLAYING)
            .order_by("-pk")
            .first()
        )
        if hand is None:
            return "—"
        snapshot = hand.snapshot or {}
        url = reverse("admin:games_hand_change", args=[hand.pk])
        rows = [
            (_("hand"), format_html('<a href="{}">{}</a>', url, hand)),
            (_("actions applied"), hand.seq),
            (_("deadline"), hand.deadline or "—"),
            (_("phase"), _phase(snapshot.get("phase"))),
            *((label, _snapshot_value(key, snapshot)) for key, label in _snapshot_labels()),
        ]
        return format_html("<dl>{}</dl>", format_html_join("", "<dt>{}</dt><dd>{}</dd>", rows))

    @admin.action(
        description=gettext_lazy("Close the selected tables (asks for a reason)"),
        permissions=["manage"],
    )
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        return _with_reason(
            self,
            request,
            queryset.exclude(status=Table.Status.CLOSED),
            action="close_tables",
            title=_("Close tables: a hand in progress is void and no points move"),
            apply=lambda table, reason: _close(table, request.user, reason),
        )

    def get_urls(self) -> list[URLPattern]:
        extra = [
            path(
                "<int:table_id>/seats/<int:index>/remove/",
                self.admin_site.admin_view(self.seat_remove_view),
                name="games_table_seat_remove",
            )
        ]
        return extra + super().get_urls()

    def seat_remove_view(self, request: HttpRequest, table_id: int, index: int) -> HttpResponse:
        """Remove the player of one seat, with a reason (not an escape: the bot finishes the
        hand for the seat, and the player is settled as if present)."""
        if not _may_manage(request):
            raise PermissionDenied
        seats = Seat.objects.select_related("user", "table")
        seat = get_object_or_404(seats, table_id=table_id, index=index)
        back = reverse("admin:games_table_change", args=[table_id])
        form = ReasonForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                done = _remove(seat, request.user, form.cleaned_data["reason"])
            except ApplicationError as error:
                form.add_error(None, _refusal(seat, error))
            else:
                self.log_change(request, seat.table, done)
                self.message_user(
                    request,
                    _("%(table)s: %(done)s") % {"table": seat.table, "done": done},
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(back)
        return TemplateResponse(
            request,
            "games/admin_confirm.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Remove %(player)s from seat %(seat)s of %(table)s")
                % {"player": seat.user or _("nobody"), "seat": index, "table": seat.table},
                "objects": [seat],
                "form": form,
                "action": None,
                "back": back,
                "opts": self.model._meta,
            },
        )


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "index", "user", "ready", "bot", "connected", "disconnected_at")
    list_filter = ("bot", "ready", "connected", "table__status")
    search_fields = ("user__username", "table__name")
    list_select_related = ("table", "user")
    actions = ["remove_players"]

    def has_manage_permission(self, request: HttpRequest) -> bool:
        return _may_manage(request)

    @admin.action(
        description=gettext_lazy("Remove the players from the selected seats (asks for a reason)"),
        permissions=["manage"],
    )
    def remove_players(self, request: HttpRequest, queryset: QuerySet[Seat]) -> HttpResponse | None:
        return _with_reason(
            self,
            request,
            queryset.select_related("table", "user"),
            action="remove_players",
            title=_(
                "Remove players: not an escape; during a hand the bot finishes it for the seat"
            ),
            apply=lambda seat, reason: _remove(seat, request.user, reason),
        )


# --- hands, the move log, chat, the admin log -------------------------------------------------


class HandPlayerInline(ReadOnlyInline):
    model = HandPlayer
    fields = ("seat", "user", "turns", "auto_turns", "escaped", "absent_at_end")
    readonly_fields = fields


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = (
        "id", "table", "match", "number", "status", "seq", "phase", "deadline", "started_at",
        "finished_at",
    )  # fmt: skip
    list_filter = ("status",)
    list_select_related = ("match__table",)
    search_fields = ("match__table__name",)
    inlines = [HandPlayerInline]
    date_hierarchy = "started_at"

    def get_fields(self, request: HttpRequest, obj: Hand | None = None) -> list[str]:  # type: ignore[override]
        fields = ["actions_link", *(f.name for f in Hand._meta.fields)]
        if obj is not None and obj.status == Hand.Status.PLAYING:
            fields.remove("seed")  # the seed deals every card: not shown while the hand is played
        return fields

    def get_readonly_fields(self, request: HttpRequest, obj: Hand | None = None) -> list[str]:
        return self.get_fields(request, obj)

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        # Filtering on the seed (seed__lt=… by halves) would recover a live hand's deal.
        if "seed" in lookup:
            return False
        return super().lookup_allowed(lookup, value, request)

    @admin.display(description=gettext_lazy("table"))
    def table(self, hand: Hand) -> Table:
        return hand.match.table

    @admin.display(description=gettext_lazy("phase"))
    def phase(self, hand: Hand) -> str:
        return _phase((hand.snapshot or {}).get("phase"))

    @admin.display(description=gettext_lazy("move log"))
    def actions_link(self, hand: Hand) -> str:
        url = reverse("admin:games_action_changelist") + f"?hand__id__exact={hand.pk}"
        return format_html('<a href="{}">{}</a>', url, _("%(n)s actions") % {"n": hand.seq})


@admin.register(Action)
class ActionAdmin(ReadOnlyAdmin):
    """Append-only: no add, change or delete."""

    list_display = ("hand", "seq", "seat", "text", "auto", "created_at")
    list_filter = ("auto",)
    search_fields = ("text",)
    raw_id_fields = ("hand",)
    list_select_related = ("hand",)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return {}  # not even the bulk delete

    def get_queryset(self, request: HttpRequest) -> QuerySet[Action]:
        # A live hand's log holds the buried kitty and rejected throws: shown once it is over.
        return super().get_queryset(request).exclude(hand__status=Hand.Status.PLAYING)

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if "seed" in lookup:
            return False
        return super().lookup_allowed(lookup, value, request)


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "levels", "players", "started_at", "ended_at", "winner_side")
    list_select_related = ("table",)


@admin.register(ChatLine)
class ChatLineAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "table", "user", "system", "line")

    fields = ("created_at", "table", "user", "system", "line")
    readonly_fields = fields

    @admin.display(description=gettext_lazy("text"), ordering="text")
    def line(self, chat_line: ChatLine) -> str:
        """A system line in the admin's language, a player's line as written."""
        return str(chat_line)

    list_filter = ("system",)
    search_fields = ("text", "user__username", "table__name")
    list_select_related = ("table", "user")
    raw_id_fields = ("table", "user")
    date_hierarchy = "created_at"


ADMIN_ACTIONS = {
    "table_close": gettext_lazy("table closed"),
    "seat_remove": gettext_lazy("player removed"),
}
ADMIN_DETAILS = {
    "reason": gettext_lazy("reason"),
    "void_hand": gettext_lazy("void hand"),
    "seat": gettext_lazy("seat"),
    "user": gettext_lazy("player"),
}


@admin.register(AdminLog)
class AdminLogAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor", "what", "table", "details")
    fields = list_display
    readonly_fields = list_display

    @admin.display(description=gettext_lazy("action"), ordering="action")
    def what(self, log: AdminLog) -> str:
        return str(ADMIN_ACTIONS.get(log.action, log.action))

    @admin.display(description=gettext_lazy("detail"))
    def details(self, log: AdminLog) -> str:
        parts = (
            f"{ADMIN_DETAILS.get(key, key)}: {'—' if value is None else value}"
            for key, value in (log.detail or {}).items()
        )
        return " · ".join(parts)

    list_filter = ("action",)
    search_fields = ("actor__username", "table__name")
    list_select_related = ("actor", "table")
    date_hierarchy = "created_at"


@admin.register(QueueEntry)
class QueueEntryAdmin(ReadOnlyAdmin):
    list_display = ("user", "rating", "joined_at", "last_seen")
    list_select_related = ("user",)


@admin.register(QuickMatch)
class QuickMatchAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "players", "ratings", "waits", "gap", "created_at")
    list_select_related = ("table",)
