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
A layout that takes longer than `layout.LAYOUT_TIMEOUT` seconds (20; set it there, as
`autograd.viz.layout.LAYOUT_TIMEOUT = 60`, or per drawing, `draw_dot(..., timeout=...)`) is
stopped, and the notebook says so instead of waiting on and on.
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

    browser.py        in the browser (JupyterLite's Pyodide kernel): Graphviz as WebAssembly
    layout.py         finding the layout program, running it under a time limit, its errors
    screen.py         a drawing on screen: shrunk to fit its box, as far as its text stays
                      readable
    graph_drawing.py  GraphDrawing: a graphviz.Digraph that becomes a picture through
                      layout.py, in a file (`save`), or in a notebook (or an explanation
                      instead), and says in words what it shows
    draw.py           draw_dot: how values, operations, gradients and labels are drawn
    html.py           drawings in HTML: inline_svg, side_by_side
"""

from . import layout
from .draw import DEFAULT_MAX_WIDTH, RANKDIRS, backward_order, draw_dot, trace
from .graph_drawing import GraphDrawing, save
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
    "RANKDIRS",
]
