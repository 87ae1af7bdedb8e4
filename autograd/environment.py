"""Is this computer ready for the course? Chapter 00 runs these checks.

    from autograd.environment import check_environment, draw_test_graph, widget_test
    check_environment()   # Python, the packages, which `autograd` Python imports, the layout program
    draw_test_graph()     # a tiny graph, drawn
    widget_test()         # a slider whose value appears in a label

Every problem comes with its fix: the exact command to run and what to restart afterwards.
Importing this module needs only the standard library, so that it can still report what is
missing; graphviz and ipywidgets are imported inside the checks that need them.
"""

import html
import importlib
import importlib.metadata
import re
import sys
from pathlib import Path
from typing import NamedTuple

from ._platform import IN_BROWSER
from ._slider_names import display_named

__all__ = [
    "MIN_PYTHON",
    "IN_BROWSER",
    "REQUIREMENTS",
    "Finding",
    "EnvironmentReport",
    "Advice",
    "TestDrawing",
    "WidgetTest",
    "check_environment",
    "browser_note",
    "without_torch",
    "draw_test_graph",
    "widget_test",
]

MIN_PYTHON = (3, 10)

# distribution -> (minimum version, what the course uses it for); keep in step with
# requirements.txt (tests/test_environment.py compares the two).
REQUIREMENTS = {
    "jupyterlab": ("4.0", "the notebook app"),
    "ipywidgets": ("8.0", "sliders and explorers"),
    "graphviz": ("0.20", "drawing graphs from Python"),
    "graphviz-pure": ("0.2.2", "a layout program for drawings when Graphviz's `dot` is missing"),
    "matplotlib": ("3.7", "plots"),
}

# The course's own distribution: the import name `autograd` is shared with an unrelated
# project on the package index, whose distribution is called plain "autograd".
COURSE_DISTRIBUTION = "autograd-from-scratch"
UNRELATED_DISTRIBUTION = "autograd"

RESTART = (
    "Then restart the kernel, so that Python loads what you installed: in JupyterLab, "
    "Kernel > Restart Kernel and Run All Cells... (in VS Code: the Restart button above the "
    "notebook, then Run All)."
)

OK, WARNING, PROBLEM = "ok", "warning", "problem"
_MARKS = {OK: ("✓", "#1a7f37"), WARNING: ("!", "#9a6700"), PROBLEM: ("✗", "#cf222e")}


class Finding(NamedTuple):
    """One line of the report: what was checked, what was found, and how to fix it."""

    name: str
    status: str  # "ok", "warning" or "problem"
    detail: str
    fix: str = ""


def _pip_fix(requirement, *, restart=True):
    """The exact commands that install `requirement` into the kernel's own environment."""
    text = (
        f'Run this in a notebook cell:  %pip install "{requirement}"\n'
        f'(or in a terminal, in the course\'s environment:  python -m pip install "{requirement}")'
    )
    return f"{text}\n{RESTART}" if restart else text


# --------------------------------------------------------------------- what is installed


def _python_version():
    return tuple(sys.version_info[:3])


