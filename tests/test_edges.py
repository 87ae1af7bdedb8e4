"""Both engines at the edges: where a teaching engine must be exactly right or say why not.

One test (or a few) for each way the engines used to be silently wrong. Every expected number
is derived here by hand, from the mathematics and from what PyTorch does at the same edges
(tests/test_torch_edges.py checks the engines against PyTorch itself, on random programs).
"""

import copy
import fractions
import math
import pickle
import subprocess
import sys

import pytest
from conftest import require_module

from autograd import engine, fast, nn

ENGINES = [engine.Value, fast.Value]
ids = ["reference", "fast"]
engines = pytest.mark.parametrize("Value", ENGINES, ids=ids)


# ---------------------------------------------------------------- 1. a zero slope stops inf/nan


@engines
@pytest.mark.parametrize("x", [-1.0, 0.0, -0.0, -1e-310])
def test_relu_at_and_below_zero_passes_back_zero_even_under_an_infinite_gradient(Value, x):
    # sqrt has an infinite slope at 0, so relu(x) = 0 receives an infinite gradient; relu's
    # slope there is 0, and 0 must win (PyTorch: 0), not 0 * inf = nan
    v = Value(x)
    root = v.relu() ** 0.5
    root.backward()
    assert root._prev[0].grad == math.inf
    assert v.grad == 0.0


@engines
def test_relu_above_zero_still_passes_its_gradient_on(Value):
    v = Value(2.0)
    (v.relu() * 3.0).backward()
    assert v.grad == 3.0


@engines
def test_x_to_the_power_zero_passes_back_zero_even_under_an_infinite_gradient(Value):
    # x**0 - 1 = 0, whose square root has an infinite slope: x**0 gets an infinite gradient
    for exponent in (0, 0.0, "value"):
        v = Value(5.0)
        power = v ** (Value(0.0) if exponent == "value" else exponent)
        root = (power - 1) ** 0.5
        root.backward()
        assert power.grad == math.inf
        assert v.grad == 0.0, exponent


# ---------------------------------------------------------------- 2. a ** b at base 0


@engines
def test_zero_to_the_zero_through_exact_cancellation_has_slope_zero(Value):
    # (x - x) ** (x - x) = 0 ** 0 = 1; PyTorch: slope 0 in the base (exponent 0) and 0 in the
    # exponent (base 0, exponent >= 0), so x.grad is 0, not nan
    x = Value(0.7)
    out = (x - x) ** (x - x)
    out.backward()
    assert out.data == 1.0
    assert x.grad == 0.0


@engines
@pytest.mark.parametrize("b", [0.0, 0.5, 2.0])
def test_slope_in_the_exponent_is_zero_at_base_zero(Value, b):
    a, e = Value(0.0), Value(b)
    (a**e).backward()
    assert e.grad == 0.0


@engines
def test_the_zero_slope_in_the_exponent_is_multiplied_by_the_gradient_like_any_other(Value):
    # 0 ** 2 = 0 feeds a square root, so its gradient is infinite; the exponent's slope 0 is a
    # plain 0 (PyTorch passes back grad * 0 = nan there), so both engines must give nan alike
    a, e = Value(0.0), Value(2.0)
    ((a**e) ** 0.5).backward()
    assert math.isnan(e.grad)


@engines
def test_number_to_a_value_power_at_base_zero(Value):
    e = Value(3.0)
    out = 0.0**e
    out.backward()
    assert (out.data, e.grad) == (0.0, 0.0)


# ---------------------------------------------------------------- 3. division rounds once


@engines
def test_k_over_k_is_exactly_one(Value):
    for k in range(1, 1001):
        assert (Value(k) / Value(k)).data == 1.0, k
        assert (Value(k) / k).data == 1.0, k
        assert (k / Value(k)).data == 1.0, k


@engines
def test_every_small_fraction_is_pythons_correctly_rounded_quotient(Value):
    wrong = [
        (p, q)
        for p in range(1, 60)
        for q in range(1, 60)
        if (Value(p) / Value(q)).data != p / q or (p / Value(q)).data != p / q
    ]
    assert wrong == []


@engines
def test_a_negative_base_to_an_exact_whole_quotient(Value):
    # 49 / 49 is exactly 1, so (-2) ** (49 / 49) is -2 (PyTorch agrees); 49 * 49**-1 rounds
    # to 0.9999999999999999, which would make it a fractional power of a negative number
    a, b = Value(49.0), Value(49.0)
    out = (-2) ** (a / b)
    assert out.data == -2.0


