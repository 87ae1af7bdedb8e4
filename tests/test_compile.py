"""autograd.compile: a loss traced once and replayed as generated Python, against the engine.

The compiled function promises the engine's numbers bit for bit (see its docstring), so every
comparison here is exact: the same float, the same sign of zero, NaN where the engine has NaN.
"""

import math
import struct

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from autograd import nn
from autograd.article import NEURON, neuron
from autograd.compile import CompiledLoss, Instruction, TraceMismatch, compile_loss
from autograd.data import make_moons
from autograd.engine import Value
from programs import OPS, programs, run


def bits(x):
    return struct.pack("<d", x) if x == x else b"nan"


def engine(fn, params, inputs):
    """(loss, grads) from the reference engine, or (exception type, message) if it raises."""
    ps = [Value(p) for p in params]
    xs = [Value(x) for x in inputs]
    try:
        root = fn(ps, xs)
        root.backward()
    except (ArithmeticError, ValueError) as e:
        return type(e), str(e)
    return root.data, [p.grad for p in ps]


def compiled(step, params, inputs):
    try:
        return step(params, inputs)
    except (ArithmeticError, ValueError) as e:
        return type(e), str(e)


def assert_identical(got, want):
    if isinstance(want[0], type):  # an error
        assert got == want
        return
    assert bits(got[0]) == bits(want[0]), (got[0], want[0])
    assert [bits(g) for g in got[1]] == [bits(g) for g in want[1]], (got[1], want[1])


# --------------------------------------------------------------------- random programs


def split_program(program, k):
    inputs, steps = program
    k = min(k, len(inputs))
    return inputs[:k], inputs[k:], (lambda ps, xs: run(steps, ps + xs))


@settings(max_examples=150)
@given(programs(), st.integers(1, 4))
def test_random_programs_give_the_engines_numbers_bit_for_bit(program, k):
    params, inputs, fn = split_program(program, k)
    want = engine(fn, params, inputs)
    assume(not isinstance(want[0], type))  # tracing raises where the engine does
    step = compile_loss(fn, params, inputs)
    assert_identical(step(params, inputs), want)


@settings(max_examples=150)
@given(programs(), st.integers(1, 4), st.data())
def test_traced_at_some_numbers_replayed_at_others(program, k, data):
    params, inputs, fn = split_program(program, k)
    assume(not isinstance(engine(fn, params, inputs)[0], type))
    step = compile_loss(fn, params, inputs)
    numbers = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
    new_params = [data.draw(numbers) for _ in params]
    new_inputs = [data.draw(numbers) for _ in inputs]
    assert_identical(compiled(step, new_params, new_inputs), engine(fn, new_params, new_inputs))


def test_every_operation_of_the_programs_compiles():
    for name, op in OPS.items():
        fn = (lambda f: lambda ps, xs: f(*ps[: op.arity]))(op.function)
        params = [0.7, -0.3][: op.arity]
        step = compile_loss(fn, params)
        assert_identical(step(params, []), engine(fn, params, []))


# --------------------------------------------------------------------- the engine's edge rules


@pytest.mark.parametrize("fn, params", [
    (lambda p, x: p[0].relu() * math.inf, [-1.0]),         # relu below 0: nothing, even inf
    (lambda p, x: (p[0] ** 0) * math.inf, [2.0]),          # x ** 0: nothing either
    (lambda p, x: (p[0] ** p[1] + p[2]) ** 0.5, [0.0, 0.0, -1.0]),  # b = 0 under an inf grad
    (lambda p, x: p[0] ** 0.5, [0.0]),                     # an infinite slope
    (lambda p, x: (p[0] * -1.0) * 0.0, [3.0]),             # zeros with a sign
    (lambda p, x: p[0] / p[1] + p[1] / 7, [1e-300, 1e300]),
    (lambda p, x: (p[0] * p[0]).tanh() + (p[0] - 20).sigmoid(), [0.999]),
    (lambda p, x: 2 ** p[0] + p[0] ** -2 - 3 / p[0], [-1.5]),
])
def test_edge_rules_match_the_engine(fn, params):
    assert_identical(compile_loss(fn, params)(params, []), engine(fn, params, []))


# --------------------------------------------------------------------- the article and a model


def test_the_article_neuron():
    labels = list(NEURON)

    def fn(ps, xs):
        return neuron(lambda x, label: ps[labels.index(label)], **{})["o"]

    nodes = neuron(Value)
    nodes["o"].backward()
    step = compile_loss(fn, [NEURON[name] for name in labels])
    loss, grads = step([NEURON[name] for name in labels])
    assert loss == nodes["o"].data
    assert grads == [nodes[name].grad for name in labels]


def test_an_mlp_trains_step_for_step_like_the_engine():
    X, y = make_moons(n=12, noise=0.1, seed=1)
    model = nn.MLP(2, [8, 8, 1], seed=0)
    params = model.parameters()

    def loss_fn(ps, xs):
        scores = [model(row) for row in xs]
        return nn.hinge_loss(scores, y) + nn.l2_penalty(ps, 1e-4)

    step = compile_loss(loss_fn, params, X)
    numbers = [p.data for p in params]
    optimizer = nn.SGD(params, lr=0.5)
    for _ in range(4):
        optimizer.zero_grad()
        loss = loss_fn(params, [[Value(a) for a in row] for row in X])
        loss.backward()
        c_loss, c_grads = step(numbers, X)
        assert c_loss == loss.data
        assert c_grads == [p.grad for p in params]
        optimizer.step()
        numbers = [p - 0.5 * g for p, g in zip(numbers, c_grads)]
        assert numbers == [p.data for p in params]
    checked = compile_loss(loss_fn, params, X, check=True)
    assert checked(numbers, X) == step(numbers, X)


