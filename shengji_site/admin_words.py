"""Words of Django's own admin that Django 5.2's zh_Hans catalogue lacks (the admin's
screen-reader captions). Marked here so that ``makemessages`` keeps them in ours: the
project's catalogue (LOCALE_PATHS) comes before Django's."""

from __future__ import annotations

from django.utils.translation import gettext_noop

DJANGO_ADMIN_WORDS = (
    gettext_noop("Model name"),
    gettext_noop("Add link"),
    gettext_noop("Change or view list link"),
)
