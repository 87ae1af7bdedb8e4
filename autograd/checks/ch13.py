"""Chapter 13 · From scalars to tensors — checkpoint and exercise checks.

What the chapter asks for: a small `Tensor` class on NumPy arrays, built like the scalar
engine's `Value` (`data` and `grad` arrays of one shape, `_prev`, `_op`, a `_backward` closure,
`sum()` and `backward()`), whose binary operations broadcast as NumPy does and pass each
gradient back through `unbroadcast(grad, shape)`, which sums a gradient back to the shape of
an operand that was broadcast. The learner writes `unbroadcast`, the closure of `__mul__` and
the backward pass of `__matmul__` (dA = dC @ B.T, dB = A.T @ dC); `__add__`, `sum` and
`backward` are given. NumPy is imported by this module alone among the checks.

Every closure check seeds an upstream gradient that is not all ones, and gives each input a
gradient it already holds from another use, so that `=` for `+=` and a missing `* out.grad`
each leave their own numbers. Matrices are not symmetric, and the shapes are chosen so that a
product in the wrong order or without its transpose either gives other numbers or does not fit.

Exercise checks, each an `Exercise` of chapter 13 (see `exercise.py`):

- `check_unbroadcast(unbroadcast)`: `unbroadcast(grad, shape)` sums away the leading axes that
  broadcasting added and sums, keeping them, the axes where `shape` has a 1 that was stretched.
- `check_mul(Tensor)`: the closure of `__mul__`, with broadcasting: each factor gets the other
  times `out.grad`, summed back to its own shape, added to what it held.
- `check_matmul(Tensor)`: the backward pass of `__matmul__`: dA = dC @ B.T, dB = A.T @ dC.

The checkpoint runs on the learner's class: broadcast sums and products, a matrix product
against the scalar engine (`autograd.engine.Value`, element by element), a layer `X @ W + b`
with an input used twice, and the whole backward pass from `.sum()`.
"""

import numpy as np

from ..engine import Value
from .toolbox import Exercise, call, check, declare_checkpoint, expect, fail, is_unwritten, show
from .ch13_arrays import (  # noqa: F401  (TOL: passed on)
    TOL,
    _array,
    _expect_added,
    _first_difference,
    _leaf,
    _method,
    _run_closure,
    _same,
    _shape,
)

__all__ = ["checkpoint", "check_unbroadcast", "check_mul", "check_matmul", "reference_unbroadcast"]


def reference_unbroadcast(grad, shape):
    """The right answer: `grad` summed back to `shape`."""
    grad = np.asarray(grad, dtype=float)
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


# --------------------------------------------------------------------- exercise: unbroadcast

_WRONG_AXIS = (
    "it summed over the wrong axis. Broadcasting adds new dimensions on the *left* (the leading "
    "axes, axis 0 first) and stretches dimensions of size 1; sum exactly those: the leading "
    "axes away, then each axis where `shape` has a 1, with `keepdims=True`"
)

_UNBROADCAST_CASES = (
    ("a (4, 3) gradient for an operand of shape (3,), added to each of 4 rows", (4, 3), (3,)),
    (
        "a (3, 3) gradient for an operand of shape (3,): square, so summing the wrong axis still "
        "gives 3 numbers",
        (3, 3),
        (3,),
    ),
    ("a (2, 4, 3) gradient for an operand of shape (3,): two leading axes", (2, 4, 3), (3,)),
    ("a (4, 3) gradient for an operand of shape (1, 3), stretched down the rows", (4, 3), (1, 3)),
    (
        "a (4, 3) gradient for an operand of shape (4, 1), stretched along the columns",
        (4, 3),
        (4, 1),
    ),
    ("a (2, 4, 3) gradient for an operand of shape (4, 1)", (2, 4, 3), (4, 1)),
)


