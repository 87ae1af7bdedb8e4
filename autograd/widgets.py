"""Interactive explorers for the course: a model you can drive from code, and a view to play with.

Every explorer comes in two halves. The *model* (`GraphExplorer`, `BackwardStepper`,
`FiniteDifferenceExplorer`, `ActivationExplorer`, `TrainingDashboard`) is a plain object with
methods and state, which tests and notebook cells drive without a browser. Its *view*
(`model.widget()`) is built from ipywidgets and redraws whenever the model changes, so a cell
can still move an explorer that is on screen. A model shown in a notebook shows its view.

This module imports ipywidgets, matplotlib and `autograd.viz` (graphviz) itself; `import
autograd` never does, so import it explicitly: `from autograd.widgets import BackwardStepper`.

Extreme settings never end in a traceback inside a view: what the engine raises for a
computation it cannot do (ValueError, OverflowError, ZeroDivisionError) is shown as a message.
"""

import collections
import html
import io
import math
import random
import textwrap
import time

import ipywidgets as widgets
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from . import data as _data
from . import nn as _nn
from . import viz
from .engine import Value
from .fast import Value as FastValue

__all__ = [
    "GraphExplorer",
    "BackwardStepper",
    "FiniteDifferenceExplorer",
    "ActivationExplorer",
    "TrainingDashboard",
    "ENGINE_ERRORS",
]

# What the engine raises for log(-1), exp(1000), 1/0: a message for the learner, not a bug.
ENGINE_ERRORS = (ValueError, OverflowError, ZeroDivisionError)

# The drawings' colours for negative and positive (viz colours gradients the same way).
_ORANGE, _BLUE, _GREY = "#e66101", "#2166ac", "#555555"


# ------------------------------------------------------------------------ shared plumbing


class _Model:
    """Views subscribe to a model, and every change of its state redraws them."""

    def __init__(self):
        self._listeners = []
        self._view = None

    def observe(self, callback):
        """Call `callback(model)` after every change of state."""
        self._listeners.append(callback)

    def _changed(self):
        for callback in self._listeners:
            callback(self)

    def widget(self):
        """The ipywidgets view of this model (built on first use, then the same one)."""
        if self._view is None:
            self._view = self._build_view()
        return self._view

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.widget()._repr_mimebundle_(include=include, exclude=exclude)
        bundle["text/plain"] = repr(self)  # where widgets cannot show, say what this is
        return bundle


def _number(value, what):
    """`value` as a float, or a TypeError that names what was expected and what came."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be an int or a float, but was given {value!r}")
    try:
        return float(value)
    except OverflowError:  # an int beyond the floats, such as 10**400
        raise ValueError(f"{what} must fit in a float (at most about 1.8e308 in size), but "
                         f"was given an int of {len(str(abs(value)))} digits") from None


def _whole(value, what, low, high):
    """`value` if it is an int from `low` to `high`, else an error that gives the range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be a whole number (an int) from {low} to {high}, but was "
                        f"given {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{what} must be from {low} to {high}, but was given {value!r}")
    return value


def _bounded(value, what, low, high):
    """`value` as a float if it is a number from `low` to `high` (never nan), else an error
    that gives the range."""
    x = _number(value, what)
    if not low <= x <= high:
        raise ValueError(f"{what} must be a number from {low:g} to {high:g}, but was given "
                         f"{value!r}")
    return x


def _finite(x):
    return x is not None and math.isfinite(x)


def _fmt(x):
    """Four decimals as in the drawings; powers of ten when that would hide the size."""
    if x is None:
        return "—"
    if not math.isfinite(x) or (x != 0 and not 1e-4 <= abs(x) < 1e6):
        return f"{x:.4g}"
    return f"{x:.4f}"


def _message_html(text, kind="error"):
    colour = {"error": "#b00020", "warning": "#8a5a00", "info": "#1d4e89", "ok": "#1b6e20"}[kind]
    return (f'<div class="explorer-{kind}" style="color:{colour}; white-space:pre-wrap">'
            f"{html.escape(text)}</div>")


def _graph_html(graph):
    """A drawing as inline SVG that shrinks to fit the output area, or viz's explanation when
    no layout program is installed."""
    bundle = graph._repr_mimebundle_(include=["image/svg+xml"])
    svg = bundle.get("image/svg+xml")
    if svg is None:
        return bundle.get("text/html", "")
    return f'<div class="explorer-graph">{viz.inline_svg(svg)}</div>'


def _drawing_html(make_graph):
    """The graph `make_graph()` draws, as HTML; a message when it cannot be drawn (more values
    than `draw_dot` lays out, say)."""
    try:
        return _graph_html(make_graph())
    except ENGINE_ERRORS as exc:
        return _message_html(str(exc))


def _png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return buffer.getvalue()


def _picture(make_figure):
    """(png bytes, None), or (b"", a message) when the figure cannot be drawn. The explorers
    keep their numbers within what matplotlib can plot; this is the last guard, so that a view
    shows a message rather than a traceback whatever happens."""
    try:
        return _png(make_figure()), None
    except ENGINE_ERRORS as exc:
        return b"", f"The plot cannot be drawn here ({type(exc).__name__}: {exc})."


class _Figure(Figure):
    """A matplotlib figure that a notebook shows as a picture without pyplot's help."""

    def _repr_png_(self):
        return _png(self)


def _show(slider, value):
    """Put a model's number in its slider, unless the slider cannot hold it.

    A slider clamps a value beyond its range and reports the clamped one back, which would
    quietly change the model; a value set from code beyond the range leaves the slider alone.
    """
    lo, hi = slider.min, slider.max
    if isinstance(slider, widgets.FloatLogSlider):
        lo, hi = slider.base**lo, slider.base**hi
    if lo <= value <= hi:
        slider.value = value


def _backpropagate(root):
    """`root.backward()`, or, for a class from before chapter 5 that has none, the same pass
    by hand: seed 1, then every `_backward` in the order `backward()` would run them."""
    if callable(getattr(root, "backward", None)):
        root.backward()
        return
    root.grad = 1.0
    for node in viz.backward_order(root):
        node._backward()


def _check_rankdir(rankdir):
    if rankdir not in viz._RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(viz._RANKDIRS)}, but was "
                         f"{rankdir!r}")
    return rankdir


def _log_space(lo_exp, hi_exp, n):
    """n numbers from 10**lo_exp to 10**hi_exp, evenly spaced on a log scale."""
    return [10 ** (lo_exp + (hi_exp - lo_exp) * i / (n - 1)) for i in range(n)]


def _lin_space(lo, hi, n):
    return [lo + (hi - lo) * i / (n - 1) for i in range(n)]


def _run_safely(fn, *args):
    """fn(*args), or None when the engine cannot compute it (for curves with gaps)."""
    try:
        return fn(*args)
    except ENGINE_ERRORS:
        return None


def _gaps(ys):
    """None as nan, which matplotlib leaves out of a line."""
    return [math.nan if y is None else y for y in ys]


def _plottable(ys):
    """Gaps (nan) where there is no number or one so near the float limit that matplotlib's
    axis arithmetic would overflow on it (exp just below 709.78)."""
    return [math.nan if y is None or abs(y) > 1e250 else y for y in ys]


def _break_jumps(ys):
    """A gap where a curve jumps (relu' at 0), so that no vertical line joins the two sides."""
    finite = [y for y in ys if math.isfinite(y)]
    if not finite:
        return ys
    jump = 0.25 * (max(finite) - min(finite))
    out = list(ys)
    for i in range(1, len(ys)):
        if jump and abs(ys[i] - ys[i - 1]) > jump:
            out[i - 1] = math.nan
    return out


