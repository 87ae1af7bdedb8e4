"""The JupyterLite edition: the course in the browser, with nothing to install.

`website/build.py` builds it (it runs lite/build.py) into the website's lite/ folder, once per
session (the `built_site` fixture: it needs npm and a Python >= 3.12; without them these tests
skip on a learner's machine and fail under CI=true). Then (1) its files are checked: every
chapter, the `autograd` wheel where the Pyodide kernel installs it from, a local Pyodide, viz-js,
the widgets' front end, the first page; (2) it is served on 127.0.0.1 and headless Chromium,
with every request to any other host blocked and logged, runs every cell of every chapter, each
in a page and kernel of its own, with their drawings drawn by viz-js (numpy and matplotlib are
on Pyodide's package site only, so where they cannot load, each cell that needs them says so in
one line); moves chapter 00's slider and sees the kernel's answer; runs chapter 10's checkpoint
on the fast engine, whose deep chain once killed the kernel; and (3) axe-core (tests/audit.py)
audits the first page, and chapters 05 and 07 in the pages where they ran. Screenshots go to a
temporary folder; their paths, each chapter's times and the blocked requests are printed
(pytest -s).
"""

import json
import os
import re
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from audit import AXE, axe_violations, require_axe, tally
from conftest import (
    CHROMIUM_ARGS,
    _QuietStaticHandler,
    cell_text,
    chromium,
    require_module,
    serve_folder,
)

from autograd.plots import CELL_SKIPPED, NEEDS_NUMPY, PLOT_SKIPPED, WHY_NO_PLOTS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))

KERNEL_START = 240_000  # milliseconds: Pyodide, ipython and the kernel load in the page
CELL = 120_000  # milliseconds for the first cell's output


# A Lite site already built (`python3 lite/build.py` writes lite/_output): set this variable to
# its folder to test it without building the whole website again.
EXISTING_SITE = "AUTOGRAD_LITE_SITE"
FIRST_VISIT = ROOT / "lite" / "first-visit.json"  # what a first visit downloads, as measured


@pytest.fixture(scope="module")
def site(request):
    """The JupyterLite edition, as the website carries it (website/build.py runs lite/build.py),
    or the folder that AUTOGRAD_LITE_SITE names."""
    existing = os.environ.get(EXISTING_SITE)
    if existing:
        assert (Path(existing) / "lab" / "index.html").is_file(), f"no Lite site in {existing}"
        return Path(existing)
    return request.getfixturevalue("built_site") / "lite"


def _kernel_settings(site):
    config = json.loads((site / "jupyter-lite.json").read_text(encoding="utf-8"))
    return config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"
    ]


def test_the_first_page_says_what_loads_where_edits_stay_and_lists_every_chapter(site):
    page = " ".join((site / "index.html").read_text(encoding="utf-8").split())
    measured = json.loads(FIRST_VISIT.read_text(encoding="utf-8"))["megabytes"]
    said = re.search(r"loads about (\d+) MB", page)
    assert said and int(said.group(1)) == round(measured), (said, measured)
    assert page.count("<main") == 1 and page.count("</main>") == 1  # the page's landmark
    assert "seconds before the first cell runs" in page
    assert "File &gt; Download" in page and "this browser's storage" in page
    assert "need the network" in page  # numpy and matplotlib
    links = re.findall(r'href="lab/index.html\?path=([^"]+)"', page)
    assert sorted(set(links)) == NOTEBOOKS
    assert (site / "lab" / "index.html").is_file()


def test_the_readme_states_the_measured_first_visit():
    """The README and the first page state one measured number (lite/first-visit.json), which
    the browser test below measures again."""
    measured = json.loads(FIRST_VISIT.read_text(encoding="utf-8"))["megabytes"]
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    said = re.findall(r"first visit loads about (\d+) MB", readme)
    assert said == [str(round(measured))], (said, measured)
    welcome = (ROOT / "lite" / "welcome.html").read_text(encoding="utf-8")
    assert "loads about $size MB" in welcome  # lite/build.py fills it in from the same file


