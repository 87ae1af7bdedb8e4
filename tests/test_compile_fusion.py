"""autograd.compile's fusion: the fused code (sums of products as running sums, repeated blocks
as loops) gives the engine's numbers bit for bit, in Python and in C at every -O level.

Fusion only pays where the tape repeats, so the programs here repeat: a batch of points, each
through the same weighted sums and the same random program (tests/programs.py, and the edge
programs of tests/edge_programs.py, whose numbers reach infinities, NaN and the errors), with
a number of the trace for each point (its label) as the benchmark's hinge loss has. Every
comparison is exact: the same float, the same sign of zero, the same error.
"""

import random
import re
import struct
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import edge_programs
from autograd import nn
from autograd.compile import compile_loss, fusion, loops, passes, places, python_fused
from autograd.engine import Value
from programs import programs, run
from test_compile_c_bits import c_cache  # noqa: F401 (a fixture: a C compiler, an empty cache)

OPT_LEVELS = (0, 1, 2, 3)  # every level compile_loss offers


def bits(x):
    return struct.pack("<d", x) if x == x else b"nan"


def outcome(call):
    """(loss, grads, values) as bits, or (exception type, message) if it raises."""
    try:
        loss, grads, *values = call()
    except (ArithmeticError, ValueError) as e:
        return type(e), str(e)
    return bits(loss), [bits(g) for g in grads], [bits(v) for v in (values[0] if values else [])]


def engine(fn, params, inputs, has_aux=False):
    def call():
        ps = [Value(p) for p in params]
        xs = _values(inputs)
        result = fn(ps, xs)
        root, aux = result if has_aux else (result, [])
        root.backward()
        return root.data, [p.grad for p in ps], [a.data for a in aux]

    return outcome(call)


def _values(inputs):
    return [_values(x) for x in inputs] if isinstance(inputs, list) else Value(inputs)


def compiled(step, params, inputs):
    return outcome(lambda: step(params, inputs))


# --------------------------------------------------------------------- batched programs


def batched(steps, width, activation, labels):
    """A loss over points: for each, the weighted sum `b + w1*x1 + ...` of its numbers, its
    activation, then the random program on that and the point's numbers, times the point's
    label (a number of the trace); summed, plus the sum of the parameters' squares."""

    def fn(ps, xs):
        weights, b, rest = ps[:width], ps[width], ps[width + 1 :]
        total = 0
        for point, label in zip(xs, labels):
            act = b
            for w, x in zip(weights, point):
                act = act + w * x
            act = getattr(act, activation)()
            total = total + run(steps, [act, *rest, *point]) * label
        return total + sum(p * p for p in ps)

    return fn


@st.composite
def batches(draw):
    """(fn, params, inputs) of a batched program (see `batched`)."""
    numbers = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)
    width = draw(st.integers(1, 5))
    points = draw(st.integers(3, 7))
    program_inputs, steps = draw(programs(max_inputs=3, max_steps=8))
    extra = len(program_inputs)  # the program's other inputs are parameters
    params = draw(st.lists(numbers, min_size=width + 1 + extra, max_size=width + 1 + extra))
    inputs = [draw(st.lists(numbers, min_size=width, max_size=width)) for _ in range(points)]
    labels = draw(st.lists(st.sampled_from((1.0, -1.0, 0.5, 2)), min_size=points, max_size=points))
    # the program reads its leaves by index: the activation, the parameters, then the point
    leaves = 1 + extra + width
    steps = [(name, tuple(i % (leaves + k) for i in args)) for k, (name, args) in enumerate(steps)]
    activation = draw(st.sampled_from(("relu", "tanh", "sigmoid", "exp")))
    return batched(steps, width, activation, labels), params, inputs


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches(), st.data())
def test_fused_python_gives_the_engines_numbers_on_random_batches(batch, data):
    fn, params, inputs = batch
    want = engine(fn, params, inputs)
    assume(not isinstance(want[0], type))  # tracing raises where the engine does
    step = compile_loss(fn, params, inputs, fuse=True)
    # the points' block is a loop, or written out (a list assigned to a slice, or a running
    # sum over numbers unpacked): fusion ran
    assert any(text in step.source for text in ("for ", "] = [", "u0_0"))
    assert compiled(step, params, inputs) == want
    numbers = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
    others = [data.draw(numbers) for _ in params]
    other_inputs = [[data.draw(numbers) for _ in point] for point in inputs]
    assert compiled(step, others, other_inputs) == engine(fn, others, other_inputs)


