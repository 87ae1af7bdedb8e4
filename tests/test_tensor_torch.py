"""autograd.tensor against PyTorch (float64): random programs with broadcasting, reductions,
reshapes and the matrix product give the same data and the same gradient in every leaf.

PyTorch is optional for learners: these tests skip with a reason where it is missing, and fail
in CI, which installs it.
"""

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from autograd.tensor import Tensor, cross_entropy
from conftest import require_module
from test_tensor import NUMBERS, close, smaller


@pytest.fixture(scope="module")
def torch():
    return require_module("torch")


def transpose(x):
    """The axes reversed: Tensor's .T; PyTorch's .T only for 2-D, so permute."""
    return x.T if isinstance(x, Tensor) else x.permute(tuple(reversed(range(x.ndim))))


def reduce(name, axis, keepdims):
    def function(x):
        if isinstance(x, Tensor):
            return getattr(x, name)(axis=axis, keepdims=keepdims)
        if axis is None:  # PyTorch reads dim=() as every axis; name them instead
            dims = tuple(range(x.ndim))
            return getattr(x, name)(dim=dims, keepdim=keepdims) if dims else x * 1
        return getattr(x, name)(dim=axis, keepdim=keepdims)

    return function


# Operations on earlier results: two of them (broadcast against each other), or one.
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (1 + b * b),
    "rdiv": lambda a, b: (1.5 + b.tanh()) / (2 + a.sigmoid()),
}
UNARY = {
    "neg": lambda a: -a,
    "add_number": lambda a: a + 2.5,
    "radd_number": lambda a: -1 + a,
    "sub_number": lambda a: a - 1.5,
    "rsub_number": lambda a: 1.5 - a,
    "mul_number": lambda a: a * -0.75,
    "rmul_number": lambda a: 3 * a,
    "div_number": lambda a: a / 4.0,
    "rdiv_number": lambda a: -2.0 / (1.5 + a.tanh()),
    "square": lambda a: a**2,
    "cube": lambda a: a**3,
    "sqrt": lambda a: (1 + a * a) ** 0.5,
    "inverse_square": lambda a: (1.5 + a.tanh()) ** -2,
    "power_zero": lambda a: a**0,
    "tanh": lambda a: a.tanh(),
    "relu": lambda a: a.relu(),
    "exp": lambda a: a.tanh().exp(),
    "log": lambda a: (1 + a * a).log(),
    "sigmoid": lambda a: a.sigmoid(),
    "transpose": transpose,
    "reshape": lambda a: a.reshape(tuple(reversed(a.shape))),
}
# An array of numbers as the other operand, on either side: (ours, PyTorch's) arrays given.
CONSTANT = {
    "add_array": lambda a, c: a + c,
    "radd_array": lambda a, c: c + a,
    "sub_array": lambda a, c: a - c,
    "rsub_array": lambda a, c: c - a,
    "mul_array": lambda a, c: a * c,
    "rmul_array": lambda a, c: c * a,
    "div_array": lambda a, c: a / (1.5 + c * c),
    "rdiv_array": lambda a, c: c / (1.5 + a.tanh()),
}


@st.composite
def broadcast_programs(draw, max_leaves=4, max_steps=8):
    """(leaf arrays, steps); a step is (kind, detail, operand indices, constant or None)."""
    base = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    leaves = [
        draw(hnp.arrays(np.float64, smaller(base, draw), elements=NUMBERS))
        for _ in range(draw(st.integers(1, max_leaves)))
    ]
    shapes = [leaf.shape for leaf in leaves]
    steps = []
    for _ in range(draw(st.integers(1, max_steps))):
        kind = draw(st.sampled_from(["binary", "unary", "constant", "reduce"]))
        i = draw(st.integers(0, len(shapes) - 1))
        shape = shapes[i]
        if kind == "binary":
            partners = [j for j, s in enumerate(shapes) if _broadcasts(s, shape)]
            j = draw(st.sampled_from(partners))  # i itself among them: a tensor used twice
            name, args, constant = draw(st.sampled_from(sorted(BINARY))), (i, j), None
            out = np.broadcast_shapes(shape, shapes[j])
        elif kind == "unary":
            name, args, constant = draw(st.sampled_from(sorted(UNARY))), (i,), None
            out = shape[::-1] if name in ("transpose", "reshape") else shape
        elif kind == "constant":
            name, args = draw(st.sampled_from(sorted(CONSTANT))), (i,)
            constant = draw(hnp.arrays(np.float64, smaller(shape, draw), elements=NUMBERS))
            out = shape
        else:
            axes = draw(
                st.one_of(
                    st.none(),
                    st.integers(-len(shape), len(shape) - 1) if shape else st.nothing(),
                    st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True).map(tuple)
                    if shape
                    else st.nothing(),
                )
            )
            keepdims = draw(st.booleans())
            reduction = draw(st.sampled_from(["sum", "mean"]))
            name, args, constant = (reduction, axes, keepdims), (i,), None
            out = np.sum(np.zeros(shape), axis=axes, keepdims=keepdims).shape
        steps.append((kind, name, args, constant))
        shapes.append(tuple(out))
    return leaves, steps


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def evaluate(steps, leaves, constant):
    """Every result, leaves first, and the sum of every result summed (so each one counts)."""
    pool = list(leaves)
    for kind, name, args, array in steps:
        operands = [pool[i] for i in args]
        if kind == "binary":
            pool.append(BINARY[name](*operands))
        elif kind == "unary":
            pool.append(UNARY[name](*operands))
        elif kind == "constant":
            pool.append(CONSTANT[name](*operands, constant(array)))
        else:
            reduction, axes, keepdims = name
            pool.append(reduce(reduction, axes, keepdims)(*operands))
    total = pool[0].sum()
    for value in pool[1:]:
        total = total + value.sum()
    return pool, total


