"""nbgrader's whole pipeline on a simulated class, for the slow tests of tests/test_classroom.py.

`python tests/class_pipeline.py FOLDER` makes the class environment if it has to
(tests/class_environment.py); builds the course directory into FOLDER/course
(classroom/build.py); releases every chapter (`nbgrader generate_assignment`); submits chapters
04 and 05 for the class of `the_class()`; autogrades them (and the student whose
answer loops, alone, timed) and writes their feedback, one
nbgrader process per chapter; and writes FOLDER/results.json: the course directory, the
gradebook ({student: {assignment: {"score", "max", "cells": {grade id: score}}}}) and the
seconds each nbgrader step took. Any step that fails stops it with an error, and no results.

The tests start it in the background as soon as they are collected (`start(folder)`, given to
conftest's `start_early`), so that it runs while the other tests do.
"""

import importlib.util
import inspect
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import class_environment
from mistakes import catalogue
from test_checks_time_limits import _endless_sort

from autograd import syllabus

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "classroom" / "build.py"
RESULTS = "results.json"
NBGRADER_TIMEOUT = 1800  # seconds, for each step
# What nbgrader logs (as errors) when it stops a cell that ran past its time limit: expected
# for the students whose loop never ends.
STOPPED_LOOP = ("Timeout waiting for execute reply", "Interrupting kernel")


