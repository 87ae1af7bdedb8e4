"""The C backend runs a layer's backward several neurons at once (`autograd.compile.jam`): the
engine's numbers still, bit for bit, at -O0 and at -O2, on MLPs whose sizes leave turns over."""

import random

import pytest

from autograd.compile import compile_loss, jam
from autograd.engine import Value
from test_compile_c_bits import c_cache  # noqa: F401 (a fixture: a C compiler, an empty cache)


def mlp_loss(sizes):
    """The hinge loss of an MLP of layer `sizes` (ReLU between layers) plus an L2 penalty, as
    a function of the flat parameters and the points."""

    def loss(p, xs):
        at, total = 0, 0
        for point, label in zip(xs, [1, -1] * len(xs)):
            x = point
            for layer, (nin, nout) in enumerate(zip(sizes, sizes[1:])):
                out = []
                for _ in range(nout):
                    act = sum((p[at + i] * x[i] for i in range(nin)), p[at + nin])
                    at += nin + 1
                    out.append(act.relu() if layer < len(sizes) - 2 else act)
                x = out
            at = 0
            total = total + (1 + -label * x[0]).relu()
        return total * (1.0 / len(xs)) + 1e-4 * sum(q * q for q in p)

    return loss


def n_params(sizes):
    return sum((nin + 1) * nout for nin, nout in zip(sizes, sizes[1:]))


def engine(fn, params, points):
    leaves = [Value(v) for v in params]
    out = fn(leaves, [[Value(v) for v in point] for point in points])
    out.backward()
    return out.data, [leaf.grad for leaf in leaves]


@pytest.mark.usefixtures("c_cache")
@pytest.mark.parametrize("sizes", [(2, 6, 11, 1), (3, 9, 10, 1), (2, 16, 16, 1)])
@pytest.mark.parametrize("opt_level", [0, 2])
def test_a_layers_backward_jammed_gives_the_engines_numbers(sizes, opt_level):
    rng = random.Random(sum(sizes))
    params = [rng.uniform(-1, 1) for _ in range(n_params(sizes))]
    points = [[rng.uniform(-1, 1) for _ in range(sizes[0])] for _ in range(7)]
    fn = mlp_loss(sizes)
    step = compile_loss(fn, params, points, backend="c", opt_level=opt_level)
    assert "const double g0" in step.source  # a place read once, before the jammed loop
    for _ in range(3):  # other numbers than the trace's
        params = [rng.uniform(-1, 1) for _ in params]
        points = [[rng.uniform(-1, 1) for _ in point] for point in points]
        assert step(params, points) == engine(fn, params, points)


def recurrent(p, xs):
    """The same eight neurons applied six times over: each time's backward adds to the weights'
    gradients and reads the gradients that the time after it wrote."""
    total = 0
    for x in xs:
        h = list(x)
        for _ in range(6):
            h = [sum((p[8 * i + j] * h[j] for j in range(8)), p[64 + i]).relu() for i in range(8)]
        total = total + sum(h)
    return total


@pytest.mark.usefixtures("c_cache")
def test_turns_whose_order_matters_stay_one_by_one(monkeypatch):
    """A planted mistake: without the test that jamming changes no place's order of operations
    (`jam._safe`), the recurrent network's turns run jammed, and its numbers are no longer the
    engine's."""
    rng = random.Random(0)
    params = [rng.uniform(-0.6, 0.6) for _ in range(72)]
    points = [[rng.uniform(0, 1) for _ in range(8)] for _ in range(3)]
    want = engine(recurrent, params, points)
    assert compile_loss(recurrent, params, points, backend="c")(params, points) == want
    monkeypatch.setattr(jam, "_safe", lambda blocks, n, counts: True)
    planted = compile_loss(recurrent, params, points, backend="c")
    assert planted(params, points) != want


WEIGHTS = [0.5 + 0.25 * k for k in range(9)]


def weighted(p, xs):
    """A gradient loop reading a number of the table at each turn (each weight its own)."""
    return sum((WEIGHTS[k] * p[k] for k in range(9)), xs[0] * 0.0) + sum(q * q for q in p)


@pytest.mark.usefixtures("c_cache")
def test_a_loop_reads_each_turns_number_from_the_table():
    """Each turn's number of the table is its own, up to the last turn (none past it)."""
    params = [0.1 * k - 0.3 for k in range(9)]
    step = compile_loss(weighted, params, [1.0], backend="c")
    assert "c[" in step.source  # the weights are read from the table, a number each turn
    for scale in (1.0, -2.5):
        leaves = [Value(scale * q) for q in params]
        out = weighted(leaves, [Value(1.0)])
        out.backward()
        assert step([leaf.data for leaf in leaves], [1.0]) == (
            out.data,
            [leaf.grad for leaf in leaves],
        )
