"""The learner's engine, my_engine.py (autograd/yours.py), and the engine test suite that checks
it (autograd/checks/engine.py): passing answers are kept, wrong ones never; the file always
runs; chapters 6 and 7 start from it and name a part that is wrong; the suite passes a good
file and fails a planted mistake with the course's message and a non-zero exit code."""

import ast
import contextlib
import io
import math
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest

from autograd import course_engine, yours
from autograd import engine_file as files
from autograd.checks import ch02, ch03, ch04, ch05, exercise
from autograd.checks.core import run_checks
from autograd.stages import add_to_class, stage

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CLASSIC = (
    "        self.grad += other.data * out.grad",
    "        self.grad = other.data * out.grad",
)
ASSIGNED = "the closure assigned with `=` instead of adding with `+=`"


@pytest.fixture
def engine_file(tmp_path, monkeypatch):
    """The learner's file in a folder of the test's own; keeping switched off again afterwards."""
    path = tmp_path / "my_engine.py"
    monkeypatch.setenv("AUTOGRAD_MY_ENGINE", str(path))
    yield path
    yours._keeping = False
    while yours._after_check in exercise.AFTER_CHECK:
        exercise.AFTER_CHECK.remove(yours._after_check)


def said(function, *args):
    """(what `function(*args)` printed, what it returned)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = function(*args)
    return out.getvalue(), result


def import_file(path):
    """The file run in a fresh Python with only the standard library's path: its gradients of
    y = a·b + a and of tanh, or the error it printed."""
    script = (
        "import my_engine as m\na, b = m.Value(2.0), m.Value(-3.0)\ny = a * b + a\n"
        "y.backward()\nt = m.Value(0.5).tanh()\nprint(a.grad, b.grad, t.data)"
    )
    return subprocess.run(
        [sys.executable, "-E", "-s", "-c", script],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )


def expect_imports(path):
    result = import_file(path)
    assert result.returncode == 0, result.stderr
    assert [float(x) for x in result.stdout.split()] == [-2.0, 2.0, math.tanh(0.5)]


def whose(path):
    """{part: the comment above it} in the file."""
    text = path.read_text(encoding="utf-8")
    return {name: marker for name, (_, _, marker) in files.blocks(text).items()}


# ------------------------------------------------------------------ the course's part of the file


def test_the_courses_engine_passes_chapters_two_to_five():
    V = course_engine.Value
    runs = [(m.CHECKPOINT, (V,)) for m in (ch02, ch03, ch04, ch05)]
    runs += [
        (e.checks, (V,))
        for e in (ch02.REJECT, ch03.MUL, ch03.SUB, ch03.POW, ch04.TANH, ch04.SIGMOID, ch05.BACKWARD)
    ]
    runs.append((ch05.SORT.checks, (course_engine.iterative_topological_order, V)))
    for checks, args in runs:
        report = run_checks("course engine", checks, *args)
        assert report.passed, str(report)


def chapter_functions():
    """{name: [function definitions]} written in the code cells of chapters 2 to 5."""
    found = {}
    for path in sorted(NOTEBOOKS.glob("0[2-5]_*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            source = cell.source
            if cell.cell_type != "code" or source.startswith("%"):
                source = source.partition("\n")[2] if source.startswith("%%") else ""
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef):
                    node.decorator_list = []
                    found.setdefault(node.name, []).append(ast.dump(node))
    return found


@pytest.mark.parametrize("part", files.PARTS)
def test_each_part_the_course_fills_in_is_the_chapters_own_code(part):
    node = ast.parse(files.COURSE_TEXT[part]).body[0]
    assert ast.dump(node) in chapter_functions().get(part, []), (
        f"autograd/course_engine.py's {part} is not the code any cell of chapters 2 to 5 "
        "writes: change one to match the other"
    )


# ------------------------------------------------------------------ keeping answers


def test_a_passing_answer_is_kept_as_yours_and_says_so(engine_file):
    yours.keep_in_file(quiet=True)
    Value = stage(3)

    @add_to_class(Value)
    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad  # my own comment
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    report = ch03.check_mul(Value)
    assert report.passed
    assert "Kept your `__mul__` in" in report.note
    text = engine_file.read_text(encoding="utf-8")
    assert "# my own comment" in text
    assert whose(engine_file)["__mul__"].startswith("# yours · chapter 3")
    assert whose(engine_file)["__sub__"].startswith("# the course's · chapter 3")
    expect_imports(engine_file)


def test_a_wrong_answer_is_never_kept(engine_file):
    yours.keep_in_file(quiet=True)
    Value = stage(3)

    @add_to_class(Value)
    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad = other.data * out.grad  # the classic slip: = for +=
            other.grad = self.data * out.grad

        out._backward = _backward
        return out

    report = ch03.check_mul(Value)
    assert not report.passed
    assert "Not kept in" in report.note
    text = engine_file.read_text(encoding="utf-8")
    assert "self.grad = other.data * out.grad" not in text
    assert (
        whose(engine_file)["__mul__"]
        == "# the course's · chapter 3 · yours did not pass its check yet"
    )
    expect_imports(engine_file)


def test_a_wrong_try_after_a_right_one_leaves_the_right_one_in_the_file(engine_file):
    yours.keep_in_file(quiet=True)
    Value = stage(3)

    @add_to_class(Value)
    def __sub__(self, other):  # self - other
        return self + (-other)  # my answer

    assert ch03.check_sub(Value).passed

    @add_to_class(Value)
    def __sub__(self, other):  # noqa: F811  (the learner's second try)
        return self + (-other.data)

    assert not ch03.check_sub(Value).passed
    text = engine_file.read_text(encoding="utf-8")
    assert "# my answer" in text and "-other.data" not in text
    assert whose(engine_file)["__sub__"].startswith("# yours")


def test_keep_keeps_worked_parts_and_marks_the_solutions_as_the_courses(engine_file):
    yours.keep_in_file(quiet=True)
    Value = stage(4)

    @add_to_class(Value)
    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad  # worked, as I ran it

        out._backward = _backward
        return out

    printed, _ = said(yours.keep, Value, 4)  # tanh and sigmoid were never checked in this kernel
    assert "✓ exp: yours" in printed
    assert "• tanh: the course's (not written by you yet)" in printed
    assert "• log: the course's (not in this notebook)" in printed  # the stage's, not the learner's
    marks = whose(engine_file)
    assert marks["exp"].startswith("# yours · chapter 4")
    assert marks["log"].startswith("# the course's") and marks["tanh"].startswith("# the course's")
    assert "# worked, as I ran it" in engine_file.read_text(encoding="utf-8")
    expect_imports(engine_file)


def test_keep_leaves_what_the_learner_wrote_by_hand_elsewhere_in_the_file(engine_file):
    yours.keep_in_file(quiet=True)
    said(yours.keep, stage(2), 2)  # makes the file
    text = engine_file.read_text(encoding="utf-8")
    engine_file.write_text(text + "\n\ndef my_helper():\n    return 42\n", encoding="utf-8")
    said(yours.keep, stage(3), 3)
    assert "def my_helper():\n    return 42" in engine_file.read_text(encoding="utf-8")
    expect_imports(engine_file)


# ------------------------------------------------------------------ chapters 4 to 7 start from it


def write_course_file(path, planted=None):
    """The file as the course writes it, every part the course's, with `planted` (old, new)."""
    text = files.fresh_text()
    if planted:
        assert planted[0] in text
        text = text.replace(planted[0], planted[1], 1)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("chapter", [6, 7])
