"""Checks that cannot hang, and cannot be broken by the learner's class.

A check runs the learner's code in the notebook's own process. A loop that never ends must fail
that one check, with a message that says the time limit and the likely cause, and the other
checks must still run; Ctrl-C must still show the checks that ran, and stop Run All; and a
learner's broken `__repr__` must fail only the check about repr. These tests use limits of a
fraction of a second (`seconds=` and `time_limit()`), so that they run fast.
"""

import html
import json
import math
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from autograd.checks import (
    ChecksInterrupted,
    check,
    checkpoint,
    exercise,
    fail,
    run_checks,
    time_limit,
)
from autograd.checks import ch04, ch05
from autograd.stages import add_to_class, stage
from mistakes.ch04 import _SIGMOID as SIGMOID_SOLUTION  # chapter 4's solution
from test_checks_core import failing, passing  # a check that passes, and one that fails

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
LIMIT = 0.5  # seconds: a small limit, so that a check that never returns costs little
VISITED_HINT = "is your topological sort marking visited nodes?"


@check("loops forever")
def looping(x):
    while True:
        x = x + 1


def test_a_check_that_never_returns_fails_with_its_time_limit_and_the_others_still_run():
    started = time.monotonic()
    report = run_checks("t", [passing, looping, passing, failing], 1, seconds=LIMIT)
    elapsed = time.monotonic() - started
    assert [r.passed for r in report.results] == [True, False, True, False]
    message = report.results[1].message
    assert message.startswith(f"did not return within {LIMIT:g} s"), message
    assert "a loop in your code that never ends" in message
    assert report.results[3].message == "x should be 2 but was 1"
    assert not report.passed
    assert elapsed < 5, f"the run took {elapsed:.1f} s with a limit of {LIMIT} s"


def test_a_check_declares_its_own_limit_and_hint_and_time_limit_overrides_the_limit():
    @check("trains for a while", seconds=0.3, timeout_hint="is the learning rate too small?")
    def slow(x):
        while True:
            x = x + 1

    report = run_checks("t", [slow], 1)
    assert report.results[0].message.startswith("did not return within 0.3 s")
    assert report.results[0].message.endswith(": is the learning rate too small?")
    with time_limit(0.2):
        report = run_checks("t", [slow], 1)
    assert report.results[0].message.startswith("did not return within 0.2 s")


def test_time_limit_names_the_learners_function_that_was_still_running():
    def my_endless_helper(x):
        while True:
            x = x + 1

    @check("calls the learner's code")
    def calls(x):
        my_endless_helper(x)

    message = run_checks("t", [calls], 1, seconds=LIMIT).results[0].message
    assert "(it was still in `my_endless_helper`)" in message


def test_a_check_whose_code_swallows_the_interrupt_once_still_fails_in_time():
    def step(x):
        return x + 1

    @check("catches the first interrupt")
    def stubborn(x):
        end = time.monotonic() + 30  # the test's own guard: the check must end long before
        try:  # the learner's bare `except:` takes the first interrupt ...
            while time.monotonic() < end:
                x = step(x)
        except BaseException:
            pass
        while time.monotonic() < end:  # ... and the loop goes on
            x = step(x)

    started = time.monotonic()
    report = run_checks("t", [stubborn, passing], 1, seconds=0.2)
    assert time.monotonic() - started < 5
    assert report.results[0].message.startswith("did not return within 0.2 s")
    assert report.results[1].passed


# ------------------------------------------------------------------ chapter 5: a sort that loops


def _endless_sort(root):
    order, visited = [], set()
    stack = [root]
    while stack:
        node = stack[-1]
        unvisited = [child for child in node._prev if child not in visited]
        if unvisited:
            stack.append(unvisited[0])
        else:
            order.append(stack.pop())  # forgot: visited.add(node)
    return order


