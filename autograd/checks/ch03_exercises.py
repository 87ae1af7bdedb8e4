"""Chapter 3 · the exercises: `__mul__`'s closure, the diamond predicted, `__sub__`, `__pow__`, and
gradients worked out by hand, checked in the chapter's order (see `ch03`).
"""

from .toolbox import (
    Exercise,
    Prediction,
    backprop_by_hand,
    check,
    expect,
    expect_children,
    expect_close,
    fail,
    is_close,
    is_node,
    is_unwritten,
    run_checks,
    show,
    _text,
)
from .ch03_operators import (
    A,
    B,
    AT,
    _expect_value,
    _compute,
    _expect_case,
    pow_number,
    SEED,
    _number,
)


def _method(name):
    """The learner's own function for method `name`, as the class holds it (None if absent)."""
    return lambda Value: vars(Value).get(name)


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
        fail(
            f"one call of `out._backward()` (out = a * b) raised TypeError ({_text(error)}): "
            f"{_NUMBERS_NOT_VALUES}"
        )
    for name, got in (("a", got_a), ("b", got_b)):
        if is_node(got):
            fail(
                f"after one call of `out._backward()` (out = a * b), `{name}.grad` is "
                f"{show(got)}, a Value, not a number: {_NUMBERS_NOT_VALUES}"
            )
    want_a, want_b = SEED * B, SEED * A
    if is_close(got_a, want_a) and is_close(got_b, want_b):
        return
    said = (
        f"with a = 3, b = −2 and `out.grad` = {SEED:g}, one call of `out._backward()` "
        f"(out = a * b) gave `a.grad` = {_number(got_a)} and `b.grad` = {_number(got_b)}, "
        f"where they should be b·out.grad = {want_a:g} and a·out.grad = {want_b:g}"
    )
    value = A * B  # out.data
    lines = [
        line
        for line, got, local in (("a's", got_a, B), ("b's", got_b, A))
        if is_close(got, local * value) and not is_close(got, local * SEED)
    ]
    if lines:
        which = " and ".join(lines) + (" lines multiply" if len(lines) == 2 else " line multiplies")
        fail(
            f"{said}: {which} by `out.data`, the value of a·b, where it needs `out.grad`, the "
            "gradient arriving from above. The local derivative is right; write "
            "`* out.grad` after it"
        )
    # Again with gradients already in a and b: a line that uses `+=` adds the same amount
    # whatever a.grad held, a line that uses `=` leaves the same result; a line that reads a
    # gradient instead of a value does neither.
    again_a, again_b, _ = _mul_closure_once(Value, 1.0)
    for first, second in ((got_a, again_a), (got_b, again_b)):
        if not (is_close(first, first) and is_close(second, second)):
            break  # not numbers at all: the check that uses every input twice says so
        if not (is_close(first, second) or is_close(first + 1.0, second)):
            fail(
                f"{said}. The closure reads a gradient (`.grad`) where it needs a value "
                "(`.data`): the local derivative of a·b with respect to a is b's value, "
                "`other.data`, not b's gradient"
            )
    if is_close(got_a, SEED * A) and is_close(got_b, SEED * B):
        fail(
            f"{said}: the other way round, so `self.data` and `other.data` are swapped. The "
            "local derivative with respect to one factor is the *other* factor, "
            "∂(a·b)/∂a = b: a's line multiplies `out.grad` by `other.data`, and b's line by "
            "`self.data`"
        )
    if got_a == 0.0 and got_b == 0.0:
        if getattr(out._backward, "__code__", None) is _leaf_closure_code(Value):
            fail(
                f"{said}: the closure passed nothing back, because it is never attached to the "
                "node: keep the line `out._backward = _backward` before `return out`"
            )
        fail(
            f"{said}: the closure runs but adds nothing to `self.grad` or `other.grad`. Write "
            "its two lines: each input's `.grad` grows by `out.grad` times its local "
            "derivative"
        )
    if got_b == 0.0 and got_a != 0.0:
        fail(
            f"{said}: the closure passes gradient to a only. Add the second line, for "
            "`other`: its local derivative is the other factor, a (`self.data`)"
        )
    if got_a == 0.0 and got_b != 0.0:
        fail(
            f"{said}: the closure passes gradient to b only. Add the line for `self`: its "
            "local derivative is the other factor, b (`other.data`)"
        )
    # Anything else (a missing `* out.grad`, another local derivative): the check that uses
    # every input twice says which.


