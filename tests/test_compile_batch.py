"""autograd.compile.batch: a function of one point traced once, a loop over the points compiled.

`compile_batch(point_fn, loss_fn, params, points, targets)` promises, on every call, the
engine's numbers bit for bit for

    outputs = [point_fn(params, point) for point in points]
    loss = loss_fn(params, outputs, targets); loss.backward()

so every comparison here is exact (the same float, the same sign of zero, NaN where the engine
has NaN), against the engine run in the test on leaves of its own.
"""

import math
import random
import re

import pytest

from autograd import nn
from autograd.compile import (
    CompiledBatch,
    NoCompilerWarning,
    TraceMismatch,
    compile_batch,
    compile_loss,
)
from autograd.compile import lanes
from autograd.engine import Value
from test_compile_c_bits import bits, c_cache, outcome  # noqa: F401 (c_cache: a fixture)

BACKENDS = [("python", 0, False), ("c", 0, False), ("c", 2, False), ("c", 2, True)]


@pytest.fixture(params=BACKENDS, ids=["python", "c-O0", "c-O2", "c-O2-lanes"])
def backend(request, monkeypatch):
    """(backend, opt_level); for C a compiler (a skip with the reason, a failure in CI). The
    last runs every batch in lanes (`autograd.compile.lanes`), however small, where the
    point's program allows it."""
    name, opt_level, in_lanes = request.param
    if name == "c":
        request.getfixturevalue("c_cache")
    if in_lanes:
        monkeypatch.setattr(lanes, "WORTH", 0)
    return name, opt_level


def engine(point_fn, loss_fn, leaves, points, targets):
    """The engine's (loss, grads, outputs) on `leaves` (their grads zeroed first), as a user
    writes it; each point a `Value`, or a list of them where the points are lists."""
    for leaf in leaves:
        leaf.grad = 0.0

    def point_values(point):
        return [Value(a) for a in point] if isinstance(point, list) else Value(point)

    outputs = [point_fn(leaves, point_values(point)) for point in points]
    loss = loss_fn(leaves, outputs, [Value(t) for t in targets])
    loss.backward()
    return loss.data, [leaf.grad for leaf in leaves], [o.data for o in outputs]


def fresh_engine(point_fn, loss_fn, params, points, targets):
    """`engine` on fresh leaves made from the numbers `params`."""
    return engine(point_fn, loss_fn, [Value(p) for p in params], points, targets)


# --------------------------------------------------------------------- random MLPs


def network(sizes, nonlin):
    """An MLP's point_fn from a flat list of parameters, laid out as `nn.MLP.parameters()`
    (each neuron's weights, then its bias) and computed as `nn.Neuron` computes it."""

    def point_fn(p, x):
        x = x if isinstance(x, list) else [x]
        at = 0
        for layer, (nin, nout) in enumerate(zip(sizes, sizes[1:])):
            out = []
            for _ in range(nout):
                act = p[at + nin]
                for i in range(nin):
                    act = act + p[at + i] * x[i]
                at += nin + 1
                last = layer == len(sizes) - 2
                out.append(act if last or nonlin == "linear" else getattr(act, nonlin)())
            x = out
        return x[0]

    return point_fn


