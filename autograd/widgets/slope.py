"""`SlopeExplorer`: chapter 00's warm-up to play with. Two points you move, the line through
them, its rise and its run; beside it, the slope a learner gets from one point alone (y over
x), which is the line's only when the line passes through (0, 0)."""

import html

import ipywidgets as widgets

from ._common import (
    _BLUE,
    _GREY,
    _ORANGE,
    _Figure,
    _message_html,
    _Model,
    _PlotView,
    _real_input,
    _show,
)

__all__ = ["SlopeExplorer", "SlopeView"]

_AXIS = (-1.0, 10.0)  # what the sliders and the plot span, for x and for y


def _num(x):
    return "—" if x is None else f"{x:.4g}"


class SlopeExplorer(_Model):
    """The line through the points (x1, y1) and (x2, y2): its `rise` (y2 − y1), its `run`
    (x2 − x1) and its `slope`, rise over run (None where the run is 0: a vertical line has no
    slope). `one_point` is y2 / x2, the slope of the line from (0, 0) to the second point:
    the line's own slope only when the line passes through (0, 0) (`through_origin`).

    >>> ex = SlopeExplorer((1, 3), (4, 9))
    >>> ex.rise, ex.run, ex.slope, ex.one_point
    (6.0, 3.0, 2.0, 2.25)
    >>> ex.set("y1", 2.25)            # now the line passes through (0, 0)
    >>> ex.slope == ex.one_point, ex.through_origin
    (True, True)
    """

    NAMES = ("x1", "y1", "x2", "y2")

    def __init__(self, first=(1.0, 3.0), second=(4.0, 9.0)):
        super().__init__()
        numbers = [*first, *second]
        if len(numbers) != 4:
            raise ValueError(
                f"first and second must be points (x, y), but were {first!r} and {second!r}"
            )
        self._at = {name: _real_input(x, name) for name, x in zip(self.NAMES, numbers)}

    def set(self, name, value):
        """Move one coordinate: "x1", "y1", "x2" or "y2"."""
        if name not in self._at:
            raise ValueError(
                f"unknown coordinate {name!r}; the coordinates are {', '.join(self.NAMES)}"
            )
        self._at[name] = _real_input(value, name)
        self._changed()

    @property
    def points(self):
        at = self._at
        return (at["x1"], at["y1"]), (at["x2"], at["y2"])

    @property
    def rise(self):
        return self._at["y2"] - self._at["y1"]

    @property
    def run(self):
        return self._at["x2"] - self._at["x1"]

    @property
    def slope(self):
        return self.rise / self.run if self.run else None

    @property
    def one_point(self):
        x2 = self._at["x2"]
        return self._at["y2"] / x2 if x2 else None

    @property
    def through_origin(self):
        """Does the line pass through (0, 0)? (Then y over x of any point on it is its slope.)"""
        (x1, y1), (x2, y2) = self.points
        if not self.run:
            return x1 == 0
        return abs(y1 - self.slope * x1) <= 1e-9 * max(1.0, abs(y1))

    def describe(self):
        """The numbers in one sentence, and what y over x of one point would give."""
        (x1, y1), (x2, y2) = self.points
        if self.slope is None:
            return (
                f"run = {x2:g} − {x1:g} = 0: the two points are one above the other, and a "
                "vertical line has no slope (rise over run would divide by 0)"
            )
        said = (
            f"rise = {y2:g} − {y1:g} = {_num(self.rise)}, run = {x2:g} − {x1:g} = "
            f"{_num(self.run)}, slope = rise / run = {_num(self.slope)}"
        )
        if self.one_point is None:
            return said
        if self.through_origin:
            return (
                f"{said}. This line passes through (0, 0), so y / x of a point on it, "
                f"{y2:g} / {x2:g}, gives its slope too"
            )
        return (
            f"{said}. y / x of one point, {y2:g} / {x2:g} = {_num(self.one_point)}, is the "
            "slope of the dotted line from (0, 0): not this line's, which misses (0, 0)"
        )

    def figure(self):
        (x1, y1), (x2, y2) = self.points
        fig = _Figure(figsize=(6, 4), layout="constrained")
        ax = fig.subplots()
        lo, hi = _AXIS
        if self.slope is None:
            ax.axvline(x1, color=_BLUE, label="the line (vertical: no slope)")
        else:
            ax.plot(
                [lo, hi],
                [y1 + self.slope * (t - x1) for t in (lo, hi)],
                color=_BLUE,
                label=f"the line, slope {self.slope:.3g}",
            )
            ax.plot(
                [x1, x2, x2],
                [y1, y1, y2],
                "--",
                color=_ORANGE,
                linewidth=1.2,
                label=f"run {self.run:g}, then rise {self.rise:g}",
            )
        if self.one_point is not None and not self.through_origin:
            ax.plot(
                [0, x2],
                [0, y2],
                ":",
                color=_GREY,
                label=f"from (0, 0): y / x = {self.one_point:.3g}",
            )
        ax.plot([x1, x2], [y1, y2], "o", color="black")
        for x, y, name in ((x1, y1, "1"), (x2, y2, "2")):
            ax.annotate(
                f"({x:g}, {y:g})", (x, y), textcoords="offset points", xytext=(6, -12), fontsize=9
            )
        ax.axhline(0, color=_GREY, linewidth=0.6)
        ax.axvline(0, color=_GREY, linewidth=0.6)
        ax.set(
            xlim=_AXIS,
            ylim=_AXIS,
            xlabel="x",
            ylabel="y",
            title="rise over run"
            if self.slope is None
            else f"slope = {_num(self.rise)} / {_num(self.run)} = {self.slope:.4g}",
        )
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
        return fig

    def __repr__(self):
        (x1, y1), (x2, y2) = self.points
        return f"SlopeExplorer(({x1:g}, {y1:g}) to ({x2:g}, {y2:g}): slope {_num(self.slope)})"

    def _build_view(self):
        return SlopeView(self)


class SlopeView(_PlotView):
    """A slider for each coordinate, the sentence with the numbers, and the plot."""

    def __init__(self, model):
        self.model = model
        self.sliders = {}
        for name in model.NAMES:
            slider = widgets.FloatSlider(
                value=model._at[name],
                min=_AXIS[0],
                max=_AXIS[1],
                step=0.25,
                description=name,
                continuous_update=False,
                layout=widgets.Layout(width="24em"),
            )
            slider.observe(self._moved(name), names="value")
            self.sliders[name] = slider
        names = list(self.sliders.values())
        super().__init__(
            [widgets.HBox(names[:2]), widgets.HBox(names[2:])], "autograd-slope-explorer"
        )

    def _moved(self, name):
        def moved(change):
            if change["new"] != self.model._at[name]:
                self.model.set(name, change["new"])

        return moved

    def _show_state(self):
        for name, slider in self.sliders.items():
            _show(slider, self.model._at[name])

    def _status(self):
        kind = "warning" if self.model.slope is None else None
        text = self.model.describe()
        return _message_html(text, kind) if kind else html.escape(text)
