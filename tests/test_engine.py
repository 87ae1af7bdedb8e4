"""The reference engine (`autograd.engine`): what it does that the fast engine does not.

Everything both engines promise (every operator's value and gradient, accumulation, deep graphs,
errors, repr) is tested on both in tests/test_engine_contract.py. What is left here follows
from the idea the course teaches: every operation makes a node of its own, constants too, and
leaves a closure behind that reads the data when `backward()` runs.
"""

import pytest

from autograd import Value


def test_constants_are_wrapped_as_leaves():
    a = Value(2.0)
    out = a * 3
    other = out._prev[1]
    assert isinstance(other, Value) and other.data == 3.0 and other._prev == ()


def test_derivatives_are_taken_when_backward_runs():
    # each closure reads its inputs' data when it runs, so data changed after the forward
    # pass is what backward() uses (the fast engine stores the derivatives at forward time)
    a, b = Value(2.0), Value(-3.0)
    out = a * b
    a.data = 5.0
    out.backward()
    assert (a.grad, b.grad) == (-3.0, 5.0)


def test_a_node_made_by_hand_may_have_any_number_of_inputs():
    a, b = Value(1.0), Value(2.0)
    c = Value(4.0, (a, b, a), "+", label="c")
    assert c._prev == (a, b, a)  # the fast engine allows at most two
    c.backward()
    assert (a.grad, b.grad, c.grad) == (0.0, 0.0, 1.0)


def test_backward_refuses_a_value_edited_to_be_its_own_input():
    a = Value(2.0)
    b = a * 3.0
    b.label = "b"
    b._prev = (a, b)
    with pytest.raises(ValueError, match=r"cycle: .*label 'b'.* depends on itself"):
        b.backward()
