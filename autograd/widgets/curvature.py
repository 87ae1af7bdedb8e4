"""`CurvatureExplorer`: a function of one number with its tangent line and its osculating
parabola at a point that follows a slider, and the step Newton's method takes from there."""

import math

import ipywidgets as widgets

from ..engine import Value
from ..higher_order import grad
from ._common import (
    _BLUE,
    _GREY,
    _ORANGE,
    ENGINE_ERRORS,
    _Figure,
    _finite,
    _fmt,
    _lin_space,
    _message_html,
    _Model,
    _plottable,
    _real_input,
    _run_safely,
    _PlotView,
    _show,
)

__all__ = ["CurvatureExplorer", "CurvatureView"]


class CurvatureExplorer(_Model):
    """What the first and second derivatives of f say about f near a point x.

    tangent   f(x) + f'(x) (t - x)                           the line gradient descent follows
    parabola  f(x) + f'(x) (t - x) + f''(x) (t - x)^2 / 2    the parabola Newton's method uses

    The parabola touches f at x with the same slope and the same bend: it is f's best
    quadratic approximation there (Taylor's, to second order). Newton's step goes to the
    parabola's vertex, t = x - f'(x) / f''(x): its bottom where f'' > 0, its top (uphill)
    where f'' < 0, and nowhere where f'' = 0.

    `f` takes a Value of the reference engine and returns one, built with the engine's
    operations; the derivatives come from `autograd.grad` applied twice. `x_range` is the
    stretch the plot and the view's slider cover; the model accepts any x.
    """

    SAMPLES = 301

    def __init__(self, f, x=0.0, x_range=(-2.0, 2.0)):
        super().__init__()
        if not callable(f):
            raise TypeError(f"f must be a function of one Value, but was given {f!r}")
        self.f = f
        self.x_range = self._check_range(x_range)
        self.x = _real_input(x, "x")
        self._check_f()

    @staticmethod
    def _check_range(x_range):
        if not isinstance(x_range, (tuple, list)) or len(x_range) != 2:
            raise TypeError(
                f"x_range must be a pair of numbers (low, high), but was given {x_range!r}"
            )
        lo, hi = (_real_input(end, "each end of x_range") for end in x_range)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(
                f"x_range must be two finite numbers, the lower first, but was given {x_range!r}"
            )
        return lo, hi

    def _check_f(self):
        """f must build a Value of the engine from a Value: try it at a point of its range."""
        lo, hi = self.x_range
        for t in (self.x, (lo + hi) / 2, *_lin_space(lo, hi, 9)):
            try:
                out = self.f(Value(t))
            except ENGINE_ERRORS:
                continue  # outside f's domain (log below 0): try another point
            except TypeError as exc:
                raise TypeError(
                    f"f must work on a Value (it is differentiated with "
                    f"autograd.grad), but f(Value({t:g})) failed: {exc}"
                ) from None
            if not isinstance(out, Value):
                raise TypeError(
                    f"f must return a Value built from its argument with the "
                    f"engine's operations, but f(Value({t:g})) returned {out!r}"
                )
            return
        raise ValueError(f"f cannot be evaluated anywhere in x_range {self.x_range}")

    def set_x(self, x):
        """Move the point (the view's slider covers x_range; any number is accepted)."""
        self.x = _real_input(x, "x")
        self._changed()

    def derivatives(self, x=None):
        """(f(x), f'(x), f''(x)) at x (the current point by default), from grad of grad.

        Raises what the engine raises where f cannot be evaluated (ValueError for log(-1)...).
        """
        x = self.x if x is None else _real_input(x, "x")
        leaf = Value(x)
        out = self.f(leaf)
        first = grad(out, leaf, create_graph=True, allow_unused=True)
        second = grad(first, leaf, allow_unused=True)
        return out.data, first.data, second.data

    def tangent(self, t):
        """The tangent line at the current point, evaluated at t."""
        fx, d1, _ = self.derivatives()
        return fx + d1 * (t - self.x)

    def parabola(self, t):
        """The osculating parabola at the current point, evaluated at t."""
        fx, d1, d2 = self.derivatives()
        return fx + d1 * (t - self.x) + d2 * (t - self.x) ** 2 / 2

    def newton_target(self):
        """Where Newton's step from the current point lands, x - f'/f''; None where f'' = 0."""
        _, d1, d2 = self.derivatives()
        if d2 == 0 or not (math.isfinite(d1) and math.isfinite(d2)):
            return None
        target = self.x - d1 / d2
        return target if math.isfinite(target) else None

    def newton(self):
        """Take Newton's step: move x to the parabola's vertex. Returns the new x."""
        target = self.newton_target()
        if target is None:
            _, d1, d2 = self.derivatives()
            if d2 == 0:
                raise ValueError(
                    f"f''({self.x:g}) is 0: the parabola is a straight line, with "
                    f"no vertex for Newton's step to go to"
                )
            raise ValueError(
                f"at x = {self.x:g}, f' = {d1!r} and f'' = {d2!r}: Newton's step "
                f"x - f'/f'' is not a finite number"
            )
        self.set_x(target)
        return target

    def _plot_range(self):
        """x_range, widened to take in the point and the Newton target when they lie outside."""
        lo, hi = self.x_range
        width = hi - lo
        marks = [self.x, _run_safely(self.newton_target)]
        for m in marks:
            if _finite(m) and lo - 2 * width <= m <= hi + 2 * width:
                lo, hi = min(lo, m - 0.05 * width), max(hi, m + 0.05 * width)
        return lo, hi

    def _curve(self, ts):
        def value(t):
            return self.f(Value(t)).data

        return _plottable([_run_safely(value, t) for t in ts])

    def figure(self):
        """f, with the tangent and the parabola at the current point, and Newton's target."""
        lo, hi = self._plot_range()
        ts = _lin_space(lo, hi, self.SAMPLES)
        ys = self._curve(ts)
        name = getattr(self.f, "__name__", "f")
        name = "f" if name == "<lambda>" else name
        fig = _Figure(figsize=(8.5, 4.8), layout="constrained")
        ax = fig.add_subplot()
        ax.plot(ts, ys, color="black", linewidth=2, label=f"f = {name}" if name != "f" else "f")
        shown = [y for y in ys if math.isfinite(y)]
        if shown:  # the tangent and the parabola must not stretch the axes beyond f
            bottom, top = min(shown), max(shown)
            pad = 0.15 * (top - bottom) or 1.0
            ax.set_ylim(bottom - pad, top + pad)
        ax.set_xlim(lo, hi)
        state = _run_safely(self.derivatives)
        if state is not None and all(math.isfinite(n) for n in state):
            fx, d1, d2 = state
            ax.plot(
                ts,
                [fx + d1 * (t - self.x) for t in ts],
                "--",
                color=_ORANGE,
                label=f"tangent at x = {self.x:.4g}",
            )
            ax.plot(
                ts,
                [fx + d1 * (t - self.x) + d2 * (t - self.x) ** 2 / 2 for t in ts],
                color=_BLUE,
                label=f"parabola at x = {self.x:.4g}: the same slope and bend",
            )
            ax.plot([self.x], [fx], "o", color="black", markersize=7, zorder=5)
            target = self.newton_target()
            if target is not None and lo <= target <= hi:
                vertex = fx - d1 * d1 / (2 * d2)  # the parabola at x - f'/f''
                ax.plot(
                    [target],
                    [vertex],
                    "D",
                    color=_BLUE,
                    markersize=7,
                    zorder=5,
                    label=f"its vertex: Newton's next x = {target:.4g}",
                )
                ax.annotate(
                    "",
                    xy=(target, vertex),
                    xytext=(self.x, fx),
                    arrowprops={"arrowstyle": "->", "color": _GREY},
                )
        ax.axvline(self.x, color=_GREY, linewidth=0.6)
        ax.set_title(f"{name} near x = {self.x:.4g}: its tangent and its parabola")
        ax.set_xlabel("x")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize=8)
        return fig

    def __repr__(self):
        return f"CurvatureExplorer(x={self.x:g}, x_range={self.x_range})"

    def _build_view(self):
        return CurvatureView(self)