def _diagnose_unbroadcast(grad, shape, got):
    """Why `got` is not `grad` summed back to `shape`, in words."""
    expected = reference_unbroadcast(grad, shape)
    if _same(got, grad):
        return (
            "it gave the gradient back unchanged, with out's shape "
            f"{_shape(grad.shape)}: the operand was broadcast, so sum the gradient back to "
            f"{_shape(shape)}"
        )
    if np.size(got) == expected.size and _same(np.reshape(got, expected.shape), expected):
        return (
            f"the numbers are right but the shape is {_shape(np.shape(got))}, not "
            f"{_shape(shape)}: sum the axes where `shape` has a 1 with `keepdims=True`, so "
            "that the 1 stays"
        )
    for axis in range(grad.ndim):
        for keep in (False, True):
            wrong = grad.sum(axis=axis, keepdims=keep)
            if _same(got, wrong) and not _same(wrong, expected):
                return f"it looks like `grad.sum(axis={axis})`: {_WRONG_AXIS}"
    if _same(got, grad.sum()):
        return "it summed every element into one number: sum only the axes that were broadcast"
    got_shape = np.shape(got)
    if got_shape != tuple(shape):
        return f"its shape is {_shape(got_shape)}, not the operand's {_shape(shape)}: {_WRONG_AXIS}"
    return (
        "the shape is right but the numbers are not: each element should be the sum of the "
        "gradients of every place it was stretched to"
    )


def _unbroadcast_case(unbroadcast, what, grad_shape, shape):
    grad = _array(grad_shape, len(grad_shape) + shape[0])
    given = grad.copy()
    got = call(
        unbroadcast, grad, shape, none="`unbroadcast` gave None: did you forget `return grad`?"
    )
    if not _same(got, reference_unbroadcast(given, shape)):
        why = _diagnose_unbroadcast(given, shape, got)
        fail(
            f"{why[0].upper()}{why[1:]}. Seen with {what}: `unbroadcast(grad, {_shape(shape)})` "
            f"should be the gradient summed back to {_shape(shape)} but was {show(got)}"
            f"{_first_difference(got, reference_unbroadcast(given, shape))}"
        )


@check("a gradient whose shape is already the operand's comes back with the same numbers")
def unbroadcast_unchanged(unbroadcast):
    grad = _array((2, 3), 7)
    got = call(
        unbroadcast,
        grad.copy(),
        (2, 3),
        none="`unbroadcast` gave None: did you forget `return grad`?",
    )
    expect(
        _same(got, grad),
        f"`unbroadcast(grad, (2, 3))` of a (2, 3) gradient should give it "
        f"back unchanged, but gave {show(got)}{_first_difference(got, grad)}",
    )


@check("leading axes that broadcasting added are summed away: (4, 3) and (2, 4, 3) back to (3,)")
def unbroadcast_leading(unbroadcast):
    for case in _UNBROADCAST_CASES[:3]:
        _unbroadcast_case(unbroadcast, *case)


@check("a dimension of size 1 that was stretched is summed and kept: back to (1, 3) and (4, 1)")
def unbroadcast_ones(unbroadcast):
    for case in _UNBROADCAST_CASES[3:]:
        _unbroadcast_case(unbroadcast, *case)


UNBROADCAST = Exercise(
    13,
    "unbroadcast",
    [unbroadcast_unchanged, unbroadcast_leading, unbroadcast_ones],
    what="your `unbroadcast`",
    unanswered=is_unwritten,
    todo="replace `...` with the sums that bring `grad` back to `shape`, "
    "and `return` it; run the cell, then this check again",
)


def check_unbroadcast(unbroadcast):
    """Exercise: `unbroadcast(grad, shape)`, a gradient summed back to an operand's shape."""
    return UNBROADCAST.check(unbroadcast)


# --------------------------------------------------------------------- exercise: __mul__


def _mul_case(Tensor, a_shape, b_shape, what, seed=0):
    a, b = _array(a_shape, seed), _array(b_shape, seed + 1)
    A, B = _leaf(Tensor, a, "a"), _leaf(Tensor, b, "b")
    out = call(lambda: A * B, raised=None, none="`a * b` gave None: did you forget `return out`?")
    expected = a * b
    expect(
        _same(out.data, expected),
        f"in {what}, `(a * b).data` should be {show(expected)} but "
        f"was {show(out.data)}"
        f"{_first_difference(out.data, expected)}",
    )
    g = _array(expected.shape, seed + 2)
    added, held = _run_closure(out, g, {"a": A, "b": B}, what)
    for name, own, other, shape in (("a", a, b, a.shape), ("b", b, a, b.shape)):
        mistakes = [
            (
                reference_unbroadcast(other * np.ones_like(g), shape),
                "the closure passed the other factor alone: multiply it by the gradient arriving "
                "from above, `* out.grad`",
            ),
            (
                reference_unbroadcast(own * g, shape),
                f"{name} got its own value times out.grad; each factor of a product gets the "
                "*other* factor: d(a·b)/da = b",
            ),
        ]
        _expect_added(
            name, added[name], held[name], reference_unbroadcast(other * g, shape), what, mistakes
        )


