"""`CompiledBatch.descend`: one step of gradient descent in place, and the points as an array.

`compiled.descend(params, points, targets, lr=lr)` promises what a training loop written by
hand gives, bit for bit:

    loss, grads, outputs = compiled(params, points, targets)
    params[:] = [p - lr * g for p, g in zip(params, grads)]

returning `(loss, outputs)`; in C the update runs in the library, on an `array.array`'s own
numbers. Every comparison here is exact, against that loop run on the engine.
"""

import array
import random
import struct

import pytest

from autograd import nn
from autograd.compile import compile_batch
from test_compile_batch import backend, fresh_engine, hinge, linear, network  # noqa: F401
from test_compile_c_bits import c_cache  # noqa: F401 (a fixture)


def bits(numbers):
    return [struct.pack("<d", x) for x in numbers]


def problem(seed):
    """A random 2-layer network's point_fn, loss_fn, parameters, points and labels."""
    rng = random.Random(seed)
    sizes = [2, rng.randint(2, 5), rng.randint(2, 5), 1]
    nonlin = nn.NONLINEARITIES[seed % len(nn.NONLINEARITIES)]
    n = rng.randint(3, 12)
    points = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in range(n)]
    labels = [rng.choice([1, -1]) for _ in range(n)]
    params = [p.data for p in nn.MLP(2, sizes[1:], nonlin, seed=seed).parameters()]

    def loss_fn(p, outputs, targets):
        return nn.hinge_loss(outputs, targets) + nn.l2_penalty(p, 1e-3)

    return network(sizes, nonlin), loss_fn, params, points, labels


def by_hand(point_fn, loss_fn, params, points, labels, lr, steps):
    """The engine's losses and outputs of `steps` steps of SGD from `params`, and the
    parameters after them, the update written as a learner writes it."""
    seen = []
    for _ in range(steps):
        loss, grads, outputs = fresh_engine(point_fn, loss_fn, params, points, labels)
        seen.append((bits([loss]), bits(outputs)))
        params = [p - lr * g for p, g in zip(params, grads)]
    return seen, params


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["list", "array"])
def test_descend_is_the_hand_written_step_bit_for_bit(seed, kind, backend):  # noqa: F811
    point_fn, loss_fn, params, points, labels = problem(seed)
    step = compile_batch(
        point_fn, loss_fn, params, points, labels, backend=backend[0], opt_level=backend[1]
    )
    assert step.backend == backend[0]
    lr = [0.1, 0.05, 1][seed % 3]  # an int too: the update is p - 1 * g
    want, after = by_hand(point_fn, loss_fn, params, points, labels, lr, steps=3)
    ours = list(params) if kind == "list" else array.array("d", params)
    seen = []
    for _ in range(3):
        loss, outputs = step.descend(ours, points, labels, lr=lr)
        seen.append((bits([loss]), bits(outputs)))
    assert seen == want
    assert bits(ours) == bits(after)
    assert type(ours) is (list if kind == "list" else array.array)


def test_descend_changes_the_callers_own_list_or_array(backend):  # noqa: F811
    """In place: the very object the caller holds, never a copy of it."""
    params, points, labels = [0.5, -0.25, 0.125], [[1.0, 2.0], [-1.0, 0.5]], [1, -1]
    step = compile_batch(
        linear, hinge, params, points, labels, backend=backend[0], opt_level=backend[1]
    )
    _, grads, _ = step(params, points, labels)
    want = bits([p - 0.1 * g for p, g in zip(params, grads)])
    for given in (list(params), array.array("d", params)):
        held = given
        step.descend(given, points, labels, lr=0.1)
        assert held is given and bits(held) == want


def test_descend_on_a_models_own_values_changes_their_data(backend):  # noqa: F811
    """`descend(model.parameters(), ...)`: each leaf's `.data` is what `nn.train_step` gives
    the same model's twin, bit for bit; the leaves' `.grad` are left as they were."""
    model, twin = nn.MLP(2, [4, 3, 1], seed=5), nn.MLP(2, [4, 3, 1], seed=5)
    points, labels = [[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]], [1, -1, 1]
    step = compile_batch(
        lambda p, x: model(x),
        lambda p, outputs, targets: nn.hinge_loss(outputs, targets) + nn.l2_penalty(p, 1e-3),
        model.parameters(),
        points,
        labels,
        backend=backend[0],
        opt_level=backend[1],
    )
    for leaf in model.parameters():
        leaf.grad = 7.0
    for _ in range(3):
        loss, _ = step.descend(model.parameters(), points, labels, lr=0.1)
        assert bits([loss]) == bits([nn.train_step(twin, points, labels, lr=0.1, alpha=1e-3).loss])
    assert bits(p.data for p in model.parameters()) == bits(p.data for p in twin.parameters())
    assert {p.grad for p in model.parameters()} == {7.0}
    mixed = [*model.parameters()[:-1], 0.5]
    with pytest.raises(TypeError, match="all numbers or all Values"):
        step.descend(mixed, points, labels, lr=0.1)