def random_problem(seed):
    """A random MLP's sizes, points, labels, and a loss (a data loss plus an L2 penalty);
    the seeds in turn take each nonlinearity, and both data losses with each."""
    rng = random.Random(seed)
    nin = rng.randint(1, 3)
    sizes = [nin, rng.randint(1, 5), rng.randint(1, 5), 1]
    nonlin = nn.NONLINEARITIES[seed % len(nn.NONLINEARITIES)]
    n = rng.randint(1, 6)
    points = [[rng.uniform(-2, 2) for _ in range(nin)] for _ in range(n)]
    labels = [rng.choice([1, -1]) for _ in range(n)]
    data_loss = [nn.hinge_loss, nn.mse_loss][seed // len(nn.NONLINEARITIES) % 2]
    alpha = rng.choice([1e-4, 0.01, 0.3])

    def loss_fn(params, outputs, targets):
        return data_loss(outputs, targets) + nn.l2_penalty(params, alpha)  # penalty last

    return rng, sizes, nonlin, points, labels, loss_fn


def other_numbers(rng, params, points, labels):
    """Other parameters, points and labels of the same shapes as these."""
    return (
        [rng.uniform(-1.5, 1.5) for _ in params],
        [[rng.uniform(-2, 2) for _ in point] for point in points],
        [rng.choice([1, -1]) for _ in labels],
    )


SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_models_own_parameters_give_the_engines_bits(seed, backend):
    """params are the model's leaf Values, which point_fn reaches through the model; the engine
    runs on a second model built alike, at the trace's numbers and then at others."""
    rng, sizes, nonlin, points, labels, loss_fn = random_problem(seed)
    model = nn.MLP(sizes[0], sizes[1:], nonlin, seed=seed)
    twin = nn.MLP(sizes[0], sizes[1:], nonlin, seed=seed)
    params = model.parameters()
    before = [(p.data, p.grad) for p in params]
    step = compile_batch(
        lambda p, x: model(x),
        loss_fn,
        params,
        points,
        labels,
        backend=backend[0],
        opt_level=backend[1],
    )
    assert step.backend == backend[0]
    assert [(p.data, p.grad) for p in params] == before  # compiling left the model alone

    def twin_engine(numbers, points, labels):
        for leaf, number in zip(twin.parameters(), numbers):
            leaf.data = number
        return engine(lambda p, x: twin(x), loss_fn, twin.parameters(), points, labels)

    if lanes.WORTH == 0:  # (the backend "c-O2-lanes"): every random network runs in lanes
        assert "#define LANES" in step.source
    numbers = [p.data for p in params]
    want = outcome(lambda: twin_engine(numbers, points, labels))
    assert not isinstance(want[0], type)
    assert outcome(lambda: step(numbers, points, labels)) == want
    for _ in range(2):  # other numbers than the trace's, the same count of points
        numbers, points, labels = other_numbers(rng, numbers, points, labels)
        got = outcome(lambda: step(numbers, points, labels))
        assert got == outcome(lambda: twin_engine(numbers, points, labels))
    assert [(p.data, p.grad) for p in params] == before  # calls leave the model alone too


@pytest.mark.parametrize("seed", SEEDS)
def test_numbers_as_parameters_give_the_engines_bits(seed, backend):
    """params are plain numbers, and point_fn builds the network from the list it is given."""
    rng, sizes, nonlin, points, labels, loss_fn = random_problem(100 + seed)
    point_fn = network(sizes, nonlin)
    params = [p.data for p in nn.MLP(sizes[0], sizes[1:], nonlin, seed=seed).parameters()]
    step = compile_batch(
        point_fn, loss_fn, params, points, labels, backend=backend[0], opt_level=backend[1]
    )
    if lanes.WORTH == 0:
        assert "#define LANES" in step.source
    want = outcome(lambda: fresh_engine(point_fn, loss_fn, params, points, labels))
    assert not isinstance(want[0], type)
    assert outcome(lambda: step(params, points, labels)) == want
    for _ in range(2):
        params, points, labels = other_numbers(rng, params, points, labels)
        got = outcome(lambda: step(params, points, labels))
        assert got == outcome(lambda: fresh_engine(point_fn, loss_fn, params, points, labels))


def test_the_flat_network_is_the_models_network():
    """The test's own `network` computes what nn.MLP computes (so the test above checks a real
    MLP): the same output bits on the same numbers."""
    for seed in SEEDS:
        rng, sizes, nonlin, points, _, _ = random_problem(seed)
        model = nn.MLP(sizes[0], sizes[1:], nonlin, seed=seed)
        params = model.parameters()
        for point in points:
            want = model([Value(a) for a in point]).data
            assert bits(network(sizes, nonlin)(params, [Value(a) for a in point]).data) == bits(
                want
            )


def test_points_given_as_plain_numbers(backend):
    """Each point a float: point_fn gets one Value, not a list."""
    rng = random.Random(7)

    def point_fn(p, x):
        assert isinstance(x, Value)
        return (p[0] * x + p[1]).tanh() * p[2] + (x * p[3]).sigmoid()

    def loss_fn(p, outputs, targets):
        return nn.mse_loss(outputs, targets) + nn.l2_penalty(p, 0.01)

    params = [rng.uniform(-1, 1) for _ in range(4)]
    points = [rng.uniform(-3, 3) for _ in range(5)]
    targets = [rng.uniform(-1, 1) for _ in range(5)]
    step = compile_batch(
        point_fn, loss_fn, params, points, targets, backend=backend[0], opt_level=backend[1]
    )
    assert step.point_length == 1
    for _ in range(3):
        want = outcome(lambda: fresh_engine(point_fn, loss_fn, params, points, targets))
        assert outcome(lambda: step(params, points, targets)) == want
        params = [rng.uniform(-1, 1) for _ in params]
        points = [rng.uniform(-3, 3) for _ in points]
        targets = [rng.uniform(-1, 1) for _ in targets]


def test_points_of_ints_and_tuples_are_their_floats(backend):
    """Points of floats are read the quick way; ints, tuples, a mix of both the general way:
    the same numbers either way, the engine's."""
    point_fn = network([2, 3, 1], "tanh")
    params = [0.1 * k - 0.6 for k in range(13)]
    floats = [[1.0, -2.0], [3.0, 0.0], [-1.0, 5.0]]
    step = compile_batch(
        point_fn,
        penalty_after,
        params,
        floats,
        [1, -1, 0],
        backend=backend[0],
        opt_level=backend[1],
    )
    want = outcome(lambda: fresh_engine(point_fn, penalty_after, params, floats, [1, -1, 0]))
    for points in (
        floats,
        [[1, -2], [3, 0], [-1, 5]],
        [(1.0, -2.0), (3.0, 0.0), (-1.0, 5.0)],
        ((1, -2.0), [3.0, 0], (-1, 5)),
    ):
        assert outcome(lambda: step(params, points, [1, -1, 0])) == want, points

    single = compile_batch(
        lambda p, x: (p[0] * x).tanh(), penalty_after, [0.7], [1.0, 2.0], [0.0, 0.5]
    )
    assert single([0.7], [1, 2], [0, 0.5]) == single([0.7], [1.0, 2.0], [0.0, 0.5])


def test_check_mode_passes_a_faithful_program():
    """check=True runs the engine beside the code: on a program without branches it says
    nothing and gives the engine's numbers."""
    _, sizes, nonlin, points, labels, loss_fn = random_problem(3)
    point_fn = network(sizes, nonlin)
    params = [p.data for p in nn.MLP(sizes[0], sizes[1:], nonlin, seed=3).parameters()]
    step = compile_batch(point_fn, loss_fn, params, points, labels, check=True)
    want = outcome(lambda: fresh_engine(point_fn, loss_fn, params, points, labels))
    assert outcome(lambda: step(params, points, labels)) == want


# --------------------------------------------------------------------- planted mistakes


def squared_errors(outputs, targets):
    total = (outputs[0] - targets[0]) ** 2
    for o, t in zip(outputs[1:], targets[1:]):
        total = total + (o - t) ** 2
    return total


def penalty_after(p, outputs, targets):
    return squared_errors(outputs, targets) + nn.l2_penalty(p, 0.37)


def penalty_first(p, outputs, targets):
    return nn.l2_penalty(p, 0.37) + squared_errors(outputs, targets)


def linear(p, x):
    return p[0] * x[0] + p[1] * x[1] + p[2]


def test_a_penalty_before_the_data_loss_is_refused():
    """`penalty + data_loss`: backward() adds the points' contributions to the parameters'
    gradients before the penalty's, while the compiled code adds the penalty's first. The same
    loss with the penalty last compiles, and runs in that penalty-first order: its bits are
    the engine's for `data_loss + penalty` but not for `penalty + data_loss` (floating-point
    addition is not associative), so compiling the planted loss would give wrong numbers.
    compile_loss on the whole batch, which the message points to, gives the right ones."""
    rng = random.Random(11)
    params = [rng.uniform(-3, 3) for _ in range(3)]
    points = [[rng.uniform(-5, 5), rng.uniform(-5, 5)] for _ in range(8)]
    targets = [rng.uniform(-1, 1) for _ in range(8)]
    with pytest.raises(ValueError, match="after the points' loss"):
        compile_batch(linear, penalty_first, params, points, targets)
    with pytest.raises(ValueError, match="compile_loss"):
        compile_batch(linear, penalty_first, params, points, targets, backend="c")

    naive = compile_batch(linear, penalty_after, params, points, targets)
    for _ in range(20):  # inputs where the order shows in a gradient's bits
        params = [rng.uniform(-3, 3) for _ in params]
        planted = outcome(lambda: fresh_engine(linear, penalty_first, params, points, targets))
        after = outcome(lambda: fresh_engine(linear, penalty_after, params, points, targets))
        assert planted[0] == after[0]  # the same loss: a + b == b + a
        if planted[1] != after[1]:
            break
    else:
        pytest.fail("no input showed the order of the gradients' additions")
    assert outcome(lambda: naive(params, points, targets)) == after != planted

    def whole(ps, xs):
        outputs = [linear(ps, x) for x in xs[: len(points)]]
        return penalty_first(ps, outputs, xs[len(points) :]), outputs

    flat = compile_loss(whole, params, [*points, *targets], has_aux=True)
    assert outcome(lambda: flat(params, [*points, *targets])) == planted


def branching(p, x):
    """A planted mistake: a choice in Python on a number, which the trace freezes."""
    pre = p[0] * x[0] + p[1]
    return pre.relu() if pre.data > 0 else pre * 0.5


def mean_output(p, outputs, targets):
    total = outputs[0]
    for o in outputs[1:]:
        total = total + o
    return total * (1.0 / len(outputs))


@pytest.mark.parametrize("backend_name", ["python", "c"])
def test_a_branch_on_data_is_caught_by_check(backend_name, request):
    """Traced where every pre-activation is positive, the code keeps relu; points whose
    pre-activations are negative take the engine down the other branch. Without check the
    numbers are silently the trace's branch's; with check=True the call raises."""
    if backend_name == "c":
        request.getfixturevalue("c_cache")
    params = [1.5, 0.25]
    traced = [[1.0], [2.0], [0.5]]
    other = [[-1.0], [-2.0], [0.5]]  # two points take the other branch
    checked = compile_batch(
        branching, mean_output, params, traced, check=True, backend=backend_name
    )
    want = outcome(lambda: fresh_engine(branching, mean_output, params, traced, []))
    assert outcome(lambda: checked(params, traced)) == want  # the trace's branch: no complaint

    unchecked = compile_batch(branching, mean_output, params, traced, backend=backend_name)
    engine_other = outcome(lambda: fresh_engine(branching, mean_output, params, other, []))
    assert outcome(lambda: unchecked(params, other)) != engine_other  # the mistake shows
    with pytest.raises(TraceMismatch, match="from the engine"):
        checked(params, other)


def summed_in(order):
    """A hinge loss (plus a penalty, last) that adds the points' terms in `order`: a function
    of the number of points, giving their indices."""

    def loss_fn(p, outputs, targets):
        losses = [(1 - t * o).relu() for o, t in zip(outputs, targets)]
        total = sum(losses[k] for k in order(len(losses)))
        return total * (1.0 / len(losses)) + nn.l2_penalty(p, 1e-3)

    return loss_fn


ORDERS = {
    "in order": summed_in(lambda n: range(n)),
    "reversed": summed_in(lambda n: reversed(range(n))),  # sum(reversed(losses))
    "shuffled": summed_in(lambda n: random.Random(n).sample(range(n), n)),
}


def test_points_summed_in_any_order_give_the_engines_bits(backend):
    """backward() reaches the points in the order the loss's graph puts them, not in the order
    of the list: a loss that sums them last to first has its points' closures run first to
    last. The sums' engine gradients differ in their bits here, so only code that follows
    the graph matches each."""
    point_fn = network([2, 4, 3, 1], "tanh")
    rng = random.Random(5)
    n_params = len(nn.MLP(2, [4, 3, 1]).parameters())
    labels = [rng.choice([1, -1]) for _ in range(9)]
    cases = []
    for _ in range(30):
        params = [rng.uniform(-2, 2) for _ in range(n_params)]
        points = [[rng.uniform(-3, 3), rng.uniform(-3, 3)] for _ in range(9)]
        wants = {
            name: outcome(lambda: fresh_engine(point_fn, loss_fn, params, points, labels))
            for name, loss_fn in ORDERS.items()
        }
        cases.append((params, points, wants))
    for a, b in [("in order", "reversed"), ("in order", "shuffled"), ("reversed", "shuffled")]:
        assert any(wants[a][1] != wants[b][1] for _, _, wants in cases), (a, b)

    for name, loss_fn in ORDERS.items():
        step = compile_batch(
            point_fn,
            loss_fn,
            cases[0][0],
            cases[0][1],
            labels,
            backend=backend[0],
            opt_level=backend[1],
        )
        for params, points, wants in cases:
            assert outcome(lambda: step(params, points, labels)) == wants[name], name


@pytest.mark.parametrize(
    "loss_fn",
    [
        # some outputs unused, one used twice: backward() never reaches points 1 and 2
        lambda p, o, t: o[3] * o[3] + o[0] * t[0] + nn.l2_penalty(p, 0.1),
        # no output at all: the gradients are the penalty's alone
        lambda p, o, t: nn.l2_penalty(p, 0.1),
        # a parameter used after the points' loss, beside an output
        lambda p, o, t: nn.mse_loss(o, t) * p[1] + p[0] * o[2],
    ],
    ids=["some-outputs", "no-output", "parameter-times-output"],
)
def test_losses_that_use_the_outputs_unevenly(loss_fn, backend):
    """A loss need not use every output once, nor at all; the points it does not reach pass
    nothing back, as in the engine; a parameter may meet an output after the points' loss."""
    point_fn = network([2, 3, 1], "relu")
    rng = random.Random(9)
    step = None
    for _ in range(3):
        params = [rng.uniform(-1, 1) for _ in range(13)]
        points = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in range(4)]
        targets = [rng.uniform(-1, 1) for _ in range(4)]
        if step is None:
            step = compile_batch(
                point_fn, loss_fn, params, points, targets, backend=backend[0], opt_level=backend[1]
            )
        want = outcome(lambda: fresh_engine(point_fn, loss_fn, params, points, targets))
        assert outcome(lambda: step(params, points, targets)) == want