class CurvatureView(_PlotView):
    """A slider for x, a button for Newton's step, what the derivatives say, and the plot."""

    def __init__(self, model):
        self.model = model
        lo, hi = model.x_range
        self.slider = widgets.FloatSlider(
            value=min(max(model.x, lo), hi),
            min=lo,
            max=hi,
            step=(hi - lo) / 400,
            description="x",
            readout_format=".3f",
            continuous_update=False,
            layout=widgets.Layout(width="36em"),
        )
        self.slider.observe(self._slider_moved, names="value")
        self.newton_button = widgets.Button(
            description="Newton step", tooltip="move x to the parabola's vertex"
        )
        self.newton_button.on_click(self._newton_clicked)
        self.message = widgets.HTML()
        controls = widgets.HBox([self.slider, self.newton_button])
        super().__init__([controls, self.message], "autograd-curvature")

    def _slider_moved(self, change):
        if change["new"] != self.model.x:
            self.message.value = ""
            self.model.set_x(change["new"])

    def _newton_clicked(self, _button):
        try:
            self.model.newton()
            self.message.value = ""
        except ENGINE_ERRORS as exc:
            self.message.value = _message_html(str(exc), "warning")

    def _show_state(self):
        _show(self.slider, self.model.x)

    def _status(self):
        model = self.model
        try:
            fx, d1, d2 = model.derivatives()
        except ENGINE_ERRORS as exc:
            return _message_html(f"f cannot be evaluated at x = {model.x:g}: {exc}")
        numbers = f"At x = {model.x:.4g}: f = {_fmt(fx)}, f' = {_fmt(d1)}, f'' = {_fmt(d2)}. "
        if not all(math.isfinite(n) for n in (fx, d1, d2)):
            return numbers + "A derivative is not a finite number here: there is no parabola."
        target = model.newton_target()
        if target is None:
            return numbers + (
                "f'' = 0: the parabola is the tangent line, and Newton's step has nowhere to go."
            )
        if d2 > 0:
            return numbers + (
                f"f'' > 0: the parabola opens upward, and Newton's step goes "
                f"down to its bottom, at x = {target:.4g}."
            )
        return numbers + (
            f"f'' < 0: the parabola opens downward, so its vertex is a top, "
            f"and Newton's step goes up to it, at x = {target:.4g}: uphill."
        )