def test_descend_with_check_runs_the_engine_beside_it(c_cache):  # noqa: F811
    point_fn, loss_fn, params, points, labels = problem(3)
    step = compile_batch(point_fn, loss_fn, params, points, labels, backend="c", check=True)
    want, after = by_hand(point_fn, loss_fn, params, points, labels, 0.1, steps=2)
    ours = array.array("d", params)
    seen = [step.descend(ours, points, labels, lr=0.1) for _ in range(2)]
    assert [(bits([loss]), bits(outputs)) for loss, outputs in seen] == want
    assert bits(ours) == bits(after)


def test_a_step_that_raises_leaves_the_parameters_as_they_were(backend):  # noqa: F811
    """The engine's error, as a call gives it, and no parameter changed: the library gives
    up before its update, and the engine then raises."""
    params, points = [10.0, 10.0, 0.0], [[1.0, 1.0], [1e308, 1e308]]  # point 1 overflows
    step = compile_batch(
        linear, hinge, params, [[0.5, 0.5]] * 2, [1, 1], backend=backend[0], opt_level=backend[1]
    )
    for given in (list(params), array.array("d", params)):
        with pytest.raises(OverflowError, match="too large for a float"):
            step.descend(given, points, [1, 1], lr=0.1)
        assert list(given) == params


def test_points_as_an_array_give_what_points_as_lists_give(backend):  # noqa: F811
    point_fn, loss_fn, params, points, labels = problem(4)
    step = compile_batch(
        point_fn, loss_fn, params, points, labels, backend=backend[0], opt_level=backend[1]
    )
    flat = array.array("d", [x for point in points for x in point])
    loss, grads, outputs = step(params, points, labels)
    loss2, grads2, outputs2 = step(params, flat, labels)
    assert bits([loss, *grads, *outputs]) == bits([loss2, *grads2, *outputs2])
    a, b = list(params), array.array("d", params)
    assert bits(step.descend(a, points, labels, lr=0.1)[1]) == bits(
        step.descend(b, flat, labels, lr=0.1)[1]
    )
    assert bits(a) == bits(b)


def test_bad_input_to_descend_is_refused_with_a_clear_error():
    params, points, labels = [0.5, -0.25, 0.125], [[1.0, 2.0], [-1.0, 0.5]], [1, -1]
    step = compile_batch(linear, hinge, params, points, labels)
    with pytest.raises(TypeError, match=r"in place: .* not a tuple"):
        step.descend(tuple(params), points, labels, lr=0.1)
    with pytest.raises(TypeError, match="not an array.array of typecode 'f'"):
        step.descend(array.array("f", params), points, labels, lr=0.1)
    with pytest.raises(ValueError, match="compiled for 3 parameters, but was given 2"):
        step.descend([0.5, 0.25], points, labels, lr=0.1)
    with pytest.raises(ValueError, match="compiled for 3 parameters, but was given 4"):
        step.descend(array.array("d", [0.0] * 4), points, labels, lr=0.1)
    for lr in (True, "0.1", None):
        with pytest.raises(TypeError, match="lr must be a real number"):
            step.descend(list(params), points, labels, lr=lr)
    with pytest.raises(TypeError, match="lr"):
        step.descend(list(params), points, labels)  # lr has no default
    with pytest.raises(ValueError, match="holds 3"):
        step.descend(list(params), array.array("d", [1.0, 2.0, 3.0]), labels, lr=0.1)
    with pytest.raises(TypeError, match=r"points must be a list or tuple \(or an array"):
        step.descend(list(params), {1: 2}, labels, lr=0.1)
    mine = list(params)
    with pytest.raises(ValueError, match="compiled for 2 targets"):
        step.descend(mine, points, [1], lr=0.1)
    assert mine == params  # refused before any change
