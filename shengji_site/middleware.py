"""Response headers Django 5.2 does not set by itself."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class ContentSecurityPolicyMiddleware:
    """Every page gets ``settings.CONTENT_SECURITY_POLICY``: scripts, styles and sockets only from
    the site itself, so an injected ``<script>`` or inline handler would not run. The pages
    keep to it: no inline script or style (data for the scripts goes in ``json_script``).
    A path under a prefix of ``settings.CONTENT_SECURITY_POLICY_BY_PATH`` gets that policy
    instead (the API's Swagger page loads its scripts from a CDN, with inline ones)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy: str = settings.CONTENT_SECURITY_POLICY
        for prefix, other in settings.CONTENT_SECURITY_POLICY_BY_PATH.items():
            if request.path.startswith(prefix):
                policy = other
        if policy:
            response.headers.setdefault("Content-Security-Policy", policy)
        return response
