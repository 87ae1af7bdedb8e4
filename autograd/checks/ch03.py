"""Chapter 3 · Operators with local backward hooks — checkpoint and exercise checks.

What the chapter asks for: `+ - * / **` and unary `-` on the Value class, each building a new
value whose `_prev` holds the operands in order and whose `_backward` passes `out.grad` back to
them, times the local derivative, with `+=` (a value used twice collects gradient from both
uses); a plain number on either side (`a * 2`, `2 * a`, `1 - a`, `1 / a`, `2 ** a`,
`sum([a, b])`); a Value exponent (`a ** b`); a TypeError for an operand that is not a number.

The class need not have `backward()` yet: the checks run the `_backward` closures themselves,
in an order they compute (`backprop_by_hand`).
"""

import math

from . import (
    backprop_by_hand, check, check_answer, expect, expect_children, expect_close, fail,
    run_checks, show,
)

__all__ = ["checkpoint", "check_sub", "check_pow", "check_backprop_by_hand",
           "check_diamond_prediction"]

# Every expected value below is worked by hand at a = 3, b = −2 (and c = 0.5).
A, B, C = 3.0, -2.0, 0.5
AT = "a = 3, b = −2"
LN2, LN3 = math.log(2.0), math.log(3.0)


def _expect_value(out, expression):
    """Fail, saying why, when an operator gave back something that is not a node (a stub's
    None, most often) instead of letting the next line crash on `None.data`."""
    if not all(hasattr(out, name) for name in ("data", "grad", "_prev", "_backward")):
        fail(f"`{expression}` gave {show(out)}, not a Value: the method must build the new "
             "node `out`, attach its `_backward`, and end with `return out`")


def _expect_case(Value, expression, function, value, grads, rules, inputs=(A, B), at=AT):
    """Build `function` of fresh leaves, backpropagate by hand, compare value and gradients.

    `grads` and `rules` (the local derivative, in words) are given for the leaves in order.
    """
    leaves = [Value(x) for x in inputs]
    out = function(*leaves)
    _expect_value(out, expression)
    expect_close(out.data, value, f"`({expression}).data` with {at}")
    backprop_by_hand(out)
    for name, leaf, grad, rule in zip("abc", leaves, grads, rules):
        expect_close(leaf.grad, grad,
                     f"after backpropagating through `{expression}` with {at}, `{name}.grad`",
                     hint=f"∂({expression})/∂{name} = {rule}")


@check("a + b and a * b: values and gradients")
def add_and_mul(Value):
    _expect_case(Value, "a + b", lambda a, b: a + b, 1.0, (1.0, 1.0), ("1", "1"))
    _expect_case(Value, "a * b", lambda a, b: a * b, -6.0, (-2.0, 3.0), ("b", "a"))


@check("a − b and −a: values and gradients")
def sub_and_neg(Value):
    _expect_case(Value, "a - b", lambda a, b: a - b, 5.0, (1.0, -1.0), ("1", "−1"))
    _expect_case(Value, "-a", lambda a: -a, -3.0, (-1.0,), ("−1",), inputs=(A,), at="a = 3")


@check("a / b: value and gradients")
def truediv(Value):
    _expect_case(Value, "a / b", lambda a, b: a / b, -1.5, (-0.5, -0.75), ("1/b", "−a/b²"))


@check("a ** n with a number n: values and gradients")
def pow_number(Value):
    at = "a = 3"
    for n, value, grad in ((2, 9.0, 6.0), (3, 27.0, 27.0), (-1, 1 / 3, -1 / 9),
                           (0.5, math.sqrt(3.0), 0.5 / math.sqrt(3.0))):
        _expect_case(Value, f"a ** {n}", lambda a, n=n: a**n, value, (grad,),
                     (f"n·a^(n−1) = {n}·3^{n - 1:g}",), inputs=(A,), at=at)
    _expect_case(Value, "a ** 3", lambda a: a**3, -8.0, (12.0,), ("3a² = 12",),
                 inputs=(B,), at="a = −2")


@check("a ** b with a Value exponent: value and gradients")
def pow_value(Value):
    _expect_case(Value, "a ** b", lambda a, b: a**b, 1 / 9, (-2 / 27, LN3 / 9),
                 ("b·a^(b−1)", "a^b·ln a"))


