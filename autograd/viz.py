"""Draw a graph of Values: each value a box `{ label | data | grad }`, each operation an oval.

`draw_dot(root)` works on any object with `data`, `grad`, `_prev` and `_op` (and, if it has
one, `label`): the package's `Value`, the class a learner writes in a notebook, another engine.
It returns a `graphviz.Digraph` that a notebook shows as a picture, scaled down to at most
`max_width` inches (9.5 by default, about 910 pixels) so that a wide graph fits the notebook
instead of scrolling sideways. `side_by_side(...)` shows several drawings next to each other.

Turning the DOT text into a picture needs a Graphviz layout program. The system's `dot` is
used when it is on PATH; otherwise `graphviz-pure` (`pip install graphviz-pure`), looked for on
PATH and beside the running Python, because a notebook kernel often runs without its
environment's scripts folder on PATH. With neither, drawing raises `GraphvizNotFoundError`,
which says how to install one, and a notebook shows that advice with the DOT text instead.
A layout that takes longer than `LAYOUT_TIMEOUT` seconds (20; `draw_dot(..., timeout=...)`)
is stopped, and the notebook says so instead of waiting on and on.

>>> from autograd import Value
>>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
>>> c = a * b; c.label = "c"
>>> c.backward()
>>> [v.label for v in backward_order(c)]   # c's _backward runs first, then its inputs'
['c', 'b', 'a']
>>> graph = draw_dot(c)                     # in a notebook, the graph shows itself
"""

import html
import math
import numbers
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import NamedTuple

import graphviz

from . import graph
from .graph import require_value_like

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
]

_VALUE_ATTRIBUTES = ("data", "grad", "_prev", "_op")
_RANKDIRS = ("LR", "TB", "RL", "BT")

# Blue for a positive gradient, orange for a negative one: a pair that stays distinct for
# the common kinds of colour blindness, unlike red and green.
_POSITIVE = (33, 102, 172)
_NEGATIVE = (230, 97, 1)
_NAN_FILL = "#d9d9d9"
_HIGHLIGHT = "#c2185b"
_FONT = "Helvetica"

# JupyterLab shows a drawing at its natural size, 96 pixels to the inch, and scrolls one wider
# than the output area: about 950 pixels in a 1400-pixel window with the file browser open.
DEFAULT_MAX_WIDTH = 9.5  # inches
_WIDEST = 100  # inches; a larger max_width was most likely meant in pixels
# Graphviz's size limits height as well as width; only the width is meant to be limited.
_NO_HEIGHT_LIMIT = 1000  # inches
# How long a layout program may work on one drawing before it is stopped, in seconds. The
# article's graphs take a tenth of a second; a few hundred values with many crossing arrows can
# take minutes, which a notebook would spend looking stuck.
LAYOUT_TIMEOUT = 20.0
_LONGEST_TIMEOUT = 86400.0  # a day; more is no limit but a mistake (and overflows select())


# --------------------------------------------------------------------------- walking the graph


def _require_value_like(obj, context):
    require_value_like(obj, context, _VALUE_ATTRIBUTES)


def trace(root):
    """Return `(values, edges)` for the graph that ends at `root` (see `autograd.graph.trace`).

    `values` lists each value once, inputs before the values computed from them and `root`
    last (the order the graph is drawn and named in: `v0, v1, ...`). `edges` holds one
    `(input, output)` pair per use, so `y = x * x` gives `(x, y)` twice.
    """
    return graph.trace(root, _VALUE_ATTRIBUTES)


def backward_order(root):
    """Return the values in the order `root.backward()` runs their `_backward`: `root` first
    (see `autograd.graph.backward_order`)."""
    return graph.backward_order(root, _VALUE_ATTRIBUTES)


# --------------------------------------------------------------------------- the drawing


