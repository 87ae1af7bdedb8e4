"""Controls named by the text they show: the website's pages rewritten after Sphinx wrote them.

A screen reader announces a control by its accessible name; a person who sees the page and
speaks to it (voice control) says the text they see. The two must agree (axe-core's rule
`label-content-name-mismatch`). Two controls that the tools make disagree on every page:

- the theme's search button in the sidebar shows "Search Ctrl+K" but is named "Search" by its
  `aria-label` (pydata-sphinx-theme's `search-button-field.html`);
- myst-nb's toggle of a hidden cell (each exercise's solution) shows "Show code cell source"
  but is named "Toggle hidden content" by its `aria-label`.

Without their `aria-label`, each is named by the text it shows. The icon-only search button in
the page's header keeps its `aria-label`: it shows no text, and needs one.

`conf.py` runs `rewrite_site` when Sphinx has finished; `rewrite` is the rule for one page.
"""

import re
from pathlib import Path

# (what it is, the start tag with the label that contradicts its text, the label to remove)
_MISMATCHED = [
    (
        "the sidebar's search button",
        re.compile(r'<button class="btn search-button-field\b[^>]*>'),
        re.compile(r'\s+aria-label="[^"]*"'),
    ),
    (
        "the toggle of a hidden cell",
        re.compile(r'<summary\b[^>]*aria-label="Toggle hidden content"[^>]*>'),
        re.compile(r'\s+aria-label="Toggle hidden content"'),
    ),
]


def rewrite(html):
    """`html` with the labels that contradict their controls' text removed: (new html, how
    many controls changed)."""
    changed = 0
    for _, start_tag, label in _MISMATCHED:

        def without_label(match):
            nonlocal changed
            tag, n = label.subn("", match.group(0), count=1)
            changed += n
            return tag

        html = start_tag.sub(without_label, html)
    return html, changed


def rewrite_site(folder):
    """Rewrite every page under `folder`; return how many controls changed."""
    total = 0
    for page in Path(folder).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new, changed = rewrite(text)
        if changed:
            page.write_text(new, encoding="utf-8")
            total += changed
    return total


def setup(app):
    """Sphinx: rewrite the pages once the HTML build has finished without an error."""

    def finished(app, exception):
        if exception is None and app.builder.format == "html":
            rewrite_site(app.outdir)

    app.connect("build-finished", finished)
