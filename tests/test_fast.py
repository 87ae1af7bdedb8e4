"""The fast engine (`autograd.fast`): the reference engine's values, gradients, errors and
accumulation, without reference cycles, on graphs a million nodes deep.

The reference engine (`autograd.engine`) is the witness: both engines run the same random
programs, and their values and gradients must agree. Where a test needs a number, it is
derived by hand.
"""

import gc
import math
import random
import sys
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograd.engine import Value as Reference
from autograd.fast import Value

# ---------------------------------------------------------------- random programs

# name -> (arity, operation written with the operators and methods both engines share).
# Every operator and method appears, with plain numbers (ints and floats) on either side.
# Operands are kept where every operation is defined (log of 1 + a*a, division by
# 1.5 + tanh(b), ...); values that grow too large overflow the same way in both engines.
OPS = {
    "add": (2, lambda a, b: a + b),
    "sub": (2, lambda a, b: a - b),
    "mul": (2, lambda a, b: a * b),
    "div": (2, lambda a, b: a / (1.5 + b.tanh())),
    "vpow": (2, lambda a, b: (1.5 + a.tanh()) ** b.tanh()),
    "add_float": (1, lambda a: a + 2.5),
    "add_int": (1, lambda a: a + -1),
    "radd": (1, lambda a: -2.5 + a),
    "sub_float": (1, lambda a: a - 1.5),
    "sub_negative": (1, lambda a: a - -0.25),
    "rsub": (1, lambda a: 1.5 - a),
    "rsub_int": (1, lambda a: -2 - a),
    "mul_float": (1, lambda a: a * -0.75),
    "rmul_int": (1, lambda a: 3 * a),
    "div_float": (1, lambda a: a / 4.0),
    "div_int": (1, lambda a: a / -3),
    "rdiv": (1, lambda a: -2.0 / (1.5 + a.tanh())),
    "neg": (1, lambda a: -a),
    "square": (1, lambda a: a**2),
    "cube": (1, lambda a: a**3),
    "inverse_square": (1, lambda a: (1.5 + a.tanh()) ** -2),
    "sqrt": (1, lambda a: (1 + a * a) ** 0.5),
    "rpow": (1, lambda a: 2.0 ** a.tanh()),
    "rpow_int": (1, lambda a: 3 ** a.tanh()),
    "tanh": (1, lambda a: a.tanh()),
    "exp": (1, lambda a: a.tanh().exp()),
    "log": (1, lambda a: (1 + a * a).log()),
    "sigmoid": (1, lambda a: a.sigmoid()),
    "relu": (1, lambda a: a.relu()),  # the kink at 0 follows the same rule in both engines
}


@st.composite
def programs(draw, max_inputs=4, max_steps=16):
    """(inputs, steps): a few numbers, then steps (op name, indices of earlier results)."""
    n = draw(st.integers(1, max_inputs))
    inputs = draw(st.lists(st.floats(-2.0, 2.0), min_size=n, max_size=n))
    steps = []
    for k in range(draw(st.integers(1, max_steps))):
        name = draw(st.sampled_from(sorted(OPS)))
        # any earlier result may be an operand, so results are shared between steps
        steps.append((name, [draw(st.integers(0, n + k - 1)) for _ in range(OPS[name][0])]))
    return inputs, steps


def run(program, value_class):
    """Build the program with `value_class`: (every value, their sum), or the error raised.

    Summing every result makes each of them reach the output, so each has a gradient.
    """
    inputs, steps = program
    pool = [value_class(x) for x in inputs]
    try:
        for name, args in steps:
            pool.append(OPS[name][1](*(pool[i] for i in args)))
        total = pool[len(inputs)]
        for v in pool[len(inputs) + 1 :]:
            total = total + v
    except (ArithmeticError, ValueError) as e:
        return None, None, (type(e), str(e))
    return pool, total, None


def same(x, y):
    """Equal to 1e-12 (relative), with NaN equal to NaN and infinities equal to themselves."""
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-300)


def assert_same_values_and_grads(ref_pool, fast_pool):
    for i, (r, f) in enumerate(zip(ref_pool, fast_pool)):
        assert same(r.data, f.data), (i, r.data, f.data)
        assert same(r.grad, f.grad), (i, r.grad, f.grad)


# ---------------------------------------------------------------- the two engines agree