def test_chapters_six_and_seven_name_a_planted_mistake_and_run_on_the_courses_part(
    engine_file, chapter
):
    write_course_file(engine_file, CLASSIC)
    printed, V = said(yours.my_engine, chapter)
    assert "✗ __mul__ in" in printed and "is wrong" in printed, printed
    assert ASSIGNED in printed
    assert "runs on the course's __mul__ instead" in printed
    x = V(3.0)
    y = x * x + x  # reused: the planted `=` would give 4, the course's part 2·3 + 1 = 7
    y.backward()
    assert x.grad == 7.0
    from autograd import article

    nodes = article.neuron(V)
    nodes["o"].backward()
    for name, grad in article.NEURON_GRADS.items():
        assert math.isclose(nodes[name].grad, grad, abs_tol=1e-12), name


def test_a_chapter_runs_on_the_file_and_says_whose_parts_run(engine_file):
    write_course_file(engine_file)
    text = engine_file.read_text(encoding="utf-8")
    marker = "# the course's · chapter 4 · not written by you yet\n    def tanh"
    engine_file.write_text(
        text.replace(marker, "# yours · chapter 4 · by hand\n    def tanh"), encoding="utf-8"
    )
    printed, V = said(yours.my_engine, 6)
    assert (
        "Chapter 6 runs on your engine, my_engine.py" in printed or "runs on your engine" in printed
    )
    assert "your tanh" in printed and "the course's __init__" in printed
    assert V.tanh.__code__.co_filename == str(engine_file.resolve())  # the file's own code runs


def test_without_the_file_or_switched_off_a_chapter_says_it_runs_on_the_courses_copy(
    engine_file, monkeypatch
):
    printed, V = said(yours.my_engine, 6)
    assert "No " in printed and "runs on the course's engine as chapter 5 leaves it" in printed
    assert V.backward.__code__ is stage(5).backward.__code__
    monkeypatch.setenv("AUTOGRAD_MY_ENGINE", "off")
    printed, _ = said(yours.my_engine, 7)
    assert "switched off" in printed
    assert yours.file_path() is None


def test_a_file_that_does_not_run_is_named_and_the_course_runs(engine_file):
    write_course_file(engine_file, ("    def backward(self):", "    def backward(self)"))
    printed, V = said(yours.my_engine, 6)
    assert "does not run: SyntaxError at line" in printed
    assert V.backward.__code__ is stage(5).backward.__code__


