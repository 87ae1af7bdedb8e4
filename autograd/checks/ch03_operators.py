"""Chapter 3 · the checkpoint's checks: every operator on numbers and Values, its children, its
local gradients and its errors (see `ch03`).
"""

import math

from .toolbox import (
    GradientFailed,
    backprop_by_hand,
    call,
    check,
    diagnose,
    expect,
    expect_children,
    expect_close,
    expect_gradients,
    fail,
    is_close,
    is_node,
    returned,
    show,
    _text,
)


# Every expected value below is worked by hand at a = 3, b = −2 (and c = 0.5).
A, B, C = 3.0, -2.0, 0.5
AT = "a = 3, b = −2"
LN2, LN3 = math.log(2.0), math.log(3.0)
SEED = 2.5  # the upstream gradient the closure checks send back: not 1


def _number(x):
    return f"{x:g}" if is_close(x, x) else show(x)


def _expect_value(out, expression):
    """Fail, saying why, when an operator gave back something that is not a node (None from
    a method without `return`, most often) instead of letting the next line crash."""
    returned(
        out,
        none=f"`{expression}` gave None, not a Value: the method has no `return` (or "
        "a path through it that misses one); it must end with `return out`",
        kind=is_node,
        wrong=lambda out: (
            f"`{expression}` gave {show(out)}, a {type(out).__name__}, not a "
            "Value: build the result from Values (with their operators, or "
            "`Value(..., (self,), op)`), so that it remembers its inputs and "
            "can pass gradient back"
        ),
    )


def _compute(function, leaves, expression):
    """`function(*leaves)`, with a clear message when the operator calls itself forever."""
    return call(
        function,
        *leaves,
        raised=lambda error: (
            (
                f"`{expression}` never finished: the method calls itself (for instance `self - other` "
                "inside `__sub__` runs `__sub__` again, and again...). Build it from operators you "
                "already have instead"
            )
            if isinstance(error, RecursionError)
            else None
        ),
    )


def _expect_case(
    Value,
    expression,
    function,
    value,
    grads,
    rules,
    inputs=(A, B),
    at=AT,
    wrong_rules=None,
    wrong_values=(),
):
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
    meaning = diagnose(out.data, wrong_values, right=value)
    if meaning is not None:
        fail(
            f"`({expression}).data` with {at} should be {value:g} but was {out.data:g}: "
            f"that is {meaning}"
        )
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
        except Exception:  # any failure of the primitive is the answer
            return (
                f"`{expression}` is built on `{method}` (its graph has a `{op}` node), and "
                f"`{method}` gives wrong gradients on its own: fix `{method}` first."
            )
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
    _expect_pow_reads_the_base(Value)
    for n, x, value, grad in (
        (2, A, 9.0, 6.0),
        (3, A, 27.0, 27.0),
        (-1, A, 1 / 3, -1 / 9),
        (0.5, A, math.sqrt(3.0), 0.5 / math.sqrt(3.0)),
        (3, B, -8.0, 12.0),
    ):
        _expect_case(
            Value,
            f"a ** {n}",
            lambda a, n=n: a**n,
            value,
            (grad,),
            (f"n·a^(n−1) = {n}·{x:g}^{n - 1:g}",),
            inputs=(x,),
            at=f"a = {x:g}",
            wrong_rules=[_wrong_pow_rules(n, x)],
        )


def _expect_pow_reads_the_base(Value):
    """a ** 3 at a = 2, one call of its closure: name a local derivative computed from the
    result (`out.data`, aⁿ) instead of the base (`self.data`, a). At n = 2 that slip gives the
    same numbers as n·aⁿ, so the cases below would name the wrong one."""
    a = Value(2.0)
    out = a**3
    if not is_node(out) or not callable(getattr(out, "_backward", None)):
        return  # the cases below say what is wrong
    out.grad = SEED
    try:
        out._backward()
    except Exception:  # the cases below say what raised
        return
    if is_close(a.grad, SEED * 3 * (2.0**3) ** 2):
        fail(
            f"with a = 2 and `out.grad` = {SEED:g}, one call of `out._backward()` (out = a ** 3) "
            f"gave `a.grad` = {_number(a.grad)}, where it should be n·a^(n−1)·out.grad = "
            f"{SEED * 12:g}: the closure raises `out.data` (aⁿ, the result) to the power n − 1 "
            "where it needs `self.data` (a, the base). The exponent does drop by one; "
            "write `n * self.data ** (n - 1) * out.grad`"
        )