# --------------------------------------------------------------------- bad input


def test_bad_input_is_refused_with_a_clear_error():
    params = [0.5, -0.25, 0.1]
    points = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    targets = [1.0, -1.0, 0.5]
    step = compile_batch(linear, penalty_after, params, points, targets)
    assert outcome(lambda: step(params, points, targets))  # the right shapes run

    with pytest.raises(ValueError, match="compiled for 3 points, but was given 2"):
        step(params, points[:2], targets)
    with pytest.raises(ValueError, match="compiled for 3 points, but was given 4"):
        step(params, [*points, [7.0, 8.0]], targets)
    with pytest.raises(ValueError, match="point 1 must be a list of 2 numbers"):
        step(params, [[1.0, 2.0], [3.0], [5.0, 6.0]], targets)
    with pytest.raises(ValueError, match="point 2 must be a list of 2 numbers"):
        step(params, [[1.0, 2.0], [3.0, 4.0], 5.0], targets)
    with pytest.raises(ValueError, match="compiled for 3 parameters, but was given 2"):
        step(params[:2], points, targets)
    with pytest.raises(ValueError, match="compiled for 3 targets, but was given 2"):
        step(params, points, targets[:2])
    with pytest.raises(TypeError, match="points must be a list or tuple"):
        step(params, iter(points), targets)
    with pytest.raises(TypeError, match="must be a real number"):
        step(params, [[1.0, 2.0], [3.0, "4"], [5.0, 6.0]], targets)
    with pytest.raises(TypeError, match="must be a real number"):
        step([0.5, "x", 0.1], points, targets)

    with pytest.raises(TypeError, match="point_fn must return"):
        compile_batch(lambda p, x: (p[0] * x[0]).data, penalty_after, params, points, targets)
    with pytest.raises(ValueError, match="a leaf or a constant"):
        compile_batch(lambda p, x: x[0], penalty_after, params, points, targets)
    with pytest.raises(TypeError, match="loss_fn must return"):
        compile_batch(linear, lambda p, o, t: 0.0, params, points, targets)
    with pytest.raises(ValueError, match="non-empty list of points"):
        compile_batch(linear, penalty_after, params, [], [])
    with pytest.raises(ValueError, match="point 1 must be a list of 2 numbers"):
        compile_batch(linear, penalty_after, params, [[1.0, 2.0], [3.0]], targets[:2])
    with pytest.raises(ValueError, match="at least one parameter"):
        compile_batch(linear, penalty_after, [], points, targets)
    with pytest.raises(ValueError, match="must be a number or a leaf Value"):
        compile_batch(linear, penalty_after, [Value(1.0) * 2, 0.0, 0.0], points, targets)
    with pytest.raises(ValueError, match="backend must be 'python' or 'c'"):
        compile_batch(linear, penalty_after, params, points, targets, backend="fortran")
    with pytest.raises(ValueError, match="opt_level must be"):
        compile_batch(linear, penalty_after, params, points, targets, opt_level=4)


