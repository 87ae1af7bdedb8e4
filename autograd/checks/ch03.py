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

from .toolbox import (
    Exercise, GradientFailed, Prediction, backprop_by_hand, call, check, declare_checkpoint,
    diagnose, expect, expect_children, expect_close, expect_gradients, fail, is_close, is_node,
    is_unwritten, returned, run_checks, show, _text,
)

__all__ = ["checkpoint", "check_mul", "check_sub", "check_pow", "check_backprop_by_hand",
           "check_diamond_prediction"]

# Every expected value below is worked by hand at a = 3, b = −2 (and c = 0.5).
A, B, C = 3.0, -2.0, 0.5
AT = "a = 3, b = −2"
LN2, LN3 = math.log(2.0), math.log(3.0)


def _expect_value(out, expression):
    """Fail, saying why, when an operator gave back something that is not a node (None from
    a method without `return`, most often) instead of letting the next line crash."""
    returned(out, none=f"`{expression}` gave None, not a Value: the method has no `return` (or "
                       "a path through it that misses one); it must end with `return out`",
             kind=is_node,
             wrong=lambda out: f"`{expression}` gave {show(out)}, a {type(out).__name__}, not a "
                               "Value: build the result from Values (with their operators, or "
                               "`Value(..., (self,), op)`), so that it remembers its inputs and "
                               "can pass gradient back")


def _compute(function, leaves, expression):
    """`function(*leaves)`, with a clear message when the operator calls itself forever."""
    return call(function, *leaves, raised=lambda error: (
        f"`{expression}` never finished: the method calls itself (for instance `self - other` "
        "inside `__sub__` runs `__sub__` again, and again...). Build it from operators you "
        "already have instead") if isinstance(error, RecursionError) else None)


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
    meaning = diagnose(out.data, wrong_values, right=value)
    if meaning is not None:
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
        except Exception:  # any failure of the primitive is the answer
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
    _expect_pow_reads_the_base(Value)
    for n, x, value, grad in ((2, A, 9.0, 6.0), (3, A, 27.0, 27.0), (-1, A, 1 / 3, -1 / 9),
                              (0.5, A, math.sqrt(3.0), 0.5 / math.sqrt(3.0)),
                              (3, B, -8.0, 12.0)):
        _expect_case(Value, f"a ** {n}", lambda a, n=n: a**n, value, (grad,),
                     (f"n·a^(n−1) = {n}·{x:g}^{n - 1:g}",), inputs=(x,), at=f"a = {x:g}",
                     wrong_rules=[_wrong_pow_rules(n, x)])


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
        fail(f"with a = 2 and `out.grad` = {SEED:g}, one call of `out._backward()` (out = a ** 3) "
             f"gave `a.grad` = {_number(a.grad)}, where it should be n·a^(n−1)·out.grad = "
             f"{SEED * 12:g}: the closure raises `out.data` (aⁿ, the result) to the power n − 1 "
             "where it needs `self.data` (a, the base). The exponent does drop by one; "
             "write `n * self.data ** (n - 1) * out.grad`")


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


@declare_checkpoint(3, "Chapter 3 checkpoint: operators with local backward hooks", CHECKPOINT)
def checkpoint(Value):
    """Chapter 3's specification, run on the learner's Value class (no `backward()` needed)."""
# --------------------------------------------------------------------- exercises


def _method(name):
    """The learner's own function for method `name`, as the class holds it (None if absent)."""
    return lambda Value: vars(Value).get(name)


SEED = 2.5  # the upstream gradient the closure checks send back: not 1


def _number(x):
    return f"{x:g}" if is_close(x, x) else show(x)


def _leaf_closure_code(Value):
    """The code of a fresh leaf's `_backward` (the one that does nothing), to recognise a node
    whose own closure was never attached."""
    return getattr(getattr(Value(0.0), "_backward", None), "__code__", None)


def _mul_closure_once(Value, preset):
    """Build a * b from fresh leaves whose `.grad` already holds `preset`, set
    out.grad = SEED and call `out._backward()` once: (a.grad, b.grad, out)."""
    a, b = Value(A), Value(B)
    out = a * b
    a.grad = b.grad = preset
    out.grad = SEED
    out._backward()
    return a.grad, b.grad, out


