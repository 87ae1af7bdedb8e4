"""Every chapter runs where numpy and matplotlib cannot be imported.

That is the browser edition when Pyodide's package site is out of reach (tests/test_lite.py
runs it there too, in Chromium); here it is a plain kernel in which a finder at the front of
`sys.meta_path` refuses numpy and matplotlib. Each chapter runs top to bottom (nbclient, a fresh
kernel for each, two chapters at a time, errors allowed so that all of them are seen; PyTorch is
refused too, as in the browser), and every code cell must either run or
say in one line that its plot is skipped: no traceback outside the cells that raise on purpose,
no NameError, no missing `%%solution` magic. A table of cells run, notes and errors is printed
(pytest -s).
"""

import concurrent.futures
import copy
import json
from pathlib import Path

import pytest
from conftest import cell_text, require_module

from autograd.plots import CELL_SKIPPED, NEEDS_NUMPY, PLOT_SKIPPED, WHY_NO_PLOTS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CELL_TIMEOUT = 600  # seconds: chapters 10 and 11 time the engine on a loaded machine

BLOCK_PLOTS = '''\
import sys

class _NoPlotPackages:
    """Refuses numpy and matplotlib, as a browser that cannot reach Pyodide's package site
    (and PyTorch, which no browser has)."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "matplotlib", "torch"):
            raise ModuleNotFoundError(f"No module named {name!r} (refused by the test)")

for _name in [n for n in sys.modules if n.partition(".")[0] in ("numpy", "matplotlib", "torch")]:
    del sys.modules[_name]
sys.meta_path.insert(0, _NoPlotPackages())
'''

NOTES = (WHY_NO_PLOTS[False], PLOT_SKIPPED, NEEDS_NUMPY[False], CELL_SKIPPED)


def classify(cell):
    """'run', 'note' (it says in one line that plots are skipped), or 'error: ...'."""
    tags = cell.get("metadata", {}).get("tags", [])
    errors = [o for o in cell.get("outputs", []) if o["output_type"] == "error"]
    text = cell_text(cell, stderr=False)  # not library warnings (torch's, without numpy)
    for bad in (
        "NameError",
        "Cell magic `%%solution` not found",
        "UsageError",
        "ModuleNotFoundError",
        "No module named",
    ):
        if bad in text and "raises-exception" not in tags:
            return f"error: {bad} in {text[:300]!r}"
    if errors and "raises-exception" not in tags:
        return "error: " + "; ".join(f"{e['ename']}: {e['evalue']}" for e in errors)
    if any(note in text for note in NOTES):
        return "note"
    return "run"


def run_without_plot_packages(path):
    require_module("nbclient")
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    blocked = copy.deepcopy(notebook)
    blocked.cells.insert(0, nbformat.v4.new_code_cell(BLOCK_PLOTS))
    client = NotebookClient(
        blocked,
        timeout=CELL_TIMEOUT,
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return [json.loads(json.dumps(cell)) for cell in blocked.cells[1:]]


AT_ONCE = 2  # chapters run at a time, each in a kernel of its own: the machine has 2 cores


@pytest.fixture(scope="module")
def chapters_run(request):
    """{path: the running of that chapter} for the chapters of the tests selected to run: they
    start together when the first is needed, AT_ONCE at a time, each in a fresh kernel."""
    selected = [
        item.callspec.params["path"]
        for item in request.session.items
        if getattr(item, "module", None) is request.module
        and "path" in getattr(getattr(item, "callspec", None), "params", {})
    ]
    pool = concurrent.futures.ThreadPoolExecutor(AT_ONCE)
    try:
        yield {path: pool.submit(run_without_plot_packages, path) for path in selected}
    finally:
        pool.shutdown(cancel_futures=True)  # what has not started yet need not run


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_a_chapter_runs_without_numpy_and_matplotlib(path, chapters_run):
    cells = chapters_run[path].result()
    code = [(i, cell) for i, cell in enumerate(cells) if cell["cell_type"] == "code"]
    kinds = {i: classify(cell) for i, cell in code}
    errors = {i: kind for i, kind in kinds.items() if kind.startswith("error")}
    notes = [i for i, kind in kinds.items() if kind == "note"]
    print(
        f"\n{path.name}: {len(code)} code cells, {len(code) - len(notes) - len(errors)} run, "
        f"{len(notes)} one-line notes, {len(errors)} errors"
    )
    assert errors == {}, errors
    plotting = [
        i
        for i, cell in code
        if "plt.show()" in cell["source"] or "plot_boundary(" in cell["source"]
    ]
    for i in plotting:  # every plot says it is skipped, in one line, and nothing more about it
        text = cell_text(cells[i])
        if "plt.show()" in cells[i]["source"] or kinds[i] == "note":
            assert text.count(PLOT_SKIPPED) >= 1, f"cell {i} showed no note: {text[:300]!r}"
    if plotting:  # the set-up cell says once why (a chapter built on numpy: why it cannot run)
        assert any(
            cell_text(cell).count(WHY_NO_PLOTS[False]) == 1
            or cell_text(cell).count(NEEDS_NUMPY[False]) == 1
            for _, cell in code[:3]
        ), "no set-up cell says why there are no plots"


def test_the_stand_in_for_pyplot_takes_a_chapters_plotting_calls_and_says_so_once(capsys):
    """What the chapters' plotting cells do to `plt`, on the stand-in: nothing raises, the
    set-up says why in one line, and each show() says in one line that its plot is skipped."""
    from autograd import plots

    plt = plots.no_plots()
    assert capsys.readouterr().out == plots.why_no_plots() + "\n"
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
    left.plot([1, 2], [3, 4], marker=".", label="a")
    right.set(title="t", yscale="log")
    fig.legend(loc="outside right center")
    _, ax = plt.subplots(figsize=(7, 4))
    ax.annotate("1", (1, 2), xytext=(0, 8), textcoords="offset points")
    (a, b), (c, d) = plt.subplots(2, 2)[1]
    plt.figure(figsize=(6.5, 3.5))
    plt.gca().invert_xaxis()
    plt.show()
    assert capsys.readouterr().out == plots.PLOT_SKIPPED + "\n"
    figure = plots.NoFigure()
    left, right = figure.subplots(1, 2)
    figure.add_subplot().loglog([1], [1])
    assert repr(figure) == plots.PLOT_SKIPPED


def test_a_chapter_built_on_numpy_says_why_once_and_then_each_cell_says_it_is_skipped(capsys):
    """`without_numpy()`, where numpy cannot load: one line that says why, then every later
    cell of the kernel becomes one line (the plot's note for a cell that shows a plot)."""
    from autograd import plots

    assert plots.without_numpy() is None  # no IPython here: it says why, and runs nothing
    assert capsys.readouterr().out == plots.NEEDS_NUMPY[False] + "\n"
    namespace = {}
    for lines, note in (
        (["x = np.zeros(3)\n", "print(x)\n"], plots.CELL_SKIPPED),
        (["plt.plot([1, 2])\n", "plt.show()\n"], plots.PLOT_SKIPPED),
    ):
        exec("".join(plots._skipped(lines)), namespace)  # np and plt are never looked up
        assert capsys.readouterr().out == note + "\n"
