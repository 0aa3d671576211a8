"""The header on a phone (Chromium at 360 and 390 px wide, and 1280×800), in 简体, 繁體 and
English, logged out and logged in: every link and button of the header is on the screen whole
(not cut at the right edge, not scrolled out of sight, "EN" not cut in half), and the page does
not scroll sideways. Screenshots in artifacts/browser/."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_play_in_the_browser import PASSWORD, new_page

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (360, 390)
LOCALES = ("zh-CN", "zh-TW", "en-US")
PAGES = ("/", "/tables/", "/tables/new/", "/ladder/", "/accounts/signup/", "/rules/")
# A long name, Chinese, as a player may choose: the header shortens it, never overflows.
USERNAME = "欢乐找朋友的张大哥"

# Each header element that a reader taps or reads, with how far it reaches past the screen's
# right edge, how far it is cut on its own (its content wider than its box, but for the user
# name, which ends in …) and its bounds, and the page's sideways scroll.
MEASURE = """() => {
  const width = document.documentElement.clientWidth;
  const items = [...document.querySelectorAll(
    '.site-header > a, .site-nav > a, .site-nav button, .lang-switch button')];
  return {
    width,
    scroll: document.documentElement.scrollWidth - width,
    wide: [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > width + 0.5)
      .slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${e.className}#${e.id}`),
    header: document.querySelector('.site-header').getBoundingClientRect().height,
    items: items.map((e) => {
      const r = e.getBoundingClientRect();
      const style = getComputedStyle(e);
      const visible = style.visibility !== 'hidden' && style.display !== 'none';
      return { text: e.textContent.trim(), left: r.left, right: r.right, width: r.width,
               visible, cut: e.classList.contains('nav-user') ? 0 : e.scrollWidth - e.clientWidth };
    }),
  };
}"""


def header_problems(page: Any) -> list[str]:
    measured = page.evaluate(MEASURE)
    problems = []
    if measured["scroll"] > 0:
        wide = ", ".join(measured["wide"])
        problems.append(f"the page scrolls sideways by {measured['scroll']} px ({wide})")
    for item in measured["items"]:
        if not item["visible"] or item["width"] < 8:
            problems.append(f"{item['text']!r} is hidden")
        if item["right"] > measured["width"] + 0.5 or item["left"] < -0.5:
            problems.append(f"{item['text']!r} reaches past the screen ({item['right']:.1f} px)")
        if item["cut"] > 1:
            problems.append(f"{item['text']!r} is cut by {item['cut']} px")
    return problems


def log_in(page: Any, site: str) -> None:
    page.goto(f"{site}/accounts/login/")
    page.fill("[name=username]", USERNAME)
    page.fill("[name=password]", PASSWORD)
    page.click("form.form button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_phone_header_fits_at_360_and_390_px(site: str, chromium: Any, locale: str) -> None:
    User.objects.create_user(USERNAME, password=PASSWORD)
    page = new_page(chromium, WIDTHS[0], 844, locale)
    problems: dict[str, list[str]] = {}
    for state in ("out", "in"):
        if state == "in":
            log_in(page, site)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 844})
            for path in PAGES:
                page.goto(f"{site}{path}")
                found = header_problems(page)
                if found:
                    problems[f"{width}px {state} {path}"] = found
            page.goto(f"{site}/")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(
                path=str(ARTIFACTS / f"header-{locale}-{width}-{state}.png"),
                clip={"x": 0, "y": 0, "width": width, "height": 240},
            )
        assert page.locator(".lang-switch button").count() == 3
        if state == "in":
            assert page.locator(".site-nav .nav-form button").is_visible()  # 退出 / Log out
        else:
            assert page.locator(".site-nav a[href='/accounts/signup/']").is_visible()
    assert not problems, problems
    # On a desktop the header stays one line.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{site}/")
    assert not header_problems(page)
    assert page.evaluate(MEASURE)["header"] < 60
    assert page.errors == []


def test_the_measure_catches_a_header_cut_at_the_right_edge(site: str, chromium: Any) -> None:
    """The measure on the header as it was: one line whose links scroll sideways, cut at
    the right edge of a 360 px screen."""
    page = new_page(chromium, 360, 844, "zh-CN")
    page.goto(f"{site}/")
    assert header_problems(page) == []
    page.evaluate(
        """() => {
          const header = document.querySelector('.site-header');
          const nav = document.querySelector('.site-nav');
          nav.append(document.querySelector('.lang-switch'));
          Object.assign(header.style, { display: 'flex', flexWrap: 'nowrap' });
          Object.assign(nav.style, { flexWrap: 'nowrap', overflowX: 'auto', whiteSpace: 'nowrap' });
        }"""
    )
    assert any("reaches past the screen" in p for p in header_problems(page))
