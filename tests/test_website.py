"""The course website: `website/build.py` builds it, and every page works with no network.

The site is built once for the session (conftest's `built_site`: npm and a Python >= 3.12 for
the JupyterLite edition, else the test skips on a learner's machine and fails under CI=true),
served on 127.0.0.1, and each page, the landing page and every chapter, is opened in turn in
one headless Chromium in which every request to another host is blocked and logged. What each
chapter page must show is read from the executed notebooks the site was rendered from
(website/_build/src): its drawings (SVG, inline in HTML), its plots (PNG), its widgets and
its formulas; and at a phone's width (390 px), that the page does not scroll sideways and that
the drawings' and plots' text stays readable.
"""

import json
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlparse

import pytest
from conftest import offline_page

from autograd.syllabus import CHAPTERS

ROOT = Path(__file__).resolve().parent.parent
EXECUTED = ROOT / "website" / "_build" / "src"  # what website/build.py rendered the pages from
BINDER = "https://mybinder.org/v2/gh/autograd-from-scratch/autograd-from-scratch/HEAD?labpath="

# Which of an output's formats a page shows: myst-nb's order for HTML (its default priority).
HTML_PRIORITY = (
    "application/vnd.jupyter.widget-view+json",
    "application/javascript",
    "text/html",
    "image/svg+xml",
    "image/png",
    "image/gif",
    "image/jpeg",
    "text/markdown",
    "text/latex",
    "text/plain",
)
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# A blocked request is "needed" if the page could look or work differently without it: anything
# that draws (an image, a font, a stylesheet), runs (a script, a fetch) or shows (a frame).
# Only the kinds of request that never change the page (Chromium's names for a ping or a
# beacon, a web-app manifest, a prefetch) may be blocked.
NOT_NEEDED = {"ping", "beacon", "manifest", "prefetch"}

WIDGETS_DRAWN = 30_000  # milliseconds for the saved widgets to be drawn after the page loads
LITE_OPENS = 120_000  # milliseconds for JupyterLite to load and show a notebook

# Every formula typeset (MathJax 3 from the site), none with a TeX error; resolves to counts.
MATHJAX_DONE = """async () => {
    if (!window.MathJax || !MathJax.startup) return null;
    await MathJax.startup.promise;
    const formulas = [...document.querySelectorAll('.math')];
    return {formulas: formulas.length,
            typeset: formulas.filter(f => f.querySelector('mjx-container svg')).length,
            containers: document.querySelectorAll('mjx-container').length,
            errors: document.querySelectorAll('mjx-merror, [data-mjx-error]').length};
}"""

# The pictures in the chapter's cell outputs (not the widgets' own), and whether each loaded.
OUTPUT_IMAGES = """() => [...document.querySelectorAll('.cell_output img')]
    .filter(img => !img.closest('.widget-subarea'))
    .map(img => ({src: img.getAttribute('src'), loaded: img.complete && img.naturalWidth > 0}))"""

# The drawings of graphs that a chapter's outputs show as HTML (autograd.viz's inline SVG,
# alone, side by side, or chapter 00's test drawing), outside the widgets.
DRAWING_BOXES = ("autograd-drawing", "autograd-side-by-side", "autograd-test-drawing")
INLINE_DRAWINGS = """(boxes) => [...document.querySelectorAll('.cell_output svg')]
    .filter(svg => !svg.parentElement.closest('svg') && !svg.closest('.widget-subarea')
                   && boxes.some(box => svg.closest('.' + box)))
    .map(svg => svg.querySelectorAll('g.node').length)"""

