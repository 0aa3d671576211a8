from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.https import HTTPS

if TYPE_CHECKING:
    from pytest_django import Settings


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Settings) -> None:
    """Sign-ups in these tests need no slow hash; the hasher is not what they test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def client() -> Client:
    return Client(**HTTPS)


@pytest.fixture
def api() -> APIClient:
    return APIClient(**HTTPS)
