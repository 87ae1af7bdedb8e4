"""Build the class edition: an nbgrader course directory made from the course's own chapters.

    python3 classroom/build.py OUT

writes OUT/nbgrader_config.py and OUT/source/<chapter>/<chapter>.ipynb for every chapter with
exercises (the chapters are the syllabus's, `autograd.syllabus.CHAPTERS`). Each notebook is the
chapter as the course gives it, turned into an nbgrader assignment:

- each exercise's answer cell becomes an autograded answer cell: the course's stub, then the
  solution (from the chapter's `%%solution` cell) between `### BEGIN SOLUTION` and
  `### END SOLUTION`, which `nbgrader generate_assignment` removes, leaving the stub;
- each exercise's check becomes an autograded test cell worth the exercise's points. It calls
  the chapter's own check, so the student reads the same messages, through
  `autograd.checks.exercise.graded`, which fails the cell when the check fails. In a part that
  only the grader's copy holds (`### BEGIN HIDDEN TESTS`), it hands `graded` the solution, to
  stand in for a wrong answer for the rest of the notebook, as the course's solution cell
  does: one mistake costs the points of its own exercise, not those of every exercise after it;
- the `%%solution` cells are left out (they hold the answers, predictions' answers too);
- the checkpoint becomes a test cell worth the chapter's remaining points;
- every other cell is locked (read-only); in the text, the Binder badge (which opens the public
  notebooks, solutions and all) is left out, and links to other chapters point to where
  nbgrader puts them (`../<chapter>/<chapter>.ipynb`).

The grades do not come from the student's kernel: the course directory's nbgrader_config.py
loads classroom/grader.py, which decides each graded cell in a fresh interpreter
(classroom/referee.py), runs students' code as an unprivileged account (`--grading-user`,
`nobody` by default) when nbgrader runs as root, and flags what it refused. OUT must be
outside this repository (which students may be able to read), and is made readable by its
owner alone.

The points come from one table, `autograd.syllabus.POINTS`. Standard library only.
"""

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograd import syllabus  # noqa: E402  (the course's list of chapters; standard library only)

SOLUTION_MAGIC = "%%solution "
CHECKPOINT_CALL = re.compile(r"\bcheckpoint\(")
GRADED = "from autograd.checks.grading import graded"
BINDER_BADGE = re.compile(r"\[!\[Open in Binder\]\([^)]*\)\]\([^)]*\)\s*(·\s*)?")
CHAPTER_LINK = re.compile(r"\[([^\]]*)\]\((\d\d_\w+)\.ipynb(#[^)]*)?\)")

CONFIG = '''\
"""nbgrader's configuration for the class edition of Autograd from Scratch.

Made by classroom/build.py; make it again rather than edit it by hand.
"""

import sys
from pathlib import Path

c = get_config()  # noqa: F821  (nbgrader provides it)

c.CourseDirectory.course_id = "autograd-from-scratch"

# The answer cells keep the course's own stub (a `...` or a `None` to replace) above the
# solution, so a cleared solution leaves the stub alone, not nbgrader's default text.
c.ClearSolutions.code_stub = {{"python": ""}}

# Grading (classroom/grader.py): each graded cell decided in a fresh interpreter, out of the
# student's reach; students' code run as the account below when nbgrader runs as root; an
# answer cell stopped after seconds; what was refused flagged in flagged.csv; collect refuses
# a submission filed under another student's name.
sys.path.insert(0, {classroom!r})
import grader  # noqa: E402

grader.configure(c, course=Path(__file__).resolve().parent, grading_user={grading_user!r})

# The grader's copy of each graded cell holds the exercise's solution (in its hidden tests);
# the feedback a student gets shows the cell without it.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
'''


class BuildError(Exception):
    """The chapters and the points table disagree; the message says where."""


def cells_of(notebook):
    return notebook["cells"]


