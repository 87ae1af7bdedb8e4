"""Property tests: backward() agrees with central differences on random graphs with shared nodes.

The graphs come from tests/programs.py, smooth operations only: a central difference across a
kink (relu at 0) measures the average of two slopes, which no engine should give.
"""

from hypothesis import given, settings

from autograd import Value
from programs import central_differences, close, programs, run


@settings(max_examples=200)
@given(programs(smooth=True))
def test_backward_matches_central_differences(program):
    inputs, steps = program
    leaves = [Value(x) for x in inputs]
    out = run(steps, leaves)
    out.backward()
    numeric = central_differences(steps, inputs, Value)
    for leaf, expected in zip(leaves, numeric):
        assert close(leaf.grad, expected, rel=1e-5, abs_=1e-5), (leaf.grad, expected)


@settings(max_examples=100)
@given(programs(smooth=True))
def test_backward_twice_doubles_every_input_gradient(program):
    inputs, steps = program
    leaves = [Value(x) for x in inputs]
    out = run(steps, leaves)
    out.backward()
    once = [leaf.grad for leaf in leaves]
    out.backward()
    for leaf, g in zip(leaves, once):  # equal up to the rounding of adding in another order
        assert close(leaf.grad, 2 * g, rel=1e-12, abs_=1e-300)


@settings(max_examples=100)
@given(programs(smooth=True))
def test_gradients_do_not_depend_on_building_the_graph_twice(program):
    inputs, steps = program
    results = []
    for _ in range(2):
        leaves = [Value(x) for x in inputs]
        run(steps, leaves).backward()
        results.append([leaf.grad for leaf in leaves])
    assert results[0] == results[1]