def _installed_version(distribution):
    """The installed version of `distribution`, or None when it is not installed."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _version_tuple(version):
    """'0.20.3' -> (0, 20, 3); '3.10.0rc1' -> (3, 10, 0): compare versions as numbers."""
    parts = []
    for piece in version.split("."):
        digits = re.match(r"\d+", piece)
        if not digits:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


def _at_least(version, minimum):
    have, need = _version_tuple(version), _version_tuple(minimum)
    width = max(len(have), len(need))
    return have + (0,) * (width - len(have)) >= need + (0,) * (width - len(need))


def _check_python():
    version = _python_version()
    shown = ".".join(map(str, version))
    detail = f"Python {shown} at {sys.executable or 'an unknown location'}"
    if IN_BROWSER:
        detail = f"Python {shown} in this browser tab (Pyodide: Python compiled to WebAssembly)"
    if version[:2] >= MIN_PYTHON:
        return Finding("Python", OK, detail)
    need = ".".join(map(str, MIN_PYTHON))
    return Finding(
        "Python",
        PROBLEM,
        f"{detail}: the course needs Python {need} or newer",
        f"Install Python {need} or newer, make the course's environment again with it "
        f"(python3 -m venv .venv, then .venv/bin/pip install -r requirements.txt in the course "
        f"folder), and choose that environment as this notebook's kernel.",
    )


# In the browser (the JupyterLite edition) the site brings the notebook app and the drawing
# program, and Pyodide fetches packages that are not pure Python when a cell first imports them.
IN_BROWSER_NOT_NEEDED = {
    "jupyterlab": "not needed: JupyterLite, the notebook app in this browser tab, runs the course",
    "graphviz-pure": "not needed: in the browser, Graphviz compiled to WebAssembly draws",
}
IN_BROWSER_ON_IMPORT = {
    "matplotlib": "not loaded yet: the browser fetches it (with numpy, about 10 MB) from "
    "Pyodide's package site the first time a cell imports it, so the chapters' "
    "plots need the network",
}
YOUR_EDITS = (
    "kept in this browser's storage for this site, not on your disk: to keep a notebook, "
    "File > Download. Clearing the browser's site data deletes them."
)


def _check_package(distribution, dot_on_path):
    minimum, use = REQUIREMENTS[distribution]
    requirement = f"{distribution}>={minimum}"
    version = _installed_version(distribution)
    if version is not None and _at_least(version, minimum):
        return Finding(distribution, OK, f"{version}, for {use}")
    if IN_BROWSER and distribution in IN_BROWSER_NOT_NEEDED:
        return Finding(distribution, OK, IN_BROWSER_NOT_NEEDED[distribution])
    if IN_BROWSER and version is None and distribution in IN_BROWSER_ON_IMPORT:
        return Finding(distribution, OK, f"{IN_BROWSER_ON_IMPORT[distribution]}, for {use}")
    if version is None:
        found = f"not installed (the course uses it for {use})"
    else:
        found = f"{version} is too old: the course needs {minimum} or newer, for {use}"
    if distribution == "graphviz-pure" and dot_on_path:
        return Finding(distribution, OK, f"{found}; not needed, because the system's `dot` draws")
    if distribution == "jupyterlab":
        return Finding(
            distribution,
            WARNING,
            f"{found}; fine if you use another notebook app (VS Code, Binder, Notebook)",
            f"To use JupyterLab: in a terminal, in the course's environment, "
            f'python -m pip install "{requirement}", then start it with: jupyter lab',
        )
    return Finding(distribution, PROBLEM, found, _pip_fix(requirement))


def _course_folder(cwd):
    """The course folder this notebook sits in (cwd or its parent), if it looks like one."""
    for folder in (cwd, cwd.parent):
        if (folder / "autograd" / "engine.py").is_file():
            return folder
    return None


def _check_autograd(cwd):
    """Does `import autograd` give this course's package, and the copy beside this notebook?"""
    here = Path(__file__).resolve().parent  # the course's package: this module lives in it
    install_here = (
        "Run this in a notebook cell:  %pip uninstall -y autograd\n"
        "and then, from the course's notebooks folder:  %pip install -e ..\n"
        "(in a terminal, in the course folder:  python -m pip uninstall -y autograd  and  "
        f"python -m pip install -e .)\n{RESTART}"
    )
    try:
        module = importlib.import_module("autograd")
    except ImportError as error:
        return Finding(
            "autograd",
            PROBLEM,
            f"`import autograd` fails: {error}",
            "Install the course's package. From the notebooks folder, run this in a cell:  "
            "%pip install -e ..\n(in a terminal, in the course folder:  "
            f"python -m pip install -r requirements.txt)\n{RESTART}",
        )
    location = getattr(module, "__file__", None)
    folder = Path(location).resolve().parent if location else None
    if folder != here or not hasattr(module, "Value"):
        where = location or "a folder without __init__.py"
        return Finding(
            "autograd",
            PROBLEM,
            f"`import autograd` finds a different package, at {where}: probably the unrelated "
            "`autograd` project from the package index, which has the same import name",
            install_here,
        )

    version = _installed_version(COURSE_DISTRIBUTION) or getattr(module, "__version__", "?")
    detail = f"the course's package, version {version}, from {folder}"
    unrelated = _installed_version(UNRELATED_DISTRIBUTION)
    if unrelated is not None:
        return Finding(
            "autograd",
            WARNING,
            f"{detail}; but the unrelated `autograd` {unrelated} is installed too, and it can "
            "take the name `autograd` from the course's package",
            install_here,
        )
    course = _course_folder(cwd)
    if course is not None and (course / "autograd").resolve() != folder:
        return Finding(
            "autograd",
            WARNING,
            f"{detail}; but this notebook belongs to the course at {course}, so edits there "
            "would not be the code Python runs",
            f"Run this in a notebook cell:  %pip install -e {course}\n{RESTART}",
        )
    return Finding("autograd", OK, detail)