def test_what_cannot_be_compiled_is_refused():
    with pytest.raises(TypeError, match="must return the loss as an autograd.engine.Value"):
        compile_loss(lambda ps, xs: 1.0, [1.0])
    a = Value(1.0)
    with pytest.raises(ValueError, match="parameter 0 must be a number or a leaf Value"):
        compile_loss(lambda ps, xs: ps[0], [a * 2])
    with pytest.raises(ValueError, match="twice"):
        compile_loss(lambda ps, xs: ps[0], [a, a])


# --------------------------------------------------------------------- guards


def test_a_call_of_another_shape_raises_a_clear_error():
    step = compile_loss(lambda p, x: p[0] * x[0][0] + p[1] * x[1][1], [1.0, 2.0], [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="compiled for 2 parameters, but was given 3"):
        step([1.0, 2.0, 3.0], [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"inputs shaped 2 × \(2 numbers\), but was given "
                                         r"3 × \(2 numbers\)"):
        step([1.0, 2.0], [[1, 2], [3, 4], [5, 6]])
    with pytest.raises(TypeError, match="real number"):
        step([1.0, "2"], [[1, 2], [3, 4]])
    assert step([1.0, 2.0], [[1, 2], [3, 4]]) == (9.0, [1.0, 4.0])


def test_python_control_flow_is_frozen_and_the_checking_mode_catches_it():
    def fn(ps, xs):
        if xs[0].data > 0:  # decided at trace time
            return ps[0] * xs[0]
        return ps[0] * xs[0] * -1.0

    step = compile_loss(fn, [2.0], [3.0])
    assert step([2.0], [-3.0]) == (-6.0, [-3.0])  # frozen: the first branch, silently
    checked = compile_loss(fn, [2.0], [3.0], check=True)
    assert checked([2.0], [5.0]) == (10.0, [5.0])  # same branch: agrees
    with pytest.raises(TraceMismatch, match="the loss is -6.0 from the compiled code but 6.0"):
        checked([2.0], [-3.0])


def test_the_checking_mode_leaves_the_models_values_as_they_were():
    w = Value(0.5)
    w.grad = 7.0
    step = compile_loss(lambda ps, xs: w * xs[0], [w], [2.0], check=True)
    assert step([3.0], [2.0]) == (6.0, [2.0])
    assert (w.data, w.grad) == (0.5, 7.0)


def test_leaves_that_are_not_parameters_or_inputs_are_constants():
    c = Value(10.0)
    step = compile_loss(lambda ps, xs: ps[0] * c + (c * 2).exp(), [1.0])
    assert step.tape[0] == Instruction("t0", "*", ("p0", "10.0"))  # c is the literal 10.0
    assert len(step.tape) == 2  # and (c * 2).exp(), computed from constants only, one more
    c.data = 0.0  # frozen at trace time
    assert step([2.0]) == (20.0 + math.exp(20.0), [10.0])


# --------------------------------------------------------------------- errors


@pytest.mark.parametrize("fn, traced, called", [
    (lambda p, x: (p[0] * x[0]).log(), 1.0, -2.0),
    (lambda p, x: (p[0] * x[0]).log(), 1.0, 0.0),
    (lambda p, x: p[0] / x[0], 1.0, 0.0),
    (lambda p, x: p[0] * x[0], 1.0, 1.5e308),
    (lambda p, x: p[0] * x[0] * x[0], 1.0, 1e200),
    (lambda p, x: p[0] + x[0] + 1e308, 1.0, 1e308),
    (lambda p, x: (p[0] * x[0]).exp(), 1.0, 1000.0),
    (lambda p, x: (p[0] * x[0]) ** 0.5, 1.0, -4.0),
    (lambda p, x: (p[0] * x[0]) ** -2.0, 1.0, 0.0),
    (lambda p, x: x[0] ** p[0], 1.0, 1e300),
    (lambda p, x: p[0] / (x[0] * 1e-300), 1.0, 1e-300),
])
def test_errors_are_the_engines(fn, traced, called):
    step = compile_loss(fn, [1.5], [traced])
    want = engine(fn, [1.5], [called])
    assert isinstance(want[0], type)
    assert compiled(step, [1.5], [called]) == want


def test_the_tape_and_the_source_can_be_read():
    step = compile_loss(lambda p, x: (p[0] * x[0] + 1).relu(), [2.0], [3.0])
    assert step.tape == [Instruction("t0", "*", ("p0", "x0")),
                         Instruction("t1", "+", ("t0", "1.0")),
                         Instruction("t2", "relu", ("t1",))]
    assert "t2 = 0.0 if t1 < 0 else t1" in step.source
    assert "dt1 = dt2 if t2 > 0 else 0.0" in step.source
    assert isinstance(step, CompiledLoss) and "3 instructions" in repr(step)
