"""The site works offline: no page a visitor reaches loads a script, stylesheet, icon, image or
sound from another host, the API docs included (Swagger UI from the drf-spectacular-sidecar
package, SPECTACULAR_SETTINGS), and every file the docs page names is served by the site."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from django.test import Client, override_settings

from tests.https import HTTPS
from tests.ladder.helpers import PASSWORD, make_user

SITE_HOST = "testserver"  # the test client's host
DOCS = "/api/docs/"
# <link rel=...> values that make the browser fetch the linked file.
FETCHED_LINKS = {"stylesheet", "icon", "apple-touch-icon", "mask-icon", "manifest", "preload",
                 "modulepreload", "prefetch"}  # fmt: skip
FETCHED_ATTRIBUTES = {
    "script": "src",
    "img": "src",
    "audio": "src",
    "video": "src",
    "source": "src",
    "iframe": "src",
    "embed": "src",
    "object": "data",
}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")


class AssetParser(HTMLParser):
    """The URLs a browser fetches to show the page, and the inline scripts and styles in it."""

    def __init__(self) -> None:
        super().__init__()
        self.assets: list[str] = []
        self.inline: dict[str, int] = {"script": 0, "style": 0}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "link" and FETCHED_LINKS & set(values.get("rel", "").lower().split()):
            self.assets.append(values.get("href", ""))
        elif tag in FETCHED_ATTRIBUTES and values.get(FETCHED_ATTRIBUTES[tag]):
            self.assets.append(values[FETCHED_ATTRIBUTES[tag]])
        if (tag == "script" and not values.get("src")) or tag == "style":
            self.inline[tag] += 1
        if "style" in values:
            self.inline["style"] += 1


def parse(html: str) -> AssetParser:
    parser = AssetParser()
    parser.feed(html)
    parser.close()
    return parser


def off_site(url: str) -> bool:
    """A URL naming another host (`https://cdn…`, `//cdn…`); a path or a data: URL is the site's."""
    return urlsplit(url).netloc not in ("", SITE_HOST)


def directive(policy: str, name: str) -> list[str]:
    for part in policy.split(";"):
        words = part.split()
        if words and words[0] == name:
            return words[1:]
    return []


@pytest.fixture
def pages() -> list[str]:
    player = make_user("offline1")
    return ["/", "/tables/", "/rules/", "/ladder/", f"/players/{player.username}/",
            "/accounts/login/", "/accounts/signup/", DOCS]  # fmt: skip


def visitor_and_player() -> list[Client]:
    visitor = Client(**HTTPS)
    player = Client(**HTTPS)
    assert player.login(username=make_user("offline2").username, password=PASSWORD)
    return [visitor, player]


@pytest.mark.django_db
def test_no_page_a_visitor_reaches_loads_anything_from_another_host(pages: list[str]) -> None:
    for client in visitor_and_player():
        for url in pages:
            response = client.get(url, follow=True)
            assert response.status_code == 200, url
            assets = parse(response.content.decode()).assets
            assert assets, url  # each page names its stylesheet at least
            assert [a for a in assets if off_site(a)] == [], url


@pytest.mark.django_db
def test_the_api_docs_page_loads_swagger_ui_from_the_site_and_each_file_is_served() -> None:
    html = Client(**HTTPS).get(DOCS).content.decode()
    assets = parse(html).assets
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    assert any(a.endswith("swagger-ui.css") for a in assets)
    # WhiteNoise serves from the apps' static folders here, as it does from STATIC_ROOT after
    # `collectstatic` (which `manage.py serve` runs).
    with override_settings(WHITENOISE_USE_FINDERS=True):
        client = Client(**HTTPS)
        for url in assets:
            response = client.get(url)
            assert response.status_code == 200, url
            body = response.getvalue()  # a file response streams
            assert body, url
            if url.split("?")[0].endswith(".css"):
                named = [a or b for a, b in CSS_URL.findall(body.decode())]
                assert [u for u in named if off_site(u)] == [], url


@pytest.mark.django_db
def test_the_api_docs_page_keeps_within_its_own_content_security_policy() -> None:
    """The page needs no inline script or style that its policy would block, and every file it
    names is one the policy lets in (the site's own)."""
    response = Client(**HTTPS).get(DOCS)
    policy = response["Content-Security-Policy"]
    page = parse(response.content.decode())
    for kind in ("script", "style"):
        allowed = directive(policy, f"{kind}-src") or directive(policy, "default-src")
        assert "'self'" in allowed
        if "'unsafe-inline'" not in allowed:
            assert page.inline[kind] == 0, kind
    assert all(not off_site(a) for a in page.assets)