def test_fused_and_unfused_python_run_the_same_operations():
    rng = random.Random(0)
    for _ in range(30):
        width = rng.randint(1, 6)
        params = [rng.uniform(-2, 2) for _ in range(width + 1)]
        inputs = [[rng.uniform(-2, 2) for _ in range(width)] for _ in range(rng.randint(3, 9))]
        fn = batched([("tanh", (0,))], width, "relu", [1.0] * len(inputs))
        fused = compile_loss(fn, params, inputs, fuse=True)
        plain = compile_loss(fn, params, inputs, fuse=False)
        assert (
            compiled(fused, params, inputs)
            == compiled(plain, params, inputs)
            == engine(fn, params, inputs)
        )


# --------------------------------------------------------------------- edge programs


def edge_batch(prog, points):
    """`prog` (tests/edge_programs.py) run on each of `points`, its results summed."""

    def fn(ps, xs):
        total = 0
        for point in xs:
            nodes = [p * x for p, x in zip(ps, point)]
            for step in prog.steps:
                nodes.append(edge_programs.apply(step.op, [nodes[j] for j in step.args], step.n))
            total = total + nodes[-1]
        return total

    return fn


@pytest.mark.parametrize("i", range(60))
def test_fused_python_follows_the_engine_at_the_edges(i):
    prog = edge_programs.program(i)
    params = list(prog.inputs)
    rng = random.Random(i)
    points = [[rng.choice((1.0, 1.0, 2.0, -1.0, 0.0)) for _ in params] for _ in range(4)]
    fn = edge_batch(prog, points)
    want = engine(fn, params, points)
    if isinstance(want[0], type):
        return  # the trace raises where the engine raises: nothing compiled
    step = compile_loss(fn, params, points, fuse=True)
    assert compiled(step, params, points) == want
    for k in range(3):  # other points: infinities, NaN, errors, as the engine has them
        other = [
            [rng.choice(edge_programs.EDGE_VALUES + (1.0, 2.0)) for _ in params] for _ in points
        ]
        assert compiled(step, params, other) == engine(fn, params, other), f"points {other}"


# --------------------------------------------------------------------- C, every level


@pytest.mark.usefixtures("c_cache")
def test_fused_c_gives_the_engines_numbers_at_every_level():
    """Many batched programs in one library (C builds are slow): each program's result is an
    auxiliary value, so each is compared on its own, at every -O level."""
    rng = random.Random(1)
    fns, params, inputs = [], [], []
    for fn, p, x in (_batch(rng) for _ in range(12)):
        if isinstance(engine(fn, p, x)[0], type):
            continue
        fns.append((fn, len(p), len(x)))
        params += p
        inputs += x

    def together(ps, xs):
        results, i, j = [], 0, 0
        for fn, n, m in fns:
            results.append(fn(ps[i : i + n], xs[j : j + m]))
            i, j = i + n, j + m
        total = results[0]
        for r in results[1:]:
            total = total + r
        return total, results

    want = engine(together, params, inputs, has_aux=True)
    others = [[x * 1.5 - 0.25 for x in point] for point in inputs]
    want_others = engine(together, params, others, has_aux=True)
    for level in OPT_LEVELS:
        step = compile_loss(together, params, inputs, has_aux=True, backend="c", opt_level=level)
        assert step.backend == "c" and "for (int" in step.source
        assert compiled(step, params, inputs) == want, f"-O{level}"
        assert compiled(step, params, others) == want_others, f"-O{level}"


def _batch(rng):
    """A batched program (see `batches`) from `rng`'s draws."""
    from programs import OPS

    width, points = rng.randint(1, 5), rng.randint(3, 6)
    names = sorted(OPS)
    extra = rng.randint(1, 2)
    leaves = 1 + extra + width
    steps = []
    for k in range(rng.randint(1, 6)):
        name = rng.choice(names)
        steps.append((name, tuple(rng.randrange(leaves + k) for _ in range(OPS[name].arity))))
    params = [rng.uniform(-2, 2) for _ in range(width + 1 + extra)]
    inputs = [[rng.uniform(-2, 2) for _ in range(width)] for _ in range(points)]
    labels = [rng.choice((1.0, -1.0, 0.5)) for _ in range(points)]
    activation = rng.choice(("relu", "tanh", "sigmoid"))
    return batched(steps, width, activation, labels), params, inputs


