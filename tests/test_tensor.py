"""autograd.tensor: the scalar engine's design on NumPy arrays.

Against the scalar engine, element by element: a random program of elementwise operations run
on tensors gives, in every element, the data and the gradients that the same program gives on
`engine.Value`s. Then the matrix product against the scalar engine's sums of products,
`unbroadcast` on its own, the numbers rules and the bad input. tests/test_tensor_torch.py
holds the comparison with PyTorch (broadcasting, reductions, reshapes, the matrix product).
"""

import gc
import math
import sys
import weakref

import numpy as np
import pytest
from conftest import require_module
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from autograd import Value
from autograd.graph import topological_order
from autograd.tensor import Tensor, cross_entropy, unbroadcast
from programs import OPS, evaluate

# Every operation of the random programs that a Tensor has: all but a Value as exponent, and
# the scalar engines' package operations sin and cos.
ELEMENTWISE = sorted(name for name in OPS if name not in ("vpow", "rpow", "rpow_int", "sin", "cos"))
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
NUMBERS = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)


def close(ours, theirs, rel=1e-12):
    """Equal within `rel` of the larger magnitude in the array (a sum may cancel to near 0)."""
    ours, theirs = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    if ours.shape != theirs.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(theirs), initial=0.0)))
    return bool(np.allclose(ours, theirs, rtol=rel, atol=rel * scale, equal_nan=True))


@st.composite
def elementwise_programs(draw, max_inputs=4, max_steps=10):
    """(shape, input arrays, steps): steps as tests/programs.py draws them, on arrays."""
    shape = draw(SHAPES)
    n = draw(st.integers(1, max_inputs))
    arrays = [draw(hnp.arrays(np.float64, shape, elements=NUMBERS)) for _ in range(n)]
    steps = []
    for k in range(draw(st.integers(1, max_steps))):
        name = draw(st.sampled_from(ELEMENTWISE))
        steps.append((name, tuple(draw(st.integers(0, n + k - 1)) for _ in range(OPS[name].arity))))
    return shape, arrays, steps


def smaller(shape, draw):
    """A shape that broadcasts to `shape`: some leading dimensions gone, some others 1."""
    drop = draw(st.integers(0, len(shape)))
    return tuple(1 if draw(st.booleans()) else n for n in shape[drop:])


def run(steps, leaves):
    try:
        return evaluate(steps, leaves)[1], None
    except (ArithmeticError, ValueError) as error:
        return None, type(error)


@settings(max_examples=400, deadline=None)
@given(program=elementwise_programs())
def test_elementwise_programs_match_the_scalar_engine_element_by_element(program):
    shape, arrays, steps = program
    scalar = {}  # index: (the program's value, each input's gradient) on Values
    errors = set()
    for index in np.ndindex(*shape):
        values = [Value(float(a[index])) for a in arrays]
        total, error = run(steps, values)
        if error:
            errors.add(error)
            continue
        total.backward()
        scalar[index] = total.data, [v.grad for v in values]

    leaves = [Tensor(a) for a in arrays]
    out, error = run(steps, leaves)
    if errors:  # the scalar engine refused an element: the tensor refuses, with that error
        assert error in errors
        return
    assert error is None and out.shape == shape
    out.sum().backward()
    # each element of the output depends only on the same element of every input, so the
    # gradient of out.sum() in that element is the scalar program's gradient
    for index, (data, grads) in scalar.items():
        assert close(out.data[index], data), (index, out.data[index], data)
        for leaf, grad in zip(leaves, grads):
            assert close(leaf.grad[index], grad), (index, leaf.grad[index], grad)


