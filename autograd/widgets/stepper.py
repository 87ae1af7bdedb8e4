"""`BackwardStepper`: run `backward()` one `_backward` closure at a time, in the right order or
in one of the wrong orders learners predict, and watch the gradients fill in."""

import collections
import html
import math

import ipywidgets as widgets

from .. import graph, viz
from .._floats import is_int
from ._common import (
    _VALUE_ATTRIBUTES,
    _check_rankdir,
    _drawing_html,
    _fmt,
    _message_html,
    _Model,
    _View,
)

__all__ = ["BackwardStepper", "BackwardStepperView", "WRONG_ORDERS"]


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
        self.nodes, _ = graph.trace(root, _VALUE_ATTRIBUTES)
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
                self.schedule = [node for node in graph.breadth_first_order(root) if node._prev]
        # Values are keyed by id: a learner's class may define == without a hash.
        self._names = {id(node): _node_name(node) for node in self.nodes}
        # How many contributions a value waits for: one per use, so x * x brings x two.
        self._uses = collections.Counter(id(c) for node in self.nodes for c in node._prev)
        self._correct = None
        self.position = 0
        self.log = []
        self.go_to(0)

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
        if not is_int(k):
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
            line = (
                f"step {step}: {name(node)} ({node._op}) fired, passing back "
                f"{name(node)}.grad = {_fmt(node.grad)}"
            )
            if received[id(node)] < uses[id(node)]:
                line += (
                    f"\n  ! {name(node)} fired having received {received[id(node)]} of "
                    f"its {uses[id(node)]} contributions: what arrives later is never "
                    f"passed on"
                )
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


class BackwardStepperView(_View):
    """Reset, previous, next, a step slider, the drawn graph and the log of each step."""

    def __init__(self, model):
        self.model = model
        self.reset_button = widgets.Button(
            description="Reset", icon="fast-backward", tooltip="back to step 0: only the seed"
        )
        self.previous_button = widgets.Button(
            description="Previous",
            icon="step-backward",
            tooltip="one closure fewer (replayed from zero)",
        )
        self.next_button = widgets.Button(
            description="Next", icon="step-forward", tooltip="run the next node's _backward"
        )
        self.slider = widgets.IntSlider(
            value=model.position,
            min=0,
            max=model.n_steps,
            description="step",
            continuous_update=False,
        )
        self.reset_button.on_click(lambda _: model.reset())
        self.previous_button.on_click(lambda _: model.previous())
        self.next_button.on_click(lambda _: model.next())
        self.slider.observe(self._slider_moved, names="value")
        self.status = widgets.HTML()
        self.drawing = widgets.HTML()
        self.log_panel = widgets.HTML()
        controls = widgets.HBox(
            [self.reset_button, self.previous_button, self.next_button, self.slider]
        )
        super().__init__(
            [controls, self.status, self.drawing, self.log_panel], "autograd-backward-stepper"
        )

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
        self.log_panel.value = (
            '<pre class="explorer-log" style="font-size:85%; '
            f'max-height:18em; overflow:auto">{lines}</pre>'
        )

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
                parts.append(
                    _message_html(
                        "Done: these are exactly the gradients backward() computes.", "ok"
                    )
                )
            else:
                shown = "; ".join(
                    f"{model.name(node)}.grad = {_fmt(now)}, but backward() gives {_fmt(right)}"
                    for node, now, right in wrong[:4]
                )
                parts.append(_message_html(f"Done, and wrong: {shown}.", "error"))
        return "".join(parts)
