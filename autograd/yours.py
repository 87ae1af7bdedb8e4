"""Your engine, your file: `my_engine.py`, beside the notebooks.

Chapters 2 to 5 have the learner write the engine. Each part of it that passes its check is
kept in one file of the learner's own, `my_engine.py`, in the notebook's folder (in the Lite
edition, in the browser's storage, with the notebooks): an exercise's check says "kept your
`__mul__` in my_engine.py", and a cell near each chapter's end, `keep(Value, N)`, keeps
the chapter's worked parts as the learner ran them. A part not written yet, or whose answer
failed, is the course's (`autograd/course_engine.py`, the engine as the chapters write it),
marked so in the file: a comment above each part says whose it is. So the file always imports
and runs, and a wrong answer is never kept.

Chapters 3 to 7 start from it: `Value = my_engine(N)` loads the file, checks every part
with the course's own checks for it (`autograd/checks/ch02.py` ... `ch05.py`), and builds the
chapter's class from the parts that pass, printing one line that says whose parts run. A part
that fails (say, edited by hand) is named with what its check found, and the course's part runs
in its place; without the file, the chapter starts from the course's copy (`autograd.stages`),
and says so.

The file can be switched off: `AUTOGRAD_MY_ENGINE=off` in the environment (the class edition's
grading and the website's build use it) or `switch_off()`; then nothing is read or
written, and every chapter runs on the course's copy. `AUTOGRAD_MY_ENGINE=some/path.py` keeps
the file elsewhere (the tests use it).
"""

import os

from . import course_engine
from .checks import exercise as _exercises
from .checks.engine import check_parts, checks_of, exercise_of, first_failure
from .engine_file import (
    CHAPTER_OF,
    COURSE,
    COURSE_TEXT,
    ENVIRONMENT,
    EXERCISE_OF,
    LAST,
    MODULE_PARTS,
    PARTS,
    YOURS,
    file_path,
    load,
    shown,
    source_of,
    switch_off,
    write,
)
from .stages import stage

__all__ = ["my_engine", "keep", "keep_in_file", "switch_off", "file_path"]

_keeping = False


# --------------------------------------------------------------------- a chapter's engine


def _names(parts):
    return ", ".join(f"{p}()" if p == "backward" else p for p in parts)


def my_engine(chapter):
    """The class chapter `chapter` starts from: the learner's my_engine.py (chapters 2 to
    chapter − 1), each part checked, or the course's copy; prints whose parts run. From here
    on, the learner's passing answers are kept in the file (`keep_in_file`)."""
    upto = min(chapter - 1, LAST)
    keep_in_file(quiet=True)
    path = file_path()
    course = f"the course's engine as chapter {upto} leaves it (autograd.stages)"
    if path is None:
        print(
            f"my_engine.py is switched off here ({ENVIRONMENT}=off), so chapter {chapter} "
            f"runs on {course}."
        )
        return stage(upto)
    loaded = load(path)
    if loaded is None:
        print(
            f"No {shown(path)} beside this notebook (a chapter opened on its own, on Binder, "
            f"or before chapter 2), so chapter {chapter} runs on {course}."
        )
        return stage(upto)
    if loaded.error:
        print(
            f"✗ {shown(path)} does not run: {loaded.error}. So chapter {chapter} runs on "
            f"{course}. Fix the file, then run this cell again."
        )
        return stage(upto)
    good, problems = check_parts(loaded, upto)
    for part, found in problems.items():
        print(
            f"✗ {part} in {shown(path)} is wrong: {found}\n  So this chapter runs on the "
            f"course's {part} instead. Fix it in the file, then run this cell again."
        )
    wanted = [p for p in PARTS[len(MODULE_PARTS) :] + MODULE_PARTS if CHAPTER_OF[p] <= upto]
    mine = [p for p in wanted if p in good and loaded.whose.get(p) == "yours"]
    theirs = {}  # {why: parts}
    for part in (p for p in wanted if p not in MODULE_PARTS and p not in mine):
        why = "wrong in the file: see above" if part in problems else loaded.why.get(part, "")
        theirs.setdefault(why, []).append(part)
    said = f"your {_names(mine)}" if mine else "none of your parts yet"
    if theirs:
        said += "; the course's " + "; ".join(
            f"{_names(parts)}" + (f" ({why})" if why else "") for why, parts in theirs.items()
        )
    print(f"Chapter {chapter} runs on your engine, {shown(path)}: {said}.")
    return stage(upto, **{p: f for p, f in good.items() if p not in MODULE_PARTS})


