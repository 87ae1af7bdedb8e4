"""Exercises: checks that remember whose answer the chapter goes on with.

Every "Your turn" in a chapter is three cells: the learner's answer (a stub to complete), a
check, and a collapsed solution that starts with a line naming the check it answers:

    %%solution ch03.check_pow(Value)
    @add_to_class(Value)
    def __pow__(self, other):
        ...

The solution runs only when the learner's answer is missing or fails that check: a correct
answer is never replaced, and Run All (or a learner who is stuck) still gets through the
chapter. The solution cell says in one line what it did, and this module remembers, for each
exercise, whether the chapter goes on with the learner's answer or the solution's, and why;
the chapter's checkpoint reports it ("`sigmoid` came from the solution because yours failed:
...") and fails when an answer the learner wrote was wrong.

The class edition (classroom/build.py, for nbgrader) grades the same exercises: its graded
cells run `graded` on the same checks, and fail where the check fails.

The solution cell itself (`solution`, and the `%%solution` magic) is in `solution_cell.py`;
this module passes its names on. Nothing here needs Jupyter: the magic is registered with
IPython only when a notebook's kernel has already loaded it.
"""

import ast
import inspect
import linecache
import re
import textwrap

from . import cells, solution_cell
from .core import (  # noqa: F401  (answers_for, forget_answers: offered here too)
    _EXERCISES,
    _OUTCOMES,
    CheckFailed,
    ChecksFailed,
    Report,
    SolutionFailed,
    _show,
    answers_for,
    fail,
    forget_answers,
    is_close,
    is_number,
    run_checks,
    show,
)
from .solution_cell import (  # noqa: F401  (solution, register_magic: passed on)
    UNANSWERED,
    WRONG,
    YOURS,
    Outcome,
    _capital,
    _put_in_place,
    register_magic,
    solution,
)

__all__ = [
    "Exercise",
    "Prediction",
    "NotAnswered",
    "SolutionFailed",
    "answers_for",
    "forget_answers",
    "solution",
    "is_unwritten",
    "untouched_stub",
    "SameArguments",
    "graded",
    "NoPoints",
]


class NotAnswered(CheckFailed):
    """Raised by a check that finds the exercise's stub still as it was given."""


# Called as hook(exercise, outcome, report) after each check of a learner's answer (not of a
# solution's); it may add to `report.note`. autograd.yours adds the one that keeps the answers
# that build the engine in the learner's my_engine.py.
AFTER_CHECK = []


