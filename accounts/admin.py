from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.admin import GroupAdmin as BaseGroupAdmin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework.authtoken.models import TokenProxy

from accounts.admin_words import TranslatedPermissions
from accounts.errors import ApplicationError
from accounts.forms import AdminLoginForm, ReasonForm
from accounts.models import BanRecord, User
from accounts.services import user_ban, user_unban

# An API token is a password: DRF's token admin lists every key (and names each token by its
# key), and a look at it is enough to act as anyone. Players make and replace their own tokens
# (/accounts/token/); a ban deletes them. No admin page for them.
admin.site.unregister(TokenProxy)
# Locked out after too many failed log-ins (accounts/logins.py): the admin's form says so.
admin.site.login_form = AdminLoginForm
# Groups as Django has them, their permissions named in the admin's language.
admin.site.unregister(Group)


@admin.register(Group)
class GroupAdmin(TranslatedPermissions, BaseGroupAdmin):
    pass


class BanRecordInline(admin.TabularInline):  # type: ignore[type-arg]
    model = BanRecord
    fk_name = "user"
    extra = 0
    can_delete = False
    fields = ("created_at", "banned", "reason", "by")
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("ban history")

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


def _done_message(banning: bool, done: int) -> str:
    if banning:
        return _(
            "Users banned: %(n)s. Their open sockets are closed and their seats left (an absence"
            " in a hand in progress); they are told the reason."
        ) % {"n": done}
    return _("Users unbanned: %(n)s.") % {"n": done}


def _with_reason(
    modeladmin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    users: QuerySet[User],
    *,
    action: str,
) -> HttpResponse | None:
    """An action that asks for a reason on an intermediate page, then applies the service."""
    banning = action == "ban_users"
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        service = user_ban if banning else user_unban
        done = 0
        for user in users:
            try:
                service(user=user, reason=form.cleaned_data["reason"], by=request.user)  # type: ignore[arg-type]
                done += 1
            except ApplicationError as error:
                modeladmin.message_user(
                    request,
                    _("%(object)s: %(message)s (%(code)s)")
                    % {"object": user.username, "code": error.code, "message": error.message},
                    messages.ERROR,
                )
        if done:
            modeladmin.message_user(request, _done_message(banning, done), messages.SUCCESS)
        return None
    return TemplateResponse(
        request,
        "accounts/admin_reason.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": _("Ban users") if banning else _("Unban users"),
            "banning": banning,
            "action": action,
            "users": users,
            "form": form,
            "opts": modeladmin.model._meta,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        },
    )


@admin.register(User)
class UserAdmin(TranslatedPermissions, BaseUserAdmin):  # type: ignore[type-arg]
    fieldsets = (
        *(BaseUserAdmin.fieldsets or ()),
        (gettext_lazy("Player"), {"fields": ("display_name", "language")}),
        (gettext_lazy("Ban"), {"fields": ("banned_at", "ban_reason")}),
    )
    readonly_fields = ("banned_at", "ban_reason")
    list_display = (
        "username", "display_name", "email", "is_active", "banned_at", "is_staff", "date_joined",
    )  # fmt: skip
    list_filter = (*BaseUserAdmin.list_filter, "banned_at")
    inlines = [BanRecordInline]
    actions = ["ban_users", "unban_users"]

    # Staff who may only look at users must not ban them: the actions need the change right.
    @admin.action(
        description=gettext_lazy("Ban the selected users (asks for a reason)"),
        permissions=["change"],
    )
    def ban_users(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        return _with_reason(self, request, queryset, action="ban_users")

    @admin.action(
        description=gettext_lazy("Unban the selected users (asks for a reason)"),
        permissions=["change"],
    )
    def unban_users(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        return _with_reason(self, request, queryset, action="unban_users")
