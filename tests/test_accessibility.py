"""The course for everyone: axe-core checks the website's landing page and every chapter page.

axe-core (tests/audit.py) is put into each page of the built site (conftest's `built_site`,
served on 127.0.0.1, every other host blocked) after its widgets are drawn and its formulas
typeset, and run there. The test fails on any critical or serious violation that the course's
own pages cause: its drawings, its widgets, its CSS, its buttons and notes. Violations that come
from the tools the pages are made with, and that the course cannot change, are listed in
NOT_OURS by rule and selector, each with the reason; a violation of such a rule elsewhere still
fails. It prints the counts per page (pytest -s). The JupyterLite edition's first page and two
of its chapters, run top to bottom, are audited by tests/test_lite.py, in the pages where it
runs them.
"""

from pathlib import Path

import pytest
from audit import axe_violations, require_axe, tally
from conftest import offline_page

from autograd.syllabus import CHAPTERS

ROOT = Path(__file__).resolve().parent.parent
WIDGETS_DRAWN = 30_000  # milliseconds for the saved widgets to be drawn after the page loads

# Each saved widget view drawn by the embedder, and every formula typeset: then axe sees the
# page as a reader does.
SETTLED = """() => {
    const views = [...document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]')];
    const drawn = views.every(s => s.parentElement.querySelector('.widget-subarea .jupyter-widgets'));
    const math = [...document.querySelectorAll('.math')];
    const typeset = math.every(m => m.querySelector('mjx-container'));
    return drawn && typeset;
}"""

# (rule, a regular expression that the element's CSS selector matches, why it is not ours).
# None: the theme's search button and myst-nb's solution toggles, whose labels contradicted
# their text, are named by their text now (website/accessible_names.py), and a page where they
# are not fails this test.
NOT_OURS = []


def audit(page, url):
    """Open `url` in `page`, wait for its widgets and formulas, run axe-core there (see
    `audit.axe_violations`)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(url, wait_until="load")
    try:
        page.wait_for_function(SETTLED, timeout=WIDGETS_DRAWN)
    except PlaywrightTimeout:
        pytest.fail(f"{url}: its widgets or formulas were not drawn in {WIDGETS_DRAWN} ms")
    return axe_violations(page)


def test_every_page_has_no_serious_accessibility_failure(served_site):
    require_axe()
    pages = ["index.html", *(Path(chapter.notebook).stem + ".html" for chapter in CHAPTERS)]
    blocked, page_errors, report, failures = [], [], [], []
    with offline_page(served_site, blocked, page_errors) as page:
        for name in pages:
            tally(name, *audit(page, f"/{name}"), NOT_OURS, report, failures)
    print("\naxe-core, violations' nodes by impact:\n" + "\n".join(report))
    assert failures == [], "\n".join(failures)


# The two controls as the pinned tools write them (pydata-sphinx-theme 0.15.4's
# search-button-field.html and search-button.html, myst-nb 1.4.0's hidden cell), rendered.
SIDEBAR_SEARCH = """<button class="btn search-button-field search-button__button" title="Search" \
aria-label="Search" data-bs-placement="bottom" data-bs-toggle="tooltip">
    <i class="fa-solid fa-magnifying-glass"></i>
    <span class="search-button__default-text">Search</span>
    <span class="search-button__kbd-shortcut"><kbd class="kbd-shortcut__modifier">Ctrl</kbd>+\
<kbd class="kbd-shortcut__modifier">K</kbd></span>
   </button>"""
HEADER_SEARCH = """<button class="btn btn-sm pst-navbar-icon search-button search-button__button" \
title="Search" aria-label="Search" data-bs-placement="bottom" data-bs-toggle="tooltip">
    <i class="fa-solid fa-magnifying-glass fa-lg"></i>
  </button>"""
HIDDEN_CELL = """<details class="admonition hide above-input">
<summary aria-label="Toggle hidden content">
<p class="collapsed admonition-title">Show code cell source</p>
<p class="expanded admonition-title">Hide code cell source</p>
</summary>"""


def test_the_search_button_and_solution_toggles_are_named_by_their_text():
    """Without a browser: the rewrite the website's build runs on every page takes away the
    labels that contradict the text of these two controls, and leaves the icon-only header
    button its label (it shows no text)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "accessible_names", ROOT / "website" / "accessible_names.py"
    )
    names = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(names)
    page = "\n".join([SIDEBAR_SEARCH, HEADER_SEARCH, HIDDEN_CELL, HIDDEN_CELL])
    new, changed = names.rewrite(page)
    assert changed == 3
    assert "Toggle hidden content" not in new and "<summary>" in new
    sidebar, header = new.split("</button>")[:2]
    assert "search-button-field" in sidebar and "aria-label" not in sidebar
    assert "pst-navbar-icon" in header and 'aria-label="Search"' in header
    assert names.rewrite(new) == (new, 0)  # a second build changes nothing more
