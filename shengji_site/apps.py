from django.apps import AppConfig


class ShengjiSiteConfig(AppConfig):
    name = "shengji_site"
    verbose_name = "Shengji site"
