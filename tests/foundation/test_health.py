import pytest


@pytest.mark.django_db(transaction=True)
def test_healthz_ok_with_database_redis_and_worker(client, celery_worker) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["database"] is True
    assert body["redis"] is True
    assert body["celery"] is True
    assert body["celery_workers"]


@pytest.mark.django_db
def test_healthz_503_without_a_worker(client, redis_url) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body == {
        "ok": False,
        "database": True,
        "redis": True,
        "celery": False,
        "celery_workers": [],
    }


@pytest.mark.django_db
def test_healthz_503_when_redis_is_unreachable(client, settings) -> None:  # type: ignore[no-untyped-def]
    from shengji_site.embedded import free_port

    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["redis"] is False
    assert response.json()["database"] is True