def test_site_has_the_course_and_a_local_pyodide(site):
    assert (site / "lab" / "index.html").is_file()

    # every chapter, as the file browser lists it
    assert sorted(p.name for p in (site / "files").glob("*.ipynb")) == NOTEBOOKS
    listing = json.loads((site / "api" / "contents" / "all.json").read_text(encoding="utf-8"))
    assert set(NOTEBOOKS) <= {item["name"] for item in listing["content"]}

    settings = _kernel_settings(site)
    # Pyodide itself is the site's own copy, not a CDN's
    assert settings["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (site / "static" / "pyodide" / name).is_file(), name

    # the wheel, for piplite (`%pip install autograd-from-scratch`)...
    wheels = list((site / "pypi").glob("autograd_from_scratch-*-py3-none-any.whl"))
    assert len(wheels) == 1
    assert any(url.startswith("./pypi/all.json") for url in settings["pipliteUrls"])
    index = json.loads((site / "pypi" / "all.json").read_text(encoding="utf-8"))
    assert "autograd-from-scratch" in index

    # ...and in the lock file that Pyodide reads, so that `import autograd` alone installs it
    lock_url = settings["loadPyodideOptions"]["lockFileURL"]
    lock_path = site / lock_url
    lock = json.loads(lock_path.read_text(encoding="utf-8"))["packages"]
    package = lock["autograd-from-scratch"]
    assert package["imports"] == ["autograd"]
    assert (lock_path.parent / package["file_name"]).resolve().is_file()

    # the kernel's own packages are in the site too, not on a CDN
    for name in ("micropip", "ipython", "comm", "pyodide-kernel", "ipykernel", "jedi"):
        assert not lock[name]["file_name"].startswith("http"), (name, lock[name]["file_name"])
        assert (lock_path.parent / lock[name]["file_name"]).resolve().is_file(), name
    # drawing and widgets: graphviz's and ipywidgets' Python packages install with autograd
    # (ipywidgets without its front-end packages, which the site serves), viz-js is in the site
    assert lock["autograd-from-scratch"]["depends"] == ["graphviz", "ipywidgets"]
    assert lock["ipywidgets"]["depends"] == ["comm", "ipython", "traitlets"]
    for name in ("graphviz", "ipywidgets"):
        assert (lock_path.parent / lock[name]["file_name"]).resolve().is_file(), name
        assert lock[name]["imports"] == [name]
    assert (site / "extensions" / "@jupyter-widgets" / "jupyterlab-manager").is_dir()
    viz_js = site / "static" / "viz" / "viz.js"
    assert viz_js.is_file()
    assert (lock_path.parent / "../viz/viz.js").resolve() == viz_js.resolve()  # browser.VIZ_JS
    assert b"Graphviz" in viz_js.read_bytes()[:400]

    remote = sorted(name for name, p in lock.items() if p["file_name"].startswith("http"))
    print(
        f"\n{len(lock) - len(remote)} packages in the site, {len(remote)} left on Pyodide's "
        f"CDN (numpy in it: {'numpy' in remote}, matplotlib: {'matplotlib' in remote})"
    )


# ------------------------------------------------------------------------ in the browser


KERNEL_IDLE = """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
    .some(item => /^(?!No Kernel).* \\| Idle$/.test(item.textContent.trim()))"""

# The notebook as the page holds it: each cell's JSON (source, tags, execution count, outputs).
CELLS = """() => {
    const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
    return Array.from({length: cells.length}, (_, i) => cells.get(i).toJSON());
}"""

# Select cell `index` and run a notebook command on it: 'notebook:run-all-below' runs the cells
# from there down, as Run > Run Selected Cell and All Below does, and resolves (true or false)
# when they have run or an error stopped them; 'notebook:run-cell' runs it alone, as
# Shift+Enter does.
RUN_AT = """async ([index, command]) => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    notebook.activeCellIndex = index;
    notebook.deselectAll();
    return await window.jupyterapp.commands.execute(command);
}"""

# Scroll the notebook so that cell `index` is at the bottom of the window.
SCROLL_TO = """async (index) => {
    await window.jupyterapp.shell.currentWidget.content.scrollToItem(index, 'end');
}"""

# A new cell above the first, with `code` in it, run: resolves to the cell when it has run.
RUN_NEW_FIRST_CELL = """async (code) => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    notebook.activeCellIndex = 0;
    await window.jupyterapp.commands.execute('notebook:insert-cell-above');
    notebook.activeCell.model.sharedModel.setSource(code);
    await window.jupyterapp.commands.execute('notebook:run-cell');
    return notebook.model.cells.get(0).toJSON();
}"""

# Every chapter runs in the browser with only this site answering: Pyodide's package site, which
# alone has numpy and matplotlib, is blocked. Each code cell must run or say in one line that
# plots are skipped (autograd.plots): the notes it may show, in the browser's words.
CHAPTERS = NOTEBOOKS
NOTES = (WHY_NO_PLOTS[True], PLOT_SKIPPED, NEEDS_NUMPY[True], CELL_SKIPPED)
FIRST_VISIT_TOLERANCE = 0.15  # the measured first visit may differ this much from the stated one


def _remote_packages(site):
    """The URLs of the packages the site's Pyodide lock leaves on Pyodide's package site."""
    lock_url = _kernel_settings(site)["loadPyodideOptions"]["lockFileURL"]
    lock = json.loads((site / lock_url).read_text(encoding="utf-8"))["packages"]
    return {p["file_name"] for p in lock.values() if p["file_name"].startswith("http")}


class _CountingHandler(_QuietStaticHandler):
    """Serves the site and adds up the bytes of every file it sends."""

    served = [0]

    def copyfile(self, source, outputfile):
        data = source.read()
        outputfile.write(data)
        self.served[0] += len(data)


def _serve_counting(folder):
    return serve_folder(folder, _CountingHandler)


class OfflineBrowser:
    """Headless Chromium on the served site, every request to another host blocked and logged.

    The site's `jupyter-lite.json` reaches the page with `exposeAppInBrowser` on, so that the
    test can read the notebook's cells as JupyterLab holds them (the file on disk is unchanged).
    """

    def __init__(self, playwright, served, screenshots):
        self.served, self.screenshots = served, screenshots
        self.blocked, self.page_errors = [], []
        self.browser = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)

    def _route(self, route):
        url = urlparse(route.request.url)
        if url.hostname != "127.0.0.1":
            self.blocked.append((route.request.resource_type, route.request.url))
            route.abort()
        elif url.path.endswith("/jupyter-lite.json") and url.path.count("/") == 1:
            response = route.fetch()
            config = response.json()
            config["jupyter-config-data"]["exposeAppInBrowser"] = "true"
            route.fulfill(response=response, json=config)
        else:
            route.continue_()

    def start(self, notebook):
        """Start loading `notebook` in a page of its own (a new browser profile, as a first
        visit), without waiting for its kernel: the page, to give to `ready`. Close the page's
        context afterwards."""
        return self.visit(f"lab/index.html?path={notebook}")

    def visit(self, path):
        """A page of its own (a new browser profile) at `path` of the site. Close its context
        afterwards."""
        context = self.browser.new_context(viewport={"width": 1400, "height": 1000})
        context.route("**/*", self._route)
        page = context.new_page()
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        page.started, page.bytes_at_start = time.monotonic(), _CountingHandler.served[0]
        page.goto(f"{self.served}/{path}")
        return page

    def ready(self, page):
        """Wait for the notebook and its kernel in a page that `start` gave: the seconds from
        the page's start, and whether the notebook opened marked as modified."""
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=KERNEL_START)
        page.wait_for_function(KERNEL_IDLE, timeout=KERNEL_START)
        page.opened = time.monotonic()  # when the kernel was ready (or first seen to be)
        dirty = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
        return page.opened - page.started, dirty

    def screenshot(self, page, name):
        path = self.screenshots / f"{name}.png"
        page.screenshot(path=str(path))
        print(f"screenshot: {path}")
        return path