def _check_layout_program():
    """(finding, name of the program that draws or None)."""
    try:
        import graphviz  # noqa: F401  (only: can it be imported?)
    except ImportError as error:
        return Finding(
            "layout program",
            PROBLEM,
            f"cannot look for one: the graphviz Python package does not import ({error})",
            _pip_fix(f"graphviz>={REQUIREMENTS['graphviz'][0]}"),
        ), None
    try:
        from . import viz
    except ImportError as error:
        return Finding(
            "layout program",
            PROBLEM,
            f"cannot look for one: the course's drawing module does not import ({error})",
            "Fix the autograd line above first.",
        ), None
    try:
        program = viz.layout_program()
    except viz.GraphvizNotFoundError as error:
        return Finding(
            "layout program",
            PROBLEM,
            "none found, so graphs cannot be drawn",
            f"{error}\nIf the cell still fails, restart the kernel. {RESTART}",
        ), None
    who = program.name
    if program.name == "dot":
        who = "Graphviz's dot"
    elif IN_BROWSER:
        who = f"Graphviz compiled to WebAssembly ({program.name})"
    return Finding("layout program", OK, f"{who} draws the graphs ({program.path})"), program.name


# --------------------------------------------------------------------- the report


_CODE = re.compile(r"`([^`]+)`")