def source(cell):
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def exercises(notebook, name):
    """[(check, answer index, check index, solution index, solution code)] for each exercise
    of `notebook`: three cells, an `exercise`-tagged answer, a check whose last line is the
    check call, and a `solution`-tagged `%%solution <check call>` cell."""
    cells = cells_of(notebook)
    found = []
    for i, cell in enumerate(cells):
        if "solution" not in tags(cell):
            continue
        first, _, body = source(cell).partition("\n")
        if not first.startswith(SOLUTION_MAGIC):
            raise BuildError(
                f"{name}: cell {i} is tagged `solution` but does not start with "
                f"{SOLUTION_MAGIC.strip()}"
            )
        check = first[len(SOLUTION_MAGIC) :].strip()
        answers = [j for j in range(i) if "exercise" in tags(cells[j])]
        if not answers:
            raise BuildError(f"{name}: the solution in cell {i} has no `exercise` cell above it")
        answer = answers[-1]
        checks = [
            j for j in range(answer + 1, i) if source(cells[j]).strip().splitlines()[-1:] == [check]
        ]
        if not checks:
            raise BuildError(
                f"{name}: no cell between the answer (cell {answer}) and the "
                f"solution (cell {i}) runs {check}"
            )
        found.append((check, answer, checks[0], i, _without_solution_note(body)))
    return found


def _without_solution_note(body):
    """The solution's code without its first comment ("# Solution: runs only if ..."), which
    speaks of the course's solution cell."""
    lines = body.splitlines()
    if lines and lines[0].startswith("# Solution"):
        lines = lines[1:]
    return "\n".join(lines).strip("\n")


def exercise_key(check):
    """`ch04.check_tanh`: an exercise's name in the points table, its check call's callee."""
    return check.partition("(")[0].strip()


def points_for(chapter, keys):
    """(points of each exercise, in order; the checkpoint's points) from the syllabus's table."""
    table = getattr(syllabus, "POINTS", None)
    if table is None:
        raise BuildError("autograd/syllabus.py has no POINTS table")
    if chapter.number not in table:
        raise BuildError(
            f"chapter {chapter.heading} has exercises ({', '.join(keys)}) but no "
            "entry in autograd.syllabus.POINTS: add one"
        )
    total, each = table[chapter.number]
    missing = [k for k in keys if k not in each]
    if missing:
        raise BuildError(
            f"chapter {chapter.heading}: no points for exercise "
            f"{', '.join(missing)} in autograd.syllabus.POINTS: add it there"
        )
    extra = [k for k in each if k not in keys]
    if extra:
        raise BuildError(
            f"chapter {chapter.heading}: autograd.syllabus.POINTS gives points to "
            f"{', '.join(extra)}, which is not one of its exercises"
        )
    rest = total - sum(each[k] for k in keys)
    if rest < 0 or (rest and not chapter.checkpoint) or (chapter.checkpoint and not rest):
        raise BuildError(
            f"chapter {chapter.heading}: its exercises are worth {total - rest} of its {total} "
            "points in autograd.syllabus.POINTS, which leaves "
            + (
                f"{rest} for its checkpoint"
                if chapter.checkpoint
                else f"{rest} for a checkpoint it does not have"
            )
        )
    return [each[k] for k in keys], rest


def _meta(cell, grade_id, *, solution=False, grade=False, points=None):
    metadata = {k: v for k, v in cell.get("metadata", {}).items() if k != "jupyter"}
    nbgrader = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": not solution,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        nbgrader["points"] = points
    metadata["nbgrader"] = nbgrader
    return metadata


def _code(cell, text, metadata):
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": cell["id"],
        "metadata": metadata,
        "outputs": [],
        "source": text,
    }


def _string(text):
    """`text` as a Python literal that reads as the code it holds."""
    if "'''" in text or "\\" in text:
        return repr(text)
    return f"'''\\\n{text}\n'''"


