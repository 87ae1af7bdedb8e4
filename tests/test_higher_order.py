"""Higher-order gradients (`autograd.grad`): derivatives that are Values, differentiated again.

The witnesses: backward() itself (grad without create_graph gives its numbers bit for bit; with
create_graph, Values that hold them), PyTorch's second and third derivatives on the same random
graphs (tests/programs.py), central differences of backward()'s first derivative, and a few
closed forms. Every operation of both engines is run on purpose, not only when hypothesis
happens to draw it. The last tests plant wrong rules and check that these comparisons fail.
"""

import doctest
import gc
import math
import pickle
import struct

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from autograd import (
    _grad_speed,
    engine,
    fast,
    grad,
    grad_rules,
    graph,
    higher_order,
    reading,
    stages,
)
from autograd.grad_rules import RULES
from conftest import require_module
from edge_programs import apply as apply_edge_step
from edge_programs import program as edge_program
from programs import OPS, programs, run, run_or_error

ENGINES = [engine.Value, fast.Value]
both_engines = pytest.mark.parametrize("Value", ENGINES, ids=["reference", "fast"])

SMALL = {"max_inputs": 3, "max_steps": 8}  # third derivatives of bigger graphs only cost time
NUMBERS = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)

# Measured worst disagreements, each relative to the largest magnitude among the derivatives
# of that order (at least 1): with PyTorch, 1e-15 at every order (both compute the same
# derivatives, rounding differently); with central differences (steps 1e-5 for the second
# derivative, 1e-4 for the third), 4e-9 and 9e-7 over 4000 programs. The tolerances leave a
# margin of 100 or more and stay far below the error of a wrong rule, which is of order 1.
PYTORCH_TOLERANCE = 1e-12
DIFFERENCE_TOLERANCE = {1: 1e-6, 2: 1e-4}  # {order - 1: tolerance}: second and third


# ------------------------------------------------------------------------------ helpers


def floats(values):
    """Nested lists of Values as nested lists of their numbers."""
    if isinstance(values, list):
        return [floats(v) for v in values]
    return values.data


def flat(nested):
    if isinstance(nested, list):
        for item in nested:
            yield from flat(item)
    else:
        yield nested


def bits(x):
    return struct.pack("<d", x)


def built(program, Value):
    """(pool of every value, their sum) for `program`, or None where building it overflows."""
    pool, total, error = run_or_error(program, Value)
    return None if error else (pool, total)


def edge_graphs(Value, count):
    """(i, program, every node) for each of the first `count` edge programs that builds
    without an error, the program's inputs first, then one node per step."""
    for i in range(count):
        program = edge_program(i)
        nodes = [Value(x) for x in program.inputs]
        try:
            for step in program.steps:
                nodes.append(apply_edge_step(step.op, [nodes[j] for j in step.args], step.n))
        except (ArithmeticError, ValueError):
            continue
        yield i, program, nodes


def single_op_program(name):
    """Steps that apply operation `name` to two inputs, then to its own result and an input
    again, with products in between: reuse, and compositions of the operation with itself."""
    if OPS[name].arity == 2:
        return [(name, (0, 1)), (name, (2, 0)), ("mul", (3, 1)), (name, (1, 4))]
    return [(name, (0,)), ("mul", (2, 1)), (name, (3,)), ("mul", (4, 0)), (name, (1,))]


def our_derivatives(total, leaves):
    """[first, second, third] derivatives of `total` in `leaves`, by grad: g[i], H[i][j],
    T[i][j][k]. Each derivative is a Value whose graph reaches every leaf, so grad needs no
    allow_unused after the first call."""
    first = grad(total, leaves, create_graph=True, allow_unused=True)
    second = [grad(g, leaves, create_graph=True) for g in first]
    third = [[grad(h, leaves) for h in row] for row in second]
    return floats(first), floats(second), floats(third)


def pytorch_derivatives(torch, steps, inputs):
    """The same three orders of derivatives from PyTorch (float64, torch.autograd.grad)."""
    xs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in inputs]
    zero = torch.zeros((), dtype=torch.float64)

    def derivative(y, create_graph):
        if not y.requires_grad:  # a constant: PyTorch has no graph to differentiate
            return [zero for _ in xs]
        found = torch.autograd.grad(
            y, xs, create_graph=create_graph, retain_graph=True, allow_unused=True
        )
        return [zero if g is None else g for g in found]

    first = derivative(run(steps, xs), True)
    second = [derivative(g, True) for g in first]
    third = [[derivative(h, False) for h in row] for row in second]
    items = lambda nested: [items(t) for t in nested] if isinstance(nested, list) else nested.item()
    return items(first), items(second), items(third)


def assert_agree(ours, theirs, tolerance, what):
    """Every entry within `tolerance` times the largest magnitude of `theirs` (at least 1);
    NaN only where the other is NaN too."""
    ours, theirs = list(flat(ours)), list(flat(theirs))
    assert len(ours) == len(theirs)
    scale = max([abs(t) for t in theirs if not math.isnan(t)] + [1.0])
    for index, (a, b) in enumerate(zip(ours, theirs)):
        if math.isnan(a) or math.isnan(b):
            assert math.isnan(a) and math.isnan(b), (what, index, a, b)
        else:
            assert abs(a - b) <= tolerance * scale, (what, index, a, b)