class Exercise:
    """One exercise: a name for reports, the checks that decide it, and how to find the
    learner's answer among the check's arguments.

    `what` names the learner's answer in messages ("your `__pow__`"). `answer_of(*args)` picks
    the object the learner wrote out of the check's arguments (a method of a class, a function,
    a number); `unanswered(answer)` says whether it is still the stub. `given()`, if there is
    one, returns the chapter's given code that the solution builds on, fresh, by the names the
    notebook gives it (see `solution`).
    """

    # The class edition (classroom/, `autograd.checks.grading`): a wrong answer never counts
    # towards showing the answer, and no message offers a solution the graded copy lacks.
    class_edition = False

    def __init__(
        self,
        chapter,
        title,
        checks,
        *,
        what,
        answer_of=None,
        unanswered=None,
        todo="replace the stub with your answer, then run it and this check again",
        given=None,
    ):
        self.chapter = chapter
        self.title = title
        self.checks = list(checks)
        self.what = what
        self.answer_of = answer_of or (lambda *args: args[0])
        self.unanswered = unanswered or (lambda answer: answer is None)
        self.todo = todo
        # () -> {name: object}: fresh copies of the given code the solution builds on, as the
        # chapter gives it (a class the notebook defines in a cell above the exercise). When
        # the solution fails its check on the learner's notebook, it runs again on these: if
        # it passes there, a given cell was edited; if it fails there too, the course is wrong.
        self.given = given
        _EXERCISES.append(self)

    def __repr__(self):
        return f"<Exercise {self.chapter:02d} {self.title!r}>"

    def outcome(self):
        return _OUTCOMES.get(self)

    def check(self, *args):
        """Run the exercise's checks on `args`; remember and return the `Report`.

        When the answer's cell raised (see `cells.py`), the answer is that error: the check
        fails and says what raised, without running the checks."""
        cells.note_check()
        raised = None if solution_cell._solution_running else cells.raised_for(self, args)
        try:
            answer = self.answer_of(*args)
        except Exception:  # the answer is a stand-in for a cell that raised
            if raised is None:
                raise
            answer = None
        previous = _OUTCOMES.get(self)
        title = f"Exercise: {self.title}"
        if raised is not None:
            report = run_checks(title, [cells.failing_check(self.title, raised)])
            outcome = Outcome(WRONG, report.failures[0].message, answer=answer)
            outcome.raised = raised
        elif self.unanswered(answer):
            report = _one_line_report(title, self.title, f"not answered yet: {self.todo}")
            outcome = Outcome(UNANSWERED, answer=answer)
        else:
            report = run_checks(title, self.checks, *args)
            failures = report.failures
            outcome = Outcome(
                WRONG if failures else YOURS, failures[0].message if failures else "", answer=answer
            )
        if Exercise.class_edition:
            _class_edition_words(report)
        report.exercise, report.args = self, args
        report.by_solution = (
            raised is None
            and previous is not None
            and previous.by_solution
            and _same(answer, previous.solution_answer)
        )
        if solution_cell._solution_running:
            return report  # the solution checking itself: nothing to remember
        if report.by_solution:
            # the check ran on what the solution put in place, not on the learner's answer
            report.title += " (on the solution's answer, not yours)"
            report.note = (
                f"The solution replaced {self.what}, so this checked the "
                "solution's. To check yours, run your answer's cell again, then "
                "this one."
            )
            return report
        if (
            solution_cell._quiet
            and previous is not None
            and _identical(previous.answer, answer)
            and getattr(previous, "raised", None) is raised
        ):
            return report  # a solution cell re-checking what its check cell just checked
        if previous is not None:
            outcome.wrong_tries = previous.wrong_tries
        if outcome.status == WRONG and not solution_cell._quiet and not Exercise.class_edition:
            outcome.wrong_tries += 1
        _OUTCOMES[self] = outcome
        for hook in AFTER_CHECK:  # autograd.yours: a passing answer is kept in my_engine.py
            hook(self, outcome, report)
        return report

    @property
    def wrong_tries(self):
        """How many wrong answers this kernel has checked so far (for predictions: the first
        gets a hint, the second the answer)."""
        outcome = _OUTCOMES.get(self)
        return outcome.wrong_tries if outcome else 0


def untouched_stub(given=0):
    """`unanswered` for an exercise whose stub is a function holding a `...` line and `given`
    statements of its own (a docstring aside): the stub counts as untouched while it still has
    its `...` and nothing more. A learner who wrote an answer but left the `...` in place has
    answered, and the check looks at what they wrote (`is_unwritten` alone would say "not
    answered yet" and let the solution replace it)."""

    def unanswered(function):
        source = _source(function)
        if not _holds_ellipsis(function, source):
            return False
        if source is None or source[1] is None:
            return True
        try:
            (definition,) = source[1].body
            body = definition.body
        except (ValueError, AttributeError):  # not one `def`: a lambda, say
            return True
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(getattr(body[0].value, "value", None), str)
        ):
            body = body[1:]  # the docstring
        return len(body) <= given + 1

    return unanswered