def answer_cell(cell, solution):
    stub = source(cell).rstrip("\n")
    text = f"{stub}\n### BEGIN SOLUTION\n{solution}\n### END SOLUTION"
    return _code(cell, text, _meta(cell, cell["id"], solution=True))


def test_cell(cell, check, solution, points):
    before = source(cell).strip().splitlines()[:-1]  # lines above the check call, if any
    lines = [
        f"# Graded: {points} point{'s' if points != 1 else ''} when the check passes.",
        GRADED,
        *before,
        "### BEGIN HIDDEN TESTS",
        "# The grader's copy only: where the answer fails, its solution stands in for the",
        "# rest of the notebook, so that one mistake costs this exercise's points alone.",
        f"graded.stand_in({check!r}, {_string(solution)}, globals())",
        "### END HIDDEN TESTS",
        f"graded({check})",
    ]
    return _code(cell, "\n".join(lines), _meta(cell, cell["id"], grade=True, points=points))


def checkpoint_test_cell(cell, points):
    lines = source(cell).strip().splitlines()  # `report = checkpoint(N, ...)`, then `report`
    call = lines[0]
    if len(lines) != 2 or not call.startswith("report = ") or lines[1] != "report":
        raise BuildError(
            f"the checkpoint cell {cell['id']} is not `report = checkpoint(...)` then `report`"
        )
    text = "\n".join(
        [
            f"# Graded: {points} points when every check of the checkpoint passes.",
            GRADED,
            call,
            "graded(report)",
        ]
    )
    return _code(cell, text, _meta(cell, cell["id"], grade=True, points=points))


def class_text(text, assignments):
    """A text cell as the class edition shows it: no Binder badge (it opens the public
    notebooks, solutions and all); a link to another chapter points to where nbgrader puts it
    (its own folder), or, for a chapter that is no assignment, is left as its words."""
    text = BINDER_BADGE.sub("", text)

    def link(match):
        words, stem, anchor = match.group(1), match.group(2), match.group(3) or ""
        if stem not in assignments:
            return words
        return f"[{words}](../{stem}/{stem}.ipynb{anchor})"

    return CHAPTER_LINK.sub(link, text)


def locked(cell, assignments=None):
    out = {k: v for k, v in cell.items() if k not in ("outputs", "execution_count")}
    if cell["cell_type"] == "markdown" and assignments is not None:
        out["source"] = class_text(source(cell), assignments)
    out["metadata"] = _meta(cell, cell["id"])
    if cell["cell_type"] == "code":
        out["outputs"], out["execution_count"] = [], None
    return out


def introduction(chapter, points, total):
    """The cell that tells a student how the class edition of the chapter is graded."""
    n, rest = len(points), total - sum(points)
    worth = (
        f"Its exercise is worth {points[0]}"
        if n == 1
        else f"Its {n} exercises are worth {', '.join(map(str, points[:-1]))} and {points[-1]}"
    )
    worth += " point" if n == 1 and points[0] == 1 else " points"
    if n > 1:
        worth += ", in the order they come"
    if rest:
        worth += (
            f", and the checkpoint at the end the other {rest} (once every exercise has "
            "an answer of yours)"
        )
    text = (
        "**The class edition.** Write your answers in the cells that hold a stub to replace "
        "(a `...` or a `None`); the other cells are locked. Each exercise's check is a graded "
        "cell that gives its points when the check passes, with the same messages as the "
        f"course. {worth}: {total} in all. Your grade is decided on your answer cells alone, in "
        "a fresh Python with the course's own cells and checks, so only your own code earns "
        "points: an answer that uses the course's finished engine or changes its checks earns "
        "none, and is shown to your instructor. Before you submit, restart the kernel and run "
        "every cell, top to bottom."
    )
    cell = {
        "cell_type": "markdown",
        "id": f"class-edition-{chapter.number:02d}",
        "metadata": {},
        "source": text,
    }
    return locked(cell)