def draw_dot(
    root,
    *,
    rankdir="LR",
    show_grad=True,
    highlight=(),
    color_grads=False,
    show_order=False,
    max_nodes=300,
    max_width=DEFAULT_MAX_WIDTH,
    timeout=None,
):
    """Draw the graph that ends at `root` and return it as a `GraphDrawing` (a `graphviz.Digraph`).

    Each value is a box `{ label | data 2.0000 | grad -3.0000 }` (no label part without a
    label), each operation a small oval between a value and its inputs; a value used twice is
    drawn once with an arrow per use.

    rankdir      "LR" (inputs on the left), "TB", "RL" or "BT".
    show_grad    False leaves out the grad part (before `backward()` it is only zeros).
    highlight    a value, or values, to draw with a thick coloured border (SVG class
                 "highlighted"); None or () for none.
    color_grads  fill each value by its gradient: blue positive, orange negative, deeper for
                 a larger |grad| relative to the largest in the graph; a caption explains.
    show_order   number each value by when `backward()` runs its `_backward` (#1 = root).
    max_nodes    refuse (ValueError) a graph with more values than this: it would not lay
                 out readably, and the layout gets slow.
    max_width    in inches (96 pixels each on screen): a wider drawing is scaled down, text
                 and all, to this width; a narrower one keeps its size. None: never scale.
                 Text gets small below about 2/3 of its size (a graph some 14 inches wide);
                 rankdir="TB" often makes a long chain narrower.
    timeout      seconds the layout program may take to draw it (None: `LAYOUT_TIMEOUT`,
                 20 s); a slower layout stops with `LayoutTimeoutError`, which a notebook
                 shows as a message.

    Labels and operations are drawn exactly as given, `&`, `<`, `\\`, `{`, `|` and all;
    only what a picture cannot show as itself is drawn visibly: a tab as ⇥, a line break as
    ↵, another control character as Python writes it (\\r, \\x01), and spaces a browser would
    squeeze away as no-break spaces, which look the same.

    A value whose `_op` is empty but that has inputs gets arrows straight from its inputs.
    """
    if rankdir not in _RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(_RANKDIRS)}, but was {rankdir!r}")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"max_nodes must be a whole number of at least 1, but was {max_nodes!r}")
    _check_max_width(max_width)
    _check_timeout(timeout)

    values, _ = trace(root)
    if len(values) > max_nodes:
        raise ValueError(
            f"this graph has {len(values)} values, more than max_nodes={max_nodes} can be laid "
            f"out readably; pass max_nodes={len(values)} (or more) to draw it anyway, or draw a "
            f"smaller part of the graph"
        )
    names = {id(value): f"v{i}" for i, value in enumerate(values)}
    highlighted = _highlighted_ids(highlight, names)
    # backward() runs the last value of the post-order first, so position i is step n - i.
    steps = {id(value): len(values) - i for i, value in enumerate(values)}
    largest = _largest_abs_grad(values) if color_grads else None

    graph_attr = {
        "rankdir": rankdir,
        "bgcolor": "white",
        "nodesep": "0.2",
        "ranksep": "0.3",
        "fontname": _FONT,
        "fontsize": "11",
    }
    if max_width is not None:
        # Graphviz scales the whole layout down when it exceeds `size` (never up), so every
        # layout program draws the same picture, only smaller.
        graph_attr["size"] = f"{_inches(max_width)},{_NO_HEIGHT_LIMIT}"
    graph = GraphDrawing(
        name="autograd",
        graph_attr=graph_attr,
        # Slim padding: a notebook shrinks a drawing wider than the cell, text and all.
        node_attr={"fontname": _FONT, "fontsize": "12", "margin": "0.09,0.05", "height": "0.3"},
        edge_attr={"color": "#555555", "arrowsize": "0.7"},
    )
    graph.values = tuple(values)
    graph.timeout = timeout
    fields_across = rankdir in ("LR", "RL")  # a record's fields run across the rank direction

    for i, value in enumerate(values):
        name = names[id(value)]
        fields = [f"#{steps[id(value)]}"] if show_order else []
        fields += _fields(value, show_grad)
        text = " | ".join(fields)
        attributes = {"label": graphviz.nohtml(f"{{ {text} }}" if fields_across else text)}
        classes = ["value"]
        if color_grads:
            attributes.update(_grad_fill(value.grad, largest))
        if id(value) in highlighted:
            attributes.update(color=_HIGHLIGHT, penwidth="3.5")
            classes.append("highlighted")
        graph.node(name, shape="record", **attributes, **{"class": " ".join(classes)})

        inputs = value._prev  # checked by trace: a tuple, list or set of values
        target = name
        if inputs and value._op not in (None, ""):  # without an _op, inputs point straight in
            target = f"op{i}"
            label = graphviz.nohtml(_escape_plain(str(value._op)))
            graph.node(target, label=label, **_OP_STYLE)
            graph.edge(target, name)
        for child in inputs:
            graph.edge(names[id(child)], target)

    caption = _caption(color_grads, largest, show_order, values)
    if caption:
        graph.attr(label=caption, labelloc="b", labeljust="l")
    return graph