class SameArguments:
    """`answer_of` for an exercise whose answer is several objects (numbers, a list, a model):
    picks them out of the check's arguments as one tuple, the very same tuple while they are
    the same objects, so that the machinery recognises an answer it has already seen (the
    solution cell re-checking it, or the solution's own answer checked again). `pick` is how
    many leading arguments make up the answer (all of them if None)."""

    def __init__(self, pick=None):
        self.pick = pick
        self._last = None

    def __call__(self, *args):
        answer = args if self.pick is None else args[: self.pick]
        last = self._last
        if (
            last is not None
            and len(last) == len(answer)
            and all(a is b for a, b in zip(last, answer))
        ):
            return last
        self._last = tuple(answer)
        return self._last


def _scalar(x):
    return x is None or isinstance(x, (bool, int, float, str))


def _identical(a, b):
    """The very same answer: the same object, or tuples (lists) of the very same objects."""
    if isinstance(a, (tuple, list)) and type(a) is type(b) and a is not b:
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    return a is b


def _same(a, b):
    """Is answer `a` the one the solution put in place (`b`)? Compared by identity, but not
    for numbers and strings: Python shares one object for equal small ints and short strings,
    so a learner who types the solution's "__mul__" holds the very same object, and it counts
    as theirs. An answer of several values is the solution's when its values other than
    numbers and strings are the solution's very objects."""
    if isinstance(a, (tuple, list)) and type(a) is type(b) and len(a) == len(b):
        pairs = [(x, y) for x, y in zip(a, b) if not _scalar(x)]
        return bool(pairs) and all(_same(x, y) for x, y in pairs)
    return not _scalar(a) and a is b


def _one_line_report(title, name, message):
    def not_answered():
        raise NotAnswered(message)

    not_answered.check_name = name
    report = run_checks(title, [not_answered])
    report.unanswered = True
    return report


def is_unwritten(function):
    """True when `function` still holds a statement that is just `...`, as every stub does
    (on a line of its own, or after a colon: `def f(x): ...`, as a formatter folds it)."""
    return _holds_ellipsis(function, _source(function))


def _source(function):
    """`function`'s source and its parsed tree (None where the source does not parse alone, as
    a lambda's line may not), or None where there is no source to read."""
    code = getattr(function, "__code__", None)
    if code is None or not linecache.getlines(code.co_filename):
        return None
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None
    try:
        return source, ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return source, None


def _holds_ellipsis(function, source):
    """`is_unwritten`, given `_source(function)`."""
    if getattr(function, "__code__", None) is None:
        return function is None
    if source is None:
        return False
    text, tree = source
    if tree is None:  # a lambda's line, say: a line that is just `...`
        return any(line.split("#")[0].strip() == "..." for line in text.splitlines())
    return any(
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and node.value.value is Ellipsis
        for node in ast.walk(tree)
    )


# --------------------------------------------------------------------- predictions


class Prediction(Exercise):
    """A predict-first question with one number for an answer: `title` names it in reports,
    `question` asks it.

    A wrong answer first gets a hint, never the number: `known_wrong` maps the wrong numbers
    learners really give to what each one means ("that is only the path through b"), and
    anything else gets `hint`. The answer and its explanation (`explain`) appear after a
    second wrong try (or in the collapsed solution, for a learner who asks). Numbers are shown
    with `places` decimals, as precise as the question asks.
    """

    def __init__(
        self,
        chapter,
        title,
        question,
        expected,
        *,
        explain,
        hint,
        known_wrong=(),
        tol=1e-6,
        places=None,
        what="your prediction",
        todo="replace `None` with the number you expect, then run this check again",
    ):
        self.expected = expected
        self.explain = explain
        self.hint = hint
        self.known_wrong = list(known_wrong)
        self.tol = tol
        self.places = places

        def right(answer):
            self._judge(answer)

        right.check_name = question
        super().__init__(chapter, title, [right], what=what, todo=todo)

    def number(self, x):
        """`x` written as precisely as the question asks."""
        if self.places is None:
            return f"{float(x):g}"
        return f"{float(x):.{self.places}f}"

    def _judge(self, answer):
        if not is_number(answer):
            fail(f"your prediction should be a number, but was {show(answer)}")
        if is_close(answer, self.expected, self.tol):
            return
        said = f"{self.number(answer)} is not it"
        if self.wrong_tries >= 1:  # this is at least the second wrong try: show the answer
            fail(f"{said}. The answer is {self.number(self.expected)}: {self.explain}")
        hint = next(
            (why for value, why in self.known_wrong if is_close(answer, value, self.tol)), self.hint
        )
        fail(
            f"{said}: {hint} Try again: after a second wrong try this check shows the "
            "answer (or expand the solution below it)."
        )