# ------------------------------------------------------------------------ GraphExplorer


class GraphExplorer(_Model):
    """Sliders for the inputs of a function of Values; every move reruns forward and backward.

    `fn` takes one Value per input, by name (keyword arguments), and returns a Value. `inputs`
    maps each name to its starting number; `ranges` may map a name to its slider's
    `(low, high)` (by default at least -5..5, widened to keep the start 5 from either end).
    `rankdir` lays the drawing out left to right ("LR") or top to bottom ("TB"), which is
    narrower, and so easier to read, for a long chain.

    >>> ex = GraphExplorer(lambda a, b: a * b + a, {"a": 2.0, "b": -3.0})
    >>> ex.output, ex.grads          # d/da = b + 1, d/db = a
    (-4.0, {'a': -2.0, 'b': 2.0})
    >>> ex.set("b", 1.0)
    >>> ex.output, ex.grads
    (4.0, {'a': 2.0, 'b': 2.0})
    """

    def __init__(self, fn, inputs, ranges=None, *, value_class=Value, rankdir="LR"):
        super().__init__()
        self.rankdir = _check_rankdir(rankdir)
        if not callable(fn):
            raise TypeError(f"fn must be a function of Values, but was given {fn!r}")
        if not hasattr(inputs, "items") or not inputs:
            raise TypeError(f"inputs must be a non-empty dict of name -> number, not {inputs!r}")
        self.fn = fn
        self.value_class = value_class
        self._values = {name: _number(v, f"input {name!r}") for name, v in inputs.items()}
        self.ranges = {name: (min(-5.0, v - 5.0), max(5.0, v + 5.0))
                       for name, v in self._values.items()}
        for name, bounds in (ranges or {}).items():
            self._check_name(name)
            lo, hi = (_number(b, f"the range of {name!r}") for b in bounds)
            if not lo < hi:
                raise ValueError(f"the range of {name!r} must have low < high, got {bounds!r}")
            self.ranges[name] = (lo, hi)
        self.root = None
        self.error = None
        self._leaves = {}
        self._compute()

    def _check_name(self, name):
        if name not in self._values:
            raise ValueError(f"unknown input {name!r}; the inputs are {', '.join(self._values)}")

    def _compute(self):
        self._leaves = {n: self.value_class(v, label=n) for n, v in self._values.items()}
        try:
            out = self.fn(**self._leaves)
            if not all(hasattr(out, a) for a in ("data", "grad", "_prev")):
                raise TypeError(f"fn must return a Value, but it returned {out!r}")
            _backpropagate(out)
        except ENGINE_ERRORS as exc:
            self.root, self.error = None, f"{type(exc).__name__}: {exc}"
            return
        if not getattr(out, "label", ""):
            out.label = "out"
        self.root, self.error = out, None

    def set(self, name, value):
        """Set input `name` to `value`, then rerun the forward and the backward pass."""
        self._check_name(name)
        self._values[name] = _number(value, f"input {name!r}")
        self._compute()
        self._changed()

    @property
    def values(self):
        """The inputs, name -> number."""
        return dict(self._values)

    @property
    def output(self):
        """The output's data, or None when the engine could not compute it (see `error`)."""
        return None if self.root is None else self.root.data

    @property
    def grads(self):
        """d output / d input for every input, name -> number (None when `error` is set)."""
        if self.root is None:
            return {name: None for name in self._values}
        return {name: leaf.grad for name, leaf in self._leaves.items()}

    def graph(self, **options):
        """The graph drawn with data and gradients (options go to `viz.draw_dot`)."""
        if self.root is None:
            raise ValueError(f"there is no graph to draw: {self.error}")
        options.setdefault("rankdir", self.rankdir)
        return viz.draw_dot(self.root, **options)

    def __repr__(self):
        return f"GraphExplorer(output={_fmt(self.output)}, inputs={self.values})"

    def _build_view(self):
        return GraphExplorerView(self)


class GraphExplorerView(widgets.VBox):
    """A slider per input, the output and its gradients in one line, and the drawn graph."""

    def __init__(self, model):
        self.model = model
        self.sliders = {}
        for name, (lo, hi) in model.ranges.items():
            slider = widgets.FloatSlider(
                value=model.values[name], min=lo, max=hi, step=0.01, description=name,
                readout_format=".4f", continuous_update=False,
                layout=widgets.Layout(width="30em"),
            )
            slider.observe(self._slider_moved(name), names="value")
            self.sliders[name] = slider
        self.summary = widgets.HTML()
        self.drawing = widgets.HTML()
        super().__init__([*self.sliders.values(), self.summary, self.drawing])
        self.add_class("autograd-graph-explorer")  # a handle for styles and the browser test
        model.observe(lambda _: self.refresh())
        self.refresh()

    def _slider_moved(self, name):
        def moved(change):
            if change["new"] != self.model.values[name]:
                self.model.set(name, change["new"])
        return moved

    def refresh(self):
        model = self.model
        for name, slider in self.sliders.items():
            _show(slider, model.values[name])
        if model.error:
            self.summary.value = _message_html(model.error)
            self.drawing.value = ""
            return
        out = html.escape(model.root.label)
        parts = [f"<b>{out} = {_fmt(model.output)}</b>"]
        parts += [f"d{out}/d{html.escape(n)} = {_fmt(g)}" for n, g in model.grads.items()]
        summary = " &nbsp;·&nbsp; ".join(parts)
        if not _finite(model.output) or not all(map(_finite, model.grads.values())):
            summary += _message_html("some numbers are not finite (inf or nan)", "warning")
        drawing = _drawing_html(model.graph)  # the slow part first: both change together
        self.summary.value = summary
        self.drawing.value = drawing


# ------------------------------------------------------------------------ BackwardStepper


WRONG_ORDERS = {
    "forward": "forward order (the topological order, not reversed): every node fires "
               "before the nodes that use it have passed it anything",
    "breadth-first": "breadth-first from the output: a node fires as soon as it is first "
                     "reached, even when a longer path still has gradient to bring it",
}


