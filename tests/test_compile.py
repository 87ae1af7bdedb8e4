"""autograd.compile: a loss traced once and replayed as generated Python, against the engine.

The compiled function promises the engine's numbers bit for bit (see its docstring), so every
comparison here is exact: the same float, the same sign of zero, NaN where the engine has NaN.
"""

import math
import re
import struct
import threading

import pytest
from conftest import require_module
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from autograd import nn
from autograd.article import NEURON, neuron
from autograd.compile import (
    CompiledLoss,
    Instruction,
    NoCompilerWarning,
    TraceMismatch,
    compile_loss,
    compile_step,
)
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


@pytest.mark.parametrize(
    "fn, params",
    [
        (lambda p, x: p[0].relu() * math.inf, [-1.0]),  # relu below 0: nothing, even inf
        (lambda p, x: (p[0] ** 0) * math.inf, [2.0]),  # x ** 0: nothing either
        (lambda p, x: (p[0] ** p[1] + p[2]) ** 0.5, [0.0, 0.0, -1.0]),  # b = 0 under an inf grad
        (lambda p, x: p[0] ** 0.5, [0.0]),  # an infinite slope
        (lambda p, x: (p[0] * -1.0) * 0.0, [3.0]),  # zeros with a sign
        (lambda p, x: p[0] / p[1] + p[1] / 7, [1e-300, 1e300]),
        (lambda p, x: (p[0] * p[0]).tanh() + (p[0] - 20).sigmoid(), [0.999]),
        (lambda p, x: 2 ** p[0] + p[0] ** -2 - 3 / p[0], [-1.5]),
    ],
)
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


def test_a_value_given_as_two_leaves_is_refused():
    # The engine cannot hold two numbers in one Value: traced as both a parameter and an
    # input, or as two inputs, the later one would be ignored on replay.
    a = Value(1.5, label="a")
    with pytest.raises(ValueError, match=r"input 0, Value\(data=1.5000.*is also parameter 0"):
        compile_loss(lambda p, x: p[0] * x[0], [a], [a])
    with pytest.raises(ValueError, match=r"input 1, Value\(data=1.5000.*is also input 0"):
        compile_loss(lambda p, x: p[0] * x[0] * x[1], [2.0], [a, a])
    assert compile_loss(lambda p, x: p[0] * x[0], [a], [1.5])([1.5], [3.0]) == (4.5, [3.0])


def test_a_node_made_by_hand_is_refused_as_grad_refuses_it():
    # Value(data, children, op) records its inputs but no derivative: backward() passes
    # nothing through it, so compiled code that differentiated it as a '+' would be wrong.
    def fn(p, x):
        t = p[0] * x[0]
        by_hand = Value(t.data, (t, p[0]), "+")
        return by_hand * p[0] + t

    with pytest.raises(ValueError, match=r"made by hand, as Value\(data, children, op\)"):
        compile_loss(fn, [2.0], [1.5])

    def replaced(p, x):
        t = p[0] * x[0]
        t._backward = lambda: None
        return t

    with pytest.raises(ValueError, match="_backward is not the engine's closure for '\\*'"):
        compile_loss(replaced, [2.0], [1.5])


def test_inputs_that_are_not_numbers_say_what_they_were():
    step = compile_loss(lambda p, x: p[0] * x[0], [2.0], [1.5])
    for wrong, shown in (
        (None, "None of type NoneType"),
        ("abc", "'abc' of type str"),
        ({1.5}, "{1.5} of type set"),
    ):
        with pytest.raises(
            TypeError,
            match=r"inputs must be a list or tuple shaped 1 number, as at "
            r"the trace, but were given " + re.escape(shown),
        ):
            step([2.0], wrong)
    with pytest.raises(
        TypeError, match="input 0 must be a real number, but was given None of type NoneType"
    ):
        step([2.0], [None])
    with pytest.raises(
        TypeError, match="parameter 0 must be a real number, but was given '2' of type str"
    ):
        step(["2"], [1.5])
    for wrong, shown in ((None, "None of type NoneType"), ("abc", "'abc' of type str")):
        with pytest.raises(
            TypeError,
            match="input 0 must be a real number or a leaf Value .* but "
            "was given " + re.escape(shown),
        ):
            compile_loss(lambda p, x: p[0], [2.0], wrong)


