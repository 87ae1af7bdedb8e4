"""`FiniteDifferenceExplorer`: how wrong forward and central differences are as the step h
shrinks, against the exact derivative, on a log-log plot."""

import math

import ipywidgets as widgets

from ..engine import Value
from ._common import (
    _BLUE,
    _GREY,
    _ORANGE,
    ENGINE_ERRORS,
    _backpropagate,
    _Figure,
    _finite,
    _message_html,
    _Model,
    _real_input,
    _run_safely,
    _PlotView,
    _show,
)

__all__ = ["FiniteDifferenceExplorer", "FiniteDifferenceView"]


def _log_space(lo_exp, hi_exp, n):
    """n numbers from 10**lo_exp to 10**hi_exp, evenly spaced on a log scale."""
    return [10 ** (lo_exp + (hi_exp - lo_exp) * i / (n - 1)) for i in range(n)]


def _gaps(ys):
    """None as nan, which matplotlib leaves out of a line."""
    return [math.nan if y is None else y for y in ys]


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
        self.x = _real_input(x, "x")
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
            self.exact = _real_input(df(self.x), "df(x)")
        else:
            raise TypeError(f"df must be the exact derivative (a function) or None, not {df!r}")
        self.h = self._check_h(h)

    @staticmethod
    def _check_h(h):
        h = _real_input(h, "h")
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
        ax.set_title(
            f"Error of finite differences for {name}'({self.x:g}); the dots mark h = {self.h:.1e}"
        )
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
        notes = ["left: round-off grows as h shrinks;  right: truncation grows with h"]
        if any(math.isnan(e) for e in forward + central):
            notes.append("gaps: the error is exactly 0 there, or f cannot be evaluated")
        ax.text(
            0.01, 0.99, "\n".join(notes), transform=ax.transAxes, fontsize=8, color=_GREY, va="top"
        )
        return fig

    def _guides(self, ax, hs):
        """Dotted and dashed lines of slope -1, 1 and 2 to read the curves' slopes against.

        The truncation guides go through the errors at h = 0.01, and only when round-off is
        negligible there (it is for a smooth f; a quadratic's central error is all round-off).
        """
        eps = 2.0**-52
        fx = _run_safely(self.f, self.x)
        round_off = eps * abs(fx) if _finite(fx) and fx != 0 else eps
        ax.loglog(
            hs,
            [round_off / h for h in hs],
            ":",
            color=_GREY,
            linewidth=1,
            label="round-off ~ eps |f(x)| / h (slope -1)",
        )
        anchor = 1e-2
        at_anchor = _run_safely(self.errors, anchor)
        for err, power, colour in zip(at_anchor or (), (1, 2), (_BLUE, _ORANGE)):
            if err > 100 * round_off / anchor:
                ax.loglog(
                    hs,
                    [err * (h / anchor) ** power for h in hs],
                    "--",
                    color=colour,
                    linewidth=0.8,
                    alpha=0.7,
                    label=f"truncation ~ h^{power} (slope {power})",
                )

    def __repr__(self):
        return f"FiniteDifferenceExplorer(x={self.x:g}, h={self.h:.1e})"

    def _build_view(self):
        return FiniteDifferenceView(self)


class FiniteDifferenceView(_PlotView):
    """A log-scale slider for h, the two errors at that h, and the log-log plot."""

    def __init__(self, model):
        self.model = model
        lo, hi = model.H_RANGE
        self.slider = widgets.FloatLogSlider(
            value=min(max(model.h, lo), hi),
            base=10,
            min=math.log10(lo),
            max=math.log10(hi),
            step=0.1,
            description="h",
            readout_format=".1e",
            continuous_update=False,
            layout=widgets.Layout(width="36em"),
        )
        self.slider.observe(self._slider_moved, names="value")
        super().__init__([self.slider], "autograd-finite-differences")

    def _slider_moved(self, change):
        if change["new"] != self.model.h:
            self.model.set_h(change["new"])

    def _show_state(self):
        _show(self.slider, self.model.h)

    def _status(self):
        model = self.model
        try:
            forward, central = model.errors(model.h)
        except ENGINE_ERRORS as exc:
            return _message_html(f"f cannot be evaluated at x ± h: {exc}")
        return (
            f"h = {model.h:.1e}: forward error {forward:.2e}, central error {central:.2e} "
            f"(exact f'(x) = {model.exact:.6g})"
        )
