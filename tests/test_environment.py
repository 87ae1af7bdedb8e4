"""Chapter 00's environment check: it reports what is there, and every problem comes with its fix.

Each broken computer is simulated with monkeypatching (no layout program on PATH, a package
that does not import, the unrelated `autograd` on the import path, an old Python), and the test
asserts that the exact fix appears in what the learner reads.
"""

import html
import importlib.metadata
import platform
import subprocess
import sys
import types
from pathlib import Path

import pytest
from conftest import require_module, skip_or_fail

import autograd
from autograd import environment
from autograd.environment import check_environment, draw_test_graph, widget_test

ROOT = Path(__file__).resolve().parent.parent
RESTART_WORDS = "restart the kernel"


def pretend_installed(monkeypatch, **versions):
    """Make the report see these versions (None: not installed); others stay as they are."""
    real = environment._installed_version
    versions = {name.replace("_", "-"): v for name, v in versions.items()}
    monkeypatch.setattr(
        environment,
        "_installed_version",
        lambda dist: versions[dist] if dist in versions else real(dist),
    )


def hide_layout_programs(monkeypatch, tmp_path):
    """No `dot` and no `graphviz-pure` anywhere: an empty PATH and no scripts folders."""
    viz = require_module("autograd.viz", "pip install -r requirements.txt").viz
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(viz.layout, "_script_dirs", lambda: [])


def layout_program_on_this_machine():
    viz = require_module("autograd.viz", "pip install -r requirements.txt").viz
    try:
        return viz.layout_program()
    except viz.GraphvizNotFoundError:
        skip_or_fail("no Graphviz layout program on this machine (pip install graphviz-pure)")


# ---------------------------------------------------------------- what the report says