# --------------------------------------------------------------------- the benchmark's step


def benchmark_step():
    """(fn, params, points) of the benchmark's demo step: MLP 2-16-16-1 on 100 moons points,
    mean hinge loss plus an L2 penalty, as benchmarks/contenders.py traces it."""
    root = Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(root))
    try:
        import contenders
    finally:
        sys.path.remove(str(root))
    from autograd.data import make_moons

    X, y = make_moons(100, noise=0.1, seed=0)

    def fn(params, inputs):
        return contenders.loss_and_scores(
            contenders._Traced, (contenders._layers(params), params), inputs, y
        )

    params = [p for layer in contenders.initial_weights(0) for neuron in layer for p in neuron]
    return fn, params, [list(row) for row in X]


@pytest.fixture(scope="module")
def demo():
    fn, params, points = benchmark_step()
    other = [p * 0.9 + 0.01 for p in params]
    return (
        fn,
        params,
        points,
        other,
        {tuple(p): engine(fn, p, points, has_aux=True) for p in (params, other)},
    )


def test_the_benchmark_step_fused_in_python_is_the_engines(demo):
    fn, params, points, other, want = demo
    step = compile_loss(fn, params, points, has_aux=True, fuse=True)
    assert step.source.count("\n") < 400  # from some 130,000 lines, one per operation
    for p in (params, other):
        assert compiled(step, p, points) == want[tuple(p)]


@pytest.mark.parametrize("level", OPT_LEVELS)
@pytest.mark.usefixtures("c_cache")
def test_the_benchmark_step_fused_in_c_is_the_engines(demo, level):
    fn, params, points, other, want = demo
    step = compile_loss(fn, params, points, has_aux=True, backend="c", opt_level=level)
    assert step.backend == "c" and step.source.count("\n") < 600
    for p in (params, other):
        assert compiled(step, p, points) == want[tuple(p)]


# --------------------------------------------------------------------- what fusion finds


@pytest.mark.usefixtures("c_cache")
def test_c_is_fused_by_default_and_python_on_request():
    fn = batched([("tanh", (0,))], 3, "relu", [1.0, -1.0, 1.0, 2.0])
    params, inputs = [0.5, -1.0, 0.25, 0.1], [[1.0, 2.0, 3.0]] * 4
    c = compile_loss(fn, params, inputs, backend="c")
    assert c.fused and "for (int" in c.source
    plain_c = compile_loss(fn, params, inputs, backend="c", fuse=False)
    assert not plain_c.fused and "for (int i0" not in plain_c.source
    python = compile_loss(fn, params, inputs)
    assert not python.fused and "for " not in python.source
    assert compile_loss(fn, params, inputs, fuse=True).fused
    want = engine(fn, params, inputs)
    assert all(compiled(step, params, inputs) == want for step in (c, plain_c, python))


def test_a_neurons_weighted_sum_is_one_loop():
    model = nn.Neuron(5, nonlin="tanh", seed=0)
    x = [0.5, -1.0, 2.0, 0.25, -0.75]
    step = compile_loss(lambda p, xs: model(xs), model.parameters(), x, fuse=True)
    lines = step.source.splitlines()
    assert "    s = v[5]" in lines  # the bias first, as the engine adds it
    # the loop of five turns, written out in Python: the weights and the inputs unpacked
    assert "    u0_0, u0_1, u0_2, u0_3, u0_4 = v[0:5]" in lines
    assert "    u1_0, u1_1, u1_2, u1_3, u1_4 = v[6:11]" in lines
    assert (
        "    s = s + (u0_0 * u1_0) + (u0_1 * u1_1) + (u0_2 * u1_2) + (u0_3 * u1_3) + (u0_4 * u1_4)"
    ) in lines
    assert [ins.op for ins in step.tape].count("*") == 5


def test_a_sum_of_products_needs_every_partial_result_used_once():
    # t1 = p1 + p0*x0 is read twice (by the next sum and by the loss): no running sum there
    def fn(p, x):
        first = p[2] + p[0] * x[0]
        return (first + p[1] * x[1]) * first

    trace = compile_loss(fn, [1.0, 2.0, 3.0], [0.5, 0.25])._trace
    assert passes.dots(trace, kept=set()) == {}