@pytest.fixture(scope="module")
def browser(site, tmp_path_factory):
    require_module("playwright")
    from playwright.sync_api import sync_playwright

    screenshots = tmp_path_factory.mktemp("lite-screenshots")
    with _serve_counting(site) as served, sync_playwright() as playwright:
        offline = OfflineBrowser(playwright, served, screenshots)
        offline.table = {}  # notebook -> (cells run, one-line notes, errors)
        try:
            yield offline
        finally:
            offline.browser.close()
            print(
                f"\nblocked requests ({len(offline.blocked)}):",
                *[f"{kind}: {url}" for kind, url in sorted(set(offline.blocked))],
                sep="\n  ",
            )
            print(
                "\nchapters in the browser, Pyodide's package site blocked:\n"
                f"  {'chapter':<44} {'run':>4} {'notes':>6} {'errors':>7}"
            )
            for notebook, (ran, notes, errors) in offline.table.items():
                print(f"  {notebook:<44} {ran:>4} {notes:>6} {errors:>7}")


def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def run_all(page):
    """Run every cell, top to bottom, as Run All does; return the cells and the seconds it took.

    JupyterLite stops running the cells below any cell that raises, even one tagged
    `raises-exception` (the tag that shows an error on purpose, which JupyterLab runs past).
    So where Run All stops at such a cell, the learner goes on with Run Selected Cell and All
    Below from the next one, and so does this test. An untagged error stops the run."""
    started = time.monotonic()
    index = 0
    while True:
        page.evaluate(RUN_AT, [index, "notebook:run-all-below"])
        cells = page.evaluate(CELLS)
        code = [i for i, cell in enumerate(cells) if cell["cell_type"] == "code"]
        not_run = [i for i in code if cells[i]["execution_count"] is None]
        if not not_run:
            return cells, time.monotonic() - started
        stopped = [i for i in code if i < not_run[0] and _errors(cells[i])][-1:]
        assert stopped and "raises-exception" in _tags(cells[stopped[0]]), (
            f"Run All stopped before cell {not_run[0]}: "
            + _describe_errors(cells[stopped[0]] if stopped else {"outputs": []})
        )
        index = not_run[0]


