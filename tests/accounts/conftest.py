import pytest
from django.test import Client
from rest_framework.test import APIClient

# The site redirects plain HTTP to HTTPS (settings.HTTPS); the test clients come in as a TLS
# proxy would pass them on, with X-Forwarded-Proto: https (settings.SECURE_PROXY_SSL_HEADER).
HTTPS = {"HTTP_X_FORWARDED_PROTO": "https"}


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: pytest.FixtureRequest) -> None:
    """Sign-ups in these tests need no slow hash; the hasher is not what they test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]


@pytest.fixture
def client() -> Client:
    return Client(**HTTPS)


@pytest.fixture
def api() -> APIClient:
    return APIClient(**HTTPS)
