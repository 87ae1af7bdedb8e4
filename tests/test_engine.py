"""The reference engine: every operator's value and gradient, accumulation, deep graphs, errors."""

import math
import sys

import pytest

from autograd import Value


def grads_of(fn, *xs):
    """Build Values for xs, run fn, backpropagate; return (output data, [grads])."""
    vs = [Value(x) for x in xs]
    out = fn(*vs)
    out.backward()
    return out.data, [v.grad for v in vs]


# ---------------------------------------------------------------- the node itself


def test_new_value_stores_float_and_starts_with_zero_grad():
    v = Value(3, label="x")
    assert v.data == 3.0 and type(v.data) is float
    assert v.grad == 0.0
    assert v._prev == () and v._op == "" and v.label == "x"


def test_leaf_backward_does_nothing():
    v = Value(2.0)
    v.grad = 5.0
    assert v._backward() is None
    assert v.grad == 5.0


def test_prev_is_a_tuple_in_operand_order():
    a, b = Value(1.0), Value(2.0)
    assert (a + b)._prev == (a, b)
    assert (b * a)._prev == (b, a)
    assert type((a * b)._prev) is tuple


def test_value_used_twice_keeps_both_edges():
    x = Value(3.0)
    assert (x * x)._prev == (x, x)


def test_repr_matches_the_article():
    assert repr(Value(2.0)) == "Value(data=2.0000, grad=0.0000)"
    v = Value(-1.23456)
    v.grad = 0.5
    assert repr(v) == "Value(data=-1.2346, grad=0.5000)"


# ---------------------------------------------------------------- operators, value and gradient

# (name, function, inputs, expected value, expected gradients), all derived by hand
CASES = [
    ("add", lambda a, b: a + b, (2.0, -3.0), -1.0, [1.0, 1.0]),
    ("sub", lambda a, b: a - b, (2.0, -3.0), 5.0, [1.0, -1.0]),
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
    ("tanh", lambda a: a.tanh(), (0.5,), math.tanh(0.5), [1 - math.tanh(0.5) ** 2]),
    ("exp", lambda a: a.exp(), (1.5,), math.exp(1.5), [math.exp(1.5)]),
    ("log", lambda a: a.log(), (4.0,), math.log(4.0), [0.25]),
    ("relu_positive", lambda a: a.relu(), (2.0,), 2.0, [1.0]),
    ("relu_negative", lambda a: a.relu(), (-2.0,), 0.0, [0.0]),
    ("relu_at_zero", lambda a: a.relu(), (0.0,), 0.0, [0.0]),
    ("sigmoid", lambda a: a.sigmoid(), (0.0,), 0.5, [0.25]),
]


@pytest.mark.parametrize("name, fn, xs, value, grads", CASES, ids=[c[0] for c in CASES])
def test_operator_value_and_gradient(name, fn, xs, value, grads):
    data, got = grads_of(fn, *xs)
    assert data == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert got == pytest.approx(grads, rel=1e-12, abs=1e-15)


def test_sigmoid_gradient_is_sigma_times_one_minus_sigma():
    x = 1.3
    s = 1.0 / (1.0 + math.exp(-x))
    data, (g,) = grads_of(lambda a: a.sigmoid(), x)
    assert data == pytest.approx(s) and g == pytest.approx(s * (1 - s))


def test_sigmoid_is_stable_far_from_zero():
    assert Value(-1000.0).sigmoid().data == 0.0
    assert Value(1000.0).sigmoid().data == 1.0


def test_tanh_does_not_overflow_for_large_inputs():
    data, (g,) = grads_of(lambda a: a.tanh(), 1000.0)
    assert data == 1.0 and g == 0.0


def test_ops_are_labelled_for_drawings():
    a, b = Value(1.0), Value(2.0)
    assert (a + b)._op == "+" and (a * b)._op == "*"
    assert (a**2)._op == "**2" and (a**0.5)._op == "**0.5" and (a**b)._op == "**"
    assert a.tanh()._op == "tanh" and a.exp()._op == "exp" and a.relu()._op == "relu"


def test_constants_are_wrapped_as_leaves():
    a = Value(2.0)
    out = a * 3
    other = out._prev[1]
    assert isinstance(other, Value) and other.data == 3.0 and other._prev == ()


# ---------------------------------------------------------------- accumulation over paths


def test_reused_node_accumulates_both_paths_in_add():
    (g,) = grads_of(lambda x: x + x, 3.0)[1]
    assert g == 2.0


def test_reused_node_accumulates_both_paths_in_mul():
    (g,) = grads_of(lambda x: x * x, 3.0)[1]
    assert g == 6.0


def test_diamond_sums_gradient_over_both_branches():
    # a feeds b = 2a and c = a + 1; d = b * c = 2a(a + 1); dd/da = 4a + 2
    def diamond(a):
        b = 2 * a
        c = a + 1
        return b * c

    data, (g,) = grads_of(diamond, 3.0)
    assert data == 24.0 and g == 14.0


def test_sort_is_needed_for_shared_nodes():
    # b = a + a, c = b + b: dc/da = 4 only when b passes its gradient after c filled it in
    a = Value(1.0)
    b = a + a
    c = b + b
    c.backward()
    assert a.grad == 4.0 and b.grad == 2.0


def test_backward_twice_adds_a_second_copy_of_leaf_gradients():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    loss = a * b + c
    loss.backward()
    once = (a.grad, b.grad, c.grad)
    loss.backward()
    assert (a.grad, b.grad, c.grad) == tuple(2 * g for g in once)
    assert loss.grad == 1.0


