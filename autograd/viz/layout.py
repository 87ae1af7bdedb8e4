"""The Graphviz layout program: finding one, and running it under a time limit.

A layout program turns DOT text into a picture. The system's `dot` is used when it is on PATH;
otherwise `graphviz-pure` (`pip install graphviz-pure`), looked for on PATH and beside the
running Python, because a notebook kernel often runs without its environment's scripts folder
on PATH. With neither, `layout_program()` raises `GraphvizNotFoundError`, which says how to
install one.

`run(...)` is the one place a layout program is started. It stops the program after
`LAYOUT_TIMEOUT` seconds (or the drawing's own limit) and raises `LayoutTimeoutError`, so a
notebook says what happened instead of waiting on and on.

In the browser (JupyterLite's Pyodide kernel, `sys.platform == "emscripten"`), where no program
can be started, the layout program is Graphviz compiled to WebAssembly: `browser.py`.

This module knows nothing of graphviz's Python objects: it takes DOT text as bytes and gives
back the picture as bytes. From the graphviz package it uses only two public exception classes.
"""

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import NamedTuple

import graphviz

from .._floats import is_real
from .._platform import IN_BROWSER  # Pyodide: drawn by viz-js (browser.py), no program
from . import browser

__all__ = [
    "LAYOUT_TIMEOUT",
    "LayoutProgram",
    "GraphvizNotFoundError",
    "LayoutTimeoutError",
    "layout_program",
    "check_timeout",
    "run",
]

# How long a layout program may work on one drawing before it is stopped, in seconds. The
# article's graphs take a tenth of a second; a few hundred values with many crossing arrows can
# take minutes, which a notebook would spend looking stuck.
LAYOUT_TIMEOUT = 20.0
_LONGEST_TIMEOUT = 86400.0  # a day; more is no limit but a mistake (and overflows select())


class LayoutProgram(NamedTuple):
    """The Graphviz layout program that drawings use: its name and where it is."""

    name: str  # "dot" or "graphviz-pure"; in the browser "viz-js"
    path: str


class GraphvizNotFoundError(graphviz.ExecutableNotFound):
    """No Graphviz layout program was found, so a graph cannot be turned into a picture."""

    def __init__(self):
        folders = _script_dirs()
        beside = f" or beside this Python ({', '.join(folders)})" if folders else ""
        RuntimeError.__init__(
            self,
            "Drawing a graph needs a Graphviz layout program, and none was found: no `dot` on "
            f"PATH, and no `graphviz-pure` on PATH{beside}.\n"
            "Install either one, then run the cell again:\n"
            "  pip install graphviz-pure          (any computer; in a notebook: "
            "%pip install graphviz-pure)\n"
            "  or Graphviz itself: apt-get install graphviz (Debian, Ubuntu), "
            "brew install graphviz (macOS), conda install graphviz (conda)\n"
            "Until then, `graph.source` shows the graph as DOT text.",
        )


class LayoutTimeoutError(TimeoutError):
    """The layout program took longer than its time limit, so the drawing was given up."""

    def __init__(self, seconds, values=None):
        self.seconds = seconds
        size = "" if values is None else f" ({values} values)"
        super().__init__(
            f"Laying out this drawing{size} took longer than {seconds:g} s, so the layout "
            "program was stopped. A graph this large or this tangled does not read well "
            "anyway: draw a smaller part of it, and keep max_nodes small enough to refuse such "
            "a graph (the default is 300). To wait longer, pass draw_dot(..., timeout=...) "
            "in seconds."
        )


def _script_dirs():
    """Folders where pip puts commands for this Python, which may be missing from PATH."""
    folders = [sysconfig.get_path("scripts")]
    if sys.executable:  # empty in some embedded Pythons
        folders.insert(0, str(Path(sys.executable).parent))
    try:
        folders.append(sysconfig.get_path("scripts", sysconfig.get_preferred_scheme("user")))
    except (KeyError, ValueError):  # a Python built without user installs
        pass
    return list(dict.fromkeys(f for f in folders if f))


