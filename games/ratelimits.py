"""The log-in backend under the name sessions remember it by. Django stores, in each session, the
path of the backend that logged it in (``_auth_user_backend``) and keeps only sessions whose path
is in ``AUTHENTICATION_BACKENDS``: sessions started while the rate limits lived here name
``games.ratelimits.RateLimitedModelBackend``, so the setting keeps that path. The backend
itself lives in ``accounts.logins`` (docs/ARCHITECTURE.md, "Floors")."""

from __future__ import annotations

from accounts.logins import RateLimitedModelBackend

__all__ = ["RateLimitedModelBackend"]