def test_rolling_keeps_the_order_of_the_statements():
    lines = [f"d[@{k}@] += v[@{2 * k}@] * d[@99@]" for k in range(5)]
    lines += ["out[@0@] = d[@99@]"]
    items = loops.roll(map(_code, lines))
    assert len(items) == 2 and items[0].count == 5
    assert loops.count_statements(items) == 6
    # unrolled again, the statements are the original ones, in order
    assert list(_unroll(items)) == [loops.statement(_code(line)).places for line in lines]


def _unroll(items, values=()):
    for item in items:
        if isinstance(item, loops.Statement):
            yield tuple(
                (c + sum(s * k for s, k in zip(steps, reversed(values))), ())
                for c, steps in item.places
            )
        else:
            for k in range(item.count):
                yield from _unroll(item.body, (*values, k))


def test_blocks_whose_places_do_not_move_by_a_fixed_step_stay_apart():
    lines = [f"v[@{k}@] = v[@{k * k}@] * 2.0" for k in range(6)]  # 0, 1, 4, 9: no fixed step
    assert all(isinstance(item, loops.Statement) for item in loops.roll(map(_code, lines)))


@pytest.mark.usefixtures("c_cache")
def test_a_sum_added_in_reverse_would_be_caught(monkeypatch):
    """The comparison with the engine sees a sum of products added in another order: a
    planted mistake in the fusion (the terms reversed) makes the benchmark-like check fail."""
    original = fusion.dot_statements

    def reversed_terms(dot, lang, operand=None):
        lines = original(dot, lang, operand)
        return [lines[0], *reversed(lines[1:-1]), lines[-1]]

    params = [1.0, 1e16, -1e16, 0.0]  # (1 + 1e16) - 1e16 is 0.0, (-1e16 + 1e16) + 1 is 1.0
    inputs = [[1.0, 1.0, 1.0]] * 3

    def fn(ps, xs):
        total = 0
        for point in xs:
            act = ps[3]
            for w, x in zip(ps[:3], point):
                act = act + w * x
            total = total + act
        return total

    want = engine(fn, params, inputs)
    assert compiled(compile_loss(fn, params, inputs, fuse=True), params, inputs) == want
    assert compiled(compile_loss(fn, params, inputs, backend="c"), params, inputs) == want
    monkeypatch.setattr(fusion, "dot_statements", reversed_terms)
    assert compiled(compile_loss(fn, params, inputs, fuse=True), params, inputs) != want
    assert compiled(compile_loss(fn, params, inputs, backend="c"), params, inputs) != want


# --------------------------------------------------------------------- loops written out (Python)
#
# An innermost loop of at most `python_fused.WRITTEN_OUT` turns is written out in Python: each
# statement one slice assignment over all turns. That is right only where no statement touches
# a place another turn writes (`python_fused._apart`); elsewhere the loop must stay a loop. The
# statements here are lines with marked places (`d[@12@]`), made into statements as the
# writers make them (`_code`), rolled and written as the fused Python writes them, and
# compared with the same lines run one by one.


def _run_lines(code, v, d):
    """Run Python lines on copies of the lists `v` and `d`; the lists after, as bits."""
    arrays = {"v": list(v), "d": list(d)}
    exec(code, {}, arrays)  # noqa: S102 (lines written here, from numbers only)
    return [bits(x) for x in arrays["v"]], [bits(x) for x in arrays["d"]]


# a marked place, `@12@` (an array's) or `#5#` (a number's), in a test's lines
_MARK = re.compile(r"([@#])(\d+)[@#]")
# the pieces of a test's line: an array's place, a number's, the running sum, a bracket
_PIECE = re.compile(r"(\w+)\[@(\d+)@\]|#(\d+)#|\bs\b|[()]")


def _mark(index):
    return f"@{index}@"


