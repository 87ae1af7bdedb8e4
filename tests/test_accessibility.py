"""The course website for everyone: axe-core checks the landing page and every chapter page.

axe-core (pinned in website/package.json, installed by website/build.py's `npm ci`) is put
into each page of the built site (conftest's `built_site`, served on 127.0.0.1, every other
host blocked) after its widgets are drawn and its formulas typeset, and run there. The test
fails on any critical or serious violation that the course's own pages cause: its drawings,
its widgets, its CSS, its buttons and notes. Violations that come from the tools the site is
made with, and that the course cannot change, are listed in NOT_OURS by rule and selector,
each with the reason; a violation of such a rule elsewhere still fails.
"""

import json
import re
from pathlib import Path

import pytest
from conftest import offline_page

from autograd.syllabus import CHAPTERS

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
NOT_OURS = [
    # sphinx-book-theme's search button: its aria-label ("Search") is not its visible text
    # ("Search Ctrl+K"), in the theme's own template on every page.
    ("label-content-name-mismatch", r"\.search-button-field",
     "sphinx-book-theme's search button"),
    # myst-nb's toggle of a hidden solution cell: a <summary> whose aria-label ("Toggle hidden
    # content") differs from its visible text ("Show code cell source"), made by myst-nb.
    ("label-content-name-mismatch", r"summary(\[aria-label=\"Toggle hidden content\"\])?$",
     "myst-nb's toggle of a hidden cell"),
]


def not_ours(rule, target):
    return any(rule == name and re.search(pattern, target) for name, pattern, _ in NOT_OURS)


def audit(page, url):
    """Open `url` in `page`, wait for its widgets and formulas, run axe-core there: a list of
    (rule, impact, selector, summary) for every critical or serious violation, and the counts
    of all violations' nodes by impact."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(url, wait_until="load")
    try:
        page.wait_for_function(SETTLED, timeout=WIDGETS_DRAWN)
    except PlaywrightTimeout:
        pytest.fail(f"{url}: its widgets or formulas were not drawn in {WIDGETS_DRAWN} ms")
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


def test_every_page_has_no_serious_accessibility_failure(served_site):
    if not AXE.is_file():
        pytest.fail(f"no axe-core at {AXE.relative_to(ROOT)}: website/build.py's npm ci "
                    "installs it (website/package.json)", pytrace=False)
    pages = ["index.html", *(Path(chapter.notebook).stem + ".html" for chapter in CHAPTERS)]
    blocked, page_errors, report, failures = [], [], [], []
    with offline_page(served_site, blocked, page_errors) as page:
        for name in pages:
            found, counts = audit(page, f"/{name}")
            ours = [f for f in found if not not_ours(f[0], f[2])]
            report.append(f"{name}: {json.dumps(counts, sort_keys=True)}, "
                          f"{len(found) - len(ours)} not ours")
            failures += [f"{name}: {rule} ({impact}) at {target}: {summary}"
                         for rule, impact, target, summary in ours]
    print("\naxe-core, violations' nodes by impact:\n" + "\n".join(report))
    assert failures == [], "\n".join(failures)
