"""Chapter checkpoints (`autograd.checks`): they pass on the package, and they are honest.

The package's stages must pass every specification up to their chapter (the notebooks and the
package cannot disagree), and each checkpoint must fail, with a message that names the problem,
on a class that has the bug the chapter warns about.
"""

import functools
import importlib
import importlib.util
import math

import pytest

from autograd import syllabus
from autograd.checks import (
    CheckFailed, Report, check, checkpoint, expect_close, fail, run_checks,
)
from autograd.checks import ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch10, ch11
from autograd.engine import Value as EngineValue
from autograd.stages import add_to_class, stage

LAST_CHAPTER = 11


def result(report, words):
    """The one result of `report` whose name contains `words`."""
    found = [r for r in report.results if words in r.name]
    assert len(found) == 1, [r.name for r in report.results]
    return found[0]


def failure_message(report, words):
    """The message of the failed check whose name contains `words` (it must have failed)."""
    found = result(report, words)
    assert not found.passed, f"expected {found.name!r} to fail:\n{report}"
    assert not report.passed
    return found.message


# ---------------------------------------------------------------- the framework


@check("passes")
def passing(x):
    pass


@check("fails with a message")
def failing(x):
    fail(f"x should be 2 but was {x}")


@check("crashes")
def crashing(x):
    raise ZeroDivisionError("the learner divided by zero")


def test_report_passes_only_when_every_check_passes():
    assert run_checks("t", [passing, passing], 1).passed
    assert bool(run_checks("t", [passing], 1)) is True
    report = run_checks("t", [passing, failing], 1)
    assert report.passed is False and bool(report) is False
    assert [r.name for r in report.failures] == ["fails with a message"]


def test_exception_in_one_check_fails_that_check_only_and_the_others_still_run():
    report = run_checks("t", [crashing, passing, failing], 1)
    assert [r.passed for r in report.results] == [False, True, False]
    assert report.results[0].message == "raised ZeroDivisionError: the learner divided by zero"
    assert report.results[2].message == "x should be 2 but was 1"


def test_text_report_lists_each_check_its_message_and_a_summary():
    text = str(run_checks("My title", [passing, failing, crashing], 1))
    assert text.splitlines()[0] == "My title"
    assert "✓ passes" in text and "✗ fails with a message" in text
    assert "x should be 2 but was 1" in text
    assert "ZeroDivisionError: the learner divided by zero" in text
    assert text.splitlines()[-1] == "1 of 3 checks passed"


def test_html_report_shows_ticks_crosses_messages_and_summary():
    page = run_checks("Title <&>", [passing, failing], 1)._repr_html_()
    assert "&#10004;" in page and "&#10008;" in page  # a tick and a cross
    assert "x should be 2 but was 1" in page
    assert "1 of 2 checks passed" in page
    assert "Title &lt;&amp;&gt;" in page  # text is escaped, never raw HTML


def test_html_report_of_all_passed_has_no_cross():
    page = run_checks("t", [passing] * 7, 1)._repr_html_()
    assert "&#10008;" not in page
    assert "7 of 7 checks passed" in page


def test_raise_if_failed_raises_a_short_error_that_points_to_the_report_only_on_failure():
    ok = run_checks("t", [passing], 1)
    assert ok.raise_if_failed() is ok
    report = run_checks("Chapter 9 checkpoint", [passing, failing, failing], 1)
    with pytest.raises(AssertionError) as raised:  # still an AssertionError, for `except`
        report.raise_if_failed()
    message = str(raised.value)
    assert message == "Chapter 9 checkpoint: 2 of 3 checks failed: see the report above"
    assert "x should be 2" not in message  # the report is above it, not repeated
    assert type(raised.value).__name__ == "ChecksFailed"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_raise_if_failed_shows_no_install_path_in_a_plain_python_traceback(tmp_path):
    # Once a trap: the traceback repeated the whole report and ended in a frame at the
    # absolute path of the installed package
    import os
    import subprocess
    import sys

    import autograd

    script = tmp_path / "checkpoint.py"
    script.write_text(
        "from autograd.checks import run_checks, check, fail\n"
        "@check('one')\n"
        "def one(x):\n"
        "    fail('x is wrong in a way the report explains at length')\n"
        "report = run_checks('Chapter 9 checkpoint', [one], 1)\n"
        "report.raise_if_failed()\n")
    package = os.path.dirname(os.path.dirname(os.path.abspath(autograd.__file__)))
    env = dict(os.environ, PYTHONPATH=package)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == ("autograd.checks.ChecksFailed: Chapter 9 checkpoint: 1 of 1 check "
                         "failed: see the report above")
    assert package not in done.stderr and "explains at length" not in done.stderr
    assert len(lines) <= 6, done.stderr  # the learner's line, the raising line, the error