def _code(line):
    """A test's line with marked places as the writers write statements (`places.Code`): its
    places `Mark`s (the first one written, where the line assigns or adds to it), the
    running sum `s` the piece `places.SUM`, each bracket a piece of its own."""
    pieces, at = [], 0
    for found in _PIECE.finditer(line):
        if found.start() > at:
            pieces.append(line[at : found.start()])
        array, index, number = found.groups()
        if array:
            after = line[found.end() :]
            how = next((w for w in ("=", "+=") if not pieces and after.startswith(f" {w} ")), "")
            pieces.append(places.Mark(places.Place("@", array, how), int(index)))
        elif number:
            pieces.append(places.Mark(places.NUMBER, int(number)))
        else:
            pieces.append(places.SUM if found.group() == "s" else found.group())
        at = found.end()
    return tuple(pieces + ([line[at:]] if line[at:] else []))


def _one_by_one(lines):
    return "\n".join(_MARK.sub(r"\2", line) for line in lines)


def _as_fused(lines):
    """The lines rolled into loops and written as the fused Python writes them."""
    from autograd.compile import python

    number = loops.Numbers([], python.literal, "c")
    return "\n".join(
        line[4:] for line in python_fused.python_lines(loops.roll(map(_code, lines)), number)
    )


def _turns(block, n):
    """`block`'s statements (each `(text with {0}, {1}, ... for places, [(start, step)])`) for
    turns 0 to n - 1, the places moving by their steps."""
    return [
        text.format(*(_mark(c + s * k) for c, s in places))
        for k in range(n)
        for text, places in block
    ]


@st.composite
def marked_blocks(draw):
    """(lines, v, d): a block of one to three statements on the lists v and d, each
    `A[place] = or += B[place] * C[place]` (and maybe a sum into s stored at the end),
    repeated for 3 to 8 turns with every place moving by a step of -2 to 2 (0 too), so that
    places often overlap across turns and statements; maybe then a running sum over turns."""
    numbers = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)
    place = st.tuples(st.integers(16, 40), st.integers(-2, 2))
    array = st.sampled_from("vd")
    block = []
    for _ in range(draw(st.integers(1, 3))):
        a, b, c = draw(array), draw(array), draw(array)
        operator = draw(st.sampled_from(("=", "+=")))
        block.append(
            (
                f"{a}[{{0}}] {operator} {b}[{{1}}] * {c}[{{2}}]",
                [draw(place), draw(place), draw(place)],
            )
        )
    if draw(st.booleans()):  # a sum that starts and ends in each turn, as a small neuron's
        block.append((f"s = {draw(array)}[{{0}}]", [draw(place)]))
        for _ in range(draw(st.integers(1, 2))):
            block.append(
                (
                    f"s = s + ({draw(array)}[{{0}}] * {draw(array)}[{{1}}])",
                    [draw(place), draw(place)],
                )
            )
        block.append((f"{draw(array)}[{{0}}] = s", [draw(place)]))
    lines = _turns(block, draw(st.integers(3, 8)))
    if draw(st.booleans()):  # a running sum over the turns, as fusion writes a weighted sum
        n = draw(st.integers(3, 8))
        lines += (
            ["s = v[@0@]"]
            + _turns([("s = s + (v[{0}] * d[{1}])", [draw(place), draw(place)])], n)
            + [f"d[@{draw(st.integers(0, 63))}@] = s"]
        )
    return (
        lines,
        draw(st.lists(numbers, min_size=64, max_size=64)),
        draw(st.lists(numbers, min_size=64, max_size=64)),
    )


def test_a_loop_whose_places_do_not_meet_is_written_out():
    # each turn: d[10 + k] += v[k] * v[20 - k], then d[30 + 2k] = d[10 + k] * v[5]
    lines = _turns(
        [
            ("d[{0}] += v[{1}] * v[{2}]", [(10, 1), (0, 1), (20, -1)]),
            ("d[{0}] = d[{1}] * v[{2}]", [(30, 2), (10, 1), (5, 0)]),
        ],
        6,
    )
    fused = _as_fused(lines)
    assert "for " not in fused
    assert "d[10:16] = [u2_0 + u0_0 * u1_0," in fused
    assert "d[30:41:2] = [u3_0 * h0," in fused
    v, d = [0.1 * k - 1.3 for k in range(64)], [0.7 - 0.03 * k for k in range(64)]
    assert _run_lines(fused, v, d) == _run_lines(_one_by_one(lines), v, d)