def exponent_is_zero_in_a_power_of_values(steps, pool):
    """Whether a `vpow` step, (1.5 + tanh a) ** tanh b, meets b = 0, where PyTorch's second
    derivative drops a term (see test_mixed_derivative_of_a_power_at_exponent_zero)."""
    return any(name == "vpow" and pool[args[1]].data == 0 for name, args in steps)


def compare_with_pytorch(torch, program, Value):
    """Assert that grad's first, second and third derivatives are PyTorch's; False (nothing
    compared) where the program overflows or meets PyTorch's dropped term."""
    inputs, steps = program
    if (made := built(program, Value)) is None:
        return False
    pool, total = made
    if exponent_is_zero_in_a_power_of_values(steps, pool):
        return False
    ours = our_derivatives(total, pool[: len(inputs)])
    theirs = pytorch_derivatives(torch, steps, inputs)
    for order, what in enumerate(("first", "second", "third")):
        assert_agree(ours[order], theirs[order], PYTORCH_TOLERANCE, what)
    return True


def backward_gradient(steps, inputs, Value):
    leaves = [Value(x) for x in inputs]
    run(steps, leaves).backward()
    return [leaf.grad for leaf in leaves]


def differences_of_the_gradient(steps, inputs, Value, h2=1e-5, h3=1e-4):
    """Second and third derivatives by central differences of backward()'s gradient g:
    H[i][j] = (g_i(x + h e_j) - g_i(x - h e_j)) / 2h; T[i][j][j] by the second difference
    (g_i(x + h e_j) - 2 g_i(x) + g_i(x - h e_j)) / h^2, T[i][j][k] by the four corners."""
    n = len(inputs)

    def g(*moves):
        xs = list(inputs)
        for j, step in moves:
            xs[j] += step
        return backward_gradient(steps, xs, Value)

    second = [[0.0] * n for _ in range(n)]
    third = [[[0.0] * n for _ in range(n)] for _ in range(n)]
    here = g()
    for j in range(n):
        up, down = g((j, h2)), g((j, -h2))
        up3, down3 = g((j, h3)), g((j, -h3))
        for i in range(n):
            second[i][j] = (up[i] - down[i]) / (2 * h2)
            third[i][j][j] = (up3[i] - 2 * here[i] + down3[i]) / h3**2
        for k in range(n):
            if k != j:
                pp, pm = g((j, h3), (k, h3)), g((j, h3), (k, -h3))
                mp, mm = g((j, -h3), (k, h3)), g((j, -h3), (k, -h3))
                for i in range(n):
                    third[i][j][k] = (pp[i] - pm[i] - mp[i] + mm[i]) / (4 * h3 * h3)
    return second, third


def compare_with_differences(program, Value):
    """Assert that grad's second and third derivatives are those of central differences;
    False (nothing compared) where the program overflows, at its inputs or shifted ones."""
    inputs, steps = program
    if (made := built(program, Value)) is None:
        return False
    pool, total = made
    try:
        numeric = differences_of_the_gradient(steps, inputs, Value)
    except (ArithmeticError, ValueError):
        return False
    ours = our_derivatives(total, pool[: len(inputs)])
    for order in (1, 2):
        assert_agree(
            ours[order],
            numeric[order - 1],
            DIFFERENCE_TOLERANCE[order],
            ("second", "third")[order - 1],
        )
    return True


@pytest.fixture(scope="module")
def torch():
    return require_module("torch")


# ------------------------------------------------------------------- what a learner sees


