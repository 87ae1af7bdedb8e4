"""The class edition: an nbgrader course directory built from the chapters (classroom/build.py).

Always, and fast: build.py writes one assignment per chapter with exercises, each cell marked
as nbgrader needs it (answers, graded checks worth the syllabus's points, the checkpoint worth
the rest, everything else locked); no solution is left once nbgrader clears its regions; and
`graded`, which the test cells run, fails a cell exactly when its check fails.
"""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograd import syllabus
from autograd.checks import ChecksFailed, ch04, checkpoint
from autograd.checks.core import GIVE_UP_AFTER
from autograd.checks.exercise import forget_answers, graded
from autograd.stages import add_to_class, stage

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "classroom" / "build.py"


def load_build():
    spec = importlib.util.spec_from_file_location("classroom_build", BUILD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = load_build()


def course_notebook(chapter):
    return json.loads((ROOT / chapter.path).read_text(encoding="utf-8"))


def text(cell):
    return "".join(cell["source"])


def solution_cells(notebook):
    return [c for c in notebook["cells"] if "solution" in c["metadata"].get("tags", [])]


def nbgrader(cell):
    return cell["metadata"]["nbgrader"]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course directory, as `python3 classroom/build.py OUT` writes it."""
    out = tmp_path_factory.mktemp("class") / "course"
    done = subprocess.run([sys.executable, str(BUILD), str(out)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def chapters_with_exercises():
    return [c for c in syllabus.CHAPTERS if solution_cells(course_notebook(c))]


def source_notebook(course, chapter):
    name = Path(chapter.notebook).stem
    return json.loads((course / "source" / name / chapter.notebook).read_text(encoding="utf-8"))


def test_build_writes_an_assignment_for_each_chapter_with_exercises_and_the_config(course):
    wanted = {Path(c.notebook).stem for c in chapters_with_exercises()}
    assert wanted, "no chapter has an exercise"
    written = {p.name for p in (course / "source").iterdir()}
    assert written == wanted
    for name in written:
        assert [p.name for p in (course / "source" / name).iterdir()] == [f"{name}.ipynb"]
    from traitlets.config import Config

    config = Config()
    exec((course / "nbgrader_config.py").read_text(), {"get_config": lambda: config})
    assert config.ClearSolutions.code_stub == {"python": ""}  # the course's stub stays
    longest = max(getattr(f, "check_seconds", 0) for f in _all_checks())
    assert config.Execute.timeout > GIVE_UP_AFTER * longest * 2, (
        "nbgrader's timeout per cell must leave the course's time limits room to act first")


def _all_checks():
    import importlib

    for chapter in syllabus.with_checkpoint():
        module = importlib.import_module(f"autograd.checks.ch{chapter.number:02d}")
        yield from (getattr(module, "CHECKPOINT", None) or [])


@pytest.mark.parametrize("chapter", chapters_with_exercises(), ids=lambda c: c.notebook[:2])
def test_each_cell_is_an_answer_a_graded_check_or_locked(course, chapter):
    original = course_notebook(chapter)
    notebook = source_notebook(course, chapter)
    cells = notebook["cells"]
    assert all("nbgrader" in c["metadata"] for c in cells)
    ids = [c["id"] for c in cells]
    assert len(set(ids)) == len(ids)
    assert [nbgrader(c)["grade_id"] for c in cells] == ids
    assert not any(text(c).startswith("%%solution") for c in cells)
    total, each = syllabus.POINTS[chapter.number]

    answers = [c for c in cells if nbgrader(c)["solution"]]
    stubs = [c for c in original["cells"] if "exercise" in c["metadata"].get("tags", [])]
    assert len(answers) == len(solution_cells(original)) == len(stubs)
    for answer, stub, solution in zip(answers, stubs, solution_cells(original)):
        assert not nbgrader(answer)["grade"] and not nbgrader(answer)["locked"]
        before, begin, rest = text(answer).partition("### BEGIN SOLUTION\n")
        assert begin and before == text(stub).rstrip("\n") + "\n", "the stub comes first"
        inside, end, after = rest.partition("\n### END SOLUTION")
        assert end and after == ""
        code = text(solution).partition("\n")[2]
        assert inside.strip() in code  # the solution's code, without its first comment

    graded_cells = [c for c in cells if nbgrader(c)["grade"]]
    assert all(nbgrader(c)["locked"] and not nbgrader(c)["solution"] for c in graded_cells)
    checks = [text(s).partition("\n")[0].removeprefix("%%solution ").strip()
              for s in solution_cells(original)]
    for check, cell in zip(checks, graded_cells):
        assert text(cell).splitlines()[-1] == f"graded({check})"
        assert nbgrader(cell)["points"] == each[check.partition("(")[0]]
    tail = graded_cells[len(checks):]
    if chapter.checkpoint:
        (last,) = tail
        assert re.search(r"checkpoint\(", text(last)) and text(last).endswith("graded(report)")
        assert nbgrader(last)["points"] == total - sum(each.values()) > 0
        assert not any("raise_if_failed" in text(c) for c in cells)
    else:
        assert tail == []
    assert sum(nbgrader(c)["points"] for c in graded_cells) == total
    others = [c for c in cells if not nbgrader(c)["grade"] and not nbgrader(c)["solution"]]
    assert all(nbgrader(c)["locked"] for c in others)
    given = [text(c) for c in original["cells"]
             if not set(c["metadata"].get("tags", [])) & {"exercise", "solution"}]
    kept = [text(c) for c in others]
    missing = [t for t in given if t not in kept and "raise_if_failed" not in t
               and not re.search(r"checkpoint\(", t) and t.strip().splitlines()[-1] not in checks]
    assert not missing, f"given cells lost on the way: {missing[:2]}"


def cleared(cell_text):
    """A cell as `nbgrader generate_assignment` gives it to students: the solution region
    replaced by the configured stub (nothing), the hidden tests removed."""
    out, skipping = [], False
    for line in cell_text.split("\n"):
        if "BEGIN SOLUTION" in line or "BEGIN HIDDEN TESTS" in line:
            skipping = True
            if "BEGIN SOLUTION" in line:
                out.append("")
        elif "END SOLUTION" in line or "END HIDDEN TESTS" in line:
            skipping = False
        elif not skipping:
            out.append(line)
    return "\n".join(out)


def secret_lines(chapter):
    """The lines of the chapter's solutions that no other cell of the chapter shows."""
    original = course_notebook(chapter)
    shown = {line.strip() for c in original["cells"] if c not in solution_cells(original)
             for line in text(c).splitlines()}
    return {line.strip() for c in solution_cells(original) for line in text(c).splitlines()[1:]
            if len(line.strip()) > 3 and line.strip() not in shown
            and not line.startswith("# Solution:")}  # the note that speaks of the cell itself


def leaks(student_cells, chapter):
    secrets = secret_lines(chapter)
    return sorted({line.strip() for cell in student_cells for line in cell.splitlines()
                   if line.strip() in secrets})


@pytest.mark.parametrize("chapter", chapters_with_exercises(), ids=lambda c: c.notebook[:2])
def test_no_solution_is_left_once_nbgrader_clears_its_regions(course, chapter):
    cells = [cleared(text(c)) for c in source_notebook(course, chapter)["cells"]]
    assert secret_lines(chapter), "every chapter's solutions hold lines of their own"
    assert leaks(cells, chapter) == []
    # and the check can fail: the source version, not cleared, holds them all
    assert leaks([text(c) for c in source_notebook(course, chapter)["cells"]],
                 chapter) == sorted(secret_lines(chapter))


def test_a_chapter_without_points_for_an_exercise_is_a_clear_error(monkeypatch, tmp_path):
    total, each = syllabus.POINTS[4]
    monkeypatch.setitem(syllabus.POINTS, 4,
                        (total, {k: v for k, v in each.items() if k != "ch04.check_sigmoid"}))
    with pytest.raises(build.BuildError, match=r"04 · .*no points for exercise "
                                               r"ch04\.check_sigmoid in autograd\.syllabus"):
        build.build(tmp_path / "course")
    monkeypatch.delitem(syllabus.POINTS, 4)
    with pytest.raises(build.BuildError, match=r"04 · .* no entry in autograd\.syllabus\.POINTS"):
        build.build(tmp_path / "course")


# ------------------------------------------------------------------ graded(): the test cells

SIGMOID = '''@add_to_class(Value)
def sigmoid(self):
    s = 1 / (1 + math.exp(-self.data))
    out = Value(s, (self,), "sigmoid")

    def _backward():
        self.grad += s * (1 - s) * out.grad

    out._backward = _backward
    return out
'''
WRONG_SIGMOID = SIGMOID.replace("s * (1 - s) * out.grad", "s * out.grad")


def chapter_4_namespace():
    import linecache
    import math

    ns = {"Value": stage(4), "ch04": ch04, "add_to_class": add_to_class, "math": math}
    del ns["Value"].sigmoid

    def run(source):
        name = f"<cell {len(linecache.cache)}>"
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        exec(compile(source, name, "exec"), ns)

    return ns, run


def test_graded_passes_a_right_answer_and_fails_a_wrong_one_with_the_checks_words(capsys):
    forget_answers()
    ns, run = chapter_4_namespace()
    run(SIGMOID)
    assert graded(ch04.check_sigmoid(ns["Value"])) is None
    run(WRONG_SIGMOID)
    with pytest.raises(ChecksFailed, match="Exercise: sigmoid: 1 of"):
        graded(ch04.check_sigmoid(ns["Value"]))
    assert "σ(x) alone" in capsys.readouterr().out  # the check's own words, shown first


def test_a_wrong_answer_costs_its_cell_and_the_solution_stands_in_for_the_rest(capsys):
    forget_answers()
    ns, run = chapter_4_namespace()
    run(WRONG_SIGMOID)
    wrong = vars(ns["Value"])["sigmoid"]
    graded.stand_in("ch04.check_sigmoid(Value)", SIGMOID, ns)
    with pytest.raises(ChecksFailed):
        graded(ch04.check_sigmoid(ns["Value"]))
    said = capsys.readouterr().out
    assert "Your sigmoid did not pass its check, so the rest of this notebook ran with the " \
           "course's solution in its place" in said
    assert vars(ns["Value"])["sigmoid"] is not wrong
    assert ch04.check_sigmoid(ns["Value"]).passed


def test_the_checkpoint_gives_its_points_once_every_exercise_has_an_answer():
    forget_answers()
    ns, run = chapter_4_namespace()
    value = ns["Value"]
    ch04.check_tanh(value)  # the chapter's own tanh: yours
    run(SIGMOID.replace("s * (1 - s) * out.grad", "s * out.grad"))
    ch04.check_sigmoid(value)  # wrong ...
    graded.stand_in("ch04.check_sigmoid(Value)", SIGMOID, ns)
    with pytest.raises(ChecksFailed):
        graded(ch04.check_sigmoid(value))  # ... and the solution stands in
    with pytest.raises(ChecksFailed, match="not every exercise has an answer of yours: "
                                           "predict tanh's slope"):
        graded(checkpoint(4, value))
    ch04.check_tanh_slope_prediction(1.0, 0.0099)
    report = checkpoint(4, value)
    assert not report.passed  # the course's checkpoint fails on the wrong sigmoid ...
    assert graded(report) is None  # ... which the class edition graded in its own cell