def test_the_same_value_twice_in_params_is_refused():
    """One Value holds one number and one gradient, so it cannot be two parameters: the
    engine adds both uses into its one grad, which code taking two numbers cannot give.
    compile_loss refuses it; compile_batch, whose params are "as for compile_loss", must too
    (rather than give gradients that are not the engine's)."""
    a = Value(0.5)

    def point_fn(p, x):
        return p[0] * x + p[1] * x * x

    with pytest.raises(ValueError, match="twice"):
        compile_loss(lambda p, x: point_fn(p, x[0]), [a, a], [1.0])
    with pytest.raises(ValueError, match="twice"):
        compile_batch(point_fn, mean_output, [a, a], [1.0, 2.0])


# --------------------------------------------------------------------- numbers that are not finite


def overflowing_tanh(p, x):
    """A point whose forward pass overflows before a tanh that would hide it (tanh(inf) = 1)."""
    return (p[0] * x[0] + p[1] * x[1]).tanh() * p[2]


def dead_overflow(p, x):
    """A point whose forward pass overflows in a value its output does not use: the engine
    computes it all the same, and raises."""
    x[0] * p[0]
    return p[1] * x[1] + p[2]


def hinge(p, outputs, targets):
    return nn.hinge_loss(outputs, targets) + nn.l2_penalty(p, 1e-3)


