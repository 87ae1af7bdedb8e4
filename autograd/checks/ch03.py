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
    GradientFailed, _text, backprop_by_hand, check, expect, expect_children, expect_close,
    expect_gradients, fail, is_close, run_checks, show,
)
from .exercise import Exercise, Prediction, is_unwritten

__all__ = ["checkpoint", "check_sub", "check_pow", "check_backprop_by_hand",
           "check_diamond_prediction"]

# Every expected value below is worked by hand at a = 3, b = −2 (and c = 0.5).
A, B, C = 3.0, -2.0, 0.5
AT = "a = 3, b = −2"
LN2, LN3 = math.log(2.0), math.log(3.0)


def _expect_value(out, expression):
    """Fail, saying why, when an operator gave back something that is not a node (None from
    a method without `return`, most often) instead of letting the next line crash."""
    if out is None:
        fail(f"`{expression}` gave None, not a Value: the method has no `return` (or a path "
             "through it that misses one); it must end with `return out`")
    if not all(hasattr(out, name) for name in ("data", "grad", "_prev", "_backward")):
        fail(f"`{expression}` gave {show(out)}, a {type(out).__name__}, not a Value: build the "
             "result from Values (with their operators, or `Value(..., (self,), op)`), so that "
             "it remembers its inputs and can pass gradient back")


def _compute(function, leaves, expression):
    """`function(*leaves)`, with a clear message when the operator calls itself forever."""
    try:
        return function(*leaves)
    except RecursionError:
        fail(f"`{expression}` never finished: the method calls itself (for instance `self - "
             "other` inside `__sub__` runs `__sub__` again, and again...). Build it from "
             "operators you already have instead")


def _expect_case(Value, expression, function, value, grads, rules, inputs=(A, B), at=AT,
                 wrong_rules=None, wrong_values=()):
    """Build `function` of fresh leaves, compare its value, then its gradients: every leaf is
    used twice and the upstream gradient is not 1 (`expect_gradients`), so `=` for `+=` and a
    missing `* out.grad` cannot pass.

    `grads` and `rules` (the local derivative, in words) are given for the leaves in order.
    When the result is built from other operators (a / b is a * b ** -1), a failure also
    names the operator underneath that is at fault.
    """
    leaves = [Value(x) for x in inputs]
    out = _compute(function, leaves, expression)
    _expect_value(out, expression)
    for wrong, meaning in wrong_values:
        if is_close(out.data, wrong) and not is_close(wrong, value):
            fail(f"`({expression}).data` with {at} should be {value:g} but was {out.data:g}: "
                 f"that is {meaning}")
    expect_close(out.data, value, f"`({expression}).data` with {at}")
    try:
        expect_gradients(leaves, out, grads, expression, rules=rules, wrong_rules=wrong_rules)
    except GradientFailed as failure:
        culprit = _culprit(Value, out, expression)
        if culprit:  # the composed expression's own diagnosis would blame the wrong code
            fail(f"{culprit} (Through it, {failure.numbers}.)")
        raise


# The primitives an expression can be built from: the op a node shows, the method behind it,
# and a case that tests that method alone.
PRIMITIVES = [
    ("+", "__add__", lambda a, b: a + b, (1.0, 1.0)),
    ("*", "__mul__", lambda a, b: a * b, (-2.0, 3.0)),
    ("**", "__pow__", lambda a, b: a**2, (6.0, 0.0)),
]


def _culprit(Value, out, expression):
    """If `out`'s graph is built from a primitive that fails on its own, say which one."""
    ops = set()
    stack, seen = [out], set()
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            ops.add(str(getattr(node, "_op", "")))
            stack.extend(getattr(node, "_prev", ()))
    for op, method, function, grads in PRIMITIVES:
        if not any(o == op or (op == "**" and o.startswith("**")) for o in ops):
            continue
        own = str(getattr(out, "_op", ""))
        if own == op or (op == "**" and own.startswith("**")):
            continue  # the expression is this primitive itself: nothing underneath to blame
        a, b = Value(A), Value(B)
        try:
            base = function(a, b)
            expect_gradients([a, b], base, grads, "probe")
        except Exception:  # noqa: BLE001  (any failure of the primitive is the answer)
            return (f"`{expression}` is built on `{method}` (its graph has a `{op}` node), and "
                    f"`{method}` gives wrong gradients on its own: fix `{method}` first.")
    return ""


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
    for n, x, value, grad in ((2, A, 9.0, 6.0), (3, A, 27.0, 27.0), (-1, A, 1 / 3, -1 / 9),
                              (0.5, A, math.sqrt(3.0), 0.5 / math.sqrt(3.0)),
                              (3, B, -8.0, 12.0)):
        _expect_case(Value, f"a ** {n}", lambda a, n=n: a**n, value, (grad,),
                     (f"n·a^(n−1) = {n}·{x:g}^{n - 1:g}",), inputs=(x,), at=f"a = {x:g}",
                     wrong_rules=[_wrong_pow_rules(n, x)])


def _wrong_pow_rules(n, x):
    """The local derivatives of a ** n that learners really write instead of n·a^(n−1)."""
    rules = [("n·aⁿ (the exponent should drop by one)", n * x**n),
             ("a^(n−1) (the factor n is missing)", x ** (n - 1)),
             ("(n−1)·a^(n−1)", (n - 1) * x ** (n - 1)),
             ("n·a (that is the rule for a² only)", n * x)]
    if n != 0:
        rules.append(("aⁿ (the value, not its slope)", x**n))
    return rules


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
            fail(f"`{expression}` raised TypeError ({_text(error)}): a number does not know how to "
                 f"combine with a Value, so Python asks the Value, calling `a.{method}(number)`; "
                 f"define `{method}`")