@engines
@pytest.mark.parametrize("x", [1e-310, 5e-324, 1e-300, 1e300])
def test_tiny_and_huge_quotients_of_equal_numbers(Value, x):
    assert (Value(x) / Value(x)).data == 1.0


@engines
@pytest.mark.parametrize("x", [1e-300, 1e-30, 3.0, 1e300])
def test_x_over_x_has_slope_zero(Value, x):
    # d(x/x)/dx = 1/x - x/x² = 0; computed as 1/x and -(x/x)/x the two terms cancel exactly,
    # where x² alone would underflow to 0 (an infinite slope) for x = 1e-300
    v = Value(x)
    (v / v).backward()
    assert v.grad == 0.0


@engines
def test_quotient_gradients_are_one_over_b_and_minus_a_over_b_squared(Value):
    a, b = Value(3.0), Value(-2.0)
    out = a / b
    out.backward()
    assert (out.data, a.grad, b.grad) == (-1.5, -0.5, -0.75)
    assert out._op == "/" and out._prev == (a, b)


@engines
def test_a_number_over_a_value_and_a_value_over_a_number(Value):
    b = Value(4.0)
    out = 2.0 / b
    out.backward()
    assert (out.data, b.grad) == (0.5, -2.0 / 16.0)
    a = Value(3.0)
    (a / 4).backward()
    assert a.grad == 0.25


@engines
@pytest.mark.parametrize(
    "make",
    [
        lambda V: V(1.0) / V(0.0),
        lambda V: V(0.0) / V(-0.0),
        lambda V: V(1.0) / 0,
        lambda V: 1 / V(0.0),
    ],
    ids=["a/0", "0/-0", "a/number 0", "number/0"],
)
def test_division_by_zero_raises_naming_the_division(Value, make):
    with pytest.raises(ZeroDivisionError, match="division by zero: .* / -?0.0"):
        make(Value)


@engines
@pytest.mark.parametrize("x", [1e-310, 3e-320, 5e-324])
def test_a_tiny_number_gives_a_finite_slope_of_log_when_the_answer_is_finite(Value, x):
    # d(1e-10 * log x)/dx = 1e-10 / x, about 1e300 for x = 1e-310: finite, though 1/x alone
    # overflows (for x = 5e-324 the answer itself is beyond the largest float: inf)
    v = Value(x)
    (v.log() * 1e-10).backward()
    assert v.grad == 1e-10 / x
    v = Value(x)
    (v.log() * 0.0).backward()  # a zero gradient gives 0, not 0 * inf = nan
    assert v.grad == 0.0


@engines
@pytest.mark.parametrize("b", [1e-310, -1e-310])
def test_a_tiny_divisor_gives_finite_slopes_when_the_answers_are_finite(Value, b):
    # q = a / b = ±1e-10; dq/da = 1/b and dq/db = -a/b², both about 1e300 after * 1e-10
    a, d = Value(1e-320), Value(b)
    ((a / d) * 1e-10).backward()
    assert a.grad == 1e-10 / b
    assert math.isclose(d.grad, -1e-10 * (1e-320 / b) / b, rel_tol=1e-12)


@engines
@pytest.mark.parametrize("x", [8.0, -10.0, 15.0, 0.5])
def test_the_slope_of_tanh_keeps_its_digits_near_saturation(Value, x):
    # 1 - t² for the rounded t = tanh(x), exactly: computing it as 1 - t*t rounds t*t first,
    # and where t is close to ±1 that loses most of the digits
    t = fractions.Fraction(math.tanh(x))
    v = Value(x)
    v.tanh().backward()
    assert math.isclose(v.grad, float(1 - t * t), rel_tol=1e-15)


# ---------------------------------------------------------------- 4. copying and pickling


def small_graph(Value):
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    out = (a * b + a).tanh() / (b + 4)
    return a, b, out


def expected_grads(Value):
    a, b, out = small_graph(Value)
    out.backward()
    return a.grad, b.grad


@engines
def test_a_deep_copy_is_independent_and_its_backward_fills_in_the_copy(Value):
    a, b, out = small_graph(Value)
    twin = copy.deepcopy(out)
    twin.backward()
    assert (a.grad, b.grad) == (0.0, 0.0)  # the original is untouched
    leaves = [node for node in walk(twin) if not node._prev]
    by_label = {leaf.label: leaf for leaf in leaves}
    assert (by_label["a"].grad, by_label["b"].grad) == expected_grads(Value)
    out.backward()
    assert (a.grad, b.grad) == expected_grads(Value)
    assert by_label["a"].grad == a.grad  # and the copy was not written into by that