def keep_in_file(quiet=False):
    """From now on, every answer that builds the engine and passes its check is kept in the
    learner's file (the check says so)."""
    global _keeping
    if not _keeping:
        _exercises.AFTER_CHECK.append(_after_check)
    _keeping = True
    path = file_path()
    if not quiet:
        if path is None:
            print(f"my_engine.py is switched off here ({ENVIRONMENT}=off): nothing is kept.")
        else:
            print(
                f"Each part of the engine you write is kept in {shown(path)}, beside this "
                "notebook, once it passes its check: open the file to read your engine grow."
            )


def _after_check(exercise, outcome, report):
    """Exercise.check's hook: keep a passing answer that builds the engine; never a wrong one."""
    part = next((p for p in EXERCISE_OF if exercise_of(p) is exercise), None)
    path = file_path()
    if part is None or path is None or not _keeping:
        return
    try:
        if outcome.status == "yours":
            source = source_of(outcome.answer, part)
            if source is None:
                said = f"Could not read the source of your `{part}`, so it is not kept."
            else:
                write(
                    path,
                    {
                        part: (
                            f"{YOURS} · chapter {CHAPTER_OF[part]} · your answer to "
                            f'"{exercise.title}", which passed its check',
                            source,
                        )
                    },
                )
                said = (
                    f"Kept your `{part}` in {shown(path)}, beside this notebook: open it "
                    "to read your engine so far."
                )
        elif outcome.status == "wrong":
            loaded = load(path)
            if loaded is None or loaded.whose.get(part) != "yours":
                write(
                    path,
                    {
                        part: (
                            f"{COURSE} · chapter {CHAPTER_OF[part]} · yours did not "
                            "pass its check yet",
                            None,
                        )
                    },
                )
            said = f"Not kept in {shown(path)}: an answer is kept only once it passes its check."
        else:
            return
    except (OSError, SyntaxError, ValueError) as error:
        said = f"Could not write {shown(path)}: {error}"
    report.note = f"{report.note}\n{said}".strip()


def keep(Value, chapter, namespace=None):
    """Keep chapter `chapter`'s part of the engine in the learner's file, and say whose each
    part is: an exercise's answer if it passed its check, each worked part as the learner ran
    it if the course's checks pass on it, the course's part otherwise. `namespace` (the
    notebook's `globals()`) holds chapter 5's sort functions."""
    keep_in_file(quiet=True)
    path = file_path()
    if path is None:
        print(f"my_engine.py is switched off here ({ENVIRONMENT}=off): nothing is kept.")
        return
    namespace = namespace or {}
    changes, lines = {}, []
    worked = [p for p in PARTS if CHAPTER_OF[p] == chapter and p not in EXERCISE_OF]
    notebook_ok = not first_failure(checks_of(worked[0], Value)) if worked else True
    for part in (p for p in PARTS if CHAPTER_OF[p] == chapter):
        where = "worked through in the chapter, as you ran it"
        if part in EXERCISE_OF:
            outcome = exercise_of(part).outcome()
            status = "unchecked" if outcome is None else outcome.status
            if status == "yours" and not outcome.by_solution:
                source = source_of(outcome.answer, part)
                if source is not None:
                    changes[part] = (
                        f"{YOURS} · chapter {chapter} · your answer to "
                        f'"{exercise_of(part).title}", which passed its check',
                        source,
                    )
                    lines.append(f"  ✓ {part}: yours")
                    continue
            why = {"wrong": "yours did not pass its check"}.get(status, "not written by you yet")
            changes[part] = (f"{COURSE} · chapter {chapter} · {why}", COURSE_TEXT[part])
            lines.append(f"  • {part}: the course's ({why})")
            continue
        function = namespace.get(part) if part in MODULE_PARTS else vars(Value).get(part)
        source = source_of(function, part) if function is not None else None
        package = os.path.dirname(course_engine.__file__)
        from_course = function is None or getattr(
            getattr(function, "__code__", None), "co_filename", ""
        ).startswith(package)
        ok = notebook_ok or (
            part not in MODULE_PARTS
            and not first_failure(checks_of(part, stage(chapter, **{part: function})))
        )
        if source is None or from_course or not ok:
            why = (
                "not in this notebook"
                if source is None or from_course
                else "the course's checks failed on yours"
            )
            changes[part] = (f"{COURSE} · chapter {chapter} · {why}", COURSE_TEXT[part])
            lines.append(f"  • {part}: the course's ({why})")
        else:
            changes[part] = (f"{YOURS} · chapter {chapter} · {where}", source)
            lines.append(f"  ✓ {part}: yours")
    try:
        write(path, changes)
    except (OSError, SyntaxError, ValueError) as error:
        print(f"Could not write {shown(path)}: {error}")
        return
    print(
        f"Kept chapter {chapter}'s part of your engine in {shown(path)} "
        f"({len(path.read_text(encoding='utf-8').splitlines())} lines now):"
    )
    print("\n".join(lines))
