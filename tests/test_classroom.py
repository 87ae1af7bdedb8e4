"""The class edition: an nbgrader course directory built from the chapters (classroom/build.py).

Always, and fast: build.py writes one assignment per chapter with exercises, each cell marked
as nbgrader needs it (answers, graded checks worth the syllabus's points, the checkpoint worth
the rest, everything else locked); no solution is left once nbgrader clears its regions; and
`graded`, which the test cells run, fails a cell exactly when its check fails.

Slowly, in CI or when asked (`COURSE_CLASSROOM=1`): the real nbgrader pipeline on a simulated
class (see "the real pipeline" below); `pytest -s` prints its gradebook.
"""

import csv
import html
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import class_pipeline
import pytest
from class_pipeline import (
    ADDED_CELL,
    BUILD,
    CHEATED,
    CHEATS,
    CLASS_CHAPTERS,
    LOOPS,
    SYNTAX_ERROR,
    build,
    course_notebook,
    name,
    the_class,
)
from conftest import IN_CI, run_early, start_early
from mistakes.ch04 import _SIGMOID
from test_run_all import shows

from autograd import syllabus
from autograd.checks import ChecksFailed, ch04, checkpoint
from autograd.checks.exercise import NoPoints, forget_answers, graded
from autograd.stages import add_to_class, stage


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
    done = subprocess.run(
        [sys.executable, str(BUILD), str(out)], capture_output=True, text=True, timeout=120
    )
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
    for stem in written:
        assert [p.name for p in (course / "source" / stem).iterdir()] == [f"{stem}.ipynb"]
    from traitlets.config import Config

    config, loaded = Config(), []

    class Grader:  # stands in for classroom/grader.py, which needs nbgrader
        def configure(self, c, course, grading_user):
            loaded.append((course, grading_user))

    config_file = course / "nbgrader_config.py"
    text = config_file.read_text()
    assert f"sys.path.insert(0, {str(BUILD.parent)!r})" in text
    exec(
        text.replace("import grader  # noqa: E402", "grader = Grader()"),
        {"get_config": lambda: config, "__file__": str(config_file), "Grader": Grader},
    )
    assert config.ClearSolutions.code_stub == {"python": ""}  # the course's stub stays
    assert loaded == [(course.resolve(), "nobody")]  # graded as classroom/grader.py says


