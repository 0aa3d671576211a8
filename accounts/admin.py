from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from rest_framework.authtoken.models import TokenProxy

from accounts.forms import AdminLoginForm, ReasonForm
from accounts.models import BanRecord, User
from accounts.services import user_ban, user_unban
from ladder.errors import ApplicationError

# An API token is a password: DRF's token admin lists every key (and names each token by its
# key), and a look at it is enough to act as anyone. Players make and replace their own tokens
# (/accounts/token/); a ban deletes them. No admin page for them.
admin.site.unregister(TokenProxy)
# Locked out after too many failed log-ins (games/ratelimits.py): the admin's form says so.
admin.site.login_form = AdminLoginForm


class BanRecordInline(admin.TabularInline):  # type: ignore[type-arg]
    model = BanRecord
    fk_name = "user"
    extra = 0
    can_delete = False
    fields = ("created_at", "banned", "reason", "by")
    readonly_fields = fields
    verbose_name_plural = "ban history"

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


def _with_reason(
    modeladmin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    users: QuerySet[User],
    *,
    verb: str,
    action: str,
) -> HttpResponse | None:
    """An action that asks for a reason on an intermediate page, then applies the service."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        service = user_ban if action == "ban_users" else user_unban
        done = 0
        for user in users:
            try:
                service(user=user, reason=form.cleaned_data["reason"], by=request.user)  # type: ignore[arg-type]
                done += 1
            except ApplicationError as error:
                modeladmin.message_user(
                    request, f"{user.username}: {error.message}", messages.ERROR
                )
        if done:
            ended = (
                " Their open sockets are closed and their seats left (an absence in a hand in"
                " progress); they are told the reason."
                if action == "ban_users"
                else ""
            )
            modeladmin.message_user(request, f"{verb}: {done} user(s).{ended}", messages.SUCCESS)
        return None
    return TemplateResponse(
        request,
        "accounts/admin_reason.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": f"{verb.capitalize()} users",
            "verb": verb,
            "action": action,
            "users": users,
            "form": form,
            "opts": modeladmin.model._meta,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        },
    )


@admin.register(User)
class UserAdmin(BaseUserAdmin):  # type: ignore[type-arg]
    fieldsets = (
        *(BaseUserAdmin.fieldsets or ()),
        ("Player", {"fields": ("display_name", "language")}),
        ("Ban", {"fields": ("banned_at", "ban_reason")}),
    )
    readonly_fields = ("banned_at", "ban_reason")
    list_display = (
        "username", "display_name", "email", "is_active", "banned_at", "is_staff", "date_joined",
    )  # fmt: skip
    list_filter = (*BaseUserAdmin.list_filter, "banned_at")
    inlines = [BanRecordInline]
    actions = ["ban_users", "unban_users"]

    # Staff who may only look at users must not ban them: the actions need the change right.
    @admin.action(description="Ban the selected users (asks for a reason)", permissions=["change"])
    def ban_users(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        return _with_reason(self, request, queryset, verb="banned", action="ban_users")

    @admin.action(
        description="Unban the selected users (asks for a reason)", permissions=["change"]
    )
    def unban_users(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        return _with_reason(self, request, queryset, verb="unbanned", action="unban_users")
