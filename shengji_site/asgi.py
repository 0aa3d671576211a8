import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shengji_site.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from shengji_site.gcfreeze import freeze_start_up_objects  # noqa: E402
from shengji_site.middleware import ProxyHeadersMiddleware, pooled_auth_stack  # noqa: E402
from shengji_site.routing import websocket_urlpatterns  # noqa: E402

# ProxyHeadersMiddleware: the client's address from X-Forwarded-For, and X-Forwarded-Proto,
# only from settings.TRUSTED_PROXIES (docs/proof/SECURITY.md, "Client addresses").
application = ProxyHeadersMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": AllowedHostsOriginValidator(
                pooled_auth_stack(URLRouter(websocket_urlpatterns))
            ),
        }
    )
)


_ = get_resolver().url_patterns  # every view module imported now, not at the first request
freeze_start_up_objects()
