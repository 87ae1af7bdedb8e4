"""Drawing in the browser: the JupyterLite edition's Pyodide kernel, where there is no `dot`.

Pyodide cannot start programs, so `layout.run` comes here when `sys.platform == "emscripten"`.
Graphviz compiled to WebAssembly, the npm package `@viz-js/viz` (MIT), lies in the Lite site
at static/viz/viz.js (lite/build.py puts it there); on the first drawing it is imported into the
kernel's worker and waited for with `pyodide.ffi.run_sync`, and from then on each drawing is one
synchronous call. Its errors are Graphviz's own words, raised as `graphviz.CalledProcessError`
like a failing `dot`'s, so a notebook explains them the same way. It draws SVG and Graphviz's
text formats, not PNG or JPEG (it says so, as `dot -Tpng` does without cairo). The time limit
does not apply here: WebAssembly in the kernel cannot be stopped midway (max_nodes still
refuses a graph too large to draw).

Only this module knows the browser, and it imports `js` and `pyodide` only when it loads
viz-js. Tests elsewhere put a stand-in in `_renderer`: a function `(dot_text, settings)` that
returns `{"status": "success" | "failure", "output": text, "errors": [{"message", "level"}]}`,
as viz-js's `render` does.
"""

import re
import sys

import graphviz

__all__ = ["NAME", "VIZ_JS", "VizJsNotLoadedError", "location", "run"]

NAME = "viz-js"  # the layout program's name, as `layout_program()` reports it
# Where the site holds viz-js, relative to the folder of the site's Pyodide lock file
# (static/pyodide-lock/, which Pyodide reports as `lockfileBaseUrl`).
VIZ_JS = "../viz/viz.js"

_renderer = None  # viz-js's render, once loaded (or a test's stand-in)
_loading = None  # the JavaScript side of the loading, while it is under way


class VizJsNotLoadedError(graphviz.ExecutableNotFound):
    """Graphviz for the browser (viz-js) is not there (yet), so nothing can be drawn."""

    def __init__(self, message):
        RuntimeError.__init__(self, message)


def location():
    """The address of viz-js in this site."""
    import js
    import pyodide_js

    folder = js.URL.new(pyodide_js.lockfileBaseUrl or "./", js.location.href)
    return js.URL.new(VIZ_JS, folder).href


# JavaScript: start importing viz-js; the box says how it went (the promise never rejects).
_LOAD = """(url) => {
    const box = {viz: undefined, error: undefined};  // undefined: None in Python
    box.done = import(url).then(module => module.instance())
        .then(viz => { box.viz = viz; }, error => { box.error = String(error); });
    return box;
}"""


def _load():
    """viz-js's render as a Python function, waiting for it to load on first use."""
    import js
    from pyodide.code import run_js
    from pyodide.ffi import can_run_sync, run_sync, to_js

    global _loading
    url = location()
    if _loading is None:
        _loading = run_js(_LOAD)(url)
    box = _loading
    if not (box.viz or box.error):
        if not can_run_sync():  # a browser without JavaScript promise integration
            raise VizJsNotLoadedError(
                "Graphviz for the browser (viz-js) is still loading, and this browser cannot "
                "wait for it inside a cell. Run the cell again in a moment (or use Chromium, "
                "Chrome or Edge, where the first drawing waits for it)."
            )
        run_sync(box.done)
    if box.error:
        _loading = None  # the next drawing tries again
        raise VizJsNotLoadedError(
            f"Graphviz for the browser (viz-js) did not load from {url}: {box.error}\n"
            "The site was built without it (lite/build.py copies it to static/viz/viz.js), "
            "or the page lost its connection to the site. Reload the page to try again."
        )
    viz = box.viz

    def render(text, settings):
        result = viz.render(text, to_js(settings, dict_converter=js.Object.fromEntries))
        return result.to_py()

    return render


_ATTRIBUTE_OPTIONS = {"-G": "graphAttributes", "-N": "nodeAttributes", "-E": "edgeAttributes"}


def _settings(engine, output, options):
    """viz-js's render options for `dot -K{engine} -T{output} {options}`."""
    settings = {"engine": engine, "format": output}
    for option in options:
        kind, assignment = option[:2], option[2:]
        name, equals, value = assignment.partition("=")
        if kind not in _ATTRIBUTE_OPTIONS or not name:
            raise ValueError(
                f"in the browser, drawings take only -G, -N and -E options "
                f"(name=value), not {option!r}"
            )
        settings.setdefault(_ATTRIBUTE_OPTIONS[kind], {})[name] = value if equals else "true"
    return settings


# viz-js has no font files: it estimates the width of a label's text, and says so for each
# character beyond ASCII ("·" in x·x). The drawing is made all the same; the learner need not
# read about its font metrics.
_ESTIMATE_ONLY = re.compile(r"\s*(Warning:\s*)?no value for width of non-ASCII character \d+")


def run(
    engine,
    format,
    source,
    *,
    renderer=None,
    formatter=None,
    neato_no_op=None,
    quiet=False,
    options=(),
):
    """`layout.run` in the browser: DOT `source` (bytes, UTF-8) drawn by viz-js, as bytes."""
    global _renderer
    output = ":".join(part for part in (format, renderer, formatter) if part)
    command = [NAME, f"-K{engine}", f"-T{output}", *options]
    if neato_no_op:
        raise ValueError("in the browser, drawings cannot take neato_no_op")
    settings = _settings(engine, output, options)
    if _renderer is None:
        _renderer = _load()
    result = _renderer(source.decode("utf-8"), settings)
    messages = "".join(
        f"{error.get('level', 'error').capitalize()}: {error.get('message')}\n"
        for error in result.get("errors") or ()
        if not _ESTIMATE_ONLY.match(error.get("message") or "")
    )
    if result.get("status") != "success":
        raise graphviz.CalledProcessError(1, command, output=b"", stderr=messages.encode())
    if messages and not quiet:
        sys.stderr.write(messages)
    return result["output"].encode("utf-8")
