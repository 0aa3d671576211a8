"""The error answers: under /api/ they answer in the API's shape, ``{"code", "message"}``, with
a code of the project's one list (accounts/errors.py ``CODES``): a URL no route takes, a request
Django refuses before any view, a failure, and every refusal of the API framework itself (an
unknown token, a throttle, a malformed body); elsewhere Django's pages with the site's
templates. No exception's own text reaches a client."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from accounts.errors import message_for

API_PREFIX = "/api/"

# The API framework's refusals by the code the client is sent (any other: ``bad_request``).
_FRAMEWORK_CODES: tuple[tuple[type[exceptions.APIException], str], ...] = (
    (exceptions.AuthenticationFailed, "credentials_invalid"),
    (exceptions.NotAuthenticated, "login_required"),
    (exceptions.PermissionDenied, "not_allowed"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.Throttled, "rate_limited"),
)


def _api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _answer(code: str, status: int, message: str) -> JsonResponse:
    return JsonResponse({"code": code, "message": message}, status=status)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _api(request):
        return _answer("not_found", 404, "no such resource")
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _api(request):
        return _answer("bad_request", 400, "the request is malformed")
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _api(request):
        return _answer("internal", 500, "something went wrong on the server")
    return defaults.server_error(request)


def framework_code(error: exceptions.APIException) -> str:
    """The code of a refusal of the API framework (REST_FRAMEWORK's EXCEPTION_HANDLER)."""
    return next((code for kind, code in _FRAMEWORK_CODES if isinstance(error, kind)), "bad_request")


# What a missing resource is called in the API's answers, as by its 404 (``not_found`` above).
_API_MESSAGES = {"not_found": "no such resource"}


def _as_framework_refusal(error: Exception) -> Exception:
    """Django's own refusals (a view's ``Http404``, ``PermissionDenied``; the framework raises
    ``Http404`` for an unknown ``?format=``) as the framework's, so that their text is never
    sent: the framework would answer them with it."""
    refusal: Exception = error
    if isinstance(error, Http404):
        refusal = exceptions.NotFound()
    elif isinstance(error, PermissionDenied):
        refusal = exceptions.PermissionDenied()
    return refusal


def api_exception_handler(error: Exception, context: dict[str, Any]) -> Response | None:
    """The framework's answer (its status and headers: Retry-After, WWW-Authenticate) with the
    body in the API's shape. A throttle also says how many seconds to ``wait``; a malformed
    body names its ``fields``, not the framework's text about them. Anything else is a
    failure (None: the 500 answer above)."""
    error = _as_framework_refusal(error)
    response = exception_handler(error, context)
    if response is None or not isinstance(error, exceptions.APIException):
        return response
    code = framework_code(error)
    body: dict[str, Any] = {"code": code, "message": _API_MESSAGES.get(code) or message_for(code)}
    if isinstance(error, exceptions.Throttled) and error.wait is not None:
        body["wait"] = int(error.wait)  # whole seconds already, as Retry-After
    if isinstance(error, exceptions.ValidationError) and isinstance(error.detail, dict):
        body["fields"] = sorted(str(name) for name in error.detail)
    response.data = body
    return response
