"""Shared test set-up.

Optional tools (PyTorch, a browser) skip with a reason on a learner's machine that lacks them,
but CI (`CI=true`) must run every test, so there a missing tool is a failure, not a skip.
"""

import contextlib
import functools
import gc
import http.server
import importlib.util
import inspect
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from hypothesis import HealthCheck, settings

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# .ci/run has pip install PyTorch with the test requirements by PIP_REQUIREMENT; the environments
# the tests make (a fresh machine's, the class's) install only what their own commands name.
os.environ.pop("PIP_REQUIREMENT", None)

# The chapters keep the learner's engine in my_engine.py (autograd/yours.py). Under the tests, the
# notebooks (run by nbmake in file order, their kernels inheriting this environment) keep it in a
# folder of the session's own, never in notebooks/: chapters 4 to 7 then start from what
# chapters 2 to 5 kept, or, run alone, from the course's copy; both must pass.
_MY_ENGINE_FOLDER = tempfile.mkdtemp(prefix="course-my-engine-")
os.environ.setdefault("AUTOGRAD_MY_ENGINE", os.path.join(_MY_ENGINE_FOLDER, "my_engine.py"))

# The machine that runs the tests is shared and noisy: never fail a property test for time.
settings.register_profile(
    "course", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("course")


def skip_or_fail(reason):
    """Skip on a learner's machine; fail in CI, where every test must run. Every test that
    needs something a machine may lack skips through here (in a test, or at the top of a
    test module, which it then skips whole)."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true, so this test must run)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def require_module(name, hint=None):
    """Import module `name` and return it (for a dotted name `a.b`, the package `a`, as
    `import a.b` names it), or skip (fail in CI) with a reason that says how to get it: `hint`,
    or by default how to install it."""
    try:
        return __import__(name)
    except ImportError:
        if hint is None:
            hint = (
                "pip install -r requirements-torch.txt"
                if name == "torch"
                else f"pip install {name.split('.')[0]}"
            )
        skip_or_fail(f"{name} is not installed ({hint})")


# Headless Chromium, as it runs here: the system's own (Debian's `chromium`), never a
# Playwright download, with nothing that reaches out to the network on its own.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def chromium():
    """The system's Chromium, or skip (fail under CI) without it."""
    executable = shutil.which("chromium")
    if executable is None:
        skip_or_fail("no `chromium` on PATH (Debian: apt-get install chromium)")
    return executable


@pytest.fixture(autouse=True)
def fresh_answers():
    """Each test starts as a fresh kernel does: no exercise checked, no wrong tries counted."""
    from autograd.checks.exercise import forget_answers

    forget_answers()
    yield
    forget_answers()


# ------------------------------------------------------------------ long work, started early
# Some tests wait minutes for work that mostly downloads, installs or runs notebooks: the
# website's build (`built_site`), the README's set-up in a new environment
# (tests/test_fresh_machine.py), nbgrader's pipeline on a class (tests/test_classroom.py's
# `graded_class`) and every chapter's Run All, once per catalogued mistake
# (tests/test_run_all.py). Each starts as soon as the tests are collected, in a process of its own, and
# the tests go on meanwhile; the tests that need the pipeline run after all others but those that
# need the website, which run last, so that their work has the whole run to finish in. A test
# module that defines `before_the_tests()` has it called then (once the tests are collected and
# selected, before the first runs; given the module's selected tests if it takes an argument),
# to call `start_early`; `run_early(name, ...)` waits for what was started under `name`, or
# starts it there and then if nothing was.
#
# Work started early runs at a lower priority than the tests (BACKGROUND_NICENESS). A full run
# on 2 cores kept both busy for its first 500 s, the tests sharing them with the builds, and
# then used one core for most of the 1,100 s left. At a lower priority the builds take what the
# tests leave, in the first part and in the second, so the tests that wait for nothing go on
# at full speed, and a build still has the run's idle core to finish in. Even so, the tests
# from the builds' end to the browser's (about 700 s of a 1,720 s run) used one core of two, so
# the chapters' Run All starts early too, at the lowest priority (19): it takes what the tests
# and the builds leave, and the tests that read its results run late.
BACKGROUND_NICENESS = 10  # added to the tests' own (os.nice): 0 is the same priority, 19 the least


class _Early:
    """A command running in a session of its own, its output going to files. `prepare(folder)`
    gives the command (a list) and Popen's other arguments; `folder` is a scratch folder of the
    command's own, removed at the end of the session."""

    def __init__(self, prepare, niceness=BACKGROUND_NICENESS):
        self.folder = Path(tempfile.mkdtemp(prefix="course-early-"))
        self.stdout = open(self.folder / "stdout", "w+", encoding="utf-8", errors="replace")
        self.stderr = open(self.folder / "stderr", "w+", encoding="utf-8", errors="replace")
        self.started, self.process, self.error = time.monotonic(), None, None
        try:
            self.command, popen_kwargs = prepare(self.folder)
            self.process = subprocess.Popen(
                self.command,
                stdout=self.stdout,
                stderr=self.stderr,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                **popen_kwargs,
            )
        except Exception as error:  # noqa: BLE001  (raised again to the test that waits)
            self.error = error
            return
        if hasattr(os, "setpriority"):  # the command and all it starts (see BACKGROUND_NICENESS)
            niceness = min(19, os.getpriority(os.PRIO_PROCESS, 0) + niceness)
            with contextlib.suppress(OSError):  # gone already; the priority is only a preference
                os.setpriority(os.PRIO_PGRP, self.process.pid, niceness)

    def output(self):
        for file in (self.stdout, self.stderr):
            file.flush()
        return tuple(
            (self.folder / name).read_text(encoding="utf-8", errors="replace")
            for name in ("stdout", "stderr")
        )

    def wait(self, timeout):
        """The finished run: a subprocess.CompletedProcess with text output, `.seconds` since
        its start and `.folder`; after `timeout` seconds from its start, stop it and raise
        subprocess.TimeoutExpired."""
        if self.error is not None:
            raise self.error
        try:
            self.process.wait(timeout=max(0.0, self.started + timeout - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop()
            stdout, stderr = self.output()
            raise subprocess.TimeoutExpired(self.command, timeout, output=stdout, stderr=stderr)
        result = subprocess.CompletedProcess(self.command, self.process.returncode, *self.output())
        result.seconds, result.folder = time.monotonic() - self.started, self.folder
        return result

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            if hasattr(os, "killpg"):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)  # it and all it started
            else:
                self.process.kill()
            self.process.wait()

    def close(self):
        self.stop()
        self.stdout.close()
        self.stderr.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_EARLY = {}


def start_early(name, prepare, niceness=BACKGROUND_NICENESS):
    """Start the command that `prepare(folder)` gives (see `_Early`) now, in the background,
    as `name`, `niceness` below the tests' priority."""
    assert name not in _EARLY, f"{name} was started already"
    _EARLY[name] = _Early(prepare, niceness)


def run_early(name, prepare, timeout):
    """Wait for the command started as `name` by `start_early`, or, if none was, start it now
    (`prepare`, as for `start_early`) and wait for it (see `_Early.wait`)."""
    if name not in _EARLY:
        start_early(name, prepare)
    return _EARLY[name].wait(timeout)


def _build_the_website(folder):
    return [sys.executable, str(WEBSITE_BUILD)], {}


def _needs_the_website_build(item):
    """Does this test use the built website? (tests/test_lite.py's `site` does, unless
    AUTOGRAD_LITE_SITE names a Lite site already built.)"""
    names = getattr(item, "fixturenames", ())
    return "built_site" in names or ("site" in names and not os.environ.get("AUTOGRAD_LITE_SITE"))


def _runs_late(item):
    """2 for the tests that need the built website, 1 for those that wait for the nbgrader
    pipeline or for other work started early (a module's RUNS_LATE), 0 for the others."""
    if _needs_the_website_build(item):
        return 2
    waits = getattr(getattr(item, "module", None), "RUNS_LATE", False)
    return int(waits or "graded_class" in getattr(item, "fixturenames", ()))


# ------------------------------------------------------------------ the quick lane
# `python -m pytest -m "not slow"` leaves out the tests marked `slow` here: those that take
# minutes, run the notebooks, build the website, start JupyterLab, a browser or nbgrader, or run
# the benchmark, and the few others that take many seconds each (CONTRIBUTING.md, "Run the
# tests"). The full run, `python -m pytest`, runs them all, as CI does. A test module is slow as
# a whole when SLOW_MODULES names it, a single test when SLOW_TESTS does (or it carries
# `@pytest.mark.slow` itself); `--durations=30` shows which tests take long.
SLOW_MODULES = {
    "test_run_all.py": "runs every chapter as a learner does, and once per catalogued mistake",
    "test_browser.py": "starts JupyterLab and opens it in headless Chromium",
    "test_viz_browser.py": "opens drawings in headless Chromium",
    "test_viz_screen.py": "opens drawings in headless Chromium",
    "test_accessibility.py": "opens the built website in headless Chromium",
    "test_lite.py": "builds and opens the JupyterLite edition",
    "test_website.py": "builds the website, the notebooks executed",
    "test_binder.py": "writes Binder's build with repo2docker",
    "test_fresh_machine.py": "installs the course into a new environment",
    "test_classroom.py": "runs nbgrader on a class",
    "test_classroom_hub.py": "starts a JupyterHub with ten JupyterLab servers",
    "test_benchmarks.py": "runs the benchmark (its quick runs)",
    "test_without_plots.py": "runs every chapter in a kernel without numpy and matplotlib",
    "test_tensor_torch.py": "random tensor programs against PyTorch",
}
SLOW_TESTS = {  # "module::test": why (every parameter of the test)
    "test_nn.py::test_mlp_learns_moons_to_95_percent": "trains an MLP on the scalar engine",
    "test_engine_contract.py::test_million_node_chain_at_default_recursion_limit": "a chain of a million nodes, on each engine",
    "test_checks_ch07.py::test_the_solution_of_the_circles_reaches_90_percent_whatever_the_random_state": "trains chapter 7's network on several random states",
    "test_compile_fusion.py::test_loops_written_out_alone_or_inside_loops_run_the_statements_numbers": "600 property examples, each compiled",
}


def _is_slow(item):
    """A notebook run by nbmake, or a test that SLOW_MODULES or SLOW_TESTS names."""
    name = f"{item.path.name}::{getattr(item, 'originalname', item.name)}"
    return item.path.suffix == ".ipynb" or item.path.name in SLOW_MODULES or name in SLOW_TESTS


class _QuickLane:
    """Marks the slow tests, the notebooks too (which this file's own collection hooks do not
    see, being outside tests/), before `-m` selects among them."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items):
        for item in items:
            if _is_slow(item):
                item.add_marker(pytest.mark.slow)


def pytest_configure(config):
    config.pluginmanager.register(_QuickLane(), "course-quick-lane")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The tests that wait for work started early run last, in their order (see above)."""
    items.sort(key=_runs_late)  # a stable sort: the order is kept otherwise


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """Set aside what the collection imported from the collector's view; then start the long
    work of the tests selected to run (see above), before the first test."""
    if session.config.option.collectonly or not session.items:
        return
    # The test modules import PyTorch, Hypothesis, IPython and the rest: about 270,000 objects
    # that live as long as the session. gc.freeze() moves them out of the generations the
    # collector scans, so that each collection (every gc.collect() of a check or a benchmark,
    # and each full collection CPython makes on its own) scans only what the tests made. The
    # quick lane took 244 s without it and 196 s with it, one run after the other. Acyclic
    # garbage is still freed as ever; only a cycle made before this line would never be.
    gc.collect()
    gc.freeze()
    modules = {}
    for item in session.items:
        module = getattr(item, "module", None)
        if module is not None and hasattr(module, "before_the_tests"):
            modules.setdefault(module.__name__, (module, []))[1].append(item)
    for module, items in modules.values():  # before the build, which writes into the repository
        if inspect.signature(module.before_the_tests).parameters:
            module.before_the_tests(items)
        else:
            module.before_the_tests()
    if (
        any(_needs_the_website_build(item) for item in session.items)
        and shutil.which("npm")
        and _lite_build_module().find_python() is not None
    ):
        start_early("website build", _build_the_website)


def pytest_sessionfinish(session):
    """Stop whatever was started early and is still running (a test failed or was not run)."""
    while _EARLY:
        _EARLY.popitem()[1].close()
    shutil.rmtree(_MY_ENGINE_FOLDER, ignore_errors=True)


# ------------------------------------------------------------------ the website, built and served
# `python3 website/build.py` builds the course website, the JupyterLite edition included, into
# website/_site. The fixtures below build it once for the whole session, serve it on 127.0.0.1,
# and open its pages in headless Chromium with every other host blocked (tests/test_website.py;
# any test of a static site can use them).

REPOSITORY_ROOT = Path(__file__).resolve().parent.parent
WEBSITE_BUILD = REPOSITORY_ROOT / "website" / "build.py"
WEBSITE_SITE = REPOSITORY_ROOT / "website" / "_site"
WEBSITE_EXECUTED = REPOSITORY_ROOT / "website" / "_build" / "src"
WEBSITE_BUILD_TIMEOUT = 1500  # seconds: a cold build downloads the Sphinx and Lite stacks


def _lite_build_module():
    path = REPOSITORY_ROOT / "lite" / "build.py"
    spec = importlib.util.spec_from_file_location("lite_build", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _size_mb(folder):
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


@pytest.fixture(scope="session")
def built_site():
    """Build the website once (website/build.py, with this Python) and return website/_site.
    The build starts when the tests have been collected (see `pytest_runtestloop`)."""
    if shutil.which("npm") is None:
        skip_or_fail("no `npm` on PATH, which website/build.py needs (Debian: apt-get install npm)")
    if _lite_build_module().find_python() is None:
        skip_or_fail(
            "no Python >= 3.12, which the JupyterLite edition needs (python3.12 on PATH or pyenv)"
        )
    try:
        result = run_early("website build", _build_the_website, timeout=WEBSITE_BUILD_TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(
            f"website/build.py took more than {WEBSITE_BUILD_TIMEOUT} s:\n"
            f"{(timeout.stdout or '')[-4000:]}",
            pytrace=False,
        )
    if result.returncode != 0:
        pytest.fail(
            f"website/build.py failed (exit {result.returncode}):\n"
            f"{result.stdout[-4000:]}\n{result.stderr[-6000:]}",
            pytrace=False,
        )
    summary = result.stdout[result.stdout.rfind("website/build.py:") :]
    print(
        f"\nwebsite build: {result.seconds:.0f} s from its start, "
        f"site {_size_mb(WEBSITE_SITE):.1f} MB\n{summary}"
    )
    return WEBSITE_SITE


@pytest.fixture(scope="session")
def executed_chapters(built_site):
    """The chapters as the website build ran them (website/_build/src): each run top to bottom
    in a fresh kernel in the notebooks folder, with its outputs and its widgets' state, a row of
    buttons added under its title (website/build.py, website/execute.py)."""
    return WEBSITE_EXECUTED


class _QuietStaticHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    def log_message(self, *args):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a page closed mid-download
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve_folder(folder, handler_class=None):
    """Serve `folder` on 127.0.0.1, on a free port, in a thread: yields the base URL.
    `handler_class` (a subclass of the quiet static handler) can count or log what is sent."""
    handler = functools.partial(handler_class or _QuietStaticHandler, directory=str(folder))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def served_site(built_site):
    """The built website on 127.0.0.1: its base URL (the Lite edition is under /lite/)."""
    with serve_folder(built_site) as base_url:
        yield base_url


@contextlib.contextmanager
def offline_page(base_url, blocked, page_errors, viewport=(1400, 1000)):
    """A page of headless Chromium (the system's, see chromium()) in which only `base_url`'s
    host (127.0.0.1) answers: every request to another host is aborted and its URL appended to
    `blocked`; every uncaught error of a page's scripts is appended to `page_errors`. Relative
    URLs (`page.goto("/index.html")`) are relative to `base_url`. One browser, one context."""
    require_module("playwright")
    from playwright.sync_api import sync_playwright

    executable = chromium()
    host = urlparse(base_url).hostname

    def only_this_host(route):
        if urlparse(route.request.url).hostname == host:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                base_url=base_url, viewport={"width": viewport[0], "height": viewport[1]}
            )
            context.route("**/*", only_this_host)
            page = context.new_page()
            page.on("pageerror", lambda error: page_errors.append(f"{page.url}: {error}"))
            yield page
        finally:
            browser.close()


def cell_text(cell, stderr=True):
    """Everything a saved notebook cell showed, as text: streams, results and errors (without
    stderr when `stderr` is false, to leave libraries' warnings out)."""
    parts = []
    for output in cell.get("outputs", []):
        if stderr or output.get("name") != "stderr":
            parts.append(output.get("text", ""))
        parts.extend(str(value) for value in output.get("data", {}).values())
        if output["output_type"] == "error":
            parts.append(f"{output['ename']}: {output['evalue']}")
    return "".join(parts)
