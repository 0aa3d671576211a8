"""Words of Django's own admin, and of other packages' models, that their Chinese catalogues
lack. Marked here so that ``makemessages`` keeps them in ours: the project's catalogue
(LOCALE_PATHS) comes before theirs. And the permission names, which Django stores in English."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.db.models import ManyToManyField
from django.forms import ModelMultipleChoiceField
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext_lazy

DJANGO_ADMIN_WORDS = (
    gettext_noop("Model name"),
    gettext_noop("Add link"),
    gettext_noop("Change or view list link"),
)

# Django's own validators' words its zh_Hans catalogue lacks: it still holds an older wording of
# the too-short password (``%(min_length)d``), so the sign-up page showed Django's English.
DJANGO_VALIDATOR_WORDS = (
    ngettext_lazy(
        "This password is too short. It must contain at least %d character.",
        "This password is too short. It must contain at least %d characters.",
        8,
    ),
)

# Names of other packages' models and apps that their own catalogues lack in Chinese, so the
# admin (its permission lists, its index) shows them in the admin's language.
THIRD_PARTY_WORDS = (
    gettext_noop("Axes"),
    gettext_noop("access attempt"),
    gettext_noop("access attempts"),
    gettext_noop("access attempt expiration"),
    gettext_noop("access attempt expirations"),
    gettext_noop("access failure"),
    gettext_noop("access failures"),
    gettext_noop("access log"),
    gettext_noop("access logs"),
    gettext_noop("Auth Token"),
    gettext_noop("Token"),
    gettext_noop("Tokens"),
    gettext_noop("Sessions"),
    gettext_noop("session"),
    gettext_noop("sessions"),
)

# Django stores its permissions' names in English ("Can add user"); the admin shows them so.
_PERMISSION_ACTIONS = {
    "add": gettext_lazy("Can add %(thing)s"),
    "change": gettext_lazy("Can change %(thing)s"),
    "delete": gettext_lazy("Can delete %(thing)s"),
    "view": gettext_lazy("Can view %(thing)s"),
}


def permission_label(permission: Permission) -> str:
    """A permission in the admin's language: "app | model | can add model", as Django lays it
    out, with each part translated (a permission of another kind keeps its stored name)."""
    model = permission.content_type.model_class()
    action = permission.codename.split("_", 1)[0]
    if model is None or action not in _PERMISSION_ACTIONS:
        return str(permission)
    meta = model._meta
    app = apps.get_app_config(meta.app_label).verbose_name
    thing = _(str(meta.verbose_name))
    return f"{_(str(app))} | {thing} | {_PERMISSION_ACTIONS[action] % {'thing': thing}}"


class PermissionChoices(ModelMultipleChoiceField):  # type: ignore[type-arg]
    """Permissions to pick, each named in the admin's language."""

    def label_from_instance(self, obj: Any) -> str:
        return permission_label(obj)


class TranslatedPermissions(admin.ModelAdmin):  # type: ignore[type-arg]
    """Its permission pickers name each permission in the admin's language."""

    def formfield_for_manytomany(
        self, db_field: ManyToManyField[Any, Any], request: HttpRequest | None = None, **kwargs: Any
    ) -> ModelMultipleChoiceField[Any] | None:
        if db_field.name in ("permissions", "user_permissions"):
            kwargs.setdefault("form_class", PermissionChoices)
            kwargs.setdefault("queryset", Permission.objects.select_related("content_type"))
        return super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[arg-type]