@check("a * b, same shapes: each factor gets the other times out.grad, added with +=")
def mul_same_shapes(Tensor):
    _mul_case(Tensor, (2, 3), (2, 3), "a * b with a and b of shape (2, 3)")


@check("x * w, w of shape (3,) broadcast over the 4 rows of x: w's gradient summed back to (3,)")
def mul_broadcast_row(Tensor):
    _mul_case(Tensor, (4, 3), (3,), "a * b with a of shape (4, 3) and b of shape (3,)", seed=3)


@check("(4, 1) * (1, 3): both factors stretched, each gradient summed back to its own shape")
def mul_broadcast_both(Tensor):
    _mul_case(Tensor, (4, 1), (1, 3), "a * b with a of shape (4, 1) and b of shape (1, 3)", seed=5)


def _used_twice(Tensor, operation, slope, what, kept_one):
    """`out = operation(X, X)`, one tensor as both operands: seed `out.grad`, run the closure,
    and expect `slope(x, g)`, the sum of both contributions; `kept_one(x, g)` lists what one
    contribution alone gives (the second `=` erasing the first)."""
    x = _array((3, 3), 17)
    X = _leaf(Tensor, x, "x")
    out = operation(X, X)
    g = _array((3, 3), 18)
    X.grad = np.zeros_like(x)
    out.grad = g.copy()
    out._backward()
    expected = slope(x, g)
    if _same(X.grad, expected):
        return
    said = (
        f"for {what}, `x.grad` should be {show(expected)} but was {show(X.grad)}"
        f"{_first_difference(X.grad, expected)}"
    )
    if any(_same(X.grad, one) for one in kept_one(x, g)):
        fail(
            f"It kept only one of the two contributions: the closure assigned with `=` instead "
            f"of adding with `+=`, which breaks a tensor used twice. Seen {said}"
        )
    fail(f"Check the lines that add to the gradients. Seen {said}")


@check("x * x, one tensor as both factors: the two contributions add up to 2·x·out.grad")
def mul_square(Tensor):
    _used_twice(
        Tensor, lambda a, b: a * b, lambda x, g: 2 * x * g, "y = x * x", lambda x, g: [x * g]
    )


MUL = Exercise(
    13,
    "a * b with broadcasting",
    [mul_same_shapes, mul_broadcast_row, mul_broadcast_both, mul_square],
    what="your `__mul__`",
    answer_of=_method("__mul__"),
    unanswered=is_unwritten,
    todo="replace `...` with the two lines of `_backward`, run the cell, then this check again",
)


def check_mul(Tensor):
    """Exercise: the closure of `__mul__`, with broadcasting."""
    return MUL.check(Tensor)


# --------------------------------------------------------------------- exercise: __matmul__

_SWAPPED = (
    "the factors are the wrong way round: `{wrong}` where it should be `{right}`. "
    "Element by element, {element}"
)
_ELEMENT_A = "dA[i, k] = Σ_j dC[i, j]·B[k, j], row i of dC against row k of B: dC @ B.T"
_ELEMENT_B = "dB[k, j] = Σ_i A[i, k]·dC[i, j], column k of A against column j of dC: A.T @ dC"
_SQUARE = (
    "{wrong} has the right shape only because these matrices are square: it is a "
    "transposed shape that fits only square matrices. {right} has {name}'s shape for any "
    "sizes"
)


def _product(make):
    """`make()`, a product that may not fit these shapes (then None: no such mistake here)."""
    try:
        return make()
    except ValueError:
        return None


