"""Chapter 04's checks (`autograd.checks.ch04`): the exercises (sigmoid, tanh, the slope
predictions) explain an unfinished or wrong attempt in words, and the checkpoint fails
honestly on activations with the bugs the chapter warns about."""

import linecache
import math

import pytest

from autograd.checks import ch04, checkpoint
from autograd.checks.exercise import forget_answers
from autograd.stages import add_to_class, stage

from checks_support import failure_message, learners, result, tanh_with_slope_one_minus_t


def test_checkpoint_four_catches_a_wrong_tanh_derivative():
    report = checkpoint(4, stage(4, tanh=tanh_with_slope_one_minus_t))
    message = failure_message(report, "tanh: values and derivatives")
    assert (
        message.startswith("at x = -2, with every input used twice") and "1 − tanh²(x)" in message
    )
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


def test_chapter_four_sigmoid_stub_is_not_answered_and_a_missing_return_is_named():
    V = stage(4)

    @add_to_class(V)
    def sigmoid(self):  # a stub, as a notebook gives it
        ...  # replace ...: s, out, a _backward with local derivative s·(1 − s), return out

    report = ch04.check_sigmoid(V)
    assert not report.passed and "not answered yet" in str(report)
    assert "gave None" not in str(report)

    W = stage(4)

    @add_to_class(W)
    def sigmoid(self):  # noqa: F811
        s = 1 / (1 + math.exp(-self.data))
        out = W(s, (self,), "sigmoid")
        out._backward = lambda: None

    message = str(ch04.check_sigmoid(W))
    assert "`Value(-3).sigmoid()` gave None, not a Value" in message and "no `return`" in message


# The learner's sigmoid, with one piece of it replaced (the mistakes of tests/mistakes/ch04.py).
SIGMOID = """
def sigmoid(self):
    s = 1 / (1 + math.exp(-self.data))
    out = Value(s, (self,), "sigmoid")

    def _backward():
        self.grad += s * (1 - s) * out.grad

    out._backward = _backward
    return out
"""


def with_sigmoid(old="", new=""):
    """Chapter 4's class with the learner's `sigmoid`, `old` replaced by `new` in it."""
    V = stage(4)
    source = SIGMOID.replace(old, new)
    assert old in SIGMOID
    filename = f"<sigmoid {old!r} {new!r}>"  # inspect finds the source: it is not a stub
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"Value": V, "math": math}
    exec(compile(source, filename, "exec"), namespace)
    V.sigmoid = namespace["sigmoid"]
    return V


def test_chapter_four_sigmoid_without_upstream_gradient_or_with_assignment_fails_and_says_so():
    # Once a trap: leaving out `* out.grad` in sigmoid passed the exercise and the checkpoint,
    # 10 of 10; so did `=` for `+=`
    assert ch04.check_sigmoid(with_sigmoid()).passed
    for old, new, words in (
        (
            "s * (1 - s) * out.grad",
            "s * (1 - s)",
            "multiply it by the gradient arriving from above, `* out.grad`",
        ),
        (
            "self.grad +=",
            "self.grad =",
            "the closure assigned with `=` instead of adding with `+=`",
        ),
    ):
        V = with_sigmoid(old, new)
        message = result(ch04.check_sigmoid(V), "values and gradients").message
        assert "upstream gradient y.grad = 2.5" in message and words in message
        report = checkpoint(4, V)
        assert not report.passed and words in result(report, "sigmoid: values").message
    report = checkpoint(4, with_sigmoid("s * (1 - s) * out.grad", "s * (1 - s)"))
    assert "`=` instead of `+=`" not in str(report)  # the numbers show a missing factor only