@settings(max_examples=300)
@given(programs())
def test_random_graphs_give_the_reference_values_and_gradients(program):
    ref_pool, ref_total, ref_error = run(program, Reference)
    fast_pool, fast_total, fast_error = run(program, Value)
    assert fast_error == ref_error  # the same exception type and message, or none
    if ref_error:
        return
    ref_total.backward()
    fast_total.backward()
    assert same(ref_total.data, fast_total.data)
    assert fast_total.grad == 1.0
    assert_same_values_and_grads(ref_pool, fast_pool)  # inputs and every intermediate result
    assert all(type(v.grad) is float for v in fast_pool)  # no bookkeeping object left behind


@settings(max_examples=150)
@given(programs())
def test_backward_twice_accumulates_like_the_reference(program):
    ref_pool, ref_total, ref_error = run(program, Reference)
    fast_pool, fast_total, _ = run(program, Value)
    if ref_error:
        return
    for _ in range(2):
        ref_total.backward()
        fast_total.backward()
    assert_same_values_and_grads(ref_pool, fast_pool)


@settings(max_examples=100)
@given(programs(), st.floats(-3.0, 3.0))
def test_backward_from_an_intermediate_result_matches_the_reference(program, start):
    ref_pool, _, ref_error = run(program, Reference)
    fast_pool, _, _ = run(program, Value)
    if ref_error:
        return
    for pool in (ref_pool, fast_pool):
        for v in pool[: len(program[0])]:  # the leaves start from a gradient of their own
            v.grad = start
        pool[-1].backward()
    assert_same_values_and_grads(ref_pool, fast_pool)


def test_nan_and_infinity_propagate_like_the_reference():
    for x in (math.nan, math.inf, -math.inf):
        for name, (arity, op) in sorted(OPS.items()):
            program = ([x, 0.5][:arity], [(name, list(range(arity)))])
            ref_pool, ref_total, ref_error = run(program, Reference)
            fast_pool, fast_total, fast_error = run(program, Value)
            assert fast_error == ref_error, (name, x)
            if not ref_error:
                ref_total.backward()
                fast_total.backward()
                assert_same_values_and_grads(ref_pool, fast_pool)


def test_nan_and_infinity_values_pass_through():
    nan, inf = Value(math.nan), Value(math.inf)
    for out in (nan + 1, 2 * nan, nan.tanh(), nan.exp(), nan.log(), nan.relu(), nan.sigmoid()):
        assert math.isnan(out.data)
    assert (inf + 1).data == math.inf and inf.exp().data == math.inf
    assert inf.tanh().data == 1.0 and (-inf).exp().data == 0.0 and inf.sigmoid().data == 1.0
    out = nan * Value(2.0)
    out.backward()
    assert math.isnan(out._b.grad)  # d(out)/d(2.0) is the NaN


# ---------------------------------------------------------------- values and gradients by hand


def test_article_neuron_to_1e_12():
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    o = (x1 * w1 + x2 * w2 + b).tanh()
    o.backward()
    assert o.data == pytest.approx(0.7071067811865476, abs=1e-12)
    expected = {w1: 1.0, w2: 0.0, x1: -1.5, x2: 0.5, b: 0.5}
    for v, g in expected.items():
        assert v.grad == pytest.approx(g, abs=1e-12), v.label


@pytest.mark.parametrize(
    "fn, xs, value, grads",
    [
        (lambda a, b: a / b, (3.0, 4.0), 0.75, [0.25, -3.0 / 16.0]),
        (lambda a: 1 / a, (4.0,), 0.25, [-1.0 / 16.0]),
        (lambda a: 1 - a, (2.0,), -1.0, [-1.0]),
        (lambda a: a - 5, (2.0,), -3.0, [1.0]),
        (lambda a: a**-2, (2.0,), 0.25, [-0.25]),
        (lambda a, b: a**b, (2.0, 3.0), 8.0, [12.0, 8.0 * math.log(2.0)]),
        (lambda a: 2**a, (3.0,), 8.0, [8.0 * math.log(2.0)]),
        (lambda a: a.log(), (4.0,), math.log(4.0), [0.25]),
        (lambda a: a.sigmoid(), (0.0,), 0.5, [0.25]),
        (lambda a: a.relu(), (0.0,), 0.0, [0.0]),
        (lambda x: x * x + x, (3.0,), 12.0, [7.0]),
        (lambda a, b, c: sum([a, b, c]), (1.0, 2.0, 3.0), 6.0, [1.0, 1.0, 1.0]),
    ],
)
def test_operation_value_and_gradient_by_hand(fn, xs, value, grads):
    vs = [Value(x) for x in xs]
    out = fn(*vs)
    out.backward()
    assert out.data == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert [v.grad for v in vs] == pytest.approx(grads, rel=1e-12, abs=1e-15)