BROADCAST = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (1 + b * b),
    "rdiv": lambda a, b: (2 + b * b) / (1.5 + a * a),
}


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(BROADCAST)), data=st.data())
def test_broadcast_operands_get_the_scalar_engines_summed_gradients(name, data):
    """Object arrays of Values broadcast as NumPy does, so the scalar engine sums each
    stretched operand's gradient over every place it reached: what `unbroadcast` must give."""
    base = data.draw(SHAPES)
    a = data.draw(hnp.arrays(np.float64, smaller(base, data.draw), elements=NUMBERS))
    b = data.draw(hnp.arrays(np.float64, smaller(base, data.draw), elements=NUMBERS))
    A, B = Tensor(a), Tensor(b)
    out = BROADCAST[name](A, B)
    weights = data.draw(hnp.arrays(np.float64, out.shape, elements=NUMBERS))
    (out * weights).sum().backward()

    # a 0-d object array meeting a Value makes a lone Value, which refuses an array: (1,)
    # broadcasts against any other shape of one dimension or more as () does
    def lift(x):
        return x.reshape(1) if x.ndim == 0 and a.ndim + b.ndim else x

    va = np.vectorize(Value, otypes=[object])(lift(a))
    vb = np.vectorize(Value, otypes=[object])(lift(b))
    vout = np.asarray(BROADCAST[name](va, vb), dtype=object).reshape(-1)
    sum((v * float(w) for v, w in zip(vout, weights.reshape(-1))), Value(0.0)).backward()
    grad = np.vectorize(lambda v: v.grad, otypes=[float])
    assert close(out.data.reshape(-1), np.vectorize(lambda v: v.data, otypes=[float])(vout))
    assert close(A.grad.reshape(-1), grad(va).reshape(-1))
    assert close(B.grad.reshape(-1), grad(vb).reshape(-1))


@settings(max_examples=150, deadline=None)
@given(
    shapes=st.sampled_from(
        [
            ((3,), (3,)),
            ((2, 3), (3,)),
            ((3,), (3, 2)),
            ((2, 3), (3, 4)),
            ((2, 2, 3), (3, 2)),
            ((1, 3), (2, 3, 1)),
        ]
    ),
    data=st.data(),
)
def test_the_matrix_product_matches_the_scalar_engines_sums_of_products(shapes, data):
    """C = A @ B built from Values, one sum of products per element, gives the same numbers
    and the same gradients as the Tensor's @ (dA = dC @ B.T, dB = A.T @ dC)."""
    a = data.draw(hnp.arrays(np.float64, shapes[0], elements=NUMBERS))
    b = data.draw(hnp.arrays(np.float64, shapes[1], elements=NUMBERS))
    weights = data.draw(hnp.arrays(np.float64, np.matmul(a, b).shape, elements=NUMBERS))
    A, B = Tensor(a), Tensor(b)
    (A @ B * weights).sum().backward()

    va = np.vectorize(Value, otypes=[object])(a)
    vb = np.vectorize(Value, otypes=[object])(b)
    # object arrays: NumPy's @ adds and multiplies the Values themselves, one sum per element
    vc = np.asarray(np.matmul(va, vb), dtype=object)
    loss = sum((c * float(w) for c, w in zip(vc.reshape(-1), weights.reshape(-1))), Value(0.0))
    loss.backward()
    grad = np.vectorize(lambda v: v.grad, otypes=[float])
    assert close((A @ B).data, np.vectorize(lambda v: v.data, otypes=[float])(vc))
    assert close(A.grad, grad(va)) and close(B.grad, grad(vb))


def test_unbroadcast_sums_a_gradient_back_to_the_operands_shape():
    grad = np.arange(24.0).reshape(2, 3, 4)
    assert unbroadcast(grad, (2, 3, 4)) is grad
    assert np.array_equal(unbroadcast(grad, (4,)), grad.sum(axis=(0, 1)))
    assert np.array_equal(unbroadcast(grad, (3, 1)), grad.sum(axis=(0, 2)).reshape(3, 1))
    assert np.array_equal(unbroadcast(grad, (1, 3, 1)), grad.sum(axis=(0, 2)).reshape(1, 3, 1))
    assert unbroadcast(grad, ()) == grad.sum()
    with pytest.raises(ValueError, match=r"\(2, 3, 4\) to \(3,\)"):
        unbroadcast(grad, (3,))


