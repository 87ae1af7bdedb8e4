"""`TrainingDashboard`: train a small MLP on a toy data set step by step, with play/pause, the
live loss curve and the decision boundary."""

import html
import math
import random
import time

import ipywidgets as widgets

from .. import data as _data
from .. import nn as _nn
from .._floats import sigmoid
from ..compile import compile_step
from ..engine import Value
from ..fast import Value as FastValue
from ._common import (
    _BLUE,
    _ORANGE,
    ENGINE_ERRORS,
    _bounded,
    _Figure,
    _finite,
    _fmt,
    _lin_space,
    _message_html,
    _Model,
    _plottable,
    _PlotView,
    _show,
    _whole,
)

__all__ = ["TrainingDashboard", "TrainingDashboardView"]


# `nn.NONLINEARITIES` on plain floats, each as the engines compute it.
_PLAIN_ACTIVATIONS = {
    "relu": lambda a: 0.0 if a < 0 else a,
    "tanh": math.tanh,
    "sigmoid": sigmoid,
    "linear": lambda a: a,
}


def _plain_scorer(model):
    """x -> the model's score as a float, computed without building a graph.

    The package's one float copy of `nn.Neuron.__call__`, act(b + w1 x1 + ... + wn xn) on the
    parameters' data, kept for speed: the dashboard scores every point after each step and a
    30 x 30 grid at each redraw, and through Values a grid builds some 600,000 nodes, several
    times slower on the fast engine and dozens of times on the reference one, too slow for a
    redraw per tick. A model of another shape is simply called (and its graph thrown away).
    """
    try:
        layers = [
            (
                [([w.data for w in neuron.w], neuron.b.data) for neuron in layer.neurons],
                _PLAIN_ACTIVATIONS[layer.nonlin],
            )
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
    `compiled=True` runs each step as compiled code instead (`autograd.compile.compile_step`,
    traced from the reference engine at the first step after each reset: about a second for
    the default sizes, then many times faster than the fast engine, and the same numbers as
    the reference engine); it takes the "hinge" or "mse" loss, not "bce" (see compile_step).

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

    def __init__(
        self,
        dataset="moons",
        n=100,
        noise=0.1,
        hidden=(16, 16),
        lr=0.2,
        seed=0,
        value_class=FastValue,
        *,
        loss="hinge",
        alpha=1e-4,
        batch_size=20,
        nonlin="relu",
        compiled=False,
    ):
        super().__init__()
        if dataset not in _data.DATASETS:
            raise ValueError(
                f"unknown data set {dataset!r}; choose one of {', '.join(_data.DATASETS)}"
            )
        if loss not in _nn.LOSSES:
            raise ValueError(f"loss must be one of {', '.join(_nn.LOSSES)}, not {loss!r}")
        n = _whole(n, "n (the number of points)", *self.N_RANGE)
        if batch_size is not None:
            batch_size = _whole(batch_size, "batch_size (or None: every point)", 1, self.N_RANGE[1])
        self.alpha = _bounded(alpha, "alpha (the weight of the L2 penalty)", *self.ALPHA_RANGE)
        self.n, self.batch_size = n, batch_size
        self.hidden = self._check_hidden(hidden)
        self.lr = self._check_lr(lr)
        noise = self._check_noise(noise)
        self.dataset, self.noise, self.seed = dataset, noise, seed
        if compiled:
            if loss == "bce":
                raise ValueError(
                    "compiled=True takes loss='hinge' or 'mse': bce_with_logits "
                    "picks a formula per point in Python, which a trace freezes"
                )
            if value_class not in (FastValue, Value):
                raise ValueError(
                    "compiled=True traces the reference engine: leave value_class "
                    f"out, rather than {value_class!r}"
                )
            value_class = Value
        self.compiled = bool(compiled)
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
            raise TypeError(
                f"hidden must list the hidden layers' widths, e.g. (16, 16), not {hidden!r}"
            )
        hidden = tuple(hidden)
        low, high = self.LAYERS_RANGE
        if not low <= len(hidden) <= high:
            raise ValueError(
                f"hidden must list from {low} to {high} hidden layers' widths, "
                f"e.g. (16, 16), but lists {len(hidden)}: {hidden!r}"
            )
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
        self.model = _nn.MLP(
            2, [*self.hidden, 1], self.nonlin, seed=self.seed, value_class=self.value_class
        )
        self._shuffler = random.Random(self.seed)
        self._queue = []
        self._compiled_step = None  # traced at the next step, for this model
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
        batch, self._queue = self._queue[: self.batch_size], self._queue[self.batch_size :]
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
        points, labels = [self.X[i] for i in batch], [self.y[i] for i in batch]
        try:
            if self.compiled:
                if self._compiled_step is None:
                    self._compiled_step = compile_step(
                        self.model, points, labels, loss=self.loss, alpha=self.alpha
                    )
                self._compiled_step(points, labels, lr=self.lr)
            else:
                _nn.train_step(
                    self.model, points, labels, lr=self.lr, loss=self.loss, alpha=self.alpha
                )
            loss, accuracy = self._evaluate()
        except ENGINE_ERRORS as exc:
            loss, accuracy, reason = math.nan, math.nan, f"{type(exc).__name__}: {exc}"
        self.steps += 1
        self.losses.append(loss)
        self.accuracies.append(accuracy)
        start = self.losses[0]
        if reason is None and (
            not math.isfinite(loss) or loss > self.DIVERGENCE_FACTOR * max(start, 1.0)
        ):
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
            raise ValueError(
                f"unknown data set {name!r}; choose one of {', '.join(_data.DATASETS)}"
            )
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
        from matplotlib.ticker import MaxNLocator  # with the first plot, as _Figure does

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
            left.set_title(
                f"Diverged at step {self.steps}: loss {_fmt(self.losses[-1])}", color="#b00020"
            )
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
            right.scatter(
                [p[0] for p in points],
                [p[1] for p in points],
                c=colour,
                s=18,
                marker=marker,
                edgecolors="black",
                linewidths=0.4,
                label=f"class {label:+d}",
            )
        right.set_xlim(xs[0], xs[-1])
        right.set_ylim(ys[0], ys[-1])
        right.set_xlabel("x1")
        right.set_ylabel("x2")
        accuracy = "—" if not _finite(self.accuracy) else f"{self.accuracy:.0%}"
        right.set_title(f"{self.dataset}: accuracy {accuracy}; shading = predicted class")
        right.legend(loc="upper right", fontsize=8, framealpha=0.9)
        return fig

    def __repr__(self):
        return (
            f"TrainingDashboard({self.dataset}, step {self.steps}, loss "
            f"{_fmt(self.losses[-1])}{', diverged' if self.diverged else ''})"
        )

    def _build_view(self):
        return TrainingDashboardView(self)


class TrainingDashboardView(_PlotView):
    """Play/pause, step and reset; learning rate, data set, noise and width; the live plots.

    The Play widget ticks in the browser every `interval` ms and each tick runs one step. A
    step can take longer than a tick, and ticks that queued up meanwhile are dropped, so the
    kernel never falls behind and a pause takes effect at once.
    """

    def __init__(self, model, interval=400):
        self.model = model
        self.play = widgets.Play(
            value=0,
            min=0,
            max=10**9,
            interval=interval,
            show_repeat=False,
            description="play",
            tooltip="train one step per tick; pause stops",
        )
        # The Play widget ticks, but its own buttons are bare icons that a screen reader
        # cannot name: it is hidden, and a named button plays and pauses it (in the browser,
        # through jslink, so that a pause never waits for the kernel).
        self.play.layout.display = "none"
        self.play_button = widgets.ToggleButton(
            value=False,
            description="Play",
            icon="play",
            tooltip="train one step per tick; Pause stops",
        )
        self._play_link = widgets.jslink((self.play_button, "value"), (self.play, "playing"))
        self.play.observe(self._show_playing, names="playing")
        self.step_button = widgets.Button(
            description="Step", icon="step-forward", tooltip="one training step"
        )
        self.reset_button = widgets.Button(
            description="Reset", icon="undo", tooltip="a fresh model with the same seed"
        )
        self.lr_slider = widgets.FloatLogSlider(
            value=model.lr,
            base=10,
            min=-3,
            max=2,
            step=0.1,
            description="learning rate",
            readout_format=".3g",
            continuous_update=False,
            style={"description_width": "initial"},
        )
        self.dataset_menu = widgets.ToggleButtons(options=list(_data.DATASETS), value=model.dataset)
        self.noise_slider = widgets.FloatSlider(
            value=model.noise,
            min=0.0,
            max=0.5,
            step=0.01,
            description="noise",
            continuous_update=False,
        )
        self.width_slider = widgets.IntSlider(
            value=model.width, min=1, max=32, description="width", continuous_update=False
        )
        self._last_step_done = -math.inf
        self.play.observe(self._tick, names="value")
        self.step_button.on_click(lambda _: model.step())
        self.reset_button.on_click(lambda _: model.reset())
        # Each control changes the model only when it differs from it, so that refresh()
        # showing the model's state in the controls does not rebuild the model again.
        self.lr_slider.observe(self._when_changed("lr", model.set_lr), names="value")
        self.dataset_menu.observe(self._when_changed("dataset", model.set_dataset), names="value")
        self.noise_slider.observe(self._when_changed("noise", model.set_noise), names="value")
        self.width_slider.observe(self._when_changed("width", model.set_width), names="value")
        super().__init__(
            [
                widgets.HBox(
                    [
                        self.play,
                        self.play_button,
                        self.step_button,
                        self.reset_button,
                        self.lr_slider,
                    ]
                ),
                widgets.HBox([widgets.Label("data set"), self.dataset_menu]),
                widgets.HBox([self.noise_slider, self.width_slider]),
            ],
            "autograd-training-dashboard",
        )

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

    def _show_playing(self, change):
        playing = bool(change["new"])
        self.play_button.value = playing  # also when the kernel stops it (training diverged)
        self.play_button.description = "Pause" if playing else "Play"
        self.play_button.icon = "pause" if playing else "play"

    def _tick(self, change):
        if time.monotonic() - self._last_step_done < self.play.interval / 2000:
            return  # a tick that waited in the queue while the last step ran
        if self.model.diverged:
            self.play.playing = False
            return
        self.model.step()
        self._last_step_done = time.monotonic()

    def _show_state(self):
        model = self.model
        _show(self.lr_slider, model.lr)
        _show(self.noise_slider, model.noise)
        _show(self.width_slider, model.width)
        self.dataset_menu.value = model.dataset
        self.step_button.disabled = bool(model.diverged)
        if model.diverged:
            self.play.playing = False

    def _status(self):
        model = self.model
        if model.diverged:
            return _message_html(model.diverged)
        return html.escape(
            f"step {model.steps}: loss {_fmt(model.losses[-1])}, accuracy "
            f"{model.accuracy:.0%} on {len(model.X)} points; MLP 2 -> "
            f"{' -> '.join(map(str, model.hidden))} -> 1, "
            f"{len(model.model.parameters())} parameters"
        )
