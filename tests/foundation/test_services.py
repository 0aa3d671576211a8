"""The suite talks to real PostgreSQL, real Redis and a real Celery worker."""

import asyncio
import uuid

import pytest
import redis
from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers, get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.db import connection

from shengji_site.asgi import application
from shengji_site.routing import websocket_routes
from shengji_site.tasks import echo


@pytest.mark.django_db
def test_database_is_real_postgresql() -> None:
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version_num")
        (version,) = cursor.fetchone()
    assert int(version) >= 140000


@pytest.mark.django_db
def test_user_model_is_custom() -> None:
    from django.contrib.auth import get_user_model

    user_model = get_user_model()
    assert user_model._meta.label == "accounts.User"
    user = user_model.objects.create_user(username="小明", password="pw-123456-long")
    assert user_model.objects.get(pk=user.pk).check_password("pw-123456-long")


def test_redis_is_a_real_server(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    assert client.info("server")["redis_version"]
    key = f"test:{uuid.uuid4()}"
    client.set(key, "值", ex=10)
    value = client.get(key)
    assert isinstance(value, bytes)
    assert value.decode() == "值"


async def test_channel_layer_round_trips_through_redis(redis_url: str) -> None:
    layer = get_channel_layer()
    assert isinstance(layer, RedisChannelLayer)  # the site's own is built on it
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "probe", "text": "拖拉机"})
    assert await layer.receive(channel) == {"type": "probe", "text": "拖拉机"}


async def test_echo_socket_echoes_json(redis_url: str) -> None:
    communicator = WebsocketCommunicator(
        URLRouter(websocket_routes(echo=True)),  # routed where a benchmark's site turns it on
        "/ws/echo/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_json_to({"type": "ping", "n": 7})
    assert await communicator.receive_json_from() == {"type": "ping", "n": 7}
    await communicator.disconnect()


async def test_socket_from_a_foreign_origin_is_refused(redis_url: str) -> None:
    communicator = WebsocketCommunicator(
        application,
        "/ws/echo/",
        headers=[(b"origin", b"http://evil.example"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect()
    assert not connected


def test_celery_worker_runs_a_task(celery_worker: object) -> None:
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    result = echo.delay("升级")
    assert result.get(timeout=20) == "升级"


async def test_regression_a_quiet_socket_was_closed_after_five_seconds(redis_url: str) -> None:
    # A layer of its own: the shared one may still hold a receive lock of an earlier test's
    # event loop (each async test has its own loop; a server process has one).
    layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
    channel = await layer.new_channel()
    waiting = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(7)  # longer than channels-redis's 5 s blocking read
    assert not waiting.done() or waiting.exception() is None
    await layer.send(channel, {"type": "probe", "text": "still here"})
    assert (await asyncio.wait_for(waiting, 5)) == {"type": "probe", "text": "still here"}