def test_expect_close_says_what_was_expected_and_what_happened():
    with pytest.raises(CheckFailed, match=r"`x.grad` should be 2.0 but was 1.0: one per use"):
        expect_close(1.0, 2.0, "`x.grad`", hint="one per use")
    with pytest.raises(CheckFailed, match="should be 2.0 but was None"):
        expect_close(None, 2.0, "the answer")
    expect_close(2.0 + 1e-12, 2.0, "x")


@pytest.mark.parametrize("chapter", [0, 9])
def test_checkpoint_refuses_a_chapter_without_one_and_names_those_with_one(chapter):
    with pytest.raises(ValueError, match=f"^chapter {chapter} has no checkpoint: "
                                         "chapters 1 to 8 and 10 to 12 have one$"):
        checkpoint(chapter, stage(5))


@pytest.mark.parametrize("chapter", [-1, 13])
def test_checkpoint_refuses_a_number_that_is_no_chapter(chapter):
    with pytest.raises(ValueError, match=f"^there is no chapter {chapter}: the course has "
                                         "chapters 0 to 12, and chapters 1 to 8 and 10 to 12 "
                                         "have one$"):
        checkpoint(chapter, stage(5))


@pytest.mark.parametrize("chapter", [c.number for c in syllabus.with_checkpoint()])
def test_checkpoint_runs_the_checkpoint_of_each_chapter_that_has_one(chapter, monkeypatch):
    module = importlib.import_module(f"autograd.checks.ch{chapter:02d}")
    given = []
    monkeypatch.setattr(module, "checkpoint", lambda obj: given.append(obj) or "its report")
    built = object()
    assert checkpoint(chapter, built) == "its report" and given == [built]


def test_checkpoint_ten_runs_chapter_tens_specification():
    # chapter 10's checks module has a checkpoint, and `checkpoint(10, ...)` runs it (it used
    # to refuse chapter 10); on stage 5, a class with closures and no slots, it must fail
    report = checkpoint(10, stage(5))
    direct = ch10.checkpoint(stage(5))
    assert report.title.startswith("Chapter 10") and not report.passed
    assert [(r.name, r.passed) for r in report.results] == [
        (r.name, r.passed) for r in direct.results]


def test_checkpoint_eleven_runs_chapter_elevens_specification():
    # `checkpoint(11, ...)` runs chapter 11's checks on a compiler; a function that is not one
    # (it compiles nothing and returns None) fails every check, and says why
    def not_a_compiler(root, inputs):
        return None

    report = checkpoint(11, not_a_compiler)
    direct = ch11.checkpoint(not_a_compiler)
    assert report.title.startswith("Chapter 11") and not report.passed
    assert [(r.name, r.passed) for r in report.results] == [
        (r.name, r.passed) for r in direct.results]
    assert "should return the compiled function" in report.results[0].message


def test_checkpoint_dispatches_to_the_chapter_module():
    report = checkpoint(2, stage(2))
    assert isinstance(report, Report)
    assert report.title.startswith("Chapter 2")
    assert [r.name for r in report.results] == [f.check_name for f in ch02.CHECKPOINT]


# ---------------------------------------------------------------- the package passes


