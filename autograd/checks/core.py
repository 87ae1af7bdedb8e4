"""The machinery of checks: running them under a time limit, failing them with words, and the
`Report` that shows their outcome (see the package's docstring, `autograd.checks`).

`exercise.py` and the chapters' toolbox (`toolbox.py`) build on this module; it imports none
of them.
"""


import _thread
import html
import linecache
import math
import os
import re
import signal
import sys
import threading
import time
from collections import namedtuple
from contextlib import contextmanager

from .._floats import is_int, is_real as is_number  # noqa: F401  (no bool passes either)
from .._platform import IN_BROWSER



TIME_LIMIT = 5.0  # seconds a check may run, unless it declares more with `@check(..., seconds=)`
GIVE_UP_AFTER = 2  # time-outs in one run, after which the remaining checks are not run
_TIMED_OUT = "did not return within"
LOOPING = "is there a loop in your code that never ends?"  # what a time-out says, by default


class CheckFailed(AssertionError):
    """Raised inside a check to fail it; its message is shown to the learner."""


class ChecksFailed(AssertionError):
    """Raised by `Report.raise_if_failed()`: a short message that points to the report shown
    above it, so that Run All stops at a checkpoint that failed."""


class SolutionFailed(AssertionError):
    """Raised by a solution cell whose solution fails its own check; the message says where
    the fault probably is (see `exercise.solution`)."""


CheckResult = namedtuple("CheckResult", ["name", "passed", "message"])


def check(name, *, seconds=None, timeout_hint=None):
    """Decorator: mark a function as a check, with the name a report shows for it.

    `seconds` is how long the check may run (`TIME_LIMIT` unless given: a check that trains a
    network may need more); `timeout_hint` is what the failure says when it runs out of time,
    the likely cause in the learner's code ("is your topological sort marking visited nodes?").
    """

    def mark(function):
        function.check_name = name
        if seconds is not None:
            function.check_seconds = seconds
        if timeout_hint is not None:
            function.timeout_hint = timeout_hint
        return function

    return mark


# --------------------------------------------------------------------- running checks
#
# A check runs the learner's code in the notebook's own process, on the kernel's main thread,
# where a loop that never ends would hang the checkpoint. So each check runs under a time
# limit: a timer thread that, at the deadline, calls `_thread.interrupt_main()`, which works on
# every platform and raises in the main thread as Ctrl-C would. While checks run, our own
# SIGINT handler is in place (the previous one comes back afterwards). It knows whether an
# interrupt is the deadline's (the timer counts what it sends, the handler what arrives): the
# deadline's becomes `_TimeUp`, which fails that check only, and one that arrives after the
# check has already returned is dropped, so that it can never surface in the learner's next
# line. Any other interrupt is the learner's Ctrl-C: the run stops, shows the checks that ran,
# and raises `ChecksInterrupted`, so that Run All stops as it would after any Ctrl-C.
#
# A time limit needs the main thread and a thread to watch it. Elsewhere (and inside a check
# that is itself timed, when a check runs other checks), checks run without a limit of their
# own: so too in the browser (the JupyterLite edition), where Python cannot start a thread;
# there the notebook's stop button is the way out of a loop that never ends.

_RESEND = 0.5  # seconds between interrupts, when the learner's code swallows one

_override = None  # seconds for every check, inside `time_limit()`
_local = threading.local()  # .depth: how many run_checks calls this thread is inside
_deadline = None  # the main thread's running check's _Deadline, for the handler
_previous_handler = None  # the SIGINT handler in place before the checks started


class _TimeUp(BaseException):
    """Raised in the main thread when a check runs out of time. Not an `Exception`, so that
    the learner's `except Exception:` does not swallow it, and not a `KeyboardInterrupt`, so
    that it is never taken for the learner's own Ctrl-C."""


class ChecksInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run of checks; `report` holds the checks that ran before it."""

    def __init__(self, report):
        super().__init__(f"{report.interrupted} (the report above shows them)")
        self.report = report


@contextmanager
def time_limit(seconds):
    """Give every check run inside the block `seconds` to run, whatever it declares (tests use
    small limits, to run fast)."""
    global _override
    saved, _override = _override, seconds
    try:
        yield
    finally:
        _override = saved


class _Deadline:
    """The time limit of one check running in the main thread: `seconds` from `start()`.

    The watcher thread sends an interrupt at the deadline, and again every `_RESEND` seconds
    while the check still runs (the learner's code may catch one), but never a second one
    before the first has arrived, and none once `running` is False. The main thread sets
    `running = False` the moment the check ends, before it calls anything: the handler drops
    an interrupt that arrives after that. `finish()` then waits for every interrupt sent to
    arrive, so that none is still on its way when the previous handler comes back.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.running = True
        self.expired = False
        self.sent = 0  # interrupts the watcher sent (it alone writes this)
        self.received = 0  # interrupts the handler took (it alone writes this)
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="check time limit",
                                         daemon=True)

    def start(self):
        self._watcher.start()

    def _watch(self):
        wait = self.seconds
        while not self._stop.wait(wait):
            wait = _RESEND
            if not self.running:
                return
            self.expired = True
            if self.received >= self.sent:
                self.sent += 1  # counted before it is sent: the handler compares the two
                _thread.interrupt_main()

    def finish(self):
        """After the check: stop the watcher, and let every interrupt it sent arrive."""
        self.running = False
        self._stop.set()
        if self._watcher.ident is not None:
            self._watcher.join()
        give_up = time.monotonic() + 2.0
        while self.received < self.sent and time.monotonic() < give_up:
            time.sleep(0.001)  # an interrupt arrives between two steps of Python code


def _on_interrupt(signum, frame):
    """SIGINT handler while checks run: the deadline's interrupt, or the learner's Ctrl-C."""
    deadline = _deadline
    if deadline is not None and deadline.received < deadline.sent:
        deadline.received += 1
        if deadline.running:
            raise _TimeUp
        return  # the check returned just before its deadline: nothing left to stop
    if callable(_previous_handler):
        return _previous_handler(signum, frame)
    raise KeyboardInterrupt


def _take_interrupts():
    """Install `_on_interrupt`; return True if it is in place (on the main thread only)."""
    global _previous_handler
    if IN_BROWSER or threading.current_thread() is not threading.main_thread():
        return False
    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is None:  # a handler set outside Python: it could not be put back
            return False
        signal.signal(signal.SIGINT, _on_interrupt)
    except (ValueError, OSError):  # not the main interpreter's main thread
        return False
    _previous_handler = previous
    return True


def _seconds_for(function, seconds):
    if seconds is None:
        seconds = _override
    if seconds is None:
        seconds = getattr(function, "check_seconds", TIME_LIMIT)
    return seconds


def _run_one(function, args, seconds):
    """Run one check; return its CheckResult. With `seconds`, under that time limit (the
    caller has installed `_on_interrupt`). The learner's Ctrl-C goes on up as KeyboardInterrupt.
    """
    global _deadline
    name = getattr(function, "check_name", function.__name__)
    deadline = _Deadline(seconds) if seconds is not None else None
    where = ""
    try:
        try:
            if deadline is not None:
                _deadline = deadline
                deadline.start()
            function(*args)
        finally:
            if deadline is not None:
                deadline.running = False  # first, before any call: a late interrupt is dropped
    except _TimeUp as up:
        if deadline is None:  # an enclosing check's time is up: that check fails
            raise
        where = _stuck_in(up.__traceback__, function)
        result = None
    except CheckFailed as failure:
        result = CheckResult(name, False, _text(failure))
    except Exception as error:  # a crash in the learner's code fails this check only
        result = CheckResult(name, False, f"raised {_said(error)}")
    else:
        result = CheckResult(name, True, "")
    finally:
        if deadline is not None:
            deadline.finish()
            _deadline = None
    if deadline is not None and deadline.expired:
        hint = getattr(function, "timeout_hint", LOOPING)
        result = CheckResult(name, False, f"{_TIMED_OUT} {seconds:g} s{where}: {hint}")
    return result