def _with_endless_backward():
    """Chapter 4's class with a backward() whose sort never marks a node as visited: from a
    node with inputs it goes back into the same input for ever."""
    V = stage(4)

    @add_to_class(V)
    def backward(self):
        order = _endless_sort(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()

    return V


def test_chapter_five_checkpoint_on_a_sort_that_never_ends_fails_with_the_hint_in_bounded_time():
    V = _with_endless_backward()
    started = time.monotonic()
    with time_limit(LIMIT):
        report = checkpoint(5, V)
    elapsed = time.monotonic() - started
    assert not report.passed
    assert report.results[0].passed, report  # a lone value has nothing to sort
    timed_out, not_run = report.results[1:3], report.results[3:]
    for result in timed_out:
        assert not result.passed, result
        assert result.message.startswith(f"did not return within {LIMIT:g} s"), result.message
        assert VISITED_HINT in result.message, result.message
        assert "(it was still in `backward`)" in result.message, result.message
    assert not_run, "chapter 5 has more than three checks"
    for result in not_run:  # after two time-outs the learner does not wait for the rest
        assert not result.passed and result.message.startswith(
            "not run: 2 checks already ran out of time"
        ), result
    assert elapsed < 2 * LIMIT * 3 + 5, f"{elapsed:.1f} s"


def test_after_two_time_outs_the_remaining_checks_are_not_run_but_listed():
    report = run_checks("t", [looping, passing, looping, passing, failing], 1, seconds=LIMIT)
    assert [r.passed for r in report.results] == [False, True, False, False, False]
    assert [r.message.split(":")[0] for r in report.results[3:]] == ["not run"] * 2
    assert "ran out of time" in report.results[4].message


def test_an_exercise_check_is_timed_and_gives_its_hint():
    exercise.forget_answers()
    try:
        with time_limit(LIMIT):
            report = ch05.check_topological_sort(_endless_sort, stage(4))
        assert not report.passed
        for result in report.results:
            assert result.message.startswith(f"did not return within {LIMIT:g} s")
            assert "does each pass of your `while` loop" in result.message
        assert ch05.SORT.outcome().status == "wrong"
    finally:
        exercise.forget_answers()


ENDLESS_SIGMOID = """
def sigmoid(self):
    s = 1 / (1 + math.exp(-self.data))
    out = Value(s, (self,), "sigmoid")

    def _backward():
        grad = 0.0
        while grad != s * (1 - s):  # the learner's loop, which never reaches it
            grad += 1.0
        self.grad += grad * out.grad

    out._backward = _backward
    return out
"""


def test_a_solution_cell_times_the_learners_answer_and_then_the_solution_takes_over():
    exercise.forget_answers()
    V = stage(4)
    namespace = {"ch04": ch04, "Value": V, "math": math, "add_to_class": add_to_class}
    exec(ENDLESS_SIGMOID, namespace)
    V.sigmoid = namespace["sigmoid"]
    said = []
    try:
        with time_limit(LIMIT):
            checked = exercise.solution(
                "ch04.check_sigmoid(Value)", SIGMOID_SOLUTION, namespace, out=said.append
            )
        assert checked.passed
        assert "did not pass its check" in said[0] and "this solution ran instead" in said[0]
        outcome = ch04.SIGMOID.outcome()
        assert outcome.status == "wrong" and outcome.by_solution
        assert outcome.message.startswith(f"did not return within {LIMIT:g} s")
        assert "(it was still in `_backward`)" in outcome.message
    finally:
        exercise.forget_answers()


# ------------------------------------------------------------------ Ctrl-C


def test_ctrl_c_in_the_learners_code_stops_the_checkpoint_and_shows_what_ran(capsys):
    V = stage(4)

    @add_to_class(V)
    def backward(self):
        if self._prev:
            raise KeyboardInterrupt  # as the learner's Ctrl-C arrives while their code runs
        self.grad = 1.0

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt) as raised:
        checkpoint(5, V)
    assert isinstance(raised.value, ChecksInterrupted)
    report = raised.value.report
    assert not report.passed and not bool(report)
    second = ch05.CHECKPOINT[1].check_name
    said = f"Interrupted (Ctrl-C) during check '{second}': 1 of {len(ch05.CHECKPOINT)} checks ran"
    assert said in str(raised.value)
    assert [r.passed for r in report.results] == [True, False]  # the rest did not run
    assert "interrupted (Ctrl-C)" in report.results[1].message
    assert said in str(report) and said in html.unescape(report._repr_html_())
    assert said in capsys.readouterr().out  # shown, outside a notebook too
    assert signal.getsignal(signal.SIGINT) is before


