"""`draw_dot`: a graph of values as DOT text, each value a box, each operation an oval.

How a drawing looks lives here: the record box `{ label | data | grad }` of each value, the
oval of each operation, the colours of gradients and their caption, the numbering by
backward order, and the escaping that draws every label exactly as given. The drawing it
returns, a `GraphDrawing`, turns itself into a picture (see `graph_drawing.py`).
"""

import math

import graphviz

from .. import graph
from .._floats import is_int, is_real
from ..graph import require_value_like
from .graph_drawing import GraphDrawing
from .layout import check_timeout

__all__ = ["draw_dot", "trace", "backward_order", "DEFAULT_MAX_WIDTH", "RANKDIRS", "FONT"]

_VALUE_ATTRIBUTES = graph.VALUE_ATTRIBUTES
RANKDIRS = ("LR", "TB", "RL", "BT")  # where the inputs are: left, top, right, bottom

# Blue for a positive gradient, orange for a negative one: a pair that stays distinct for
# the common kinds of colour blindness, unlike red and green.
_POSITIVE = (33, 102, 172)
_NEGATIVE = (230, 97, 1)
_NAN_FILL = "#d9d9d9"
_HIGHLIGHT = "#c2185b"
FONT = "Helvetica"  # the drawings' font, also for captions over them in HTML

