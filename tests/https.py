"""The request headers the test clients send.

The site redirects plain HTTP to HTTPS (settings.HTTPS); the test clients come in as a TLS proxy
would pass them on, with X-Forwarded-Proto: https (settings.SECURE_PROXY_SSL_HEADER). Typed
dicts, so that `Client(**HTTPS)` and `client.post(url, data, **JSON)` type-check: their keys
land in the client's `**extra` WSGI environ.
"""

from typing import Final, TypedDict


class ForwardedProto(TypedDict):
    HTTP_X_FORWARDED_PROTO: str


class Accept(TypedDict):
    HTTP_ACCEPT: str


HTTPS: Final[ForwardedProto] = {"HTTP_X_FORWARDED_PROTO": "https"}
JSON: Final[Accept] = {"HTTP_ACCEPT": "application/json"}
