"""axe-core in a page of headless Chromium, shared by the accessibility tests of the website
(tests/test_accessibility.py) and of the JupyterLite edition (tests/test_lite.py, which audits
two chapters in the pages where it has just run them).

axe-core is pinned in website/package.json and installed by website/build.py's `npm ci`. A page
fails on any critical or serious violation that the course's own content causes; violations
that come from the tools the pages are made with, and that the course cannot change, are listed
by each test as (rule, a regular expression for the element's CSS selector, why it is not ours).
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "website" / "node_modules" / "axe-core" / "axe.min.js"
FAILING = ("critical", "serious")


def require_axe():
    if not AXE.is_file():
        pytest.fail(
            f"no axe-core at {AXE.relative_to(ROOT)}: website/build.py's npm ci "
            "installs it (website/package.json)",
            pytrace=False,
        )


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


def not_ours(rule, target, listed):
    return any(rule == name and re.search(pattern, target) for name, pattern, _ in listed)


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