def test_the_course_folder_is_its_owners_alone_and_never_inside_the_repository(course, tmp_path):
    assert course.stat().st_mode & 0o777 == 0o700
    for inside in (BUILD.parent.parent / "course", BUILD.parent / "x"):
        with pytest.raises(build.BuildError, match="inside the repository"):
            build.build(inside)
        assert not inside.exists()
    done = subprocess.run(
        [sys.executable, str(BUILD), "course"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=BUILD.parent.parent,
    )
    assert done.returncode != 0 and "inside the repository" in done.stderr


def test_no_binder_badge_and_every_link_to_a_chapter_points_to_its_assignment(course):
    stems = {p.name for p in (course / "source").iterdir()}
    links = 0
    for stem in stems:
        notebook = json.loads((course / "source" / stem / f"{stem}.ipynb").read_text())
        for cell in notebook["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            assert "mybinder" not in text(cell), stem
            for target in re.findall(r"\]\(([^)#]+\.ipynb)", text(cell)):
                links += 1
                assert target.startswith("../"), (stem, target)
                assert (course / "source" / stem / target).resolve().parent.name in stems
    assert links, "the chapters link to each other"


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
    checks = [
        text(s).partition("\n")[0].removeprefix("%%solution ").strip()
        for s in solution_cells(original)
    ]
    for check, cell in zip(checks, graded_cells):
        assert text(cell).splitlines()[-1] == f"graded({check})"
        assert nbgrader(cell)["points"] == each[check.partition("(")[0]]
    tail = graded_cells[len(checks) :]
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
    stems = {p.name for p in (course / "source").iterdir()}
    given = [
        build.class_text(text(c), stems) if c["cell_type"] == "markdown" else text(c)
        for c in original["cells"]
        if not set(c["metadata"].get("tags", [])) & {"exercise", "solution"}
    ]
    kept = [text(c) for c in others]
    missing = [
        t
        for t in given
        if t not in kept
        and "raise_if_failed" not in t
        and not re.search(r"checkpoint\(", t)
        and t.strip().splitlines()[-1] not in checks
    ]
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
    shown = {
        line.strip()
        for c in original["cells"]
        if c not in solution_cells(original)
        for line in text(c).splitlines()
    }
    return {
        line.strip()
        for c in solution_cells(original)
        for line in text(c).splitlines()[1:]
        if len(line.strip()) > 3
        and line.strip() not in shown
        and not line.startswith("# Solution:")
    }  # the note that speaks of the cell itself


def leaks(student_cells, chapter):
    secrets = secret_lines(chapter)
    return sorted(
        {
            line.strip()
            for cell in student_cells
            for line in cell.splitlines()
            if line.strip() in secrets
        }
    )


@pytest.mark.parametrize("chapter", chapters_with_exercises(), ids=lambda c: c.notebook[:2])
def test_no_solution_is_left_once_nbgrader_clears_its_regions(course, chapter):
    cells = [cleared(text(c)) for c in source_notebook(course, chapter)["cells"]]
    assert secret_lines(chapter), "every chapter's solutions hold lines of their own"
    assert leaks(cells, chapter) == []
    # and the check can fail: the source version, not cleared, holds them all
    assert leaks([text(c) for c in source_notebook(course, chapter)["cells"]], chapter) == sorted(
        secret_lines(chapter)
    )


def test_a_chapter_without_points_for_an_exercise_is_a_clear_error(monkeypatch, tmp_path):
    total, each = syllabus.POINTS[4]
    monkeypatch.setitem(
        syllabus.POINTS, 4, (total, {k: v for k, v in each.items() if k != "ch04.check_sigmoid"})
    )
    with pytest.raises(
        build.BuildError,
        match=r"04 · .*no points for exercise "
        r"ch04\.check_sigmoid in autograd\.syllabus",
    ):
        build.build(tmp_path / "course")
    monkeypatch.delitem(syllabus.POINTS, 4)
    with pytest.raises(build.BuildError, match=r"04 · .* no entry in autograd\.syllabus\.POINTS"):
        build.build(tmp_path / "course")


# ------------------------------------------------------------------ graded(): the test cells

SIGMOID = _SIGMOID  # chapter 4's solution
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
    with pytest.raises(
        NoPoints, match="Exercise: sigmoid: 1 of 2 checks failed, so this cell gives no points"
    ) as raised:
        graded(ch04.check_sigmoid(ns["Value"]))
    # a notebook shows the one line, not the cell's code around it (the grader's copy of the
    # cell holds the solution)
    assert raised.value._render_traceback_() == [f"NoPoints: {raised.value}"]
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
    assert (
        "Your sigmoid did not pass its check, so the rest of this notebook ran with the "
        "course's solution in its place" in said
    )
    assert vars(ns["Value"])["sigmoid"] is not wrong
    assert ch04.check_sigmoid(ns["Value"]).passed


def test_the_checkpoint_gives_its_points_only_when_every_exercise_is_answered_right():
    forget_answers()
    ns, run = chapter_4_namespace()
    value = ns["Value"]
    ch04.check_tanh(value)  # the chapter's own tanh: yours
    run(WRONG_SIGMOID)
    ch04.check_sigmoid(value)  # wrong ...
    graded.stand_in("ch04.check_sigmoid(Value)", SIGMOID, ns)
    with pytest.raises(ChecksFailed):
        graded(ch04.check_sigmoid(value))  # ... and the solution stands in
    ch04.check_tanh_slope_prediction(1.0, 0.0099)
    # the solution that stood in for the wrong sigmoid earns the checkpoint nothing
    with pytest.raises(
        ChecksFailed, match="not every exercise has a right answer of yours: sigmoid"
    ):
        graded(checkpoint(4, value))
    run(SIGMOID)
    ch04.check_sigmoid(value)  # now right, and the student's
    assert graded(checkpoint(4, value)) is None


# ------------------------------------------------------------------ the real pipeline, slowly
#
# nbgrader itself, in the class environment (.venv-class, tests/class_environment.py): every
# chapter released; a class submits chapters 04 and 05 (one student with every answer right,
# one with nothing answered, one with every answer wrong, one per exercise with its first
# catalogued mistake and every other answer right, one whose iterative sort never ends, and in
# chapter 04 the cheats, a loop atop an answer, an attempt on the course folder and a syntax
# error: see tests/class_pipeline.py); nbgrader autogrades them, one process per chapter, and
# writes their feedback. It takes minutes, so this part runs in CI (`CI=true`) and, on your
# own computer, when you ask:
# `COURSE_CLASSROOM=1`. It runs as a script of its own (tests/class_pipeline.py), started in the
# background as soon as the tests are collected, while the other tests run; its tests run last
# (see conftest), and wait for it.

ASKED_FOR = IN_CI or os.environ.get("COURSE_CLASSROOM") == "1"
_asked = pytest.mark.skipif(
    not ASKED_FOR,
    reason="runs nbgrader on a class of about 20 submissions, which takes minutes: set "
    "COURSE_CLASSROOM=1 to run it (CI always does)",
)


def slow(test):
    """A test of the real pipeline: marked `slow` (`-m "not slow"` leaves it out), and run in
    CI or when asked."""
    return pytest.mark.slow(_asked(test))


PIPELINE = "class pipeline"
PIPELINE_TIMEOUT = 3600  # seconds from its start: the class environment, if made, then nbgrader


def before_the_tests(items):
    """Called by conftest once the tests are collected, with those of this module that will run:
    if the real pipeline's are among them, start it (tests/class_pipeline.py) meanwhile."""
    if ASKED_FOR and any("graded_class" in item.fixturenames for item in items):
        start_early(PIPELINE, class_pipeline.start)


@pytest.fixture(scope="module")
def graded_class():
    """The class that nbgrader built, released, autograded and gave feedback to (the pipeline of
    tests/class_pipeline.py): the course directory, the gradebook, the class, and the seconds
    each step of nbgrader took."""
    try:
        done = run_early(PIPELINE, class_pipeline.start, timeout=PIPELINE_TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(
            f"tests/class_pipeline.py took more than {PIPELINE_TIMEOUT} s:\n"
            f"{(timeout.stdout or '')[-4000:]}\n{(timeout.stderr or '')[-4000:]}",
            pytrace=False,
        )
    assert done.returncode == 0, (
        f"tests/class_pipeline.py failed (exit {done.returncode}):\n"
        f"{done.stdout[-4000:]}\n{done.stderr[-6000:]}"
    )
    results = json.loads((done.folder / class_pipeline.RESULTS).read_text(encoding="utf-8"))
    print(f"\nclass pipeline: {done.seconds:.0f} s from its start")
    students, mistakes = the_class()
    return {
        "course": Path(results["course"]),
        "grades": results["grades"],
        "students": students,
        "mistakes": mistakes,
        "seconds": results["seconds"],
        "flagged": results["flagged"],
        "warnings": results["warnings"],
    }


def feedback(course, student, chapter):
    """The text of a student's feedback page, as a reader sees it (tags dropped)."""
    page = (
        course / "feedback" / student / name(chapter) / chapter.notebook.replace(".ipynb", ".html")
    ).read_text(encoding="utf-8")
    page = re.sub(r"<(style|script)\b.*?</\1>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def points(chapter):
    total, each = syllabus.POINTS[chapter.number]
    return total, each


@slow
def test_no_solution_is_left_in_any_released_chapter_or_in_the_feedback(graded_class):
    course = graded_class["course"]
    for chapter in chapters_with_exercises():
        release = json.loads((course / "release" / name(chapter) / chapter.notebook).read_text())
        assert leaks([text(c) for c in release["cells"]], chapter) == [], chapter.notebook
    for student, chapters in graded_class["students"].items():
        for number, answers in chapters.items():
            chapter = syllabus.chapter(number)
            typed = {line.strip() for answer in answers.values() for line in answer.splitlines()}
            leaked = [
                line
                for line in leaks([feedback(course, student, chapter)], chapter)
                if line not in typed
            ]  # a student who typed a solution sees it again
            assert leaked == [], f"{student}'s feedback on {chapter.notebook} shows {leaked}"
            page = feedback(course, student, chapter)
            assert "stand_in" not in page and "HIDDEN TESTS" not in page, student
    # and the check can fail: a student who typed the solutions sees them in the feedback
    chapter = syllabus.chapter(CLASS_CHAPTERS[0])
    assert leaks([feedback(course, "right", chapter)], chapter)


@slow
def test_every_answer_right_gets_full_marks_and_nothing_answered_gets_zero(graded_class):
    grades = graded_class["grades"]
    for number in CLASS_CHAPTERS:
        chapter = syllabus.chapter(number)
        total, _ = points(chapter)
        assert (
            grades["right"][name(chapter)]["score"]
            == grades["right"][name(chapter)]["max"]
            == total
        )
        assert grades["nothing"][name(chapter)]["score"] == 0
        assert "not answered yet" in feedback(graded_class["course"], "nothing", chapter)


def lost_cells(grades, student, chapter):
    """The graded cells (by id) where `student` scored less than the student who got all."""
    full = grades["right"][name(chapter)]["cells"]
    mine = grades[student][name(chapter)]["cells"]
    return sorted(cell for cell, score in mine.items() if score < full[cell])


def check_cell_id(chapter, check):
    found = build.exercises(course_notebook(chapter), chapter.notebook)
    (cell,) = [
        course_notebook(chapter)["cells"][e[2]]["id"]
        for e in found
        if build.exercise_key(e[0]) == check
    ]
    return cell


def checkpoint_cell_id(chapter):
    (cell,) = [
        c["id"]
        for c in course_notebook(chapter)["cells"]
        if c["cell_type"] == "code" and re.search(r"checkpoint\(", text(c))
    ][-1:]
    return cell


def lost_for(chapter, check):
    """The graded cells a mistake in `check` costs: its own, and the checkpoint's (whose points
    need every exercise answered right by the student's own code)."""
    cells = [check_cell_id(chapter, check)]
    if chapter.checkpoint:
        cells.append(checkpoint_cell_id(chapter))
    return sorted(cells)


def worth(chapter, check):
    total, each = points(chapter)
    return each[check] + ((total - sum(each.values())) if chapter.checkpoint else 0)


@slow
@pytest.mark.parametrize("number", CLASS_CHAPTERS)
def test_a_mistake_loses_its_exercises_points_and_the_checkpoints_and_says_why(
    graded_class, number
):
    chapter = syllabus.chapter(number)
    total, each = points(chapter)
    grades, course = graded_class["grades"], graded_class["course"]
    wrong, students = [], [s for s in graded_class["mistakes"] if s.startswith(f"m{number:02d}-")]
    for student in students:
        mistake = graded_class["mistakes"][student]
        score = grades[student][name(chapter)]["score"]
        if score != total - worth(chapter, mistake.check):
            wrong.append(f"{student} ({mistake.bug}): {score} of {total}")
        if lost_cells(grades, student, chapter) != lost_for(chapter, mistake.check):
            wrong.append(f"{student} ({mistake.bug}) lost {lost_cells(grades, student, chapter)}")
        said = feedback(course, student, chapter)
        wrong += [
            f"{student} ({mistake.bug}): the feedback does not say {words!r}"
            for words in mistake.says
            if not shows(said, words)
        ]
    assert {graded_class["mistakes"][s].check for s in students} == set(each)
    assert not wrong, "\n".join(wrong)


@slow
def test_every_answer_wrong_gets_zero(graded_class):
    assert graded_class["grades"]["all-wrong"][name(syllabus.chapter(4))]["score"] == 0


def flags(graded_class, student):
    """What flagged.csv says about `student`: [(cell, what was found)]."""
    rows = list(csv.reader(io.StringIO(graded_class["flagged"])))
    assert rows and rows[0] == ["student", "assignment", "notebook", "cell", "found"]
    return [(row[3], row[4]) for row in rows[1:] if row[0] == student]


@slow
@pytest.mark.parametrize("student", [*CHEATS, "intruder"])
def test_a_cheat_earns_nothing_for_what_it_touches_and_is_flagged(graded_class, student):
    chapter = syllabus.chapter(4)
    total, _ = points(chapter)
    grades = graded_class["grades"]
    assert lost_cells(grades, student, chapter) == lost_for(chapter, CHEATED)
    assert grades[student][name(chapter)]["score"] == total - worth(chapter, CHEATED)
    found = flags(graded_class, student)
    assert (check_cell_id(chapter, CHEATED),) in {(cell,) for cell, _ in found}, found
    said = feedback(graded_class["course"], student, chapter)
    assert "the class edition does not accept this answer" in said
    # and the check can fail: the student with every answer right is not flagged
    assert flags(graded_class, "right") == []


@slow
def test_a_cell_of_the_students_that_replaces_graded_earns_nothing_and_is_flagged(graded_class):
    chapter = syllabus.chapter(4)
    assert graded_class["grades"][ADDED_CELL][name(chapter)]["score"] == 0
    found = flags(graded_class, ADDED_CELL)
    graded_cells = {
        cell for cell, score in graded_class["grades"]["right"][name(chapter)]["cells"].items()
    }
    assert {cell for cell, _ in found} == graded_cells  # each passed in the student's kernel
    assert all("passed in the student's kernel" in flag for _, flag in found)


@slow
def test_a_submission_can_neither_write_the_course_folder_nor_read_the_gradebook(graded_class):
    if os.geteuid() != 0:
        pytest.skip("only root can run students' code as another account (CI runs as root)")
    course = graded_class["course"]
    assert not (course / "intruder.txt").exists()
    notebook = json.loads(
        (
            course / "autograded" / "intruder" / name(syllabus.chapter(4)) / "04_activations.ipynb"
        ).read_text()
    )
    printed = "".join(
        "".join(o.get("text", "")) for c in notebook["cells"] for o in c.get("outputs", [])
    )
    assert "INTRUDER write: refused (PermissionError)" in printed
    assert "INTRUDER read: refused (PermissionError)" in printed


@slow
def test_a_loop_at_the_top_of_an_answer_cell_is_stopped_and_costs_its_points(graded_class):
    chapter = syllabus.chapter(4)
    assert lost_cells(graded_class["grades"], "loops-at-top", chapter) == lost_for(chapter, CHEATED)
    said = feedback(graded_class["course"], "loops-at-top", chapter)
    assert "your answer's cell did not finish within 10 s, so it was stopped" in said
    print(
        f"\nautograde of the looping student alone: "
        f"{graded_class['seconds']['the looping student alone']:.0f} s"
    )


@slow
def test_a_syntax_error_is_said_as_such(graded_class):
    chapter = syllabus.chapter(4)
    assert lost_cells(graded_class["grades"], SYNTAX_ERROR, chapter) == lost_for(chapter, CHEATED)
    said = feedback(graded_class["course"], SYNTAX_ERROR, chapter)
    assert "your answer has a syntax error, so it could not run" in said
    assert "not answered yet" not in said


@slow
def test_a_loop_inside_a_check_is_stopped_by_the_courses_time_limit(graded_class):
    chapter = syllabus.chapter(5)
    total, each = points(chapter)
    grades = graded_class["grades"]
    assert grades["loops"][name(chapter)]["score"] == total - worth(chapter, LOOPS[0])
    assert lost_cells(grades, "loops", chapter) == lost_for(chapter, LOOPS[0])
    said = feedback(graded_class["course"], "loops", chapter)
    assert "did not return within" in said
    assert "(it was still in iterative_topological_order)" in said


@slow
def test_autograde_logs_only_what_the_instructor_must_see(graded_class):
    """No warning on a normal run (nbgrader's checksum notices, SQLAlchemy's, the kernel's): the
    only ones are the flags, so that they stand out."""
    others = [line for line in graded_class["warnings"] if "Flagged:" not in line]
    assert others == []
    assert any("Flagged:" in line for line in graded_class["warnings"])


@slow
def test_the_gradebook(graded_class):
    """Print the class's gradebook and its flags (pytest -s shows them) and what each step of
    nbgrader took."""
    grades, mistakes = graded_class["grades"], graded_class["mistakes"]
    chapters = [syllabus.chapter(n) for n in CLASS_CHAPTERS]
    rows = [
        f"{'student':<16} "
        + " ".join(f"{name(c)[:20]:>20}" for c in chapters)
        + "  what they did; flagged"
    ]
    said = {
        "right": "every answer right",
        "nothing": "nothing answered",
        "loops": "ch05's iterative sort never ends",
        "all-wrong": "every answer wrong",
        "package-class": "tanh: Value = stage(4)",
        "replaced-graded": "tanh cell replaces `graded`",
        "replaced-checks": "tanh cell replaces ch04.check_tanh",
        "intruder": "tanh cell writes the course folder, reads gradebook.db",
        "loops-at-top": "while True: pass atop tanh",
        SYNTAX_ERROR: "tanh: a syntax error",
        ADDED_CELL: "a cell of their own replaces `graded`; no answer",
    }
    for student in sorted(grades, key=lambda s: (s.startswith("m"), s)):
        cells = []
        for chapter in chapters:
            got = grades[student].get(name(chapter))
            cells.append(f"{'':>20}" if got is None else f"{got['score']:>13g} of {got['max']:g}")
        what = said.get(student)
        if what is None:
            mistake = mistakes[student]
            what = f"{mistake.check.split('.')[-1]}: {mistake.bug}"
        found = "; ".join(f"{cell}: {flag}" for cell, flag in flags(graded_class, student))
        rows.append(
            f"{student:<16} "
            + " ".join(cells)
            + f"  {what}"
            + (f"; FLAGGED {found}" if found else "")
        )
    timing = ", ".join(f"{step} {s:.0f} s" for step, s in graded_class["seconds"].items())
    print("\n" + "\n".join(rows) + f"\nnbgrader: {timing}")
    assert len(rows) == 1 + len(graded_class["students"])