class BackwardStepper(_Model):
    """Run `backward()` one `_backward` closure at a time and watch the gradients fill in.

    Step 0 is the seed: every gradient 0 except the output's, which is 1. Step k has run the
    first k closures of the schedule: the operation nodes in reverse topological order (the
    order `backward()` uses), so each fires only after every node that uses it has passed its
    gradient back. Leaves have nothing to pass back, so they get no step.

    `wrong_order=True` (or "forward") runs the closures in forward order instead, and
    "breadth-first" in the order a breadth-first search from the output meets them; where a
    value is used twice, the final gradients come out wrong.

    The stepper owns the graph while you use it: every move zeroes the gradients of all its
    values and replays the first k closures ("previous" replays k - 1, it never subtracts).
    `log` says what each step did, including each contribution to a value used more than once.

    `rankdir="TB"` draws the graph top to bottom: the article's neuron is then about 12 inches
    wide instead of 19, so it shrinks far less to fit the notebook and its text stays readable.
    """

    def __init__(self, root, wrong_order=False, *, rankdir="LR"):
        super().__init__()
        self.rankdir = _check_rankdir(rankdir)
        self.root = root
        self.nodes, _ = viz.trace(root)
        self._right = [node for node in reversed(self.nodes) if node._prev]
        if wrong_order is False or wrong_order is None:
            self.order_name = None
            self.schedule = self._right
        else:
            self.order_name = "forward" if wrong_order is True else wrong_order
            if self.order_name not in WRONG_ORDERS:
                raise ValueError(
                    f"wrong_order must be False, True, 'forward' or 'breadth-first', "
                    f"but was given {wrong_order!r}"
                )
            if self.order_name == "forward":
                self.schedule = [node for node in self.nodes if node._prev]
            else:
                self.schedule = self._breadth_first()
        # Values are keyed by id: a learner's class may define == without a hash.
        self._names = {id(node): _node_name(node) for node in self.nodes}
        # How many contributions a value waits for: one per use, so x * x brings x two.
        self._uses = collections.Counter(id(c) for node in self.nodes for c in node._prev)
        self._correct = None
        self.position = 0
        self.log = []
        self.go_to(0)

    def _breadth_first(self):
        order, seen, queue = [], {id(self.root)}, collections.deque([self.root])
        while queue:
            node = queue.popleft()
            order.append(node)
            for child in node._prev:
                if id(child) not in seen:
                    seen.add(id(child))
                    queue.append(child)
        return [node for node in order if node._prev]

    def name(self, node):
        """The name the log uses for `node`: its label, else its operation and data."""
        return self._names[id(node)]

    @property
    def n_steps(self):
        """How many closures there are to run: the number of the last step."""
        return len(self.schedule)

    @property
    def fired(self):
        """The value whose `_backward` ran last (None at step 0)."""
        return self.schedule[self.position - 1] if self.position else None

    @property
    def done(self):
        return self.position == self.n_steps

    def go_to(self, k):
        """Show step k: zero every gradient, seed the output with 1, run the first k closures."""
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"the step must be an int, but was given {k!r}")
        if not 0 <= k <= self.n_steps:
            raise ValueError(f"the step must be between 0 and {self.n_steps}, but was given {k}")
        self.log = self._replay(self.schedule, k)
        self.position = k
        self._changed()

    def next(self):
        """Run one more closure (nothing happens after the last step)."""
        if not self.done:
            self.go_to(self.position + 1)

    def previous(self):
        """Go back one step by replaying from zero gradients (nothing happens at step 0)."""
        if self.position:
            self.go_to(self.position - 1)

    def reset(self):
        """Back to step 0, the seed: output.grad = 1, every other gradient 0."""
        self.go_to(0)

    def _replay(self, schedule, k):
        for node in self.nodes:
            node.grad = 0.0
        self.root.grad = 1.0
        name, uses = self.name, self._uses
        received = collections.Counter()
        log = [f"seed: {name(self.root)}.grad = 1 (the output's slope with respect to itself)"]
        for step, node in enumerate(schedule[:k], start=1):
            line = (f"step {step}: {name(node)} ({node._op}) fired, passing back "
                    f"{name(node)}.grad = {_fmt(node.grad)}")
            if received[id(node)] < uses[id(node)]:
                line += (f"\n  ! {name(node)} fired having received {received[id(node)]} of "
                         f"its {uses[id(node)]} contributions: what arrives later is never "
                         f"passed on")
            children = list({id(c): c for c in node._prev}.values())
            before = [child.grad for child in children]
            node._backward()
            for child, old in zip(children, before):
                first = received[id(child)] + 1
                received[id(child)] += sum(c is child for c in node._prev)
                line += f"\n  {name(child)}.grad: {_fmt(old)} -> {_fmt(child.grad)}"
                line += _contribution_note(first, received[id(child)], uses[id(child)])
            log.append(line)
        return log

    def correct_grads(self):
        """Every value's gradient after a full pass in the right order: what `backward()` gives.

        A list in the order of `nodes`; the stepper's own state is left as it was.
        """
        if self._correct is None:
            self._replay(self._right, len(self._right))
            self._correct = [node.grad for node in self.nodes]
            self._replay(self.schedule, self.position)
        return list(self._correct)

    def wrong_grads(self):
        """The values whose gradient now differs from `backward()`'s: [(value, now, right)]."""
        return [
            (node, node.grad, right)
            for node, right in zip(self.nodes, self.correct_grads())
            if not _same(node.grad, right)
        ]

    def graph(self, **options):
        """The graph at this step: gradients so far, coloured, and the node that just fired
        highlighted (options go to `viz.draw_dot`)."""
        options.setdefault("color_grads", True)
        options.setdefault("rankdir", self.rankdir)
        highlight = [self.fired] if self.fired is not None else []
        return viz.draw_dot(self.root, highlight=highlight, **options)

    def __repr__(self):
        order = "" if self.order_name is None else f", wrong order: {self.order_name}"
        return f"BackwardStepper(step {self.position} of {self.n_steps}{order})"

    def _build_view(self):
        return BackwardStepperView(self)


def _same(a, b):
    """Equal up to rounding (a nan gradient, as from 0 ** 0.5, equals a nan)."""
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))


def _node_name(node):
    """What the log calls a value: its label, else what the drawing shows of it."""
    if getattr(node, "label", ""):
        return str(node.label)
    if node._prev:
        return f"[{node._op} = {_fmt(node.data)}]"
    return f"[constant {node.data:g}]"


def _contribution_note(first, last, uses):
    """' (contribution 2 of 2, added with +=)' for a value used more than once, else ''."""
    if uses == 1:
        return ""
    which = f"contribution {first}" if first == last else f"contributions {first}-{last}"
    added = ", added with +=" if first > 1 else ""
    return f" ({which} of {uses}{added})"


class BackwardStepperView(widgets.VBox):
    """Reset, previous, next, a step slider, the drawn graph and the log of each step."""

    def __init__(self, model):
        self.model = model
        self.reset_button = widgets.Button(description="Reset", icon="fast-backward",
                                           tooltip="back to step 0: only the seed")
        self.previous_button = widgets.Button(description="Previous", icon="step-backward",
                                              tooltip="one closure fewer (replayed from zero)")
        self.next_button = widgets.Button(description="Next", icon="step-forward",
                                          tooltip="run the next node's _backward")
        self.slider = widgets.IntSlider(value=model.position, min=0, max=model.n_steps,
                                        description="step", continuous_update=False)
        self.reset_button.on_click(lambda _: model.reset())
        self.previous_button.on_click(lambda _: model.previous())
        self.next_button.on_click(lambda _: model.next())
        self.slider.observe(self._slider_moved, names="value")
        self.status = widgets.HTML()
        self.drawing = widgets.HTML()
        self.log_panel = widgets.HTML()
        controls = widgets.HBox([self.reset_button, self.previous_button, self.next_button,
                                 self.slider])
        super().__init__([controls, self.status, self.drawing, self.log_panel])
        self.add_class("autograd-backward-stepper")
        model.observe(lambda _: self.refresh())
        self.refresh()

    def _slider_moved(self, change):
        if change["new"] != self.model.position:
            self.model.go_to(change["new"])

    def refresh(self):
        model = self.model
        drawing = _drawing_html(model.graph)  # the slow part first: all parts change together
        self.slider.value = model.position
        self.previous_button.disabled = self.reset_button.disabled = model.position == 0
        self.next_button.disabled = model.done
        self.status.value = self._status()
        self.drawing.value = drawing
        lines = html.escape("\n".join(model.log))
        self.log_panel.value = ('<pre class="explorer-log" style="font-size:85%; '
                                f'max-height:18em; overflow:auto">{lines}</pre>')

    def _status(self):
        model = self.model
        if model.order_name is None:
            order = "the order backward() uses"
        else:
            order = f"WRONG ORDER: {WRONG_ORDERS[model.order_name]}"
        text = f"step {model.position} of {model.n_steps}, {order}."
        if model.fired is not None:
            text += f"\n{model.name(model.fired)} just fired (thick border)."
        parts = [_message_html(text, "info")]
        if model.done:
            # labelled values first: they are the ones the learner is looking for
            wrong = sorted(model.wrong_grads(), key=lambda w: not getattr(w[0], "label", ""))
            if not wrong:
                parts.append(_message_html(
                    "Done: these are exactly the gradients backward() computes.", "ok"))
            else:
                shown = "; ".join(
                    f"{model.name(node)}.grad = {_fmt(now)}, but backward() gives {_fmt(right)}"
                    for node, now, right in wrong[:4]
                )
                parts.append(_message_html(f"Done, and wrong: {shown}.", "error"))
        return "".join(parts)


