"""The engine contract: what both engines promise, each test run on each of them.

`autograd.engine.Value` (the reference: a closure per operation) and `autograd.fast.Value` (no
closures) offer one API, "the engine contract": values, gradients, accumulation, deep graphs,
errors, `repr`. Every test here takes the class under test as its argument `Value` and runs
once per engine. What only one engine does is tested in
tests/test_engine.py (the reference) and tests/test_fast.py (the fast engine, which is also
compared there with the reference on random programs); the floating-point edges of both are in
tests/test_edges.py. That the two engines offer the same methods, and that every operation is
in every place it must be, is tested in tests/test_engine_parity.py.
"""

import math
import sys

import pytest

from autograd import article, engine, fast, graph

ENGINES = {"reference": engine.Value, "fast": fast.Value}


@pytest.fixture(params=list(ENGINES.values()), ids=list(ENGINES))
def Value(request):
    """The class under test: each engine's Value in turn."""
    return request.param


def grads_of(Value, fn, *xs):
    """Build Values for xs, run fn, backpropagate; return (output data, [grads])."""
    vs = [Value(x) for x in xs]
    out = fn(*vs)
    out.backward()
    return out.data, [v.grad for v in vs]


# ---------------------------------------------------------------- the node itself


def test_new_value_stores_a_float_a_zero_grad_and_a_label(Value):
    v = Value(3, label="x")
    assert v.data == 3.0 and type(v.data) is float
    assert v.grad == 0.0
    assert v._prev == () and v._op == "" and v.label == "x"
    assert v._backward() is None and v.grad == 0.0  # a leaf passes nothing back


def test_leaf_backward_does_nothing(Value):
    v = Value(2.0)
    v.grad = 5.0
    assert v._backward() is None
    assert v.grad == 5.0


def test_prev_is_a_tuple_of_the_inputs_in_order(Value):
    a, b = Value(1.0), Value(2.0)
    assert (a + b)._prev == (a, b)
    assert (b * a)._prev == (b, a)
    assert type((a * b)._prev) is tuple
    assert (a**b)._prev == (a, b) and a.tanh()._prev == (a,)


def test_value_used_twice_keeps_both_edges(Value):
    x = Value(3.0)
    assert (x * x)._prev == (x, x)


def test_repr_matches_the_article(Value):
    assert repr(Value(2.0)) == "Value(data=2.0000, grad=0.0000)"
    v = Value(-1.23456)
    v.grad = 0.5
    assert repr(v) == "Value(data=-1.2346, grad=0.5000)"
    for x, g in [(0.0, 0.0), (1e6, -2.5), (math.nan, math.inf), (-0.00001, 1 / 3)]:
        v = Value(x)
        v.grad = g
        assert repr(v) == f"Value(data={x:.4f}, grad={g:.4f})"


def test_ops_are_labelled_for_drawings(Value):
    a, b = Value(1.0), Value(2.0)
    ops = [(a + b)._op, (a * b)._op, (a**2)._op, (a**0.5)._op, (a**b)._op, (2**a)._op]
    ops += [a.tanh()._op, a.exp()._op, a.log()._op, a.relu()._op, a.sigmoid()._op]
    expected = ["+", "*", "**2", "**0.5", "**", "**", "tanh", "exp", "log", "relu", "sigmoid"]
    assert ops == expected


def test_results_are_values_that_take_labels(Value):
    a, b = Value(1.0), Value(2.0)
    e = a * b
    e.label = "e"
    assert type(e) is Value and e.label == "e"


def test_a_node_made_by_hand_keeps_its_inputs_but_passes_nothing_back(Value):
    a, b = Value(1.0), Value(2.0)
    c = Value(3.0, (a, b), "+", label="c")
    assert c._prev == (a, b) and c._op == "+" and c.label == "c"
    c.backward()
    assert (a.grad, b.grad, c.grad) == (0.0, 0.0, 1.0)


# ---------------------------------------------------------------- operators, value and gradient

