from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from games import history_urls, rules_page
from ladder import api_urls as ladder_api_urls
from ladder import urls as ladder_urls
from shengji_site import views

# The admin named as the site, in the admin's language (not "Django administration").
admin.site.site_header = _("Shengji · Tractor: administration")
admin.site.site_title = _("Shengji · Tractor: administration")
admin.site.index_title = _("Tables, players and the ladder")

# The ladder's namespaces: the ladder's routes, and the games' pages and API views that show hands
# beside the ladder's numbers (docs/ARCHITECTURE.md, "Floors"), under the ladder's names and paths.
LADDER_PAGES = (ladder_urls.urlpatterns + history_urls.page_urlpatterns, "ladder")
LADDER_API = (ladder_api_urls.urlpatterns + history_urls.api_urlpatterns, "api-ladder")

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("rules/", rules_page.rules, name="rules"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include(LADDER_API)),
    path("accounts/", include("accounts.auth_urls")),
    path("accounts/", include("accounts.urls")),
    path("", include(LADDER_PAGES)),
    path("", include("games.urls")),
]

# Under /api/ the API's error shape with a stable code (shengji_site/errors.py).
handler400 = "shengji_site.errors.bad_request"
handler404 = "shengji_site.errors.not_found"
handler500 = "shengji_site.errors.server_error"
