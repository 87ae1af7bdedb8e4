"""Chapter 03's checks (`autograd.checks.ch03`): the exercises (`*`, `-`, `**`, the diamond
prediction) explain an unfinished or wrong attempt in words, and the checkpoint fails honestly
on operators with the bugs the chapter warns about."""

import pytest

from autograd.checks import ch03, ch04, checkpoint
from autograd.stages import add_to_class, stage

from checks_support import add_with_assignment, failure_message, learners, result


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
    assert message == (
        "after `y = x + x`, `x.grad` should be 2.0 (one for each use of x) but "
        "was 1.0: did `_backward` use `=` instead of `+=`?"
    )
    assert not result(report, "diamond").passed


def test_checkpoint_three_catches_children_out_of_order():
    report = checkpoint(3, stage(3, __add__=add_with_reversed_children))
    message = failure_message(report, "_prev` holds the operands in order")
    assert message == "`(a + b)._prev` should be `(a, b)` in that order, but was `(b, a)`"
    assert result(report, "a + b and a * b").passed  # the gradients of + do not care


@pytest.mark.parametrize(
    "method, expression",
    [
        ("__rmul__", "2 * a"),
        ("__rsub__", "1 - a"),
        ("__rtruediv__", "1 / a"),
        ("__rpow__", "2 ** a"),
    ],
)
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
    assert (
        division.startswith("`a / b` is built on `__pow__`") and "fix `__pow__` first" in division
    )
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


def test_chapter_three_untouched_stub_is_not_answered_yet_not_a_bug():
    V = stage(3)

    @add_to_class(V)
    def __sub__(self, other):  # a stub, as a notebook gives it
        ...  # replace ... with one line built from + and unary -

    report = ch03.check_sub(V)
    assert not report.passed and "not answered yet" in str(report)
    assert "AttributeError" not in str(report) and "return" not in report.results[0].message


def test_chapter_three_method_without_return_is_named_not_crashed():
    V = stage(3)

    @add_to_class(V)
    def __sub__(self, other):
        self + (-other)

    message = str(ch03.check_sub(V))
    assert "`a - b` gave None, not a Value" in message and "no `return`" in message
    assert "AttributeError" not in message

    W = stage(3)

    @add_to_class(W)
    def __pow__(self, other):
        out = self.__class__(self.data**other, (self,), f"**{other}")
        out._backward = lambda: None

    assert "`a ** 2` gave None" in str(ch03.check_pow(W))


# The learner's __mul__, as chapter 3's exercise gives it: only the body of _backward is theirs.
MUL = """@add_to_class(Value)
def __mul__(self, other):
    other = other if isinstance(other, Value) else Value(other)
    out = Value(self.data * other.data, (self, other), "*")

    def _backward():
        self.grad += other.data * out.grad
        other.grad += self.data * out.grad

    out._backward = _backward
    return out
"""
MUL_LINES = """        self.grad += other.data * out.grad
        other.grad += self.data * out.grad
"""


def with_mul(old=MUL_LINES, new=MUL_LINES):
    assert old in MUL
    return learners(3, MUL.replace(old, new), "__mul__")


def test_chapter_three_mul_stub_is_not_answered_yet_and_a_right_closure_passes():
    report = ch03.check_mul(with_mul(MUL_LINES, "        ...  # replace ... with two lines\n"))
    assert not report.passed and "not answered yet" in str(report)
    assert "two lines of `_backward`" in str(report)
    assert ch03.check_mul(with_mul()).passed
    # the lines in the other order, or the local derivative written after out.grad: still right
    assert ch03.check_mul(
        with_mul(
            MUL_LINES,
            "        other.grad += out.grad * self.data\n"
            "        self.grad += out.grad * other.data\n",
        )
    ).passed
    assert ch03.check_mul(stage(3)).passed  # the package's __mul__


@pytest.mark.parametrize(
    "new,words",
    [
        (
            "        self.grad += self.data * out.grad\n        other.grad += other.data * out.grad\n",
            "`self.data` and `other.data` are swapped",
        ),
        (
            "        self.grad = other.data * out.grad\n        other.grad = self.data * out.grad\n",
            "assigned with `=` instead of adding with `+=`",
        ),
        (
            "        self.grad += other.data\n        other.grad += self.data\n",
            "multiply it by the gradient arriving from above, `* out.grad`",
        ),
        (
            "        self.grad += other.grad * out.grad\n        other.grad += self.grad * out.grad\n",
            "reads a gradient (`.grad`) where it needs a value (`.data`)",
        ),
        ("        self.grad += other.data * out.grad\n", "passes gradient to a only"),
        ("        other.grad += self.data * out.grad\n", "passes gradient to b only"),
        ("        pass\n", "adds nothing to `self.grad` or `other.grad`"),
        (
            "        self.grad += 1.0 * out.grad\n        other.grad += 1.0 * out.grad\n",
            "the local derivative of a sum",
        ),
        (
            "        self.grad += other.data * out.data\n        other.grad += self.data * out.grad\n",
            "a's line multiplies by `out.data`, the value of a·b, where it needs `out.grad`",
        ),
        (
            "        self.grad += other.data * out.data\n        other.grad += self.data * out.data\n",
            "a's and b's lines multiply by `out.data`",
        ),
        (
            "        self.grad += other * out.grad\n        other.grad += self * out.grad\n",
            "multiplies by a Value (`other` or `self`) where it needs the number inside it",
        ),
    ],
    ids=[
        "swapped",
        "assigned",
        "no-out-grad",
        "grad-not-data",
        "only-a",
        "only-b",
        "pass",
        "sum's-rule",
        "out.data-for-a",
        "out.data-for-both",
        "values-not-numbers",
    ],
)
def test_chapter_three_mul_names_each_mistake_and_not_a_missing_attachment(new, words):
    V = with_mul(MUL_LINES, new)
    report = ch03.check_mul(V)
    message = report.failures[0].message
    assert words in message, message
    assert "did you attach" not in message and "never attached" not in message
    assert "not checked yet" in report.results[1].message  # a * 2 waits for a * b
    assert not checkpoint(3, V).passed  # the checkpoint's own check of a * b fails too