def _run_in_ipython(cells):
    """Run `cells` in a fresh IPython shell, as Run All does (tests/runall.py), in another
    process; [(text shown, error or None)] for each cell that ran, stopping at an error."""
    script = textwrap.dedent("""
        import json, sys
        sys.path.insert(0, sys.argv[1])
        from runall import _make_shell, _run_cell
        shell, shown = _make_shell()
        out = []
        for index, source in enumerate(json.loads(sys.argv[2])):
            record, stop = _run_cell(shell, shown, {"index": index, "tags": []}, source)
            out.append([record["text"], record["error"]])
            if stop:
                break
        print(json.dumps(out))
    """)
    done = subprocess.run(
        [sys.executable, "-c", script, str(TESTS), json.dumps(cells)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_in_ipython_a_loop_fails_one_check_and_ctrl_c_shows_the_report_and_stops_run_all():
    setup = textwrap.dedent("""
        from autograd.checks import checkpoint, time_limit
        from autograd.stages import add_to_class, stage
        Looping = stage(4)
        Interrupted = stage(4)

        @add_to_class(Looping)
        def backward(self):
            while True:
                pass

        @add_to_class(Interrupted)
        def backward(self):
            raise KeyboardInterrupt
    """)
    cells = _run_in_ipython(
        [
            setup,
            "with time_limit(0.3):\n    report = checkpoint(5, Looping)\nreport",
            "report.passed",
            "report = checkpoint(5, Interrupted)\nreport",
            "print('Run All went on')",
        ]
    )
    assert len(cells) == 4, cells  # Run All stopped at the interrupted checkpoint
    timed_out, after, interrupted = cells[1], cells[2], cells[3]
    assert timed_out[1] is None and timed_out[0].count("did not return within 0.3 s") == 2
    assert timed_out[0].count("not run: 2 checks already ran out of time") == 5
    assert after == ["False", None]  # no interrupt leaked into the next cell
    text, error = interrupted
    assert error.startswith("ChecksInterrupted: Interrupted (Ctrl-C) during check"), error
    assert "Interrupted (Ctrl-C) during check" in text and "0 of 7 checks ran" in text


# ------------------------------------------------------------------ a broken __repr__


def _raises(self):
    raise ValueError("the learner's repr is broken")


def _not_a_string(self):
    return None


@pytest.mark.parametrize("broken", [_raises, _not_a_string], ids=["raises", "not-a-string"])
def test_a_broken_repr_fails_only_the_check_about_repr(broken):
    for chapter in (3, 4, 5):
        V = stage(chapter)
        V.__repr__ = broken
        report = checkpoint(chapter, V)
        assert report.passed, report
    V = stage(2)
    V.__repr__ = broken
    report = checkpoint(2, V)
    assert [r.name for r in report.failures] == [
        "repr is the article's `Value(data=2.0000, grad=0.0000)`"
    ]


def test_an_error_whose_message_cannot_be_written_fails_only_its_check():
    class Odd:
        __repr__ = _raises

    @check("raises an error about an Odd")
    def raises_odd(x):
        raise TypeError(Odd())

    report = run_checks("t", [raises_odd, passing], 1)
    assert [r.passed for r in report.results] == [False, True]
    assert report.results[0].message.startswith(
        "raised TypeError: (a message that could not be written"
    )


# ------------------------------------------------------------------ no interrupt leaks


def test_no_interrupt_leaks_when_a_check_ends_just_before_or_after_its_deadline():
    limit = 0.004
    rng = random.Random(0)

    def spin(seconds):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    @check("ends near its deadline", seconds=limit)
    def near(x):
        spin(limit * rng.uniform(0.5, 1.5))

    outcomes = []
    # Let the time limit's thread run as soon as it wakes, not up to 5 ms later, so that the
    # deadline and the end of the check are really close.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for _ in range(300):
            report = run_checks("t", [near], 1)
            outcomes.append(report.passed)
            if not report.passed:
                assert report.results[0].message.startswith("did not return within")
            spin(0.001)  # the learner's next line: any interrupt still on its way lands here
    except KeyboardInterrupt:
        pytest.fail(f"an interrupt leaked out of check {len(outcomes) + 1} of the run")
    finally:
        sys.setswitchinterval(switch)
    assert any(outcomes) and not all(outcomes)  # the deadline was really near: both happened


def test_run_checks_off_the_main_thread_runs_without_a_time_limit_and_changes_no_handler():
    reports = []

    @check("takes a moment")
    def moment(x):
        time.sleep(0.3)

    before = signal.getsignal(signal.SIGINT)
    thread = threading.Thread(
        target=lambda: reports.append(run_checks("t", [moment, failing], 1, seconds=0.1))
    )
    thread.start()
    thread.join()
    assert [r.passed for r in reports[0].results] == [True, False]
    assert signal.getsignal(signal.SIGINT) is before


def test_in_the_browser_where_no_thread_can_start_checks_run_without_a_time_limit(monkeypatch):
    """Pyodide (the JupyterLite edition) cannot start a thread: checks and exercises still run."""
    from autograd.checks import core

    def no_threads(self):
        raise RuntimeError("can't start new thread")

    @check("takes a moment")
    def moment(x):
        time.sleep(0.3)

    monkeypatch.setattr(threading.Thread, "start", no_threads)
    monkeypatch.setattr(core, "IN_BROWSER", True)
    before = signal.getsignal(signal.SIGINT)
    report = run_checks("t", [moment, passing, failing], 1, seconds=0.1)
    assert [r.passed for r in report.results] == [True, True, False]
    assert report.results[2].message == "x should be 2 but was 1"
    assert signal.getsignal(signal.SIGINT) is before


def test_a_check_that_runs_other_checks_keeps_one_time_limit():
    @check("runs checks of its own")
    def outer(x):
        inner = run_checks("inner", [looping], x)
        fail(f"the inner run returned: {inner}")

    report = run_checks("outer", [outer, passing], 1, seconds=LIMIT)
    assert report.results[0].message.startswith(f"did not return within {LIMIT:g} s")
    assert report.results[1].passed