def _stuck_in(traceback, function):
    """` (it was still in `backward`)`: the outermost function that `function`, a check, had
    called and that was still running when its time ran out, other than the checks' own code
    (so the learner's, or the engine's); empty if none was."""
    here = os.path.join(os.path.dirname(__file__), "")  # the checks package: our own code
    walks = os.path.join(os.path.dirname(here.rstrip(os.sep)), "graph.py")  # and its walks
    check_code = getattr(function, "__code__", None)
    while traceback is not None and traceback.tb_frame.f_code is not check_code:
        traceback = traceback.tb_next
    while traceback is not None:
        code = traceback.tb_frame.f_code
        ours = code.co_filename.startswith(here) or code.co_filename == walks
        if code is not check_code and not ours and not code.co_name.startswith("<"):
            return f" (it was still in `{code.co_name}`)"
        traceback = traceback.tb_next
    return ""


def run_checks(title, checks, *args, chapter=None, seconds=None):
    """Run each check on `args` and collect the outcomes into a `Report` titled `title`.

    Each check runs under a time limit: `seconds` if given, else what the check declares, else
    `TIME_LIMIT`; a check that runs out of time fails with a message that says so, and the
    others still run. Ctrl-C stops the run: the checks that ran are shown (in a notebook, as
    the report; elsewhere, printed) and `ChecksInterrupted` is raised, carrying that report.

    With `chapter`, the report is that chapter's checkpoint: it also lists the chapter's
    exercises, each answered by the learner or by its solution (see `exercise.py`).
    """
    depth = getattr(_local, "depth", 0)
    timed = depth == 0 and _take_interrupts()
    _local.depth = depth + 1
    results, current, started = [], None, time.monotonic()
    try:
        timeouts = 0
        for function in checks:
            if timeouts == GIVE_UP_AFTER:  # the rest would most likely run out of time too
                results.append(CheckResult(
                    getattr(function, "check_name", function.__name__), False,
                    f"not run: {GIVE_UP_AFTER} checks already ran out of time, and this one "
                    "would most likely wait as long. Fix the loop first, then run the checks "
                    "again"))
                continue
            current, started = function, time.monotonic()
            limit = _seconds_for(function, seconds) if timed else None
            results.append(_run_one(function, args, limit))
            timeouts += results[-1].message.startswith(_TIMED_OUT)
        current = None
    except KeyboardInterrupt as interrupt:
        if depth:  # inside another run of checks: that one reports it
            raise
        report = _interrupted(title, checks, results, current, time.monotonic() - started)
        _show(report)
        raise ChecksInterrupted(report).with_traceback(interrupt.__traceback__) from None
    finally:
        _local.depth = depth
        if timed:
            signal.signal(signal.SIGINT, _previous_handler)
    report = Report(title, results)
    if chapter is not None:
        answers = answers_for(chapter)
        if any(outcome is not None for _, outcome in answers):  # run from the chapter's notebook
            report.answers = answers
    return report


def _interrupted(title, checks, results, current, seconds):
    """The report of a run that Ctrl-C stopped: the checks that ran, and the one it stopped."""
    ran = len(results)
    report = Report(title, results)
    if current is not None:
        name = getattr(current, "check_name", current.__name__)
        report.results.append(CheckResult(
            name, False, f"interrupted (Ctrl-C) after {seconds:.1f} s, before it finished"))
        during = f" during check '{name}'"
    else:
        during = ""
    report.interrupted = f"Interrupted (Ctrl-C){during}: {ran} of {len(checks)} checks ran"
    return report