def class_notebook(chapter, assignments=frozenset()):
    """The chapter's notebook as an nbgrader source notebook, or None if it has no exercise.
    `assignments`: the stems of every chapter that is an assignment, for links."""
    path = ROOT / chapter.path
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = exercises(notebook, chapter.notebook)
    if not found:
        return None
    points, rest = points_for(chapter, [exercise_key(e[0]) for e in found])
    cells = cells_of(notebook)
    answers = {e[1]: e for e in found}
    checks = {e[2]: (e, p) for e, p in zip(found, points)}
    solutions = {e[3] for e in found}
    checkpoints = [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and CHECKPOINT_CALL.search(source(c))
    ]
    if chapter.checkpoint and not checkpoints:
        raise BuildError(
            f"{chapter.notebook}: the syllabus says it ends with a checkpoint, "
            "but no cell calls checkpoint(...)"
        )
    checkpoint = checkpoints[-1] if chapter.checkpoint else None
    out = []
    for i, cell in enumerate(cells):
        if i in solutions:
            continue
        if i in answers:
            out.append(answer_cell(cell, answers[i][4]))
        elif i in checks:
            (check, *_, solution), p = checks[i]
            out.append(test_cell(cell, check, solution, p))
        elif i == checkpoint:
            out.append(checkpoint_test_cell(cell, rest))
        elif (
            checkpoint is not None
            and i > checkpoint
            and cell["cell_type"] == "code"
            and "raise_if_failed" in source(cell)
        ):
            continue  # the test cell fails itself; a second failure would say nothing new
        else:
            out.append(locked(cell, assignments))
        if i == 0:
            out.append(introduction(chapter, points, sum(points) + rest))
    notebook["cells"] = out
    return notebook


def build(out, grading_user="nobody"):
    """Write the course directory into `out` (its source/ emptied first); return the
    assignments' names. `grading_user`: the account students' code runs as in autograde."""
    out = Path(out).resolve()
    if out == ROOT or ROOT in out.parents:
        raise BuildError(
            f"{out} is inside the repository, which students may be able to read "
            "(solutions, the gradebook, every student's work): build the course "
            "outside it, e.g. in the instructor's home folder (~/course)"
        )
    if out.exists():
        shutil.rmtree(out / "source", ignore_errors=True)
    (out / "source").mkdir(parents=True, exist_ok=True)
    out.chmod(0o700)  # the instructor's alone
    (out / "nbgrader_config.py").write_text(
        CONFIG.format(classroom=str(ROOT / "classroom"), grading_user=grading_user),
        encoding="utf-8",
    )
    assignments = {
        Path(c.notebook).stem
        for c in syllabus.CHAPTERS
        if exercises(json.loads((ROOT / c.path).read_text(encoding="utf-8")), c.notebook)
    }
    names = []
    for chapter in syllabus.CHAPTERS:
        notebook = class_notebook(chapter, assignments)
        if notebook is None:
            continue
        name = Path(chapter.notebook).stem
        folder = out / "source" / name
        folder.mkdir()
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        (folder / chapter.notebook).write_text(text, encoding="utf-8")
        names.append(name)
    return names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "out", help="the course directory to write (made if missing), outside the repository"
    )
    parser.add_argument(
        "--grading-user",
        default="nobody",
        help="the account students' code runs as when autograde runs as root "
        "(default: nobody; a dedicated one is better: useradd --system "
        "--no-create-home autograd-grader)",
    )
    args = parser.parse_args(argv)
    try:
        names = build(args.out, args.grading_user)
    except BuildError as error:
        sys.exit(f"classroom/build.py: {error}")
    print(f"{len(names)} assignments in {Path(args.out) / 'source'}: {', '.join(names)}")
    print(
        f"Next, in {args.out}, with the instructor's environment active (classroom/README.md):"
        ' nbgrader generate_assignment "*" releases them all'
    )


if __name__ == "__main__":
    main()
