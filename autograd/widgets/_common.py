"""What every explorer shares: the model/view pair, the checks on numbers a learner passes,
number formatting, messages, drawings and plots that never end in a traceback.

The explorer modules import from here, never from each other, and nothing here imports them.
"""

import html
import io
import math

import ipywidgets as widgets
import traitlets

from .. import graph, viz
from .._floats import is_int
from ..plots import NoFigure, why_no_plots
from .._slider_names import display_named
from ..viz.screen import drawing_html

# What the engine raises for log(-1), exp(1000), 1/0: a message for the learner, not a bug.
ENGINE_ERRORS = (ValueError, OverflowError, ZeroDivisionError)

# The drawings' colours for negative and positive (viz colours gradients the same way).
_ORANGE, _BLUE, _GREY = "#e66101", "#2166ac", "#555555"

# What an explorer reads of every value in a graph (and what `viz.draw_dot` needs to draw it).
_VALUE_ATTRIBUTES = graph.VALUE_ATTRIBUTES


# ------------------------------------------------------------------------ model and view


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

    def _ipython_display_(self):
        display_named(self._repr_mimebundle_())


class _View(widgets.VBox):
    """A model's view: its parts in a column, shown afresh by `refresh()` after every change.

    A subclass sets `self.model`, builds its controls, then calls `super().__init__` with its
    parts and a CSS class that names it (a handle for styles and the browser test).
    """

    def __init__(self, children, css_class):
        super().__init__(children)
        self.add_class(css_class)
        self.model.observe(lambda _: self.refresh())
        self.refresh()

    def _ipython_display_(self):
        display_named(self._repr_mimebundle_())

    def refresh(self):
        raise NotImplementedError


class _Plot(widgets.Image):
    """A picture whose `tooltip` is its `<img>`'s title, which is its accessible name.

    ipywidgets 8 draws a tooltip as the title only while reading the widget's `description`,
    which an Image lacks: its view would fail to draw. So this one has an empty description.
    """

    description = traitlets.Unicode("").tag(sync=True)


class _PlotView(_View):
    """A view whose last parts are a status line and the model's `figure()` as a picture.

    `refresh()` draws the picture first (the slow part), so that the text and the picture
    change together; a figure that cannot be drawn leaves a warning under the status instead
    of a traceback. A subclass puts the model's state in its controls in `_show_state()` and
    says how things stand, as HTML, in `_status()`.
    """

    def __init__(self, controls, css_class):
        self.status = widgets.HTML()
        self.plot = _Plot(format="png")
        super().__init__([*controls, self.status, self.plot], css_class)

    def refresh(self):
        picture, words, trouble = _picture(self.model.figure)
        self._show_state()
        status = self._status()
        if trouble:
            status += _message_html(trouble, "warning")
        self.status.value = status
        self.plot.value = picture
        # The picture's text alternative (ipywidgets draws an Image's tooltip as the <img>'s
        # title, which is its accessible name): what its titles and axes say.
        self.plot.tooltip = words or trouble or "no plot"

    def _show_state(self):
        raise NotImplementedError

    def _status(self):
        raise NotImplementedError


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


# ------------------------------------------------------------------------ numbers