def _matmul_mistakes(a, b, g):
    dA = [
        (lambda: b @ g, _SWAPPED.format(wrong="B @ dC", right="dC @ B.T", element=_ELEMENT_A)),
        (
            lambda: g @ b,
            _SQUARE.format(wrong="`dC @ B` (no transpose)", right="`dC @ B.T`", name="A"),
        ),
        (lambda: b.T @ g, _SWAPPED.format(wrong="B.T @ dC", right="dC @ B.T", element=_ELEMENT_A)),
        (
            lambda: (g @ b.T).T,
            _SQUARE.format(wrong="`B @ dC.T`, the transpose of dA,", right="`dC @ B.T`", name="A"),
        ),
        (
            lambda: g,
            "the closure passed `out.grad` on unchanged: a matrix product passes dC @ B.T to A",
        ),
    ]
    dB = [
        (lambda: g @ a, _SWAPPED.format(wrong="dC @ A", right="A.T @ dC", element=_ELEMENT_B)),
        (
            lambda: a @ g,
            _SQUARE.format(wrong="`A @ dC` (no transpose)", right="`A.T @ dC`", name="B"),
        ),
        (lambda: g @ a.T, _SWAPPED.format(wrong="dC @ A.T", right="A.T @ dC", element=_ELEMENT_B)),
        (
            lambda: (a.T @ g).T,
            _SQUARE.format(wrong="`dC.T @ A`, the transpose of dB,", right="`A.T @ dC`", name="B"),
        ),
        (
            lambda: g,
            "the closure passed `out.grad` on unchanged: a matrix product passes A.T @ dC to B",
        ),
    ]
    return (
        [(_product(make), words) for make, words in dA],
        [(_product(make), words) for make, words in dB],
    )


def _matmul_case(Tensor, a_shape, b_shape, what, seed):
    a, b = _array(a_shape, seed), _array(b_shape, seed + 1)
    A, B = _leaf(Tensor, a, "A"), _leaf(Tensor, b, "B")
    out = call(lambda: A @ B, raised=None, none="`A @ B` gave None: did you forget `return out`?")
    expect(
        _same(out.data, a @ b),
        f"in {what}, `(A @ B).data` should be {show(a @ b)} but was "
        f"{show(out.data)}{_first_difference(out.data, a @ b)}",
    )
    g = _array((a_shape[0], b_shape[1]), seed + 2)
    added, held = _run_closure(out, g, {"A": A, "B": B}, what, product=True)
    dA, dB = _matmul_mistakes(a, b, g)
    _expect_added("A", added["A"], held["A"], g @ b.T, what, dA)
    _expect_added("B", added["B"], held["B"], a.T @ g, what, dB)


@check("square A @ B (3×3, not symmetric): A gets dC @ B.T and B gets A.T @ dC, added with +=")
def matmul_square(Tensor):
    _matmul_case(Tensor, (3, 3), (3, 3), "C = A @ B with A and B of shape (3, 3)", seed=11)


@check("(2, 3) @ (3, 4): each gradient has its own tensor's shape, dA (2, 3) and dB (3, 4)")
def matmul_rectangular(Tensor):
    _matmul_case(
        Tensor, (2, 3), (3, 4), "C = A @ B with A of shape (2, 3) and B of shape (3, 4)", seed=13
    )


@check("A @ A, one tensor as both factors: both contributions add up, dC @ A.T + A.T @ dC")
def matmul_square_of_one(Tensor):
    _used_twice(
        Tensor,
        lambda a, b: a @ b,
        lambda x, g: g @ x.T + x.T @ g,
        "C = x @ x",
        lambda x, g: [x.T @ g, g @ x.T],
    )


MATMUL = Exercise(
    13,
    "the backward pass of A @ B",
    [matmul_square, matmul_rectangular, matmul_square_of_one],
    what="your `__matmul__`",
    answer_of=_method("__matmul__"),
    unanswered=is_unwritten,
    todo="replace `...` with the two lines of `_backward`, run the cell, then this check again",
)


def check_matmul(Tensor):
    """Exercise: the backward pass of `__matmul__`, dA = dC @ B.T and dB = A.T @ dC."""
    return MATMUL.check(Tensor)


# --------------------------------------------------------------------- the checkpoint