def test_numpy_inputs_say_what_they_were():
    np = require_module("numpy")
    step = compile_loss(lambda p, x: p[0] * x[0], [2.0], [1.5])
    with pytest.raises(
        TypeError,
        match=r"but were given array\(\[1.5\]\) of type "
        r"numpy.ndarray: pass a list, e\.g\. array\.tolist\(\)",
    ):
        step([2.0], np.array([1.5]))
    assert step(np.array([2.0]), [np.float64(1.5)]) == (3.0, [1.5])
    with pytest.raises(
        TypeError,
        match=r"input 0 must be a real number or a leaf Value .* but "
        r"was given array\(\[1.5\]\) of type numpy.ndarray: "
        r"pass a list",
    ):
        compile_loss(lambda p, x: p[0] * x, [2.0], np.array([1.5]))


def test_tracing_changes_nothing_global_and_threads_trace_apart():
    # A trace must not patch the engine for the whole process: two threads tracing at once
    # would then see each other's operations, and could leave the patch in place for good.
    init = Value.__init__
    barrier = threading.Barrier(2, timeout=10)
    unpatched = []

    def fn_of(op):
        def fn(p, x):
            t = p[0]
            for _ in range(5):
                barrier.wait()  # the two traces take turns, one operation each
                unpatched.append(Value.__init__ is init)
                t = op(t, x[0])
            return t

        return fn

    steps = {}

    def trace(name, op):
        steps[name] = compile_loss(fn_of(op), [2.0], [3.0])

    threads = [
        threading.Thread(target=trace, args=("times", lambda a, b: a * b)),
        threading.Thread(target=trace, args=("plus", lambda a, b: a + b)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert Value.__init__ is init and all(unpatched) and len(unpatched) == 10
    assert [ins.op for ins in steps["times"].tape] == ["*"] * 5
    assert [ins.op for ins in steps["plus"].tape] == ["+"] * 5
    assert steps["times"]([2.0], [3.0]) == (2.0 * 3.0**5, [3.0**5])
    assert steps["plus"]([2.0], [3.0]) == (17.0, [1.0])


# --------------------------------------------------------------------- guards


def test_a_call_of_another_shape_raises_a_clear_error():
    step = compile_loss(lambda p, x: p[0] * x[0][0] + p[1] * x[1][1], [1.0, 2.0], [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="compiled for 2 parameters, but was given 3"):
        step([1.0, 2.0, 3.0], [[1, 2], [3, 4]])
    with pytest.raises(
        ValueError,
        match=r"inputs shaped 2 × \(2 numbers\), but was given "
        r"3 × \(2 numbers\)",
    ):
        step([1.0, 2.0], [[1, 2], [3, 4], [5, 6]])
    with pytest.raises(TypeError, match="parameter 1 must be a real number"):
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


def test_a_mismatch_says_where_the_trace_and_the_engine_part_ways_and_why():
    def fn(ps, xs):
        t = ps[0] * xs[0]
        if xs[0].data > 0:  # decided at trace time
            return t.tanh()
        return t.exp()

    checked = compile_loss(fn, [2.0], [0.5], check=True)
    with pytest.raises(TraceMismatch) as caught:
        checked([2.0], [-0.5])
    message = str(caught.value)
    assert "at parameters [2.0] and inputs [-0.5]" in message
    assert "operation 2: the compiled code runs t1 = tanh(t0) where the engine ran 'exp'" in message
    assert "branches on .data" in message

    w = Value(3.0)  # a constant of the compiled code, frozen at 3.0
    checked = compile_loss(lambda ps, xs: ps[0] * xs[0] * w, [2.0], [0.5], check=True)
    w.data = 4.0
    with pytest.raises(
        TraceMismatch,
        match=r"operation 2, t1 = t0 \* 3.0, which gives 3.0 in "
        r"the compiled code but 4.0 in the engine. Its "
        r"constant 3.0 is a number frozen at the trace",
    ):
        checked([2.0], [0.5])


def test_a_mismatch_of_the_c_code_alone_blames_the_c_build_not_the_trace():
    # The C code is the tape in another language: where the same tape run as Python agrees
    # with the engine, the difference is the C build's floating point.
    step = compile_loss(lambda ps, xs: (ps[0] / xs[0]).log(), [2.0], [3.0], check=True)
    python = step._function  # the compiled Python code

    def c_code_one_bit_off(p, x):
        loss, grads = python(p, x)
        return loss, [math.nextafter(grads[0], math.inf)]

    step._c, step.backend = c_code_one_bit_off, "c"
    with pytest.raises(
        TraceMismatch,
        match=r"the gradient of parameter 0 is .* from the "
        r"compiled code but .* from the engine \(1 ulp apart\)"
        r".*the same tape run as Python agrees with the "
        r"engine.*C compiler",
    ):
        step([2.0], [3.0])


def test_the_checking_mode_leaves_the_models_values_as_they_were():
    w = Value(0.5)
    w.grad = 7.0
    step = compile_loss(lambda ps, xs: w * xs[0], [w], [2.0], check=True)
    assert step([3.0], [2.0]) == (6.0, [2.0])
    assert (w.data, w.grad) == (0.5, 7.0)


def test_leaves_that_are_not_parameters_or_inputs_are_constants():
    c = Value(10.0)
    step = compile_loss(lambda ps, xs: ps[0] * c + (c * 2).exp(), [1.0])
    assert step.tape[0] == Instruction("t0", "*", ("p0", 10.0))  # c is the constant 10.0
    assert len(step.tape) == 2  # and (c * 2).exp(), computed from constants only, one more
    c.data = 0.0  # frozen at trace time
    assert step([2.0]) == (20.0 + math.exp(20.0), [10.0])


# --------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "fn, traced, called",
    [
        (lambda p, x: (p[0] * x[0]).log(), 1.0, -2.0),
        (lambda p, x: (p[0] * x[0]).log(), 1.0, 0.0),
        (lambda p, x: p[0] / x[0], 1.0, 0.0),
        (lambda p, x: p[0] * x[0], 1.0, 1.5e308),
        (lambda p, x: p[0] * x[0] * x[0], 1.0, 1e200),
        (lambda p, x: p[0] + x[0] + 1e308, 1.0, 1e308),
        (lambda p, x: (p[0] * x[0]).exp(), 1.0, 1000.0),
        (lambda p, x: (p[0] * x[0]) ** 0.5, 1.0, -4.0),
        (lambda p, x: (p[0] * x[0]) ** -2.0, 1.0, 0.0),  # the message prints -2.0 ...
        (lambda p, x: (p[0] * x[0]) ** -2, 1.0, 0.0),  # ... and -2, as the engine
        (lambda p, x: x[0] ** p[0], 1.0, 1e300),
        (lambda p, x: p[0] / (x[0] * 1e-300), 1.0, 1e-300),
    ],
)
def test_errors_are_the_engines(fn, traced, called):
    step = compile_loss(fn, [1.5], [traced])
    want = engine(fn, [1.5], [called])
    assert isinstance(want[0], type)
    assert compiled(step, [1.5], [called]) == want


def test_the_tape_and_the_source_can_be_read():
    step = compile_loss(lambda p, x: (p[0] * x[0] + 1).relu(), [2.0], [3.0])
    assert step.tape == [
        Instruction("t0", "*", ("p0", "x0")),
        Instruction("t1", "+", ("t0", 1.0)),
        Instruction("t2", "relu", ("t1",)),
    ]
    assert "t2 = t1 - t1 if t1 < 0 else t1" in step.source  # -inf gives NaN: see the docstring
    assert "dt1 = dt2 if t2 > 0 else 0.0" in step.source
    assert isinstance(step, CompiledLoss) and "3 instructions" in repr(step)
    # fused, the same lines on the lists v (p0, x0, then t0, t1, t2) and d (dp0, then the rest)
    fused = compile_loss(lambda p, x: (p[0] * x[0] + 1).relu(), [2.0], [3.0], fuse=True).source
    assert "v[4] = v[3] - v[3] if v[3] < 0 else v[3]" in fused
    assert "d[2] = d[1] if v[4] > 0 else 0.0" in fused


def test_a_number_exponent_is_written_as_the_engine_holds_it():
    # The op label prints 2 for both `x ** 2` and `x ** 2.0`; the code keeps the difference.
    for n, text in ((2, "_power(x0, 2)"), (2.0, "_power(x0, 2.0)"), (0.5, "_power(x0, 0.5)")):
        step = compile_loss(lambda p, x, n=n: p[0] * x[0] ** n, [1.0], [3.0])
        assert text in step.source
        fused = compile_loss(lambda p, x, n=n: p[0] * x[0] ** n, [1.0], [3.0], fuse=True)
        assert text.replace("x0", "v[1]") in fused.source
        assert step.tape[0] == Instruction("t0", "**n", ("x0", n))
        assert type(step.tape[0].args[1]) is type(n)


def test_the_passes_find_what_the_backward_pass_reads_and_what_folds():
    from autograd.compile import passes, tape, tracing

    def trace_of(fn, params, inputs):
        leaves = [Value(v) for v in params + inputs]
        with tracing.creations() as made:
            root = fn(leaves[: len(params)], leaves[len(params) :])
        return tape.record(root, [], False, leaves[: len(params)], leaves[len(params) :], made)

    # t0 = p0 * x0; t1 = t0 + p1; t2 = tanh(t1): tanh's slope reads t2, the product's x0;
    # t0 is used once, by the sum, and read by nothing else, so the C code folds it.
    trace = trace_of(lambda p, x: (p[0] * x[0] + p[1]).tanh(), [0.5, -1.0], [2.0])
    flow = passes.gradient_flow(trace)
    reads = passes.backward_reads(flow)
    assert reads == {"t2", "x0"}
    assert passes.folded(trace, reads | set(passes.ends(trace))) == {"t0"}
    assert flow.variable == {"t0": "t1"}  # the sum passes its gradient on as it is
    # relu reads its result only in its condition (out > 0): that counts too
    trace = trace_of(lambda p, x: (p[0] * x[0]).relu() + p[1], [0.5, -1.0], [2.0])
    assert passes.backward_reads(passes.gradient_flow(trace)) == {"t1", "x0"}


def test_the_first_error_is_the_one_the_engine_meets_first():
    # Both logs fail for these numbers; the engine made log(x0) first, though the graph of
    # `b + a` lists b first: the compiled code must raise for x0 too.
    def fn(p, x):
        a = (x[0] * p[0]).log()
        b = (x[1] * p[0]).log()
        return b + a

    step = compile_loss(fn, [1.0], [2.0, 3.0])
    want = engine(fn, [1.0], [-2.0, -3.0])
    assert want == (ValueError, "log(-2.0) is undefined: log needs a positive value")
    assert compiled(step, [1.0], [-2.0, -3.0]) == want


def test_values_that_are_not_finite_take_the_careful_path_and_still_match():
    # Each of these swallows an infinity on the way to the loss, where the fast code cannot
    # see it: relu(-inf) is 0, tanh(inf) is 1, exp(-inf) is 0, 1 / inf is 0.
    fn = lambda p, x: (
        (p[0] * x[0]).relu()
        + (p[0] * x[0]).tanh()
        + (p[0] * x[0]).exp()
        + 1 / (p[0] * x[0])
        + (p[0] * x[0]).sigmoid()
    )
    step = compile_loss(fn, [1.0], [2.0])
    for x in (math.inf, -math.inf, math.nan, 1e300, -1e300):
        assert_identical(compiled(step, [1.0], [x]), engine(fn, [1.0], [x]))
    # and an overflow inside, swallowed by relu, is still the engine's OverflowError
    fn2 = lambda p, x: (-(p[0] * x[0] * x[0])).relu()
    assert compiled(compile_loss(fn2, [1.0], [2.0]), [1.0], [1e200]) == engine(fn2, [1.0], [1e200])


# --------------------------------------------------------------------- edge programs


def edge_fn(prog):
    """The program of tests/edge_programs.py as a function of its inputs (as parameters)."""
    from edge_programs import apply

    def fn(ps, xs):
        nodes = list(ps)
        for step in prog.steps:
            nodes.append(apply(step.op, [nodes[j] for j in step.args], step.n))
        return nodes[-1]

    return fn


def edge_cases(count, inputs="moderate"):
    """(fn, the numbers of the trace, numbers to replay) for edge programs whose trace runs:
    traced at their own numbers, replayed at those of the next program with as many inputs,
    which are often at the edges of floating point (zeros, subnormals, overflow)."""
    from edge_programs import program

    progs = [program(i, inputs) for i in range(count)]
    edges = [program(i, "edges") for i in range(count)]
    cases = []
    for prog in progs:
        fn = edge_fn(prog)
        params = list(prog.inputs)
        if isinstance(engine(fn, params, [])[0], type):
            continue  # the trace itself would raise
        others = [list(e.inputs) for e in edges if len(e.inputs) == len(params)]
        cases.append((fn, params, others[:3]))
    return cases


def test_edge_programs_give_the_engines_numbers_and_errors():
    for fn, params, others in edge_cases(400):
        step = compile_loss(fn, params)
        for numbers in [params, *others]:
            assert_identical(compiled(step, numbers, []), engine(fn, numbers, []))


# --------------------------------------------------------------------- the C backend


@pytest.fixture
def c_cache(tmp_path, monkeypatch):
    """A C compiler (or a skip with the reason; a failure in CI) and an empty cache."""
    from conftest import skip_or_fail

    from autograd.compile import c_compiler

    if c_compiler() is None:
        skip_or_fail("no C compiler (cc, gcc or clang) on the PATH: the C backend cannot be tested")
    monkeypatch.setenv("AUTOGRAD_CACHE", str(tmp_path))
    return tmp_path


def test_c_edge_programs_give_the_engines_numbers_and_errors(c_cache):
    for fn, params, others in edge_cases(120)[:40]:
        step = compile_loss(fn, params, backend="c")
        assert step.backend == "c"
        for numbers in [params, *others]:
            assert_identical(compiled(step, numbers, []), engine(fn, numbers, []))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(programs(), st.integers(1, 4), st.data())
def test_c_random_programs_give_the_engines_numbers(c_cache, program, k, data):
    params, inputs, fn = split_program(program, k)
    assume(not isinstance(engine(fn, params, inputs)[0], type))
    step = compile_loss(fn, params, inputs, backend="c")
    assert step.backend == "c" and "loss_and_grads" in step.source
    assert_identical(step(params, inputs), engine(fn, params, inputs))
    numbers = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
    new_params = [data.draw(numbers) for _ in params]
    new_inputs = [data.draw(numbers) for _ in inputs]
    assert_identical(compiled(step, new_params, new_inputs), engine(fn, new_params, new_inputs))


def test_c_every_operation_and_the_edge_rules(c_cache):
    fns = [(lambda f, n: lambda ps, xs: f(*ps[:n]))(op.function, op.arity) for op in OPS.values()]
    cases = [(fn, [0.7, -0.3]) for fn in fns] + [
        (lambda p, x: p[0].relu() * math.inf, [-1.0]),
        (lambda p, x: (p[0] ** p[1] + p[2]) ** 0.5, [0.0, 0.0, -1.0]),
        (lambda p, x: (p[0] * -1.0) * 0.0, [3.0]),
        (lambda p, x: 2 ** p[0] + p[0] ** -2 - 3 / p[0], [-1.5]),
    ]

    # one library for all of them: a sum of the cases, each on parameters of its own
    def fn(ps, xs):
        total, i = None, 0
        for case, params in cases:
            term = case(ps[i : i + len(params)], xs)
            total = term if total is None else total + term
            i += len(params)
        return total

    params = [p for _, ps in cases for p in ps]
    step = compile_loss(fn, params, backend="c")
    assert step.backend == "c"
    assert_identical(step(params), engine(fn, params, []))


def test_c_an_mlp_step_and_its_auxiliary_scores(c_cache):
    X, y = make_moons(n=20, noise=0.1, seed=2)
    model = nn.MLP(2, [8, 8, 1], seed=0)
    params = model.parameters()

    def loss_fn(ps, xs):
        scores = [model(row) for row in xs]
        return nn.hinge_loss(scores, y) + nn.l2_penalty(ps, 1e-4), scores

    numbers = [p.data for p in params]
    in_c = compile_loss(loss_fn, params, X, backend="c", has_aux=True)
    in_python = compile_loss(loss_fn, params, X, has_aux=True)
    loss, grads, scores = in_c(numbers, X)
    assert (loss, grads, scores) == in_python(numbers, X)
    model.zero_grad()
    root, values = loss_fn(params, [[Value(a) for a in row] for row in X])
    root.backward()
    assert loss == root.data and grads == [p.grad for p in params]
    assert scores == [v.data for v in values]
    assert in_c.compile_seconds > 0 and "c" in repr(in_c)


def test_c_libraries_are_cached_by_their_code(c_cache):
    fn = lambda p, x: (p[0] * x[0]).tanh() * p[1]
    first = compile_loss(fn, [0.5, 2.0], [1.5], backend="c")
    libraries = sorted(c_cache.rglob("loss-*"))
    assert len(libraries) == 1
    again = compile_loss(fn, [0.25, 3.0], [2.5], backend="c")  # other numbers, the same code
    assert sorted(c_cache.rglob("loss-*")) == libraries
    other = compile_loss(lambda p, x: (p[0] * x[0]).exp() * p[1], [0.5, 2.0], [1.5], backend="c")
    assert len(list(c_cache.rglob("loss-*"))) == 2
    assert first([0.5, 2.0], [1.5]) == again([0.5, 2.0], [1.5])
    assert other([0.5, 2.0], [1.5]) == engine(
        lambda p, x: (p[0] * x[0]).exp() * p[1], [0.5, 2.0], [1.5]
    )


def test_without_a_compiler_a_warning_says_so_and_python_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no cc, gcc or clang
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("AUTOGRAD_CACHE", str(tmp_path))
    fn = lambda p, x: (p[0] * x[0]).tanh()
    with pytest.warns(
        NoCompilerWarning,
        match="needs a C compiler .* none was found; running the compiled Python code instead",
    ):
        step = compile_loss(fn, [0.5], [2.0], backend="c")
    assert step.backend == "python" and step.source.startswith("def loss_and_grads")
    assert_identical(step([0.5], [2.0]), engine(fn, [0.5], [2.0]))


def test_a_compiler_that_fails_is_reported_and_python_runs(tmp_path, monkeypatch):
    broken = tmp_path / "brokencc"
    broken.write_text("#!/bin/sh\necho 'brokencc: cannot compile today' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("CC", str(broken))
    monkeypatch.setenv("AUTOGRAD_CACHE", str(tmp_path / "cache"))
    with pytest.warns(NoCompilerWarning, match="failed .*cannot compile today"):
        step = compile_loss(lambda p, x: p[0] * x[0], [0.5], [2.0], backend="c")
    assert step.backend == "python" and step([0.5], [2.0]) == (1.0, [2.0])


def test_bad_backend_and_opt_level_are_refused():
    with pytest.raises(ValueError, match="backend must be 'python' or 'c', not 'C'"):
        compile_loss(lambda p, x: p[0], [1.0], backend="C")
    with pytest.raises(ValueError, match="opt_level must be a whole number from 0 to 3"):
        compile_loss(lambda p, x: p[0], [1.0], opt_level=4)
    with pytest.raises(TypeError, match="has_aux=True the function must return"):
        compile_loss(lambda p, x: p[0], [1.0], has_aux=True)


# --------------------------------------------------------------------- a compiled training step


def moons_runs(steps=12, batch=20, **engines):
    """Losses of `steps` mini-batch steps on the moons by each named way of stepping."""
    from autograd.fast import Value as FastValue

    X, y = make_moons(n=60, noise=0.1, seed=3)
    batches = [(X[i : i + batch], y[i : i + batch]) for i in range(0, len(X), batch)]
    runs = {}
    for name, way in engines.items():
        model = nn.MLP(2, [8, 8, 1], seed=4, value_class=FastValue if way == "fast" else Value)
        step = None
        losses = []
        for k in range(steps):
            bx, by = batches[k % len(batches)]
            if way in ("reference", "fast"):
                result = nn.train_step(model, bx, by, lr=0.3)
            else:
                step = step or compile_step(model, bx, by, backend=way)
                result = step(bx, by, lr=0.3)
            losses.append(result)
        runs[name] = (losses, [p.data for p in model.parameters()])
    return runs


def test_a_compiled_step_trains_the_moons_step_for_step_like_the_engines():
    runs = moons_runs(reference="reference", fast="fast", compiled="python")
    reference, fast, compiled_run = runs["reference"], runs["fast"], runs["compiled"]
    assert compiled_run == reference  # the same losses, accuracies and weights, to the bit
    for (f_loss, f_acc), (r_loss, r_acc) in zip(fast[0], reference[0]):
        assert f_loss == pytest.approx(r_loss, rel=1e-9) and f_acc == r_acc
    assert reference[0][-1].loss < reference[0][0].loss  # and it did learn


def test_a_compiled_c_step_trains_the_moons_like_the_reference_engine(c_cache):
    runs = moons_runs(steps=6, reference="reference", compiled="c")
    assert runs["compiled"] == runs["reference"]


def test_a_compiled_step_with_an_optimizer_leaves_the_gradients_in_the_parameters():
    X, y = make_moons(n=10, noise=0.1, seed=0)
    model, twin = nn.MLP(2, [4, 1], seed=1), nn.MLP(2, [4, 1], seed=1)
    step = compile_step(model, X, y, loss="mse", alpha=0.0)
    schedule = lambda k: 0.1 / (1 + k)
    got = step(X, y, optimizer=nn.SGD(model.parameters(), schedule))
    want = nn.train_step(
        twin, X, y, loss="mse", alpha=0.0, optimizer=nn.SGD(twin.parameters(), schedule)
    )
    assert got == want
    assert [p.grad for p in model.parameters()] == [p.grad for p in twin.parameters()]
    assert [p.data for p in model.parameters()] == [p.data for p in twin.parameters()]


def test_what_a_compiled_step_refuses():
    from autograd.fast import Value as FastValue

    X, y = make_moons(n=6, noise=0.1, seed=0)
    model = nn.MLP(2, [3, 1], seed=0)
    with pytest.raises(ValueError, match="cannot compile loss='bce'.*freeze"):
        compile_step(model, X, y, loss="bce")
    with pytest.raises(TypeError, match="value_class=autograd.engine.Value"):
        compile_step(nn.MLP(2, [3, 1], seed=0, value_class=FastValue), X, y)
    with pytest.raises(ValueError, match="labels must be -1 or \\+1, but label 0 is 0"):
        compile_step(model, X, [0] * len(X))
    step = compile_step(model, X, y)
    with pytest.raises(TypeError, match="exactly one of lr="):
        step(X, y)
    with pytest.raises(ValueError, match="labels must be -1 or \\+1, but label 2 is 2"):
        step(X, [1, 1, 2, 1, 1, 1], lr=0.1)
    with pytest.raises(ValueError, match="inputs shaped"):
        step(X[:5], y[:5], lr=0.1)
