from django.urls import path, re_path

from games.consumers import TableConsumer
from shengji_site.consumers import EchoConsumer, LobbyConsumer, NoSuchSocket

websocket_urlpatterns = [
    path("ws/echo/", EchoConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/table/<int:table_id>/", TableConsumer.as_asgi()),
    # Any other path (``/ws/lobby/../table/1/``, ``/ws/table/%00/``) is refused with 4404, not
    # left to the router's "no route" error.
    re_path(r"", NoSuchSocket.as_asgi()),
]