def _errors(cell):
    return [output for output in cell.get("outputs", []) if output["output_type"] == "error"]


def _describe_errors(cell):
    return "; ".join(f"{error['ename']}: {error['evalue']}" for error in _errors(cell)) or "?"


def _svg(cell):
    """The SVG a cell shows: a drawing's own, or inside HTML (chapter 00's test drawing)."""
    return "".join(
        output.get("data", {}).get(kind, "")
        for output in cell.get("outputs", [])
        for kind in ("image/svg+xml", "text/html")
    )


# The chapters that axe-core audits after Run All (test_the_browser_edition_has_no_serious_...).
AUDITED = [
    "05_topological_sort.ipynb",  # drawings, and a backward stepper with a slider and buttons
    "07_neural_network_library.ipynb",  # the training dashboard: sliders, buttons, plot
]
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
# A widget view in a notebook's output, drawn (ipywidgets writes its controls into it).
WIDGETS_SHOWN = """() => [...document.querySelectorAll(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.widget-view+json"]')]
    .every(output => output.querySelector('.jupyter-widgets'))"""
WIDGETS_DRAWN = 30_000  # milliseconds for the widgets to be drawn after Run All
SCRIPTS_SETTLE = 1000  # milliseconds for the page's scripts to finish with the last outputs