def test_sort_lets_a_shared_node_collect_every_path_before_passing_it_on():
    # b = a + a, c = b + b: dc/db = 2 and dc/da = 4, only if b fires after c
    a = Value(1.0)
    b = a + a
    c = b + b
    c.backward()
    assert (a.grad, b.grad, c.grad) == (4.0, 2.0, 1.0)


def test_sqrt_at_zero_has_infinite_slope():
    x = Value(0.0)
    (x**0.5).backward()
    assert x.grad == math.inf


def test_slope_too_large_for_a_float_is_infinite():
    # d/dx x**-0.5 = -0.5 x**-1.5 = -0.5e450 at x = 1e-300: beyond the largest float
    x = Value(1e-300)
    out = x**-0.5
    out.backward()
    assert out.data == pytest.approx(1e150) and x.grad == -math.inf


def test_value_exponent_slope_is_nan_for_a_negative_base():
    a, b = Value(-2.0), Value(2.0)
    out = a**b
    out.backward()
    assert out.data == 4.0 and a.grad == -4.0 and math.isnan(b.grad)


# ---------------------------------------------------------------- accumulation


def test_backward_twice_adds_a_second_copy_of_leaf_gradients_only():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    d = a * b
    loss = d + c
    loss.backward()
    assert (a.grad, b.grad, c.grad, d.grad) == (-3.0, 2.0, 1.0, 1.0)
    loss.backward()
    assert (a.grad, b.grad, c.grad) == (-6.0, 4.0, 2.0)  # leaves accumulate
    assert (d.grad, loss.grad) == (1.0, 1.0)  # intermediate values start again from 0


def test_zeroing_leaf_gradients_restores_a_single_backward():
    a, b = Value(2.0), Value(-3.0)
    loss = (a * b).tanh() * a
    loss.backward()
    once = (a.grad, b.grad)
    loss.backward()
    a.grad = b.grad = 0.0
    loss.backward()
    assert (a.grad, b.grad) == once


def test_backward_on_a_leaf_sets_its_gradient_to_one():
    v = Value(4.0)
    v.grad = 3.0
    v.backward()
    assert v.grad == 1.0


def test_calling_backward_on_each_node_by_hand_matches_backward():
    # what a backward stepper does: order the nodes through _prev, seed, fire each _backward
    def build():
        x, y = Value(0.5), Value(-2.0)
        h = (x * y + 1).tanh()
        return x, y, h * h + h.exp() - 3 / (1 + y * y) + 2**x

    x, y, out = build()
    out.backward()
    expected = (x.grad, y.grad)

    x, y, out = build()
    order, seen = [], set()

    def visit(v):
        if v not in seen:
            seen.add(v)
            for child in v._prev:
                visit(child)
            order.append(v)

    visit(out)
    out.grad = 1.0
    for v in reversed(order):
        v._backward()
    assert (x.grad, y.grad) == expected


# ---------------------------------------------------------------- the node itself


def test_repr_is_the_reference_repr():
    assert repr(Value(2.0)) == "Value(data=2.0000, grad=0.0000)"
    v = Value(-1.23456)
    v.grad = 0.5
    assert repr(v) == "Value(data=-1.2346, grad=0.5000)"
    for x, g in [(0.0, 0.0), (1e6, -2.5), (math.nan, math.inf), (-0.00001, 1 / 3)]:
        f, r = Value(x), Reference(x)
        f.grad = r.grad = g
        assert repr(f) == repr(r)


def test_new_value_stores_a_float_a_zero_grad_and_a_label():
    v = Value(3, label="x")
    assert v.data == 3.0 and type(v.data) is float and v.grad == 0.0
    assert v._prev == () and v._op == "" and v.label == "x"
    assert v._backward() is None and v.grad == 0.0  # a leaf passes nothing back


def test_prev_is_a_tuple_of_the_inputs_in_order():
    a, b = Value(1.0), Value(2.0)
    assert (a + b)._prev == (a, b) and (b * a)._prev == (b, a)
    assert type((a * b)._prev) is tuple
    assert (a * a)._prev == (a, a)
    assert (a**b)._prev == (a, b) and a.tanh()._prev == (a,)


def test_a_plain_number_operand_is_not_wrapped_in_a_node():
    a = Value(2.0)
    assert (a * 3)._prev == (a,) and (3 + a)._prev == (a,) and (2**a)._prev == (a,)


def test_ops_are_labelled_like_the_reference_for_drawings():
    for V in (Value, Reference):
        a, b = V(1.0), V(2.0)
        ops = [(a + b)._op, (a * b)._op, (a**2)._op, (a**0.5)._op, (a**b)._op, (2**a)._op]
        ops += [a.tanh()._op, a.exp()._op, a.log()._op, a.relu()._op, a.sigmoid()._op]
        expected = ["+", "*", "**2", "**0.5", "**", "**", "tanh", "exp", "log", "relu", "sigmoid"]
        assert ops == expected