def _check_max_width(max_width):
    if max_width is None:
        return
    if isinstance(max_width, bool) or not isinstance(max_width, numbers.Real):
        raise TypeError(
            f"max_width must be a number of inches or None, but was {max_width!r} of type "
            f"{type(max_width).__name__}"
        )
    if not 1 <= max_width <= _WIDEST:  # also refuses nan
        hint = ""
        if _WIDEST < max_width < math.inf:
            hint = (f" (it is in inches, not pixels: {max_width:g} pixels would be "
                    f"max_width={max_width / 96:.1f})")
        raise ValueError(
            f"max_width must be from 1 to {_WIDEST} inches, or None to draw at full size, "
            f"but was {max_width!r}{hint}"
        )


def _check_timeout(timeout):
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
        raise TypeError(f"timeout must be a number of seconds or None, but was {timeout!r} of "
                        f"type {type(timeout).__name__}")
    if not 0 < timeout <= _LONGEST_TIMEOUT:  # also refuses nan
        raise ValueError(f"timeout must be more than 0 and at most {_LONGEST_TIMEOUT:g} seconds "
                         f"(a day), or None for LAYOUT_TIMEOUT ({LAYOUT_TIMEOUT:g} s), but was "
                         f"{timeout!r}")
    return float(timeout)


def _inches(x):
    """A number of inches as Graphviz reads it: plain decimals, never an exponent."""
    return f"{float(x):.3f}".rstrip("0").rstrip(".")


_OP_STYLE = {
    "shape": "ellipse",
    "style": "filled",
    "fillcolor": "#eeeeee",
    "color": "#888888",
    "fontsize": "13",
    "width": "0.3",
    "height": "0.3",
    "margin": "0.03,0.01",
    "class": "op",
}


def _fields(value, show_grad):
    """The text of a value's box: its label if it has one, its data, its grad."""
    fields = []
    label = getattr(value, "label", "")
    if label not in (None, ""):
        fields.append(_escape_record(str(label)))
    fields.append(f"data {_number(value.data)}")
    if show_grad:
        fields.append(f"grad {_number(value.grad)}")
    return fields


def _highlighted_ids(highlight, names):
    if highlight is None:
        return set()
    if isinstance(highlight, (str, bytes)):
        raise TypeError(f"highlight takes values, not names: it was given {highlight!r}")
    chosen = [highlight] if all(hasattr(highlight, a) for a in _VALUE_ATTRIBUTES) else highlight
    try:
        chosen = list(chosen)
    except TypeError:
        raise TypeError(
            f"highlight must be a value or a collection of values, but was {highlight!r} "
            f"of type {type(highlight).__name__}"
        ) from None
    for value in chosen:
        _require_value_like(value, "each value to highlight")
        if id(value) not in names:
            raise ValueError(f"cannot highlight {value!r}: it is not part of this graph")
    return {id(value) for value in chosen}