@pytest.mark.parametrize(
    "point_fn, params, points, targets",
    [
        # the score of point 1 overflows to +inf, which relu(1 - 1 * inf) = 0 would hide
        (linear, [10.0, 10.0, 0.0], [[1.0, 1.0], [1e308, 1e308]], [1, 1]),
        # ... and to -inf with label -1, and in the first point
        (linear, [-10.0, 10.0, 0.0], [[-1e308, 1.0], [1.0, 2.0]], [-1, 1]),
        # an overflow under a tanh, in the last point
        (overflowing_tanh, [10.0, 1.0, 2.0], [[0.5, 0.5], [1e308, -1.0]], [1, -1]),
        # an overflow in a value that reaches neither the output nor the loss
        (dead_overflow, [10.0, 1.0, 2.0], [[0.5, 0.5], [1e308, 1.0]], [1, -1]),
        # inputs not finite: the engine gives numbers (inf, NaN), not an error
        (overflowing_tanh, [1.0, 2.0, 3.0], [[math.inf, 0.5], [0.5, 0.25]], [1, -1]),
        (linear, [1.0, 2.0, 3.0], [[math.nan, 0.5], [0.5, 0.25]], [1, -1]),
    ],
)
def test_numbers_that_are_not_finite_give_what_the_engine_gives(
    point_fn, params, points, targets, backend
):
    """The compiled call gives the engine's error (type and message) where the engine raises,
    and otherwise the engine's numbers; a model's leaf Values are as they were afterwards."""
    want = outcome(lambda: fresh_engine(point_fn, hinge, params, points, targets))
    traced_at = [[0.5, 0.5] for _ in points]  # compiled at ordinary numbers
    leaves = [Value(p / 2) for p in params]
    for leaf in leaves:
        leaf.grad = 7.0
    for given in (list(params), leaves):
        step = compile_batch(
            point_fn,
            hinge,
            given,
            traced_at,
            targets,
            backend=backend[0],
            opt_level=backend[1],
        )
        assert outcome(lambda: step(params, points, targets)) == want
    # the engine ran on the model's leaves at the call's numbers, and put them back
    assert [(v.data, v.grad) for v in leaves] == [(p / 2, 7.0) for p in params]