# ------------------------------------------------------------------------ FiniteDifferenceExplorer


class FiniteDifferenceExplorer(_Model):
    """How wrong are finite differences, as the step h shrinks from 1 to 1e-12?

    forward  (f(x + h) - f(x)) / h           truncation error ~ h |f''| / 2     (slope 1)
    central  (f(x + h) - f(x - h)) / (2 h)   truncation error ~ h^2 |f'''| / 6  (slope 2)

    and both suffer round-off, ~ eps |f(x)| / h (slope -1 on a log-log plot): subtracting two
    nearly equal numbers keeps only their few differing digits. The errors are absolute,
    against the exact derivative `df(x)`; with `df=None` the engine computes it (then `f` must
    work on Values as well as on floats).
    """

    H_RANGE = (1e-12, 1.0)

    def __init__(self, f, df, x, h=1e-4):
        super().__init__()
        if not callable(f):
            raise TypeError(f"f must be a function of one number, but was given {f!r}")
        self.f = f
        self.x = _number(x, "x")
        if df is None:
            v = Value(self.x)
            try:
                out = f(v)
            except TypeError as exc:
                raise TypeError(
                    f"df=None asks the engine for the exact derivative, so f must also work on "
                    f"a Value, but f(Value) failed: {exc}; pass df, the derivative, instead"
                ) from None
            _backpropagate(out)
            self.exact = v.grad
        elif callable(df):
            self.exact = _number(df(self.x), "df(x)")
        else:
            raise TypeError(f"df must be the exact derivative (a function) or None, not {df!r}")
        self.h = self._check_h(h)

    @staticmethod
    def _check_h(h):
        h = _number(h, "h")
        if not 0 < h < math.inf:
            raise ValueError(f"the step h must be a positive number, but was given {h!r}")
        return h

    def set_h(self, h):
        """Move the step h (the view's slider covers H_RANGE; any positive h is accepted)."""
        self.h = self._check_h(h)
        self._changed()

    def estimates(self, h):
        """(forward, central) difference estimates of f'(x) with step h."""
        h = self._check_h(h)
        f, x = self.f, self.x
        fx = f(x)
        return (f(x + h) - fx) / h, (f(x + h) - f(x - h)) / (2 * h)

    def errors(self, h):
        """(forward error, central error): |estimate - df(x)| for step h."""
        forward, central = self.estimates(h)
        return abs(forward - self.exact), abs(central - self.exact)

    def curve(self, hs):
        """([forward errors], [central errors]) for every h in `hs`; None where f fails."""
        pairs = [_run_safely(self.errors, h) or (None, None) for h in hs]
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def best_h(self, method="central"):
        """The h in 1e-12..1 (481 steps on a log scale) with the smallest error of `method`."""
        if method not in ("forward", "central"):
            raise ValueError(f"method must be 'forward' or 'central', not {method!r}")
        hs = _log_space(-12, 0, 481)
        errors = self.curve(hs)[method == "central"]
        candidates = [(e, h) for h, e in zip(hs, errors) if e is not None and math.isfinite(e)]
        if not candidates:
            raise ValueError(f"f cannot be evaluated around x = {self.x!r} for any h")
        return min(candidates)[1]

    def figure(self):
        """The log-log plot of both errors against h, the current h marked."""
        hs = _log_space(-12, 0, 241)
        # An error of exactly 0 (a central difference of a quadratic, say) has no place on a
        # log scale: it is left out of the lines, and a note says so.
        forward, central = ([math.nan if e == 0 else e for e in _gaps(c)] for c in self.curve(hs))
        fig = _Figure(figsize=(8.5, 4.8), layout="constrained")
        ax = fig.add_subplot()
        ax.loglog(hs, forward, color=_BLUE, label="forward difference")
        ax.loglog(hs, central, color=_ORANGE, label="central difference")
        shown = [e for e in forward + central if math.isfinite(e)]
        self._guides(ax, hs)
        if shown:  # the guides must not stretch the axes beyond the curves
            ax.set_ylim(min(shown) / 10, max(shown) * 10)
        ax.axvline(self.h, color=_GREY, linewidth=0.8)
        now = _run_safely(self.errors, self.h)
        for err, colour in zip(now or (), (_BLUE, _ORANGE)):
            if err > 0:
                ax.plot([self.h], [err], "o", color=colour, markersize=8)
        ax.set_xlabel("step size h (log scale)")
        ax.set_ylabel("absolute error |estimate - f'(x)| (log scale)")
        name = getattr(self.f, "__name__", "f")
        name = "f" if name == "<lambda>" else name
        ax.set_title(f"Error of finite differences for {name}'({self.x:g}); the dots mark "
                     f"h = {self.h:.1e}")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
        notes = ["left: round-off grows as h shrinks;  right: truncation grows with h"]
        if any(math.isnan(e) for e in forward + central):
            notes.append("gaps: the error is exactly 0 there, or f cannot be evaluated")
        ax.text(0.01, 0.99, "\n".join(notes), transform=ax.transAxes, fontsize=8,
                color=_GREY, va="top")
        return fig

    def _guides(self, ax, hs):
        """Dotted and dashed lines of slope -1, 1 and 2 to read the curves' slopes against.

        The truncation guides go through the errors at h = 0.01, and only when round-off is
        negligible there (it is for a smooth f; a quadratic's central error is all round-off).
        """
        eps = 2.0**-52
        fx = _run_safely(self.f, self.x)
        round_off = eps * abs(fx) if _finite(fx) and fx != 0 else eps
        ax.loglog(hs, [round_off / h for h in hs], ":", color=_GREY, linewidth=1,
                  label="round-off ~ eps |f(x)| / h (slope -1)")
        anchor = 1e-2
        at_anchor = _run_safely(self.errors, anchor)
        for err, power, colour in zip(at_anchor or (), (1, 2), (_BLUE, _ORANGE)):
            if err > 100 * round_off / anchor:
                ax.loglog(hs, [err * (h / anchor) ** power for h in hs], "--", color=colour,
                          linewidth=0.8, alpha=0.7, label=f"truncation ~ h^{power} (slope {power})")

    def __repr__(self):
        return f"FiniteDifferenceExplorer(x={self.x:g}, h={self.h:.1e})"

    def _build_view(self):
        return FiniteDifferenceView(self)