_NUMBERS_NOT_VALUES = (
    "the closure multiplies by a Value (`other` or `self`) where it needs "
    "the number inside it: gradients are plain numbers, so a's line is "
    "`self.grad += other.data * out.grad` and b's line "
    "`other.grad += self.data * out.grad`"
)

# The local derivatives of a * b that learners really write instead of b (for a) and a (for b).
_MUL_WRONG = [
    [
        (
            "a, its own value: `self.data` and `other.data` are swapped, and "
            "∂(a·b)/∂a is the other factor, b",
            A,
        ),
        ("1, the local derivative of a sum; for a product it is the other factor, b", 1.0),
    ],
    [
        (
            "b, its own value: `self.data` and `other.data` are swapped, and "
            "∂(a·b)/∂b is the other factor, a",
            B,
        ),
        ("1, the local derivative of a sum; for a product it is the other factor, a", 1.0),
    ],
]


@check(
    f"a * b: its value and inputs, and the gradients its closure passes back (with an "
    f"upstream gradient of {SEED:g}, and each input used twice)"
)
def multiplication(Value):
    a, b = Value(A), Value(B)
    out = _compute(lambda a, b: a * b, (a, b), "a * b")
    _expect_value(out, "a * b")
    expect_close(out.data, -6.0, f"`(a * b).data` with {AT}")
    expect_children(out, (a, b), {id(a): "a", id(b): "b"}, "(a * b)")
    expect(out._op == "*", f"`(a * b)._op` should be '*', but was {show(out._op)}")
    _expect_mul_closure(Value)
    _expect_case(
        Value, "a * b", lambda a, b: a * b, -6.0, (-2.0, 3.0), ("b", "a"), wrong_rules=_MUL_WRONG
    )


@check("a * 2: a plain number on the right becomes a Value first")
def multiplication_by_a_number(Value):
    try:
        multiplication(Value)
    except Exception:  # the check above shows what went wrong
        fail("not checked yet: `a * b` must be right first (see the check above)")
    try:
        _expect_case(Value, "a * 2", lambda a: a * 2, 6.0, (2.0,), ("2",), inputs=(A,), at="a = 3")
    except AttributeError as error:
        fail(
            f"`a * 2` raised AttributeError ({_text(error)}): a plain number has no `.data`. "
            "Wrap it in a Value first, as the first line of `__add__` does"
        )


MUL = Exercise(
    3,
    "a * b",
    [multiplication, multiplication_by_a_number],
    what="your `__mul__`",
    answer_of=_method("__mul__"),
    unanswered=is_unwritten,
    todo="replace `...` with the two lines of `_backward`, run the cell, then this check again",
)


def check_mul(Value):
    """Exercise: the closure of `__mul__`, which passes b·out.grad to a and a·out.grad to b."""
    return MUL.check(Value)