def test_an_overflow_is_the_engines_overflow():
    """The first case above raises, as the engine does (so that test compares errors too)."""
    params, points = [10.0, 10.0, 0.0], [[1.0, 1.0], [1e308, 1e308]]
    step = compile_batch(linear, hinge, params, [[0.5, 0.5], [0.5, 0.5]], [1, 1])
    with pytest.raises(OverflowError, match="too large for a float"):
        step(params, points, [1, 1])


# --------------------------------------------------------------------- what it shows


def test_repr_source_and_compile_time(backend):
    params = [0.5, -0.25, 0.1]
    points = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
    step = compile_batch(
        linear,
        penalty_after,
        params,
        points,
        [0.0] * 4,
        backend=backend[0],
        opt_level=backend[1],
    )
    assert isinstance(step, CompiledBatch)
    text = repr(step)
    words = re.findall(r"\w+", text)
    assert "4 points" in text and "3 parameters" in text
    assert backend[0] in words and ({"python", "c"} - {backend[0]}).isdisjoint(words)
    assert type(step.compile_seconds) is float and step.compile_seconds > 0
    assert isinstance(step.source, str) and "loss_and_grads" in step.source
    assert step.n_points == 4 and step.n_params == 3
    assert "check" in repr(
        compile_batch(linear, penalty_after, params, points, [0.0] * 4, check=True)
    )