@pytest.mark.parametrize(
    "module", [higher_order, grad_rules, reading], ids=lambda module: module.__name__
)
def test_the_module_docstrings_example_runs(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


@both_engines
def test_derivatives_of_x_cubed_to_the_fifth_order(Value):
    x = Value(3.0, label="x")
    derivative, found = x**3, []
    for _ in range(5):
        derivative = grad(derivative, x, create_graph=True)
        found.append(derivative.data)
    assert found == [27.0, 18.0, 6.0, 0.0, 0.0]  # 3x^2, 6x, 6, then 0 and 0, not an error


@both_engines
def test_derivatives_of_tanh_match_their_closed_forms(Value):
    x = Value(0.8)
    t = math.tanh(0.8)
    d1 = grad(x.tanh(), x, create_graph=True)
    d2 = grad(d1, x, create_graph=True)
    d3 = grad(d2, x)
    assert d1.data == (1 - t) * (1 + t)  # the engine's own expression, bit for bit
    assert d2.data == pytest.approx(-2 * t * (1 - t * t), rel=1e-14)
    assert d3.data == pytest.approx(-2 * (1 - t * t) * (1 - 3 * t * t), rel=1e-14)


@both_engines
def test_reused_node_accumulates_both_paths_at_every_order(Value):
    x = Value(2.0)
    y = x * x + x  # x reaches y three times
    d1 = grad(y, x, create_graph=True)
    assert d1.data == 5.0  # 2x + 1
    assert grad(d1, x).data == 2.0


@both_engines
def test_one_input_gives_one_gradient_and_a_list_or_tuple_gives_a_list(Value):
    x, z = Value(2.0), Value(-1.0)
    y = x * z
    assert isinstance(grad(y, x), Value)
    assert [g.data for g in grad(y, [x, z])] == [-1.0, 2.0]
    in_a_tuple = grad(y, (z, x, z))
    assert type(in_a_tuple) is list and [g.data for g in in_a_tuple] == [2.0, -1.0, 2.0]
    assert grad(y, []) == []


@both_engines
def test_without_create_graph_each_gradient_is_a_fresh_leaf(Value):
    x = Value(2.0)
    first, second = grad(x * x, [x, x])
    for g in (first, second):
        assert type(g) is Value and g._prev == () and g._op == "" and g.data == 4.0
    assert first is not second


@both_engines
def test_with_create_graph_every_gradient_reaches_every_input(Value):
    x, z = Value(2.0), Value(-1.0)
    gradients = grad(3 * x + z, [x, z], create_graph=True)  # 3 and 1: constants
    assert [g.data for g in gradients] == [3.0, 1.0]
    for g in gradients:
        reached = {id(node) for node in graph.topological_order(g)}
        assert id(x) in reached and id(z) in reached
    assert [h.data for h in grad(gradients[0], [x, z])] == [0.0, 0.0]


@both_engines
def test_relu_has_slope_zero_at_zero_and_second_derivative_zero_everywhere(Value):
    for point, slope in ((1.5, 1.0), (0.0, 0.0), (-1.5, 0.0)):
        x = Value(point)
        d1 = grad(x.relu() * x, x, create_graph=True)  # relu(x) + x relu'(x)
        assert d1.data == max(point, 0.0) + point * slope
        assert grad(d1, x).data == 2 * slope  # 2 relu'(x) + x relu''(x), with relu'' = 0


@both_engines
def test_mixed_derivative_of_a_power_at_exponent_zero(Value):
    # a ** b at b = 0 passes nothing back to a (its slope b a^(b-1) is 0 there), but the slope's
    # own slope in b is a^-1: grad keeps it, and central differences agree. PyTorch gives 0.
    def da(a, b):
        x, y = Value(a), Value(b)
        (x**y).backward()
        return x.grad

    a, b = Value(1.7), Value(0.0)
    slope_in_a = grad(a**b, a, create_graph=True)
    assert slope_in_a.data == 0.0
    mixed = grad(slope_in_a, b).data
    h = 1e-6
    assert mixed == pytest.approx((da(1.7, h) - da(1.7, -h)) / (2 * h), rel=1e-8)
    assert mixed == pytest.approx(1 / 1.7, rel=1e-15)


def test_pytorch_drops_the_mixed_derivative_of_a_power_at_exponent_zero(torch):
    a = torch.tensor(1.7, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    (slope_in_a,) = torch.autograd.grad(a**b, a, create_graph=True)
    (mixed,) = torch.autograd.grad(slope_in_a, b)
    assert mixed.item() == 0.0  # where grad gives 1/1.7 (previous test). Should PyTorch change
    # this, compare_with_pytorch can stop leaving out the programs that meet it.


@both_engines
def test_an_infinite_slope_is_a_constant_and_matches_backward(Value):
    x = Value(0.0)
    y = x**0.5 + x
    y.backward()
    d1 = grad(y, x, create_graph=True)
    assert d1.data == x.grad == math.inf
    assert grad(d1, x).data == 0.0  # nothing to differentiate in a constant


@both_engines
def test_a_gradient_too_large_for_a_float_raises_with_create_graph(Value):
    x = Value(1e-310)  # subnormal: the slope of log is 1/x, about 1e310
    y = x.log()
    y.backward()
    assert x.grad == math.inf and grad(y, x).data == math.inf
    with pytest.raises(OverflowError, match=r"through Value\(data=-71.*'log', is too large"):
        grad(y, x, create_graph=True)
    x = Value(1e-310)
    y = x.log() * 1e-20  # 1e-20 / x fits in a float, though 1/x does not: every mode gives it
    y.backward()
    assert grad(y, x, create_graph=True).data == grad(y, x).data == x.grad == 1e-20 / 1e-310


@both_engines
def test_a_graph_far_deeper_than_the_recursion_limit_works(Value):
    x = Value(0.3)
    y = x
    for _ in range(3000):  # 6000 nodes deep; Python's recursion limit is 1000
        y = (y + x).tanh()
    first = grad(y, x, create_graph=True)
    second = grad(first, x)
    y.backward()
    assert first.data == x.grad
    assert math.isfinite(second.data)


def test_a_pickled_fast_graph_differentiates_like_the_original():
    # relu below 0 and x ** 0 record the engine's STOP; 1/x overflows at a subnormal x and
    # records the engine's _Divide: pickle copies both, and grad still knows them
    x, z = fast.Value(-1.0), fast.Value(1e-310)
    y = x.relu() + x**0 * x + z.log() * 1e-20
    copy = pickle.loads(pickle.dumps(y))
    leaves = [copy._a._b._b, copy._b._a._a]  # x and z, as the copy holds them
    assert [v.data for v in leaves] == [-1.0, 1e-310]
    for create_graph in (False, True):
        assert (
            [g.data for g in grad(copy, leaves, create_graph=create_graph)]
            == [g.data for g in grad(y, [x, z], create_graph=create_graph)]
            == [1.0, 1e-20 / 1e-310]
        )


# ------------------------------------------------------------ the same numbers as backward()


@both_engines
@settings(max_examples=150)
@given(program=programs())
def test_without_create_graph_gradients_are_backwards_bit_for_bit(Value, program):
    assume((made := built(program, Value)) is not None)
    pool, total = made
    ours = grad(total, pool, allow_unused=True)  # every input and every intermediate value
    total.backward()
    assert [bits(g.data) for g in ours] == [bits(node.grad) for node in pool]


@both_engines
@settings(max_examples=150)
@given(program=programs())
def test_with_create_graph_gradients_hold_backwards_numbers(Value, program):
    assume((made := built(program, Value)) is not None)
    pool, total = made
    ours = grad(total, pool, create_graph=True, allow_unused=True)
    total.backward()
    for g, node in zip(ours, pool):  # == : a zero may differ in sign (see grad's docstring)
        assert g.data == node.grad or (math.isnan(g.data) and math.isnan(node.grad))


@both_engines
def test_at_the_edges_of_floating_point_gradients_are_backwards(Value):
    # Raw operations on zeros, subnormals, huge numbers, infinite gradients: every node's
    # gradient, bit for bit without create_graph; the same number, or an OverflowError where
    # backward() has an infinite gradient, with it.
    ran = overflowed = 0
    for i, program, nodes in edge_graphs(Value, 500):
        output = nodes[-1]
        plain = grad(output, nodes, allow_unused=True)
        try:
            as_values = grad(output, nodes, create_graph=True, allow_unused=True)
        except OverflowError:
            as_values = None
        output.backward()
        expected = [node.grad for node in nodes]
        assert [bits(g.data) for g in plain] == [bits(g) for g in expected], (i, str(program))
        if as_values is None:
            assert not all(math.isfinite(g) for g in expected), (i, str(program))
            overflowed += 1
        else:
            for g, e in zip(as_values, expected):
                assert g.data == e or (math.isnan(g.data) and math.isnan(e)), (i, str(program))
        ran += 1
    assert ran > 250 and overflowed < ran / 10  # most programs ran: the test did compare


# Without create_graph, grad takes a speed path (`_grad_speed.numbers`): backward()'s own parts,
# added into a dictionary of its own. On a graph it does not vouch for it runs the chain rule
# (`higher_order._by_the_chain_rule`), each operation's rule from the table. The two must agree
# bit for bit, and the speed path must take every graph the engines build.


def speed_path_numbers(total, nodes, Value):
    """The speed path's gradient of every node of `nodes`, as bytes (0 for one it never meets)."""
    quick = _grad_speed.numbers(total, nodes, Value, True)
    assert quick is not None, "the speed path refused a graph the engine built"
    return [bits(g.data) for g in quick]


def chain_rule_numbers(total, nodes, Value, create_graph=False):
    """The chain rule's gradient of every node of `nodes`, as bytes."""
    found = higher_order._by_the_chain_rule(total, nodes, False, Value, create_graph, True)
    return [bits(g.data) for g in found]


@both_engines
@settings(max_examples=150)
@given(program=programs())
def test_the_speed_path_takes_every_program_and_gives_the_chain_rules_numbers(Value, program):
    assume((made := built(program, Value)) is not None)
    pool, total = made
    assert speed_path_numbers(total, pool, Value) == chain_rule_numbers(total, pool, Value)


def graph_shape(value):
    """A gradient's graph as data: each node's op, the bytes of its number, and the positions
    of its inputs, in topological order."""
    nodes = graph.topological_order(value)
    position = {id(node): i for i, node in enumerate(nodes)}
    return [(node._op, bits(node.data), [position[id(c)] for c in node._prev]) for node in nodes]


def network_loss(Value, sizes, seed, points):
    """(the max-margin loss of a relu network MLP(2, sizes) on `points`, labelled +1 and -1 in
    turn, as the benchmark builds it; the network's weights)."""
    from autograd.nn import MLP

    model = MLP(2, sizes, seed=seed, value_class=Value)
    loss = sum(((1 + -((-1) ** i) * model(p)).relu() for i, p in enumerate(points)), Value(0.0))
    return loss, model.parameters()


@both_engines
@settings(max_examples=60)
@given(program=programs(**SMALL))
def test_gradients_as_values_are_the_chain_rules_node_for_node(Value, program):
    # with create_graph grad sorts the graph, finds what each result reaches and ties the
    # others its own way; the gradients' graphs are the chain rule's, node for node
    assume((made := built(program, Value)) is not None)
    pool, total = made
    leaves = pool[: len(program[0])]
    for nodes in (leaves, pool):
        ours = grad(total, nodes, create_graph=True, allow_unused=True)
        theirs = higher_order._by_the_chain_rule(total, nodes, False, Value, True, True)
        assert [graph_shape(g) for g in ours] == [graph_shape(g) for g in theirs]


@both_engines
@pytest.mark.parametrize(
    "make",
    [
        lambda x, y, z: (x * x) * y,
        lambda x, y, z: (x * y) * (y * z),
        lambda x, y, z: (x * x) * (y * y),
        lambda x, y, z: ((x * y).tanh() * z) * x,
    ],
    ids=["x*x*y", "xy*yz", "xx*yy", "tanh(xy)*z*x"],
)
def test_products_that_reach_some_inputs_twice_give_the_chain_rules_graphs(Value, make):
    # the gradient of a product reads the other factor: which inputs each gradient's graph can
    # reach decides how grad ties it, so these small products, where an input sits on both
    # sides, must give the chain rule's graphs node for node
    x, y, z = Value(0.75), Value(-1.25), Value(2.0)
    total = make(x, y, z)
    for nodes in ([x, y], [x, y, z], [y, z], [x]):
        ours = grad(total, nodes, create_graph=True, allow_unused=True)
        theirs = higher_order._by_the_chain_rule(total, nodes, False, Value, True, True)
        assert [graph_shape(g) for g in ours] == [graph_shape(g) for g in theirs]


@both_engines
@pytest.mark.parametrize(
    "make",
    [
        lambda x, y, z: (x.relu() * y) * z,
        lambda x, y, z: (x.relu() + y.relu()) * z + x * y,
        lambda x, y, z: ((x.relu() * 3.0) * y + z.relu()) * (y * z).relu(),
        lambda x, y, z: (x.relu().tanh() * y + x.relu()) * z,
        lambda x, y, z: ((x * y).relu() * z).relu() * x + (z * y).relu().exp(),
    ],
    ids=["relu*y*z", "relus-added", "relu*3", "tanh-of-relu", "relu-of-relus"],
)
def test_gradients_that_reach_no_result_leave_the_chain_rules_graphs(Value, make):
    # a relu at or below 0 passes nothing back, so what reaches it reaches no result: grad
    # keeps it as a number, and the results' graphs are the chain rule's, node for node
    x, y, z = Value(-0.75), Value(-1.25), Value(2.0)
    total = make(x, y, z)
    for nodes in ([x, y], [x, y, z], [y, z], [x], [z]):
        ours = grad(total, nodes, create_graph=True, allow_unused=True)
        theirs = higher_order._by_the_chain_rule(total, nodes, False, Value, True, True)
        assert [graph_shape(g) for g in ours] == [graph_shape(g) for g in theirs]


@both_engines
def test_a_network_with_dead_relus_gives_the_chain_rules_graphs(Value):
    loss, weights = network_loss(
        Value, [4, 4, 1], 5, [(0.5 * i - 1.5, 1.0 - 0.75 * i) for i in range(5)]
    )
    ours = grad(loss, weights, create_graph=True)
    theirs = higher_order._by_the_chain_rule(loss, weights, False, Value, True, False)
    assert [graph_shape(g) for g in ours] == [graph_shape(g) for g in theirs]
    dead = [n for n in graph.topological_order(loss) if n._op == "relu" and not n.data > 0]
    assert dead  # the test needs relus that pass nothing back


@both_engines
def test_an_overflow_in_a_gradient_that_reaches_no_result_raises_as_the_chain_rule(Value):
    # d(out)/d(dead) = w * 1e200 is too large for a float; dead, a relu at 0, passes nothing
    # on, but the chain rule builds that gradient, and raises, so grad raises the same
    x, w, c = Value(-1.0), Value(1e200), Value(1e200)
    dead = x.relu()
    out = (dead * w) * c
    with pytest.raises(OverflowError) as by_the_chain_rule:
        higher_order._by_the_chain_rule(out, [x, w, c], False, Value, True, False)
    with pytest.raises(OverflowError) as ours:
        grad(out, [x, w, c], create_graph=True)
    assert str(ours.value) == str(by_the_chain_rule.value)


@both_engines
def test_at_the_edges_of_floating_point_the_speed_path_gives_the_chain_rules_numbers(Value):
    compared = 0
    for i, program, nodes in edge_graphs(Value, 300):
        output = nodes[-1]
        expected = chain_rule_numbers(output, nodes, Value)
        assert speed_path_numbers(output, nodes, Value) == expected, (i, str(program))
        assert [bits(g.data) for g in grad(output, nodes, allow_unused=True)] == expected
        compared += 1
    assert compared > 150


@both_engines
def test_the_benchmarks_step_has_the_same_gradients_every_way(Value):
    # a network's loss, as the benchmark builds it: grad in both modes, the chain rule and
    # backward() give each weight the same number
    loss, weights = network_loss(
        Value, [8, 8, 1], 3, [(0.5 * i - 2.0, 1.0 - 0.25 * i) for i in range(12)]
    )
    quick = [bits(g.data) for g in grad(loss, weights)]
    as_values = [bits(g.data) for g in grad(loss, weights, create_graph=True)]
    loss.backward()
    assert (
        quick
        == as_values
        == chain_rule_numbers(loss, weights, Value)
        == [bits(w.grad) for w in weights]
    )
    assert chain_rule_numbers(loss, weights, Value, create_graph=True) == as_values


def test_a_fast_node_whose_slope_does_not_fit_is_refused_without_create_graph_too():
    # The speed path checks each recorded slope at a glance; where it does not fit, it leaves
    # the graph to the chain rule, which says why.
    a, b = fast.Value(0.5), fast.Value(3.0)
    made_by_hand = [
        fast._node(0.25, op, a, wrong)
        for op, wrong in (("tanh", 1.0), ("relu", 0.0), ("exp", 2.0), ("sigmoid", 0.5))
    ]
    made_by_hand += [fast._node(1.5, "*", a, 7.0, b, 0.5), fast._node(3.5, "+", a, 1.0, b, 0.0)]
    for node in made_by_hand:
        for create_graph in (False, True):
            with pytest.raises(ValueError, match=r"recorded a local derivative"):
                grad(node, [a, b], create_graph=create_graph, allow_unused=True)
    product = a * b
    a.data = -1.0  # d(product)/d(b) was 0.5 when the engine made the node
    with pytest.raises(ValueError, match=r"an input's data changed after it was computed"):
        grad(product, [a, b])


@both_engines
def test_grad_pauses_the_garbage_collector_while_it_builds_a_graph(monkeypatch, Value):
    # With create_graph, building a gradient's many nodes would start collection after
    # collection, each walking every node alive: grad switches the collector off meanwhile,
    # and gives it back as it found it, after an error too.
    states = []

    def spy_on(builder):
        def spy(*args, **options):
            states.append(gc.isenabled())
            return builder(*args, **options)

        return spy

    for module, name in ((higher_order, "_chain_rule"), (_grad_speed, "_build")):  # the chain
        monkeypatch.setattr(module, name, spy_on(getattr(module, name)))  # rule, the speed path
    x = Value(0.5)
    tiny = Value(1e-310)  # the slope of log there, 1/x, is too large for a float
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            grad((x * x).tanh(), x, create_graph=True)
            assert gc.isenabled() is enabled
            with pytest.raises(OverflowError):
                grad(tiny.log(), tiny, create_graph=True)
            assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert states == [False] * 4


@both_engines
@settings(max_examples=40)
@given(program=programs(**SMALL))
def test_grad_reads_and_writes_no_grad_and_leaves_the_graph_as_it_was(Value, program):
    assume((made := built(program, Value)) is not None)
    pool, total = made
    clean = our_derivatives(total, pool[: len(program[0])])

    nodes = graph.topological_order(total)
    poison = object()  # any arithmetic with it raises, so a .grad that grad read would show
    for node in nodes:
        node.grad = poison

    def layout(node):
        recorded = (node._backward,) if Value is engine.Value else (node._da, node._db)
        return (node.data, node._op, node.label, tuple(map(id, node._prev))) + recorded

    before = [(id(node), layout(node)) for node in nodes]
    poisoned = our_derivatives(total, pool[: len(program[0])])
    assert [bits(x) for x in flat(list(poisoned))] == [bits(x) for x in flat(list(clean))]
    assert all(node.grad is poison for node in nodes)
    after = graph.topological_order(total)
    assert [(id(node), layout(node)) for node in after] == before


# ----------------------------------------------------------------- against PyTorch


@both_engines
@settings(max_examples=150)
@given(program=programs(**SMALL))
def test_second_and_third_derivatives_match_pytorch(torch, Value, program):
    assume(compare_with_pytorch(torch, program, Value))


@both_engines
@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=10)
@given(inputs=st.lists(NUMBERS, min_size=2, max_size=2))
def test_every_operation_has_second_and_third_derivatives_of_pytorch(torch, Value, name, inputs):
    assume(compare_with_pytorch(torch, (inputs, single_op_program(name)), Value))


# ------------------------------------------------- against central differences (no PyTorch)


@both_engines
@settings(max_examples=150)
@given(program=programs(smooth=True, **SMALL))
def test_second_and_third_derivatives_match_central_differences(Value, program):
    assume(compare_with_differences(program, Value))


SMOOTH_OPS = sorted(name for name, op in OPS.items() if op.smooth)  # relu's kink: see above


@both_engines
@pytest.mark.parametrize("name", SMOOTH_OPS)
@settings(max_examples=10)
@given(inputs=st.lists(NUMBERS, min_size=2, max_size=2))
def test_every_smooth_operation_has_the_derivatives_of_central_differences(Value, name, inputs):
    assume(compare_with_differences((inputs, single_op_program(name)), Value))


@both_engines
@settings(max_examples=150)
@given(program=programs(smooth=True, **SMALL), data=st.data())
def test_hessian_vector_products_match_differences_of_the_gradient(Value, program, data):
    inputs, steps = program
    assume((made := built(program, Value)) is not None)
    pool, total = made
    leaves = pool[: len(inputs)]
    v = data.draw(st.lists(st.floats(-1.0, 1.0), min_size=len(inputs), max_size=len(inputs)))
    gradient = grad(total, leaves, create_graph=True, allow_unused=True)
    along_v = gradient[0] * v[0]
    for g, vi in zip(gradient[1:], v[1:]):
        along_v = along_v + g * vi
    ours = [h.data for h in grad(along_v, leaves)]  # H v, without forming H

    h = 1e-5
    try:
        up = backward_gradient(steps, [x + h * vi for x, vi in zip(inputs, v)], Value)
        down = backward_gradient(steps, [x - h * vi for x, vi in zip(inputs, v)], Value)
    except (ArithmeticError, ValueError):
        assume(False)
    numeric = [(a - b) / (2 * h) for a, b in zip(up, down)]
    assert_agree(ours, numeric, DIFFERENCE_TOLERANCE[1], "H v")


# ------------------------------------------------------------------------- errors


def test_an_output_that_is_not_a_value_of_the_engines_is_refused():
    with pytest.raises(
        TypeError,
        match=r"output as a Value of autograd.engine or autograd.fast, "
        r"but was given 3.0 of type builtins.float$",
    ):
        grad(3.0, engine.Value(1.0))
    Chapter5 = stages.stage(5)
    x = Chapter5(2.0)
    with pytest.raises(
        TypeError,
        match=r"looks like a value of another class \(your own, or a "
        r"chapter's stage\): grad knows only",
    ):
        grad(x * x, x)


@both_engines
def test_inputs_that_are_not_values_are_refused(Value):
    x = Value(2.0)
    y = x * x
    with pytest.raises(
        TypeError,
        match=r"inputs must be a Value or a list or tuple of Values, "
        r"but was given 2.0 of type builtins.float",
    ):
        grad(y, 2.0)
    with pytest.raises(TypeError, match=r"inputs must be .* given \{.*\} of type builtins.set"):
        grad(y, {x})
    with pytest.raises(TypeError, match=r"inputs\[1\] is 'x' of type builtins.str, not a Value"):
        grad(y, [x, "x"])
    with pytest.raises(TypeError, match=r"create_graph must be True or False, but was given 1"):
        grad(y, x, create_graph=1)


def test_mixing_the_engines_is_refused():
    x = fast.Value(2.0, label="x")
    with pytest.raises(
        TypeError,
        match=r"the input, Value\(data=2.0, label='x'\), is a Value of "
        r"autograd.fast, but the output is a Value of "
        r"autograd.engine: a graph is built by one engine",
    ):
        grad(engine.Value(1.0) * 2, x)
    mixed = engine.Value(3.0, (fast.Value(1.0),), "+")  # made by hand: the engines refuse it
    with pytest.raises(TypeError, match=r"holds Value\(data=1.0\), a value of autograd.fast.Value"):
        grad(mixed, mixed)


@both_engines
def test_an_input_the_output_does_not_depend_on_is_named_or_given_zero(Value):
    x, z = Value(2.0, label="x"), Value(5.0, label="z")
    y = x * x
    for create_graph in (False, True):
        with pytest.raises(
            ValueError,
            match=r"does not depend on inputs\[1\], Value\(data=5.0, "
            r"label='z'\).* Pass allow_unused=True to get 0",
        ):
            grad(y, [x, z], create_graph=create_graph)
    with pytest.raises(ValueError, match=r"does not depend on the input Value\(data=7.0\):"):
        grad(y, Value(7.0))
    assert [g.data for g in grad(y, [x, z], allow_unused=True)] == [4.0, 0.0]
    dx, dz = grad(y, [x, z], create_graph=True, allow_unused=True)
    assert dz.data == 0.0 and grad(dz, z).data == 0.0  # a zero tied to z, as every result is


def test_an_operation_grad_has_no_rule_for_is_named():
    def sinh(self):  # a learner's own operation, with its own backward
        out = engine.Value(math.sinh(self.data), (self,), "sinh")

        def _backward():
            self.grad += math.cosh(self.data) * out.grad

        out._backward = _backward
        return out

    x = engine.Value(0.5)
    with pytest.raises(
        NotImplementedError,
        match=r"no rule for the operation 'sinh' of "
        r"Value\(data=0.521.*\. It knows the operations "
        r"of autograd.engine: \+, \*, /",
    ):
        grad(sinh(x) * x, x)
    y = fast.Value(0.5)
    with pytest.raises(NotImplementedError, match=r"no rule for the operation 'sinh'"):
        grad(fast.Value(math.sinh(0.5), (y,), "sinh"), y)


def test_a_node_whose_derivative_grad_cannot_know_is_refused():
    a, b = engine.Value(2.0), engine.Value(3.0)
    with pytest.raises(ValueError, match=r"made by hand, as Value\(data, children, op\)"):
        grad(engine.Value(5.0, (a, b), "+"), a)
    planted = a + b
    planted._backward = lambda: None  # a learner's replacement for the engine's closure
    with pytest.raises(ValueError, match=r"its _backward is not the engine's closure for '\+'"):
        grad(planted, a)

    fa, fb = fast.Value(2.0), fast.Value(3.0)
    with pytest.raises(
        ValueError,
        match=r"recorded a local derivative \(0.0\) that is not the "
        r"one '\+' gives",
    ):
        grad(fast.Value(5.0, (fa, fb), "+"), fa)
    product = fa * fb
    fa.data = 4.0  # the fast engine took d(product)/d(fb) = 2.0 when it made the node
    with pytest.raises(ValueError, match=r"an input's data changed after it was computed"):
        grad(product, fb)
    # a power's label written by hand holds no exponent: grad does not read one from the text
    for Value, x in ((engine.Value, a), (fast.Value, fa)):
        for create_graph in (False, True):
            with pytest.raises(ValueError, match=r"\(op '\*\*2'\): it was made by hand"):
                grad(Value(x.data**2, (x,), "**2"), x, create_graph=create_graph)


# ------------------------------------------------------------------- the tests can fail


def tanh_slope_one_minus_t(out, g, read, needs):  # a classic mistake: 1 - t instead of 1 - t^2
    return ((1.0 - read(out)) * g,)


def tanh_slope_as_a_number(out, g, read, needs):  # the right first slope, but no graph behind it
    t = out.data
    return ((1.0 - t) * (1.0 + t) * g,)


TANH_PROGRAM = ([0.3, -0.7], single_op_program("tanh"))
CAUGHT = r"^\('(first|second|third)', \d+, "  # assert_agree's report of a disagreement


def planted(monkeypatch, Value, mistake):
    """TANH_PROGRAM's leaves and sum, built after `mistake` replaced grad's rule for tanh."""
    monkeypatch.setitem(RULES[Value], "tanh", mistake)
    inputs, steps = TANH_PROGRAM
    leaves = [Value(x) for x in inputs]
    return leaves, run(steps, leaves)


@pytest.mark.parametrize("mistake", [tanh_slope_one_minus_t, tanh_slope_as_a_number])
@both_engines
def test_a_wrong_rule_is_caught_by_central_differences(monkeypatch, Value, mistake):
    assert compare_with_differences(TANH_PROGRAM, Value)  # the right rule passes
    leaves, total = planted(monkeypatch, Value, mistake)
    if mistake is tanh_slope_one_minus_t and Value is fast.Value:
        # the fast engine recorded the right slope, and grad checks its rule against it
        with pytest.raises(ValueError, match="recorded a local derivative"):
            grad(total, leaves, create_graph=True)
        return
    with pytest.raises(AssertionError, match=CAUGHT):
        compare_with_differences(TANH_PROGRAM, Value)
    if mistake is tanh_slope_as_a_number:  # backward()'s numbers: only a second derivative
        total.backward()  # shows this mistake, which is why the tests compare those
        assert [g.data for g in grad(total, leaves, create_graph=True)] == [x.grad for x in leaves]


@pytest.mark.parametrize("mistake", [tanh_slope_one_minus_t, tanh_slope_as_a_number])
@both_engines
def test_a_wrong_rule_is_caught_by_pytorch(monkeypatch, torch, Value, mistake):
    assert compare_with_pytorch(torch, TANH_PROGRAM, Value)  # the right rule passes
    planted(monkeypatch, Value, mistake)
    if mistake is tanh_slope_one_minus_t and Value is fast.Value:
        with pytest.raises(ValueError, match="recorded a local derivative"):
            compare_with_pytorch(torch, TANH_PROGRAM, Value)
        return
    with pytest.raises(AssertionError, match=CAUGHT):
        compare_with_pytorch(torch, TANH_PROGRAM, Value)


def test_the_fast_engines_number_to_a_power_keeps_its_exact_slope():
    # c ** a keeps only its slope s = out ln c; grad takes ln c back as s / out. Where rounding
    # makes out * (s / out) differ from s (here by one unit in the last place), a correction
    # keeps the first derivative exact; the second is out (ln c)^2, from the same ln c.
    y, s = 6.7303309742581865, -3.8372708482171163
    assert y * (s / y) != s
    a = fast.Value(0.3)
    out = fast._node(y, "**", a, s)
    first = grad(out, a, create_graph=True)
    assert first.data == s
    assert grad(first, a).data == pytest.approx(s * s / y, rel=1e-15)


@both_engines
@pytest.mark.parametrize("x", [1e-300, 1e-200, 1e-160, -1e-300])
def test_at_tiny_inputs_log_and_division_have_finite_next_derivatives(Value, x):
    # The slope of log is 1/x and of a / y it is 1/y; built as (1/x) * g, its own slope,
    # -(1/x)/x, overflows below |x| of about 1e-154, though the derivative asked for is finite.
    if x > 0:
        t = Value(x)
        d2 = grad(grad(t * t.log(), t, create_graph=True), t)  # (x log x)'' = 1/x
        assert math.isclose(d2.data, 1 / x, rel_tol=1e-12)
    a, y = Value(2.0), Value(x)
    slope_in_a = grad((a / y) * y, a, create_graph=True)  # (a/y)*y = a: slope 1, whatever y
    assert math.isclose(slope_in_a.data, 1.0, rel_tol=1e-15)
    assert grad(slope_in_a, y).data == 0.0


@pytest.mark.parametrize("module", [engine, fast], ids=["reference", "fast"])
def test_grad_refuses_a_graph_edited_into_a_cycle(module):
    a = module.Value(2.0, label="a")
    b = a * 3.0
    b.label = "b"
    d = (b + 1.0) * a
    d.label = "d"
    if module is fast:
        b._b, b._db = d, 1.0
    else:
        b._prev = (a, d)
    with pytest.raises(ValueError, match=r"cycle: .*label '(b|d)'.* depends on itself"):
        grad(d, a)