def test_chapter_three_mul_closure_check_seeds_an_upstream_gradient_and_reuses_inputs():
    # `=` for `+=` and a missing `* out.grad` give the right numbers with an upstream gradient
    # of 1 and each input used once: the check must use neither
    message = (
        ch03.check_mul(
            with_mul(
                MUL_LINES,
                "        self.grad = other.data * out.grad\n"
                "        other.grad = self.data * out.grad\n",
            )
        )
        .failures[0]
        .message
    )
    assert "upstream gradient y.grad = 2.5" in message and "`y = (a * b) + a + b`" in message


def test_chapter_three_mul_names_a_closure_never_attached_a_missing_return_and_no_wrapping():
    V = learners(3, MUL.replace("    out._backward = _backward\n", ""), "__mul__")
    assert "it is never attached to the node" in ch03.check_mul(V).failures[0].message
    V = learners(3, MUL.replace("    return out\n", ""), "__mul__")
    assert "no `return`" in ch03.check_mul(V).failures[0].message
    V = learners(
        3,
        MUL.replace("    other = other if isinstance(other, Value) else Value(other)\n", ""),
        "__mul__",
    )
    report = ch03.check_mul(V)
    assert report.results[0].passed  # a * b is right ...
    assert "a plain number has no `.data`" in report.results[1].message  # ... a * 2 is not


def test_chapter_three_sub_built_from_the_numbers_is_told_to_use_operators_not_a_closure():
    # Once misleading: a new Value made from .data was told "`=` instead of `+=`" (for a) and
    # "did you attach it with `out._backward = _backward`?", though `__sub__` needs no closure
    for body, words in (
        ("return Value(self.data - other.data)", "made from the numbers inside"),
        ("return self.data - other.data", "not a Value"),
    ):
        V = learners(3, f"@add_to_class(Value)\ndef __sub__(self, other):\n    {body}\n", "__sub__")
        message = ch03.check_sub(V).failures[0].message
        assert words in message and "build it from `+` and unary `-`" in message, message
        assert "attach" not in message and "`+=`" not in message, message
    # a node of its own whose closure is never attached: told so, and offered composition
    V = learners(
        3,
        "@add_to_class(Value)\ndef __sub__(self, other):\n"
        "    return Value(self.data - other.data, (self, other), '-')\n",
        "__sub__",
    )
    message = ch03.check_sub(V).failures[0].message
    assert "no closure was ever attached" in message and "unary `-`" in message, message


def test_unanswered_predictions_do_not_give_the_answer_away():
    report = ch03.check_diamond_prediction(None)
    assert (
        not report.passed
        and "not answered yet" in str(report)
        and "14" not in str(report).split("\n", 2)[-1]
    )
    report = ch04.check_tanh_slope_prediction(None, None)
    assert not report.passed and "not answered yet" in str(report)
    assert "0.0099" not in str(report) and "0.00986" not in str(report)
    report = ch04.check_tanh_slope_prediction(1.0, None)
    assert report.results[0].passed and not report.results[1].passed
    assert "no prediction yet for tanh'(3)" in report.results[1].message
    assert "0.0099" not in str(report) and "0.00986" not in str(report)
    assert ch04.check_tanh_slope_prediction(1, 0.0099).passed


def test_chapter_three_mul_of_values_raising_typeerror_says_to_use_data():
    # In the chapter's notebook a float cannot yet add a Value (no __radd__): `other *
    # out.grad` then raises TypeError inside the closure, which the check explains
    V = with_mul(
        MUL_LINES,
        "        self.grad += other * out.grad\n        other.grad += self.data * out.grad\n",
    )
    del V.__radd__
    message = ch03.check_mul(V).failures[0].message
    assert "raised TypeError" in message and "`self.grad += other.data * out.grad`" in message


def test_chapter_three_sub_of_minus_other_data_names_the_data_not_the_closure():
    V = learners(
        3,
        "@add_to_class(Value)\ndef __sub__(self, other):\n    return self + (-other.data)\n",
        "__sub__",
    )
    message = ch03.check_sub(V).failures[0].message
    assert "does not remember b" in message and "`-other.data`" in message, message
    assert "attach" not in message, message


def test_chapter_three_pow_of_out_data_names_out_not_the_exponent():
    V = learners(
        3, POW_SOURCE.replace("n * self.data ** (n - 1)", "n * out.data ** (n - 1)"), "__pow__"
    )
    message = ch03.check_pow(V).failures[0].message
    assert "raises `out.data` (aⁿ, the result)" in message, message
    assert "should drop by one" not in message, message


POW_SOURCE = """@add_to_class(Value)
def __pow__(self, other):
    if isinstance(other, Value):
        return self._pow_value(other)
    n = other
    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data ** (n - 1) * out.grad

    out._backward = _backward
    return out
"""