def _html_text(text):
    """Escape `text` for HTML; `code` in backticks becomes <code>; newlines become breaks."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text)).replace("\n", "<br>")


class EnvironmentReport:
    """What `check_environment` found: one `Finding` per line, each with its fix."""

    def __init__(self, findings):
        self.findings = list(findings)

    @property
    def problems(self):
        return [f for f in self.findings if f.status == PROBLEM]

    @property
    def warnings(self):
        return [f for f in self.findings if f.status == WARNING]

    @property
    def passed(self):
        """True when nothing stands in the way of the course (warnings allowed)."""
        return not self.problems

    def __bool__(self):
        return self.passed

    def finding(self, name):
        """The finding called `name` ("Python", "ipywidgets", "layout program", ...)."""
        for found in self.findings:
            if found.name == name:
                return found
        raise KeyError(
            f"no finding called {name!r}; there are: {', '.join(f.name for f in self.findings)}"
        )

    def summary(self):
        if self.problems:
            return (
                f"{len(self.problems)} problem(s) to fix before you go on: each one's fix "
                "is written under it."
            )
        if self.warnings:
            return "Ready for the course (read the warnings: each says what it means)."
        return "Ready for the course: everything it needs is here."

    def __str__(self):
        lines = ["Environment check"]
        for found in self.findings:
            lines.append(f"  [{found.status}] {found.name}: {found.detail}")
            if found.fix:
                lines.extend(f"      {line}" for line in found.fix.splitlines())
        lines.append(self.summary())
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self):
        rows = []
        for found in self.findings:
            mark, colour = _MARKS[found.status]
            fix = (
                f'<div class="environment-fix" style="margin:0.3em 0 0.2em 0;'
                f'font-family:monospace;font-size:90%">{_html_text(found.fix)}</div>'
                if found.fix
                else ""
            )
            rows.append(
                f'<tr><td style="color:{colour};font-weight:bold;text-align:center">{mark}</td>'
                f'<td style="text-align:left"><b>{html.escape(found.name)}</b></td>'
                f'<td style="text-align:left">{_html_text(found.detail)}{fix}</td></tr>'
            )
        colour = _MARKS[PROBLEM if self.problems else OK][1]
        return (
            '<div class="autograd-environment"><table>'
            f"{''.join(rows)}</table>"
            f'<p style="color:{colour}"><b>{html.escape(self.summary())}</b></p></div>'
        )


def check_environment(*, cwd=None):
    """Check Python, the course's packages, `import autograd` and the Graphviz layout program
    (in the browser, what the site brings instead, and where the learner's edits are kept).

    `cwd` is the folder the notebook runs in (by default the current one); when it lies in a
    copy of the course, `import autograd` should give that copy's package.
    """
    cwd = Path.cwd() if cwd is None else Path(cwd)
    layout, program = _check_layout_program()
    dot_on_path = program == "dot"
    findings = [_check_python(), _check_autograd(cwd)]
    findings += [_check_package(name, dot_on_path) for name in REQUIREMENTS]
    findings.append(layout)
    if IN_BROWSER:
        findings.append(Finding("your edits", OK, YOUR_EDITS))
    return EnvironmentReport(findings)


# --------------------------------------------------------------------- chapters that measure


IN_BROWSER_MEASURING = (
    "You are running this chapter in the browser (the JupyterLite edition). Python runs here "
    "as WebAssembly, a few times slower than on your computer, so the times you measure are "
    "longer than the ones the text quotes; the comparisons between engines still hold. PyTorch "
    "does not run in the browser and there is no C compiler: the cells that use them say so "
    "and show what another machine measured. To run everything, open the course on Binder or "
    "on your computer (the README says how)."
)


class BrowserNote:
    """A note at the top of a chapter that times, profiles or compares with PyTorch."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def _repr_html_(self):
        return (
            '<div class="autograd-browser-note" style="border-left:4px solid #9a6700;'
            f'padding-left:0.8em"><p>{_html_text(self.text)}</p></div>'
        )


def browser_note():
    """In the browser, what a chapter that measures cannot do there (a `BrowserNote`, which a
    notebook shows); elsewhere None, which a notebook cell shows as nothing."""
    return BrowserNote(IN_BROWSER_MEASURING) if IN_BROWSER else None


def without_torch(shows, elsewhere=""):
    """What a cell that compares with PyTorch prints where PyTorch cannot be imported: what the
    cell would show and what it needs (in the browser, where PyTorch cannot run, no install
    advice), then `elsewhere`, what the cell showed on another machine, labelled as such."""
    if IN_BROWSER:
        text = (
            f"PyTorch does not run in the browser, so this cell cannot {shows} here: that "
            f"needs the course on your computer, with PyTorch installed (the README says how)."
        )
    else:
        text = (
            f"PyTorch is not installed, so this cell cannot {shows}. It is optional: run "
            f"`pip install -r requirements-torch.txt` in the course's folder and restart the "
            f"kernel."
        )
    return f"{text} On another machine, {elsewhere}" if elsewhere else text


# --------------------------------------------------------------------- drawing and widgets


class Advice:
    """What a notebook shows instead of a drawing or a widget that cannot be made: why, and
    the fix."""

    def __init__(self, problem, fix):
        self.problem = problem
        self.fix = fix

    def __str__(self):
        return f"{self.problem}\n{self.fix}"

    __repr__ = __str__

    def _repr_html_(self):
        return (
            '<div class="autograd-advice" style="border-left:4px solid #cf222e;'
            f'padding-left:0.8em"><p><b>{_html_text(self.problem)}</b></p>'
            f'<p style="font-family:monospace;font-size:90%">{_html_text(self.fix)}</p></div>'
        )


class TestDrawing:
    """A drawn graph with a caption that says which program drew it."""

    __test__ = False  # a name pytest would otherwise take for a test class

    def __init__(self, svg, program, graph):
        self.svg = svg
        self.program = program
        self.graph = graph

    @property
    def caption(self):
        return (
            f"Drawn by {self.program.name} ({self.program.path}). If you see boxes joined "
            "by arrows, drawings work."
        )

    def __repr__(self):
        return f"{self.caption}\n{self.graph.source}"

    def _repr_html_(self):
        from .viz.screen import drawing_html  # the bare <svg>, fitted to the output area

        return (
            f'<div class="autograd-test-drawing"><p>{html.escape(self.caption)}</p>'
            f"{drawing_html(self.svg)}</div>"
        )


def draw_test_graph():
    """Draw c = a·b + a (a = 2, b = -3) with its gradients; or explain what is missing."""
    try:
        import graphviz

        from . import viz
    except ImportError as error:
        return Advice(
            f"Graphs cannot be drawn: the graphviz Python package does not import ({error}).",
            _pip_fix(f"graphviz>={REQUIREMENTS['graphviz'][0]}"),
        )
    try:
        program = viz.layout_program()
    except viz.GraphvizNotFoundError as error:
        return Advice(
            "Graphs cannot be drawn: no Graphviz layout program was found.",
            f"{error}\nIf the cell still fails, restart the kernel. {RESTART}",
        )

    from .engine import Value

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b + a
    c.label = "c"
    c.backward()
    graph = viz.draw_dot(c)
    try:
        svg = graph.pipe(format="svg", encoding="utf-8")
    except (graphviz.CalledProcessError, OSError) as error:
        return Advice(
            f"{program.name} ({program.path}) was found but failed to draw: {error}",
            "Reinstall it: Graphviz with your system's package manager (apt-get install "
            "graphviz, brew install graphviz, conda install graphviz), or "
            + _pip_fix(f"graphviz-pure>={REQUIREMENTS['graphviz-pure'][0]}"),
        )
    return TestDrawing(svg, program, graph)


NO_WIDGET_VIEW = (
    "If you are reading this text instead of a slider, this notebook app cannot show widgets "
    "yet: the browser side of ipywidgets is missing.\n"
    + _pip_fix("jupyterlab_widgets>=3", restart=False)
    + "\n"
    "Then restart the kernel and reload the browser page. In VS Code, install the Jupyter "
    "extension and choose the course's environment as the kernel."
)


class WidgetTest:
    """A slider and a label that Python keeps in step with it: `slider`, `label`, `box`.

    The number in the label is written by Python in the kernel, so seeing it follow the slider
    shows that the browser and the kernel talk to each other, which every explorer needs.
    """

    __test__ = False

    def __init__(self, widgets):
        self.slider = widgets.IntSlider(value=5, min=0, max=10, description="move me")
        self.label = widgets.Label()
        self.slider.observe(self._moved, names="value")
        self._moved()
        self.box = widgets.VBox([self.slider, self.label])

    def _moved(self, change=None):
        self.label.value = (
            f"The slider is at {self.slider.value}. "
            "If this number follows the slider, widgets work."
        )

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        bundle = self.box._repr_mimebundle_(**kwargs) or {}
        # A front end that cannot show widgets falls back to the plain text: make it the fix.
        bundle["text/plain"] = NO_WIDGET_VIEW
        return bundle

    def _ipython_display_(self):  # the slider with its name, as the explorers' sliders
        display_named(self._repr_mimebundle_())


def widget_test():
    """A slider whose value appears in a label ("if this moves, widgets work"); or the fix."""
    try:
        import ipywidgets
    except ImportError as error:
        return Advice(
            f"Widgets cannot be shown: ipywidgets does not import ({error}).",
            _pip_fix(f"ipywidgets>={REQUIREMENTS['ipywidgets'][0]}"),
        )
    return WidgetTest(ipywidgets)