# A phone: the page must not scroll sideways (only a drawing's or a plot's own box may), a
# drawing's smallest text stays 10 pixels or more, and a plot keeps its text readable (10
# pixels: at least 72% of its own width, matplotlib's 10-point text being 13.9 pixels).
PHONE = {"width": 390, "height": 844}
READABLE = 10  # pixels
PLOT_SHARE = 0.72
# An explorer's plot (the training dashboard's, say) is drawn at 90 dots per inch, its 10-point
# text 12.5 px: 10 px of it is 80% of its width.
WIDGET_PLOT_SHARE = 0.8
ON_A_PHONE = """(boxes) => {
    const drawings = [...document.querySelectorAll('.cell_output svg')]
        .filter(svg => !svg.parentElement.closest('svg') && !svg.closest('.widget-subarea')
                       && boxes.some(box => svg.closest('.' + box)))
        .map(svg => Math.min(...[...svg.querySelectorAll('text')].map(text =>
            parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a)));
    const plots = [...document.querySelectorAll('.cell_output img')]
        .filter(img => !img.closest('.widget-subarea') && img.naturalWidth > 0)
        .map(img => ({src: img.getAttribute('src'), shown: img.getBoundingClientRect().width,
                      natural: img.naturalWidth}));
    const widgetPlots = [...document.querySelectorAll('.cell_output .widget-subarea img')]
        .filter(img => img.naturalWidth > 0)
        .map(img => ({shown: img.getBoundingClientRect().width, natural: img.naturalWidth}));
    return {pageWidth: document.documentElement.scrollWidth, windowWidth: window.innerWidth,
            drawings, plots, widgetPlots};
}"""

# Each saved widget view, and whether the embedder drew it beside its <script> tag.
WIDGETS = """() => [...document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]')]
    .map(s => s.parentElement.querySelector('.widget-subarea .jupyter-widgets') !== null)"""

LINKS = "() => [...document.querySelectorAll('a[href]')].map(a => a.href)"


def shown_format(output):
    """The format in which a page shows a display output, or None for a stream or an error."""
    data = output.get("data", {})
    return next((mime for mime in HTML_PRIORITY if mime in data), None)