# On screen a drawing fits its output area by itself (screen.py): it shrinks to the area's width
# as far as its text stays readable, and scrolls sideways beyond that. So draw_dot lays a graph
# out at its natural size unless asked for `max_width`; 9.5 inches is a width that fits a
# printed page or a slide, for a picture saved with `save` (max_width=DEFAULT_MAX_WIDTH).
DEFAULT_MAX_WIDTH = 9.5  # inches
_WIDEST = 100  # inches; a larger max_width was most likely meant in pixels
# Graphviz's size limits height as well as width; only the width is meant to be limited.
_NO_HEIGHT_LIMIT = 1000  # inches


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
    max_width=None,
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
    max_width    None (the default): the natural size, which a notebook shrinks to fit its
                 output area as far as the text stays readable, and scrolls beyond that. A
                 number of inches (96 pixels each on screen) scales a wider drawing down,
                 text and all, to that width, for a picture saved for a page
                 (`DEFAULT_MAX_WIDTH`, 9.5); a narrower one keeps its size. A graph wider than
                 about 13 inches cannot shrink to a laptop's notebook (868 pixels) with its
                 text readable: rankdir="TB" often makes a long chain narrower.
    timeout      seconds the layout program may take to draw it (None: `LAYOUT_TIMEOUT`,
                 20 s); a slower layout stops with `LayoutTimeoutError`, which a notebook
                 shows as a message.

    Labels and operations are drawn exactly as given, `&`, `<`, `\\`, `{`, `|` and all;
    only what a picture cannot show as itself is drawn visibly: a tab as ⇥, a line break as
    ↵, another control character as Python writes it (\\r, \\x01), and spaces a browser would
    squeeze away as no-break spaces, which look the same.

    A value whose `_op` is empty but that has inputs gets arrows straight from its inputs.

    The drawing also says what it shows in words, for a screen reader or anyone who asks:
    `summary()` is one sentence (the output's label and value, how many values and operations,
    the inputs' gradients once backward() has run), which every SVG picture of it carries as
    its <title> and aria-label; `describe()` goes through it value by value.
    """
    _check_arguments(rankdir, max_nodes, max_width, timeout)
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

    graph = _empty_drawing(rankdir, max_width)
    graph.values = tuple(values)
    graph.timeout = timeout
    fields_across = rankdir in ("LR", "RL")  # a record's fields run across the rank direction
    for i, value in enumerate(values):
        fields = [f"#{steps[id(value)]}"] if show_order else []
        fields += _fields(value, show_grad)
        text = " | ".join(fields)
        attributes = {"label": graphviz.nohtml(f"{{ {text} }}" if fields_across else text)}
        if color_grads:
            attributes.update(_grad_fill(value.grad, largest))
        _draw_value(graph, i, value, names, attributes, id(value) in highlighted)

    caption = _caption(color_grads, largest, show_order, values)
    if caption:
        graph.attr(label=caption, labelloc="b", labeljust="l")
    # The drawing in words, for a screen reader and for anyone who asks (`describe()`): taken
    # now, like the picture, so that both say the same even if the values change later.
    chosen = [value for value in values if id(value) in highlighted]
    graph.summary_text = _summary(values, names, show_grad, chosen)
    graph.description_text = _description(values, names)
    return graph


def _check_arguments(rankdir, max_nodes, max_width, timeout):
    """A ValueError (or TypeError) for an argument of draw_dot's that is not one it takes."""
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, but was {rankdir!r}")
    if not is_int(max_nodes) or max_nodes < 1:
        raise ValueError(f"max_nodes must be a whole number of at least 1, but was {max_nodes!r}")
    _check_max_width(max_width)
    check_timeout(timeout)


def _empty_drawing(rankdir, max_width):
    """A drawing with no nodes yet, in the house style, laid out along `rankdir`."""
    graph_attr = {
        "rankdir": rankdir,
        "bgcolor": "white",
        "nodesep": "0.2",
        "ranksep": "0.3",
        "fontname": FONT,
        "fontsize": "11",
    }
    if max_width is not None:
        # Graphviz scales the whole layout down when it exceeds `size` (never up), so every
        # layout program draws the same picture, only smaller.
        graph_attr["size"] = f"{_inches(max_width)},{_NO_HEIGHT_LIMIT}"
    return GraphDrawing(
        name="autograd",
        graph_attr=graph_attr,
        # Slim padding: a notebook shrinks a drawing wider than its output area, text and all.
        node_attr={"fontname": FONT, "fontsize": "12", "margin": "0.09,0.05", "height": "0.3"},
        edge_attr={"color": "#555555", "arrowsize": "0.7"},
    )


def _draw_value(graph, i, value, names, attributes, highlighted):
    """Add the `i`-th value's box (with `attributes`), the oval of the operation that made it,
    and an arrow from each of its inputs, to `graph`."""
    name = names[id(value)]
    classes = ["value"]
    if highlighted:
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


# --------------------------------------------------------------------------- the drawing in words

_LISTED_GRADIENTS = 8  # the summary names at most this many inputs' gradients


def _spoken_number(x):
    """A number as the drawing shows it, without its trailing zeros, and with a true minus
    sign (which a screen reader says as "minus", where it may skip a hyphen)."""
    shown = _shown_number(x)
    if is_real(x) and "." in shown and "e" not in shown:
        shown = shown.rstrip("0").rstrip(".")
    return shown.replace("-", "\u2212")


def _spoken_name(value, names):
    """A value's label, or its node name (v0, v1, ...) when it has none."""
    label = getattr(value, "label", "")
    return _visible(str(label)) if label not in (None, "") else names[id(value)]


def _has_operation(value):
    return bool(value._prev) and value._op not in (None, "")


def _summary(values, names, show_grad, highlighted=()):
    """One sentence that says what the drawing shows: its output, how many values and
    operations, and, when `backward()` has run, the gradients of the output with respect to
    its inputs (the values no operation made)."""
    root = values[-1]
    out = _spoken_name(root, names)
    operations = sum(1 for value in values if _has_operation(value))
    counts = (
        f"{len(values)} value{'s' * (len(values) != 1)}, "
        f"{operations} operation{'s' * (operations != 1)}"
    )
    parts = [f"{out} = {_spoken_number(root.data)}"]
    if show_grad:
        grads = [_as_float(value.grad) for value in values]
        if all(g == 0 for g in grads):
            parts.append("every grad 0 (backward() has not run)")
        else:
            inputs = [value for value in values if not value._prev and value is not root]
            shown = [
                f"d{out}/d{_spoken_name(value, names)} = {_spoken_number(value.grad)}"
                for value in inputs[:_LISTED_GRADIENTS]
            ]
            if len(inputs) > _LISTED_GRADIENTS:
                shown.append(f"and {len(inputs) - _LISTED_GRADIENTS} more inputs")
            if shown:
                parts.append(", ".join(shown))
    if highlighted:
        parts.append("highlighted: " + ", ".join(_spoken_name(v, names) for v in highlighted))
    return f"The graph of {out}: {counts}; " + "; ".join(parts) + "."


def _description(values, names):
    """The drawing value by value, in drawing order (v0, v1, ...): one line each with its
    label, data and grad, and the operation that made it from which inputs."""
    lines = []
    for value in values:
        name = names[id(value)]
        label = getattr(value, "label", "")
        line = name if label in (None, "") else f"{name} {_visible(str(label))}"
        line += f": data {_spoken_number(value.data)}, grad {_spoken_number(value.grad)}"
        inputs = [
            f"{_spoken_name(child, names)} ({names[id(child)]})"
            if getattr(child, "label", "") not in (None, "")
            else names[id(child)]
            for child in value._prev
        ]
        if not inputs:
            line += "; an input"
        elif _has_operation(value):
            line += f"; made by {_visible(str(value._op))} from {' and '.join(inputs)}"
        else:
            line += f"; made from {' and '.join(inputs)}"
        lines.append(line + ".")
    return "\n".join(lines)


def _check_max_width(max_width):
    if max_width is None:
        return
    if not is_real(max_width):
        raise TypeError(
            f"max_width must be a number of inches or None, but was {max_width!r} of type "
            f"{type(max_width).__name__}"
        )
    if not 1 <= max_width <= _WIDEST:  # also refuses nan
        hint = ""
        if _WIDEST < max_width < math.inf:
            hint = (
                f" (it is in inches, not pixels: {max_width:g} pixels would be "
                f"max_width={max_width / 96:.1f})"
            )
        raise ValueError(
            f"max_width must be from 1 to {_WIDEST} inches, or None to draw at full size, "
            f"but was {max_width!r}{hint}"
        )


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
    shape = getattr(value.data, "shape", None)
    if shape is not None and not is_real(value.data):  # a Tensor: its shape, then a preview
        fields.append(_escape_record(f"shape {tuple(shape)}"))
    fields.append(f"data {_shown_number(value.data)}")
    if show_grad:
        fields.append(f"grad {_shown_number(value.grad)}")
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


_PREVIEW = 3  # an array (a Tensor's data or grad) shows at most this many of its numbers


def _shown_number(x):
    """Four decimals as in the article; powers of ten where four decimals would hide the size.
    An array shows its first few numbers so, in reading order: `[1.0000, 2.0000, …]`."""
    if not is_real(x):
        if hasattr(x, "shape") and hasattr(x, "tolist"):
            flat = x.reshape(-1).tolist()
            if len(flat) == 1:
                return _shown_number(flat[0])
            more = ", \u2026" if len(flat) > _PREVIEW else ""
            return "[" + ", ".join(_shown_number(v) for v in flat[:_PREVIEW]) + more + "]"
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
        elif (
            code < 0x20
            or 0x7F <= code < 0xA0
            or 0xD800 <= code < 0xE000
            or code in (0xFFFE, 0xFFFF)
        ):
            shown.append(ascii(ch)[1:-1])  # as in Python's repr: backslash, x, 0, 1
        else:
            shown.append(ch)
    text = "".join(shown)

    def keeps(i):  # a space the layout programs and browsers leave as it is
        return 0 < i < len(text) - 1 and "!" <= text[i - 1] <= "~" and "!" <= text[i + 1] <= "~"

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
    if not is_real(x):
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
            swatch.format(_hex(_NEGATIVE))
            + "<td>negative grad  </td>"
            + swatch.format("white")
            + "<td>zero  </td>"
            + swatch.format(_hex(_POSITIVE))
            + "<td>positive grad  </td>"
        )
        if any(_as_float(v.grad) is None or math.isnan(_as_float(v.grad)) for v in values):
            row += swatch.format(_NAN_FILL) + "<td>nan  </td>"
        row += f"<td>deeper colour = larger |grad| (largest here {_shown_number(largest)})</td>"
        rows.append(f"<tr>{row}</tr>")
    if show_order:
        rows.append(
            '<tr><td colspan="9" align="left">#k: the k-th value whose _backward runs in '
            "backward() (#1 is the output, which runs first)</td></tr>"
        )
    if not rows:
        return None
    return f'<<table border="0" cellspacing="3" cellpadding="1">{"".join(rows)}</table>>'
