"""The C backend of autograd.compile gives the engine's numbers bit for bit, at -O0 and at -O2.

The C code calls the same C library functions (`pow`, `exp`, `log`, `tanh`) that the engine's
Python calls, so its numbers are the engine's only if the compiler calls them too. A C
compiler that knows `pow` may write `pow(x, -1.0)` as `1 / x` and `pow(x, 2.0)` as `x * x`:
the exact result correctly rounded, which the library's `pow` misses in the last bit on about
one point in a thousand. So every comparison here is exact, and the points include, beside
random ones, those where the library's `pow` and the shortcut differ.

Building C is slow, so each test builds few libraries: one library holds many programs, each
on parameters of its own, its result returned beside the loss (`has_aux`), so that every
program's value and gradients are compared on their own.
"""

import math
import os
import random
import struct

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from autograd.compile import c_compiler, compile_loss
from autograd.engine import Value
from programs import programs, run

OPT_LEVELS = (0, 2)
pytestmark = pytest.mark.usefixtures("c_cache")  # every test here builds C


@pytest.fixture(scope="module")
def c_cache(tmp_path_factory):
    """A C compiler (or a skip with the reason; a failure in CI) and an empty cache."""
    from conftest import skip_or_fail

    if c_compiler() is None:
        skip_or_fail("no C compiler (cc, gcc or clang) on the PATH: the C backend cannot be tested")
    saved = os.environ.get("AUTOGRAD_CACHE")
    os.environ["AUTOGRAD_CACHE"] = str(tmp_path_factory.mktemp("c-bits-cache"))
    yield
    if saved is None:
        del os.environ["AUTOGRAD_CACHE"]
    else:
        os.environ["AUTOGRAD_CACHE"] = saved


def bits(x):
    return struct.pack("<d", x) if x == x else b"nan"


def outcome(call):
    """(loss, grads, values) as bits, or (exception type, message) if it raises."""
    try:
        loss, grads, values = call()
    except (ArithmeticError, ValueError) as e:
        return type(e), str(e)
    return bits(loss), [bits(g) for g in grads], [bits(v) for v in values]


def together(functions, sizes):
    """One function of all the `functions`, the k-th on the next `sizes[k]` parameters: it
    returns (the sum of their results, their results)."""

    def fn(ps, xs):
        results, i = [], 0
        for f, n in zip(functions, sizes):
            results.append(f(ps[i : i + n]))
            i += n
        total = results[0]
        for r in results[1:]:
            total = total + r
        return total, results

    return fn


def engine(fn, params):
    def call():
        ps = [Value(p) for p in params]
        root, values = fn(ps, [])
        root.backward()
        return root.data, [p.grad for p in ps], [v.data for v in values]

    return outcome(call)


def compiled(step, params):
    return outcome(lambda: step(params))


def assert_bit_for_bit(fn, traced, points):
    """`fn` compiled to C at each level gives the engine's outcome at every point."""
    for level in OPT_LEVELS:
        step = compile_loss(fn, traced, backend="c", has_aux=True, opt_level=level)
        assert step.backend == "c"
        for k, numbers in enumerate(points):
            got, want = compiled(step, numbers), engine(fn, numbers)
            assert got == want, f"-O{level}, point {k}: {first_difference(got, want)}"


def first_difference(got, want):
    """Where two outcomes differ, in words."""
    if isinstance(got[0], type) or isinstance(want[0], type):
        return f"the C code gave {got[:2]} but the engine {want[:2]}"
    if got[0] != want[0]:
        return f"the loss is {unbits(got[0])!r} in C but {unbits(want[0])!r} in the engine"
    for what, g, w in (("gradient", got[1], want[1]), ("value", got[2], want[2])):
        for i, (a, b) in enumerate(zip(g, w)):
            if a != b:
                return f"{what} {i} is {unbits(a)!r} in C but {unbits(b)!r} in the engine"
    return "the outcomes differ"


def unbits(b):
    return math.nan if b == b"nan" else struct.unpack("<d", b)[0]


# --------------------------------------------------------------------- pow's shortcuts


def shortcut_points(count, seed):
    """`count` numbers in [-3, 3] where the C library's pow(x, -1.0) is not 1 / x or
    pow(x, 2.0) is not x * x (math.pow calls it), as many of each as there are; then
    random ones up to `count`."""
    rng = random.Random(seed)
    inverse, square = [], []
    for _ in range(200_000):
        x = rng.uniform(-3.0, 3.0)
        if math.pow(x, -1.0) != 1.0 / x:
            inverse.append(x)
        if math.pow(x, 2.0) != x * x:
            square.append(x)
    points = inverse[: count // 4] + square[: count // 4]
    return points + [rng.uniform(-3.0, 3.0) for _ in range(count - len(points))]


def test_pow_is_the_c_librarys_at_every_point_even_where_a_shortcut_differs():
    points = shortcut_points(2400, seed=25)
    width = 50  # numbers per call: one library, called 48 times (-O2 takes long on more)

    def term(ps):
        return ps[0] ** -1 + ps[0] ** 2

    fn = together([term] * width, [1] * width)
    calls = [points[i : i + width] for i in range(0, len(points), width)]
    assert_bit_for_bit(fn, calls[0], calls)


# --------------------------------------------------------------------- random programs


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(programs(), min_size=10, max_size=10), st.data())
def test_random_programs_in_c_give_the_engines_numbers_bit_for_bit(progs, data):
    functions = [(lambda steps: lambda ps: run(steps, list(ps)))(steps) for _, steps in progs]
    sizes = [len(inputs) for inputs, _ in progs]
    fn = together(functions, sizes)
    traced = [x for inputs, _ in progs for x in inputs]
    assume(not isinstance(engine(fn, traced)[0], type))  # tracing raises where the engine does
    numbers = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
    others = [[data.draw(numbers) for _ in traced] for _ in range(8)]
    assert_bit_for_bit(fn, traced, [traced, *others])


# --------------------------------------------------------------------- edge programs


def edge_function(prog):
    from edge_programs import apply

    def fn(ps):
        nodes = list(ps)
        for step in prog.steps:
            nodes.append(apply(step.op, [nodes[j] for j in step.args], step.n))
        return nodes[-1]

    return fn


def test_edge_programs_in_c_give_the_engines_numbers_and_errors():
    """Programs of tests/edge_programs.py, traced where they run and stay finite, replayed one
    at a time at the edges of floating point (zeros, subnormals, overflow), the others at
    their own numbers."""
    from edge_programs import program

    chosen, i = [], 0
    while len(chosen) < 40:
        prog, i = program(i, "moderate"), i + 1
        fn = edge_function(prog)
        result = engine(together([fn], [len(prog.inputs)]), list(prog.inputs))
        if isinstance(result[0], type) or not abs(struct.unpack("<d", result[0])[0]) < 1e100:
            continue  # the trace would raise, or its value would swamp the sum
        chosen.append(prog)
    edges = [program(j, "edges").inputs for j in range(200)]
    fn = together([edge_function(p) for p in chosen], [len(p.inputs) for p in chosen])
    traced = [x for p in chosen for x in p.inputs]
    points, start = [traced], 0
    for p in chosen:
        n = len(p.inputs)
        for other in [e for e in edges if len(e) == n][:3]:
            points.append(traced[:start] + list(other) + traced[start + n :])
        start += n
    assert_bit_for_bit(fn, traced, points)