# (name, function, inputs, expected value, expected gradients), all derived by hand
CASES = [
    ("add", lambda a, b: a + b, (2.0, -3.0), -1.0, [1.0, 1.0]),
    ("sub", lambda a, b: a - b, (2.0, -3.0), 5.0, [1.0, -1.0]),
    ("sub_int", lambda a: a - 5, (2.0,), -3.0, [1.0]),
    ("mul", lambda a, b: a * b, (2.0, -3.0), -6.0, [-3.0, 2.0]),
    ("div", lambda a, b: a / b, (3.0, 4.0), 0.75, [0.25, -3.0 / 16.0]),
    ("neg", lambda a: -a, (2.5,), -2.5, [-1.0]),
    ("pow_int", lambda a: a**3, (2.0,), 8.0, [12.0]),
    ("pow_float", lambda a: a**0.5, (4.0,), 2.0, [0.25]),
    ("pow_negative", lambda a: a**-2, (2.0,), 0.25, [-0.25]),
    ("pow_value", lambda a, b: a**b, (2.0, 3.0), 8.0, [12.0, 8.0 * math.log(2.0)]),
    ("radd", lambda a: 1 + a, (2.0,), 3.0, [1.0]),
    ("rsub", lambda a: 1 - a, (2.0,), -1.0, [-1.0]),
    ("rmul", lambda a: 2 * a, (5.0,), 10.0, [2.0]),
    ("rtruediv", lambda a: 1 / a, (4.0,), 0.25, [-1.0 / 16.0]),
    ("rpow", lambda a: 2**a, (3.0,), 8.0, [8.0 * math.log(2.0)]),
    ("sum_builtin", lambda a, b, c: sum([a, b, c]), (1.0, 2.0, 3.0), 6.0, [1.0, 1.0, 1.0]),
    ("reuse_mul_add", lambda x: x * x + x, (3.0,), 12.0, [7.0]),
    ("tanh", lambda a: a.tanh(), (0.5,), math.tanh(0.5), [1 - math.tanh(0.5) ** 2]),
    ("exp", lambda a: a.exp(), (1.5,), math.exp(1.5), [math.exp(1.5)]),
    ("log", lambda a: a.log(), (4.0,), math.log(4.0), [0.25]),
    ("relu_positive", lambda a: a.relu(), (2.0,), 2.0, [1.0]),
    ("relu_negative", lambda a: a.relu(), (-2.0,), 0.0, [0.0]),
    ("relu_at_zero", lambda a: a.relu(), (0.0,), 0.0, [0.0]),
    ("sigmoid", lambda a: a.sigmoid(), (0.0,), 0.5, [0.25]),
    # package operations: sin 30 degrees is 1/2, its slope cos 30 degrees is sqrt(3)/2
    ("sin", lambda a: a.sin(), (math.pi / 6,), 0.5, [math.sqrt(3) / 2]),
    ("cos", lambda a: a.cos(), (math.pi / 3,), 0.5, [-math.sqrt(3) / 2]),
]


@pytest.mark.parametrize("name, fn, xs, value, grads", CASES, ids=[c[0] for c in CASES])
def test_operator_value_and_gradient(Value, name, fn, xs, value, grads):
    data, got = grads_of(Value, fn, *xs)
    assert data == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert got == pytest.approx(grads, rel=1e-12, abs=1e-15)


def test_sigmoid_gradient_is_sigma_times_one_minus_sigma(Value):
    x = 1.3
    s = 1.0 / (1.0 + math.exp(-x))
    data, (g,) = grads_of(Value, lambda a: a.sigmoid(), x)
    assert data == pytest.approx(s) and g == pytest.approx(s * (1 - s))


def test_sigmoid_is_stable_far_from_zero(Value):
    assert Value(-1000.0).sigmoid().data == 0.0
    assert Value(1000.0).sigmoid().data == 1.0