def audit_chapter(page):
    """axe-core on a chapter's page after Run All, once its widgets are drawn: its violations
    and counts (audit.axe_violations), or why it could not run (the test reports it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    if not AXE.is_file():
        return "no axe-core"  # require_axe() says where it comes from
    try:
        page.wait_for_function(WIDGETS_SHOWN, timeout=WIDGETS_DRAWN)
    except PlaywrightTimeout:
        return f"its widgets were not drawn in {WIDGETS_DRAWN} ms after Run All"
    page.wait_for_timeout(SCRIPTS_SETTLE)
    return axe_violations(page)


LOAD_AHEAD = 2  # chapters loading, their kernels starting, while one runs: 2 cores

# Let the page draw what a scroll brought into view before a screenshot: two frames.
DRAWN = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


@pytest.fixture(scope="module")
def run_chapters(browser):
    """Each chapter of CHAPTERS opened and run, once: {notebook: its run}. Chapter 00's
    page stays open (its kernel running) for the tests that go on from there; the others close.
    While a chapter runs, the next LOAD_AHEAD chapters of CHAPTERS load, each in a page of its
    own, and start their kernels (not while chapter 00's first visit is measured): starting
    Pyodide takes far longer than running a chapter, and the pages start theirs side by side.
    Each chapter still has its own page, browser profile and kernel.
    """
    runs, pages, loading = {}, [], {}

    def load_next(notebook):
        later = [
            name
            for name in CHAPTERS[CHAPTERS.index(notebook) + 1 :]
            if name not in runs and name not in loading
        ]
        for name in later[: max(0, LOAD_AHEAD - len(loading))]:
            loading[name] = browser.start(name)
            pages.append(loading[name])

    def run(notebook):
        if notebook not in runs:
            page = loading.pop(notebook, None)
            ahead = page is not None
            if page is None:
                page = browser.start(notebook)
                pages.append(page)
            kernel_seconds, dirty_on_open = browser.ready(page)
            first_output = None
            first_visit = None
            if notebook == CHAPTERS[0]:  # time the first cell, alone, from page load
                first_code = next(
                    i for i, cell in enumerate(page.evaluate(CELLS)) if cell["cell_type"] == "code"
                )
                page.evaluate(RUN_AT, [first_code, "notebook:run-cell"])
                first_output = kernel_seconds + time.monotonic() - page.opened
                first_visit = (_CountingHandler.served[0] - page.bytes_at_start) / 1e6
                print(
                    f"\nfirst visit: {first_visit:.1f} MB served up to chapter 00's first "
                    f"cell having run"
                )
            load_next(notebook)
            cells, seconds = run_all(page)
            stem = notebook.removesuffix(".ipynb")
            browser.screenshot(page, stem)
            drawing = next((i for i, cell in enumerate(cells) if "<svg" in _svg(cell)), None)
            if drawing is not None:  # and the chapter's first drawing, as the learner sees it
                page.evaluate(SCROLL_TO, drawing + 1)  # its output, under the cell's code
                page.evaluate(DRAWN)
                browser.screenshot(page, stem + "-drawing")
            noted = next(
                (
                    i
                    for i, cell in enumerate(cells)
                    if any(note in cell_text(cell) for note in NOTES)
                ),
                None,
            )
            if noted is not None:  # and the first one-line note about plots, as the learner sees it
                page.evaluate(SCROLL_TO, noted + 1)
                page.evaluate(DRAWN)
                browser.screenshot(page, stem + "-note")
            audited = audit_chapter(page) if notebook in AUDITED else None
            print(
                f"\n{notebook}: kernel idle "
                + ("by " if ahead else "")
                + f"{kernel_seconds:.1f} s after page load"
                + (" (loaded while the chapter before ran)" if ahead else "")
                + (f", first cell's output at {first_output:.1f} s" if first_output else "")
                + f", Run All {seconds:.1f} s"
            )
            if notebook != CHAPTERS[0]:
                page.context.close()
            runs[notebook] = {
                "page": page,
                "cells": cells,
                "first_visit": first_visit,
                "dirty_on_open": dirty_on_open,
                "audited": audited,
            }
        return runs[notebook]

    yield run
    for page in pages:
        if not page.is_closed():
            page.context.close()


@pytest.mark.parametrize("notebook", CHAPTERS)
def test_a_chapter_runs_every_cell_offline_in_the_browser(site, browser, run_chapters, notebook):
    """Every cell runs, or says in one line that its plot is skipped: no traceback outside the
    cells that raise on purpose, no NameError, no missing magic, no package that failed to
    load. Drawings are drawn; nothing is asked of another host but Pyodide's package site."""
    source = json.loads((site / "files" / notebook).read_text(encoding="utf-8"))["cells"]
    run = run_chapters(notebook)
    cells = run["cells"]
    assert [cell["source"] for cell in cells] == ["".join(cell["source"]) for cell in source]
    assert run["dirty_on_open"] is False, "the notebook opened marked as modified"
    ran, notes, errors = 0, 0, []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        assert cell["execution_count"] is not None, f"cell {index} did not run"
        text = cell_text(cell, stderr=False)
        if "raises-exception" in _tags(cell):
            if not _errors(cell):
                errors.append(f"cell {index} should raise, as it does in JupyterLab")
        elif _errors(cell):
            errors.append(f"cell {index}: {_describe_errors(cell)}")
        elif re.search(r"NameError|UsageError|ModuleNotFoundError|No module named", text):
            errors.append(f"cell {index} shows {text[:300]!r}")
        elif any(note in text for note in NOTES):
            notes += 1
        else:
            ran += 1
        stderr = "".join(
            o.get("text", "") for o in cell.get("outputs", []) if o.get("name") == "stderr"
        )
        if "non-ASCII character" in stderr:
            errors.append(f"cell {index} shows viz-js's warning: {stderr[:200]!r}")
    browser.table[notebook] = (ran, notes, len(errors))
    assert errors == [], errors
    if "plt.show()" in "".join(cell["source"] for cell in cells):  # one note says why, once
        assert (
            sum(
                cell_text(cell).count(WHY_NO_PLOTS[True]) + cell_text(cell).count(NEEDS_NUMPY[True])
                for cell in cells
            )
            == 1
        )
    if "browser_note()" in "".join(cell["source"] for cell in cells):  # chapters 9 to 11
        noting = cell_text(next(c for c in cells if "browser_note()" in c["source"]))
        assert "in the browser" in noting or CELL_SKIPPED in noting
    # every drawing the chapter makes is an SVG of boxes, drawn in the browser by viz-js (but
    # in a chapter built on numpy that could not load it, where each cell said it is skipped)
    drawn = [
        i
        for i, cell in enumerate(cells)
        if cell["cell_type"] == "code"
        and ("draw_dot(" in cell["source"] or "draw_test_graph()" in cell["source"])
        and CELL_SKIPPED not in cell_text(cell)
    ]
    for index in drawn:
        svg = _svg(cells[index])
        assert "<svg" in svg and "data " in svg, f"cell {index} drew no graph: {svg[:300]}"
    assert browser.page_errors == [], browser.page_errors
    # nothing was asked of another host but the packages Pyodide's package site has (numpy,
    # matplotlib): no picture, script, style sheet or viz-js
    assert {url for kind, url in browser.blocked} <= _remote_packages(site), browser.blocked


def test_a_first_visit_downloads_what_the_readme_and_first_page_say(browser, run_chapters):
    measured = run_chapters(CHAPTERS[0])["first_visit"]
    stated = json.loads(FIRST_VISIT.read_text(encoding="utf-8"))["megabytes"]
    assert abs(measured - stated) <= FIRST_VISIT_TOLERANCE * stated, (measured, stated)


def test_a_slider_moved_in_the_page_changes_what_the_kernel_writes(browser, run_chapters):
    """Chapter 00's widget test: the label under the slider is written by Python in the kernel."""
    page = run_chapters("00_start_here.ipynb")["page"]
    label = page.locator(".widget-label", has_text="The slider is at")
    label.scroll_into_view_if_needed(timeout=CELL)
    assert "The slider is at 5." in label.inner_text(timeout=CELL)
    handle = page.locator(".widget-slider .noUi-handle").first
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        """() => [...document.querySelectorAll('.widget-label')]
            .some(label => label.textContent.includes('The slider is at 7.'))""",
        timeout=CELL,
    )
    browser.screenshot(page, "widget-round-trip")
    assert browser.page_errors == [], browser.page_errors