@settings(max_examples=1500, deadline=None)
@given(program=broadcast_programs())
def test_broadcasting_programs_match_pytorch(torch, program):
    arrays, steps = program
    leaves = [Tensor(a) for a in arrays]
    try:
        pool, total = evaluate(steps, leaves, lambda c: c)
    except OverflowError:
        reject()  # a cube of a cube...: too large for a float (the scalar tests check the error)
    total.backward()

    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    their_pool, their_total = evaluate(steps, theirs, lambda c: torch.tensor(c))
    their_total.backward()

    for ours, their in zip(pool, their_pool):
        assert close(ours.data, their.detach().numpy()), (ours.data, their)
    for leaf, their in zip(leaves, theirs):
        expected = their.grad.numpy() if their.grad is not None else np.zeros(leaf.shape)
        assert close(leaf.grad, expected), (leaf.grad, expected)


MATMUL_SHAPES = [  # (left, right): 1-D, 2-D, batched, a batch broadcast or missing
    ((3,), (3,)),
    ((3,), (3, 2)),
    ((2, 3), (3,)),
    ((2, 3), (3, 4)),
    ((1, 1), (1, 1)),
    ((2, 2, 3), (2, 3, 4)),
    ((2, 2, 3), (3, 4)),
    ((3,), (2, 3, 4)),
    ((1, 2, 3), (3, 3, 2)),
    ((2, 3, 2), (1, 2, 3)),
    ((2, 3), (2, 3, 1)),
]


@settings(max_examples=400, deadline=None)
@given(shapes=st.sampled_from(MATMUL_SHAPES), data=st.data())
def test_the_matrix_product_matches_pytorch(torch, shapes, data):
    a = data.draw(hnp.arrays(np.float64, shapes[0], elements=NUMBERS))
    b = data.draw(hnp.arrays(np.float64, shapes[1], elements=NUMBERS))

    def program(A, B):  # A and B each used twice, once through the product
        C = A @ B
        return (C.tanh() * C).sum() + (A * A).sum() + B.sum() * 0.5

    A, B = Tensor(a), Tensor(b)
    out = program(A, B)
    out.backward()
    At, Bt = (torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (a, b))
    out_t = program(At, Bt)
    out_t.backward()
    assert close(out.data, out_t.item())
    assert close(A.grad, At.grad.numpy()) and close(B.grad, Bt.grad.numpy())


@settings(max_examples=300, deadline=None)
@given(
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
        elements=st.floats(-60, 60),
    ),
    data=st.data(),
)
def test_log_softmax_and_cross_entropy_match_pytorch(torch, x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    weights = data.draw(hnp.arrays(np.float64, x.shape, elements=NUMBERS))
    ours = Tensor(x)
    out = ours.log_softmax(axis=axis)
    (out * weights).sum().backward()
    theirs = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    out_t = torch.log_softmax(theirs, dim=axis)
    (out_t * torch.tensor(weights)).sum().backward()
    assert close(out.data, out_t.detach().numpy())
    assert close(ours.grad, theirs.grad.numpy())

    logits = x.reshape(-1, x.shape[-1])
    labels = data.draw(
        st.lists(st.integers(0, logits.shape[1] - 1), min_size=len(logits), max_size=len(logits))
    )
    ours = Tensor(logits)
    loss = cross_entropy(ours, labels)
    loss.backward()
    theirs = torch.tensor(logits, dtype=torch.float64, requires_grad=True)
    loss_t = torch.nn.functional.cross_entropy(theirs, torch.tensor(labels))
    loss_t.backward()
    assert close(loss.data, loss_t.item())
    assert close(ours.grad, theirs.grad.numpy())
