"""Admin of the ladder: everything read-only. Points change only through an adjustment, which
is a ledger entry with a reason (`ladder_points_adjust`); a balance is never edited."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.admin_readonly import ReadOnlyAdmin
from ladder.errors import ApplicationError
from ladder.models import HandSettlement, LadderProfile, LedgerEntry, RatingChange
from ladder.services import ladder_points_adjust


class AdjustForm(forms.Form):
    account = forms.ChoiceField(label=gettext_lazy("Account"), choices=LedgerEntry.Account.choices)
    amount = forms.IntegerField(
        label=gettext_lazy("Amount"),
        help_text=gettext_lazy("positive adds, negative takes away; never below 0"),
    )
    reason = forms.CharField(label=gettext_lazy("Reason"), max_length=200)


@admin.register(LadderProfile)
class LadderProfileAdmin(ReadOnlyAdmin):
    list_display = (
        "user", "title_points", "balance", "rating_ordinal", "rating_provisional",
        "hands_played", "listed",
    )  # fmt: skip
    list_filter = ("listed", "rating_provisional")
    search_fields = ("user__username", "user__display_name")
    readonly_fields = ("adjust_link", "relief_grants")

    def get_fields(self, request: HttpRequest, obj: object = None) -> list[str]:  # type: ignore[override]
        return ["adjust_link", "relief_grants", *[f.name for f in LadderProfile._meta.fields]]

    @admin.display(description=gettext_lazy("daily relief grants"))
    def relief_grants(self, obj: LadderProfile) -> str:
        """How often the player had the daily relief grant, linked to those ledger rows."""
        count = LedgerEntry.objects.filter(user_id=obj.user_id, kind=LedgerEntry.Kind.RELIEF)
        url = reverse("admin:ladder_ledgerentry_changelist")
        query = f"?user__id__exact={obj.user_id}&kind__exact=relief"
        label = _("%(n)s relief grant(s)") % {"n": count.count()}
        return format_html('<a href="{}{}">{}</a>', url, query, label)

    @admin.display(description=gettext_lazy("adjustment"))
    def adjust_link(self, obj: LadderProfile) -> str:
        url = reverse("admin:ladder_ladderprofile_adjust", args=[obj.pk])
        label = _("Adjust points (with a reason)")
        return format_html('<a class="button" href="{}">{}</a>', url, label)

    def get_urls(self) -> list[URLPattern]:
        extra = [
            path(
                "<int:object_id>/adjust/",  # not a number: 404, not a 500 from the lookup
                self.admin_site.admin_view(self.adjust_view),
                name="ladder_ladderprofile_adjust",
            )
        ]
        return extra + super().get_urls()

    def adjust_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        if not request.user.has_perm("ladder.add_ledgerentry"):
            raise PermissionDenied
        profile = get_object_or_404(LadderProfile.objects.select_related("user"), pk=object_id)
        form = AdjustForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                entry = ladder_points_adjust(
                    user=profile.user,
                    account=form.cleaned_data["account"],
                    amount=form.cleaned_data["amount"],
                    reason=form.cleaned_data["reason"],
                    by=request.user,  # type: ignore[arg-type]
                )
            except ApplicationError as error:
                form.add_error(
                    None,
                    _("%(message)s (%(code)s)") % {"code": error.code, "message": error.message},
                )
            else:
                self.message_user(request, _adjusted_message(profile, entry), messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse("admin:ladder_ladderprofile_change", args=[profile.pk])
                )
        return TemplateResponse(
            request,
            "ladder/admin_adjust.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Adjust the points of %(player)s") % {"player": profile.user},
                "profile": profile,
                "form": form,
                "opts": self.model._meta,
            },
        )


def _adjusted_message(profile: LadderProfile, entry: LedgerEntry) -> str:
    return _("%(player)s: %(amount)s %(account)s (now %(balance)s).") % {
        "player": profile.user,
        "amount": f"{entry.amount:+d}",
        "account": entry.get_account_display(),
        "balance": entry.balance_after,
    }


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "id", "created_at", "user", "hand", "kind", "account", "amount", "balance_after", "reason",
    )  # fmt: skip
    list_filter = ("kind", "account")
    search_fields = ("user__username", "reason")
    list_select_related = ("user", "hand")
    raw_id_fields = ("user", "hand", "created_by")
    date_hierarchy = "created_at"


@admin.register(HandSettlement)
class HandSettlementAdmin(ReadOnlyAdmin):
    list_display = ("hand", "ranked", "practice", "settled_at")
    list_filter = ("ranked", "practice")
    raw_id_fields = ("hand",)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ("user", "hand", "ordinal_after", "sigma_after", "created_at")
    search_fields = ("user__username",)
    raw_id_fields = ("user", "hand")
