from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LadderConfig(AppConfig):
    name = "ladder"
    verbose_name = _("Ladder")

    def ready(self) -> None:
        from ladder import receivers  # noqa: F401  (an account's events open or list a profile)