def _scalar_matmul_grads(a, b, g):
    """d(Σ g·(A @ B))/dA and /dB from the scalar engine, one Value per element."""
    A = [[Value(float(x)) for x in row] for row in a]
    B = [[Value(float(x)) for x in row] for row in b]
    loss = Value(0.0)
    for i in range(len(A)):
        for j in range(len(B[0])):
            c = Value(0.0)
            for k in range(len(B)):
                c = c + A[i][k] * B[k][j]
            loss = loss + c * float(g[i][j])
    loss.backward()
    return (
        np.array([[v.grad for v in row] for row in A]),
        np.array([[v.grad for v in row] for row in B]),
    )


def _backward_from(Tensor, out, what):
    """`out.backward()` on the learner's class, with what it raised said in words."""
    loss = call(lambda: out.sum(), none=f"`({what}).sum()` gave None")
    call(
        loss.backward,
        raised=lambda e: f"`({what}).sum().backward()` raised {type(e).__name__}: {e}",
    )


@check("(A @ B) * G summed, (2, 3) @ (3, 4): the scalar engine's gradients, element by element")
def checkpoint_matmul_against_scalars(Tensor):
    a, b, g = _array((2, 3), 21), _array((3, 4), 22), _array((2, 4), 23)
    A, B, G = _leaf(Tensor, a, "A"), _leaf(Tensor, b, "B"), _leaf(Tensor, g, "G")
    _backward_from(Tensor, (A @ B) * G, "(A @ B) * G")
    dA, dB = _scalar_matmul_grads(a, b, g)
    for name, got, want in (("A", A.grad, dA), ("B", B.grad, dB)):
        expect(
            _same(got, want),
            f"`{name}.grad` should be the scalar engine's {show(want)} but "
            f"was {show(got)}{_first_difference(got, want)}",
        )


@check(
    "a layer, X @ W + b with b (3,) broadcast, times X @ V: X used twice, every gradient "
    "the package's"
)
def checkpoint_layer(Tensor):
    from .. import tensor  # the package's Tensor, the witness

    x, w, v, b = _array((4, 2), 31), _array((2, 3), 32), _array((2, 3), 33), _array((3,), 34)
    mine = {n: _leaf(Tensor, arr, n) for n, arr in (("X", x), ("W", w), ("V", v), ("b", b))}
    _backward_from(
        Tensor,
        (mine["X"] @ mine["W"] + mine["b"]) * (mine["X"] @ mine["V"]),
        "(X @ W + b) * (X @ V)",
    )
    ref = {n: tensor.Tensor(arr) for n, arr in (("X", x), ("W", w), ("V", v), ("b", b))}
    ((ref["X"] @ ref["W"] + ref["b"]) * (ref["X"] @ ref["V"])).sum().backward()
    for name in ("X", "W", "V", "b"):
        got, want = mine[name].grad, ref[name].grad
        expect(
            _same(got, want),
            f"in (X @ W + b) * (X @ V), `{name}.grad` should be "
            f"{show(want)} but was {show(got)}"
            f"{_first_difference(got, want)}",
        )


@check("x + w and x * w with w (1, 3), a (3, 1) column and a (4, 3) x: backward() from .sum()")
def checkpoint_broadcasting(Tensor):
    from .. import tensor

    x, w, c = _array((4, 3), 41), _array((1, 3), 42), _array((4, 1), 43)
    mine = {n: _leaf(Tensor, arr, n) for n, arr in (("x", x), ("w", w), ("c", c))}
    _backward_from(Tensor, (mine["x"] + mine["w"]) * mine["c"] * mine["x"], "(x + w) * c * x")
    ref = {n: tensor.Tensor(arr) for n, arr in (("x", x), ("w", w), ("c", c))}
    ((ref["x"] + ref["w"]) * ref["c"] * ref["x"]).sum().backward()
    for name in ("x", "w", "c"):
        got, want = mine[name].grad, ref[name].grad
        expect(
            _same(got, want),
            f"in (x + w) * c * x, `{name}.grad` should be {show(want)} "
            f"but was {show(got)}{_first_difference(got, want)}",
        )


CHECKPOINT = [checkpoint_matmul_against_scalars, checkpoint_layer, checkpoint_broadcasting]


@declare_checkpoint(
    13,
    "Chapter 13 · From scalars to tensors: your Tensor",
    CHECKPOINT,
    takes="your class, `Tensor`",
)
def checkpoint(Tensor):
    """Chapter 13's specification, on the chapter's `Tensor` class (see the module docstring)."""