def _recurrence():
    """A loop whose turn reads the place the turn before wrote: d[11 + k] = d[10 + k] * v[k]
    (a chain, as a sum over the points of a batch is)."""
    return _turns([("d[{0}] = d[{1}] * v[{2}]", [(11, 1), (10, 1), (0, 1)])], 5)


def test_a_loop_whose_turns_read_what_others_wrote_stays_a_loop():
    lines = _recurrence()
    fused = _as_fused(lines)
    assert "for " in fused and "u0_0" not in fused
    v, d = [1.5] * 64, [1.0] * 64
    assert _run_lines(fused, v, d) == _run_lines(_one_by_one(lines), v, d)


def test_writing_out_a_loop_whose_places_meet_would_be_caught(monkeypatch):
    """A planted mistake: without the test that places do not meet (`python_fused._apart`), the
    recurrence is written out, every turn reads the number before the loop, and both the
    comparison with the lines one by one and the comparison with the engine fail."""

    def chain(ps, xs):  # the running total over the points is a recurrence
        total = 0
        for point in xs:
            total = total + ps[0] * point[0] * point[1]
        return total

    params, points = [0.7], [[1.5, 2.0], [0.1, 3.0], [0.3, -1.0], [2.5, 1.25], [1.0, 1.0]]
    want = engine(chain, params, points)
    assert compiled(compile_loss(chain, params, points, fuse=True), params, points) == want
    lines, v, d = _recurrence(), [1.5] * 64, [1.0] * 64
    monkeypatch.setattr(python_fused, "_apart", lambda accesses, places_of: True)
    fused = _as_fused(lines)
    assert "u0_0" in fused
    assert _run_lines(fused, v, d) != _run_lines(_one_by_one(lines), v, d)
    assert compiled(compile_loss(chain, params, points, fuse=True), params, points) != want


def _nested_turns(inner, outer, n, m):
    """The statements of `inner` for n turns (each place `(start, step, outer step)`), then of
    `outer` (each place `(start, outer step)`), all that for m turns."""
    lines = []
    for j in range(m):
        lines += [
            text.format(*(_mark(c + s * k + t * j) for c, s, t in places))
            for k in range(n)
            for text, places in inner
        ]
        lines += [text.format(*(_mark(c + t * j) for c, t in places)) for text, places in outer]
    return lines


@st.composite
def nested_blocks(draw):
    """(lines, v, d): a loop of loops: an inner block of one or two statements for 3 to 6
    turns, then an outer statement, all for 3 or 4 turns; places moving by -2 to 2 with each
    index (0 too), so that a number the inner loop reads at every outer turn is often one the
    outer loop writes."""
    numbers = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)
    step = st.integers(-2, 2)
    inner_place = st.tuples(st.integers(16, 30), step, step)
    outer_place = st.tuples(st.integers(16, 30), step)
    inner = []
    for _ in range(draw(st.integers(1, 2))):
        operator = draw(st.sampled_from(("=", "+=")))
        inner.append(
            (
                f"{draw(st.sampled_from('vd'))}[{{0}}] {operator} "
                f"{draw(st.sampled_from('vd'))}[{{1}}] * {draw(st.sampled_from('vd'))}[{{2}}]",
                [draw(inner_place) for _ in range(3)],
            )
        )
    outer = [
        (
            f"{draw(st.sampled_from('vd'))}[{{0}}] = {draw(st.sampled_from('vd'))}[{{1}}] * 2.0",
            [draw(outer_place), draw(outer_place)],
        )
    ]
    lines = _nested_turns(inner, outer, draw(st.integers(3, 6)), draw(st.integers(3, 4)))
    return (
        lines,
        draw(st.lists(numbers, min_size=64, max_size=64)),
        draw(st.lists(numbers, min_size=64, max_size=64)),
    )


@settings(max_examples=600, deadline=None)
@given(st.one_of(marked_blocks(), nested_blocks()))
def test_loops_written_out_alone_or_inside_loops_run_the_statements_numbers(block):
    lines, v, d = block
    fused = _as_fused(lines)
    assert _run_lines(fused, v, d) == _run_lines(_one_by_one(lines), v, d), fused