def _wrong_pow_rules(n, x):
    """The local derivatives of a ** n that learners really write instead of n·a^(n−1)."""
    rules = [
        ("n·aⁿ (the exponent should drop by one)", n * x**n),
        ("a^(n−1) (the factor n is missing)", x ** (n - 1)),
        ("(n−1)·a^(n−1)", (n - 1) * x ** (n - 1)),
        ("n·a (that is the rule for a² only)", n * x),
    ]
    if n != 0:
        rules.append(("aⁿ (the value, not its slope)", x**n))
    return rules


@check("a ** b with a Value exponent: value and gradients")
def pow_value(Value):
    _expect_case(
        Value, "a ** b", lambda a, b: a**b, 1 / 9, (-2 / 27, LN3 / 9), ("b·a^(b−1)", "a^b·ln a")
    )


@check("a plain number on the right: a + 1, a * 2, a − 1, a / 2")
def number_on_the_right(Value):
    for expression, function, value, grad in (
        ("a + 1", lambda a: a + 1, 4.0, 1.0),
        ("a * 2", lambda a: a * 2, 6.0, 2.0),
        ("a - 1", lambda a: a - 1, 2.0, 1.0),
        ("a / 2", lambda a: a / 2, 1.5, 0.5),
    ):
        _expect_case(
            Value, expression, function, value, (grad,), (f"{grad:g}",), inputs=(A,), at="a = 3"
        )


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
            _expect_case(
                Value,
                expression,
                function,
                value,
                (grad,),
                (f"{grad:.6g}",),
                inputs=(A,),
                at="a = 3",
            )
        except TypeError as error:
            fail(
                f"`{expression}` raised TypeError ({_text(error)}): a number does not know how to "
                f"combine with a Value, so Python asks the Value, calling `a.{method}(number)`; "
                f"define `{method}`"
            )


@check("sum([a, b, c]) works (sum starts from 0, so it needs __radd__)")
def builtin_sum(Value):
    try:
        _expect_case(
            Value,
            "sum([a, b, c])",
            lambda a, b, c: sum([a, b, c]),
            1.5,
            (1.0, 1.0, 1.0),
            ("1", "1", "1"),
            inputs=(A, B, C),
            at="a = 3, b = −2, c = 0.5",
        )
    except TypeError as error:
        fail(
            f"`sum([a, b, c])` raised TypeError ({_text(error)}): `sum` starts from the number 0, "
            "so its first step is `0 + a`, which calls `a.__radd__(0)`; define `__radd__`"
        )


@check("a value used twice collects gradient from both uses: x + x and x * x")
def reuse_accumulates(Value):
    x = Value(3.0)
    backprop_by_hand(x + x)
    if x.grad == 1.0:
        fail(
            "after `y = x + x`, `x.grad` should be 2.0 (one for each use of x) but was 1.0: "
            "did `_backward` use `=` instead of `+=`?"
        )
    expect_close(x.grad, 2.0, "after `y = x + x`, `x.grad`", hint="one for each use of x")
    x = Value(3.0)
    backprop_by_hand(x * x)
    if x.grad == 3.0:
        fail(
            "after `y = x * x` with x = 3, `x.grad` should be 6.0 (3 from each use of x) but "
            "was 3.0: did `_backward` use `=` instead of `+=`?"
        )
    expect_close(
        x.grad,
        6.0,
        "after `y = x * x` with x = 3, `x.grad`",
        hint="the slope of x² is 2x: 3 from each use of x",
    )


@check("the diamond d = (a + 1)·(2a) gives dd/da = 14 at a = 3")
def diamond(Value):
    a = Value(3.0)
    b, c = a + 1, a * 2
    d = b * c
    backprop_by_hand(d)
    expect_close(
        a.grad,
        14.0,
        "`a.grad`",
        hint="a feeds both b and c, so it gets the sum over both paths: "
        "∂d/∂b·∂b/∂a + ∂d/∂c·∂c/∂a = c·1 + b·2 = 6 + 8",
    )


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
            fail(
                f"`{expression}` should raise TypeError, but raised "
                f"{type(error).__name__}: {_text(error)}"
            )
        fail(f"`{expression}` should raise TypeError, but gave {show(result)}")