def test_a_check_on_a_deep_chain_does_not_crash_the_browsers_kernel(browser, run_chapters):
    """Freed from its last node, a chain of thousands of `__slots__` nodes overflows Pyodide's
    stack and kills the kernel; the checks hold their chains in a list, which frees them one
    node at a time. Chapter 10's checkpoint on the package's fast engine builds one of 20,000,
    and no check may start a thread there (Pyodide has none). In chapter 00's kernel, after
    the chapter has run."""
    page = run_chapters("00_start_here.ipynb")["page"]
    cell = page.evaluate(
        RUN_NEW_FIRST_CELL,
        "from autograd import fast; "
        "from autograd.checks import ch10; "
        "print(ch10.checkpoint(fast.Value))",
    )
    text = "".join(output.get("text", "") for output in cell["outputs"])
    assert "8 of 8 checks passed" in text, text
    assert browser.page_errors == [], browser.page_errors


def test_the_browser_edition_has_no_serious_accessibility_failure_of_ours(browser, run_chapters):
    """axe-core on the first page, and on chapters 05 and 07 in the pages where they were run
    top to bottom (`run_chapters`): no critical or serious violation but JupyterLab's own."""
    require_axe()
    report, failures = [], []
    page = browser.visit("index.html")
    try:
        tally("index.html", *axe_violations(page), [], report, failures)
    finally:
        page.context.close()
    for notebook in AUDITED:
        audited = run_chapters(notebook)["audited"]
        if isinstance(audited, str):
            pytest.fail(f"{notebook}: axe-core did not run: {audited}")
        tally(notebook, *audited, NOT_OURS_IN_LITE, report, failures)
    print("\naxe-core in the browser edition, violations' nodes by impact:\n" + "\n".join(report))
    assert failures == [], "\n".join(failures)