def _read_then_written():
    """Each outer turn j: d[20 + 4j + k] = d[k] * 2.0 for k < 4 (d[k] the same at every
    turn j), then d[j] = v[40 + j] * 2.0, which writes d[0], d[1], d[2]: what the next
    turn's inner loop reads."""
    return _nested_turns(
        [("d[{0}] = d[{1}] * 2.0", [(20, 1, 4), (0, 1, 0)])],
        [("d[{0}] = v[{1}] * 2.0", [(0, 1), (40, 1)])],
        4,
        3,
    )


def test_numbers_unpacked_before_a_loop_are_ones_it_does_not_write():
    v, d = [0.5 * k for k in range(64)], [1.0 - 0.25 * k for k in range(64)]
    # the weights of a layer, the same for every point: unpacked once, before the points' loop
    lines = _nested_turns(
        [("d[{0}] += v[{1}] * v[{2}]", [(20, 1, 4), (0, 1, 0), (40, 0, 1)])],
        [("d[{0}] = v[{1}] * 2.0", [(50, 1), (30, 1)])],
        4,
        3,
    )
    fused = _as_fused(lines)
    assert "q0_0, q0_1, q0_2, q0_3 = v[0:4]" in fused.splitlines()
    assert _run_lines(fused, v, d) == _run_lines(_one_by_one(lines), v, d)
    # d[0:4], which the loop writes: unpacked at each turn, inside it
    lines = _read_then_written()
    fused = _as_fused(lines)
    assert "q0_0" not in fused and "    u0_0, u0_1, u0_2, u0_3 = d[0:4]" in fused.splitlines()
    assert _run_lines(fused, v, d) == _run_lines(_one_by_one(lines), v, d)
    assert python_fused.WRITTEN_OUT >= 4


def test_unpacking_before_a_loop_what_it_writes_would_be_caught(monkeypatch):
    """A planted mistake: where the test of what a loop writes (`python_fused._unwritten`) says
    "nothing", d[0:4] is unpacked once before the loop, and the turns after the first read
    numbers the loop has since overwritten."""
    v, d = [0.5 * k for k in range(64)], [1.0 - 0.25 * k for k in range(64)]
    lines = _read_then_written()
    monkeypatch.setattr(python_fused, "_unwritten", lambda written, array, form, counts: True)
    fused = _as_fused(lines)
    assert "q0_0, q0_1, q0_2, q0_3 = d[0:4]" in fused.splitlines()
    assert _run_lines(fused, v, d) != _run_lines(_one_by_one(lines), v, d)


def test_a_sum_written_out_adds_in_the_engines_order(monkeypatch):
    """Each turn's sum `s = v[k]; s = s + v[10 + k] * v[30]; s = s + v[20 + k] * v[30]; d[40
    + k] = s` is one expression, added left to right as the lines add it: (1 + 1e16) - 1e16
    is 0.0. A planted mistake, the terms added first, gives 1.0 and is caught."""
    lines = _turns(
        [
            ("s = v[{0}]", [(0, 1)]),
            ("s = s + (v[{0}] * v[{1}])", [(10, 1), (30, 0)]),
            ("s = s + (v[{0}] * v[{1}])", [(20, 1), (30, 0)]),
            ("d[{0}] = s", [(40, 1)]),
        ],
        4,
    )
    v = [1.0] * 10 + [1e16] * 10 + [-1e16] * 10 + [1.0] * 34
    d = [0.5] * 64
    fused = _as_fused(lines)
    assert "for " not in fused and "d[40:44] = [u0_0 + (u1_0 * h0) + (u2_0 * h0)," in fused
    assert _run_lines(fused, v, d) == _run_lines(_one_by_one(lines), v, d)
    assert _run_lines(fused, v, d)[1][40] == bits(0.0)
    original = python_fused._sums_as_expressions

    def terms_first(body):  # `d = (a) + (b + c)`, not `d = a + b + c`
        planted = []
        for item in original(body):
            shape = item.shape
            if " + " in shape:
                plus = shape.index(" + ")
                shape = (*shape[:2], "(", *shape[2:plus], ")", " + ", "(", *shape[plus + 1 :], ")")
            planted.append(loops.statement_of(shape, item.places))
        return planted

    monkeypatch.setattr(python_fused, "_sums_as_expressions", terms_first)
    planted = _as_fused(lines)
    assert "d[40:44] = [(u0_0) + ((u1_0 * h0) + (u2_0 * h0))," in planted
    assert _run_lines(planted, v, d) != _run_lines(_one_by_one(lines), v, d)