class FiniteDifferenceView(widgets.VBox):
    """A log-scale slider for h, the two errors at that h, and the log-log plot."""

    def __init__(self, model):
        self.model = model
        lo, hi = model.H_RANGE
        self.slider = widgets.FloatLogSlider(
            value=min(max(model.h, lo), hi), base=10, min=math.log10(lo), max=math.log10(hi),
            step=0.1, description="h", readout_format=".1e", continuous_update=False,
            layout=widgets.Layout(width="36em"),
        )
        self.slider.observe(self._slider_moved, names="value")
        self.status = widgets.HTML()
        self.plot = widgets.Image(format="png")
        super().__init__([self.slider, self.status, self.plot])
        self.add_class("autograd-finite-differences")
        model.observe(lambda _: self.refresh())
        self.refresh()

    def _slider_moved(self, change):
        if change["new"] != self.model.h:
            self.model.set_h(change["new"])

    def refresh(self):
        model = self.model
        # the slow part first: text and picture change together
        picture, trouble = _picture(model.figure)
        _show(self.slider, model.h)
        try:
            forward, central = model.errors(model.h)
            self.status.value = (
                f"h = {model.h:.1e}: forward error {forward:.2e}, central error {central:.2e} "
                f"(exact f'(x) = {model.exact:.6g})"
            )
        except ENGINE_ERRORS as exc:
            self.status.value = _message_html(f"f cannot be evaluated at x ± h: {exc}")
        if trouble:
            self.status.value += _message_html(trouble, "warning")
        self.plot.value = picture


# ------------------------------------------------------------------------ ActivationExplorer


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


_POINTS = 401  # where the activation explorer's curves are computed


def _plottable_range(lo, hi):
    """Whether `_POINTS` points from lo to hi are finite and all different (they are not
    around 1e308, where neighbouring floats are 2e292 apart, nor when hi - lo overflows)."""
    xs = _lin_space(lo, hi, _POINTS)
    return all(map(math.isfinite, xs)) and all(a < b for a, b in zip(xs, xs[1:]))


def _disagree(engine, by_hand):
    """Whether two slopes differ beyond rounding. nan against nan is no disagreement: both
    say there is no number; nan against a number is."""
    if math.isnan(engine) or math.isnan(by_hand):
        return not (math.isnan(engine) and math.isnan(by_hand))
    return not math.isclose(engine, by_hand, rel_tol=1e-9, abs_tol=1e-12)


# name -> (the derivative written out by hand, as a function of x; its formula for titles)
ACTIVATIONS = {
    "tanh": (lambda x: 1.0 - math.tanh(x) ** 2, "1 - tanh(x)^2"),
    "relu": (lambda x: 1.0 if x > 0 else 0.0, "1 if x > 0, else 0"),
    "sigmoid": (lambda x: _sigmoid(x) * (1.0 - _sigmoid(x)), "sigmoid(x) (1 - sigmoid(x))"),
    "exp": (math.exp, "exp(x)"),
}


class ActivationExplorer(_Model):
    """An activation f and its slope f'(x) at a point you move, with the tangent line there.

    The slope comes from the engine (one call of the method on a `value_class` leaf, then
    `backward()`) and is checked against the derivative written out by hand; `mismatch` says
    when they disagree, which is how it catches a wrong `_backward` in a learner's class. A
    class from before chapter 5, which has no `backward()` yet, works too: the explorer seeds
    the output's grad with 1 and runs the closures itself. The menu offers the activations
    `value_class` has.

    Any float is a point, ±inf and nan too: what the engine cannot compute is `error` (shown
    as a message), and `note` says when the numbers are no check at all (at nan both slopes
    are nan, which is no mismatch, and no agreement either). A point far outside `window` is
    plotted around, while the floats there are close enough together to plot; beyond that,
    the plot keeps the window and says where the point is.
    """

    def __init__(self, function="tanh", x=0.5, *, value_class=Value, window=(-5.0, 5.0)):
        super().__init__()
        self.value_class = value_class
        self.window = tuple(_number(w, "each end of window") for w in window)
        if (len(self.window) != 2 or not self.window[0] < self.window[1]
                or not _plottable_range(*self.window)):
            raise ValueError(f"window must be (low, high), two finite numbers with low < high "
                             f"and room for {_POINTS} points between them, not {window!r}")
        self.function, self.x = "tanh", 0.0
        self.value = self.slope = self.analytic_slope = None
        self.error = self.mismatch = self.note = None
        self.set_function(function)
        self.set_point(x)

    def set_function(self, name):
        """Choose the activation: "tanh", "relu", "sigmoid" or "exp"."""
        if name not in ACTIVATIONS:
            raise ValueError(f"unknown function {name!r}; choose one of {', '.join(ACTIVATIONS)}")
        if name not in self.functions:
            raise ValueError(f"{self.value_class.__name__} has no method {name!r} yet; it has "
                             f"{', '.join(self.functions) or 'none of ' + ', '.join(ACTIVATIONS)}")
        self._call(name, 0.0)  # a method that returns no Value is refused before switching
        self.function = name
        self._compute()

    @property
    def functions(self):
        """The activations `value_class` has a method for, in the menu's order."""
        return [name for name in ACTIVATIONS if callable(getattr(self.value_class, name, None))]

    def set_point(self, x):
        """Move the point where the value and the slope are taken."""
        self.x = _number(x, "x")
        self._compute()

    def _engine(self, x):
        """(f(x), f'(x)) computed by the engine: a leaf, one method call, the backward pass."""
        leaf, out = self._call(self.function, x)
        _backpropagate(out)
        return out.data, leaf.grad

    def _call(self, name, x):
        """(leaf, leaf.name()) for a value_class leaf holding x; a TypeError if no Value comes
        back (a learner's method still a stub, say)."""
        leaf = self.value_class(x)
        out = getattr(leaf, name)()
        if not all(hasattr(out, a) for a in ("data", "grad", "_backward")):
            raise TypeError(f"{self.value_class.__name__}.{name}() must return a Value, but "
                            f"it returned {out!r}")
        return leaf, out

    def _compute(self):
        self.error = self.mismatch = self.note = None
        try:
            self.value, self.slope = self._engine(self.x)
            self.analytic_slope = ACTIVATIONS[self.function][0](self.x)
        except ENGINE_ERRORS as exc:
            self.value = self.slope = self.analytic_slope = None
            self.error = f"{type(exc).__name__}: {exc}"
        else:
            name, formula = self.function, ACTIVATIONS[self.function][1]
            if _disagree(self.slope, self.analytic_slope):
                self.mismatch = (
                    f"the engine's _backward gives {name}'({self.x:g}) = {self.slope!r}, but "
                    f"{formula} = {self.analytic_slope!r}"
                )
            elif math.isnan(self.slope):  # and so is the formula's
                self.note = (
                    f"{name}'({self.x:g}) is nan (not a number) by the engine and by {formula}: "
                    f"neither has a slope to give here, so this point checks nothing"
                )
            elif not all(map(math.isfinite, (self.value, self.slope))):
                self.note = (f"{name}({self.x:g}) = {self.value!r} with slope {self.slope!r}: "
                             f"not every number here is finite")
        self._changed()

    def curve(self, xs):
        """([f(x)], [f'(x)]) for every x in xs, both by the engine; None where it fails."""
        pairs = [_run_safely(self._engine, x) or (None, None) for x in xs]
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def figure(self):
        """f with the point and its tangent (left); f' with the point's slope (right)."""
        lo, hi = self.window
        on_plot = math.isfinite(self.x)  # inf and nan have no place on an axis
        if on_plot and not lo <= self.x <= hi:  # follow a point moved out of sight, if it can be
            half = (hi - lo) / 2
            if _plottable_range(self.x - half, self.x + half):
                lo, hi = self.x - half, self.x + half
            else:  # 1e308, say: the floats around it are too far apart to draw a curve through
                on_plot = False
        xs = _lin_space(lo, hi, _POINTS)
        fs, dfs = (_break_jumps(_plottable(c)) for c in self.curve(xs))
        name = self.function
        fig = _Figure(figsize=(9, 3.8), layout="constrained")
        left, right = fig.subplots(1, 2)
        by_hand, formula = ACTIVATIONS[name]
        left.plot(xs, fs, color=_BLUE, label=f"{name}(x)")
        right.plot(xs, dfs, color=_ORANGE, label=f"{name}'(x) by the engine")
        # The derivative written out by hand, on top: it hides in the line above unless the
        # engine's backward is wrong.
        hand = _break_jumps(_plottable([_run_safely(by_hand, t) for t in xs]))
        right.plot(xs, hand, ":", color="black", linewidth=1, label=f"by hand: {formula}")
        drawable = on_plot and self.error is None and all(
            abs(v) < 1e250 for v in (self.value, self.slope))  # False for nan too
        if self.error is None and not drawable:
            left.set_title(f"{name}({self.x:g}) = {self.value:.4g}")
            right.set_title(f"slope {name}'({self.x:g}) = {self.slope:.4g}")
            if math.isnan(self.x):
                why = "x = nan is not a number, so it has no place on the x axis"
            elif not on_plot:
                why = (f"x = {self.x:g} lies too far out to plot around; the plot shows x "
                       f"from {lo:g} to {hi:g} instead")
            else:
                why = f"{name}({self.x:g}) or its slope is too large to draw"
            fig.suptitle(why, fontsize=10, color="#8a5a00")
        elif self.error is None:
            tangent = [self.value + self.slope * (t - self.x) for t in xs]
            left.plot(xs, tangent, "--", color=_GREY, linewidth=1,
                      label=f"tangent, slope {self.slope:.4g}")
            finite = [y for y in fs if math.isfinite(y)]
            if finite:  # a steep tangent must not squash f
                pad = 0.15 * (max(finite) - min(finite) or 1.0)
                left.set_ylim(min(finite) - pad, max(finite) + pad)
            left.plot([self.x], [self.value], "o", color="black")
            right.plot([self.x], [self.slope], "o", color="black")
            left.set_title(f"{name}({self.x:.2f}) = {self.value:.4g}")
            right.set_title(f"slope {name}'({self.x:.2f}) = {self.slope:.4g}")
        else:
            left.set_title(f"{name}({self.x:g}) cannot be computed")
            right.set_title("so neither can its slope")
            for ax in (left, right):
                ax.text(0.5, 0.5, textwrap.fill(self.error, 40), transform=ax.transAxes,
                        ha="center", va="center", fontsize=9, color="#b00020")
                ax.set_yticks([])
        for ax, ylabel in ((left, f"{name}(x)"), (right, f"{name}'(x)")):
            if on_plot:
                ax.axvline(self.x, color=_GREY, linewidth=0.6)
            ax.set_xlabel("x")
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
            if self.error is None:
                ax.legend(loc="best", fontsize=8)
        return fig

    def __repr__(self):
        return (f"ActivationExplorer({self.function} at x={self.x:g}: value {_fmt(self.value)}, "
                f"slope {_fmt(self.slope)})")

    def _build_view(self):
        return ActivationView(self)