def test_tanh_does_not_overflow_for_large_inputs(Value):
    data, (g,) = grads_of(Value, lambda a: a.tanh(), 1000.0)
    assert data == 1.0 and g == 0.0


def test_negative_base_with_whole_exponent_is_fine(Value):
    data, (g,) = grads_of(Value, lambda a: a**3, -2.0)
    assert data == -8.0 and g == 12.0


# ---------------------------------------------------------------- the article's neuron


def test_article_neuron_matches_the_article_to_1e_12(Value):
    nodes = article.neuron(Value)
    nodes["o"].backward()
    assert nodes["o"].data == pytest.approx(0.7071067811865476, abs=1e-12)
    # 1 - o**2 = 1/2: each weight's gradient is its input halved, each input's its weight halved
    expected = {"w1": 1.0, "w2": 0.0, "x1": -1.5, "x2": 0.5, "b": 0.5}
    for name, grad in expected.items():
        assert nodes[name].grad == pytest.approx(grad, abs=1e-12), name
    for name, node in nodes.items():  # and every node in between, as the article draws them
        assert node.data == pytest.approx(article.NEURON_DATA[name], abs=1e-12), name
        assert node.grad == pytest.approx(article.NEURON_GRADS[name], abs=1e-12), name


# ---------------------------------------------------------------- accumulation over paths


def test_reused_node_accumulates_both_paths_in_add(Value):
    (g,) = grads_of(Value, lambda x: x + x, 3.0)[1]
    assert g == 2.0


def test_reused_node_accumulates_both_paths_in_mul(Value):
    (g,) = grads_of(Value, lambda x: x * x, 3.0)[1]
    assert g == 6.0


def test_diamond_sums_gradient_over_both_branches(Value):
    # a feeds b = 2a and c = a + 1; d = b * c = 2a(a + 1); dd/da = 4a + 2
    def diamond(a):
        b = 2 * a
        c = a + 1
        return b * c

    data, (g,) = grads_of(Value, diamond, 3.0)
    assert data == 24.0 and g == 14.0


def test_sort_lets_a_shared_node_collect_every_path_before_passing_it_on(Value):
    # b = a + a, c = b + b: dc/db = 2 and dc/da = 4, only if b passes its gradient after c
    a = Value(1.0)
    b = a + a
    c = b + b
    c.backward()
    assert (a.grad, b.grad, c.grad) == (4.0, 2.0, 1.0)


def test_backward_twice_adds_a_second_copy_of_leaf_gradients_only(Value):
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    d = a * b
    loss = d + c
    loss.backward()
    assert (a.grad, b.grad, c.grad, d.grad) == (-3.0, 2.0, 1.0, 1.0)
    loss.backward()
    assert (a.grad, b.grad, c.grad) == (-6.0, 4.0, 2.0)  # leaves accumulate
    assert (d.grad, loss.grad) == (1.0, 1.0)  # intermediate values start again from 0


def test_zeroing_leaf_gradients_restores_a_single_backward(Value):
    a, b = Value(2.0), Value(-3.0)
    loss = (a * b).tanh() * a
    loss.backward()
    once = (a.grad, b.grad)
    loss.backward()
    for v in (a, b):
        v.grad = 0.0
    loss.backward()
    assert (a.grad, b.grad) == once


def test_backward_from_an_intermediate_node(Value):
    a, b = Value(2.0), Value(5.0)
    d = a * b
    loss = d + a
    loss.backward()
    a.grad = b.grad = 0.0
    d.backward()
    assert (a.grad, b.grad, d.grad) == (5.0, 2.0, 1.0)


def test_backward_on_a_leaf_sets_its_gradient_to_one(Value):
    v = Value(4.0)
    v.backward()
    assert v.grad == 1.0
    v.grad = 3.0
    v.backward()
    assert v.grad == 1.0


def test_calling_backward_on_each_node_by_hand_matches_backward(Value):
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


# ---------------------------------------------------------------- deep graphs


