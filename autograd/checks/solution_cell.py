"""The `%%solution` cell: a solution that runs only when the learner's answer is missing or
fails its check, and says in one line what it did (see `exercise.py` for the exercises).

`solution` is what the cell does, without IPython; `register_magic` makes `%%solution` a cell
magic of the running IPython kernel, if there is one. This module also keeps what a check found
(`Outcome`) and the two switches a check reads while a solution cell runs (`_quiet`,
`_solution_running`): `Exercise.check` reads them here, at call time.
"""

import linecache
import sys

from .. import syllabus
from . import cells
from .core import _OUTCOMES, show, solution_failed

YOURS, UNANSWERED, WRONG = "yours", "unanswered", "wrong"


class Outcome:
    """What the latest check of an exercise found, and who answered it in the end."""

    def __init__(self, status, message="", answer=None):
        self.status = status  # YOURS, UNANSWERED or WRONG
        self.message = message  # why the learner's answer failed (WRONG only)
        self.answer = answer  # the learner's object that was checked
        self.by_solution = False  # the solution cell ran, and the chapter goes on with it
        self.solution_answer = None  # what the solution put in place (to recognise it again)
        self.wrong_tries = 0  # for a prediction: how many wrong answers so far


_quiet = False  # a check run by a solution cell: it does not count as a try
_solution_running = False  # a check run on the solution's own answer: remember nothing


def solution(check_expression, body, namespace, *, out=None):
    """What a `%%solution <check>` cell does, without IPython: evaluate the check in
    `namespace`; if the learner's answer passed, leave it alone; otherwise run `body` (the
    solution's code) in `namespace`, make sure the solution passes, and remember that the
    chapter goes on with the solution. Prints one line that says which happened."""
    global _quiet
    __tracebackhide__ = True  # a traceback shows the notebook's cell and the error, no more

    def write(text):  # plain text: backticks would show as they are
        (out or print)(text.replace("`", ""))

    cells.note_check()
    _quiet = True
    try:
        report = eval(check_expression, namespace)
    except NameError as error:  # the answer's cell never ran: the solution stands in
        return _stand_in_for_missing(error, check_expression, body, namespace, write)
    finally:
        _quiet = False
    exercise = getattr(report, "exercise", None)
    if exercise is None:
        raise TypeError(
            f"%%solution needs an exercise's check, such as "
            f"`ch03.check_pow(Value)`; `{check_expression}` gave {show(report)}"
        )
    outcome = _OUTCOMES[exercise]
    if report.passed and not report.by_solution:
        write(
            f"✓ {_capital(exercise.what)} passed its check, so this solution did not run: "
            "the chapter goes on with your answer."
        )
        return report
    if report.by_solution:
        write(
            f"This solution already replaced {exercise.what}, and the chapter goes on with "
            "it. To use yours, run your answer's cell and its check, then this cell again."
        )
        return report
    checked = _put_in_place(exercise, check_expression, body, namespace)
    raised = getattr(outcome, "raised", None)
    if raised is not None:
        cells.forget()
        checkpoint = "; the checkpoint will say so" if _has_checkpoint(exercise.chapter) else ""
        write(
            f"✗ {_capital(exercise.what)}: its cell raised {cells.said(raised.error)}, so "
            f"this solution ran instead and the chapter goes on with it{checkpoint}. Fix "
            "your cell, run it and its check, then this cell again."
        )
    elif outcome.status == UNANSWERED:
        write(
            f"Not answered yet, so this solution ran and the chapter goes on with it. Your "
            f"turn is still open: write {exercise.what}, run it and its check, then this "
            "cell again."
        )
    else:
        checkpoint = "; the checkpoint will say so" if _has_checkpoint(exercise.chapter) else ""
        write(
            f"✗ {_capital(exercise.what)} did not pass its check (see above), so this "
            f"solution ran instead and the chapter goes on with it{checkpoint}. Fix yours, "
            "run it and its check, then this cell again."
        )
    return checked


def _stand_in_for_missing(error, check_expression, body, namespace, write):
    """`%%solution` when its check cannot even be called: a name it needs is not defined
    (the answer's cell was never run). The solution runs, and if that defines the name, it
    stands in as for an answer not given yet; otherwise the NameError goes on up."""
    __tracebackhide__ = True
    name = getattr(error, "name", None)
    try:
        exec(compile(body, f"<solution for {check_expression}>", "exec"), namespace)
    except Exception:
        raise error from None
    if name is not None and name not in namespace:
        raise error
    global _quiet
    _quiet = True
    try:
        report = eval(check_expression, namespace)
    finally:
        _quiet = False
    exercise = getattr(report, "exercise", None)
    if exercise is None:
        raise error
    _OUTCOMES[exercise] = Outcome(UNANSWERED)
    checked = _put_in_place(exercise, check_expression, body, namespace)
    write(
        f"Not answered yet ({name or 'a name it needs'} is not defined: has its cell run?), "
        f"so this solution ran and the chapter goes on with it. Your turn is still open: "
        f"write {exercise.what}, run it and its check, then this cell again."
    )
    return checked


