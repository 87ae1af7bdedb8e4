"""`ForwardExplorer`: chapter 02's graph to play with. A slider for each input (leaf); every
move builds the graph again from the inputs and draws it, with the values that the move
changed highlighted: the input, and everything made from it. The others keep their numbers,
since nothing made them from that input."""

import html

import ipywidgets as widgets

from .. import graph, viz
from ..engine import Value
from ._common import (
    ENGINE_ERRORS,
    _check_rankdir,
    _drawing_html,
    _fmt,
    _message_html,
    _Model,
    _real_input,
    _show,
    _View,
)

__all__ = ["ForwardExplorer", "ForwardView"]


class ForwardExplorer(_Model):
    """Sliders for the inputs of a graph that `build` makes; a drawing of its data.

    `build(**leaves)` takes one value per input, by name, and returns the graph's output; it
    may build each node with the constructor alone, as chapter 02 does, since the explorer
    only reads `data`, `_prev`, `_op` and `label`. `inputs` maps each name to its starting
    number. After `set(name, x)`, `changed` lists the labels of the values whose data changed
    (the input and every value made from it), in the order the graph was built.

    >>> def build(a, b, c):
    ...     e = Value(a.data * b.data, (a, b), "*", label="e")
    ...     return Value(e.data + c.data, (e, c), "+", label="d")
    >>> ex = ForwardExplorer(build, {"a": 2.0, "b": -3.0, "c": 10.0})
    >>> ex.set("c", 1.0)
    >>> ex.changed, ex.data["d"]
    (['c', 'd'], -5.0)
    """

    def __init__(self, build, inputs, *, value_class=Value, rankdir="LR", low=-5.0, high=5.0):
        super().__init__()
        if not callable(build):
            raise TypeError(f"build must be a function of values, but was given {build!r}")
        if not hasattr(inputs, "items") or not inputs:
            raise TypeError(f"inputs must be a non-empty dict of name -> number, not {inputs!r}")
        self.build, self.value_class = build, value_class
        self.rankdir = _check_rankdir(rankdir)
        self._values = {name: _real_input(x, f"input {name!r}") for name, x in inputs.items()}
        self.range = (
            min(_real_input(low, "low"), *self._values.values()),
            max(_real_input(high, "high"), *self._values.values()),
        )
        self.root, self.error, self.changed, self.moved = None, None, [], None
        self._compute()

    def _compute(self):
        """Build the graph again from the inputs; return {position: data} of its values."""
        leaves = {name: self.value_class(x, label=name) for name, x in self._values.items()}
        try:
            out = self.build(**leaves)
            if not all(hasattr(out, a) for a in ("data", "_prev", "_op")):
                raise TypeError(f"build must return a value, but it returned {out!r}")
        except ENGINE_ERRORS as exc:
            self.root, self.error = None, f"{type(exc).__name__}: {exc}"
            return {}
        self.root, self.error = out, None
        return {k: node.data for k, node in enumerate(self.nodes)}

    @property
    def nodes(self):
        """The graph's values, each after the values it was made from (chapter 05's order)."""
        return [] if self.root is None else graph.topological_order(self.root)

    @property
    def data(self):
        """label -> data for every value of the graph that has a label."""
        return {node.label: node.data for node in self.nodes if getattr(node, "label", "")}

    @property
    def values(self):
        return dict(self._values)

    def set(self, name, value):
        """Move input `name` to `value`, build the graph again and note what changed."""
        if name not in self._values:
            raise ValueError(f"unknown input {name!r}; the inputs are {', '.join(self._values)}")
        before = {k: node.data for k, node in enumerate(self.nodes)}
        self._values[name] = _real_input(value, f"input {name!r}")
        after = self._compute()
        self.moved = name
        self.changed = [
            node.label or f"value {k}"
            for k, node in enumerate(self.nodes)
            if before.get(k) != after.get(k)
        ]
        self._changed()

    def describe(self):
        """What the last move changed, and what it left alone, in one sentence."""
        if self.error:
            return self.error
        if self.moved is None:
            return "Move a slider: the values made from that input change, the others do not."
        kept = [node.label for node in self.nodes if node.label and node.label not in self.changed]
        if not self.changed:
            return (
                f"nothing in the graph changed: {self.moved} did not move, or no value of "
                "the graph was made from it"
            )
        if len(self.changed) == 1:
            return f"moving {self.moved} changed {self.moved} alone: no value was made from it"
        return (
            f"moving {self.moved} changed {', '.join(self.changed)} (highlighted); "
            f"{', '.join(kept) or 'nothing else'} kept {'its' if len(kept) == 1 else 'their'} "
            f"data, since none of {'it' if len(kept) == 1 else 'them'} was made from "
            f"{self.moved}"
        )

    def graph(self, **options):
        """The graph drawn with its data, the values the last move changed highlighted."""
        if self.root is None:
            raise ValueError(f"there is no graph to draw: {self.error}")
        options.setdefault("rankdir", self.rankdir)
        options.setdefault("show_grad", False)
        changed = set(self.changed)
        options.setdefault("highlight", [n for n in self.nodes if n.label in changed])
        return viz.draw_dot(self.root, **options)

    def __repr__(self):
        out = None if self.root is None else self.root.data
        return f"ForwardExplorer(output={_fmt(out)}, inputs={self.values})"

    def _build_view(self):
        return ForwardView(self)


class ForwardView(_View):
    """A slider per input, a sentence on what the last move changed, and the drawn graph."""

    def __init__(self, model):
        self.model = model
        self.sliders = {}
        lo, hi = model.range
        for name, x in model.values.items():
            slider = widgets.FloatSlider(
                value=x,
                min=lo,
                max=hi,
                step=0.5,
                description=name,
                continuous_update=False,
                layout=widgets.Layout(width="22em"),
            )
            slider.observe(self._moved(name), names="value")
            self.sliders[name] = slider
        names = list(self.sliders.values())
        rows = [widgets.HBox(names[k : k + 2]) for k in range(0, len(names), 2)]
        self.summary, self.drawing = widgets.HTML(), widgets.HTML()
        super().__init__([*rows, self.summary, self.drawing], "autograd-forward-explorer")

    def _moved(self, name):
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
        drawing = _drawing_html(model.graph)  # the slow part first: both change together
        self.summary.value = html.escape(model.describe())
        self.drawing.value = drawing