def test_million_node_chain_at_default_recursion_limit(Value):
    assert sys.getrecursionlimit() <= 10_000  # the sort must not rely on a raised limit
    x = Value(0.5)
    # each step makes the sum and, in the reference engine only, a node for the 1.0
    per_step = len((x + 1.0)._prev)
    steps = 1_000_000 // per_step
    v = x
    for _ in range(steps):
        v = v + 1.0
    assert graph.count(v) == 1_000_001
    assert v.data == steps + 0.5
    v.backward()
    assert x.grad == 1.0
    del v  # freeing it must not recurse either


def _make_depend_on(node, other):
    """Edit `node`, made by a two-input operation, so that its second input is `other`."""
    if isinstance(node, fast.Value):
        node._b, node._db = other, 1.0
    else:
        node._prev = (node._prev[0], other)


@pytest.mark.parametrize("above", [0, 20_000], ids=["at the root", "20,000 nodes below it"])
def test_backward_refuses_a_graph_edited_into_a_cycle_naming_a_value_on_it(Value, above):
    a = Value(2.0, label="a")
    b = a * 3.0
    b.label = "b"
    d = (b + 1.0) * a
    d.label = "d"
    _make_depend_on(b, d)  # b = a * 3 now uses d, which is computed from b
    root = d
    for _ in range(above):
        root = root + 1.0
    with pytest.raises(ValueError, match=r"cycle: .*label '(b|d)'.* depends on itself"):
        root.backward()
    assert a.grad == 0.0  # refused before any gradient reached a leaf


def test_backward_on_a_deep_graph_without_a_cycle_is_not_refused(Value):
    """The look for a cycle starts only when the stack is deep; a deep graph without one, with
    shared nodes all the way down, must pass it and give the right gradient."""
    x = Value(1.5)
    v = x
    for _ in range(30_000):
        v = v * 1.0 + x * 0.0  # x is used at every depth: placed once, met again and again
    v.backward()
    assert x.grad == 1.0


def test_long_product_chain_gradient(Value):
    x = Value(1.0)
    v = x
    for _ in range(10_000):
        v = v * 1.0001
    v.backward()
    assert x.grad == pytest.approx(1.0001**10_000, rel=1e-9)


# ---------------------------------------------------------------- bad input

# name -> (how to get it wrong, the exception, patterns its message must match)
DIVISION_BY_ZERO = r"division by zero: 1\.0 / 0\.0"
ERRORS = {
    "str": (lambda V: V("abc"), TypeError, ["str"]),
    "None": (lambda V: V(None), TypeError, ["NoneType"]),
    "bool": (lambda V: V(True), TypeError, ["bool"]),
    "complex": (lambda V: V(1 + 2j), TypeError, ["complex"]),
    "list": (lambda V: V([1.0]), TypeError, ["list"]),
    "add str": (
        lambda V: V(1.0) + "a",
        TypeError,
        [r"for \+: Value\(data=1\.0\) and 'a' of type str"],
    ),
    "sub str": (lambda V: V(1.0) - "a", TypeError, ["str"]),
    "mul str": (lambda V: V(1.0) * "a", TypeError, ["str"]),
    "div str": (lambda V: V(1.0) / "a", TypeError, ["str"]),
    "pow str": (lambda V: V(1.0) ** "a", TypeError, ["str"]),
    "pow str exponent": (lambda V: V(2.0) ** "2", TypeError, ["exponent"]),
    "pow bool": (lambda V: V(2.0) ** True, TypeError, ["exponent"]),
    "None add": (lambda V: None + V(1.0), TypeError, ["NoneType"]),
    "None sub": (lambda V: None - V(1.0), TypeError, ["NoneType"]),
    "None mul": (
        lambda V: None * V(1.0),
        TypeError,
        [r"for \*: Value\(data=1\.0\) and None of type NoneType"],
    ),
    "None div": (lambda V: None / V(1.0), TypeError, ["NoneType"]),
    "None pow": (lambda V: None ** V(1.0), TypeError, ["NoneType"]),
    "log 0": (lambda V: V(0.0).log(), ValueError, [r"log\(0\.0\)"]),
    "log negative": (lambda V: V(-1.0).log(), ValueError, [r"log\(-1\.0\)"]),
    "divide by 0": (lambda V: V(1.0) / 0, ZeroDivisionError, [DIVISION_BY_ZERO]),
    "divide by a zero Value": (lambda V: V(1.0) / V(0.0), ZeroDivisionError, [DIVISION_BY_ZERO]),
    "number over a zero Value": (lambda V: 1 / V(0.0), ZeroDivisionError, [DIVISION_BY_ZERO]),
    "zero to a negative power": (lambda V: V(0.0) ** -1, ZeroDivisionError, [r"0\.0 \*\* -1"]),
    "zero to a negative Value power": (
        lambda V: V(0.0) ** V(-1.0),
        ZeroDivisionError,
        [r"0\.0 \*\* -1\.0"],
    ),
    "exp overflow": (lambda V: V(1000.0).exp(), OverflowError, [r"exp\(1000\.0\)"]),
    "pow overflow": (lambda V: V(10.0) ** 400, OverflowError, [r"10\.0 \*\* 400"]),
    "negative base, fractional exponent": (
        lambda V: V(-8.0) ** 0.5,
        ValueError,
        [r"-8\.0 \*\* 0\.5"],
    ),
    "negative base, fractional Value exponent": (
        lambda V: V(-8.0) ** V(1 / 3),
        ValueError,
        ["negative base"],
    ),
    "negative number to a fractional Value": (
        lambda V: (-8.0) ** V(0.5),
        ValueError,
        ["negative base"],
    ),
}