def _put_in_place(exercise, check_expression, body, namespace):
    """Run the solution's code `body` in `namespace`, make sure it passes its check, and
    remember that the chapter goes on with it; return the check's report."""
    global _solution_running
    __tracebackhide__ = True
    filename = f"<solution of {exercise.title}>"
    linecache.cache[filename] = (len(body), None, body.splitlines(True), filename)
    exec(compile(body, filename, "exec"), namespace)
    _solution_running = True
    try:
        checked = eval(check_expression, namespace)
    finally:
        _solution_running = False
    if not checked.passed:
        solution_failed(
            _solution_failed(exercise, checked, check_expression, body, namespace, filename)
        )
    outcome = _OUTCOMES[exercise]
    outcome.by_solution = True
    outcome.solution_answer = exercise.answer_of(*checked.args)
    return checked


def _solution_failed(exercise, checked, check_expression, body, namespace, filename):
    """What to say when the solution fails its own check in the learner's notebook.

    The solution ran on the notebook's code: the given cells above it as the learner last ran
    them. So a given cell that was edited (a `Neuron.parameters` that lists a weight twice, a
    `backward` with `=` for `+=`) fails the solution too, as it failed the learner's answer.
    Where the exercise knows the chapter's given code (`Exercise.given`; in chapters 2 to 5,
    the package's engine as the chapter leaves it), the solution runs again on a fresh copy of
    it: passing there, it is sound, and the fault is in an edited cell; failing there too, the
    fault is the course's, and only then is the learner asked to report it. Without that
    evidence the message says which is likely, and what to do in either case.
    """
    first = checked.failures[0] if checked.failures else None
    found = (
        f"What the check '{first.name}' found wrong: {first.message}"
        if first is not None
        else checked.summary()
    )
    sound = _sound_on_given_code(exercise, check_expression, body, namespace, filename)
    if sound is False:
        return (
            f"the solution of '{exercise.title}' fails its own check, even on the "
            "chapter's own given code: the fault is in the course, not in your notebook "
            f"(please report this):\n{checked}"
        )
    if sound:
        why = (
            "it passes on the chapter's given code, so the fault is in a given cell above "
            "that was edited, not in the solution (and perhaps not in your answer either)"
        )
    else:
        why = "so the fault is probably in a given cell above that was edited, not in your answer"
    text = (
        f"The solution of '{exercise.title}' fails its check too, on your notebook's code: "
        f"{why}.\n{found}\n"
        "Undo the edit in that cell (as the chapter gives it), run it and the cells after "
        "it, then your answer, its check and this cell again."
    )
    if sound is None:
        text += " If you edited no cell above, the fault is in the course: please report it."
    return text


def _sound_on_given_code(exercise, check_expression, body, namespace, filename):
    """Does the solution pass its check on the chapter's given code, fresh? True or False;
    None when the exercise cannot say (it has no `given`, or making it failed)."""
    global _solution_running
    import random  # the given code may draw random numbers: the notebook's stay as they were

    state = random.getstate()
    try:
        given = exercise.given() if exercise.given is not None else _stage_for(exercise, namespace)
    except Exception:  # no evidence either way
        given = None
    if not given:
        random.setstate(state)
        return None
    trial = {**namespace, **given}
    _solution_running = True
    try:
        exec(compile(body, filename, "exec"), trial)
        return bool(eval(check_expression, trial).passed)
    except Exception:  # the solution crashed on the course's own code
        return False
    finally:
        _solution_running = False
        random.setstate(state)


def _stage_for(exercise, namespace):
    """For an exercise of the chapters that grow the engine (2 to 5) whose check takes the
    notebook's `Value` class: {"Value": a fresh copy of the package's engine as that chapter
    leaves it}, the given code the solution builds on. None for any other exercise."""
    from ..stages import CHAPTER_METHODS, stage

    value = namespace.get("Value")
    if exercise.chapter not in CHAPTER_METHODS or not isinstance(value, type):
        return None
    return {"Value": stage(exercise.chapter)}


def _has_checkpoint(chapter):
    """Does chapter `chapter` end with a checkpoint? The syllabus says (no, for a number that
    is no chapter of the course, such as a test's own)."""
    return any(c.number == chapter and c.checkpoint for c in syllabus.CHAPTERS)


def _capital(text):
    return text[:1].upper() + text[1:]


def _solution_magic(line, cell):
    """%%solution <check>: run this cell only if the answer above fails <check>."""
    __tracebackhide__ = True
    shell = sys.modules["IPython"].get_ipython()
    solution(line.strip(), cell, shell.user_ns)


def register_magic():
    """Make `%%solution` available in the running IPython kernel, if there is one."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        shell.register_magic_function(_solution_magic, magic_kind="cell", magic_name="solution")
        cells.watch(shell)  # an answer cell that raises fails its check (cells.py)