def test_results_are_values_that_take_labels():
    a, b = Value(1.0), Value(2.0)
    e = a * b
    e.label = "e"
    assert type(e) is Value and e.label == "e"


def test_a_node_made_by_hand_keeps_its_inputs_but_passes_nothing_back():
    a, b = Value(1.0), Value(2.0)
    c = Value(3.0, (a, b), "+", label="c")
    assert c._prev == (a, b) and c._op == "+" and c.label == "c"
    c.backward()
    assert (a.grad, b.grad, c.grad) == (0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="at most two inputs, but was given 3"):
        Value(3.0, (a, b, a))


# ---------------------------------------------------------------- errors

BAD = {
    "str": lambda V: V("abc"),
    "None": lambda V: V(None),
    "bool": lambda V: V(True),
    "complex": lambda V: V(1 + 2j),
    "list": lambda V: V([1.0]),
    "add str": lambda V: V(1.0) + "a",
    "sub str": lambda V: V(1.0) - "a",
    "mul str": lambda V: V(1.0) * "a",
    "div str": lambda V: V(1.0) / "a",
    "pow str": lambda V: V(2.0) ** "2",
    "pow bool": lambda V: V(2.0) ** True,
    "None add": lambda V: None + V(1.0),
    "None sub": lambda V: None - V(1.0),
    "None mul": lambda V: None * V(1.0),
    "None div": lambda V: None / V(1.0),
    "None pow": lambda V: None ** V(1.0),
    "log 0": lambda V: V(0.0).log(),
    "log negative": lambda V: V(-1.0).log(),
    "divide by 0": lambda V: V(1.0) / 0,
    "divide by a zero Value": lambda V: V(1.0) / V(0.0),
    "number over a zero Value": lambda V: 1 / V(0.0),
    "zero to a negative power": lambda V: V(0.0) ** -1,
    "zero to a negative Value power": lambda V: V(0.0) ** V(-1.0),
    "exp overflow": lambda V: V(1000.0).exp(),
    "pow overflow": lambda V: V(10.0) ** 400,
    "negative base, fractional exponent": lambda V: V(-8.0) ** 0.5,
    "negative base, fractional Value exponent": lambda V: V(-8.0) ** V(1 / 3),
    "negative number to a fractional Value": lambda V: (-8.0) ** V(0.5),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_the_reference_exception_and_message(name):
    with pytest.raises(Exception) as ref:
        BAD[name](Reference)
    with pytest.raises(Exception) as fast:
        BAD[name](Value)
    assert type(fast.value) is type(ref.value)
    assert str(fast.value) == str(ref.value)


@pytest.mark.parametrize(
    "name, error, message",
    [
        ("str", TypeError, "str"),
        ("None", TypeError, "NoneType"),
        ("bool", TypeError, "bool"),
        ("complex", TypeError, "complex"),
        ("add str", TypeError, r"for \+: Value\(data=1\.0\) and 'a' of type str"),
        ("None mul", TypeError, r"for \*: Value\(data=1\.0\) and None of type NoneType"),
        ("log 0", ValueError, r"log\(0\.0\)"),
        ("log negative", ValueError, r"log\(-1\.0\)"),
        ("divide by 0", ZeroDivisionError, r"division by zero: 1\.0 / 0\.0"),
        ("divide by a zero Value", ZeroDivisionError, r"division by zero: 1\.0 / 0\.0"),
        ("number over a zero Value", ZeroDivisionError, r"division by zero: 1\.0 / 0\.0"),
        ("exp overflow", OverflowError, r"exp\(1000\.0\)"),
        ("negative base, fractional exponent", ValueError, r"-8\.0 \*\* 0\.5"),
        ("negative base, fractional Value exponent", ValueError, "negative base"),
        ("pow bool", TypeError, "exponent"),
    ],
)
def test_error_message_names_the_operation_and_the_value(name, error, message):
    with pytest.raises(error, match=message):
        BAD[name](Value)


# ---------------------------------------------------------------- no reference cycles


def every_operation(x, y):
    """A graph that uses every operator and method, with numbers on both sides."""
    z = (x * y + 1).tanh() - x / (1 + y * y) + 2**x + (x * x + 1) ** y.tanh() + (1 + x * x).log()
    z = z + y.sigmoid() + x.relu() + (-y).exp() - 3 + 0.5 * z - 1 / (2 + x.tanh()) + z**2
    return z


def live(value_class):
    return sum(1 for o in gc.get_objects() if type(o) is value_class)


@pytest.mark.parametrize("value_class, has_cycles", [(Value, False), (Reference, True)])
def test_a_dropped_graph_is_freed_without_the_collector(value_class, has_cycles):
    # The reference engine is the control: its closures make cycles, which this test sees.
    gc.collect()
    gc.disable()
    try:
        before = live(value_class)
        x, y = value_class(0.5), value_class(-1.5)
        out = every_operation(x, y)
        out.backward()
        assert live(value_class) > before + 20
        del out
        left = live(value_class) - before - 2  # x and y are still ours
        found = gc.collect()
    finally:
        gc.enable()
    if has_cycles:
        assert left > 0 and found > 0
    else:
        assert left == 0 and found == 0


def train(value_class, steps):
    """Train a 2-4-1 relu network with a hinge loss and SGD, the collector off.

    Returns the memory held (tracemalloc) after each step, and the nodes in one step's graph.
    """
    rng = random.Random(0)
    def neuron(nin):
        return [value_class(rng.uniform(-1, 1)) for _ in range(nin)], value_class(0.0)

    layers = [[neuron(nin) for _ in range(nout)] for nin, nout in ((2, 4), (4, 1))]
    params = [p for layer in layers for w, b in layer for p in (*w, b)]
    points = [((rng.uniform(-1, 1), rng.uniform(-1, 1)), rng.choice((-1, 1))) for _ in range(16)]

    def loss():
        total = 0.0
        for x, label in points:
            h = [value_class(xi) for xi in x]
            for i, layer in enumerate(layers):
                h = [sum((wi * hi for wi, hi in zip(w, h)), b) for w, b in layer]
                h = [v.relu() for v in h] if i == 0 else h
            total = total + (1 - label * h[0]).relu()
        return total * (1.0 / len(points)) + 1e-4 * sum(p * p for p in params)

    memory = []
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        for _ in range(steps):
            out = loss()
            for p in params:
                p.grad = 0.0
            out.backward()
            for p in params:
                p.data -= 0.1 * p.grad
            nodes = count_nodes(out)
            del out
            memory.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
        gc.enable()
    return memory, nodes


def count_nodes(root):
    seen, stack = {root}, [root]
    while stack:
        for child in stack.pop()._prev:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return len(seen)


def test_training_steps_do_not_grow_memory_with_the_collector_off():
    memory, nodes = train(Value, steps=6)
    assert nodes > 300
    assert max(memory[1:]) - min(memory[1:]) < 1024  # less than ten nodes' worth
    # the control: the same loop on the reference engine keeps every step's graph
    memory, nodes = train(Reference, steps=3)
    assert memory[2] - memory[1] > 100 * nodes


# ---------------------------------------------------------------- deep graphs


def test_million_node_chain_at_the_default_recursion_limit():
    assert sys.getrecursionlimit() <= 10_000  # the sort must not rely on a raised limit
    x = Value(0.5)
    v = x
    for _ in range(1_000_000):  # one node per step: the 1.0 is not wrapped
        v = v + 1.0
    assert count_nodes(v) == 1_000_001
    v.backward()
    assert v.data == 1_000_000.5 and x.grad == 1.0
    del v  # freeing it must not recurse either


def test_deep_chain_through_the_second_input():
    x = Value(2.0)
    v = x
    for _ in range(100_000):
        v = x * v if v.data < 1e6 else x + v  # each step's chain runs through its input b
    v.backward()
    ref = Reference(2.0)
    w = ref
    for _ in range(100_000):
        w = ref * w if w.data < 1e6 else ref + w
    w.backward()
    assert v.data == w.data and same(x.grad, ref.grad)


# ---------------------------------------------------------------- the nn library


def test_nn_mlp_trains_the_same_on_both_engines():
    from autograd import nn

    points = [((0.5, -1.0), 1), ((-0.3, 0.8), -1), ((1.2, 0.1), 1), ((-1.0, -0.7), -1)]
    results = []
    for value_class in (Reference, Value):
        model = nn.MLP(2, [4, 4, 1], seed=3, value_class=value_class)
        assert all(type(p) is value_class for p in model.parameters())
        losses = [(1 - label * model(x)).relu() for x, label in points]
        loss = sum(losses) * (1.0 / len(points)) + 1e-4 * sum(p * p for p in model.parameters())
        model.zero_grad()
        loss.backward()
        results.append([loss.data] + [p.grad for p in model.parameters()])
    assert all(same(r, f) for r, f in zip(*results))