@pytest.mark.parametrize("name", ERRORS)
def test_bad_input_raises_a_clear_error_naming_the_operation_and_the_value(Value, name):
    make, error, patterns = ERRORS[name]
    with pytest.raises(error) as raised:
        make(Value)
    for pattern in patterns:
        assert raised.match(pattern)


@pytest.mark.parametrize("name", ERRORS)
def test_both_engines_raise_the_same_exception_and_message(name):
    make = ERRORS[name][0]
    with pytest.raises(Exception) as reference:
        make(engine.Value)
    with pytest.raises(Exception) as other:
        make(fast.Value)
    assert type(other.value) is type(reference.value)
    assert str(other.value) == str(reference.value)


# ---------------------------------------------------------------- NaN and infinity propagate


def test_nan_propagates_through_operations(Value):
    nan = Value(float("nan"))
    for out in (
        nan + 1,
        nan * 2,
        2 * nan,
        nan.tanh(),
        nan.exp(),
        nan.log(),
        nan.relu(),
        nan.sigmoid(),
    ):
        assert math.isnan(out.data)
    out = nan * Value(2.0)
    out.backward()
    assert math.isnan(out._prev[1].grad)  # d(out)/d(2.0) is the NaN


def test_infinity_propagates(Value):
    inf = Value(float("inf"))
    assert (inf + 1).data == math.inf
    assert inf.exp().data == math.inf
    assert inf.tanh().data == 1.0
    assert (-inf).exp().data == 0.0
    assert inf.sigmoid().data == 1.0


def test_sqrt_at_zero_has_infinite_slope(Value):
    _, (g,) = grads_of(Value, lambda a: a**0.5, 0.0)
    assert g == math.inf


def test_value_exponent_slope_is_nan_for_negative_base(Value):
    a, b = Value(-2.0), Value(2.0)
    out = a**b
    out.backward()
    assert out.data == 4.0 and a.grad == -4.0 and math.isnan(b.grad)


def test_slope_too_large_for_a_float_is_infinite_not_an_error(Value):
    # 1e-300 ** -0.5 = 1e150 fits in a float; its slope -0.5 * 1e-300 ** -1.5 does not
    data, (g,) = grads_of(Value, lambda a: a**-0.5, 1e-300)
    assert data == pytest.approx(1e150) and g == -math.inf
