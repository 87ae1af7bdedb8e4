"""The JupyterLite edition: `lite/build.py` builds it, and it runs offline.

The build needs npm and a Python >= 3.12 (see lite/build.py); without them the tests skip on a
learner's machine and fail under CI=true. The site is built once for this module, then
(1) its files are checked: the notebooks, the `autograd` wheel where the Pyodide kernel installs
it from, a local Pyodide; (2) it is served on 127.0.0.1 and headless Chromium, with every request
to any other host blocked and logged, opens chapter 00, adds a cell that imports `autograd` and
runs it; (3) the same with a cell that draws a graph with `draw_dot`, which in the browser
draws with viz-js (Graphviz as WebAssembly) from the site. No cell may import numpy or matplotlib
here: Pyodide has them only on its CDN.
"""

import functools
import http.server
import importlib.util
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from conftest import CHROMIUM_ARGS, chromium, require_module, skip_or_fail

ROOT = Path(__file__).resolve().parent.parent
LITE = ROOT / "lite"
OUTPUT = LITE / "_output"
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))

BUILD_TIMEOUT = 1200  # seconds: a cold build downloads about 40 MB of packages
KERNEL_START = 240_000  # milliseconds: Pyodide, ipython and the kernel load in the page
CELL = 120_000  # milliseconds for the first cell's output


SMOKE_CELL = "import autograd; print(autograd.Value(2.0) * 3)"
DRAW_CELL = ('from autograd import Value; from autograd.viz import draw_dot; '
             'a = Value(2.0, label="a"); draw_dot(a * a)')


def _build_module():
    spec = importlib.util.spec_from_file_location("lite_build", LITE / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site():
    """Build the site once (from scratch) and return its folder."""
    if shutil.which("npm") is None:
        skip_or_fail("no `npm` on PATH, which lite/build.py needs (Debian: apt-get install npm)")
    if _build_module().find_python() is None:
        skip_or_fail("no Python >= 3.12, which lite/build.py needs (python3.12 on PATH or pyenv)")
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(LITE / "build.py")], capture_output=True,
                            text=True, timeout=BUILD_TIMEOUT)
    if result.returncode != 0:
        pytest.fail(f"lite/build.py failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    size = sum(p.stat().st_size for p in OUTPUT.rglob("*") if p.is_file())
    print(f"\nlite build: {time.monotonic() - started:.0f} s, site {size / 1e6:.1f} MB")
    return OUTPUT


def _kernel_settings(site):
    config = json.loads((site / "jupyter-lite.json").read_text(encoding="utf-8"))
    return config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]


def test_site_has_the_course_and_a_local_pyodide(site):
    assert (site / "index.html").is_file()
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
    # drawing: graphviz's Python package installs with autograd, and viz-js is in the site
    assert lock["autograd-from-scratch"]["depends"] == ["graphviz"]
    assert (lock_path.parent / lock["graphviz"]["file_name"]).resolve().is_file()
    assert lock["graphviz"]["imports"] == ["graphviz"]
    viz_js = site / "static" / "viz" / "viz.js"
    assert viz_js.is_file()
    assert (lock_path.parent / "../viz/viz.js").resolve() == viz_js.resolve()  # browser.VIZ_JS
    assert b"Graphviz" in viz_js.read_bytes()[:400]

    remote = sorted(name for name, p in lock.items() if p["file_name"].startswith("http"))
    print(f"\n{len(lock) - len(remote)} packages in the site, {len(remote)} left on Pyodide's "
          f"CDN (numpy in it: {'numpy' in remote}, matplotlib: {'matplotlib' in remote})")


# ------------------------------------------------------------------------ in the browser


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript",
                      ".wasm": "application/wasm", ".json": "application/json"}

    def log_message(self, *args):
        pass


@pytest.fixture
def served(site):
    """The site on 127.0.0.1, a free port, in a thread: its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


KERNEL_IDLE = """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
    .some(item => /^(?!No Kernel).* \\| Idle$/.test(item.textContent.trim()))"""

FIRST_CELL_OUTPUT = ".jp-Notebook .jp-Cell:first-child .jp-OutputArea-output"


def _run_a_new_first_cell(served, tmp_path, cell, name):
    """Open chapter 00 in headless Chromium (every other host blocked and logged), insert `cell`
    above its first cell and run it. Returns the output's HTML and what happened."""
    require_module("playwright")
    from playwright.sync_api import sync_playwright

    executable = chromium()

    blocked, page_errors = [], []

    def only_this_site(route):
        if urlparse(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.route("**/*", only_this_site)
        page = context.new_page()
        page.on("pageerror", lambda error: page_errors.append(str(error)))
        try:
            started = time.monotonic()
            page.goto(f"{served}/lab/index.html?path=00_start_here.ipynb")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=KERNEL_START)
            page.wait_for_function(KERNEL_IDLE, timeout=KERNEL_START)
            kernel_ready = time.monotonic() - started

            # a new first cell (command mode, "a" inserts above), typed and run
            page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputPrompt").click()
            page.keyboard.press("Escape")
            page.keyboard.press("a")
            page.keyboard.press("Enter")
            page.keyboard.type(cell)
            page.keyboard.press("Shift+Enter")
            page.wait_for_selector(FIRST_CELL_OUTPUT, timeout=CELL)
            first_output = time.monotonic() - started
            output = page.locator(FIRST_CELL_OUTPUT).first
            result = {"text": output.inner_text(), "html": output.inner_html()}
            page.screenshot(path=str(tmp_path / f"{name}.png"))
        except Exception:
            page.screenshot(path=str(tmp_path / f"{name}-failure.png"))
            raise
        finally:
            browser.close()

    print(f"\n{name} in Chromium: kernel idle {kernel_ready:.1f} s, first output "
          f"{first_output:.1f} s after page load; screenshot {tmp_path / name}.png")
    print(f"blocked requests ({len(blocked)}):", *blocked, sep="\n  ")
    return result, blocked, page_errors


def test_autograd_runs_offline_in_the_lite_notebook(served, tmp_path):
    output, blocked, page_errors = _run_a_new_first_cell(served, tmp_path, SMOKE_CELL, "lite")
    assert output["text"].strip() == "Value(data=6.0000, grad=0.0000)", output["text"]
    assert page_errors == [], page_errors


def test_draw_dot_draws_offline_in_the_lite_notebook(served, tmp_path):
    output, blocked, page_errors = _run_a_new_first_cell(served, tmp_path, DRAW_CELL, "draw")
    # JupyterLab shows an untrusted notebook's SVG as <img src="data:image/svg+xml,...">
    html = unquote(output["html"])
    assert "<svg" in html, output["html"][:3000]
    assert "autograd-no-drawing" not in html, output["text"][-3000:]
    # the picture is of a * a: the box of a (its label, data 2.0000) and the product's 4.0000
    for text in (">a<", "data 2.0000", "data 4.0000", ">*<"):
        assert text in html, (text, html[:3000])
    assert page_errors == [], page_errors
    # nothing the drawing needs was asked of another host
    assert not [url for url in blocked if "viz" in url or "graphviz" in url], blocked
