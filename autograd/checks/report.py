"""A run of checks, reported: the `Report` (plain text, HTML in Jupyter), the short errors that
stop Run All at a failed checkpoint or solution, and what the learner answered to each exercise
(see `core.py`, which runs the checks and offers every name here).

It imports nothing of the checks: `core.py` builds on it.
"""

import html
import linecache
import re


class ChecksFailed(AssertionError):
    """Raised by `Report.raise_if_failed()`: a short message that points to the report shown
    above it, so that Run All stops at a checkpoint that failed."""


class SolutionFailed(AssertionError):
    """Raised by a solution cell whose solution fails its own check; the message says where
    the fault probably is (see `exercise.solution`)."""


# --------------------------------------------------------------------- what the learner answered
# Every exercise ever defined (`exercise.Exercise` adds itself), in the order its module defines
# it; and what happened to each in this kernel: {exercise: Outcome}. A checkpoint's report reads
# them to say whose answer each exercise ran on.
_EXERCISES = []
_OUTCOMES = {}


def answers_for(chapter):
    """`(exercise, outcome)` for each exercise of `chapter`, in the order the chapter has them
    (an exercise never checked in this kernel has outcome None)."""
    return [(e, _OUTCOMES.get(e)) for e in _EXERCISES if e.chapter == chapter]


def forget_answers():
    """Forget every exercise's outcome, as a fresh kernel would (for tests)."""
    _OUTCOMES.clear()


# --------------------------------------------------------------------- the report

_CODE = re.compile(r"`([^`]+)`")


_ARRAY = re.compile(r"array\((?:[^()]|\([^()]*\))*\)")  # NumPy's repr of an array


def _html_message(text):
    """Escape `text` for HTML; `code` in backticks becomes <code>; newlines become breaks. An
    array (NumPy's repr, over several lines) gets a block in monospace, so that its columns
    line up."""
    parts, last = [], 0
    for match in _ARRAY.finditer(text):
        parts.append(_html_text(text[last : match.start()]))
        parts.append(
            '<code style="display:block;white-space:pre;overflow-x:auto;'
            f'margin:0.2em 0">{html.escape(match.group())}</code>'
        )
        last = match.end()
    parts.append(_html_text(text[last:]))
    return "".join(parts)


def _html_text(text):
    return _CODE.sub(r"<code>\1</code>", html.escape(text)).replace("\n", "<br>")


def _outcome(exercise):
    return _OUTCOMES.get(exercise)


