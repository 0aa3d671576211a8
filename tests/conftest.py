"""Shared fixtures. The embedded servers and the Celery worker fixture live in
proof/plugin.py, loaded with -p from pyproject.toml."""

import pytest


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    embedded_postgres: str, django_db_modify_db_settings_parallel_suffix: None
) -> None:
    """pytest-django creates the test database after this: the server must be up by then."""
