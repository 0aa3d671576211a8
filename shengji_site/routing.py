from typing import Any

from django.conf import settings
from django.urls import path, re_path

from games.consumers import TableConsumer
from shengji_site.consumers import EchoConsumer, LobbyConsumer, NoSuchSocket


def websocket_routes(*, echo: bool) -> list[Any]:
    """The socket routes; the load benchmark's echo socket only with ``echo``
    (``settings.SHENGJI_ECHO_SOCKET``, which the benchmark's site turns on)."""
    routes = [
        path("ws/lobby/", LobbyConsumer.as_asgi()),
        path("ws/table/<int:table_id>/", TableConsumer.as_asgi()),
    ]
    if echo:
        routes.insert(0, path("ws/echo/", EchoConsumer.as_asgi()))
    # Any other path (``/ws/lobby/../table/1/``, ``/ws/table/%00/``, ``/ws/echo/`` where the
    # echo is off) is refused with 4404, not left to the router's "no route" error.
    return [*routes, re_path(r"", NoSuchSocket.as_asgi())]


websocket_urlpatterns = websocket_routes(echo=settings.SHENGJI_ECHO_SOCKET)
