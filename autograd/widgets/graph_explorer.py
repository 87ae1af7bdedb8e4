"""`GraphExplorer`: sliders for the inputs of a function of Values, and the graph it builds,
redrawn with data and gradients after every move."""

import html

import ipywidgets as widgets

from .. import viz
from ..engine import Value
from ._common import (
    ENGINE_ERRORS,
    _backpropagate,
    _check_rankdir,
    _drawing_html,
    _finite,
    _fmt,
    _message_html,
    _Model,
    _real_input,
    _show,
    _View,
)

__all__ = ["GraphExplorer", "GraphExplorerView"]


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
        self._values = {name: _real_input(v, f"input {name!r}") for name, v in inputs.items()}
        self.ranges = {
            name: (min(-5.0, v - 5.0), max(5.0, v + 5.0)) for name, v in self._values.items()
        }
        for name, bounds in (ranges or {}).items():
            self._check_name(name)
            lo, hi = (_real_input(b, f"the range of {name!r}") for b in bounds)
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
        self._values[name] = _real_input(value, f"input {name!r}")
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


class GraphExplorerView(_View):
    """A slider per input, the output and its gradients in one line, and the drawn graph."""

    def __init__(self, model):
        self.model = model
        self.sliders = {}
        for name, (lo, hi) in model.ranges.items():
            slider = widgets.FloatSlider(
                value=model.values[name],
                min=lo,
                max=hi,
                step=0.01,
                description=name,
                readout_format=".4f",
                continuous_update=False,
                layout=widgets.Layout(width="30em"),
            )
            slider.observe(self._slider_moved(name), names="value")
            self.sliders[name] = slider
        self.summary = widgets.HTML()
        self.drawing = widgets.HTML()
        super().__init__(
            [*self.sliders.values(), self.summary, self.drawing], "autograd-graph-explorer"
        )

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