@pytest.mark.parametrize(
    "axis, keepdims, count",
    [(None, False, 24), (0, False, 2), (-1, True, 4), ((0, 2), False, 8), ((1,), True, 3)],
)
def test_sum_and_mean_pass_each_element_the_weight_of_its_slot(axis, keepdims, count):
    x = Tensor(np.arange(24.0).reshape(2, 3, 4))
    weights = np.arange(1.0, 1.0 + np.sum(x.data, axis=axis, keepdims=keepdims).size)
    weights = weights.reshape(np.sum(x.data, axis=axis, keepdims=keepdims).shape)
    (x.sum(axis=axis, keepdims=keepdims) * weights).sum().backward()
    expanded = weights if keepdims or axis is None else np.expand_dims(weights, axis)
    assert np.array_equal(x.grad, np.broadcast_to(expanded, x.shape))
    x.grad = np.zeros_like(x.data)
    (x.mean(axis=axis, keepdims=keepdims) * weights).sum().backward()
    assert np.array_equal(x.grad, np.broadcast_to(expanded / count, x.shape))
    assert np.allclose(
        x.mean(axis=axis, keepdims=keepdims).data,
        np.mean(x.data, axis=axis, keepdims=keepdims),
        rtol=1e-15,
    )


def test_a_tensor_used_twice_receives_the_gradient_of_both_uses():
    x = Tensor([1.0, -2.0])
    y = x * x + x  # dy/dx = 2x + 1
    y.sum().backward()
    assert np.array_equal(x.grad, [3.0, -3.0])
    y.sum().backward()  # leaves accumulate, intermediates start again, as in the engine
    assert np.array_equal(x.grad, [6.0, -6.0])


def test_backward_works_on_a_graph_deeper_than_the_recursion_limit():
    x = Tensor([0.5, 2.0])
    y = x
    for _ in range(sys.getrecursionlimit() + 500):
        y = y + 1.0
    y.sum().backward()
    assert np.array_equal(x.grad, [1.0, 1.0])


@pytest.mark.parametrize(
    "new_prev, exception, words",
    [
        (lambda a, loss: (a, loss), ValueError, "the graph has a cycle: "),
        (lambda a, loss: None, TypeError, "must be a tuple, list or set of values"),
        (lambda a, loss: {a: 3.0}, TypeError, "must be a tuple, list or set of values"),
        (lambda a, loss: (a, 3.0), TypeError, "must be a Value-like object"),
    ],
    ids=["a cycle", "None", "a dict", "a number"],
)
def test_backward_on_an_edited_graph_says_what_is_wrong_and_changes_no_gradient(
    new_prev, exception, words
):
    a = Tensor([1.0, 2.0])
    b = a * 3.0
    c = b + a
    loss = c.sum()
    b._prev = new_prev(a, loss)  # b = a * 3 edited to list something else as its inputs
    with pytest.raises(exception, match=words):
        loss.backward()
    assert all(np.array_equal(t.grad, np.zeros(t.shape)) for t in (a, b, c, loss))


def test_data_is_a_float64_copy_and_grad_starts_at_zeros():
    source = np.array([[1, 2], [3, 4]], dtype=np.int32)
    t = Tensor(source, label="t")
    source[0, 0] = 99
    assert t.data.dtype == np.float64 and t.data[0, 0] == 1.0 and t.label == "t"
    assert np.array_equal(t.grad, np.zeros((2, 2)))
    assert Tensor(2).shape == () and Tensor([[1.5], [2]]).shape == (2, 1)


def test_numbers_and_arrays_on_either_side():
    t = Tensor([1.0, 2.0])
    for result, expected in [
        (np.array([1.0, 1.0]) + t, [2.0, 3.0]),
        (2 - t, [1.0, 0.0]),
        (np.float64(3) * t, [3.0, 6.0]),
        (1 / t, [1.0, 0.5]),
        ([[1.0], [2.0]] * t, [[1.0, 2.0], [2.0, 4.0]]),
        (-t, [-1.0, -2.0]),
        (np.array([1.0, 1.0]) @ t, 3.0),
    ]:
        assert isinstance(result, Tensor) and np.array_equal(result.data, expected)


def test_log_softmax_is_stable_and_cross_entropy_is_its_mean_pick():
    logits = Tensor([[1000.0, 0.0, -1000.0], [1.0, 2.0, 3.0]])
    out = logits.log_softmax()
    assert np.isfinite(out.data).all() and out.data[0, 0] == 0.0
    loss = cross_entropy(logits, [0, 2])
    expected = -(0.0 + (3.0 - math.log(math.exp(1.0) + math.exp(2.0) + math.exp(3.0)))) / 2
    assert math.isclose(loss.item(), expected, rel_tol=1e-15)
    loss.backward()  # softmax minus one-hot, over the number of rows
    assert np.allclose(logits.grad.sum(axis=1), 0.0, atol=1e-15)


