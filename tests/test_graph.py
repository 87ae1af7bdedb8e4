"""Walking a graph: `autograd.graph`, the one walk the engines' copies, the drawings, the checks
and the benchmark all use. Expected orders are worked out by hand from small graphs."""

import sys

import pytest

from autograd import engine, fast, graph
from autograd.stages import stage

CLASSES = [engine.Value, fast.Value, stage(5)]
classes = pytest.mark.parametrize("Value", CLASSES, ids=["reference", "fast", "stage 5"])


def diamond(Value):
    a = Value(2.0, label="a")
    b = a * 3.0
    c = a + 1.0
    d = b * c
    return a, b, c, d


@classes
def test_inputs_come_before_the_values_made_from_them_and_the_root_comes_last(Value):
    a, b, c, d = diamond(Value)
    order = graph.topological_order(d)
    assert order[-1] is d
    assert sum(node is a for node in order) == 1  # reached twice, listed once
    position = {id(node): i for i, node in enumerate(order)}
    for node in order:
        for child in node._prev:
            assert position[id(child)] < position[id(node)]
    assert graph.count(d) == len(order) == len({id(node) for node in order})


@classes
def test_backward_order_is_the_reverse_and_starts_at_the_root(Value):
    *_, d = diamond(Value)
    assert graph.backward_order(d) == graph.topological_order(d)[::-1]
    assert graph.backward_order(d)[0] is d


def test_the_order_follows_prev_so_the_same_graph_is_walked_the_same_way_every_time():
    x, y = engine.Value(1.0, label="x"), engine.Value(2.0, label="y")
    out = x * y + x
    labels = [node.label or node._op for node in graph.topological_order(out)]
    assert labels == ["x", "y", "*", "+"]  # first input's subgraph first, then the second's


def test_trace_has_one_edge_per_use():
    x = engine.Value(3.0)
    y = x * x
    values, edges = graph.trace(y)
    assert values == [x, y]
    assert edges == [(x, y), (x, y)]


def test_values_are_told_apart_by_identity_not_by_equality():
    class Equal:  # a learner's class whose == says every value is the same
        def __init__(self, data, prev=()):
            self.data, self._prev = data, prev

        def __eq__(self, other):
            return True

        def __hash__(self):
            return 0

    a, b = Equal(1), Equal(2)
    root = Equal(3, (a, b))
    assert graph.topological_order(root) == [a, b, root]
    assert graph.count(root) == 3


def test_a_chain_far_deeper_than_the_recursion_limit():
    x = fast.Value(1.0)
    y = x
    for _ in range(50_000):
        y = y + 1.0
    assert 50_000 > sys.getrecursionlimit()
    assert graph.count(y) == 50_001


def test_a_prev_that_is_not_a_collection_is_refused_naming_it():
    class Odd:
        data, grad, _op = 1.0, 0.0, ""
        _prev = 5

    with pytest.raises(TypeError, match="_prev of .* must be a tuple, list or set"):
        graph.topological_order(Odd())


def test_a_required_attribute_that_is_missing_is_named_with_where_it_was():
    class Bare:
        def __init__(self, prev=()):
            self._prev = prev

    root = engine.Value(1.0, (Bare(),), "+")
    graph.topological_order(root)  # the walk itself needs only _prev
    with pytest.raises(TypeError, match=r"every input in _prev of .* has no data, grad, _op"):
        graph.topological_order(root, require=("data", "grad", "_prev", "_op"))


def test_the_module_docstrings_examples_run():
    import doctest

    result = doctest.testmod(graph)
    assert result.attempted > 0 and result.failed == 0


@classes
def test_a_graph_edited_into_a_cycle_is_refused_naming_a_value_on_it(Value):
    a, b, c, d = diamond(Value)
    b.label, d.label = "b", "d"
    if Value is fast.Value:
        b._b, b._db = d, 1.0
    else:
        b._prev = (a, d)  # b = a * 3 now lists d, which is computed from b
    with pytest.raises(ValueError, match=r"cycle: .*label '(b|d)'.* depends on itself"):
        graph.topological_order(d)
    assert graph.count(d) >= 4  # a walk that keeps no order has no need to refuse it


def test_the_walk_in_slots_gives_topological_order_without_the_leaves():
    """`operations_order_in_slots` places a node at once when it comes back to it from `_b`:
    on graphs with shared values, `x * x` and one-input operations, its order must still be
    `topological_order`'s, node for node, with the leaves left out."""
    import random

    rng = random.Random(0)
    for _ in range(300):
        values = [fast.Value(rng.uniform(-1, 1)) for _ in range(rng.randint(1, 3))]
        for _ in range(rng.randint(0, 25)):
            x, y = rng.choice(values), rng.choice(values)
            values.append(rng.choice([x * y, x + y, x * x, x.relu(), x * 2.0, x.tanh()]))
        root = rng.choice(values)
        expected = [node for node in graph.topological_order(root) if node._prev]
        assert [id(node) for node in graph.operations_order_in_slots(root)] == [
            id(node) for node in expected
        ]