def test_import_needs_only_the_standard_library():
    code = (
        "import sys, autograd.environment; "
        "print(sorted(m for m in ('graphviz', 'ipywidgets', 'matplotlib') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_report_shows_the_python_version_and_where_it_runs():
    found = check_environment(cwd=ROOT / "notebooks").finding("Python")
    assert found.status == "ok"
    assert f"Python {platform.python_version()}" in found.detail
    assert sys.executable in found.detail


def test_report_shows_each_installed_package_version():
    report = check_environment(cwd=ROOT / "notebooks")
    for distribution in ("ipywidgets", "graphviz", "matplotlib"):
        try:
            version = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
        found = report.finding(distribution)
        assert version in found.detail


def test_minimum_versions_match_requirements_txt():
    wanted = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-") and ">=" in line:
            name, minimum = line.split(">=")
            wanted[name.strip().lower()] = minimum.strip()
    assert {name: minimum for name, (minimum, _) in environment.REQUIREMENTS.items()} == wanted


def test_the_course_package_is_recognised_with_its_folder():
    found = check_environment(cwd=ROOT / "notebooks").finding("autograd")
    assert found.status == "ok"
    assert "the course's package" in found.detail
    assert str(Path(autograd.__file__).resolve().parent) in found.detail


def test_a_complete_environment_is_ready(monkeypatch):
    layout_program_on_this_machine()
    report = check_environment(cwd=ROOT / "notebooks")
    assert report.passed, str(report)
    assert "Ready for the course" in str(report)


def test_html_report_marks_each_line_and_shows_the_fix(monkeypatch):
    pretend_installed(monkeypatch, matplotlib=None)
    page = check_environment(cwd=ROOT / "notebooks")._repr_html_()
    assert "✗" in page and "✓" in page
    assert "%pip install &quot;matplotlib&gt;=3.7&quot;" in page
    assert "1 problem(s) to fix" in page


# ---------------------------------------------------------------- problems and their fixes


def test_missing_package_prints_the_pip_command_and_how_to_restart(monkeypatch):
    pretend_installed(monkeypatch, ipywidgets=None)
    report = check_environment(cwd=ROOT / "notebooks")
    found = report.finding("ipywidgets")
    assert found.status == "problem" and "not installed" in found.detail
    assert '%pip install "ipywidgets>=8.0"' in found.fix
    assert RESTART_WORDS in found.fix and "Restart Kernel" in found.fix
    assert not report.passed
    assert '%pip install "ipywidgets>=8.0"' in str(report)


def test_too_old_package_is_a_problem_with_the_upgrade_command(monkeypatch):
    pretend_installed(monkeypatch, ipywidgets="7.8.1")
    found = check_environment(cwd=ROOT / "notebooks").finding("ipywidgets")
    assert found.status == "problem" and "7.8.1 is too old" in found.detail
    assert '%pip install "ipywidgets>=8.0"' in found.fix


def test_versions_compare_by_number_not_as_text(monkeypatch):
    # As text "0.2.10" < "0.2.2"; as numbers 10 > 2, so graphviz-pure 0.2.10 is new enough.
    pretend_installed(
        monkeypatch, graphviz_pure="0.2.10", graphviz="0.20.3", matplotlib="3.10.0rc1"
    )
    report = check_environment(cwd=ROOT / "notebooks")
    for name in ("graphviz-pure", "graphviz", "matplotlib"):
        assert report.finding(name).status == "ok", report.finding(name)


def test_missing_jupyterlab_is_only_a_warning(monkeypatch):
    pretend_installed(monkeypatch, jupyterlab=None)
    report = check_environment(cwd=ROOT / "notebooks")
    found = report.finding("jupyterlab")
    assert found.status == "warning" and 'pip install "jupyterlab>=4.0"' in found.fix
    assert found not in report.problems


def test_without_a_layout_program_the_report_says_how_to_install_one(monkeypatch, tmp_path):
    hide_layout_programs(monkeypatch, tmp_path)
    pretend_installed(monkeypatch, graphviz_pure=None)
    report = check_environment(cwd=ROOT / "notebooks")
    found = report.finding("layout program")
    assert found.status == "problem"
    assert "pip install graphviz-pure" in found.fix and "apt-get install graphviz" in found.fix
    assert RESTART_WORDS in found.fix
    assert report.finding("graphviz-pure").status == "problem"
    assert not report.passed


def test_graphviz_pure_is_not_needed_when_dot_draws(monkeypatch):
    if layout_program_on_this_machine().name != "dot":
        skip_or_fail("the system's dot is not on PATH here (Debian: apt-get install graphviz)")
    pretend_installed(monkeypatch, graphviz_pure=None)
    found = check_environment(cwd=ROOT / "notebooks").finding("graphviz-pure")
    assert found.status == "ok" and "not needed" in found.detail


def test_in_the_browser_the_report_knows_what_the_site_brings_and_where_edits_live(monkeypatch):
    """The JupyterLite edition: no JupyterLab, no graphviz-pure, matplotlib not yet loaded and
    Graphviz compiled to WebAssembly are all as they should be, not problems to fix."""
    viz = require_module("autograd.viz", "pip install -r requirements.txt").viz
    monkeypatch.setattr(environment, "IN_BROWSER", True)
    monkeypatch.setattr(viz.layout, "IN_BROWSER", True)
    monkeypatch.setattr(viz.layout.browser, "location", lambda: "http://course.test/viz.js")
    pretend_installed(monkeypatch, jupyterlab=None, graphviz_pure=None, matplotlib=None)
    report = check_environment(cwd=Path("/drive"))
    assert report.passed and not report.warnings, str(report)
    assert "browser" in report.finding("Python").detail
    assert "WebAssembly" in report.finding("Python").detail
    assert report.finding("jupyterlab").detail.startswith("not needed")
    assert report.finding("graphviz-pure").detail.startswith("not needed")
    assert "network" in report.finding("matplotlib").detail
    assert "pip install" not in str(report)  # nothing to install
    layout = report.finding("layout program")
    assert "WebAssembly (viz-js)" in layout.detail and "course.test/viz.js" in layout.detail
    assert "File > Download" in report.finding("your edits").detail


def test_in_the_browser_an_old_widget_package_is_still_a_problem(monkeypatch):
    monkeypatch.setattr(environment, "IN_BROWSER", True)
    pretend_installed(monkeypatch, ipywidgets="7.8.5", matplotlib="3.1")
    report = check_environment(cwd=Path("/drive"))
    assert report.finding("ipywidgets").status == "problem"
    assert report.finding("matplotlib").status == "problem"  # too old, not merely not loaded


def test_outside_the_browser_the_report_says_nothing_of_it(monkeypatch):
    pretend_installed(monkeypatch, matplotlib=None)
    report = check_environment(cwd=ROOT / "notebooks")
    assert report.finding("matplotlib").status == "problem"
    assert "browser" not in str(report)
    with pytest.raises(KeyError):
        report.finding("your edits")


def test_old_python_is_a_problem_that_says_which_version_to_install(monkeypatch):
    monkeypatch.setattr(environment, "_python_version", lambda: (3, 9, 18))
    found = check_environment(cwd=ROOT / "notebooks").finding("Python")
    assert found.status == "problem" and "Python 3.9.18" in found.detail
    assert "Install Python 3.10 or newer" in found.fix


def test_the_unrelated_autograd_package_on_the_import_path_is_caught(monkeypatch, tmp_path):
    other = types.ModuleType("autograd")
    other.__file__ = str(tmp_path / "site-packages" / "autograd" / "__init__.py")
    other.grad = lambda fun: fun  # what the unrelated project offers; it has no Value
    monkeypatch.setitem(sys.modules, "autograd", other)
    report = check_environment(cwd=ROOT / "notebooks")
    assert not report.passed
    found = report.finding("autograd")
    assert found.status == "problem"
    assert other.__file__ in found.detail and "unrelated" in found.detail
    assert "%pip uninstall -y autograd" in found.fix and "%pip install -e .." in found.fix
    assert RESTART_WORDS in found.fix


def test_the_unrelated_autograd_installed_beside_the_course_is_a_warning(monkeypatch):
    pretend_installed(monkeypatch, autograd="1.7.0")
    found = check_environment(cwd=ROOT / "notebooks").finding("autograd")
    assert found.status == "warning" and "1.7.0" in found.detail
    assert "%pip uninstall -y autograd" in found.fix


def test_a_notebook_in_another_copy_of_the_course_is_a_warning(tmp_path):
    other_copy = tmp_path / "course"
    (other_copy / "autograd").mkdir(parents=True)
    (other_copy / "autograd" / "engine.py").write_text("")
    (other_copy / "notebooks").mkdir()
    found = check_environment(cwd=other_copy / "notebooks").finding("autograd")
    assert found.status == "warning" and str(other_copy) in found.detail
    assert f"%pip install -e {other_copy}" in found.fix


def test_a_folder_outside_any_course_copy_is_fine(tmp_path):
    assert check_environment(cwd=tmp_path).finding("autograd").status == "ok"


# ---------------------------------------------------------------- the drawing


def test_the_test_graph_is_drawn_and_names_its_program():
    program = layout_program_on_this_machine()
    drawn = draw_test_graph()
    assert isinstance(drawn, environment.TestDrawing), str(drawn)
    page = html.unescape(drawn._repr_html_())  # SVG writes a minus sign as &#45;
    assert page.count("<svg") == 1 and "<?xml" not in page
    # c = a·b + a with a = 2, b = -3: c = -4, dc/da = b + 1 = -2, dc/db = a = 2.
    for text in ("data -4.0000", "grad -2.0000", "grad 2.0000"):
        assert text in page
    assert f"Drawn by {program.name}" in page


def test_without_a_layout_program_the_drawing_is_replaced_by_its_fix(monkeypatch, tmp_path):
    hide_layout_programs(monkeypatch, tmp_path)
    advice = draw_test_graph()
    assert isinstance(advice, environment.Advice)
    assert "pip install graphviz-pure" in str(advice) and RESTART_WORDS in str(advice)
    assert "pip install graphviz-pure" in advice._repr_html_()


def test_without_the_graphviz_package_the_drawing_says_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # `import graphviz` now fails
    advice = draw_test_graph()
    assert isinstance(advice, environment.Advice)
    assert '%pip install "graphviz>=0.20"' in str(advice) and RESTART_WORDS in str(advice)


# ---------------------------------------------------------------- the widget


def test_the_label_follows_the_slider():
    require_module("ipywidgets", "pip install -r requirements.txt")
    check = widget_test()
    assert "at 5." in check.label.value
    check.slider.value = 8  # what the browser does when the learner drags
    assert "The slider is at 8." in check.label.value
    assert "widgets work" in check.label.value


def test_a_front_end_without_widgets_shows_the_fix_as_text():
    require_module("ipywidgets", "pip install -r requirements.txt")
    bundle = widget_test()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "instead of a slider" in bundle["text/plain"]
    assert '%pip install "jupyterlab_widgets>=3"' in bundle["text/plain"]
    assert "reload the browser page" in bundle["text/plain"]


def test_without_ipywidgets_the_widget_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # `import ipywidgets` now fails
    advice = widget_test()
    assert isinstance(advice, environment.Advice)
    assert '%pip install "ipywidgets>=8.0"' in str(advice)
    assert RESTART_WORDS in str(advice) and "Restart Kernel" in str(advice)
    assert "ipywidgets&gt;=8.0" in advice._repr_html_()


def test_chapters_that_measure_say_what_the_browser_cannot_do_there_and_nothing_elsewhere(
    monkeypatch,
):
    assert environment.browser_note() is None  # a notebook cell shows nothing
    monkeypatch.setattr(environment, "IN_BROWSER", True)
    note = environment.browser_note()
    for words in ("browser", "slower", "PyTorch does not run", "no C compiler", "Binder"):
        assert words in str(note), words
    assert 'class="autograd-browser-note"' in note._repr_html_()


def test_without_torch_gives_install_advice_only_where_it_can_be_followed(monkeypatch):
    """A cell that compares with PyTorch says what it would show; on a computer, how to install
    PyTorch; in the browser, where PyTorch cannot run, no pip advice but where it runs; and then
    what another machine showed, labelled."""
    shows, elsewhere = "compare the two gradients", "the largest difference was 1.1e-16."
    monkeypatch.setattr(environment, "IN_BROWSER", False)
    local = environment.without_torch(shows, elsewhere)
    assert shows in local and "pip install -r requirements-torch.txt" in local
    assert local.endswith(f"On another machine, {elsewhere}")
    monkeypatch.setattr(environment, "IN_BROWSER", True)
    browser = environment.without_torch(shows, elsewhere)
    assert shows in browser and "does not run in the browser" in browser
    assert "pip" not in browser and "your computer" in browser
    assert browser.endswith(f"On another machine, {elsewhere}")
    assert environment.without_torch(shows).endswith("(the README says how).")