@pytest.mark.parametrize("make", ["compile_loss", "compile_batch"])
def test_without_a_compiler_the_warning_points_at_the_callers_line(tmp_path, monkeypatch, make):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no cc, gcc or clang
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("AUTOGRAD_CACHE", str(tmp_path))
    point_fn = lambda p, x: (p[0] * x).tanh()  # noqa: E731
    loss_fn = lambda p, outputs, t: sum(outputs) * 0.5  # noqa: E731
    with pytest.warns(NoCompilerWarning, match="none was found; running the compiled Python") as w:
        if make == "compile_batch":
            made = compile_batch(point_fn, loss_fn, [0.5], [1.0, 2.0], backend="c")
        else:
            made = compile_loss(
                lambda p, x: loss_fn(p, [point_fn(p, a) for a in x], ()),
                [0.5],
                [1.0, 2.0],
                backend="c",
            )
    assert w[0].filename == __file__  # the line that asked for C, not a line of the package
    assert made.backend == "python" and made.source.startswith("def loss_and_grads")
    got = made([0.5], [1.0, 2.0])
    want = fresh_engine(point_fn, loss_fn, [0.5], [1.0, 2.0], [])
    assert [bits(got[0]), *map(bits, got[1])] == [bits(want[0]), *map(bits, want[1])]


@pytest.mark.usefixtures("c_cache")
def test_a_long_point_program_is_built_as_one_file(monkeypatch):
    """The builder compiles a long program's functions in several files at once; the batch's
    loop reads its arrays, which live in one file, so a long point program must still build as
    C (not fall back to Python) and give the engine's bits."""
    from autograd.compile import build

    monkeypatch.setattr(build, "SPLIT", 10)  # every program counts as long
    point_fn = network([2, 3, 1], "tanh")
    params = [0.1 * k - 0.6 for k in range(13)]
    points = [[1.0, -2.0], [3.0, 0.5], [-1.0, 5.0]]
    targets = [0.5, -0.25, 1.0]
    step = compile_batch(point_fn, penalty_after, params, points, targets, backend="c")
    assert step.backend == "c"
    want = outcome(lambda: fresh_engine(point_fn, penalty_after, params, points, targets))
    assert outcome(lambda: step(params, points, targets)) == want