DIAMOND = Prediction(
    3,
    "predict the diamond",
    "∂d/∂a for d = (a + 1)·(2a) at a = 3",
    14.0,
    hint="work out b = a + 1 and c = 2a at a = 3, then each path's product "
    "(∂d/∂b·∂b/∂a, and ∂d/∂c·∂c/∂a), and add the two.",
    explain="b = 4 and c = 6; the path through b gives c·1 = 6, the path through c gives "
    "b·2 = 8, and a value used twice collects both: 6 + 8.",
    known_wrong=[
        (
            6.0,
            "that is the path through b alone; a also reaches d through c, and the "
            "gradients of both paths add up.",
        ),
        (
            8.0,
            "that is the path through c alone; a also reaches d through b, and the "
            "gradients of both paths add up.",
        ),
        (48.0, "that multiplies the two paths; a value used twice adds what each path brings."),
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


_FROM_VALUES = (
    "build it from `+` and unary `-` applied to the Values `self` and `other` "
    "themselves, not to their `.data`, so that the closures of those operators carry "
    "the gradient back: `__sub__` needs no closure of its own"
)


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
        fail(
            f"`a - b` gave {show(out)}, a {type(out).__name__}, not a Value: subtracting the "
            "numbers inside (`.data`) gives a plain number, which cannot remember a and b, so "
            f"no gradient can reach them. Instead, {_FROM_VALUES}"
        )
    nodes = _graph_ids(out)
    if id(a) not in nodes and id(b) not in nodes:
        fail(
            f"`a - b` gave a new Value made from the numbers inside a and b (`.data`), with no "
            "inputs of its own: it does not remember a and b, so no gradient can reach them. "
            f"Instead, {_FROM_VALUES}"
        )
    for name, leaf, method in (("b", b, "other"), ("a", a, "self")):
        if id(leaf) not in nodes:
            fail(
                f"`a - b` does not remember {name}: {name} is not in its graph, so no "
                f"gradient can reach it. `{method}.data` is a plain number, which forgets "
                f"the Value it came from (`-{method}.data` is just the number "
                f"{-leaf.data:g}). Apply `-` to the Value itself: `self + (-other)`"
            )
    if getattr(out._backward, "__code__", None) is _leaf_closure_code(Value):
        fail(
            "`a - b` is a node of its own with inputs, but no closure was ever attached to it, "
            "so it passes no gradient back. "
            f"Either {_FROM_VALUES}, or attach a closure with `out._backward = _backward`"
        )


@check("a − b and a − 1: values and gradients")
def subtraction(Value):
    _expect_built_from_values(Value)
    _expect_case(
        Value,
        "a - b",
        lambda a, b: a - b,
        5.0,
        (1.0, -1.0),
        ("1", "−1"),
        wrong_values=[
            (1.0, "a + b: b was added, not subtracted"),
            (-5.0, "b − a: the operands are the wrong way round"),
        ],
        wrong_rules=[[], [("+1: the minus sign of ∂(a − b)/∂b = −1 is lost", 1.0)]],
    )
    _expect_case(Value, "a - 1", lambda a: a - 1, 2.0, (1.0,), ("1",), inputs=(A,), at="a = 3")


SUB = Exercise(
    3,
    "a − b",
    [subtraction],
    what="your `__sub__`",
    answer_of=_method("__sub__"),
    unanswered=is_unwritten,
    todo="replace `...` with one line built from `+` and unary `-`, run the cell, "
    "then this check again",
)


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
            expect_close(
                a.grad,
                2.5 * slope,
                f"at a = {x:g}, with an upstream gradient of 2.5, `a.grad` after `a ** {n}`",
                tol=1e-6,
                hint=f"that is 2.5 times the central difference of your own a ** {n}, "
                f"whose slope n·a^(n−1) is {n * x ** (n - 1):.6g}",
            )


@check("a ** n: the new node's input and op")
def pow_node(Value):
    a = Value(A)
    out = a**3
    _expect_value(out, "a ** 3")
    expect_children(out, (a,), {id(a): "a"}, "(a ** 3)")
    expect(
        out._op == "**3",
        f"`(a ** 3)._op` should be '**3' (as `f\"**{{n}}\"` writes it), but was {show(out._op)}",
    )


POW = Exercise(
    3,
    "a ** n",
    [pow_number, pow_node, pow_against_central_difference],
    what="your `__pow__`",
    answer_of=_method("__pow__"),
    unanswered=is_unwritten,
    todo="replace `...` with the new node, its `_backward` and `return out`, run "
    "the cell, then this check again",
)


def check_pow(Value):
    """Exercise: `__pow__` with a number exponent, local derivative n·aⁿ⁻¹."""
    return POW.check(Value)


@check("dL/da = 6, dL/db = −4, dL/dc = −2, dL/df = 4")
def hand_gradients(a, b, c, f):
    # L = (a·b + c)·f at a = 2, b = −3, c = 10, f = −2: d = a·b + c = 4, so
    # dL/da = f·b, dL/db = f·a, dL/dc = f, dL/df = d.
    for name, leaf, grad, rule in (
        ("a", a, 6.0, "f·b"),
        ("b", b, -4.0, "f·a"),
        ("c", c, -2.0, "f"),
        ("f", f, 4.0, "d = a·b + c"),
    ):
        if leaf.grad == 0.0:
            fail(
                f"`{name}.grad` is still 0.0: call `_backward()` of every node above {name}, "
                "starting from L (with `L.grad = 1.0`)"
            )
        expect_close(leaf.grad, grad, f"`{name}.grad`", hint=f"dL/d{name} = {rule}")


def check_backprop_by_hand(a, b, c, f):
    """After backpropagating L = (a·b + c)·f one `_backward` call at a time."""
    return run_checks("Backpropagated by hand", [hand_gradients], a, b, c, f)
