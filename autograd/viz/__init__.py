"""Draw a graph of Values: each value a box `{ label | data | grad }`, each operation an oval.

`draw_dot(root)` works on any object with `data`, `grad`, `_prev` and `_op` (and, if it has
one, `label`): the package's `Value`, the class a learner writes in a notebook, another engine.
It returns a `graphviz.Digraph` that a notebook shows as a picture that fits the output area:
as large as it was drawn when there is room, shrunk to the area's width when there is not, but
never with text smaller than 10 pixels (a phone scrolls sideways instead; see `screen.py`).
`side_by_side(...)` shows several drawings next to each other.

Turning the DOT text into a picture needs a Graphviz layout program. The system's `dot` is
used when it is on PATH; otherwise `graphviz-pure` (`pip install graphviz-pure`), looked for on
PATH and beside the running Python, because a notebook kernel often runs without its
environment's scripts folder on PATH. With neither, drawing raises `GraphvizNotFoundError`,
which says how to install one, and a notebook shows that advice with the DOT text instead.
A layout that takes longer than `LAYOUT_TIMEOUT` seconds (20; `draw_dot(..., timeout=...)`)
is stopped, and the notebook says so instead of waiting on and on.
In the browser (the JupyterLite edition, under Pyodide) there is no program to start: Graphviz
compiled to WebAssembly (viz-js, which the site carries) draws instead, in SVG.

>>> from autograd import Value
>>> from autograd.viz import backward_order, draw_dot
>>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
>>> c = a * b; c.label = "c"
>>> c.backward()
>>> [v.label for v in backward_order(c)]   # c's _backward runs first, then its inputs'
['c', 'b', 'a']
>>> graph = draw_dot(c)                     # in a notebook, the graph shows itself

The package's modules, each importing only those before it:

    browser.py   in the browser (JupyterLite's Pyodide kernel): Graphviz as WebAssembly
    layout.py    finding the layout program, running it under a time limit, its errors
    screen.py    a drawing on screen: shrunk to fit its box, as far as its text stays readable
    drawing.py   GraphDrawing: a graphviz.Digraph that becomes a picture through layout.py,
                 in a file (`save`), or in a notebook (or an explanation instead)
    draw.py      draw_dot: how values, operations, gradients and labels are drawn
    html.py      drawings in HTML: inline_svg, side_by_side
"""

import sys
import types

from . import layout
from .draw import DEFAULT_MAX_WIDTH, RANKDIRS, backward_order, draw_dot, trace
from .drawing import GraphDrawing, save
from .html import SideBySide, inline_svg, side_by_side
from .layout import GraphvizNotFoundError, LayoutProgram, LayoutTimeoutError, layout_program

__all__ = [
    "draw_dot",
    "side_by_side",
    "inline_svg",
    "DEFAULT_MAX_WIDTH",
    "trace",
    "backward_order",
    "layout_program",
    "save",
    "GraphDrawing",
    "SideBySide",
    "GraphvizNotFoundError",
    "LayoutTimeoutError",
    "LayoutProgram",
    "LAYOUT_TIMEOUT",
    "RANKDIRS",
]

_RANKDIRS = RANKDIRS  # its name before it was public; autograd.widgets reads it


# Settings that `layout.py` reads each time it runs a layout program. Setting one here
# (`viz.LAYOUT_TIMEOUT = 60`, or a test's `monkeypatch.setattr(viz, "_script_dirs", ...)`)
# sets it in `layout.py`, where it takes effect, as it did when viz was a single module. A
# module object can have such properties only through its class (see "Customizing module
# attribute access" in the Python reference), so this package's module gets a class of its own.
_SETTINGS = ("LAYOUT_TIMEOUT", "_script_dirs")


def _setting(name):
    def get(package):
        return getattr(layout, name)

    def set_(package, value):
        setattr(layout, name, value)

    return property(get, set_, doc=f"`autograd.viz.layout.{name}`: read and set there.")


class _Package(types.ModuleType):
    """`autograd.viz` itself, whose settings live in `autograd.viz.layout`."""

    LAYOUT_TIMEOUT = _setting("LAYOUT_TIMEOUT")
    _script_dirs = _setting("_script_dirs")

    def __dir__(self):
        return sorted({*super().__dir__(), *_SETTINGS})


sys.modules[__name__].__class__ = _Package
