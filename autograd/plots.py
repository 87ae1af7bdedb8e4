"""Plots where numpy and matplotlib load, one line of explanation where they cannot.

A chapter with plots starts like this (its set-up cell, after the course's own imports):

    try:
        import matplotlib.pyplot as plt
    except ImportError:
        plt = no_plots()

Where matplotlib imports, nothing changes. Where it cannot (the browser edition when Pyodide's
package site is out of reach, or a Python without matplotlib), `no_plots()` prints one line
that says why and returns a stand-in for pyplot: every plotting call on it does nothing, and
`show()` prints one line where the plot would be, so that the chapter goes on. The import stays
written in the cell because the browser's kernel fetches the packages a cell imports before it
runs the cell. Standard library only.

A chapter built on numpy itself (chapter 13) cannot go on without it. Its first code cell is

    try:
        import numpy as np
    except ImportError:
        np = without_numpy()

Where numpy cannot be imported, `without_numpy()` prints one line that says why and makes every
cell run after it in this kernel print one line instead of running (`CELL_SKIPPED`, or
`PLOT_SKIPPED` for a cell that shows a plot): one line a cell, never a cascade of errors.

`time_against_width` and `plot_time_against_width` read the numbers that `benchmarks/bench.py
--save` stores, for chapter 11's plot: they draw on an axes the chapter makes, so this module
still imports nothing outside the standard library.
"""

from ._platform import IN_BROWSER

__all__ = [
    "WHY_NO_PLOTS",
    "PLOT_SKIPPED",
    "NEEDS_NUMPY",
    "CELL_SKIPPED",
    "NoFigure",
    "no_plots",
    "why_no_plots",
    "without_numpy",
    "time_against_width",
    "plot_time_against_width",
]

WHY_NO_PLOTS = {
    True: (
        "plots need numpy and matplotlib, which load from Pyodide's package site: this "
        "browser could not reach it; the rest of the chapter works"
    ),
    False: (
        "plots need numpy and matplotlib, which this Python cannot import (install them "
        "with `pip install -r requirements.txt` in the course's folder, then restart the "
        "kernel); the rest of the chapter works"
    ),
}
PLOT_SKIPPED = "plot skipped: numpy and matplotlib could not load (see the set-up cell's note)"
NEEDS_NUMPY = {
    True: (
        "this chapter is built on numpy, which loads from Pyodide's package site: this "
        "browser could not reach it, so each cell below says in one line that it is skipped; "
        "open the chapter again when the network is back"
    ),
    False: (
        "this chapter is built on numpy, which this Python cannot import (install it with "
        "`pip install -r requirements.txt` in the course's folder, then restart the "
        "kernel); until then, each cell below says in one line that it is skipped"
    ),
}
CELL_SKIPPED = "cell skipped: numpy could not load (see the set-up cell's note)"


def why_no_plots():
    """The one line that says why there are no plots, for where this Python runs."""
    return WHY_NO_PLOTS[IN_BROWSER]


class _NoPlot:
    """Whatever pyplot, a figure or an axes would give: accepts every call, draws nothing."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _NoPlot()

    def __call__(self, *args, **kwargs):
        return _NoPlot()

    def __repr__(self):
        return "<no plot: numpy and matplotlib could not load>"


def _no_axes(nrows, ncols):
    """As many axes as `subplots(nrows, ncols)` gives, shaped as matplotlib shapes them."""
    if nrows == 1 and ncols == 1:
        return _NoPlot()
    if nrows == 1 or ncols == 1:
        return tuple(_NoPlot() for _ in range(max(nrows, ncols)))
    return tuple(tuple(_NoPlot() for _ in range(ncols)) for _ in range(nrows))


class NoFigure(_NoPlot):
    """A stand-in for a matplotlib figure (the explorers' `figure()`): a notebook shows it as
    the one line that says the plot is skipped."""

    def subplots(self, nrows=1, ncols=1, **settings):
        return _no_axes(nrows, ncols)

    def __repr__(self):
        return PLOT_SKIPPED


class _NoPyplot(_NoPlot):
    """A stand-in for matplotlib.pyplot: `show()` says in one line that the plot is skipped."""

    def subplots(self, nrows=1, ncols=1, **settings):
        return NoFigure(), _no_axes(nrows, ncols)

    def show(self, *args, **kwargs):
        print(PLOT_SKIPPED)

    def __repr__(self):
        return "<no plots: numpy and matplotlib could not load>"


def no_plots():
    """Print why there are no plots (one line) and return a stand-in for matplotlib.pyplot."""
    print(why_no_plots())
    return _NoPyplot()


def _skipped(lines):
    """An IPython input transformer: any cell becomes one line that says it is skipped."""
    note = PLOT_SKIPPED if any("plt.show()" in line for line in lines) else CELL_SKIPPED
    return [f"print({note!r})\n"]


def without_numpy():
    """Print why a chapter built on numpy cannot run here (one line); in IPython, make every
    cell run after this one print one line that says it is skipped. Returns None, for `np`."""
    print(NEEDS_NUMPY[IN_BROWSER])
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing runs cells
        return None
    shell = get_ipython()
    if shell is not None and _skipped not in shell.input_transformers_post:
        shell.input_transformers_post.append(_skipped)
    return None


def time_against_width(results):
    """{contender: [(width, points, ms per step), ...]}, narrowest first, from `results`, the
    numbers `benchmarks/bench.py --save` stores (its JSON, loaded): each step the benchmark
    timed, by the width of its hidden layers. A contender that did not run on a step (a
    compiled step whose compiling would have taken too long) has no entry for it."""
    lines = {}
    for step in sorted(results["steps"], key=lambda step: step["width"]):
        for row in step["contenders"].values():
            lines.setdefault(row["name"], []).append(
                (step["width"], step["points"], row["median_ms"])
            )
    return lines


def plot_time_against_width(ax, results):
    """Draw each contender's time per step against the width, one line each, on `ax`, a
    matplotlib axes (or `no_plots()`'s stand-in), both scales logarithmic."""
    widths = {}
    for name, points in time_against_width(results).items():
        ax.plot([w for w, _, _ in points], [ms for _, _, ms in points], marker="o", label=name)
        widths.update({w: n for w, n, _ in points})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(sorted(widths), [f"{w} wide\n{n} points" for w, n in sorted(widths.items())])
    ax.minorticks_off()
    ax.set_xlabel("the step's hidden layers")
    ax.set_ylabel("milliseconds per step (median)")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    return ax