@check("a plain number on the right: a + 1, a * 2, a − 1, a / 2")
def number_on_the_right(Value):
    for expression, function, value, grad in (
        ("a + 1", lambda a: a + 1, 4.0, 1.0),
        ("a * 2", lambda a: a * 2, 6.0, 2.0),
        ("a - 1", lambda a: a - 1, 2.0, 1.0),
        ("a / 2", lambda a: a / 2, 1.5, 0.5),
    ):
        _expect_case(Value, expression, function, value, (grad,), (f"{grad:g}",),
                     inputs=(A,), at="a = 3")


REFLECTED = [
    # (expression, function, value, gradient at a = 3, the method Python looks for)
    ("1 + a", lambda a: 1 + a, 4.0, 1.0, "__radd__"),
    ("2 * a", lambda a: 2 * a, 6.0, 2.0, "__rmul__"),
    ("1 - a", lambda a: 1 - a, -2.0, -1.0, "__rsub__"),
    ("1 / a", lambda a: 1 / a, 1 / 3, -1 / 9, "__rtruediv__"),
    ("2 ** a", lambda a: 2**a, 8.0, 8.0 * LN2, "__rpow__"),
]


@check("a plain number on the left: 1 + a, 2 * a, 1 − a, 1 / a, 2 ** a")
def number_on_the_left(Value):
    for expression, function, value, grad, method in REFLECTED:
        try:
            _expect_case(Value, expression, function, value, (grad,), (f"{grad:.6g}",),
                         inputs=(A,), at="a = 3")
        except TypeError as error:
            fail(f"`{expression}` raised TypeError ({error}): a number does not know how to "
                 f"combine with a Value, so Python asks the Value, calling `a.{method}(number)`; "
                 f"define `{method}`")


@check("sum([a, b, c]) works (sum starts from 0, so it needs __radd__)")
def builtin_sum(Value):
    try:
        _expect_case(Value, "sum([a, b, c])", lambda a, b, c: sum([a, b, c]), 1.5,
                     (1.0, 1.0, 1.0), ("1", "1", "1"), inputs=(A, B, C),
                     at="a = 3, b = −2, c = 0.5")
    except TypeError as error:
        fail(f"`sum([a, b, c])` raised TypeError ({error}): `sum` starts from the number 0, "
             "so its first step is `0 + a`, which calls `a.__radd__(0)`; define `__radd__`")


@check("a value used twice collects gradient from both uses: x + x and x * x")
def reuse_accumulates(Value):
    x = Value(3.0)
    backprop_by_hand(x + x)
    if x.grad == 1.0:
        fail("after `y = x + x`, `x.grad` should be 2.0 (one for each use of x) but was 1.0: "
             "did `_backward` use `=` instead of `+=`?")
    expect_close(x.grad, 2.0, "after `y = x + x`, `x.grad`", hint="one for each use of x")
    x = Value(3.0)
    backprop_by_hand(x * x)
    if x.grad == 3.0:
        fail("after `y = x * x` with x = 3, `x.grad` should be 6.0 (3 from each use of x) but "
             "was 3.0: did `_backward` use `=` instead of `+=`?")
    expect_close(x.grad, 6.0, "after `y = x * x` with x = 3, `x.grad`",
                 hint="the slope of x² is 2x: 3 from each use of x")


@check("the diamond d = (a + 1)·(2a) gives dd/da = 14 at a = 3")
def diamond(Value):
    a = Value(3.0)
    b, c = a + 1, a * 2
    d = b * c
    backprop_by_hand(d)
    expect_close(a.grad, 14.0, "`a.grad`",
                 hint="a feeds both b and c, so it gets the sum over both paths: "
                      "∂d/∂b·∂b/∂a + ∂d/∂c·∂c/∂a = c·1 + b·2 = 6 + 8")


@check("`_prev` holds the operands in order, and `_op` names the operation")
def children_in_order(Value):
    a, b = Value(A), Value(B)
    names = {id(a): "a", id(b): "b"}
    expect_children(a + b, (a, b), names, "(a + b)")
    expect_children(b + a, (b, a), names, "(b + a)")
    expect_children(a * b, (a, b), names, "(a * b)")
    expect((a + b)._op == "+", f"`(a + b)._op` should be '+', but was {(a + b)._op!r}")
    expect((a * b)._op == "*", f"`(a * b)._op` should be '*', but was {(a * b)._op!r}")