def central(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_checkpoint_one_passes_a_central_difference():
    assert checkpoint(1, central).passed, str(checkpoint(1, central))


def test_checkpoint_one_passes_the_packages_central_difference():
    from autograd.gradcheck import central_difference

    report = checkpoint(1, central_difference)
    assert report.passed, str(report)


SPEC_AND_STAGE = [(chapter, later) for chapter in range(2, 7)
                  for later in range(chapter, LAST_CHAPTER + 1)]


@pytest.mark.parametrize("chapter, stage_chapter", SPEC_AND_STAGE)
def test_every_stage_passes_every_specification_up_to_its_chapter(chapter, stage_chapter):
    report = checkpoint(chapter, stage(stage_chapter))
    assert report.passed, str(report)


@pytest.mark.parametrize("chapter", range(3, 6))
def test_the_stage_before_a_chapter_fails_its_checkpoint(chapter):
    assert not checkpoint(chapter, stage(chapter - 1)).passed


def nn_module():
    return importlib.import_module("autograd.nn")


def test_checkpoint_seven_passes_the_packages_nn():
    report = checkpoint(7, nn_module())
    assert report.passed, str(report)


@pytest.mark.parametrize("stage_chapter", range(7, LAST_CHAPTER + 1))
def test_checkpoint_seven_passes_the_packages_nn_on_each_later_stage(stage_chapter):
    nn = nn_module()
    V = stage(stage_chapter)
    namespace = {name: functools.partial(getattr(nn, name), value_class=V)
                 for name in ("Neuron", "Layer", "MLP")}
    report = checkpoint(7, namespace)
    assert report.passed, str(report)


def check_gradients(f, inputs, value_class, h=1e-6, tol=1e-5):
    """A plain gradient checker honouring chapter 8's contract."""
    values = [value_class(x) for x in inputs]
    f(*values).backward()
    for i, v in enumerate(values):
        up = [value_class(x + h * (j == i)) for j, x in enumerate(inputs)]
        down = [value_class(x - h * (j == i)) for j, x in enumerate(inputs)]
        slope = (f(*up).data - f(*down).data) / (2 * h)
        if not math.isclose(v.grad, slope, rel_tol=tol, abs_tol=tol):
            return False
    return True


def test_checkpoint_eight_passes_a_correct_checker():
    report = checkpoint(8, check_gradients)
    assert report.passed, str(report)


def test_checkpoint_eight_passes_a_checker_built_on_the_packages_gradcheck():
    from autograd.gradcheck import gradcheck

    report = checkpoint(8, lambda f, inputs, value_class: bool(
        gradcheck(f, inputs, value_class=value_class)))
    assert report.passed, str(report)


# ---------------------------------------------------------------- chapter 1 fails honestly


def test_checkpoint_one_catches_a_forward_difference():
    def forward(f, x, h=1e-5):
        return (f(x + h) - f(x)) / h

    message = failure_message(checkpoint(1, forward), "central difference")
    assert "gave 3.31, the forward difference" in message


def test_checkpoint_one_catches_a_step_that_is_ignored():
    def fixed_step(f, x, h=1e-5):
        return (f(x + 1e-5) - f(x - 1e-5)) / 2e-5

    assert "as if it ignored h" in failure_message(checkpoint(1, fixed_step), "central difference")


def test_checkpoint_one_catches_a_tiny_default_step():
    def tiny(f, x, h=1e-13):
        return (f(x + h) - f(x - h)) / (2 * h)

    report = checkpoint(1, tiny)
    assert "the default h should be between 1e-8 and 1e-3, but was 1e-13" in failure_message(
        report, "sensible default")
    assert not result(report, "3x² − 4x + 5").passed  # round-off ruins the slope too


def test_chapter_one_exercise_checks():
    assert ch01.check_numerical_derivative(central).passed

    def slope_plus_two(f, x, h=1e-5):  # 6x − 4 + 2: at x = 3, 16 instead of 14
        return central(f, x, h) + 2

    assert "`numerical_derivative(f, 3)` for f(x) = 3x² − 4x + 5 should be 14 but was 16" in (
        str(ch01.check_numerical_derivative(slope_plus_two)))
    assert ch01.check_evaluation_count(2000).passed
    first = ch01.check_evaluation_count(1001)  # the forward-difference count: a hint first
    assert not first.passed and "forward differences" in str(first) and "2000" not in str(first)
    assert "The answer is 2000" in str(ch01.check_evaluation_count(1000))  # the second try


# ---------------------------------------------------------------- chapter 2 fails honestly


def plain_init(self, data, _children=(), _op="", label=""):
    """An __init__ without type checks."""
    self.data = data
    self.grad = 0.0
    self._backward = lambda: None
    self._prev = tuple(_children)
    self._op = _op
    self.label = label


def set_init(self, data, _children=(), _op="", label=""):
    plain_init(self, float(data), _children, _op, label)
    self._prev = set(_children)  # the micrograd way: order lost, a repeated child kept once


def test_checkpoint_two_catches_a_wrong_repr():
    V = stage(2, __repr__=lambda self: f"Value(data={self.data})")
    message = failure_message(checkpoint(2, V), "repr")
    assert "should be 'Value(data=2.0000, grad=0.0000)', but was 'Value(data=2.0)'" in message


def test_checkpoint_two_catches_prev_as_a_set():
    report = checkpoint(2, stage(2, __init__=set_init))
    message = failure_message(report, "_prev` keeps the children")
    assert "should be the tuple `(a, b)`" in message and "a set {" in message
    assert not result(report, "a new value starts").passed  # () == set() is False too


def test_checkpoint_two_catches_a_constructor_that_takes_anything():
    report = checkpoint(2, stage(2, __init__=plain_init))
    assert "`Value('2.0')` should raise TypeError, but it made" in failure_message(
        report, "refuses non-numbers")
    assert "should be the float 3.0, but was 3 of type int" in failure_message(
        report, "stored as a float")


def test_checkpoint_two_catches_a_bool_slipping_through_an_int_test():
    def init(self, data, _children=(), _op="", label=""):
        if not isinstance(data, (int, float)):
            raise TypeError(f"Value needs a number, not {type(data).__name__}")
        plain_init(self, float(data), _children, _op, label)

    message = failure_message(checkpoint(2, stage(2, __init__=init)), "refuses non-numbers")
    assert "`Value(True)` should raise TypeError" in message and "test for bool first" in message


def test_checkpoint_two_catches_an_error_message_that_says_nothing():
    def init(self, data, _children=(), _op="", label=""):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError("bad input")
        plain_init(self, float(data), _children, _op, label)

    message = failure_message(checkpoint(2, stage(2, __init__=init)), "refuses non-numbers")
    assert "does not say what was given" in message


def count_nodes(root):
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(node._prev)
    return len(seen)


def count_paths(root):
    return 1 + sum(count_paths(child) for child in root._prev)


def test_chapter_two_count_nodes_exercise():
    V = stage(2)
    assert ch02.check_count_nodes(count_nodes, V).passed
    report = ch02.check_count_nodes(count_paths, V)
    assert "counted twice" in str(report)


def test_chapter_two_hand_built_L_exercise():
    V = stage(2)
    a, b, c, f = V(2.0), V(-3.0), V(10.0), V(-2.0)
    e = V(-6.0, (a, b), "*")
    d = V(4.0, (e, c), "+")
    assert ch02.check_hand_built_L(V(-8.0, (d, f), "*")).passed
    wrong = ch02.check_hand_built_L(V(-8.0, (d, f), "+"))
    assert "`L._op` should be '*', but was '+'" in str(wrong)


def test_chapter_two_reject_exercise():
    assert ch02.check_rejects_non_numbers(stage(2)).passed
    assert not ch02.check_rejects_non_numbers(stage(2, __init__=plain_init)).passed


# ---------------------------------------------------------------- chapter 3 fails honestly


def add_with_assignment(self, other):
    other = other if isinstance(other, Value) else Value(other)  # noqa: F821
    out = Value(self.data + other.data, (self, other), "+")  # noqa: F821

    def _backward():
        a, b = out._prev
        a.grad = out.grad
        b.grad = out.grad

    out._backward = _backward
    return out


def add_with_reversed_children(self, other):
    other = other if isinstance(other, Value) else Value(other)  # noqa: F821
    out = Value(self.data + other.data, (other, self), "+")  # noqa: F821

    def _backward():
        for node in out._prev:
            node.grad += out.grad

    out._backward = _backward
    return out


def test_checkpoint_three_catches_assignment_instead_of_accumulation():
    report = checkpoint(3, stage(3, __add__=add_with_assignment))
    message = failure_message(report, "used twice")
    assert message == ("after `y = x + x`, `x.grad` should be 2.0 (one for each use of x) but "
                       "was 1.0: did `_backward` use `=` instead of `+=`?")
    assert not result(report, "diamond").passed


def test_checkpoint_three_catches_children_out_of_order():
    report = checkpoint(3, stage(3, __add__=add_with_reversed_children))
    message = failure_message(report, "_prev` holds the operands in order")
    assert message == "`(a + b)._prev` should be `(a, b)` in that order, but was `(b, a)`"
    assert result(report, "a + b and a * b").passed  # the gradients of + do not care


@pytest.mark.parametrize("method, expression", [("__rmul__", "2 * a"), ("__rsub__", "1 - a"),
                                                ("__rtruediv__", "1 / a"), ("__rpow__", "2 ** a")])
def test_checkpoint_three_catches_a_missing_reflected_operator(method, expression):
    V = stage(3)
    delattr(V, method)
    message = failure_message(checkpoint(3, V), "number on the left")
    assert f"`{expression}` raised TypeError" in message and f"define `{method}`" in message


def test_checkpoint_three_catches_a_missing_radd_through_sum():
    V = stage(3)
    del V.__radd__
    message = failure_message(checkpoint(3, V), "sum([a, b, c])")
    assert "define `__radd__`" in message


def test_checkpoint_three_catches_a_wrong_pow_slope():
    def pow_slope_forgets_n(self, n):
        out = Value(self.data**n, (self,), f"**{n}")  # noqa: F821

        def _backward():
            a = out._prev[0]
            a.grad += a.data ** (n - 1) * out.grad

        out._backward = _backward
        return out

    V = stage(3, __pow__=pow_slope_forgets_n)
    message = failure_message(checkpoint(3, V), "a ** n")
    assert "`a.grad` should be 17.5 but was 10" in message and "factor n is missing" in message
    assert not ch03.check_pow(V).passed
    assert ch03.check_pow(stage(3)).passed


def test_checkpoint_three_blames_pow_not_the_division_built_on_it():
    def pow_without_upstream(self, n):
        out = Value(self.data**n, (self,), f"**{n}")  # noqa: F821

        def _backward():
            a = out._prev[0]
            a.grad += n * a.data ** (n - 1)  # no * out.grad

        out._backward = _backward
        return out

    report = checkpoint(3, stage(3, __pow__=pow_without_upstream))
    assert "`* out.grad`" in failure_message(report, "a ** n")
    division = failure_message(report, "a / b")
    assert division.startswith("`a / b` is built on `__pow__`") and "fix `__pow__` first" in division
    assert "`* out.grad`" not in division  # a / b has no closure of its own to blame


def test_chapter_three_exercise_checks():
    assert ch03.check_sub(stage(3)).passed
    V = stage(3)

    @add_to_class(V)
    def __sub__(self, other):  # the sign of b's gradient lost
        other = other if isinstance(other, V) else V(other)
        out = V(self.data - other.data, (self, other), "-")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    message = str(ch03.check_sub(V))
    assert "`b.grad` should be 0 but was 5" in message and "minus sign" in message

    W = stage(3)
    a, b, c, f = W(2.0), W(-3.0), W(10.0), W(-2.0)
    e = a * b
    d = e + c
    L = d * f
    L.grad = 1.0
    for node in (L, d, e):
        node._backward()
    assert ch03.check_backprop_by_hand(a, b, c, f).passed
    assert "`a.grad` is still 0.0" in str(ch03.check_backprop_by_hand(W(2.0), b, c, f))
    assert ch03.check_diamond_prediction(14).passed
    first = ch03.check_diamond_prediction(12)
    assert not first.passed and "14" not in first.results[0].message  # a hint, not the answer
    second = ch03.check_diamond_prediction(10)
    assert not second.passed and "The answer is 14" in second.results[0].message


# ---------------------------------------------------------------- chapter 4 fails honestly


def tanh_with_slope_one_minus_t(self):
    out = Value(math.tanh(self.data), (self,), "tanh")  # noqa: F821

    def _backward():
        a = out._prev[0]
        a.grad += (1.0 - out.data) * out.grad

    out._backward = _backward
    return out


def test_checkpoint_four_catches_a_wrong_tanh_derivative():
    report = checkpoint(4, stage(4, tanh=tanh_with_slope_one_minus_t))
    message = failure_message(report, "tanh: values and derivatives")
    assert message.startswith("at x = -2, with every input used twice") and "1 − tanh²(x)" in message
    assert "it looks like 1 − tanh(x), without the square" in message
    assert result(report, "exp: values").passed


def test_checkpoint_four_catches_relu_with_slope_one_at_zero():
    def relu_ge(self):
        out = Value(max(0.0, self.data), (self,), "relu")  # noqa: F821

        def _backward():
            a = out._prev[0]
            a.grad += (a.data >= 0) * out.grad

        out._backward = _backward
        return out

    message = failure_message(checkpoint(4, stage(4, relu=relu_ge)), "relu's derivative")
    assert "should be 0.0" in message and "`> 0`, not `>= 0`" in message


def tanh_from_exp(self):
    """tanh as (e²ˣ − 1)/(e²ˣ + 1): right for moderate x, an overflow for large x."""
    e = math.exp(2 * self.data)
    t = (e - 1) / (e + 1)
    out = Value(t, (self,), "tanh")  # noqa: F821

    def _backward():
        out._prev[0].grad += (1.0 - t * t) * out.grad

    out._backward = _backward
    return out


def test_checkpoint_four_catches_tanh_built_from_exp_overflowing():
    report = checkpoint(4, stage(4, tanh=tanh_from_exp))
    assert "overflowed" in failure_message(report, "tanh of ±1000")
    assert result(report, "tanh: values").passed


def test_checkpoint_four_fails_on_a_class_without_activations():
    report = checkpoint(4, stage(3))
    assert "has no attribute 'tanh'" in failure_message(report, "tanh: values")


def test_chapter_four_sigmoid_exercise():
    assert ch04.check_sigmoid(stage(4)).passed
    V = stage(4)

    @add_to_class(V)
    def sigmoid(self):  # the slope of tanh instead of the sigmoid's
        s = 1 / (1 + math.exp(-self.data))
        out = V(s, (self,), "sigmoid")

        def _backward():
            self.grad += (1 - s * s) * out.grad

        out._backward = _backward
        return out

    assert "σ(x)(1 − σ(x))" in str(ch04.check_sigmoid(V))
    assert ch04.check_tanh_slope_prediction(1, 0.0099).passed
    assert not ch04.check_tanh_slope_prediction(0, 0.0099).passed


# ---------------------------------------------------------------- chapter 5 fails honestly


def recursive_backward(self):
    """The article's backward: a recursive depth-first sort."""
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build_topo(child)
            topo.append(v)

    build_topo(self)
    self.grad = 1.0
    for node in reversed(topo):
        node._backward()


def backward_without_sort(self):
    """Each node passes gradient back, then asks its children to do the same."""
    self.grad = 1.0
    stack = [self]
    while stack:
        node = stack.pop()
        node._backward()
        stack.extend(node._prev)


def backward_that_resets_leaves(self):
    stack, seen = [self], set()
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            node.grad = 0.0
            stack.extend(node._prev)
    EngineValue.backward(self)


def test_checkpoint_five_catches_a_recursive_sort_on_a_deep_chain():
    report = checkpoint(5, stage(5, backward=recursive_backward))
    message = failure_message(report, "100,000 nodes deep")
    assert "raised RecursionError" in message and "explicit stack" in message
    assert result(report, "random graphs").passed  # small graphs do not show the problem


def test_checkpoint_five_catches_backward_without_a_topological_order():
    report = checkpoint(5, stage(5, backward=backward_without_sort))
    message = failure_message(report, "b = a + a")
    assert message.startswith("`a.grad` should be 4.0 (c = 4a) but was 8.0")
    assert "topological order" in message
    assert not result(report, "random graphs").passed


def test_checkpoint_five_catches_assignment_instead_of_accumulation():
    message = failure_message(checkpoint(5, stage(5, __add__=add_with_assignment)), "b = a + a")
    assert "`a.grad` should be 4.0 (c = 4a) but was 1.0" in message and "`+=`" in message


def test_checkpoint_five_catches_backward_that_resets_the_leaves():
    message = failure_message(checkpoint(5, stage(5, backward=backward_that_resets_leaves)),
                              "twice")
    assert "`a.grad` went from 6.0 to 6.0" in message and "12.0" in message


def iterative_sort(root):
    order, visited, stack = [], {id(root)}, [(root, iter(root._prev))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if id(child) not in visited:
                visited.add(id(child))
                stack.append((child, iter(child._prev)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def recursive_sort(root):
    order, visited = [], set()

    def visit(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                visit(child)
            order.append(v)

    visit(root)
    return order


def test_chapter_five_sort_exercise_passes_an_iterative_sort():
    report = ch05.check_topological_sort(iterative_sort, stage(5))
    assert report.passed, str(report)


def test_chapter_five_sort_exercise_catches_recursion_and_reversed_orders():
    report = ch05.check_topological_sort(recursive_sort, stage(5))
    assert result(report, "random graphs").passed
    assert "raised RecursionError" in failure_message(report, "chain")

    report = ch05.check_topological_sort(lambda root: iterative_sort(root)[::-1], stage(5))
    assert "it is a right order backwards, the root first" in failure_message(report, "random graphs")

    def breadth_first(root):  # root first, but no bug the check knows by its numbers
        order, visited = [root], {id(root)}
        for node in order:
            for child in node._prev:
                if id(child) not in visited:
                    visited.add(id(child))
                    order.append(child)
        return order

    report = ch05.check_topological_sort(breadth_first, stage(5))
    message = failure_message(report, "random graphs")
    assert "should end with the root, n17, but ended with" in message
    assert "and began with the root" in message


def test_chapter_five_sort_exercise_catches_a_list_that_outlives_the_call():
    leftover = []

    def sort_into_shared_list(root, order=leftover):  # a default list lives across calls
        order.extend(iterative_sort(root))
        return order

    message = failure_message(ch05.check_topological_sort(sort_into_shared_list, stage(5)),
                              "random graphs")
    assert "twice" in message


def test_random_programs_share_nodes_and_use_every_input():
    for seed in ch05.SEEDS:
        inputs, steps = ch05.random_program(seed)
        uses = [0] * (len(inputs) + len(steps))
        for op, i, j in steps:
            uses[i] += 1
            if op != "tanh":
                uses[j] += 1
        assert all(uses[k] >= 1 for k in range(len(inputs)))
        assert uses[0] >= 2


# ---------------------------------------------------------------- chapter 6 fails honestly


def test_checkpoint_six_catches_a_wrong_tanh_derivative_in_the_neuron():
    report = checkpoint(6, stage(6, tanh=tanh_with_slope_one_minus_t))
    assert result(report, "o = 0.7071067811865476").passed  # the forward pass is right
    message = failure_message(report, "the article's gradients")
    assert message.startswith("after `o.backward()`, `w1.grad` should be 1.0 but was")


def test_checkpoint_six_needs_backward():
    assert "has no attribute 'backward'" in failure_message(checkpoint(6, stage(4)),
                                                            "the article's gradients")


def test_chapter_six_exercise_checks():
    assert ch06.check_dx1_by_hand(-1.5).passed
    first = str(ch06.check_dx1_by_hand(1.5))  # a hint first, never the number
    assert "1.5 is not it: the size is right but the sign is off" in first and "-1.5" not in first
    assert "The answer is -1.5" in str(ch06.check_dx1_by_hand(1.5))
    _, start = ch06.neuron(stage(6))
    _, o = ch06.neuron(stage(6), b=6 + math.atanh(0.5))  # n = −6 + b, so o = tanh(n) = 0.5
    assert ch06.check_reached_target(0.2, 1, [start.data, o.data]).passed
    assert not ch06.check_reached_target(0.2, 1, [start.data, start.data]).passed


# ---------------------------------------------------------------- chapter 7 fails honestly


def nn_namespace(**overrides):
    nn = nn_module()
    namespace = {"Neuron": nn.Neuron, "Layer": nn.Layer, "MLP": nn.MLP}
    namespace.update(overrides)
    return namespace


def test_checkpoint_seven_catches_a_neuron_without_its_bias():
    nn = nn_module()

    class NoBias(nn.Neuron):
        def parameters(self):
            return list(self.w)

    message = failure_message(checkpoint(7, nn_namespace(Neuron=NoBias)), "parameter counts")
    assert message == ("`Neuron(3).parameters()` should hold 4 values (3 weights and a bias), "
                       "but held 3")


def test_checkpoint_seven_catches_parameters_that_are_copies():
    nn = nn_module()

    class Copying(nn.MLP):
        def parameters(self):
            return [type(p)(p.data) for p in super().parameters()]

    report = checkpoint(7, nn_namespace(MLP=Copying))
    message = failure_message(report, "parameter counts")
    assert "held new values, not the layers' own" in message
    assert "would never reach the model" in message
    assert not result(report, "one gradient-descent step").passed


def test_checkpoint_seven_catches_zero_grad_that_does_nothing():
    nn = nn_module()

    class Lazy(nn.Layer):
        def zero_grad(self):
            pass

    message = failure_message(checkpoint(7, nn_namespace(Layer=Lazy)), "zero_grad")
    assert message.startswith("`Layer(3, 4).zero_grad()` left every gradient as it was (16 of 16")


def test_checkpoint_seven_catches_gradients_with_the_wrong_sign():
    def pow_uphill(self, n):
        out = Value(self.data**n, (self,), f"**{n}")  # noqa: F821

        def _backward():
            a = out._prev[0]
            a.grad -= n * a.data ** (n - 1) * out.grad

        out._backward = _backward
        return out

    nn = nn_module()
    V = stage(7, __pow__=pow_uphill)
    namespace = {name: functools.partial(getattr(nn, name), value_class=V)
                 for name in ("Neuron", "Layer", "MLP")}
    message = failure_message(checkpoint(7, namespace), "one gradient-descent step")
    assert "the mean squared error should be lower than" in message


def test_checkpoint_seven_says_what_is_missing():
    message = failure_message(checkpoint(7, {"Neuron": None}), "parameter counts")
    assert "found no `Neuron`" in message


def test_chapter_seven_exercise_checks():
    nn = nn_module()
    assert ch07.check_layer_parameters(nn.Layer).passed
    assert ch07.check_zero_grad(nn).passed
    assert ch07.check_circles(nn.MLP(2, [16, 1]), 60, 0.93).passed
    assert "below 90%" in str(ch07.check_circles(nn.MLP(2, [16, 1]), 60, 0.85))


# ---------------------------------------------------------------- chapter 8 fails honestly


def test_checkpoint_eight_catches_a_checker_that_always_says_true():
    report = checkpoint(8, lambda f, inputs, value_class: True)
    assert result(report, "says True for a correct class").passed
    catches = [r for r in report.results if r.name.startswith("says False")]
    assert len(catches) >= 4
    for r in catches:
        assert not r.passed and "`check_gradients` said True on" in r.message
        assert "it never says False" in r.message


def test_checkpoint_eight_catches_a_checker_that_always_says_false():
    report = checkpoint(8, lambda f, inputs, value_class: False)
    assert "said False for a correct class" in failure_message(report, "correct class")


def test_checkpoint_eight_catches_a_checker_that_forgets_to_return():
    report = checkpoint(8, lambda f, inputs, value_class: None)
    assert "forget to `return`" in failure_message(report, "correct class")


def test_checkpoint_eight_catches_a_checker_with_a_loose_tolerance():
    report = checkpoint(8, functools.partial(check_gradients, tol=1.0))
    assert "said True on tanh(x) at x = 0.8" in failure_message(report, "tanh")


@pytest.mark.parametrize("name", sorted(ch08.BUGGY_CLASSES))
def test_each_planted_bug_breaks_its_example_and_nothing_else_breaks_the_rest(name):
    bug = ch08.BUGGY_CLASSES[name]
    assert bug.value_class.__name__ == "Value"
    assert check_gradients(bug.f, bug.inputs, stage(8))
    assert not check_gradients(bug.f, bug.inputs, bug.value_class)
    # The bug travels with the values: an operation's result is again of the buggy class.
    x = bug.value_class(0.3)
    assert type((x * 2 + 1).tanh()) is bug.value_class
    # Functions that avoid the broken method are unaffected.
    untouched = {
        "__add__": (lambda x, y: (x * y).tanh(), [0.4, -0.7]),
        "tanh": (lambda x, y: x * y + x, [0.4, -0.7]),
        "__mul__": (lambda x, y: (x + y).tanh() + y, [0.4, -0.7]),
    }
    f, inputs = untouched[bug.method]
    assert check_gradients(f, inputs, bug.value_class)


def test_chapter_eight_bug_found_exercise():
    assert ch08.check_bug_found("tanh_slope", "tanh").passed
    assert not ch08.check_bug_found("tanh_slope", "__mul__").passed


def test_planted_bug_classes_are_independent_of_the_stages():
    assert isinstance(ch08.BUGGY_CLASSES["mul_swaps"].value_class, type)
    good = stage(8)
    x, y = good(2.0), good(-3.0)
    (x * y).backward()
    assert (x.grad, y.grad) == (-3.0, 2.0)


@pytest.mark.parametrize("notebook, given", [
    ("07_neural_network_library", ("GIVEN_MODULE", "GIVEN_NEURON", "GIVEN_LAYER", "GIVEN_MLP",
                                   "SOLVED_LAYER_PARAMETERS")),
    ("10_making_it_fast", ("GIVEN_FLAT_VALUE",)),
])
def test_the_given_code_the_checks_keep_is_the_notebooks_word_for_word(notebook, given):
    # A solution that fails its check runs again on these copies, to tell an edited given cell
    # from a fault in the course: a copy that drifted from its cell would tell wrong
    import json
    from pathlib import Path

    module = {"07_neural_network_library": ch07, "10_making_it_fast": ch10}[notebook]
    path = Path(__file__).resolve().parent.parent / "notebooks" / f"{notebook}.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"]
    for name in given:
        source = getattr(module, name)
        assert any(cell == source or cell.endswith("\n" + source) for cell in cells), name
