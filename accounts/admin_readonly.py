"""Admin bases for records nobody edits by hand (logs, ledgers, move logs)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest


class NoWrites:
    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class ReadOnlyAdmin(NoWrites, admin.ModelAdmin):  # type: ignore[type-arg]
    pass


class ReadOnlyInline(NoWrites, admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False