@check("an operand that is not a number raises TypeError")
def bad_operand(Value):
    a = Value(A)
    for expression, function in (
        ("a + '2'", lambda: a + "2"),
        ("a * None", lambda: a * None),
        ("'2' + a", lambda: "2" + a),
    ):
        try:
            result = function()
        except TypeError:
            continue
        except Exception as error:
            fail(f"`{expression}` should raise TypeError, but raised "
                 f"{type(error).__name__}: {error}")
        fail(f"`{expression}` should raise TypeError, but gave {show(result)}")


CHECKPOINT = [
    add_and_mul, sub_and_neg, truediv, pow_number, pow_value, number_on_the_right,
    number_on_the_left, builtin_sum, reuse_accumulates, diamond, children_in_order, bad_operand,
]


def checkpoint(Value):
    """Chapter 3's specification, run on the learner's Value class (no `backward()` needed)."""
    return run_checks("Chapter 3 checkpoint: operators with local backward hooks", CHECKPOINT,
                      Value)


# --------------------------------------------------------------------- exercises


@check("a − b and a − 1: values and gradients")
def subtraction(Value):
    _expect_case(Value, "a - b", lambda a, b: a - b, 5.0, (1.0, -1.0), ("1", "−1"))
    _expect_case(Value, "a - 1", lambda a: a - 1, 2.0, (1.0,), ("1",), inputs=(A,), at="a = 3")


def check_sub(Value):
    """Exercise: `__sub__`, by composition (a + (−b)) or with its own `_backward`."""
    return run_checks("Exercise: a − b", [subtraction], Value)


@check("a ** n agrees with a central difference of its own values")
def pow_against_central_difference(Value):
    h = 1e-6
    for n in (2, 3, -1, 0.5, 1.5):
        for x in (0.7, 2.0):
            a = Value(x)
            out = a**n
            _expect_value(out, f"a ** {n}")
            backprop_by_hand(out)
            slope = ((Value(x + h) ** n).data - (Value(x - h) ** n).data) / (2 * h)
            expect_close(a.grad, slope, f"at a = {x:g}, `a.grad` after `a ** {n}`", tol=1e-6,
                         hint=f"that is the central difference of your own a ** {n}, whose "
                              f"slope n·a^(n−1) is {n * x ** (n - 1):.6g}")


def check_pow(Value):
    """Exercise: `__pow__` with a number exponent, local derivative n·aⁿ⁻¹."""
    return run_checks("Exercise: a ** n", [pow_number, pow_against_central_difference], Value)


@check("dL/da = 6, dL/db = −4, dL/dc = −2, dL/df = 4")
def hand_gradients(a, b, c, f):
    # L = (a·b + c)·f at a = 2, b = −3, c = 10, f = −2: d = a·b + c = 4, so
    # dL/da = f·b, dL/db = f·a, dL/dc = f, dL/df = d.
    for name, leaf, grad, rule in (("a", a, 6.0, "f·b"), ("b", b, -4.0, "f·a"),
                                   ("c", c, -2.0, "f"), ("f", f, 4.0, "d = a·b + c")):
        if leaf.grad == 0.0:
            fail(f"`{name}.grad` is still 0.0: call `_backward()` of every node above {name}, "
                 "starting from L (with `L.grad = 1.0`)")
        expect_close(leaf.grad, grad, f"`{name}.grad`", hint=f"dL/d{name} = {rule}")


def check_backprop_by_hand(a, b, c, f):
    """Exercise: after backpropagating L = (a·b + c)·f one `_backward` call at a time."""
    return run_checks("Exercise: backpropagate by hand", [hand_gradients], a, b, c, f)


def _not_answered(question, hint):
    """A one-check report for a prediction still left at None: it says what to do, and keeps
    the expected number to itself."""

    @check(question)
    def answered():
        fail(f"no prediction yet: {hint}")

    return run_checks("Your answer", [answered])


def check_diamond_prediction(answer):
    """Exercise: predict dd/da for the diamond d = (a + 1)·(2a) at a = 3 (it is 14)."""
    if answer is None:
        return _not_answered("dd/da for d = (a + 1)·(2a) at a = 3",
                             "replace `None` with the number you expect `a.grad` to hold")
    return check_answer("dd/da for d = (a + 1)·(2a) at a = 3", answer, 14.0,
                        hint="add the two paths: c·1 + b·2 with b = 4, c = 6")