class Report:
    """The outcome of a specification: named checks, each passed or failed with a message.

    A checkpoint's report also lists the chapter's exercises (`answers`): whose answer each
    one is, the learner's or the solution's, and why. An answer the learner wrote that failed
    its check fails the checkpoint too, even where the solution replaced it.
    """

    def __init__(self, title, results):
        self.title = title
        self.results = list(results)
        self.note = ""  # a sentence shown under the title
        self.answers = []  # [(exercise, outcome or None)] for a checkpoint
        self.interrupted = ""  # what Ctrl-C stopped, when it stopped the run

    @property
    def failures(self):
        return [r for r in self.results if not r.passed]

    @property
    def wrong_answers(self):
        """The exercises whose answer the learner wrote and got wrong: [(exercise, outcome)]."""
        return [(e, o) for e, o in self.answers if o is not None and o.status == "wrong"]

    @property
    def passed(self):
        return not self.failures and not self.wrong_answers and not self.interrupted

    def __bool__(self):
        return self.passed

    def summary(self):
        if getattr(self, "unanswered", False):
            return "not answered yet"
        n_passed = sum(r.passed for r in self.results)
        if self.interrupted:
            return f"{self.interrupted}, {n_passed} of them passed"
        text = f"{n_passed} of {len(self.results)} checks passed"
        if self.answers:
            text += f"; {self._whose()}"
        return text

    def _whose(self):
        """Whose code the checks ran on, in one sentence."""
        n = len(self.answers)
        by_status = {}
        for exercise, outcome in self.answers:
            status = outcome.status if outcome is not None else "unchecked"
            if status == "unanswered" and outcome.by_solution:
                status = "filled in"
            by_status.setdefault(status, []).append(exercise)
        yours = len(by_status.get("yours", []))
        if yours == n:
            return f"all on your code: {n} of {n} of your answers passed"
        parts = [f"{yours} of {n} of your answers passed"]
        for exercise in by_status.get("wrong", []):
            outcome = _outcome(exercise)
            by = "came from the solution" if outcome.by_solution else "is still yours"
            parts.append(f"{exercise.what} {by} because yours failed its check (see above)")
        for status, said in (
            ("filled in", "not answered yet, so the solution stood in"),
            ("unanswered", "not answered yet"),
            ("unchecked", "not checked yet (run their cells)"),
        ):
            if by_status.get(status):
                parts.append(f"{said}: " + ", ".join(e.title for e in by_status[status]))
        return "; ".join(parts)

    def _failed_in_words(self):
        """`2 of 4 checks failed: see the report above`, and the answers, in one line."""
        parts = []
        if self.interrupted:
            parts.append("the checks were interrupted (Ctrl-C)")
        elif self.failures:
            n, total = len(self.failures), len(self.results)
            parts.append(f"{n} of {total} check{'s' if total != 1 else ''} failed")
        wrong = len(self.wrong_answers)
        if wrong == 1:
            parts.append("1 of your answers failed its check")
        elif wrong:
            parts.append(f"{wrong} of your answers failed their checks")
        return f"{self.title}: {' and '.join(parts)}: see the report above"

    def _answer_lines(self):
        """(mark, name, text) for each of a checkpoint's exercises: ✓ yours, ✗ wrong, • else."""
        for exercise, outcome in self.answers:
            name = f"{exercise.title} ({exercise.what})"
            if outcome is None:
                yield "•", name, "not checked yet; run the exercise's cells"
            elif outcome.status == "yours":
                yield "✓", name, ""
            elif outcome.status == "unanswered":
                used = "; the solution's answer was used" if outcome.by_solution else ""
                yield "•", name, f"not answered yet{used}"
            else:
                used = (
                    "\nThe checks above ran with the solution's answer instead."
                    if outcome.by_solution
                    else ""
                )
                yield "✗", name, f"yours failed its check: {outcome.message}{used}"

    def __str__(self):
        lines = [self.title]
        if self.note:
            lines.append(self.note)
        neutral = "•" if getattr(self, "unanswered", False) else "✗"
        for r in self.results:
            lines.append(f"  {'✓' if r.passed else neutral} {r.name}")
            if not r.passed:
                lines.extend(f"      {line}" for line in r.message.splitlines())
        if self.answers:
            lines.append("Your answers to the chapter's exercises:")
            for mark, name, text in self._answer_lines():
                lines.append(f"  {mark} {name}")
                lines.extend(f"      {line}" for line in text.splitlines())
        lines.append(self.summary())
        return "\n".join(lines)

    def __repr__(self):
        return f"<Report {self.title!r}: {self.summary()}>"

    def _repr_html_(self):
        marks = {
            "✓": '<span style="color:#1a7f37;font-weight:bold">&#10004;</span>',
            "✗": '<span style="color:#cf222e;font-weight:bold">&#10008;</span>',
            "•": '<span style="color:#57606a;font-weight:bold">&#8226;</span>',
        }

        def item(mark, name, message=""):
            detail = (
                '<div class="check-message" style="margin:0.2em 0 0.4em 1.6em;color:#57606a">'
                f"{_html_message(message)}</div>"
                if message
                else ""
            )
            return f"<li>{marks[mark]} {_html_message(name)}{detail}</li>"

        def listing(items):
            return f'<ul style="list-style:none;padding-left:0.5em">{"".join(items)}</ul>'

        parts = [f"<p><b>{_html_message(self.title)}</b></p>"]
        if self.note:
            parts.append(f"<p>{_html_message(self.note)}</p>")
        neutral = "•" if getattr(self, "unanswered", False) else "✗"
        parts.append(
            listing(
                item("✓" if r.passed else neutral, r.name, "" if r.passed else r.message)
                for r in self.results
            )
        )
        if self.answers:
            parts.append("<p>Your answers to the chapter's exercises:</p>")
            answer_items = []
            for mark, name, message in self._answer_lines():
                answer_items.append(item(mark, name, message))
            parts.append(listing(answer_items))
        colour = "#1a7f37" if self.passed else "#cf222e"
        if getattr(self, "unanswered", False):
            colour = "#57606a"
        parts.append(f'<p style="color:{colour}"><b>{_html_message(self.summary())}</b></p>')
        return '<div class="autograd-report">' + "".join(parts) + "</div>"


# The two lines that stop Run All with a short error, `Report.raise_if_failed` and
# `solution_failed` (a solution cell whose solution fails its check, see `exercise.py`),
# compiled from this text under the name "<autograd.checks>" rather than from this file: a
# traceback (in a notebook as in plain Python) then ends at that name and the line that
# raised, not at the path the package is installed at; IPython hides the frames above it that
# say `__tracebackhide__`. The message points to the report shown above it, instead of
# printing it again.
_SHORT_ERRORS = """\
def raise_if_failed(self):
    '''Raise `ChecksFailed` if any check failed (or an answer the learner wrote did); else
    return self. The error is one short line that points to the report shown above it.'''
    __tracebackhide__ = True  # pytest leaves this frame out of a traceback
    if not self.passed:
        raise ChecksFailed(self._failed_in_words()) from None
    return self


def solution_failed(message):
    '''Raise `SolutionFailed` with `message`, which says where the fault probably is.'''
    __tracebackhide__ = True
    raise SolutionFailed(message) from None
"""
_SHORT_ERRORS_NAME = "<autograd.checks>"
linecache.cache[_SHORT_ERRORS_NAME] = (
    len(_SHORT_ERRORS),
    None,
    _SHORT_ERRORS.splitlines(True),
    _SHORT_ERRORS_NAME,
)  # so that a traceback shows the line
_compiled = {}
exec(compile(_SHORT_ERRORS, _SHORT_ERRORS_NAME, "exec"), globals(), _compiled)
Report.raise_if_failed = _compiled["raise_if_failed"]
solution_failed = _compiled["solution_failed"]
ChecksFailed.__module__ = SolutionFailed.__module__ = "autograd.checks"  # where they are exported
del _compiled
