"""The class edition's referee (classroom/referee.py): the grade of each graded cell, decided on
the student's answer cells alone, in a fresh `python -I`, with the course's own cells and checks.

Fast: what an answer may not reach for (read from its code) is refused, and no solution of the
course is; the referee run on chapter 04's course directory notebook (classroom/build.py) gives
the points a right answer earns and none to the package's finished class, to a replaced check,
to a syntax error (said as such); a prediction never shows its answer in the class edition.
The whole pipeline, with nbgrader, is tests/test_classroom.py's slow part.
"""

import copy
import importlib.util
import json
import subprocess
import sys

import pytest
from class_pipeline import BUILD, CHEATED, CHEATS, INTRUDER, build, course_notebook

from autograd import syllabus
from autograd.checks import ch04
from autograd.checks.exercise import Exercise, forget_answers

ROOT = BUILD.parent.parent
REFEREE = ROOT / "classroom" / "referee.py"


def load_referee():
    spec = importlib.util.spec_from_file_location("classroom_referee", REFEREE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


referee = load_referee()


def chapters_with_exercises():
    return [c for c in syllabus.CHAPTERS if build.exercises(course_notebook(c), c.notebook)]


@pytest.mark.parametrize("chapter", chapters_with_exercises(), ids=lambda c: c.notebook[:2])
def test_no_solution_of_the_course_is_refused(chapter):
    for check, _, _, _, solution in build.exercises(course_notebook(chapter), chapter.notebook):
        assert referee.refusals(solution, solution, check) == [], (chapter.notebook, check)


@pytest.mark.parametrize("student", sorted(CHEATS) + ["intruder"])
def test_each_cheat_is_refused_from_its_code(student):
    answer = CHEATS.get(student, INTRUDER)
    (solution,) = [
        e[4]
        for e in build.exercises(course_notebook(syllabus.chapter(4)), "04_activations.ipynb")
        if build.exercise_key(e[0]) == CHEATED
    ]
    found = referee.refusals(answer, solution, "ch04.check_tanh(Value)")
    assert found, student
    # and a right answer typed below the cheat does not make it pass
    assert referee.refusals(answer + solution, solution, "ch04.check_tanh(Value)") == found


def test_refusals_name_what_they_found():
    found = referee.refusals("Value = stage(4)\n", "def tanh(self): ...", "check(Value)")
    assert found == [
        "uses `stage`",
        "replaces `Value`, which the check is given, instead of completing it",
    ]
    assert referee.refusals("import os\n", "", "check(x)") == ["imports `os`", "uses `os`"]
    assert referee.refusals("y = x.__class__\n", "", "check(z)") == ["reaches `.__class__`"]
    frames = "def g():\n    yield\nh = g()\nnext(h)\ncaller = h.gi_frame.f_back\n"
    assert referee.refusals(frames, "", "check(z)") == ["reaches `.f_back`", "reaches `.gi_frame`"]
    with pytest.raises(SyntaxError):
        referee.refusals("def f(:\n", "", "check(f)")


@pytest.fixture(scope="module")
def chapter_04(tmp_path_factory):
    """Chapter 04 as classroom/build.py writes it into a course directory."""
    out = tmp_path_factory.mktemp("referee") / "course"
    build.build(out)
    return json.loads((out / "source" / "04_activations" / "04_activations.ipynb").read_text())


def verdicts(source, answers):
    """Run the referee, as the grader does, on `source` with `answers` ({exercise: code}, the
    solution for the others): {graded cell: verdict}."""
    submitted = copy.deepcopy(source)
    keys = {}
    for step in referee.steps_of(source, source):
        if step["kind"] == "answer":
            keys[step["cell"]] = step["exercise"]
    for cell in submitted["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in keys:
            code = "".join(cell["source"])
            solution = code.partition("### BEGIN SOLUTION\n")[2].partition("\n### END")[0]
            cell["source"] = answers.get(keys[grade_id], solution)
    job = {"steps": referee.steps_of(source, submitted), "package": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-I", str(REFEREE)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return {v["cell"]: v for v in map(json.loads, done.stdout.splitlines())}


def points(source, found):
    """The points the verdicts give, cell by cell."""
    worth = {
        c["metadata"]["nbgrader"]["grade_id"]: c["metadata"]["nbgrader"].get("points", 0)
        for c in source["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade")
    }
    return {cell: (worth[cell] if v["passed"] else 0) for cell, v in found.items()}


def test_right_answers_earn_every_point_and_the_package_class_none(chapter_04):
    total, _ = syllabus.POINTS[4]
    right = verdicts(chapter_04, {})
    assert sum(points(chapter_04, right).values()) == total
    cheat = verdicts(chapter_04, {CHEATED: CHEATS["package-class"]})
    lost = sorted(cell for cell, v in cheat.items() if not v["passed"])
    tanh_cell = next(
        s["check_cell"]
        for s in referee.steps_of(chapter_04, chapter_04)
        if s.get("exercise") == CHEATED
    )
    checkpoint_cell = next(
        s["cell"] for s in referee.steps_of(chapter_04, chapter_04) if s["kind"] == "checkpoint"
    )
    assert lost == sorted([tanh_cell, checkpoint_cell])
    assert "uses `stage`" in " ".join(cheat[tanh_cell]["flags"])


def test_a_replaced_check_and_a_syntax_error_earn_nothing_and_say_why(chapter_04):
    found = verdicts(
        chapter_04,
        {
            CHEATED: CHEATS["replaced-checks"],
            "ch04.check_sigmoid": "@add_to_class(Value)\ndef sigmoid(self)\n",
        },
    )
    by_exercise = {
        s["exercise"]: s["check_cell"]
        for s in referee.steps_of(chapter_04, chapter_04)
        if s["kind"] == "answer"
    }
    tanh, sigmoid = found[by_exercise[CHEATED]], found[by_exercise["ch04.check_sigmoid"]]
    assert not tanh["passed"] and "uses `ch04`" in " ".join(tanh["flags"])
    assert not sigmoid["passed"] and "syntax error" in sigmoid["said"]
    assert "not answered" not in sigmoid["said"]


def test_a_wrong_prediction_never_shows_its_answer_in_the_class_edition():
    forget_answers()
    Exercise.class_edition = True
    try:
        said = [str(ch04.check_tanh_slope_prediction(0.5, 0.5)) for _ in range(3)]
    finally:
        Exercise.class_edition = False
        forget_answers()
    for text in said:
        assert "below it" not in text and "It is" not in text and "second wrong" not in text
    # and the check can fail: the course's own edition shows it on the second wrong try
    said = [str(ch04.check_tanh_slope_prediction(0.5, 0.5)) for _ in range(2)]
    forget_answers()
    assert "below it" in said[0] and "It is" in said[1]