def test_chapter_four_names_assignment_only_when_the_numbers_show_it():
    # A message that misled, before: "did _backward use = instead of +=?" was said of any
    # wrong tanh
    def tanh_one_minus_t(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")  # noqa: F821  (the stage's own Value)

        def _backward():
            self.grad += (1 - t) * out.grad

        out._backward = _backward
        return out

    report = checkpoint(4, stage(4, tanh=tanh_one_minus_t))
    message = result(report, "each activation adds").message
    assert "`=`" not in message and "+=" not in message
    assert "tanh'(3) = 0.00986604, which is 1 − tanh²(x)" in message
    assert "1 − tanh(x), without the square" in result(report, "tanh: values").message

    def tanh_assigned(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")  # noqa: F821

        def _backward():
            self.grad = (1 - t**2) * out.grad

        out._backward = _backward
        return out

    report = checkpoint(4, stage(4, tanh=tanh_assigned))
    assert (
        "assigned with `=` instead of adding with `+=`"
        in result(report, "each activation adds").message
    )
    assert "`=` instead of adding with `+=`" in result(report, "tanh: values").message


def test_chapter_four_sigmoid_catalogue_of_wrong_derivatives_and_nodes():
    for old, new, words in (
        ("s * (1 - s) * out.grad", "s * out.grad", "σ(x) alone: the factor (1 − σ(x)) is missing"),
        ("s * (1 - s) * out.grad", "(1 - s) * out.grad", "1 − σ(x) alone"),
        ("s * (1 - s) * out.grad", "(1 - s**2) * out.grad", "tanh's rule"),
        ("    out._backward = _backward\n", "", "passed nothing back to x"),
        ('(s, (self,), "sigmoid")', "(s)", "has no input"),
        ("math.exp(-self.data)", "math.exp(self.data)", "σ(−x)"),
    ):
        message = str(ch04.check_sigmoid(with_sigmoid(old, new)))
        assert words in message, message
        assert "Value(data=" not in message


def test_chapter_four_sigmoid_in_the_overflowing_form_is_right():
    # e^x / (1 + e^x) overflows for x near 710, but it is the sigmoid: the exercise accepts it
    V = with_sigmoid(
        "1 / (1 + math.exp(-self.data))", "math.exp(self.data) / (1 + math.exp(self.data))"
    )
    assert ch04.check_sigmoid(V).passed


def test_chapter_four_slope_prediction_hints_first_then_answers_each_number_rounded():
    first = ch04.check_tanh_slope_prediction(0, 0.995)
    assert "tanh(0) itself, the value" in first.results[0].message
    assert "tanh(3) itself, the value" in first.results[1].message
    assert "0.0099" not in str(first) and "It is 1" not in str(first)
    second = ch04.check_tanh_slope_prediction(1, 0.99)  # tanh'(0) fixed; tanh'(3) wrong again
    assert second.results[0].passed
    assert "It is about 0.0099" in second.results[1].message
    assert "0.00986603" not in str(second)  # the rough number the question asked for
    forget_answers()
    # a number wrong for the first time is hinted at, even on the exercise's second wrong try
    ch04.check_tanh_slope_prediction(1, 0.5)
    third = ch04.check_tanh_slope_prediction(0.25, 0.5)
    assert "the sigmoid's slope at 0" in third.results[0].message
    assert "It is 1" not in third.results[0].message
    assert "It is about 0.0099" in third.results[1].message
    forget_answers()
    # a learner's number is printed as a person writes it
    report = ch04.check_tanh_slope_prediction(1, 1 - 0.99**2)
    assert "0.0199 is not tanh'(3)" in report.results[1].message
    # a rough number is fine: within 15%
    for rough in (0.01, 0.0099, 1 - 0.995**2, 0.0085, 0.011):
        assert ch04.check_tanh_slope_prediction(1, rough).passed, rough
    assert not ch04.check_tanh_slope_prediction(1, 0.005).passed


# The learner's tanh, with one piece of it replaced (the mistakes of tests/mistakes/ch04.py).
TANH = """@add_to_class(Value)
def tanh(self):
    t = math.tanh(self.data)
    out = Value(t, (self,), "tanh")

    def _backward():
        self.grad += (1 - t**2) * out.grad

    out._backward = _backward
    return out
"""


def with_tanh(old="", new=""):
    assert old in TANH
    return learners(3, TANH.replace(old, new), "tanh")


def test_chapter_four_tanh_stub_is_not_answered_yet_and_right_answers_pass():
    stub = '''@add_to_class(Value)
def tanh(self):
    """tanh(x) as a new node whose only input is x (self)."""
    ...  # replace ...: t with math.tanh, out, its _backward, then return out
'''
    report = ch04.check_tanh(learners(3, stub, "tanh"))
    assert not report.passed and "not answered yet" in str(report)
    assert ch04.check_tanh(with_tanh()).passed
    for old, new in (
        ("(1 - t**2)", "(1 - out.data**2)"),
        ("(1 - t**2)", "(1 - t) * (1 + t)"),
        (
            "math.tanh(self.data)",
            "(math.exp(self.data) - math.exp(-self.data)) / "
            "(math.exp(self.data) + math.exp(-self.data))",
        ),
    ):
        report = ch04.check_tanh(with_tanh(old, new))
        assert report.results[1].passed, (new, str(report))


@pytest.mark.parametrize(
    "old,new,words",
    [
        ("(1 - t**2)", "(1 - t)", "1 − tanh(x), without the square"),
        ("(1 - t**2)", "(1 - self.data**2)", "1 − x², which squares the input x"),
        ("(1 - t**2)", "t**2", "tanh²(x) alone"),
        ("(1 - t**2)", "(1 + t**2)", "the sign is wrong"),
        ("(1 - t**2) * out.grad", "(1 - t**2)", "`* out.grad`"),
        ("(1 - t**2) * out.grad", "1 - t**2 * out.grad", "without brackets only t² is multiplied"),
        ("self.grad +=", "self.grad =", "assigned with `=` instead of adding with `+=`"),
        ("math.tanh(self.data)", "self.data", "that is x itself"),
        ("math.tanh(self.data)", "math.tanh(self)", "not the Value `self`"),
        (
            "math.tanh(self.data)",
            "(math.exp(self.data) - 1) / (math.exp(self.data) + 1)",
            "that is tanh(x/2)",
        ),
        (
            "math.tanh(self.data)",
            "(math.exp(2 * self.data) - 1) / math.exp(2 * self.data) + 1",
            "the fraction lost its brackets",
        ),
        (
            "math.tanh(self.data)",
            "(math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)",
            "overflowed",
        ),
        ('(t, (self,), "tanh")', "(t)", 'Build it with `Value(t, (self,), "tanh")`'),
    ],
    ids=[
        "1-t",
        "1-x2",
        "t2",
        "1+t2",
        "no-out-grad",
        "no-brackets",
        "assigned",
        "no-tanh",
        "math-of-Value",
        "e-x",
        "brackets",
        "overflow",
        "no-input",
    ],
)
def test_chapter_four_tanh_names_each_mistake(old, new, words):
    V = with_tanh(old, new)
    message = ch04.check_tanh(V).failures[0].message
    assert words in message, message
    assert "Value(data=" not in message
    assert not checkpoint(4, V).passed


def test_chapter_four_tanh_closure_check_seeds_an_upstream_gradient_and_reuses_x():
    message = ch04.check_tanh(with_tanh("self.grad +=", "self.grad =")).failures[0].message
    assert "upstream gradient y.grad = 2.5" in message and "`y = (x.tanh()) + x`" in message