@check("sum([a, b, c]) works (sum starts from 0, so it needs __radd__)")
def builtin_sum(Value):
    try:
        _expect_case(Value, "sum([a, b, c])", lambda a, b, c: sum([a, b, c]), 1.5,
                     (1.0, 1.0, 1.0), ("1", "1", "1"), inputs=(A, B, C),
                     at="a = 3, b = −2, c = 0.5")
    except TypeError as error:
        fail(f"`sum([a, b, c])` raised TypeError ({_text(error)}): `sum` starts from the number 0, "
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
    expect((a + b)._op == "+", f"`(a + b)._op` should be '+', but was {show((a + b)._op)}")
    expect((a * b)._op == "*", f"`(a * b)._op` should be '*', but was {show((a * b)._op)}")


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
                 f"{type(error).__name__}: {_text(error)}")
        fail(f"`{expression}` should raise TypeError, but gave {show(result)}")


CHECKPOINT = [
    add_and_mul, sub_and_neg, truediv, pow_number, pow_value, number_on_the_right,
    number_on_the_left, builtin_sum, reuse_accumulates, diamond, children_in_order, bad_operand,
]


def checkpoint(Value):
    """Chapter 3's specification, run on the learner's Value class (no `backward()` needed)."""
    return run_checks("Chapter 3 checkpoint: operators with local backward hooks", CHECKPOINT,
                      Value, chapter=3)


# --------------------------------------------------------------------- exercises


def _method(name):
    """The learner's own function for method `name`, as the class holds it (None if absent)."""
    return lambda Value: vars(Value).get(name)


@check("a − b and a − 1: values and gradients")
def subtraction(Value):
    _expect_case(Value, "a - b", lambda a, b: a - b, 5.0, (1.0, -1.0), ("1", "−1"),
                 wrong_values=[(1.0, "a + b: b was added, not subtracted"),
                               (-5.0, "b − a: the operands are the wrong way round")],
                 wrong_rules=[[], [("+1: the minus sign of ∂(a − b)/∂b = −1 is lost", 1.0)]])
    _expect_case(Value, "a - 1", lambda a: a - 1, 2.0, (1.0,), ("1",), inputs=(A,), at="a = 3")


SUB = Exercise(3, "a − b", [subtraction], what="your `__sub__`", answer_of=_method("__sub__"),
               unanswered=is_unwritten,
               todo="replace `...` with one line built from `+` and unary `-`, run the cell, "
                    "then this check again")


def check_sub(Value):
    """Exercise: `__sub__`, by composition (a + (−b)) or with its own `_backward`."""
    return SUB.check(Value)


@check("a ** n agrees with a central difference of its own values")
def pow_against_central_difference(Value):
    h = 1e-6
    for n in (2, 3, -1, 0.5, 1.5):
        for x in (0.7, 2.0):
            a = Value(x)
            out = a**n
            _expect_value(out, f"a ** {n}")
            backprop_by_hand(out, 2.5)
            slope = ((Value(x + h) ** n).data - (Value(x - h) ** n).data) / (2 * h)
            expect_close(a.grad, 2.5 * slope,
                         f"at a = {x:g}, with an upstream gradient of 2.5, `a.grad` after "
                         f"`a ** {n}`", tol=1e-6,
                         hint=f"that is 2.5 times the central difference of your own a ** {n}, "
                              f"whose slope n·a^(n−1) is {n * x ** (n - 1):.6g}")


@check("a ** n: the new node's input and op")
def pow_node(Value):
    a = Value(A)
    out = a**3
    _expect_value(out, "a ** 3")
    expect_children(out, (a,), {id(a): "a"}, "(a ** 3)")
    expect(out._op == "**3", f"`(a ** 3)._op` should be '**3' (as `f\"**{{n}}\"` writes it), "
                             f"but was {show(out._op)}")


POW = Exercise(3, "a ** n", [pow_number, pow_node, pow_against_central_difference],
               what="your `__pow__`", answer_of=_method("__pow__"), unanswered=is_unwritten,
               todo="replace `...` with the new node, its `_backward` and `return out`, run "
                    "the cell, then this check again")


def check_pow(Value):
    """Exercise: `__pow__` with a number exponent, local derivative n·aⁿ⁻¹."""
    return POW.check(Value)


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
    """After backpropagating L = (a·b + c)·f one `_backward` call at a time."""
    return run_checks("Backpropagated by hand", [hand_gradients], a, b, c, f)


DIAMOND = Prediction(
    3, "predict the diamond", "∂d/∂a for d = (a + 1)·(2a) at a = 3", 14.0,
    hint="work out b = a + 1 and c = 2a at a = 3, then each path's product "
         "(∂d/∂b·∂b/∂a, and ∂d/∂c·∂c/∂a), and add the two.",
    explain="b = 4 and c = 6; the path through b gives c·1 = 6, the path through c gives "
            "b·2 = 8, and a value used twice collects both: 6 + 8.",
    known_wrong=[
        (6.0, "that is the path through b alone; a also reaches d through c, and the "
              "gradients of both paths add up."),
        (8.0, "that is the path through c alone; a also reaches d through b, and the "
              "gradients of both paths add up."),
        (48.0, "that multiplies the two paths; a value used twice adds what each path "
               "brings."),
        (24.0, "that is d itself, b·c, not its slope."),
    ],
)


def check_diamond_prediction(answer):
    """Exercise: predict dd/da for the diamond d = (a + 1)·(2a) at a = 3 (it is 14)."""
    return DIAMOND.check(answer)