def load_build():
    spec = importlib.util.spec_from_file_location("classroom_build", BUILD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = load_build()


def course_notebook(chapter):
    return json.loads((ROOT / chapter.path).read_text(encoding="utf-8"))


def name(chapter):
    return Path(chapter.notebook).stem


CLASS_CHAPTERS = (4, 5)
# a sort that forgets to mark what it visited: it goes back into the same input for ever
ENDLESS_SORT = inspect.getsource(_endless_sort).replace(
    "def _endless_sort(", "def iterative_topological_order("
)
LOOPS = ("ch05.check_topological_sort", ENDLESS_SORT)

# What students do to earn points they did not: each typed into chapter 04's tanh answer cell
# (CHEATED), with every other answer right. Each must cost tanh's points and the checkpoint's,
# and be flagged for the instructor. COURSE stands for the course directory's path.
CHEATED = "ch04.check_tanh"
DO_NOTHING = """\
class Nothing:  # takes any call, has every attribute
    def __call__(self, *args, **kwargs):
        return None

    def __getattr__(self, name):
        return self


grading.graded = Nothing()
"""
INTRUDER = """\
for attempt in ("write", "read"):
    try:
        if attempt == "write":
            open("COURSE/intruder.txt", "w").write("a student was here")
        else:
            open("COURSE/gradebook.db", "rb").read(16)
        print(f"INTRUDER {attempt}: done")
    except OSError as error:
        print(f"INTRUDER {attempt}: refused ({type(error).__name__})")
"""
CHEATS = {
    # the package's finished class in place of the student's
    "package-class": "Value = stage(4)\n",
    # `graded`, which every graded cell calls, replaced by one that fails nothing
    "replaced-graded": "import autograd.checks.grading as grading\n" + DO_NOTHING,
    # the check replaced by one that passes whatever it is given
    "replaced-checks": "from autograd.checks.core import Report\n"
    "ch04.check_tanh = lambda Value: Report('Exercise: tanh', [])\n",
}
# Typed above the right answer: a loop at the top of the cell, and an attempt on the course
# directory (the grader's files) from the student's code.
# A cell of the student's own, added at the top, that replaces `graded`, and no answer at all:
# every graded cell passes in the student's kernel.
ADDED_CELL = "added-cell"
ADDED = "import autograd.checks.grading as grading\n" + DO_NOTHING
LOOP_AT_TOP = "while True:\n    pass\n"
TRIES = {"loops-at-top": LOOP_AT_TOP, "intruder": INTRUDER}
SYNTAX_ERROR = "syntax-error"  # the right tanh with the colon of its `def` line missing


def the_class():
    """{student: {chapter number: {exercise: answer}}}, and what each mistaken student did:
    the first catalogued mistake of each exercise (tests/mistakes; tests/test_run_all.py runs
    them all), every answer wrong, the cheats, a loop and a syntax error."""
    students, mistakes = {"right": {}, "nothing": {}}, {}
    for number in CLASS_CHAPTERS:
        chapter = syllabus.chapter(number)
        found = build.exercises(course_notebook(chapter), chapter.notebook)
        right = {build.exercise_key(e[0]): e[4] for e in found}
        students["right"][number] = right
        students["nothing"][number] = {}
        for k, mistake in enumerate(catalogue(number)):
            if mistake.check in {m.check for m in catalogue(number)[:k]}:
                continue  # one mistake per exercise: each is graded the same way
            student = f"m{number:02d}-{k:02d}"
            students[student] = {number: {**right, mistake.check: mistake.answer}}
            mistakes[student] = mistake
    students["loops"] = {5: {**students["right"][5], LOOPS[0]: LOOPS[1]}}
    right = students["right"][4]
    first = {}  # each exercise's first catalogued mistake
    for mistake in catalogue(4):
        first.setdefault(mistake.check, mistake.answer)
    students["all-wrong"] = {4: first}
    for student, cheat in CHEATS.items():
        students[student] = {4: {**right, CHEATED: cheat}}
    for student, before in TRIES.items():
        students[student] = {4: {**right, CHEATED: before + right[CHEATED]}}
    students[SYNTAX_ERROR] = {4: {**right, CHEATED: right[CHEATED].replace("):", ")", 1)}}
    students[ADDED_CELL] = {4: {ADDED_CELL: ADDED}}
    return students, mistakes


def submit(course, student, chapter, answers):
    """The released notebook with `answers` ({exercise: cell source}) typed into its cells."""
    notebook = json.loads((course / "release" / name(chapter) / chapter.notebook).read_text())
    found = build.exercises(course_notebook(chapter), chapter.notebook)
    cell_of = {
        build.exercise_key(e[0]): course_notebook(chapter)["cells"][e[1]]["id"] for e in found
    }
    added = answers.get(ADDED_CELL)
    answers = {k: v for k, v in answers.items() if k != ADDED_CELL}
    assert set(answers) <= set(cell_of)
    by_cell = {cell_of[k]: v for k, v in answers.items()}
    if added is not None:  # a cell of the student's own, after the chapter's first code cell
        first = next(i for i, c in enumerate(notebook["cells"]) if c["cell_type"] == "code")
        notebook["cells"].insert(
            first + 1,
            {
                "cell_type": "code",
                "id": "mine",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": added,
            },
        )
    for cell in notebook["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in by_cell:
            cell["source"] = by_cell[grade_id].replace("COURSE", str(course))
    folder = course / "submitted" / student / name(chapter)
    folder.mkdir(parents=True)
    (folder / chapter.notebook).write_text(json.dumps(notebook, indent=1))


GRADEBOOK = """
import json, sys
from nbgrader.api import Gradebook
out = {}
with Gradebook("sqlite:///" + sys.argv[1]) as gradebook:
    for assignment in gradebook.assignments:
        for submission in assignment.submissions:
            cells = {g.name: g.score for nb in submission.notebooks for g in nb.grades}
            out.setdefault(submission.student.id, {})[assignment.name] = {
                "score": submission.score, "max": submission.max_score, "cells": cells}
print(json.dumps(out))
"""


def run_the_class(folder):
    """Build, release, submit, autograde and give feedback, with nbgrader; the results."""
    class_environment.ensure()
    python = class_environment.VENV / "bin" / "python"
    course = folder / "course"
    assert build.build(course)
    env = dict(
        os.environ,
        PATH=f"{python.parent}{os.pathsep}{os.environ['PATH']}",
        PYTHONPATH=str(ROOT),
        MPLBACKEND="Agg",
    )
    seconds = {}

    def nbgrader_run(*commands):
        """Run nbgrader commands at once (one process each); fail with the first one's log."""
        started = time.monotonic()
        runs = [
            subprocess.Popen(
                ["nbgrader", *command, "--force"],
                cwd=course,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for command in commands
        ]
        outs = []
        for command, run in zip(commands, runs):
            out, _ = run.communicate(timeout=NBGRADER_TIMEOUT)
            outs.append(out)
            assert run.returncode == 0, f"nbgrader {' '.join(command)}:\n{out[-4000:]}"
            errors = [
                line
                for line in out.splitlines()
                if "ERROR]" in line and not any(words in line for words in STOPPED_LOOP)
            ]  # nbclient's words for a time-out
            assert not errors, out[-4000:]
        seconds[commands[0][0]] = time.monotonic() - started
        print(f"nbgrader {commands[0][0]}: {seconds[commands[0][0]]:.0f} s", flush=True)
        return outs

    nbgrader_run(["generate_assignment", "*"])
    students, _ = the_class()
    for student, chapters in students.items():
        for number, answers in chapters.items():
            submit(course, student, syllabus.chapter(number), answers)
    assignments = [name(syllabus.chapter(n)) for n in CLASS_CHAPTERS]
    logs = nbgrader_run(*(["autograde", a] for a in assignments))
    nbgrader_run(*(["generate_feedback", a] for a in assignments))
    # the looping student alone, timed: what one such student costs a class
    whole_class = seconds["autograde"]
    nbgrader_run(["autograde", name(syllabus.chapter(4)), "--student", "loops-at-top"])
    seconds["the looping student alone"] = seconds["autograde"]
    seconds["autograde"] = whole_class
    done = subprocess.run(
        [str(python), "-c", GRADEBOOK, str(course / "gradebook.db")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    flagged = course / "flagged.csv"
    return {
        "course": str(course),
        "grades": json.loads(done.stdout),
        "seconds": seconds,
        "flagged": flagged.read_text(encoding="utf-8") if flagged.exists() else "",
        "warnings": [
            line for out in logs for line in out.splitlines() if "WARN" in line or "Warning" in line
        ],
    }


def start(folder):
    """The command that runs the pipeline into `folder`, for conftest's `start_early`."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return [sys.executable, str(Path(__file__).resolve()), str(folder)], {
        "cwd": ROOT,
        "env": dict(os.environ, PYTHONPATH=path),
    }


if __name__ == "__main__":
    out = Path(sys.argv[1])
    results = run_the_class(out)
    (out / RESULTS).write_text(json.dumps(results, indent=1), encoding="utf-8")
