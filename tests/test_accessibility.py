"""The course for everyone: axe-core checks the website's landing page and every chapter page,
and the JupyterLite edition's first page and two chapters after every cell has run.

axe-core (pinned in website/package.json, installed by website/build.py's `npm ci`) is put
into each page of the built site (conftest's `built_site`, served on 127.0.0.1, every other
host blocked) after its widgets are drawn and its formulas typeset, and run there. In the
JupyterLite edition (tests/test_lite.py's `site`: AUTOGRAD_LITE_SITE names a site built by
lite/build.py, else the website's), a chapter is opened and run top to bottom, as a learner
does, before axe-core looks at it. Each test fails on any critical or serious violation that
the course's own pages cause: its drawings, its widgets, its CSS, its buttons and notes.
Violations that come from the tools the pages are made with, and that the course cannot
change, are listed in NOT_OURS (the website) and NOT_OURS_IN_LITE (JupyterLab, which
JupyterLite is) by rule and selector, each with the reason; a violation of such a rule
elsewhere still fails. Each test prints the counts per page (pytest -s).
"""

import json
import re
from pathlib import Path

import pytest
import test_lite
from conftest import offline_page, require_module, serve_folder
from test_lite import OfflineBrowser, run_all

from autograd.syllabus import CHAPTERS

site = test_lite.site  # the Lite test's fixture: the built browser edition

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "website" / "node_modules" / "axe-core" / "axe.min.js"
FAILING = ("critical", "serious")
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


# JupyterLab's own violations (JupyterLite is JupyterLab 4 in the browser), in every notebook it
# shows, whatever the notebook holds: (rule, a regular expression for the element's CSS
# selector, why it is not the course's).
NOT_OURS_IN_LITE = [
    # The file browser's toolbar buttons: JupyterLab's <jp-button> elements carry
    # aria-pressed, which their role does not allow.
    ("aria-allowed-attr", r"^jp-button\b", "JupyterLab's toolbar buttons"),
    # Every code cell's editor (CodeMirror's .cm-content, role textbox) has no name.
    ("aria-input-field-name", r"\.cm-content\b", "JupyterLab's cell editors"),
    # The notebook's list of cells has role feed, whose children must be articles; the cells
    # are not.
    ("aria-required-children", r"^\.jp-WindowedPanel-viewport$", "JupyterLab's list of cells"),
    # The button that folds a heading's section is empty, without a name.
    ("button-name", r"\.jp-collapseHeadingButton\b", "JupyterLab's heading folders"),
]
LITE_CHAPTERS = [
    "05_topological_sort.ipynb",  # drawings, and a backward stepper with a slider and buttons
    "07_neural_network_library.ipynb",  # the training dashboard: sliders, buttons, plot
]
SCRIPTS_SETTLE = 1000  # milliseconds for the page's scripts to finish with the last outputs


def not_ours(rule, target, listed=NOT_OURS):
    return any(rule == name and re.search(pattern, target) for name, pattern, _ in listed)


def audit(page, url):
    """Open `url` in `page`, wait for its widgets and formulas, run axe-core there (see
    `axe_violations`)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(url, wait_until="load")
    try:
        page.wait_for_function(SETTLED, timeout=WIDGETS_DRAWN)
    except PlaywrightTimeout:
        pytest.fail(f"{url}: its widgets or formulas were not drawn in {WIDGETS_DRAWN} ms")
    return axe_violations(page)


def axe_violations(page):
    """Run axe-core on the page as it is: a list of (rule, impact, selector, summary) for every
    critical or serious violation, and the counts of all violations' nodes by impact."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n =>
            ({target: n.target.join(' '), impact: n.impact, summary: n.failureSummary}))}));
    }""")
    found, counts = [], {}
    for violation in result:
        for node in violation["nodes"]:
            impact = node["impact"] or violation["impact"]
            counts[impact] = counts.get(impact, 0) + 1
            if impact in FAILING:
                found.append((violation["id"], impact, node["target"], node["summary"]))
    return found, counts


def require_axe():
    if not AXE.is_file():
        pytest.fail(
            f"no axe-core at {AXE.relative_to(ROOT)}: website/build.py's npm ci "
            "installs it (website/package.json)",
            pytrace=False,
        )


def tally(name, found, counts, listed, report, failures):
    """Add one page's line to `report` (its counts) and its own violations to `failures`."""
    ours = [f for f in found if not not_ours(f[0], f[2], listed)]
    report.append(
        f"{name}: {json.dumps(counts, sort_keys=True)}, {len(found) - len(ours)} not ours"
    )
    failures += [
        f"{name}: {rule} ({impact}) at {target}: {summary}"
        for rule, impact, target, summary in ours
    ]


def test_every_page_has_no_serious_accessibility_failure(served_site):
    require_axe()
    pages = ["index.html", *(Path(chapter.notebook).stem + ".html" for chapter in CHAPTERS)]
    blocked, page_errors, report, failures = [], [], [], []
    with offline_page(served_site, blocked, page_errors) as page:
        for name in pages:
            tally(name, *audit(page, f"/{name}"), NOT_OURS, report, failures)
    print("\naxe-core, violations' nodes by impact:\n" + "\n".join(report))
    assert failures == [], "\n".join(failures)


# A widget view in a notebook's output, drawn (ipywidgets writes its controls into it).
WIDGETS_SHOWN = """() => [...document.querySelectorAll(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.widget-view+json"]')]
    .every(output => output.querySelector('.jupyter-widgets'))"""


def test_the_browser_edition_has_no_serious_accessibility_failure_of_ours(site, tmp_path):
    """The first page, and chapters 05 and 07 after Run All, in JupyterLite, offline."""
    require_axe()
    require_module("playwright")
    from playwright.sync_api import sync_playwright

    blocked, page_errors, report, failures = [], [], [], []
    with serve_folder(site) as served:
        with offline_page(served, blocked, page_errors) as page:
            page.goto("/index.html", wait_until="load")
            tally("index.html", *axe_violations(page), [], report, failures)
        with sync_playwright() as playwright:
            browser = OfflineBrowser(playwright, served, tmp_path)
            try:
                for notebook in LITE_CHAPTERS:
                    page = browser.start(notebook)
                    browser.ready(page)
                    run_all(page)
                    page.wait_for_function(WIDGETS_SHOWN, timeout=WIDGETS_DRAWN)
                    page.wait_for_timeout(SCRIPTS_SETTLE)
                    tally(notebook, *axe_violations(page), NOT_OURS_IN_LITE, report, failures)
                    page.context.close()
            finally:
                browser.browser.close()
    print("\naxe-core in the browser edition, violations' nodes by impact:\n" + "\n".join(report))
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