def layout_program():
    """Return the `LayoutProgram` drawings will use, or raise `GraphvizNotFoundError`.

    The system's `dot` on PATH first, then `graphviz-pure` on PATH, then `graphviz-pure`
    beside the running Python. Looked up afresh each time, so installing one mid-session works.
    In the browser: viz-js, and the address it loads from.
    """
    if IN_BROWSER:
        return LayoutProgram(browser.NAME, browser.location())
    dot = shutil.which("dot")
    if dot:
        return LayoutProgram("dot", dot)
    for folder in [None, *_script_dirs()]:  # None: search PATH
        found = shutil.which("graphviz-pure", path=folder)
        if found:
            return LayoutProgram("graphviz-pure", found)
    raise GraphvizNotFoundError()


def check_timeout(timeout):
    """`timeout` as a float number of seconds, or None (meaning `LAYOUT_TIMEOUT`); refuse
    anything that is not a sensible time limit, with a message that says why."""
    if timeout is None:
        return None
    if not is_real(timeout):
        raise TypeError(
            f"timeout must be a number of seconds or None, but was {timeout!r} of "
            f"type {type(timeout).__name__}"
        )
    if not 0 < timeout <= _LONGEST_TIMEOUT:  # also refuses nan
        raise ValueError(
            f"timeout must be more than 0 and at most {_LONGEST_TIMEOUT:g} seconds "
            f"(a day), or None for LAYOUT_TIMEOUT ({LAYOUT_TIMEOUT:g} s), but was "
            f"{timeout!r}"
        )
    return float(timeout)


def run(
    engine,
    format,
    source,
    *,
    renderer=None,
    formatter=None,
    neato_no_op=None,
    quiet=False,
    cwd=None,
    options=(),
    timeout=None,
    values=None,
):
    """Lay out DOT `source` (bytes) with `layout_program()`; return the picture as bytes.

    `engine` is the layout (`-K`: "dot", "neato", ...) and `format` the picture's format
    (`-T`: "svg", "png", ...), with an optional renderer and formatter as Graphviz's
    `-Tformat:renderer:formatter` takes them. `options` are further command-line options.
    The program is stopped after `timeout` seconds (None: `LAYOUT_TIMEOUT`), and then
    `LayoutTimeoutError` says so; `values`, the number of values drawn, goes in its message.
    A program that fails raises `graphviz.CalledProcessError` with its output and complaint
    (bytes); its warnings go to stderr unless `quiet`.

    In the browser viz-js draws instead (`browser.run`), with no time limit and no `cwd`.
    """
    if IN_BROWSER:
        return browser.run(
            engine,
            format,
            source,
            renderer=renderer,
            formatter=formatter,
            neato_no_op=neato_no_op,
            quiet=quiet,
            options=options,
        )
    program = layout_program()
    output = ":".join(part for part in (format, renderer, formatter) if part)
    command = [program.path, f"-K{engine}", f"-T{output}", *options]
    if neato_no_op:
        command.append(f"-n{int(neato_no_op)}")
    seconds = LAYOUT_TIMEOUT if timeout is None else timeout
    try:
        # run() kills the program when the time is up, and waits for it to end.
        done = subprocess.run(command, input=source, capture_output=True, cwd=cwd, timeout=seconds)
    except subprocess.TimeoutExpired:
        raise LayoutTimeoutError(seconds, values) from None
    if done.returncode != 0:
        raise graphviz.CalledProcessError(
            done.returncode, command, output=done.stdout, stderr=done.stderr
        )
    if done.stderr and not quiet:
        sys.stderr.write("".join(_worth_showing(done.stderr.decode(errors="replace"))))
    return done.stdout


def _worth_showing(stderr):
    """The layout program's warnings, less graphviz-pure's note on every character beyond
    ASCII that it has no width for (it guesses one; a learner can do nothing about it)."""
    return [
        line for line in stderr.splitlines(keepends=True) if "no value for width of" not in line
    ]
