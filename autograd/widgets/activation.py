"""`ActivationExplorer`: an activation and its slope at a point you move, the engine's slope
checked against the derivative written out by hand."""

import html
import math
import textwrap

import ipywidgets as widgets

from .._floats import sigmoid
from ..engine import Value
from ._common import (
    _BLUE,
    _GREY,
    _ORANGE,
    ENGINE_ERRORS,
    _backpropagate,
    _Figure,
    _fmt,
    _lin_space,
    _message_html,
    _Model,
    _real_input,
    _plottable,
    _run_safely,
    _PlotView,
    _show,
)

__all__ = ["ActivationExplorer", "ActivationView", "ACTIVATIONS"]


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


# name -> (the derivative written out by hand, as a function of x; its formula for titles)
ACTIVATIONS = {
    "tanh": (lambda x: 1.0 - math.tanh(x) ** 2, "1 - tanh(x)^2"),
    "relu": (lambda x: 1.0 if x > 0 else 0.0, "1 if x > 0, else 0"),
    "sigmoid": (lambda x: sigmoid(x) * (1.0 - sigmoid(x)), "sigmoid(x) (1 - sigmoid(x))"),
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
        self.window = tuple(_real_input(w, "each end of window") for w in window)
        if (
            len(self.window) != 2
            or not self.window[0] < self.window[1]
            or not _plottable_range(*self.window)
        ):
            raise ValueError(
                f"window must be (low, high), two finite numbers with low < high "
                f"and room for {_POINTS} points between them, not {window!r}"
            )
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
            raise ValueError(
                f"{self.value_class.__name__} has no method {name!r} yet; it has "
                f"{', '.join(self.functions) or 'none of ' + ', '.join(ACTIVATIONS)}"
            )
        self._call(name, 0.0)  # a method that returns no Value is refused before switching
        self.function = name
        self._compute()

    @property
    def functions(self):
        """The activations `value_class` has a method for, in the menu's order."""
        return [name for name in ACTIVATIONS if callable(getattr(self.value_class, name, None))]

    def set_point(self, x):
        """Move the point where the value and the slope are taken."""
        self.x = _real_input(x, "x")
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
            raise TypeError(
                f"{self.value_class.__name__}.{name}() must return a Value, but it returned {out!r}"
            )
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
                self.note = (
                    f"{name}({self.x:g}) = {self.value!r} with slope {self.slope!r}: "
                    f"not every number here is finite"
                )
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
        drawable = (
            on_plot and self.error is None and all(abs(v) < 1e250 for v in (self.value, self.slope))
        )  # False for nan too
        if self.error is None and not drawable:
            left.set_title(f"{name}({self.x:g}) = {self.value:.4g}")
            right.set_title(f"slope {name}'({self.x:g}) = {self.slope:.4g}")
            if math.isnan(self.x):
                why = "x = nan is not a number, so it has no place on the x axis"
            elif not on_plot:
                why = (
                    f"x = {self.x:g} lies too far out to plot around; the plot shows x "
                    f"from {lo:g} to {hi:g} instead"
                )
            else:
                why = f"{name}({self.x:g}) or its slope is too large to draw"
            fig.suptitle(why, fontsize=10, color="#8a5a00")
        elif self.error is None:
            tangent = [self.value + self.slope * (t - self.x) for t in xs]
            left.plot(
                xs,
                tangent,
                "--",
                color=_GREY,
                linewidth=1,
                label=f"tangent, slope {self.slope:.4g}",
            )
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
                ax.text(
                    0.5,
                    0.5,
                    textwrap.fill(self.error, 40),
                    transform=ax.transAxes,
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="#b00020",
                )
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
        return (
            f"ActivationExplorer({self.function} at x={self.x:g}: value {_fmt(self.value)}, "
            f"slope {_fmt(self.slope)})"
        )

    def _build_view(self):
        return ActivationView(self)


class ActivationView(_PlotView):
    """A menu of activations, a slider for the point, the numbers and both plots."""

    def __init__(self, model):
        self.model = model
        self.menu = widgets.ToggleButtons(options=model.functions, value=model.function)
        lo, hi = model.window
        start = min(max(model.x, lo), hi) if not math.isnan(model.x) else (lo + hi) / 2
        self.slider = widgets.FloatSlider(
            value=start,
            min=lo,
            max=hi,
            step=0.01,
            description="x",
            continuous_update=False,
            layout=widgets.Layout(width="30em"),
        )
        self.menu.observe(self._menu_changed, names="value")
        self.slider.observe(self._slider_moved, names="value")
        super().__init__(
            [widgets.HBox([widgets.Label("function"), self.menu]), self.slider],
            "autograd-activation-explorer",
        )

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

    def _show_state(self):
        self.menu.value = self.model.function
        _show(self.slider, self.model.x)

    def _status(self):
        model = self.model
        name = model.function
        if model.error:
            return _message_html(model.error)
        text = (
            f"{name}({model.x:g}) = {_fmt(model.value)}; slope by the engine's _backward: "
            f"{_fmt(model.slope)}; by hand, {ACTIVATIONS[name][1]} = "
            f"{_fmt(model.analytic_slope)}"
        )
        status = html.escape(text)
        if model.mismatch:
            status += _message_html(model.mismatch)
        if model.note:
            status += _message_html(model.note, "warning")
        return status