# --------------------------------------------------------------------- lanes


@pytest.mark.usefixtures("c_cache")
def test_a_batch_runs_in_lanes_from_the_size_that_pays_for_them(monkeypatch):
    """Lanes cost compile time, which a small batch never gets back: a batch runs in lanes
    once its points times its point's instructions reach `lanes.WORTH`."""
    point_fn = network([2, 3, 1], "tanh")
    params = [0.1 * k - 0.6 for k in range(13)]
    rng = random.Random(3)
    points = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in range(10)]
    targets = [rng.uniform(-1, 1) for _ in range(10)]
    sizes = {}
    for n in (9, 10):
        step = compile_batch(point_fn, penalty_after, params, points[:n], targets[:n])
        sizes[n] = n * len(step.point_tape)
    monkeypatch.setattr(lanes, "WORTH", sizes[10])
    for n, in_lanes in ((9, False), (10, True)):
        step = compile_batch(point_fn, penalty_after, params, points[:n], targets[:n], backend="c")
        assert ("#define LANES" in step.source) == in_lanes, n
        want = outcome(
            lambda: fresh_engine(point_fn, penalty_after, params, points[:n], targets[:n])
        )
        assert outcome(lambda: step(params, points[:n], targets[:n])) == want


def weight_twice(p, x):
    """A point's program that adds to the gradient of p[0] twice."""
    return (p[0] * x[0] + p[0] * x[1]).tanh() * p[1] + p[2]


@pytest.mark.usefixtures("c_cache")
@pytest.mark.parametrize("n", [3, 8, 11])
def test_a_weight_used_twice_a_point_runs_a_point_at_a_time(n, monkeypatch):
    """In lanes, each statement runs for every lane before the next statement: a gradient that
    one point adds to twice would receive the lanes' first terms, then their second ones, in
    another order than the engine's. Such a program runs a point at a time, with the engine's
    numbers."""
    monkeypatch.setattr(lanes, "WORTH", 0)
    rng = random.Random(n)
    points = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in range(n)]
    targets = [rng.uniform(-1, 1) for _ in range(n)]
    params = [0.7, -1.3, 0.2]
    step = compile_batch(weight_twice, penalty_after, params, points, targets, backend="c")
    assert step.backend == "c" and "#define LANES" not in step.source
    for _ in range(20):
        params = [rng.uniform(-2, 2) for _ in params]
        points = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in points]
        want = outcome(lambda: fresh_engine(weight_twice, penalty_after, params, points, targets))
        assert outcome(lambda: step(params, points, targets)) == want


def many_operations(p, x):
    """A point's program with numbers of its own and most of the engine's operations."""
    a = (p[0] * x[0] - 0.5 * x[1]).relu() + 2.0
    b = (p[1] / a + x[1] ** 2).tanh() - (p[2] * x[0]).exp() * 0.25
    return (b * p[3]).sigmoid() + p[4] ** 3 - (-a).relu() * 3.0


@pytest.mark.usefixtures("c_cache")
@pytest.mark.parametrize("n", [1, 7, 9, 16])
def test_operations_and_numbers_run_in_lanes_with_the_engines_bits(n, monkeypatch):
    """Every lane runs the engine's operations on its point, in the engine's order: the same
    numbers as the engine, for a group that is full and one that is not."""
    monkeypatch.setattr(lanes, "WORTH", 0)
    rng = random.Random(n)
    points = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in range(n)]
    targets = [rng.uniform(-1, 1) for _ in range(n)]
    params = [0.7, -1.3, 0.2, 0.9, -0.4]
    step = compile_batch(many_operations, penalty_after, params, points, targets, backend="c")
    assert step.backend == "c" and "#define LANES" in step.source
    for _ in range(20):
        params = [rng.uniform(-2, 2) for _ in params]
        points = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in points]
        want = outcome(
            lambda: fresh_engine(many_operations, penalty_after, params, points, targets)
        )
        assert outcome(lambda: step(params, points, targets)) == want