def test_zeroing_leaf_gradients_restores_a_single_backward():
    a, b = Value(2.0), Value(-3.0)
    loss = (a * b).tanh() * a
    loss.backward()
    once = (a.grad, b.grad)
    loss.backward()
    for v in (a, b):
        v.grad = 0.0
    loss.backward()
    assert (a.grad, b.grad) == once


def test_backward_from_an_intermediate_node():
    a, b = Value(2.0), Value(5.0)
    d = a * b
    loss = d + a
    loss.backward()
    a.grad = b.grad = 0.0
    d.backward()
    assert (a.grad, b.grad, d.grad) == (5.0, 2.0, 1.0)


def test_backward_on_a_leaf_sets_its_gradient_to_one():
    v = Value(4.0)
    v.backward()
    assert v.grad == 1.0


# ---------------------------------------------------------------- the article's neuron


def test_article_neuron_matches_the_article_to_1e_12():
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    n = x1 * w1 + x2 * w2 + b
    o = n.tanh()
    o.backward()
    assert o.data == pytest.approx(0.7071067811865476, abs=1e-12)
    assert w1.grad == pytest.approx(1.0, abs=1e-12)
    assert w2.grad == pytest.approx(0.0, abs=1e-12)
    assert x1.grad == pytest.approx(-1.5, abs=1e-12)
    assert x2.grad == pytest.approx(0.5, abs=1e-12)
    assert b.grad == pytest.approx(0.5, abs=1e-12)


# ---------------------------------------------------------------- deep graphs


def test_million_node_chain_at_default_recursion_limit():
    assert sys.getrecursionlimit() <= 10_000  # the sort must not rely on a raised limit
    x = Value(0.5)
    v = x
    for _ in range(500_000):  # two nodes per step: the constant and the sum
        v = v + 1.0
    assert v.data == 500_000.5
    v.backward()
    assert x.grad == 1.0


def test_long_product_chain_gradient():
    x = Value(1.0)
    v = x
    for _ in range(10_000):
        v = v * 1.0001
    v.backward()
    assert x.grad == pytest.approx(1.0001**10_000, rel=1e-9)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad, type_name", [("abc", "str"), (None, "NoneType"), (True, "bool"), (1 + 2j, "complex"), ([1.0], "list")])
def test_value_rejects_non_numbers_naming_the_type(bad, type_name):
    with pytest.raises(TypeError, match=type_name):
        Value(bad)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**"])
def test_operator_with_a_string_raises_type_error_naming_it(op):
    v = Value(1.0)
    with pytest.raises(TypeError, match="str"):
        eval(f"v {op} 'a'")


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**"])
def test_reflected_operator_with_none_raises_type_error(op):
    v = Value(1.0)
    with pytest.raises(TypeError, match="NoneType"):
        eval(f"None {op} v")


@pytest.mark.parametrize("x", [0.0, -1.0])
def test_log_of_non_positive_raises_value_error_naming_value(x):
    with pytest.raises(ValueError, match=rf"log\({x!r}\)"):
        Value(x).log()


def test_division_by_zero_number_raises():
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        Value(1.0) / 0


def test_division_by_zero_value_raises():
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        Value(1.0) / Value(0.0)


def test_number_divided_by_zero_value_raises():
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        1 / Value(0.0)


def test_zero_to_a_negative_power_raises():
    with pytest.raises(ZeroDivisionError, match=r"0\.0 \*\* -1"):
        Value(0.0) ** -1


def test_exp_overflow_raises_naming_value():
    with pytest.raises(OverflowError, match=r"exp\(1000\.0\)"):
        Value(1000.0).exp()


def test_pow_overflow_raises():
    with pytest.raises(OverflowError, match=r"10\.0 \*\* 400"):
        Value(10.0) ** 400


def test_negative_base_with_fractional_exponent_raises():
    with pytest.raises(ValueError, match=r"-8\.0 \*\* 0\.5"):
        Value(-8.0) ** 0.5
    with pytest.raises(ValueError, match="negative base"):
        Value(-8.0) ** Value(1 / 3)


def test_negative_base_with_whole_exponent_is_fine():
    data, (g,) = grads_of(lambda a: a**3, -2.0)
    assert data == -8.0 and g == 12.0


def test_exponent_of_wrong_type_raises():
    with pytest.raises(TypeError, match="exponent"):
        Value(2.0) ** "2"


# ---------------------------------------------------------------- NaN and infinity propagate


def test_nan_propagates_through_operations():
    nan = Value(float("nan"))
    for out in (nan + 1, nan * 2, nan.tanh(), nan.exp(), nan.log(), nan.relu(), nan.sigmoid()):
        assert math.isnan(out.data)


def test_infinity_propagates():
    inf = Value(float("inf"))
    assert (inf + 1).data == math.inf
    assert inf.exp().data == math.inf
    assert inf.tanh().data == 1.0
    assert (-inf).exp().data == 0.0


def test_sqrt_at_zero_has_infinite_slope():
    _, (g,) = grads_of(lambda a: a**0.5, 0.0)
    assert g == math.inf


def test_value_exponent_slope_is_nan_for_negative_base():
    a, b = Value(-2.0), Value(2.0)
    out = a**b
    out.backward()
    assert out.data == 4.0 and a.grad == -4.0 and math.isnan(b.grad)


def test_slope_too_large_for_a_float_is_infinite_not_an_error():
    # 1e-300 ** -0.5 = 1e150 fits in a float; its slope -0.5 * 1e-300 ** -1.5 does not
    _, (g,) = grads_of(lambda a: a**-0.5, 1e-300)
    assert g == -math.inf
