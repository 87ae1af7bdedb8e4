"""The machinery of checks: running them under a time limit, failing them with words, and the
`Report` that shows their outcome (see the package's docstring, `autograd.checks`). The report
itself, and what the learner answered, live in `report.py`; this module offers their names too.

`exercise.py` and the chapters' toolbox (`toolbox.py`) build on this module; it imports none
of them.
"""

import _thread
import math
import os
import signal
import sys
import threading
import time
from collections import namedtuple
from contextlib import contextmanager

from .._floats import is_int, is_real as is_number  # noqa: F401  (no bool passes either)
from .._platform import IN_BROWSER
from .report import (  # noqa: F401  (passed on: the checks import them from here)
    _EXERCISES,
    _OUTCOMES,
    ChecksFailed,
    Report,
    SolutionFailed,
    answers_for,
    forget_answers,
    solution_failed,
)

TIME_LIMIT = 5.0  # seconds a check may run, unless it declares more with `@check(..., seconds=)`
GIVE_UP_AFTER = 2  # time-outs in one run, after which the remaining checks are not run
_TIMED_OUT = "did not return within"
LOOPING = "is there a loop in your code that never ends?"  # what a time-out says, by default


class CheckFailed(AssertionError):
    """Raised inside a check to fail it; its message is shown to the learner."""


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
        self._watcher = threading.Thread(target=self._watch, name="check time limit", daemon=True)

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
                results.append(
                    CheckResult(
                        getattr(function, "check_name", function.__name__),
                        False,
                        f"not run: {GIVE_UP_AFTER} checks already ran out of time, and this one "
                        "would most likely wait as long. Fix the loop first, then run the checks "
                        "again",
                    )
                )
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
        report.results.append(
            CheckResult(
                name, False, f"interrupted (Ctrl-C) after {seconds:.1f} s, before it finished"
            )
        )
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