def _real_input(value, what):
    """`value` as a float, or a TypeError that names what was expected and what came."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be an int or a float, but was given {value!r}")
    try:
        return float(value)
    except OverflowError:  # an int beyond the floats, such as 10**400
        raise ValueError(
            f"{what} must fit in a float (at most about 1.8e308 in size), but "
            f"was given an int of {len(str(abs(value)))} digits"
        ) from None


def _whole(value, what, low, high):
    """`value` if it is an int from `low` to `high`, else an error that gives the range."""
    if not is_int(value):
        raise TypeError(
            f"{what} must be a whole number (an int) from {low} to {high}, but was given {value!r}"
        )
    if not low <= value <= high:
        raise ValueError(f"{what} must be from {low} to {high}, but was given {value!r}")
    return value


def _bounded(value, what, low, high):
    """`value` as a float if it is a number from `low` to `high` (never nan), else an error
    that gives the range."""
    x = _real_input(value, what)
    if not low <= x <= high:
        raise ValueError(
            f"{what} must be a number from {low:g} to {high:g}, but was given {value!r}"
        )
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


def _lin_space(lo, hi, n):
    return [lo + (hi - lo) * i / (n - 1) for i in range(n)]


def _run_safely(fn, *args):
    """fn(*args), or None when the engine cannot compute it (for curves with gaps)."""
    try:
        return fn(*args)
    except ENGINE_ERRORS:
        return None


def _plottable(ys):
    """Gaps (nan) where there is no number or one so near the float limit that matplotlib's
    axis arithmetic would overflow on it (exp just below 709.78)."""
    return [math.nan if y is None or abs(y) > 1e250 else y for y in ys]


# ------------------------------------------------------------------------ graphs


def _backpropagate(root):
    """`root.backward()`, or, for a class from before chapter 5 that has none, the same pass
    by hand: seed 1, then every `_backward` in the order `backward()` would run them."""
    if callable(getattr(root, "backward", None)):
        root.backward()
        return
    graph.backward_by_hand(root, require=_VALUE_ATTRIBUTES)


def _check_rankdir(rankdir):
    if rankdir not in viz.RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(viz.RANKDIRS)}, but was {rankdir!r}")
    return rankdir


# ------------------------------------------------------------------------ what a view shows


def _message_html(text, kind="error"):
    colour = {"error": "#b00020", "warning": "#8a5a00", "info": "#1d4e89", "ok": "#1b6e20"}[kind]
    return (
        f'<div class="explorer-{kind}" style="color:{colour}; white-space:pre-wrap">'
        f"{html.escape(text)}</div>"
    )


def _graph_html(drawing):
    """A drawing as inline SVG that shrinks to fit the output area as far as its text stays
    readable (and scrolls sideways beyond that), or viz's explanation when no layout program
    is installed."""
    bundle = drawing._repr_mimebundle_(include=["image/svg+xml"])
    svg = bundle.get("image/svg+xml")
    if svg is None:
        return bundle.get("text/html", "")
    return drawing_html(svg, "explorer-graph", words=getattr(drawing, "description_text", None))


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


def _figure_words(fig):
    """A plot in words, for those who cannot see it: each panel's title and what its axes
    show ("Loss after 3 steps: 0.52 (training step against loss)"), panels joined by "; "."""
    panels = []
    for ax in fig.get_axes():
        title, x, y = ax.get_title(), ax.get_xlabel(), ax.get_ylabel()
        axes = f"{x} against {y}" if x and y else x or y
        if title or axes:
            panels.append(f"{title} ({axes})" if title and axes else title or axes)
    return "Plot: " + "; ".join(panels) + "." if panels else "Plot."


def _picture(make_figure):
    """(png bytes, the plot in words, None), or (b"", "", a message) when the figure cannot be
    drawn. The explorers keep their numbers within what matplotlib can plot; this is the last
    guard, so that a view shows a message rather than a traceback whatever happens."""
    try:
        fig = make_figure()
        if isinstance(fig, NoFigure):  # no numpy or matplotlib here: the controls still work
            return b"", "", why_no_plots()
        return _png(fig), _figure_words(fig), None
    except ENGINE_ERRORS as exc:
        return b"", "", f"The plot cannot be drawn here ({type(exc).__name__}: {exc})."
    except ImportError:
        return b"", "", why_no_plots()


_figure_class = None


def _Figure(**settings):
    """A matplotlib figure that a notebook shows as a picture without pyplot's help.

    matplotlib is imported on the first plot, not with the explorers: in the browser (the
    JupyterLite edition) it comes from the network, and the explorers that draw only graphs
    (the backward stepper, the graph explorer) must work offline."""
    global _figure_class
    if _figure_class is None:
        try:
            from matplotlib.figure import Figure
        except ImportError:  # a stand-in that shows one line: the plot is skipped, and why
            return NoFigure()

        class Picture(Figure):
            def _repr_png_(self):
                return _png(self)

        _figure_class = Picture
    return _figure_class(**settings)