def _expect_mul_closure(Value):
    """One call of `(a * b)._backward()`, on its own: name the mistakes that the usual check
    (every input used twice, `expect_gradients`) would see only as wrong numbers, or would
    blame on a closure that is not attached: the factors swapped, a line missing, a gradient
    (`.grad`) read where a value (`.data`) belongs."""
    try:
        got_a, got_b, out = _mul_closure_once(Value, 0.0)
    except TypeError as error:
        if "Value" not in _text(error):
            raise
        fail(f"one call of `out._backward()` (out = a * b) raised TypeError ({_text(error)}): "
             f"{_NUMBERS_NOT_VALUES}")
    for name, got in (("a", got_a), ("b", got_b)):
        if is_node(got):
            fail(f"after one call of `out._backward()` (out = a * b), `{name}.grad` is "
                 f"{show(got)}, a Value, not a number: {_NUMBERS_NOT_VALUES}")
    want_a, want_b = SEED * B, SEED * A
    if is_close(got_a, want_a) and is_close(got_b, want_b):
        return
    said = (f"with a = 3, b = −2 and `out.grad` = {SEED:g}, one call of `out._backward()` "
            f"(out = a * b) gave `a.grad` = {_number(got_a)} and `b.grad` = {_number(got_b)}, "
            f"where they should be b·out.grad = {want_a:g} and a·out.grad = {want_b:g}")
    value = A * B  # out.data
    lines = [line for line, got, local in (("a's", got_a, B), ("b's", got_b, A))
             if is_close(got, local * value) and not is_close(got, local * SEED)]
    if lines:
        which = " and ".join(lines) + (" lines multiply" if len(lines) == 2 else " line multiplies")
        fail(f"{said}: {which} by `out.data`, the value of a·b, where it needs `out.grad`, the "
             "gradient arriving from above. The local derivative is right; write "
             "`* out.grad` after it")
    # Again with gradients already in a and b: a line that uses `+=` adds the same amount
    # whatever a.grad held, a line that uses `=` leaves the same result; a line that reads a
    # gradient instead of a value does neither.
    again_a, again_b, _ = _mul_closure_once(Value, 1.0)
    for first, second in ((got_a, again_a), (got_b, again_b)):
        if not (is_close(first, first) and is_close(second, second)):
            break  # not numbers at all: the check that uses every input twice says so
        if not (is_close(first, second) or is_close(first + 1.0, second)):
            fail(f"{said}. The closure reads a gradient (`.grad`) where it needs a value "
                 "(`.data`): the local derivative of a·b with respect to a is b's value, "
                 "`other.data`, not b's gradient")
    if is_close(got_a, SEED * A) and is_close(got_b, SEED * B):
        fail(f"{said}: the other way round, so `self.data` and `other.data` are swapped. The "
             "local derivative with respect to one factor is the *other* factor, "
             "∂(a·b)/∂a = b: a's line multiplies `out.grad` by `other.data`, and b's line by "
             "`self.data`")
    if got_a == 0.0 and got_b == 0.0:
        if getattr(out._backward, "__code__", None) is _leaf_closure_code(Value):
            fail(f"{said}: the closure passed nothing back, because it is never attached to the "
                 "node: keep the line `out._backward = _backward` before `return out`")
        fail(f"{said}: the closure runs but adds nothing to `self.grad` or `other.grad`. Write "
             "its two lines: each input's `.grad` grows by `out.grad` times its local "
             "derivative")
    if got_b == 0.0 and got_a != 0.0:
        fail(f"{said}: the closure passes gradient to a only. Add the second line, for "
             "`other`: its local derivative is the other factor, a (`self.data`)")
    if got_a == 0.0 and got_b != 0.0:
        fail(f"{said}: the closure passes gradient to b only. Add the line for `self`: its "
             "local derivative is the other factor, b (`other.data`)")
    # Anything else (a missing `* out.grad`, another local derivative): the check that uses
    # every input twice says which.


_NUMBERS_NOT_VALUES = ("the closure multiplies by a Value (`other` or `self`) where it needs "
                       "the number inside it: gradients are plain numbers, so a's line is "
                       "`self.grad += other.data * out.grad` and b's line "
                       "`other.grad += self.data * out.grad`")

# The local derivatives of a * b that learners really write instead of b (for a) and a (for b).
_MUL_WRONG = [[("a, its own value: `self.data` and `other.data` are swapped, and "
                "∂(a·b)/∂a is the other factor, b", A),
               ("1, the local derivative of a sum; for a product it is the other factor, b",
                1.0)],
              [("b, its own value: `self.data` and `other.data` are swapped, and "
                "∂(a·b)/∂b is the other factor, a", B),
               ("1, the local derivative of a sum; for a product it is the other factor, a",
                1.0)]]


