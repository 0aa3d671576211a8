"""The error pages: under /api/ they answer in the API's shape, ``{"code", "message"}``, with a
stable code (a URL no route takes, a request Django refuses before any view, a failure);
elsewhere Django's pages with the site's templates."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

API_PREFIX = "/api/"


def _api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _api(request):
        return JsonResponse({"code": "not_found", "message": "no such resource"}, status=404)
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _api(request):
        return JsonResponse(
            {"code": "bad_request", "message": "the request is malformed"}, status=400
        )
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _api(request):
        return JsonResponse(
            {"code": "internal", "message": "something went wrong on the server"}, status=500
        )
    return defaults.server_error(request)