# --------------------------------------------------------------------- the class edition

_stand_in = None  # (check call, solution code, namespace) for the next `graded` exercise
_TRY_AGAIN = re.compile(
    r" ?Try again: after a second wrong (?:try|prediction) this check "
    r"shows the \w+ \(or expand the solution below it\)\."
)


def _class_edition_words(report):
    """The class edition's words: a prediction's "Try again" without the promise of the
    answer after a second try, or of a solution below (its graded copy has none)."""
    report.results = [
        r._replace(message=_TRY_AGAIN.sub(" Try again.", r.message)) for r in report.results
    ]


class NoPoints(ChecksFailed):
    """Raised by `graded`: the graded cell gives no points. A notebook shows it as its one
    line, without the cell's code around the line that raised: the grader's copy of the cell
    holds the exercise's solution, which the student's feedback must not show."""

    def _render_traceback_(self):  # what IPython shows instead of a traceback
        return [f"{type(self).__name__}: {self}"]


def graded(report):
    """What a test cell of the class edition (classroom/build.py makes it) runs on a report:
    show it, as the course's cell does, and raise `NoPoints` if one of its checks failed, so
    that nbgrader gives the cell no points. An exercise not answered yet fails.

    A checkpoint's report passes when its checks pass and every exercise of the chapter has a
    right answer of the student's: a solution that stood in for one earns no points.

    In the grader's copy of an exercise's cell, `graded.stand_in(...)` runs first and hands
    over the exercise's solution. Where the answer fails, the solution then stands in for it
    for the rest of the notebook, as the course's solution cell does, so that a later exercise
    (or the checkpoint) that builds on this one is graded on its own merits.
    """
    global _stand_in
    __tracebackhide__ = True
    stand_in, _stand_in = _stand_in, None
    if not isinstance(report, Report):
        raise TypeError(f"graded() takes the report a check returns, not {show(report)}")
    missing = [e.title for e, o in report.answers if o is None or o.status != YOURS]
    if report.answers:
        report.note = (
            "Graded on these checks, once every exercise has a right answer of "
            "yours: a solution that stood in for one earns no points."
        )
    _show(report)
    exercise = getattr(report, "exercise", None)
    if not report.failures and not report.interrupted:
        if missing:
            raise NoPoints(
                f"{report.title}: no points, because not every exercise has a "
                f"right answer of yours: {', '.join(missing)}"
            )
        return
    unanswered = getattr(report, "unanswered", False)
    if stand_in is not None and exercise is not None:
        check_expression, body, namespace = stand_in
        _put_in_place(exercise, check_expression, body, namespace)
        why = (
            "Not answered yet"
            if unanswered
            else f"{_capital(exercise.what)} did not pass its check"
        )
        print(
            f"{why}, so the rest of this notebook ran with the course's solution in its "
            "place:\nthe cells after this one are graded on their own.".replace("`", "")
        )
    said = (
        "not answered yet"
        if unanswered
        else report._failed_in_words()
        .removeprefix(f"{report.title}: ")
        .removesuffix(": see the report above")
    )
    raise NoPoints(f"{report.title}: {said}, so this cell gives no points (see the report above)")


def _stand_in_for_grading(check_expression, body, namespace):
    """`graded.stand_in(check call, solution code, namespace)`: the solution that the next
    `graded` exercise puts in place if its answer fails (see `graded`)."""
    global _stand_in
    _stand_in = (check_expression, body, namespace)


graded.stand_in = _stand_in_for_grading