@engines
def test_copying_values_together_keeps_them_connected(Value):
    a, b, out = small_graph(Value)
    a2, out2 = copy.deepcopy([a, out])
    out2.backward()
    assert a2.grad == expected_grads(Value)[0] and a.grad == 0.0


@engines
def test_a_deep_chain_copies_without_recursion(Value):
    x = Value(1.0)
    y = x
    for _ in range(20_000):
        y = y * 1.0 + 1.0
    twin = copy.deepcopy(y)
    twin.backward()
    assert x.grad == 0.0
    assert twin.data == y.data


def test_a_models_parameters_deep_copy_and_pickle():
    model = nn.MLP(2, [3, 1])
    for twin in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert [p.data for p in twin.parameters()] == [p.data for p in model.parameters()]
        loss = twin([1.0, -2.0])
        loss.backward()
        assert all(p.grad == 0.0 for p in model.parameters())
        assert any(p.grad != 0.0 for p in twin.parameters())


def test_the_reference_engine_refuses_to_pickle_a_computed_value_and_says_why():
    a, b, out = small_graph(engine.Value)
    with pytest.raises(TypeError, match=r"cannot pickle .*closure.*copy\.deepcopy"):
        pickle.dumps(out)
    with pytest.raises(TypeError, match="shallow-copy"):
        copy.copy(out)
    leaf = pickle.loads(pickle.dumps(a))  # a leaf has no closure: it pickles
    assert (leaf.data, leaf.label, type(leaf)) == (2.0, "a", engine.Value)


def test_the_fast_engine_pickles_whole_graphs():
    a, b, out = small_graph(fast.Value)
    a2, b2, out2 = pickle.loads(pickle.dumps([a, b, out]))
    out2.backward()
    assert (a2.grad, b2.grad) == expected_grads(fast.Value)
    assert (a.grad, b.grad) == (0.0, 0.0)


def walk(root):
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if all(node is not s for s in seen):
            seen.append(node)
            stack.extend(node._prev)
    return seen


# ---------------------------------------------------------------- 5. interrupted backward