def expected(chapter):
    """What chapter's page must show, from its executed notebook: counts of SVG pictures, of
    drawings shown as HTML (inline SVG), of PNG plots and of widgets among its outputs, how many of the widgets' state the build kept, whether
    its code draws graphs (draw_dot) or plots (plt), and whether its prose has formulas."""
    notebook = json.loads((EXECUTED / chapter.notebook).read_text(encoding="utf-8"))
    state = notebook["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    outputs = [output for cell in notebook["cells"] for output in cell.get("outputs", [])]
    formats = [shown_format(output) for output in outputs]
    widgets = [
        output["data"][WIDGET_VIEW]["model_id"]
        for output in outputs
        if shown_format(output) == WIDGET_VIEW
    ]
    code = "\n".join(
        "".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"
    )
    prose = "\n".join(
        "".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown"
    )
    pages = [
        "".join(output["data"]["text/html"])
        for output in outputs
        if shown_format(output) == "text/html"
    ]
    html_drawings = sum(
        page.count("<svg")
        for page in pages
        if any(f'class="{box}"' in page for box in DRAWING_BOXES)
    )
    return {
        "svg": formats.count("image/svg+xml"),
        "png": formats.count("image/png"),
        "drawings": html_drawings,
        "widgets": len(widgets),
        "saved": sum(model in state for model in widgets),
        "draws": "draw_dot(" in code,
        "plots": "plt." in code,
        "math": re.search(r"\$[^$\s][^$]*\$", prose) is not None,
    }


def page_of(chapter):
    return Path(chapter.notebook).stem + ".html"


def check_link(site, href, page):
    """A link from `page` to this site: it must reach a file of the site (the Lite edition: its
    lab, with a notebook it has), and a #fragment must name an element of the target page."""
    url = urlparse(href)
    path = unquote(url.path).lstrip("/")
    if path == "lite/index.html":  # the Lite edition's first page (what loads, the chapters)
        assert (site / path).is_file(), f"{page}: {href}: the Lite edition has no first page"
        return
    if path == "lite" or path.startswith("lite/"):
        assert path == "lite/lab/index.html", f"{page}: {href} goes into lite/ but not to its lab"
        notebook = parse_qs(url.query).get("path", [""])[0]
        assert (site / "lite" / "files" / notebook).is_file(), f"{page}: {href}: no such notebook"
        return
    target = site / path
    if target.is_dir():
        target = target / "index.html"
    assert target.is_file(), f"{page}: broken link {href} (no {target.relative_to(site)})"
    if url.fragment and target.suffix == ".html":
        text = target.read_text(encoding="utf-8")
        assert f'id="{unquote(url.fragment)}"' in text, f"{page}: {href}: no such anchor"


def test_every_page_works_offline(built_site, served_site, tmp_path):
    site = built_site
    blocked, page_errors, failed, missing, report = [], [], [], [], []
    chapter_pages = {page_of(chapter): chapter for chapter in CHAPTERS}
    pages = ["index.html", *chapter_pages]
    started = time.monotonic()
    with offline_page(served_site, blocked, page_errors) as page:
        page.on(
            "requestfailed",
            lambda request: failed.append((page.url, request.resource_type, request.url)),
        )
        page.on(
            "response",
            lambda response: (
                response.status >= 400 and missing.append((page.url, response.status, response.url))
            ),
        )
        links = {}
        for name in pages:
            page.goto(f"/{name}", wait_until="load")
            chapter = chapter_pages.get(name)
            if chapter is None:  # the landing page: the README's table, each heading its page
                table = page.locator("table a", has_text=re.compile("^\\d\\d · "))
                assert table.all_inner_texts() == [c.heading for c in CHAPTERS]
                hrefs = [urlparse(a).path for a in table.evaluate_all("as => as.map(a => a.href)")]
                assert hrefs == [f"/{p}" for p in chapter_pages], hrefs
            else:
                report.append(check_chapter_page(page, chapter, name, served_site))
            links[name] = page.evaluate(LINKS)
            shot = tmp_path / name.replace(".html", ".png")
            page.screenshot(path=str(shot))
            print(f"\nscreenshot of {name}: {shot}")
        seconds = time.monotonic() - started

    print(f"\n{len(pages)} pages in {seconds:.1f} s")
    print(*report, sep="\n")
    kinds = {url: (kind, source) for source, kind, url in failed}
    print(
        f"blocked requests ({len(blocked)}):",
        *(
            f"{kinds.get(url, ('?', '?'))[0]} {url} (from {kinds.get(url, ('?', '?'))[1]})"
            for url in blocked
        ),
        sep="\n  ",
    )

    # nothing a page needs came from another host (a request of unknown kind counts as needed),
    # nothing a page asked of the site is missing, and no page's script failed
    needed = [url for url in blocked if kinds.get(url, ("?",))[0] not in NOT_NEEDED]
    assert needed == [], needed
    assert missing == [], missing
    local = [entry for entry in failed if urlparse(entry[2]).hostname == "127.0.0.1"]
    assert local == [], local
    assert page_errors == [], page_errors

    # every link between the site's pages reaches a file of the site
    internal = 0
    for name, hrefs in links.items():
        for href in hrefs:
            if href.startswith(served_site + "/"):
                check_link(site, href, name)
                internal += 1
    print(f"{internal} links inside the site, none broken")


def check_chapter_page(page, chapter, name, base_url):
    """The chapter's page shows its heading, its buttons, and everything its notebook made."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    want = expected(chapter)
    assert page.locator("h1").first.inner_text().startswith(chapter.heading), name

    # the two buttons under the title: this site's Lite edition, and Binder
    buttons = page.locator(".course-launch a")
    assert buttons.all_inner_texts() == ["Run it in your browser", "Open in Binder"], name
    run_here, binder = buttons.evaluate_all("as => as.map(a => a.href)")
    assert run_here == f"{base_url}/lite/lab/index.html?path={quote(chapter.notebook)}", run_here
    assert binder == BINDER + quote(chapter.path, safe=""), binder

    # previous and next chapter (the theme's links), the first one back to the landing page
    number = chapter.number
    previous = page_of(CHAPTERS[number - 1]) if number else "index.html"
    assert page.locator("a.left-prev").get_attribute("href") == previous, name
    following = page.locator("a.right-next")
    if number + 1 < len(CHAPTERS):
        assert following.get_attribute("href") == page_of(CHAPTERS[number + 1]), name
    else:
        assert following.count() == 0, name

    # its drawings and plots, one picture for each in the notebook, every one loaded
    images = page.evaluate(OUTPUT_IMAGES)
    not_loaded = [image["src"] for image in images if not image["loaded"]]
    assert not_loaded == [], (name, not_loaded)
    svg = sum(image["src"].endswith(".svg") for image in images)
    png = sum(image["src"].endswith(".png") for image in images)
    assert (svg, png) == (want["svg"], want["png"]), (name, images, want)
    drawings = page.evaluate(INLINE_DRAWINGS, list(DRAWING_BOXES))
    assert len(drawings) == want["drawings"] and all(drawings), (name, drawings, want)
    # (and a chapter whose code draws or plots has pictures: not text in their place)
    assert svg + len(drawings) > 0 or not want["draws"], f"{name}: draw_dot drew no picture"
    assert png > 0 or not want["plots"], f"{name}: matplotlib made no picture"

    # its widgets, drawn from the state the build saved for every one
    assert want["saved"] == want["widgets"], (
        f"{name}: the build kept the state of {want['saved']} of its {want['widgets']} widgets"
    )
    if want["widgets"]:
        try:
            page.wait_for_function(f"() => ({WIDGETS})().every(Boolean)", timeout=WIDGETS_DRAWN)
        except PlaywrightTimeout:
            pytest.fail(f"{name}: its saved widgets were not drawn in {WIDGETS_DRAWN} ms")
    drawn = page.evaluate(WIDGETS)
    assert len(drawn) == want["widgets"] and all(drawn), (name, drawn, want)

    # its formulas, every one typeset by MathJax (from the site), none with an error
    math = page.evaluate(MATHJAX_DONE)
    if want["math"]:
        assert math is not None, f"{name}: its prose has formulas, but MathJax did not load"
        assert math["formulas"] > 0 and math["containers"] > 0, (name, math)
        assert math["typeset"] == math["formulas"], (name, math)
        assert math["errors"] == 0, (name, math)
    phone = check_on_a_phone(page, name)
    return (
        f"{name}: {svg + len(drawings)} drawings, {png} plots, {len(drawn)} widgets, "
        f"{math['typeset'] if math else 0} formulas; {phone}"
    )


def check_on_a_phone(page, name):
    """The page at a phone's width: it does not scroll sideways, every drawing's text stays
    readable, and every plot keeps its text readable (its own box scrolls instead)."""
    desktop = page.viewport_size
    page.set_viewport_size(PHONE)
    try:
        seen = page.evaluate(ON_A_PHONE, list(DRAWING_BOXES))
    finally:
        page.set_viewport_size(desktop)
    assert seen["pageWidth"] <= seen["windowWidth"], (
        f"{name}: on a phone ({PHONE['width']} px) the page is {seen['pageWidth']} px wide"
    )
    small = [size for size in seen["drawings"] if size < READABLE - 0.05]
    assert small == [], f"{name}: on a phone, drawings with text of {small} px"
    shrunk = [
        plot
        for plot in seen["plots"]
        if plot["shown"] < min(plot["natural"], PLOT_SHARE * plot["natural"]) - 1
    ]
    assert shrunk == [], f"{name}: on a phone, plots shrunk below readable text: {shrunk}"
    shrunk = [
        plot
        for plot in seen["widgetPlots"]
        if plot["shown"] < min(plot["natural"], WIDGET_PLOT_SHARE * plot["natural"]) - 1
    ]
    assert shrunk == [], f"{name}: on a phone, explorers' plots shrunk below readable: {shrunk}"
    smallest = f"{min(seen['drawings']):.1f} px" if seen["drawings"] else "none"
    return f"on a phone, smallest text in a drawing {smallest}"


def test_run_it_in_your_browser_opens_the_chapter_in_the_lite_edition(served_site, tmp_path):
    """A chapter page's first button opens that very notebook in the site's JupyterLite.
    (What the Lite edition asks of other hosts is tests/test_lite.py's business: printed only.)"""
    chapter = CHAPTERS[-1]
    blocked, page_errors = [], []
    with offline_page(served_site, blocked, page_errors) as page:
        page.goto(f"/{page_of(chapter)}")
        page.get_by_role("link", name="Run it in your browser").click()
        title = page.locator(".jp-NotebookPanel .jp-RenderedMarkdown h1").first
        title.wait_for(timeout=LITE_OPENS)
        assert title.inner_text().startswith(chapter.heading), title.inner_text()
        assert urlparse(page.url).path == "/lite/lab/index.html", page.url
        shot = tmp_path / "lite.png"
        page.screenshot(path=str(shot))
    print(f"\n{chapter.notebook} in the Lite edition, from its page's button: {shot}")
    print(f"blocked there: {blocked}; page errors there: {page_errors}")


# ---------------------------------------------------------------------------- no private paths


def load_execute():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "website_execute", ROOT / "website" / "execute.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_executed_chapters_show_no_path_of_the_machine_that_built_them():
    execute = load_execute()
    root = Path("/home/builder/course")  # a made-up build machine, written as outputs print it
    python = "/opt/python/3.12"
    clean = lambda text: execute.private_paths_removed(text, root=root, prefixes=(python,))
    # chapter 00's environment check and test drawing, chapter 11's tracebacks and compiler
    assert clean(f"Python 3.12.1 at {root}/website/.venv/bin/python") == (
        "Python 3.12.1 at website/.venv/bin/python"
    )
    assert (
        clean(f"the course's package, from {root}/autograd")
        == "the course's package, from autograd"
    )
    assert clean("Graphviz's dot draws the graphs (/usr/bin/dot)") == (
        "Graphviz's dot draws the graphs (…/dot)"
    )
    assert clean(f"\x1b[32m{root}/autograd/compile.py:232\x1b[39m") == (
        "\x1b[32mautograd/compile.py:232\x1b[39m"
    )
    assert clean(f"{python}/lib/python3.12/json/decoder.py") == "…/lib/python3.12/json/decoder.py"
    assert clean("C compiler: /usr/bin/cc") == "C compiler: …/cc"
    # what is not a path of the machine stays as it was
    for text in (
        "https://mybinder.org/v2/gh/a/b/HEAD?labpath=notebooks%2F10.ipynb",
        "notebooks/10_making_it_fast.ipynb",
        "ratio 3/4 and 1 / 2",
        "</b></td>",
        "x = 1/2/3",
    ):
        assert clean(text) == text
    # and the whole notebook: streams, tracebacks and text data; pictures untouched
    import nbformat

    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                outputs=[
                    nbformat.v4.new_output(
                        "stream", name="stdout", text=f"at {execute.ROOT}/autograd\n"
                    ),
                    nbformat.v4.new_output(
                        "error",
                        ename="E",
                        evalue=f"{execute.ROOT}/x.py",
                        traceback=[f"File {execute.ROOT}/autograd/compile.py:3"],
                    ),
                    nbformat.v4.new_output(
                        "display_data",
                        data={"text/plain": f"{execute.ROOT}/a", "image/png": "iVBOR/abc/def="},
                    ),
                ]
            )
        ]
    )
    execute.remove_private_paths(notebook)
    stream, error, display = notebook.cells[0].outputs
    assert stream["text"] == "at autograd\n"
    assert (error["evalue"], error["traceback"]) == ("x.py", ["File autograd/compile.py:3"])
    assert display["data"] == {"text/plain": "a", "image/png": "iVBOR/abc/def="}