class ActivationView(widgets.VBox):
    """A menu of activations, a slider for the point, the numbers and both plots."""

    def __init__(self, model):
        self.model = model
        self.menu = widgets.ToggleButtons(options=model.functions, value=model.function)
        lo, hi = model.window
        start = min(max(model.x, lo), hi) if not math.isnan(model.x) else (lo + hi) / 2
        self.slider = widgets.FloatSlider(value=start, min=lo, max=hi,
                                          step=0.01, description="x", continuous_update=False,
                                          layout=widgets.Layout(width="30em"))
        self.menu.observe(self._menu_changed, names="value")
        self.slider.observe(self._slider_moved, names="value")
        self.status = widgets.HTML()
        self.plot = widgets.Image(format="png")
        super().__init__([widgets.HBox([widgets.Label("function"), self.menu]), self.slider,
                          self.status, self.plot])
        self.add_class("autograd-activation-explorer")
        model.observe(lambda _: self.refresh())
        self.refresh()

    def _menu_changed(self, change):
        if change["new"] == self.model.function:
            return
        try:
            self.model.set_function(change["new"])
        except TypeError as exc:  # a learner's method that returns no Value: say so, stay
            self.menu.value = self.model.function
            self.status.value = _message_html(str(exc))

    def _slider_moved(self, change):
        if change["new"] != self.model.x:
            self.model.set_point(change["new"])

    def refresh(self):
        model = self.model
        # the slow part first: text and picture change together
        picture, trouble = _picture(model.figure)
        self.menu.value = model.function
        _show(self.slider, model.x)
        name = model.function
        if model.error:
            status = _message_html(model.error)
        else:
            text = (f"{name}({model.x:g}) = {_fmt(model.value)}; slope by the engine's _backward: "
                    f"{_fmt(model.slope)}; by hand, {ACTIVATIONS[name][1]} = "
                    f"{_fmt(model.analytic_slope)}")
            status = html.escape(text)
            if model.mismatch:
                status += _message_html(model.mismatch)
            if model.note:
                status += _message_html(model.note, "warning")
        if trouble:
            status += _message_html(trouble, "warning")
        self.status.value = status
        self.plot.value = picture


# ------------------------------------------------------------------------ TrainingDashboard


_PLAIN_ACTIVATIONS = {
    "relu": lambda a: 0.0 if a < 0 else a,
    "tanh": math.tanh,
    "sigmoid": _sigmoid,
    "linear": lambda a: a,
}


def _plain_scorer(model):
    """x -> the model's score as a float, computed without building a graph.

    It repeats `nn.Neuron`'s arithmetic, act(b + w1 x1 + ... + wn xn), on the parameters'
    data: scoring a 30 x 30 grid through Values would build some 600,000 nodes per redraw.
    A model of another shape is simply called (and its graph thrown away).
    """
    try:
        layers = [
            ([([w.data for w in neuron.w], neuron.b.data) for neuron in layer.neurons],
             _PLAIN_ACTIVATIONS[layer.nonlin])
            for layer in model.layers
        ]
    except (AttributeError, KeyError):
        return lambda x: model(x).data

    def score(x):
        for neurons, act in layers:
            outputs = []
            for w, b in neurons:
                a = b
                for wi, xi in zip(w, x):
                    a += wi * xi
                outputs.append(act(a))
            x = outputs
        return x[0]

    return score


def _parameter_count(hidden):
    """How many weights and biases an MLP 2 -> *hidden -> 1 has."""
    sizes = [2, *hidden, 1]
    return sum((fan_in + 1) * fan_out for fan_in, fan_out in zip(sizes, sizes[1:]))