# ----------------------------------------------------------------- numbers and bad input

A, B = np.ones((3, 2)), np.ones((4,))

REFUSED = [
    # (what to run, exception, words its message must hold)
    (lambda: Tensor("1.0"), TypeError, "str"),
    (lambda: Tensor(None), TypeError, "None"),
    (lambda: Tensor(True), TypeError, "bool"),
    (lambda: Tensor([[1.0, 2.0], [3.0]]), ValueError, "differ in length"),
    (lambda: Tensor(["a", "b"]), TypeError, "strings"),
    (lambda: Tensor([1 + 2j]), TypeError, "complex"),
    (lambda: Tensor(A) + Tensor(B), ValueError, "(3, 2) + (4,)"),
    (lambda: Tensor(A) - B, ValueError, "(3, 2) - (4,)"),
    (lambda: B - Tensor(A), ValueError, "(4,) - (3, 2)"),
    (lambda: B + Tensor(A), ValueError, "(4,) + (3, 2)"),
    (lambda: 2.0 ** Tensor(A), TypeError, "unsupported"),
    (lambda: Tensor(A) * Tensor(B), ValueError, "(3, 2) * (4,)"),
    (lambda: B / Tensor(A), ValueError, "(4,) / (3, 2)"),
    (lambda: Tensor(A) @ Tensor(A), ValueError, "(3, 2) @ (3, 2)"),
    (lambda: Tensor(B) @ Tensor(A), ValueError, "(4,) @ (3, 2)"),
    (lambda: Tensor(A) @ 2.0, ValueError, "(3, 2) @ ()"),
    (lambda: Tensor(np.ones((2, 3, 4))) @ Tensor(np.ones((3, 4, 2))), ValueError, "batch"),
    (lambda: Tensor(A) + "x", TypeError, "str"),
    (lambda: Tensor(A) * None, TypeError, "NoneType"),
    (lambda: Tensor(A) ** Tensor(2.0), TypeError, "exponent"),
    (lambda: Tensor(A).sum(axis=2), ValueError, "(3, 2)"),
    (lambda: Tensor(A).mean(axis=(0, 0)), ValueError, "twice"),
    (lambda: Tensor(A).sum(axis=1.0), TypeError, "axis"),
    (lambda: Tensor(A).reshape(4, 2), ValueError, "(3, 2)"),
    (lambda: Tensor(A).backward(), ValueError, "shape (3, 2)"),
    (lambda: Tensor([1e200, 1.0]) * 1e200, OverflowError, "(2,) * ()"),
    (lambda: Tensor([1e308]) + Tensor([[1e308], [1.0]]), OverflowError, "(1,) + (2, 1)"),
    (lambda: Tensor([[1e200, 1e200]]) @ Tensor([1e200, 1e200]), OverflowError, "(1, 2) @ (2,)"),
    (lambda: Tensor([1.0, 710.0]).exp(), OverflowError, "exp(710.0)"),
    (lambda: Tensor([1e308, 1e308]).sum(), OverflowError, "sum"),
    (lambda: Tensor([1.0, 0.0]).log(), ValueError, "log(0.0)"),
    (lambda: Tensor([2.0]) / Tensor([[1.0], [0.0]]), ZeroDivisionError, "index (1, 0)"),
    (lambda: Tensor([1.0, 0.0]) ** -1, ZeroDivisionError, "(2,) ** -1"),
    (lambda: Tensor([-1.0]) ** 0.5, ValueError, "negative base"),
    (lambda: Tensor([1e200]) ** 2, OverflowError, "(1,) ** 2"),
    (lambda: cross_entropy(Tensor(A), [0, 2, 1]), ValueError, "between 0 and 1"),
    (lambda: cross_entropy(Tensor(A), [0.0, 1.0, 1.0]), ValueError, "whole-number"),
]


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_bad_input_gets_a_clear_error_that_names_the_shapes(case):
    run_it, exception, words = REFUSED[case]
    with pytest.raises(exception) as caught:
        run_it()
    assert words in str(caught.value)