def test_a_hand_edit_of_a_course_part_counts_as_yours(engine_file):
    write_course_file(
        engine_file,
        (
            "    def __neg__(self):  # -self\n        return self * -1",
            "    def __neg__(self):  # -self\n        return -1 * self",
        ),
    )
    loaded = files.load(engine_file)
    assert loaded.whose["__neg__"] == "yours" and loaded.whose["__add__"] == "the course's"


# ------------------------------------------------------------------ the engine test suite


def suite(path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "autograd.checks.engine", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_the_engine_suite_passes_a_good_file_and_fails_a_planted_mistake(engine_file):
    write_course_file(engine_file)
    result = suite(engine_file)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Everything passed" in result.stdout
    lines = len(engine_file.read_text(encoding="utf-8").splitlines())
    assert f"Your engine is {lines} lines" in result.stdout

    write_course_file(engine_file, CLASSIC)
    result = suite(engine_file)
    assert result.returncode == 1, result.stdout + result.stderr
    assert ASSIGNED in result.stdout
    assert "✗ a + b and a * b: values and gradients" in result.stdout
    assert "Some checks failed" in result.stdout


def test_the_engine_suite_compares_with_pytorch_where_it_is_installed(engine_file):
    from conftest import require_module

    require_module("torch")
    write_course_file(
        engine_file, ("self.grad += (1 - t**2) * out.grad", "self.grad += (1 - t) * out.grad")
    )
    from autograd.checks import engine

    failures = engine.torch_programs(files.load(engine_file).namespace["Value"])
    assert failures and "PyTorch says" in failures[0]
    write_course_file(engine_file)
    assert engine.torch_programs(files.load(engine_file).namespace["Value"]) == []


def test_the_engine_suite_without_a_file_says_so_and_fails(engine_file):
    result = suite(engine_file)
    assert result.returncode == 1 and "There is no" in result.stdout


# ------------------------------------------------------------------ one notebook, run whole


def test_chapter_six_run_whole_names_a_planted_mistake_and_reaches_its_end(engine_file):
    """Chapter 6, run top to bottom in a fresh kernel (the notebooks' folder its working
    directory), on a my_engine.py whose __mul__ assigns with `=`: its setup cell names the part
    and what is wrong, and the chapter runs to its end on the course's __mul__."""
    from nbclient import NotebookClient

    write_course_file(engine_file, CLASSIC)
    notebook = nbformat.read(NOTEBOOKS / "06_training_a_neuron.ipynb", as_version=4)
    started = time.monotonic()
    NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    ).execute()
    setup = next(c for c in notebook.cells if c.get("id") == "ch06-003")
    text = "".join(o.get("text", "") for o in setup.outputs)
    assert "✗ __mul__ in" in text and ASSIGNED in text, text
    assert "runs on the course's __mul__ instead" in text
    print(f"chapter 6 ran in {time.monotonic() - started:.1f} s")


def test_the_course_file_reads_like_the_article_one_part_after_another():
    text = files.fresh_text()
    compile(text, "my_engine.py", "exec")
    assert list(files.blocks(text)) == list(files.PARTS)
    assert textwrap.indent(files.COURSE_TEXT["backward"], "    ") in text


# ------------------------------------------------------------------ chapter 5, the Lite edition


def test_chapter_five_never_replaces_the_learners_backward_after_its_check():
    """Chapter 5's checkpoint runs the learner's own backward(): no cell after the exercise
    defines another one (the solution cell stands in only for an answer that failed)."""
    cells = nbformat.read(NOTEBOOKS / "05_topological_sort.ipynb", as_version=4).cells
    ids = [c.get("id") for c in cells]
    after = cells[ids.index("ch05-028") + 1 :]
    redefined = [
        c.get("id")
        for c in after
        if c.cell_type == "code"
        and "solution" not in c.metadata.get("tags", [])
        and "def backward(" in c.source
    ]
    assert redefined == []


def test_the_lite_edition_ships_the_notebooks_but_never_a_my_engine_py(tmp_path):
    from conftest import _lite_build_module

    lite = _lite_build_module()
    (tmp_path / "notebooks").mkdir()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 99 · A test")])
    nbformat.write(notebook, tmp_path / "notebooks" / "99_test.ipynb")
    write_course_file(tmp_path / "notebooks" / "my_engine.py")
    lite.ROOT, lite.SITE_NOTEBOOKS = tmp_path, tmp_path / "site"
    lite.copy_notebooks()
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == ["99_test.ipynb"]


def test_the_website_build_runs_the_chapters_with_my_engine_py_switched_off():
    source = (ROOT / "website" / "build.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) == "subprocess.run"
        and "execute.py" in ast.unparse(node)
    ]
    assert calls and all(
        'AUTOGRAD_MY_ENGINE="off"' in ast.unparse(call).replace("'", '"') for call in calls
    )
