"""The error pages (issue 16): 404 in the site's look and the reader's language; 500 and 400
render with no request, user or database; under /api/ the API's JSON shape is kept."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.template import loader
from django.test import Client, RequestFactory
from django.utils import translation
from django.views import defaults

from shengji_site import errors
from tests.https import HTTPS

PAGES = {
    "zh-hans": {"404": "页面不存在", "500": "出错了", "400": "请求有误", "403": "无权访问"},
    "zh-hant": {"404": "頁面不存在", "500": "出錯了", "400": "請求有誤", "403": "無權存取"},
    "en": {"404": "Page not found", "500": "Something went wrong", "400": "Bad request",
           "403": "Not allowed"},
}  # fmt: skip
BROWSERS = {"zh-hans": "zh-CN,zh;q=0.9", "zh-hant": "zh-TW,zh;q=0.9", "en": "en-US,en;q=0.9"}


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(PAGES))
def test_a_missing_page_says_so_in_the_readers_language_in_the_sites_look(
    language: str,
) -> None:
    response = Client(**HTTPS).get("/no-such-page/", HTTP_ACCEPT_LANGUAGE=BROWSERS[language])
    assert response.status_code == 404
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    assert PAGES[language]["404"] in html
    assert 'class="site-header"' in html and 'href="/tables/"' in html  # base.html: the nav
    assert "The requested resource was not found on this server." not in html  # Django's own


@pytest.mark.django_db
def test_the_api_keeps_its_json_shape_for_a_missing_resource() -> None:
    response = Client(**HTTPS).get("/api/no-such-thing/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "no such resource"}


@pytest.mark.parametrize("language", sorted(PAGES))
def test_the_server_error_page_needs_no_request_user_or_database(language: str) -> None:
    """No django_db mark: a query would fail the test. The template renders with no context
    at all, as django.views.defaults.server_error renders it."""
    with translation.override(language):
        html = loader.get_template("500.html").render()
        response = errors.server_error(RequestFactory().get("/tables/"))
    assert PAGES[language]["500"] in html and f'<html lang="{language}">' in html
    assert response.status_code == 500
    assert PAGES[language]["500"] in response.content.decode()
    api = errors.server_error(RequestFactory().get("/api/players/"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json"


@pytest.mark.parametrize("language", sorted(PAGES))
def test_a_bad_request_page_needs_no_request_user_or_database(language: str) -> None:
    with translation.override(language):
        response = errors.bad_request(RequestFactory().get("/tables/"), Exception("bad host"))
    assert response.status_code == 400
    assert PAGES[language]["400"] in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(PAGES))
def test_a_forbidden_page_is_in_the_readers_language(language: str) -> None:
    with translation.override(language):
        request = RequestFactory().get("/somewhere/")
        response = defaults.permission_denied(request, PermissionDenied())
    assert response.status_code == 403
    html = response.content.decode()
    assert PAGES[language]["403"] in html and 'class="site-header"' in html
