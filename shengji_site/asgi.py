import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shengji_site.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import get_resolver  # noqa: E402

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


def _freeze_startup_objects() -> None:
    """Leave the objects of start-up (Django, the site's modules, its URL patterns: some 150,000)
    out of the garbage collector's scans. A full collection over them took 85–90 ms, all of it
    with the event loop stopped: the tail of the moves' latency at 100 tables (docs/proof/LOAD.md,
    session 11). They live as long as the process, so nothing is lost by never scanning them.
    ``SHENGJI_GC_FREEZE=0`` keeps them scanned."""
    if os.environ.get("SHENGJI_GC_FREEZE", "1") == "0":
        return
    _ = get_resolver().url_patterns  # import every view module now, not at the first request
    gc.collect()
    gc.freeze()


_freeze_startup_objects()