def interrupt_after(lines, function, *args):
    """Run `function(*args)`, raising KeyboardInterrupt (as Ctrl-C does) at its `lines`-th
    line event in the engine's code; True if it was interrupted."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if frame.f_code.co_filename not in (engine.__file__, fast.__file__):
            return None
        if event == "line":
            count += 1
            if count == lines:
                raise KeyboardInterrupt
        return tracer

    sys.settrace(tracer)
    try:
        function(*args)
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def diamond(Value):
    x, w = Value(0.5, label="x"), Value(-1.5, label="w")
    h = (x * w).tanh()
    out = (h * h + h * x).relu() + (h / (w * w + 1)).exp()
    return x, w, out


@engines
def test_an_interrupted_backward_leaves_every_value_printable_and_the_next_one_right(Value):
    x0, w0, out0 = diamond(Value)
    out0.backward()
    right = (x0.grad, w0.grad)
    interrupted = 0
    for lines in range(1, 400, 3):
        x, w, out = diamond(Value)
        if not interrupt_after(lines, out.backward):
            break
        interrupted += 1
        for node in walk(out):
            assert isinstance(node.grad, float), (lines, node._op, node.grad)
            repr(node)
        x.grad = w.grad = 0.0  # an interrupted pass may have added part of the gradient
        out.backward()
        assert (x.grad, w.grad) == right, lines
    assert interrupted > 20  # the interruptions landed all over backward, sort included


# ---------------------------------------------------------------- 6. clear refusals


@pytest.mark.parametrize(
    "left, right",
    [(engine.Value, fast.Value), (fast.Value, engine.Value)],
    ids=["reference op fast", "fast op reference"],
)
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**"])
def test_mixing_the_two_engines_is_refused_naming_both(left, right, op):
    a, b = left(2.0), right(3.0)
    with pytest.raises(TypeError, match="two different engines") as raised:
        eval(f"a {op} b", {"a": a, "b": b})
    message = str(raised.value)
    assert left.__module__ in message and right.__module__ in message


def test_a_hand_made_fast_node_refuses_a_reference_input():
    with pytest.raises(TypeError, match="inputs of a fast Value must be fast Values"):
        fast.Value(1.0, (engine.Value(2.0),), "+")


@engines
@pytest.mark.parametrize("number", [fractions.Fraction(3, 2), 3, 1.5])
def test_any_real_number_is_accepted_everywhere_a_number_is(Value, number):
    v = Value(number)
    assert v.data == float(number) and type(v.data) is float
    for out in (
        Value(2.0) + number,
        number + Value(2.0),
        Value(2.0) * number,
        number * Value(2.0),
        Value(2.0) - number,
        number - Value(2.0),
        Value(2.0) / number,
        number / Value(2.0),
        Value(2.0) ** number,
        number ** Value(2.0),
    ):
        assert type(out.data) is float


@engines
def test_numpy_scalars_are_numbers(Value):
    np = require_module("numpy")  # the course's plotting needs it; the engine does not
    for number in (np.float32(1.5), np.float64(1.5), np.int64(3), np.int8(-2), np.float16(0.5)):
        v = Value(number)
        assert type(v.data) is float and v.data == float(number)
        for out in (
            Value(2.0) * number,
            number * Value(2.0),
            Value(2.0) ** number,
            Value(2.0) / number,
            number - Value(2.0),
        ):
            assert isinstance(out, Value) and type(out.data) is float, (number, out)
        w = Value(2.0)
        (w * number).backward()
        assert type(w.grad) is float and w.grad == float(number)
    with pytest.raises(TypeError, match="bool"):
        Value(np.bool_(True))


@engines
@pytest.mark.parametrize("bad", [True, "1", None, 1j])
def test_a_bool_a_string_none_or_a_complex_is_refused(Value, bad):
    with pytest.raises(TypeError, match=type(bad).__name__):
        Value(bad)
    with pytest.raises(TypeError, match=type(bad).__name__):
        Value(1.0) * bad


def test_the_engines_do_not_import_numpy():
    code = "import sys, autograd.engine, autograd.fast\nprint('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


EXTREMES = [1e308, -1e308, 1e200, 1e-200, 1e-310, 5e-324, 10**400]
OPERATIONS = {
    "a + b": lambda a, b: a + b,
    "a - b": lambda a, b: a - b,
    "a * b": lambda a, b: a * b,
    "a / b": lambda a, b: a / b,
    "a ** b": lambda a, b: a**b,
    "a ** 2": lambda a, b: a**2,
    "a ** -3": lambda a, b: a**-3,
    "a ** 0.5": lambda a, b: a**0.5,
    "exp": lambda a, b: a.exp(),
    "b.data + a": lambda a, b: b.data + a,
    "b.data * a": lambda a, b: b.data * a,
    "b.data / a": lambda a, b: b.data / a,
    "b.data ** a": lambda a, b: b.data**a,
    "b.data - a": lambda a, b: b.data - a,
    "a / b.data": lambda a, b: a / b.data,
    "a * b.data": lambda a, b: a * b.data,
}


@engines
@pytest.mark.parametrize("name", OPERATIONS)
def test_results_too_large_for_a_float_raise_a_clear_overflow_error(Value, name):
    """One rule for every operation: finite inputs give a finite value or an error that names
    the operation; never inf, and never Python's bare '(34, Numerical result out of range)'."""
    for x in EXTREMES:
        for y in EXTREMES:
            try:
                a = Value(x)
                out = OPERATIONS[name](a, Value(y))
            except OverflowError as error:
                assert "too large for a float" in str(error), (name, x, y, str(error))
            except (ZeroDivisionError, ValueError) as error:
                assert str(error), (name, x, y)
            else:
                assert math.isfinite(out.data), (name, x, y, out.data)
                out.backward()  # gradients are IEEE arithmetic: they may be inf, never raise


@engines
def test_the_same_overflow_is_the_same_error_whichever_way_it_is_written(Value):
    for make in (
        lambda: Value(1e200) ** 2,
        lambda: Value(1e200) * Value(1e200),
        lambda: Value(1e200) * 1e200,
        lambda: 1e200 * Value(1e200),
        lambda: Value(1e308) + Value(1e308),
        lambda: Value(1.0) / Value(1e-310),
        lambda: Value(1000.0).exp(),
    ):
        with pytest.raises(OverflowError, match="too large for a float"):
            make()


@engines
def test_infinite_inputs_still_give_what_floats_give(Value):
    assert (Value(math.inf) * 2).data == math.inf
    assert math.isnan((Value(math.inf) - Value(math.inf)).data)
    assert (Value(math.inf) + 1).data == math.inf


def test_a_huge_int_is_refused_as_too_large_for_a_float():
    for Value in ENGINES:
        with pytest.raises(OverflowError, match="too large for a float"):
            Value(10**400)
        with pytest.raises(OverflowError, match="too large for a float"):
            Value(1.0) + 10**400