class TrainingDashboard(_Model):
    """Train a small MLP on a toy data set one step at a time; watch the loss and the boundary.

    Each `step()` is one SGD step (`nn.train_step`) on the next mini-batch of `batch_size`
    points (None: all of them), so a step stays short and the view responsive. After every
    step the loss and the accuracy on *all* points are recorded: `losses[k]` is the loss after
    k steps, `losses[0]` that of the untrained model. A loss that stops being a number or grows
    a thousandfold is divergence: `diverged` says so and training stops until `reset()`.

    Changing the data set, the noise or the width rebuilds the model (same seed); changing the
    learning rate does not. `value_class` chooses the engine: by default the fast one
    (`autograd.fast.Value`, the same gradients as the reference engine, many times faster, so
    playing stays smooth); the reference `Value` or a learner's own class work too.

    Every size and setting has a range (the class attributes below), so that a step, a redraw
    and the plot stay quick and finite: outside it, a ValueError says what the range is, and
    the view's controls cannot leave it. One step may also push at most `MAX_STEP_WORK` point-
    parameters through the engine (batch points times the model's weights and biases, about
    three seconds of the fast engine): the default 20 points through (16, 16) is 6,740.
    """

    DIVERGENCE_FACTOR = 1e3
    N_RANGE = (2, 1000)  # points in the data set
    NOISE_RANGE = (0.0, 1.0)  # the data sets span about 2 units
    WIDTH_RANGE = (1, 64)  # neurons in a hidden layer
    LAYERS_RANGE = (1, 4)  # hidden layers
    LR_RANGE = (1e-6, 1e6)
    ALPHA_RANGE = (0.0, 1.0)  # the L2 penalty's weight
    GRID_RANGE = (2, 200)  # the decision boundary's lattice, per side
    MAX_RUN = 10_000  # steps in one run()
    MAX_STEP_WORK = 400_000

    def __init__(self, dataset="moons", n=100, noise=0.1, hidden=(16, 16), lr=0.2, seed=0,
                 value_class=FastValue, *, loss="hinge", alpha=1e-4, batch_size=20,
                 nonlin="relu"):
        super().__init__()
        if dataset not in _data.DATASETS:
            raise ValueError(f"unknown data set {dataset!r}; choose one of "
                             f"{', '.join(_data.DATASETS)}")
        if loss not in _nn.LOSSES:
            raise ValueError(f"loss must be one of {', '.join(_nn.LOSSES)}, not {loss!r}")
        n = _whole(n, "n (the number of points)", *self.N_RANGE)
        if batch_size is not None:
            batch_size = _whole(batch_size, "batch_size (or None: every point)", 1,
                                self.N_RANGE[1])
        self.alpha = _bounded(alpha, "alpha (the weight of the L2 penalty)", *self.ALPHA_RANGE)
        self.n, self.batch_size = n, batch_size
        self.hidden = self._check_hidden(hidden)
        self.lr = self._check_lr(lr)
        noise = self._check_noise(noise)
        self.dataset, self.noise, self.seed = dataset, noise, seed
        self.value_class, self.loss, self.nonlin = value_class, loss, nonlin
        self.X, self.y = _data.make_dataset(dataset, n, noise, seed)
        self.reset()

    @classmethod
    def _check_lr(cls, lr):
        return _bounded(lr, "the learning rate", *cls.LR_RANGE)

    @classmethod
    def _check_noise(cls, noise):
        return _bounded(noise, "noise", *cls.NOISE_RANGE)

    def _check_hidden(self, hidden):
        """`hidden` as a tuple of widths, if each is in range and a step stays quick."""
        if isinstance(hidden, (str, bytes)) or not hasattr(hidden, "__iter__"):
            raise TypeError(f"hidden must list the hidden layers' widths, e.g. (16, 16), "
                            f"not {hidden!r}")
        hidden = tuple(hidden)
        low, high = self.LAYERS_RANGE
        if not low <= len(hidden) <= high:
            raise ValueError(f"hidden must list from {low} to {high} hidden layers' widths, "
                             f"e.g. (16, 16), but lists {len(hidden)}: {hidden!r}")
        hidden = tuple(_whole(w, "a hidden layer's width", *self.WIDTH_RANGE) for w in hidden)
        points = self.n if self.batch_size is None else min(self.batch_size, self.n)
        work = points * _parameter_count(hidden)
        if work > self.MAX_STEP_WORK:
            raise ValueError(
                f"one step would push {points} points through the {_parameter_count(hidden)} "
                f"weights and biases of hidden layers {hidden}: {work:,} point-parameters, "
                f"more than the {self.MAX_STEP_WORK:,} that keep a step within a few seconds; "
                f"use narrower or fewer layers, a smaller batch_size or fewer points"
            )
        return hidden

    # -- state

    def reset(self):
        """A fresh model (same seed, so the same starting weights) and an empty history."""
        self.model = _nn.MLP(2, [*self.hidden, 1], self.nonlin, seed=self.seed,
                             value_class=self.value_class)
        self._shuffler = random.Random(self.seed)
        self._queue = []
        self.steps = 0
        self.diverged = None
        loss, accuracy = self._evaluate()
        self.losses, self.accuracies = [loss], [accuracy]
        self._changed()

    @property
    def width(self):
        """The width of the first hidden layer (`set_width` makes them all this wide)."""
        return self.hidden[0]

    @property
    def accuracy(self):
        """The fraction of all points on the right side of the boundary, now."""
        return self.accuracies[-1]

    def _next_batch(self):
        if self.batch_size is None or self.batch_size >= len(self.X):
            return list(range(len(self.X)))
        if len(self._queue) < self.batch_size:  # a new pass over the data, in a new order
            order = list(range(len(self.X)))
            self._shuffler.shuffle(order)
            self._queue += order
        batch, self._queue = self._queue[:self.batch_size], self._queue[self.batch_size:]
        return batch

    def _evaluate(self):
        """(loss, accuracy) on all points, from plain-float scores and the nn losses."""
        score = _plain_scorer(self.model)
        scores = [score(x) for x in self.X]
        total = _nn.LOSSES[self.loss]([Value(s) for s in scores], self.y).data
        if self.alpha:
            total += self.alpha * sum(p.data * p.data for p in self.model.parameters())
        return total, _nn.accuracy(scores, self.y)

    def step(self):
        """One training step; returns the loss on all points after it (None once diverged)."""
        if self.diverged:
            return None
        batch = self._next_batch()
        reason = None
        try:
            _nn.train_step(self.model, [self.X[i] for i in batch], [self.y[i] for i in batch],
                           lr=self.lr, loss=self.loss, alpha=self.alpha)
            loss, accuracy = self._evaluate()
        except ENGINE_ERRORS as exc:
            loss, accuracy, reason = math.nan, math.nan, f"{type(exc).__name__}: {exc}"
        self.steps += 1
        self.losses.append(loss)
        self.accuracies.append(accuracy)
        start = self.losses[0]
        if reason is None and (not math.isfinite(loss)
                               or loss > self.DIVERGENCE_FACTOR * max(start, 1.0)):
            reason = f"the loss went from {start:.3g} to {loss:.3g}"
        if reason:
            self.diverged = (
                f"Training diverged at step {self.steps}: {reason}. The learning rate "
                f"{self.lr:g} is too large for this model; lower it and press Reset."
            )
        self._changed()
        return None if self.diverged else loss

    def run(self, steps):
        """Take up to `steps` steps (fewer if training diverges); returns the last loss."""
        steps = _whole(steps, "the number of steps", 0, self.MAX_RUN)
        for _ in range(steps):
            if self.step() is None:
                break
        return self.losses[-1]

    # -- settings

    def set_lr(self, lr):
        """A new learning rate for the next steps (the model is kept)."""
        self.lr = self._check_lr(lr)
        self._changed()

    def set_dataset(self, name, noise=None):
        """Another data set (and optionally noise): new points, so a new model."""
        if name not in _data.DATASETS:
            raise ValueError(f"unknown data set {name!r}; choose one of "
                             f"{', '.join(_data.DATASETS)}")
        noise = self.noise if noise is None else self._check_noise(noise)
        self.X, self.y = _data.make_dataset(name, self.n, noise, self.seed)
        self.dataset, self.noise = name, noise
        self.reset()

    def set_noise(self, noise):
        """The same data set with more or less noise, and a new model."""
        self.set_dataset(self.dataset, noise)

    def set_width(self, width):
        """Every hidden layer `width` neurons wide, and a new model."""
        self.hidden = self._check_hidden((width,) * len(self.hidden))
        self.reset()

    # -- pictures

    def boundary(self, grid=30):
        """(xs, ys, scores): the score on a grid x grid lattice over the data, scores[i][j]
        at (xs[j], ys[i]). The decision boundary is where the score crosses 0."""
        grid = _whole(grid, "grid (points per side)", *self.GRID_RANGE)
        x1s, x2s = [p[0] for p in self.X], [p[1] for p in self.X]
        xs = _lin_space(min(x1s) - 0.5, max(x1s) + 0.5, grid)
        ys = _lin_space(min(x2s) - 0.5, max(x2s) + 0.5, grid)
        score = _plain_scorer(self.model)
        return xs, ys, [[score([x, y]) for x in xs] for y in ys]

    def figure(self, grid=30):
        """The loss curve (left) and the data over the decision boundary (right)."""
        fig = _Figure(figsize=(10, 4.2), layout="constrained")
        left, right = fig.subplots(1, 2)
        few = len(self.losses) < 30  # dots while there are few enough to count
        # A loss near the float limit (a diverged step) is a gap: the title gives its number.
        shown = _plottable(self.losses)
        left.plot(range(len(shown)), shown, color=_BLUE, marker="." if few else None)
        finite = [l for l in shown if math.isfinite(l)]
        if finite and max(finite) > 10 * min(finite) > 0:
            left.set_yscale("log")
        left.xaxis.set_major_locator(MaxNLocator(integer=True))
        left.set_xlim(0, max(10, self.steps))
        left.set_xlabel("training step")
        left.set_ylabel(f"{self.loss} loss + L2 penalty, all points")
        if self.diverged:
            left.set_title(f"Diverged at step {self.steps}: loss {_fmt(self.losses[-1])}",
                           color="#b00020")
        else:
            steps = "1 step" if self.steps == 1 else f"{self.steps} steps"
            left.set_title(f"Loss after {steps}: {_fmt(self.losses[-1])}")
        left.grid(True, alpha=0.3)

        xs, ys, zz = self.boundary(grid)
        flat = [z for row in zz for z in row]
        if all(math.isfinite(z) for z in flat):
            low, high = min(min(flat), -1e-9) - 1, max(max(flat), 1e-9) + 1
            right.contourf(xs, ys, zz, levels=[low, 0, high], colors=["#fbd3b5", "#c6dbef"])
            if min(flat) < 0 < max(flat):
                right.contour(xs, ys, zz, levels=[0], colors="black", linewidths=1)
        for label, colour, marker in ((-1, _ORANGE, "o"), (1, _BLUE, "s")):
            points = [p for p, t in zip(self.X, self.y) if t == label]
            right.scatter([p[0] for p in points], [p[1] for p in points], c=colour, s=18,
                          marker=marker, edgecolors="black", linewidths=0.4,
                          label=f"class {label:+d}")
        right.set_xlim(xs[0], xs[-1])
        right.set_ylim(ys[0], ys[-1])
        right.set_xlabel("x1")
        right.set_ylabel("x2")
        accuracy = "—" if not _finite(self.accuracy) else f"{self.accuracy:.0%}"
        right.set_title(f"{self.dataset}: accuracy {accuracy}; shading = predicted class")
        right.legend(loc="upper right", fontsize=8, framealpha=0.9)
        return fig

    def __repr__(self):
        return (f"TrainingDashboard({self.dataset}, step {self.steps}, loss "
                f"{_fmt(self.losses[-1])}{', diverged' if self.diverged else ''})")

    def _build_view(self):
        return TrainingDashboardView(self)