def test_an_operation_that_raises_leaves_every_tensor_as_it_was():
    a, b = Tensor([[1.0, 2.0]]), Tensor([3.0, 4.0, 5.0])
    loss = (a * a).sum()
    loss.backward()
    before = [(t.data.copy(), t.grad.copy(), t._prev) for t in (a, b, loss)]
    for fail in (
        lambda: a + b,
        lambda: a @ b,
        lambda: a / 0.0,
        lambda: (a * a).backward(),
        lambda: (-a).log(),
    ):
        with pytest.raises((ValueError, ZeroDivisionError)):
            fail()
    after = [(t.data, t.grad, t._prev) for t in (a, b, loss)]
    for (d0, g0, p0), (d1, g1, p1) in zip(before, after):
        assert np.array_equal(d0, d1) and np.array_equal(g0, g1) and p0 is p1


def test_non_finite_inputs_give_what_numpy_gives():
    t = Tensor([np.inf, 1.0]) * 2.0
    assert t.data[0] == np.inf
    assert np.isnan((Tensor([np.inf]) - np.inf).data[0])


def test_draw_dot_shows_each_tensors_label_shape_op_and_a_preview_of_its_numbers():
    require_module("graphviz", "pip install -r requirements.txt")
    from autograd.viz import draw_dot

    x = Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], label="x")
    w = Tensor([0.5, -1.0, 2.0], label="w")
    loss = (x * w).sum()
    loss.label = "loss"
    loss.backward()
    source = draw_dot(loss).source
    assert (
        "{ x | shape (2, 3) | data [1.0000, 2.0000, 3.0000, …] "
        "| grad [0.5000, -1.0000, 2.0000, …] }"
    ) in source
    assert (
        "{ w | shape (3,) | data [0.5000, -1.0000, 2.0000] | grad [5.0000, 7.0000, 9.0000] }"
    ) in source
    assert "{ loss | shape () | data 13.5000 | grad 1.0000 }" in source
    assert "label=sum" in source and 'label="*"' in source


def test_finite_numbers_whose_sum_overflows_are_not_refused():
    """Each result is checked in one pass, by the finiteness of its sum; a sum past the largest
    float from finite numbers only sends the check element by element, which finds them fine."""
    big = Tensor([[1e308], [1e308]])
    for result in (
        big * 1.0,
        big + 0.0,
        big.relu(),
        big.T.reshape(2),
        big.sum(axis=1),
        Tensor([[1e308, 1e308]]) @ Tensor([[1.0, 0.0], [0.0, 1.0]]),
    ):
        assert np.array_equal(result.data.reshape(-1), [1e308, 1e308])


def test_a_graph_nobody_holds_is_freed_at_once_without_the_cycle_collector():
    x = Tensor([[1.0, 2.0]])
    loss = ((x @ Tensor([[3.0], [4.0]])).relu() * 2.0 + 1.0).mean()
    loss.backward()
    made = [weakref.ref(t) for t in topological_order(loss) if t._prev]  # every operation's
    collecting = gc.isenabled()
    gc.disable()
    try:
        del loss
        kept = [t()._op for t in made if t() is not None]
        assert not kept, f"the closures of {kept} hold their outputs strongly: cycles"
    finally:
        if collecting:
            gc.enable()
    assert np.array_equal(x.grad, [[6.0, 8.0]])  # d(2(3a + 4b) + 1)/d(a, b)


def test_mean_of_an_empty_tensor_says_it_is_empty():
    with pytest.raises(ValueError, match="mean of an empty tensor"):
        Tensor(np.zeros(0)).mean()
    with pytest.raises(ValueError, match=r"empty tensor \(shape \(0, 3\)\) over axis 0"):
        Tensor(np.zeros((0, 3))).mean(axis=0)
    assert Tensor(np.zeros((0, 3))).mean(axis=1).shape == (0,)  # an average over 3 numbers, 0 times


def test_cross_entropy_of_an_empty_batch_says_it_is_empty():
    with pytest.raises(ValueError, match="cross_entropy of an empty batch"):
        cross_entropy(Tensor(np.zeros((0, 10))), np.zeros(0, dtype=int))