def _number(x):
    """Four decimals as in the article; powers of ten where four decimals would hide the size."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return _escape_record(str(x))
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0:
        return "0.0000"  # never "-0.0000"
    if 1e-4 <= abs(x) < 1e6:
        return f"{x:.4f}"
    return f"{x:.4e}"


# How a label's characters are drawn. Every character is drawn as itself, except those a
# picture cannot show as themselves (and an SVG file cannot even hold, most of them):
#   a tab is drawn as ⇥ and a line break as ↵, and the label stays on one line;
#   any other control character (\r, \x00-\x1f, \x7f-\x9f), a lone surrogate, U+FFFE and
#   U+FFFF as Python writes it in a string: \r, \x01, \x7f, \ud800 (plain ASCII, which every
#   font has; control pictures such as ␍ are missing from the common fonts);
# and a space that browsers would drop or merge (at either end, beside another space), or that
# `dot` 2.43 drops in a record (beside a character beyond ASCII), becomes a no-break space,
# which looks the same. `&`, `<`, `>`, quotes, backslashes and braces need no care from the
# learner: each is escaped for the layout program, so a label `&amp;` is drawn as `&amp;`.
_SHOWN_AS = {"\t": "\u21e5", "\n": "\u21b5"}  # ⇥ ↵
_NBSP = "\u00a0"


def _visible(text):
    """`text` as the drawing shows it: every character itself, except the few above."""
    shown = []
    for ch in text:
        code = ord(ch)
        if ch in _SHOWN_AS:
            shown.append(_SHOWN_AS[ch])
        elif (code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000
              or code in (0xFFFE, 0xFFFF)):
            shown.append(ascii(ch)[1:-1])  # as in Python's repr: backslash, x, 0, 1
        else:
            shown.append(ch)
    text = "".join(shown)

    def keeps(i):  # a space the layout programs and browsers leave as it is
        return (0 < i < len(text) - 1
                and "!" <= text[i - 1] <= "~" and "!" <= text[i + 1] <= "~")

    return "".join(_NBSP if ch == " " and not keeps(i) else ch for i, ch in enumerate(text))


def _escape_record(text):
    """Text for one field of a record label, drawn exactly as given (see `_visible`).

    In a record `{ } | < >` are syntax, so each gets a backslash (and so does `"`, which
    would end the DOT string); a backslash itself is doubled so that `\\n` or `\\l` is no
    Graphviz escape; `&` is written `&amp;`, or a label `&lt;` would be drawn as `<`.
    """
    text = _visible(text).replace("\\", "\\\\").replace("&", "&amp;")
    for special in '{}|<>"':
        text = text.replace(special, "\\" + special)
    return text


def _escape_plain(text):
    """Text for an ordinary label (an operation's oval), drawn exactly as given: there only
    backslashes, quotes and `&` mean something."""
    return _visible(text).replace("\\", "\\\\").replace("&", "&amp;").replace('"', '\\"')


def _largest_abs_grad(values):
    grads = (_as_float(value.grad) for value in values)
    return max((abs(g) for g in grads if g is not None and math.isfinite(g)), default=0.0)


def _as_float(x):
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return None
    return float(x)


def _grad_fill(grad, largest):
    """Fill colour and a readable text colour for one gradient."""
    g = _as_float(grad)
    if g is None or math.isnan(g):
        return {"style": "filled", "fillcolor": _NAN_FILL, "fontcolor": "black"}
    if g == 0:
        return {"style": "filled", "fillcolor": "white", "fontcolor": "black"}
    strength = 1.0 if math.isinf(g) or largest == 0 else abs(g) / largest
    # A faint tint even for the smallest gradient, so its sign still shows.
    strength = 0.15 + 0.85 * min(strength, 1.0)
    hue = _POSITIVE if g > 0 else _NEGATIVE
    rgb = tuple(round(255 + (c - 255) * strength) for c in hue)
    return {"style": "filled", "fillcolor": _hex(rgb), "fontcolor": _text_colour(rgb)}


def _hex(rgb):
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _text_colour(rgb):
    """Black or white, whichever contrasts more with the fill (WCAG relative luminance)."""

    def linear(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    on_black = (luminance + 0.05) / 0.05
    on_white = 1.05 / (luminance + 0.05)
    return "black" if on_black >= on_white else "white"


def _caption(color_grads, largest, show_order, values):
    """An HTML-like label under the graph that says what the colours and numbers mean."""
    rows = []
    if color_grads:
        swatch = '<td bgcolor="{}" border="1" color="#888888" width="12" height="12"></td>'
        row = (
            swatch.format(_hex(_NEGATIVE)) + "<td>negative grad  </td>"
            + swatch.format("white") + "<td>zero  </td>"
            + swatch.format(_hex(_POSITIVE)) + "<td>positive grad  </td>"
        )
        if any(_as_float(v.grad) is None or math.isnan(_as_float(v.grad)) for v in values):
            row += swatch.format(_NAN_FILL) + "<td>nan  </td>"
        row += f"<td>deeper colour = larger |grad| (largest here {_number(largest)})</td>"
        rows.append(f"<tr>{row}</tr>")
    if show_order:
        rows.append(
            '<tr><td colspan="9" align="left">#k: the k-th value whose _backward runs in '
            "backward() (#1 is the output, which runs first)</td></tr>"
        )
    if not rows:
        return None
    return f'<<table border="0" cellspacing="3" cellpadding="1">{"".join(rows)}</table>>'


# --------------------------------------------------------------------------- the layout program


class LayoutProgram(NamedTuple):
    """The Graphviz layout program that drawings use: its name and where it is."""

    name: str  # "dot" or "graphviz-pure"
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
    """
    dot = shutil.which("dot")
    if dot:
        return LayoutProgram("dot", dot)
    for folder in [None, *_script_dirs()]:  # None: search PATH
        found = shutil.which("graphviz-pure", path=folder)
        if found:
            return LayoutProgram("graphviz-pure", found)
    raise GraphvizNotFoundError()


def _run_layout(engine, format, source, *, renderer=None, formatter=None, neato_no_op=None,
                quiet=False, cwd=None, options=(), timeout=None, values=None):
    """Lay out DOT `source` (bytes) with the chosen program; return the picture as bytes.

    The program is stopped after `timeout` seconds (None: `LAYOUT_TIMEOUT`), and then
    `LayoutTimeoutError` says so; `values`, the number of values drawn, goes in its message.
    """
    program = layout_program()
    output = ":".join(part for part in (format, renderer, formatter) if part)
    command = [program.path, f"-K{engine}", f"-T{output}", *options]
    if neato_no_op:
        command.append(f"-n{int(neato_no_op)}")
    seconds = LAYOUT_TIMEOUT if timeout is None else timeout
    try:
        # run() kills the program when the time is up, and waits for it to end.
        done = subprocess.run(command, input=source, capture_output=True, cwd=cwd,
                              timeout=seconds)
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
    return [line for line in stderr.splitlines(keepends=True)
            if "no value for width of" not in line]


# graphviz.Digraph sends every picture it makes through three hooks (`_pipe_lines`,
# `_pipe_lines_string`, `_render`; graphviz 0.20 and later). GraphDrawing replaces them, so
# `pipe()`, `render()` and the notebook display all use `layout_program()` and the drawing's
# time limit, and no other graphviz object in the session is affected.


def _pipe_lines(engine, format, input_lines, *, input_encoding, quiet=False, **options):
    source = b"".join(line.encode(input_encoding) for line in input_lines)
    return _run_layout(engine, format, source, quiet=quiet, **options)


def _pipe_lines_string(engine, format, input_lines, *, encoding, quiet=False, **options):
    source = "".join(input_lines).encode(encoding)
    return _run_layout(engine, format, source, quiet=quiet, **options).decode(encoding)


def _render_file(engine, format, filepath, renderer=None, formatter=None, neato_no_op=None,
                 quiet=False, *, outfile=None, raise_if_result_exists=False,
                 overwrite_filepath=False, timeout=None, values=None):
    filepath = Path(filepath)
    if outfile is None:  # graphviz's own naming: graph.gv -> graph.gv.svg
        suffix = ".".join(part for part in (formatter, renderer, format) if part)
        outfile = filepath.with_name(f"{filepath.name}.{suffix}")
    outfile = Path(outfile)
    if not overwrite_filepath and outfile.resolve() == filepath.resolve():
        raise ValueError(f"outfile {outfile} must differ from the DOT file it is drawn from")
    if raise_if_result_exists and outfile.exists():
        raise graphviz.FileExistsError(f"output file exists: {os.fspath(outfile)!r}")
    picture = _run_layout(engine, format, filepath.read_bytes(), renderer=renderer,
                          formatter=formatter, neato_no_op=neato_no_op, quiet=quiet,
                          cwd=filepath.parent, timeout=timeout, values=values)
    outfile.write_bytes(picture)
    return os.fspath(outfile)


class GraphDrawing(graphviz.Digraph):
    """A `graphviz.Digraph` that draws with `layout_program()` and never shows a traceback.

    `values` holds the drawn values in drawing order (node `v{i}` is `values[i]`); `timeout`
    the seconds its layout may take (None: `LAYOUT_TIMEOUT`).
    """

    values = ()
    timeout = None

    def _limits(self):
        return {"timeout": _check_timeout(self.timeout), "values": len(self.values) or None}

    def _pipe_lines(self, *args, **kwargs):
        return _pipe_lines(*args, **kwargs, **self._limits())

    def _pipe_lines_string(self, *args, **kwargs):
        return _pipe_lines_string(*args, **kwargs, **self._limits())

    def _render(self, *args, **kwargs):
        return _render_file(*args, **kwargs, **self._limits())

    def name_of(self, value):
        """The node name (`v0`, `v1`, ...) this drawing gave `value`; also its SVG `<title>`."""
        for i, drawn in enumerate(self.values):
            if drawn is value:
                return f"v{i}"
        raise ValueError(f"{value!r} is not part of this drawing")

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        try:
            return super()._repr_mimebundle_(include, exclude, **kwargs)
        except (GraphvizNotFoundError, LayoutTimeoutError) as error:
            return _explain(str(error), self.source)
        except graphviz.CalledProcessError as error:
            stderr = error.stderr.decode(errors="replace") if error.stderr else ""
            return _explain(f"The layout program {error.cmd[0]} failed to draw this graph:\n"
                            f"{stderr}", self.source)


def _explain(message, source):
    """What a notebook shows instead of a picture: the reason and the DOT text."""
    text = f"{message}\n\n{source}"
    page = (
        '<div class="autograd-no-drawing" style="border-left: 4px solid #e66101; '
        'padding-left: 0.8em">'
        f'<pre style="white-space: pre-wrap">{html.escape(message)}</pre>'
        "<p>The graph as DOT text (<code>graph.source</code>):</p>"
        f"<pre>{html.escape(source)}</pre></div>"
    )
    return {"text/plain": text, "text/html": page}


# --------------------------------------------------------------------------- in HTML


def inline_svg(svg):
    """SVG text from a layout program as an `<svg>` element to put in HTML.

    The XML prolog and doctype go (HTML embeds the bare element), and the element shrinks
    with a container narrower than the drawing, proportions kept, instead of overflowing it.
    """
    if not isinstance(svg, str):
        raise TypeError(f"inline_svg takes SVG text (a str), but was given {svg!r:.80} of "
                        f"type {type(svg).__name__}")
    if "<svg" not in svg:
        raise ValueError(f"inline_svg takes SVG text, but this has no <svg> in it: {svg!r:.80}")
    start = svg.find("<svg")
    return svg[start:].replace("<svg", '<svg style="max-width:100%; height:auto"', 1)


# Each figure may shrink below its drawing's width (min-width 0), all by the same share of
# their widths, so drawings of about the same size keep about the same scale.
_ROW_STYLE = "display:flex; gap:2em; align-items:flex-start; max-width:100%"
_FIGURE_STYLE = ("margin:0; min-width:0; flex:0 1 auto; display:flex; flex-direction:column; "
                 "align-items:center")
_CAPTION_STYLE = f"font-family:{_FONT},sans-serif; font-weight:bold; margin-bottom:0.4em"


def side_by_side(*drawings, titles=None):
    """Show several drawings next to each other, each under its title, in a notebook.

    `drawings` are graphs from `draw_dot` (or any graphviz graph); `titles`, if given, one
    string per drawing. The result displays as HTML: one inline SVG per drawing, shrunk
    together to fit the output area when the row is wider than it. `.html()` gives the text.

    >>> from autograd import Value
    >>> x = Value(3.0, label="x")
    >>> row = side_by_side(draw_dot(x * 2), draw_dot(x + x), titles=["x * 2", "x + x"])
    """
    if not drawings:
        raise ValueError("side_by_side needs at least one drawing, but was given none")
    for drawing in drawings:
        if not (callable(getattr(drawing, "pipe", None))
                and isinstance(getattr(drawing, "source", None), str)):
            hint = " (draw it first: draw_dot(value))" if hasattr(drawing, "_prev") else ""
            raise TypeError(
                f"side_by_side takes drawings from draw_dot (or any graphviz graph), but was "
                f"given {drawing!r} of type {type(drawing).__name__}{hint}"
            )
    if titles is not None:
        if isinstance(titles, str):
            raise TypeError(f"titles must be a list of strings, one per drawing, not the "
                            f"single string {titles!r}")
        titles = tuple(titles)
        if len(titles) != len(drawings):
            raise ValueError(f"titles must give one title per drawing: {len(drawings)} "
                             f"drawings, but {len(titles)} titles {titles!r}")
        for title in titles:
            if not isinstance(title, str):
                raise TypeError(f"each title must be a string, but one was {title!r}")
    return SideBySide(drawings, titles)


class SideBySide:
    """Drawings in a row, as `side_by_side` makes them; a notebook shows them as HTML."""

    def __init__(self, drawings, titles=None):
        self.drawings = tuple(drawings)
        self.titles = titles

    def html(self):
        """The row as HTML text. Raises `GraphvizNotFoundError` without a layout program."""
        figures = []
        for i, drawing in enumerate(self.drawings):
            caption = ""
            if self.titles is not None:
                caption = (f'<figcaption style="{_CAPTION_STYLE}">'
                           f"{html.escape(self.titles[i])}</figcaption>")
            svg = inline_svg(drawing.pipe(format="svg", encoding="utf-8"))
            figures.append(f'<figure style="{_FIGURE_STYLE}">{caption}{svg}</figure>')
        return (f'<div class="autograd-side-by-side" style="{_ROW_STYLE}">'
                f'{"".join(figures)}</div>')

    def _repr_mimebundle_(self, include=None, exclude=None):
        sources = "\n\n".join(drawing.source for drawing in self.drawings)
        try:
            page = self.html()
        except (GraphvizNotFoundError, LayoutTimeoutError) as error:
            return _explain(str(error), sources)
        except graphviz.CalledProcessError as error:
            stderr = error.stderr.decode(errors="replace") if error.stderr else ""
            return _explain(f"The layout program {error.cmd[0]} failed to draw these graphs:"
                            f"\n{stderr}", sources)
        return {"text/html": page, "text/plain": repr(self)}

    def __repr__(self):
        titles = "" if self.titles is None else f": {', '.join(self.titles)}"
        return f"SideBySide({len(self.drawings)} drawings{titles})"


# --------------------------------------------------------------------------- saving


_SAVE_FORMATS = ("svg", "png", "gv", "dot")


def save(graph, path, *, dpi=150, timeout=None):
    """Write `graph` (from `draw_dot`, or any graphviz graph) to `path` and return the path.

    The format follows the suffix: `.svg`, `.png` (at `dpi` dots per inch), or `.gv`/`.dot`
    for the DOT text itself, which needs no layout program. `timeout`: the seconds the layout
    may take (None: the drawing's own `timeout`, else `LAYOUT_TIMEOUT`).
    """
    source = getattr(graph, "source", None)
    if not isinstance(source, str):
        raise TypeError(
            f"save needs a graph from draw_dot (or any graphviz graph), but was given "
            f"{graph!r} of type {type(graph).__name__}"
        )
    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    if kind not in _SAVE_FORMATS:
        raise ValueError(
            f"cannot save a graph as {path.name!r}: the name must end in "
            f"{', '.join('.' + k for k in _SAVE_FORMATS)}"
        )
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not 10 <= dpi <= 1200:
        raise ValueError(f"dpi must be a number from 10 to 1200, but was {dpi!r}")
    timeout = _check_timeout(timeout)
    if timeout is None:
        timeout = getattr(graph, "timeout", None)
    encoding = getattr(graph, "encoding", None) or "utf-8"
    if kind in ("gv", "dot"):
        path.write_text(source, encoding=encoding)
        return path
    options = [f"-Gdpi={dpi:g}"] if kind == "png" else []
    picture = _run_layout(getattr(graph, "engine", "dot"), kind, source.encode(encoding),
                          options=options, timeout=timeout,
                          values=len(getattr(graph, "values", ())) or None)
    path.write_bytes(picture)
    return path