class TrainingDashboardView(widgets.VBox):
    """Play/pause, step and reset; learning rate, data set, noise and width; the live plots.

    The Play widget ticks in the browser every `interval` ms and each tick runs one step. A
    step can take longer than a tick, and ticks that queued up meanwhile are dropped, so the
    kernel never falls behind and a pause takes effect at once.
    """

    def __init__(self, model, interval=400):
        self.model = model
        self.play = widgets.Play(value=0, min=0, max=10**9, interval=interval,
                                 show_repeat=False, description="play",
                                 tooltip="train one step per tick; pause stops")
        self.step_button = widgets.Button(description="Step", icon="step-forward",
                                          tooltip="one training step")
        self.reset_button = widgets.Button(description="Reset", icon="undo",
                                           tooltip="a fresh model with the same seed")
        self.lr_slider = widgets.FloatLogSlider(value=model.lr, base=10, min=-3, max=2,
                                                step=0.1, description="learning rate",
                                                readout_format=".3g", continuous_update=False,
                                                style={"description_width": "initial"})
        self.dataset_menu = widgets.ToggleButtons(options=list(_data.DATASETS),
                                                  value=model.dataset)
        self.noise_slider = widgets.FloatSlider(value=model.noise, min=0.0, max=0.5, step=0.01,
                                                description="noise", continuous_update=False)
        self.width_slider = widgets.IntSlider(value=model.width, min=1, max=32,
                                              description="width", continuous_update=False)
        self._last_step_done = -math.inf
        self.play.observe(self._tick, names="value")
        self.step_button.on_click(lambda _: model.step())
        self.reset_button.on_click(lambda _: model.reset())
        # Each control changes the model only when it differs from it, so that refresh()
        # showing the model's state in the controls does not rebuild the model again.
        self.lr_slider.observe(self._when_changed("lr", model.set_lr), names="value")
        self.dataset_menu.observe(self._when_changed("dataset", model.set_dataset),
                                  names="value")
        self.noise_slider.observe(self._when_changed("noise", model.set_noise), names="value")
        self.width_slider.observe(self._when_changed("width", model.set_width), names="value")
        self.status = widgets.HTML()
        self.plot = widgets.Image(format="png")
        super().__init__([
            widgets.HBox([self.play, self.step_button, self.reset_button, self.lr_slider]),
            widgets.HBox([widgets.Label("data set"), self.dataset_menu]),
            widgets.HBox([self.noise_slider, self.width_slider]),
            self.status,
            self.plot,
        ])
        self.add_class("autograd-training-dashboard")
        model.observe(lambda _: self.refresh())
        self.refresh()

    def _when_changed(self, attribute, setter):
        def changed(change):
            kept = getattr(self.model, attribute)
            if change["new"] == kept:
                return
            try:
                setter(change["new"])
            except (*ENGINE_ERRORS, TypeError) as exc:  # beyond a range: say so, go back
                control = change["owner"]
                if isinstance(control, widgets.ToggleButtons):
                    control.value = kept
                else:
                    _show(control, kept)
                self.status.value = _message_html(str(exc))
        return changed

    def _tick(self, change):
        if time.monotonic() - self._last_step_done < self.play.interval / 2000:
            return  # a tick that waited in the queue while the last step ran
        if self.model.diverged:
            self.play.playing = False
            return
        self.model.step()
        self._last_step_done = time.monotonic()

    def refresh(self):
        model = self.model
        # the slow part first: text and picture change together
        picture, trouble = _picture(model.figure)
        _show(self.lr_slider, model.lr)
        _show(self.noise_slider, model.noise)
        _show(self.width_slider, model.width)
        self.dataset_menu.value = model.dataset
        self.step_button.disabled = bool(model.diverged)
        if model.diverged:
            self.play.playing = False
            self.status.value = _message_html(model.diverged)
        else:
            self.status.value = html.escape(
                f"step {model.steps}: loss {_fmt(model.losses[-1])}, accuracy "
                f"{model.accuracy:.0%} on {len(model.X)} points; MLP 2 -> "
                f"{' -> '.join(map(str, model.hidden))} -> 1, "
                f"{len(model.model.parameters())} parameters"
            )
        if trouble:
            self.status.value += _message_html(trouble, "warning")
        self.plot.value = picture