@check(f"a * b: its value and inputs, and the gradients its closure passes back (with an "
       f"upstream gradient of {SEED:g}, and each input used twice)")
def multiplication(Value):
    a, b = Value(A), Value(B)
    out = _compute(lambda a, b: a * b, (a, b), "a * b")
    _expect_value(out, "a * b")
    expect_close(out.data, -6.0, f"`(a * b).data` with {AT}")
    expect_children(out, (a, b), {id(a): "a", id(b): "b"}, "(a * b)")
    expect(out._op == "*", f"`(a * b)._op` should be '*', but was {show(out._op)}")
    _expect_mul_closure(Value)
    _expect_case(Value, "a * b", lambda a, b: a * b, -6.0, (-2.0, 3.0), ("b", "a"),
                 wrong_rules=_MUL_WRONG)


@check("a * 2: a plain number on the right becomes a Value first")
def multiplication_by_a_number(Value):
    try:
        multiplication(Value)
    except Exception:  # the check above shows what went wrong
        fail("not checked yet: `a * b` must be right first (see the check above)")
    try:
        _expect_case(Value, "a * 2", lambda a: a * 2, 6.0, (2.0,), ("2",), inputs=(A,),
                     at="a = 3")
    except AttributeError as error:
        fail(f"`a * 2` raised AttributeError ({_text(error)}): a plain number has no `.data`. "
             "Wrap it in a Value first, as the first line of `__add__` does")


MUL = Exercise(3, "a * b", [multiplication, multiplication_by_a_number],
               what="your `__mul__`", answer_of=_method("__mul__"), unanswered=is_unwritten,
               todo="replace `...` with the two lines of `_backward`, run the cell, then this "
                    "check again")


def check_mul(Value):
    """Exercise: the closure of `__mul__`, which passes b·out.grad to a and a·out.grad to b."""
    return MUL.check(Value)


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


def _graph_ids(out):
    """The ids of every node in `out`'s graph, `out` included."""
    seen, stack = set(), [out]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(getattr(node, "_prev", ()))
    return seen


_FROM_VALUES = ("build it from `+` and unary `-` applied to the Values `self` and `other` "
                "themselves, not to their `.data`, so that the closures of those operators carry "
                "the gradient back: `__sub__` needs no closure of its own")


def _expect_built_from_values(Value):
    """Fail, naming the cause, when `a - b` was computed from the numbers inside a and b
    (`.data`) and so cannot remember them (a plain number, or a new Value with no inputs), or
    is a node of its own whose closure was never attached. Its gradients would be wrong too,
    but the numbers alone (a.grad = 2.5, the upstream gradient once) read as `=` for `+=` or
    as "did you attach `_backward`?": for a method built from `.data` that points at a closure
    this exercise does not need, and for a node with inputs it hides the missing closure."""
    a, b = Value(A), Value(B)
    out = _compute(lambda a, b: a - b, (a, b), "a - b")
    if out is None:
        return  # `_expect_case` says that the method has no `return`
    if not is_node(out):
        fail(f"`a - b` gave {show(out)}, a {type(out).__name__}, not a Value: subtracting the "
             "numbers inside (`.data`) gives a plain number, which cannot remember a and b, so "
             f"no gradient can reach them. Instead, {_FROM_VALUES}")
    nodes = _graph_ids(out)
    if id(a) not in nodes and id(b) not in nodes:
        fail(f"`a - b` gave a new Value made from the numbers inside a and b (`.data`), with no "
             "inputs of its own: it does not remember a and b, so no gradient can reach them. "
             f"Instead, {_FROM_VALUES}")
    for name, leaf, method in (("b", b, "other"), ("a", a, "self")):
        if id(leaf) not in nodes:
            fail(f"`a - b` does not remember {name}: {name} is not in its graph, so no "
                 f"gradient can reach it. `{method}.data` is a plain number, which forgets "
                 f"the Value it came from (`-{method}.data` is just the number "
                 f"{-leaf.data:g}). Apply `-` to the Value itself: `self + (-other)`")
    if getattr(out._backward, "__code__", None) is _leaf_closure_code(Value):
        fail("`a - b` is a node of its own with inputs, but no closure was ever attached to it, "
             "so it passes no gradient back. "
             f"Either {_FROM_VALUES}, or attach a closure with `out._backward = _backward`")


@check("a − b and a − 1: values and gradients")
def subtraction(Value):
    _expect_built_from_values(Value)
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