def _show(report):
    """Show `report` now: as a notebook shows a cell's result, or printed outside IPython."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        from IPython.display import display

        display(report)
    else:
        print(report)


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


# --------------------------------------------------------------------- failing a check


def fail(message):
    raise CheckFailed(message)


def expect(condition, message):
    """Fail with `message` unless `condition` holds."""
    if not condition:
        fail(message)


def show(x):
    """`repr(x)`, or a plain description when the learner's `__repr__` fails (it raises, or
    returns something other than a string), so that writing a message never fails a check.
    Every value from the learner's code that a message shows goes through `show`."""
    try:
        return repr(x)
    except Exception as error:
        return f"a {_type_name(x)} object (whose repr raised {_type_name(error)})"


def _type_name(x):
    return getattr(type(x), "__name__", "unknown")


def _text(x):
    """`str(x)`, for an exception or a message, never failing (the learner's exception may
    hold one of their values, whose `__repr__` fails)."""
    try:
        return str(x)
    except Exception as error:
        return f"(a message that could not be written: it raised {_type_name(error)})"


def _said(error):
    """`TypeError: the message`, or just `TypeError` when it has none."""
    message = _text(error)
    return f"{_type_name(error)}: {message}" if message else _type_name(error)


def is_close(got, expected, tol=1e-9):
    return is_number(got) and math.isclose(got, expected, rel_tol=tol, abs_tol=tol)


def expect_close(got, expected, what, *, tol=1e-9, hint=""):
    """Fail unless `got` is a number within `tol` (relative or absolute) of `expected`.

    The message reads "`what` should be `expected` but was `got`", then the hint.
    """
    if not is_close(got, expected, tol):
        message = f"{what} should be {show(expected)} but was {show(got)}"
        fail(f"{message}: {hint}" if hint else message)


def check_answer(question, answer, expected, *, tol=1e-6, hint=""):
    """A one-check report for a number the learner predicted or computed by hand."""

    @check(question)
    def answer_matches():
        expect_close(answer, expected, "your answer", tol=tol, hint=hint)

    return run_checks("Your answer", [answer_matches])


# --------------------------------------------------------------------- the report

_CODE = re.compile(r"`([^`]+)`")


_ARRAY = re.compile(r"array\((?:[^()]|\([^()]*\))*\)")  # NumPy's repr of an array


def _html_message(text):
    """Escape `text` for HTML; `code` in backticks becomes <code>; newlines become breaks. An
    array (NumPy's repr, over several lines) gets a block in monospace, so that its columns
    line up."""
    parts, last = [], 0
    for match in _ARRAY.finditer(text):
        parts.append(_html_text(text[last:match.start()]))
        parts.append('<code style="display:block;white-space:pre;overflow-x:auto;'
                     f'margin:0.2em 0">{html.escape(match.group())}</code>')
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
        for status, said in (("filled in", "not answered yet, so the solution stood in"),
                             ("unanswered", "not answered yet"),
                             ("unchecked", "not checked yet (run their cells)")):
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
                used = ("\nThe checks above ran with the solution's answer instead."
                        if outcome.by_solution else "")
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
                f"{_html_message(message)}</div>" if message else ""
            )
            return f"<li>{marks[mark]} {_html_message(name)}{detail}</li>"

        def listing(items):
            return f'<ul style="list-style:none;padding-left:0.5em">{"".join(items)}</ul>'

        parts = [f"<p><b>{_html_message(self.title)}</b></p>"]
        if self.note:
            parts.append(f"<p>{_html_message(self.note)}</p>")
        neutral = "•" if getattr(self, "unanswered", False) else "✗"
        parts.append(listing(item("✓" if r.passed else neutral, r.name,
                                  "" if r.passed else r.message) for r in self.results))
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
linecache.cache[_SHORT_ERRORS_NAME] = (len(_SHORT_ERRORS), None, _SHORT_ERRORS.splitlines(True),
                                       _SHORT_ERRORS_NAME)  # so that a traceback shows the line
_compiled = {}
exec(compile(_SHORT_ERRORS, _SHORT_ERRORS_NAME, "exec"), globals(), _compiled)
Report.raise_if_failed = _compiled["raise_if_failed"]
solution_failed = _compiled["solution_failed"]
ChecksFailed.__module__ = SolutionFailed.__module__ = "autograd.checks"  # where they are exported
del _compiled
